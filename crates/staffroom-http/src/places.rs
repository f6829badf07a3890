//! Connection places per client address: no one address holds more than a share of the
//! server's places, so one client, however many connections it opens and however it keeps them
//! busy, leaves room for everyone else. A reverse proxy named by `--trusted-proxy` carries many
//! clients on its connections and is not held to the share.
//!
//! An address at its share may still connect: its idle connections are asked to make room, and
//! the newcomer waits a moment for one. As many may wait as the share; past that, the one that
//! has waited longest gives way to the newcomer (a flood keeps churning, a real client behind
//! the same address still gets its turn when the flood's idle connections close).

use std::collections::{BTreeMap, HashMap};
use std::net::IpAddr;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::sync::Notify;

/// How often a waiting connection asks its address's idle connections again to make room.
const ASK_AGAIN: Duration = Duration::from_millis(100);

/// The places of every address.
pub struct AddressPlaces {
    share: usize,
    trusted: Vec<ipnet::IpNet>,
    addresses: Mutex<HashMap<IpAddr, Address>>,
}

#[derive(Default)]
struct Address {
    held: usize,
    /// The connections waiting for a place, oldest first, each with what tells it to give up.
    waiting: BTreeMap<u64, Arc<Notify>>,
    next_ticket: u64,
    /// Its connections with nothing in flight close when told.
    crowded: Arc<Notify>,
    /// Told when one of its places is given back.
    freed: Arc<Notify>,
}

/// A connection's place among its address's; given back when dropped. A trusted proxy's
/// connections hold none.
pub struct AddressPlace {
    places: Option<(Arc<AddressPlaces>, IpAddr)>,
    /// Told when the address's idle connections must make room.
    pub crowded: Option<Arc<Notify>>,
}

impl AddressPlaces {
    /// At most `share` places per address; none for `trusted` proxies.
    pub fn new(share: usize, trusted: Vec<ipnet::IpNet>) -> Arc<AddressPlaces> {
        Arc::new(AddressPlaces { share: share.max(1), trusted, addresses: Mutex::default() })
    }

    /// A place for a connection from `ip`, or `None` when its address holds its share.
    pub fn take(self: &Arc<Self>, ip: IpAddr) -> Option<AddressPlace> {
        let ip = canonical(ip);
        if self.trusted.iter().any(|net| net.contains(&ip)) {
            return Some(AddressPlace { places: None, crowded: None });
        }
        let mut addresses = self.addresses.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        let address = addresses.entry(ip).or_default();
        if address.held >= self.share {
            return None;
        }
        address.held += 1;
        Some(AddressPlace { places: Some((self.clone(), ip)), crowded: Some(address.crowded.clone()) })
    }

    /// Waits up to `within` for a place for `ip` while its idle connections make room; `None`
    /// when none came, or when later connections from the address made it give way.
    pub async fn wait_for(self: &Arc<Self>, ip: IpAddr, within: Duration) -> Option<AddressPlace> {
        let ip = canonical(ip);
        let give_up = Arc::new(Notify::new());
        let (ticket, crowded, freed) = {
            let mut addresses = self.addresses.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
            let address = addresses.entry(ip).or_default();
            if address.waiting.len() >= self.share {
                if let Some((_, longest)) = address.waiting.pop_first() {
                    longest.notify_one();
                }
            }
            let ticket = address.next_ticket;
            address.next_ticket += 1;
            address.waiting.insert(ticket, give_up.clone());
            (ticket, address.crowded.clone(), address.freed.clone())
        };
        let deadline = tokio::time::Instant::now() + within;
        let place = loop {
            if let Some(place) = self.take(ip) {
                break Some(place);
            }
            crowded.notify_waiters();
            tokio::select! {
                () = freed.notified() => {}
                () = tokio::time::sleep(ASK_AGAIN) => {}
                () = tokio::time::sleep_until(deadline) => break None,
                () = give_up.notified() => break None,
            }
        };
        let mut addresses = self.addresses.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        if let Some(address) = addresses.get_mut(&ip) {
            address.waiting.remove(&ticket);
            if address.held == 0 && address.waiting.is_empty() {
                addresses.remove(&ip);
            }
        }
        place
    }

