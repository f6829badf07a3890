//! Places for live event streams: a few per session, a few more per person (across their
//! sessions, which are capped too: `auth::MAX_SESSIONS`) and a bounded number per server, so that
//! no one account can fill the server's connections with streams; and one liveness check per
//! session, shared by all of its streams, so that the database's load grows with sessions, not
//! streams.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::sync::watch;

use staffroom_core::auth::AuthService;
use staffroom_core::error::{Error, Result};

/// Streams one session may have open at once: a desktop needs one per window at most.
pub const PER_SESSION: usize = 4;
/// Streams one person may have open at once, over all their sessions: two desktops' worth.
pub const PER_PERSON: usize = 8;
/// Streams the server keeps open at once, well under its connection places
/// ([`crate::server::MAX_CONNECTIONS`]), so that streams never take them all.
pub const PER_SERVER: usize = 512;
/// What a refused stream is told to wait.
const RETRY_AFTER: Duration = Duration::from_secs(30);
/// How often a session with open streams is checked.
pub const SESSION_CHECK: Duration = Duration::from_secs(5);

/// What the shared check last found of a session: the id of its current token while it is live,
/// `None` once it has ended.
pub type SessionState = Option<String>;

/// The server's open streams, by session.
#[derive(Clone)]
pub struct LiveStreams {
    per_session: usize,
    per_person: usize,
    per_server: usize,
    open: Arc<Mutex<Open>>,
}

#[derive(Default)]
struct Open {
    total: usize,
    sessions: HashMap<String, SessionStreams>,
    /// Streams by person (user id).
    people: HashMap<String, usize>,
}

struct SessionStreams {
    count: usize,
    state: watch::Receiver<SessionState>,
}

/// One stream's place; given back when dropped.
pub struct StreamPlace {
    streams: LiveStreams,
    session_id: String,
    user_id: String,
    /// The session as its shared check last found it.
    pub state: watch::Receiver<SessionState>,
}

impl LiveStreams {
    pub fn new(per_session: usize, per_person: usize, per_server: usize) -> LiveStreams {
        LiveStreams { per_session, per_person, per_server, open: Arc::default() }
    }

    /// A place for a stream of the session `session_id` (of user `user_id`, whose current
    /// token is `token_id`), or `rate_limited` when the session, the person or the server has
    /// no more.
    pub fn take(&self, auth: &AuthService, session_id: &str, user_id: &str, token_id: &str) -> Result<StreamPlace> {
        let mut open = self.open.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        if open.total >= self.per_server {
            return Err(Error::rate_limited("The server has as many live event streams as it serves", RETRY_AFTER));
        }
        if open.people.get(user_id).copied().unwrap_or(0) >= self.per_person {
            return Err(Error::rate_limited(
                format!(
                    "You already have {} live event streams open, in this session and others; close a window or sign out elsewhere first",
                    self.per_person
                ),
                RETRY_AFTER,
            ));
        }
        let session = open.sessions.entry(session_id.to_string()).or_insert_with(|| {
            let (sender, state) = watch::channel(Some(token_id.to_string()));
            tokio::spawn(check_session(auth.clone(), session_id.to_string(), user_id.to_string(), sender));
            SessionStreams { count: 0, state }
        });
        if session.count >= self.per_session {
            return Err(Error::rate_limited(
                format!("This session already has {} live event streams open; close one first", self.per_session),
                RETRY_AFTER,
            ));
        }
        session.count += 1;
        let state = session.state.clone();
        open.total += 1;
        *open.people.entry(user_id.to_string()).or_default() += 1;
        Ok(StreamPlace {
            streams: self.clone(),
            session_id: session_id.to_string(),
            user_id: user_id.to_string(),
            state,
        })
    }

    /// Streams open now, in all.
    pub fn open_count(&self) -> usize {
        self.open.lock().unwrap_or_else(|poisoned| poisoned.into_inner()).total
    }
}