    /// Places held by `ip` now.
    pub fn held_by(&self, ip: IpAddr) -> usize {
        let addresses = self.addresses.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        addresses.get(&canonical(ip)).map_or(0, |a| a.held)
    }
}

impl Drop for AddressPlace {
    fn drop(&mut self) {
        let Some((places, ip)) = self.places.take() else { return };
        let mut addresses = places.addresses.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        if let Some(address) = addresses.get_mut(&ip) {
            address.held -= 1;
            address.freed.notify_one();
            if address.held == 0 && address.waiting.is_empty() {
                addresses.remove(&ip);
            }
        }
    }
}

/// An IPv4 client reached over an IPv6 socket counts as its IPv4 address.
fn canonical(ip: IpAddr) -> IpAddr {
    match ip {
        IpAddr::V6(v6) => v6.to_ipv4_mapped().map_or(ip, IpAddr::V4),
        v4 => v4,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ip(text: &str) -> IpAddr {
        text.parse().unwrap()
    }

    #[test]
    fn an_address_holds_its_share_and_no_more_and_gets_places_back() {
        let places = AddressPlaces::new(2, vec!["10.0.0.0/8".parse().unwrap()]);
        let a = places.take(ip("203.0.113.7")).unwrap();
        let _b = places.take(ip("203.0.113.7")).unwrap();
        assert!(places.take(ip("203.0.113.7")).is_none(), "past its share");
        assert!(places.take(ip("::ffff:203.0.113.7")).is_none(), "the same client over IPv6");
        assert!(places.take(ip("198.51.100.1")).is_some(), "another address has its own");
        drop(a);
        assert_eq!(places.held_by(ip("203.0.113.7")), 1);
        assert!(places.take(ip("203.0.113.7")).is_some());
        // A trusted proxy carries many clients: it is not held to a share.
        let proxy: Vec<_> = (0..10).map(|_| places.take(ip("10.1.2.3")).unwrap()).collect();
        assert_eq!((proxy.len(), places.held_by(ip("10.1.2.3"))), (10, 0));
    }

    #[tokio::test(start_paused = true)]
    async fn a_newcomer_waits_for_a_place_its_address_gives_back_or_gives_up() {
        let places = AddressPlaces::new(1, Vec::new());
        let held = places.take(ip("203.0.113.7")).unwrap();
        let crowded = held.crowded.clone().unwrap();
        // The idle connection hears it must make room, and does.
        tokio::spawn(async move {
            crowded.notified().await;
            drop(held);
        });
        let waited = places.wait_for(ip("203.0.113.7"), Duration::from_secs(2)).await;
        assert!(waited.is_some());
        // Nobody makes room: the newcomer gives up after the time it was given.
        let started = tokio::time::Instant::now();
        assert!(places.wait_for(ip("203.0.113.7"), Duration::from_secs(2)).await.is_none());
        assert_eq!(started.elapsed(), Duration::from_secs(2));
    }

    #[tokio::test(start_paused = true)]
    async fn past_the_share_of_waiters_the_longest_waiting_gives_way_to_the_newcomer() {
        let places = AddressPlaces::new(1, Vec::new());
        let held = places.take(ip("203.0.113.7")).unwrap();
        let first = tokio::spawn({
            let places = places.clone();
            async move { places.wait_for(ip("203.0.113.7"), Duration::from_secs(2)).await.is_some() }
        });
        tokio::time::sleep(Duration::from_millis(10)).await;
        let newcomer = tokio::spawn({
            let places = places.clone();
            async move { places.wait_for(ip("203.0.113.7"), Duration::from_secs(2)).await.is_some() }
        });
        tokio::time::sleep(Duration::from_millis(10)).await;
        assert!(first.is_finished(), "the longest waiting gave way at once");
        assert!(!first.await.unwrap());
        drop(held);
        assert!(newcomer.await.unwrap(), "the newcomer got the place given back");
    }
}