impl Drop for StreamPlace {
    fn drop(&mut self) {
        let mut open = self.streams.open.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        open.total -= 1;
        if let Some(streams) = open.people.get_mut(&self.user_id) {
            *streams -= 1;
            if *streams == 0 {
                open.people.remove(&self.user_id);
            }
        }
        if let Some(session) = open.sessions.get_mut(&self.session_id) {
            session.count -= 1;
            if session.count == 0 {
                // Its check stops once no stream watches it.
                open.sessions.remove(&self.session_id);
            }
        }
    }
}

/// Checks one session every [`SESSION_CHECK`] while any of its streams is open, and tells them
/// what it found; stops once the session has ended or no stream is left.
async fn check_session(auth: AuthService, session_id: String, user_id: String, state: watch::Sender<SessionState>) {
    let mut tick = tokio::time::interval(SESSION_CHECK);
    tick.reset();
    loop {
        tokio::select! {
            _ = tick.tick() => {}
            () = state.closed() => return,
        }
        match auth.current_token_of(&session_id, &user_id).await {
            Ok(current) => {
                let ended = current.is_none();
                state.send_replace(current);
                if ended {
                    return;
                }
            }
            // The database is out of reach for now: the streams go on, and the next check decides.
            Err(error) => tracing::warn!(%error, "could not check an event stream's session"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    async fn auth() -> (tempfile::TempDir, AuthService) {
        let dir = tempfile::tempdir().unwrap();
        let mut config = staffroom_core::config::Config::new(dir.path());
        config.secret_backend = staffroom_core::secrets::SecretBackend::Memory;
        let db = staffroom_core::store::Db::new(staffroom_sqlite::Sqlite::open(dir.path()).unwrap());
        let core = staffroom_core::Core::start(config, db, None).await.unwrap();
        (dir, core.auth.clone())
    }

    #[tokio::test]
    async fn places_are_capped_per_session_per_person_and_per_server_and_given_back() {
        let (_dir, auth) = auth().await;
        let people = LiveStreams::new(2, 3, 100);
        let _a = [people.take(&auth, "s-a", "u", "t").unwrap(), people.take(&auth, "s-a", "u", "t").unwrap()];
        let b1 = people.take(&auth, "s-b", "u", "t").unwrap();
        let refused = people.take(&auth, "s-c", "u", "t").err().expect("the person's cap, from a third session");
        assert!(refused.message.contains("in this session and others"), "{}", refused.message);
        assert!(people.take(&auth, "s-d", "someone else", "t").is_ok(), "another person has their own");
        drop(b1);
        assert!(people.take(&auth, "s-c", "u", "t").is_ok(), "a closed stream gives the person's place back");

        let streams = LiveStreams::new(2, 100, 3);
        let a1 = streams.take(&auth, "s-a", "u", "t").unwrap();
        let _a2 = streams.take(&auth, "s-a", "u", "t").unwrap();
        let refused = streams.take(&auth, "s-a", "u", "t").err().unwrap();
        assert_eq!(refused.code, staffroom_core::error::ErrorCode::RateLimited);
        assert_eq!(refused.retry_after, Some(RETRY_AFTER.as_secs()));
        let _b1 = streams.take(&auth, "s-b", "u", "t").unwrap();
        assert!(streams.take(&auth, "s-c", "u", "t").is_err(), "the server's cap");
        drop(a1);
        assert_eq!(streams.open_count(), 2);
        let _c1 = streams.take(&auth, "s-c", "u", "t").unwrap();
    }

    /// However many streams a session has, one check serves them all.
    #[tokio::test]
    async fn the_streams_of_one_session_share_one_check() {
        let (_dir, auth) = auth().await;
        let streams = LiveStreams::new(4, 16, 16);
        let places: Vec<_> = (0..4).map(|_| streams.take(&auth, "s-a", "u", "t").unwrap()).collect();
        assert!(places.iter().all(|p| p.state.same_channel(&places[0].state)));
        let other = streams.take(&auth, "s-b", "u", "t").unwrap();
        assert!(!other.state.same_channel(&places[0].state));
        // Gone with its last stream, so a later stream starts a fresh check.
        drop(places);
        let again = streams.take(&auth, "s-a", "u", "t").unwrap();
        assert!(!again.state.same_channel(&other.state));
    }
}
