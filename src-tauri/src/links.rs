//! Every address this app hands to the operating system to open, checked here first: a link a
//! screen shows came from a provider, a document or a team server, and a hostile or hijacked one
//! could send `file://`, `smb://`, a custom scheme that reaches another program, a look-alike
//! host (`https://shop.example@evil.example`), or a page of this computer's or its network's.
//! - Google's consent page must be Google's (or, from a server on this computer, the sandbox
//!   simulator's) and carry this sign-in's own `redirect_uri` and `state`.
//! - A link of a known kind ([`LinkKind`]) must be https on that kind's hosts: receipts,
//!   invoices, checkouts and the customer portal on Lemon Squeezy's, documents on Google's; in the
//!   sandbox, its simulators on this computer instead.
//! - Any other link (one in a document) must be a web page, http or https, and never a page of
//!   this computer's or its private network's when it came from a team server elsewhere.
//! - No link carries a user name or password before its host.

use std::net::IpAddr;

use serde::Serialize;
use staffroom::api::{Access, OpSpec, MAIN_AND_EDITOR};
use staffroom_macros::request;
use staffroom::{Error, ErrorCode, Result};
use tauri::Runtime;

use crate::ops::{Context, DesktopOperation};

/// What a link is, which says which hosts it may have.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, serde::Deserialize, ts_rs::TS, utoipa::ToSchema)]
#[serde(rename_all = "lowercase")]
#[ts(export_to = "desktop/")]
pub enum LinkKind {
    /// An order's receipt (Lemon Squeezy's "My orders").
    Receipt,
    /// A subscription invoice.
    Invoice,
    /// A checkout to pay an order at.
    Checkout,
    /// The customer portal, or a subscription's payment-method page.
    Portal,
    /// A Google document.
    Document,
    /// A link written in a document.
    Web,
}

impl LinkKind {
    /// Every kind's name, as requests give it.
    const NAMES: &'static [&'static str] = &["receipt", "invoice", "checkout", "portal", "document", "web"];

    fn parse(name: &str) -> Option<LinkKind> {
        serde_json::from_value(serde_json::Value::String(name.to_string())).ok()
    }

    fn as_str(self) -> &'static str {
        Self::NAMES[self as usize]
    }

    /// The hosts (and their subdomains) a link of this kind may have outside the sandbox; none
    /// for any public host.
    fn hosts(self) -> &'static [&'static str] {
        match self {
            LinkKind::Receipt | LinkKind::Invoice | LinkKind::Checkout | LinkKind::Portal => &["lemonsqueezy.com"],
            LinkKind::Document => &["docs.google.com", "drive.google.com"],
            LinkKind::Web => &[],
        }
    }
}

/// Where a link came from, which says whether a page of this computer may be opened.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LinkSource {
    /// The app (or the team server it is signed in to) runs the sandbox: its simulators are on
    /// this computer.
    pub sandbox: bool,
    /// The link came from a team server on another computer.
    pub remote_server: bool,
}

/// Checks `url`, a link of `kind` from `source`, before the system browser opens it.
pub fn check_link(url: &str, kind: LinkKind, source: LinkSource) -> Result<()> {
    let refuse = |why: String| Error::invalid_field("url", format!("was not opened: {why}"));
    let link = url::Url::parse(url).map_err(|_| refuse("it is not a web address".into()))?;
    if !matches!(link.scheme(), "http" | "https") {
        return Err(refuse(format!("{}: is not a web page", link.scheme())));
    }
    if !link.username().is_empty() || link.password().is_some() {
        return Err(refuse("it names a user before its host, which hides where it really goes".into()));
    }
    let Some(host) = link.host() else { return Err(refuse("it has no host".into())) };
    let here = is_here_or_private(&host);
    if here && source.remote_server {
        return Err(refuse("a team server elsewhere sent a page of this computer or its network".into()));
    }
    if kind == LinkKind::Web {
        return Ok(());
    }
    // The sandbox's simulators serve receipts, checkouts and documents on this computer.
    if source.sandbox && crate::team::is_loopback(&link) {
        return Ok(());
    }
    let name = link.host_str().unwrap_or_default().to_ascii_lowercase();
    let on_kind_s_host = kind.hosts().iter().any(|h| name == *h || name.ends_with(&format!(".{h}")));
    if !on_kind_s_host {
        return Err(refuse(format!("a {} link must be on {}, not {name}", kind.as_str(), kind.hosts().join(" or "))));
    }
    if link.scheme() != "https" {
        return Err(refuse(format!("a {} link must be https", kind.as_str())));
    }
    Ok(())
}

/// Whether `host` is this computer or an address of a private network (by its address; a name
/// is this computer's only as `localhost`).
fn is_here_or_private(host: &url::Host<&str>) -> bool {
    match host {
        url::Host::Domain(name) => {
            let name = name.to_ascii_lowercase();
            name == "localhost" || name.ends_with(".localhost")
        }
        url::Host::Ipv4(ip) => is_private(IpAddr::V4(*ip)),
        url::Host::Ipv6(ip) => is_private(IpAddr::V6(*ip)),
    }
}

fn is_private(ip: IpAddr) -> bool {
    match ip {
        IpAddr::V4(v4) => {
            let [a, b, ..] = v4.octets();
            v4.is_loopback()
                || v4.is_private()
                || v4.is_link_local()
                || v4.is_unspecified()
                || v4.is_broadcast()
                // Carrier-grade NAT (RFC 6598), also private to a network.
                || (a == 100 && (64..128).contains(&b))
        }
        IpAddr::V6(v6) => match v6.to_ipv4_mapped() {
            Some(v4) => is_private(IpAddr::V4(v4)),
            None => {
                let first = v6.segments()[0];
                v6.is_loopback()
                    || v6.is_unspecified()
                    // Unique local (fc00::/7) and link-local (fe80::/10) addresses.
                    || (first & 0xfe00) == 0xfc00
                    || (first & 0xffc0) == 0xfe80
            }
        },
    }
}

/// A link to open, and what kind of link it is.
#[request]
#[derive(Debug, Serialize, ts_rs::TS, utoipa::ToSchema)]
#[ts(export_to = "desktop/")]
pub struct OpenLinkRequest {
    /// At most 8,192 characters; [`check_link`] says which links open.
    #[field(max_length = 8192)]
    pub url: String,
    #[field(choice)]
    pub kind: LinkKind,
}

/// Opens a link in the system browser, once it has passed [`check_link`]: the windows open no
/// link themselves.
pub struct OpenLink;
impl DesktopOperation for OpenLink {
    const SPEC: OpSpec = OpSpec::new("open_link", "desktop", "Opens a checked link in the system browser")
        .access(Access::Public)
        .windows(MAIN_AND_EDITOR)
        .errors(&[(400, "invalid_request: the link was not opened, and why (details.fields)")]);
    type Request = OpenLinkRequest;
    type Response = ();
    async fn run<R: Runtime>(cx: &Context<'_, R>, request: OpenLinkRequest) -> Result<()> {
        let source = match cx.state.team().await {
            None => LinkSource { sandbox: cx.state.core.config.sandbox, remote_server: false },
            Some(server) if url::Url::parse(server.url()).is_ok_and(|url| crate::team::is_loopback(&url)) => {
                let sandbox = server.health().await.is_ok_and(|health| health.sandbox);
                LinkSource { sandbox, remote_server: false }
            }
            // A server elsewhere: its sandbox's simulators are on its computer, not this one.
            Some(_) => LinkSource { sandbox: false, remote_server: true },
        };
        check_link(&request.url, request.kind, source)?;
        crate::ops::open_in_browser(cx, &request.url)
    }
}

/// The sign-in a consent page must belong to.
pub struct SignIn<'a> {
    /// The address of Google's sign-in page this app is configured with.
    pub google_auth_url: &'a str,
    /// The team server that sent the page.
    pub server: &'a str,
    pub redirect_uri: &'a str,
    pub state: &'a str,
}

/// Checks that `url` is the consent page of `sign_in`: `https` on the host of Google's sign-in
/// page, or, when the server itself is on this computer (a sandbox), its simulator on loopback;
/// with the sign-in's `redirect_uri` and `state`. A server elsewhere cannot have the browser open
/// a page of this computer's.
pub fn check_consent_page(url: &str, sign_in: &SignIn<'_>) -> Result<()> {
    let refuse = |why: &str| {
        Error::new(
            ErrorCode::IntegrationError,
            format!("The team server sent a Google sign-in address that was not opened: {why}"),
        )
    };
    let page = url::Url::parse(url).map_err(|_| refuse("it is not a web address"))?;
    let google = url::Url::parse(sign_in.google_auth_url).map_err(|_| refuse("Google's sign-in address is not set"))?;
    let on_google = page.scheme() == "https" && page.host_str().is_some() && page.host_str() == google.host_str();
    let server_is_here = url::Url::parse(sign_in.server).is_ok_and(|server| crate::team::is_loopback(&server));
    let on_this_computer =
        server_is_here && matches!(page.scheme(), "http" | "https") && crate::team::is_loopback(&page);
    if !on_google && !on_this_computer {
        return Err(refuse(&format!("it is not on {}", google.host_str().unwrap_or("Google's sign-in host"))));
    }
    let query = |name: &str| page.query_pairs().find(|(key, _)| key == name).map(|(_, value)| value.into_owned());
    if query("redirect_uri").as_deref() != Some(sign_in.redirect_uri) {
        return Err(refuse("it would not bring the browser back to this computer"));
    }
    if query("state").as_deref() != Some(sign_in.state) {
        return Err(refuse("it is not this sign-in's"));
    }
    Ok(())
}

/// Checks that `url` is a web page (http or https) before the system browser opens it.
pub fn check_web_link(url: &str) -> Result<()> {
    match url::Url::parse(url) {
        Ok(link) if matches!(link.scheme(), "http" | "https") && link.host_str().is_some() => Ok(()),
        _ => Err(Error::invalid_field("url", "must be a web address (http or https)")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const HERE: LinkSource = LinkSource { sandbox: false, remote_server: false };
    const SANDBOX: LinkSource = LinkSource { sandbox: true, remote_server: false };
    const REMOTE: LinkSource = LinkSource { sandbox: false, remote_server: true };

    #[test]
    fn each_kind_of_link_opens_only_on_its_hosts() {
        use LinkKind::*;
        for (url, kind) in [
            ("https://app.lemonsqueezy.com/my-orders/1f2e?signature=ab", Receipt),
            ("https://app.lemonsqueezy.com/my-orders/1f2e/subscription-invoice/9?signature=ab", Invoice),
            ("https://my-shop.lemonsqueezy.com/checkout/custom/5b1c?signature=cd", Checkout),
            ("https://my-shop.lemonsqueezy.com/billing?expires=1", Portal),
            ("https://docs.google.com/document/d/1abc/edit", Document),
            ("https://example.org/a-page", Web),
            ("http://example.org/an-old-page", Web),
        ] {
            assert!(check_link(url, kind, HERE).is_ok(), "{url}");
            assert!(check_link(url, kind, REMOTE).is_ok(), "{url} from a team server");
        }
        for (url, kind, says) in [
            ("https://app.lemonsqueezy.com.evil.example/my-orders/1", Receipt, "must be on lemonsqueezy.com"),
            ("https://evil.example/checkout", Checkout, "must be on lemonsqueezy.com"),
            ("http://app.lemonsqueezy.com/my-orders/1", Receipt, "must be https"),
            ("https://docs.google.com.evil.example/d/1", Document, "must be on docs.google.com"),
            ("https://evillemonsqueezy.com/x", Portal, "must be on lemonsqueezy.com"),
            ("https://shop.example@evil.example/", Web, "names a user"),
            ("https://app.lemonsqueezy.com:secret@evil.example/", Receipt, "names a user"),
            ("file:///etc/passwd", Web, "not a web page"),
            ("javascript:alert(1)", Web, "not a web page"),
            ("smb://share/x", Web, "not a web page"),
            ("x-app://open", Web, "not a web page"),
            ("not a url", Web, "not a web address"),
        ] {
            let refused = check_link(url, kind, HERE).expect_err(url);
            let said = refused.details.unwrap()["fields"][0]["message"].as_str().unwrap().to_string();
            assert!(said.contains(says), "{url}: {said}");
        }
    }

    #[test]
    fn pages_of_this_computer_and_its_network_open_only_in_its_own_sandbox_or_from_itself() {
        for url in [
            "http://127.0.0.1:5555/checkout/1",
            "http://localhost:5555/receipt",
            "http://[::1]:5555/x",
            "http://192.168.1.1/admin",
            "http://10.0.0.5/",
            "http://172.16.3.4/",
            "http://169.254.169.254/latest/meta-data",
            "http://100.64.0.1/",
            "http://[fd00::1]/",
            "http://[fe80::1]/",
            "http://[::ffff:127.0.0.1]/",
            "http://0.0.0.0:8787/",
        ] {
            let refused = check_link(url, LinkKind::Web, REMOTE).expect_err(url);
            assert!(
                refused.details.unwrap()["fields"][0]["message"].as_str().unwrap().contains("team server"),
                "{url}"
            );
            // A document's link to an intranet page, from this computer's own core, opens.
            assert!(check_link(url, LinkKind::Web, HERE).is_ok(), "{url}");
        }
        // The sandbox's simulators: receipts and checkouts on this computer, plain http.
        assert!(check_link("http://127.0.0.1:5555/checkout/1", LinkKind::Checkout, SANDBOX).is_ok());
        assert!(check_link("http://127.0.0.1:5555/my-orders/1", LinkKind::Receipt, SANDBOX).is_ok());
        // Not outside it, and never a private network's page as a provider's.
        assert!(check_link("http://127.0.0.1:5555/checkout/1", LinkKind::Checkout, HERE).is_err());
        assert!(check_link("http://192.168.1.1/checkout/1", LinkKind::Checkout, SANDBOX).is_err());
    }

    const GOOGLE: &str = "https://accounts.google.com/o/oauth2/v2/auth";
    const BACK: &str = "http://127.0.0.1:41234/";

    fn page(base: &str, redirect: &str, state: &str) -> String {
        let mut url = url::Url::parse(base).unwrap();
        url.query_pairs_mut()
            .append_pair("client_id", "c")
            .append_pair("redirect_uri", redirect)
            .append_pair("state", state);
        url.to_string()
    }

    fn sign_in(server: &'static str) -> SignIn<'static> {
        SignIn { google_auth_url: GOOGLE, server, redirect_uri: BACK, state: "s1" }
    }

    #[test]
    fn only_this_sign_in_s_page_on_google_or_the_local_simulator_is_opened() {
        let remote = sign_in("https://staff.example.com");
        assert!(check_consent_page(&page(GOOGLE, BACK, "s1"), &remote).is_ok());
        // The sandbox's simulator, from a sandbox server on this computer; never from elsewhere.
        let simulator = page("http://127.0.0.1:5555/o/oauth2/v2/auth", BACK, "s1");
        assert!(check_consent_page(&simulator, &sign_in("http://127.0.0.1:8787")).is_ok());
        assert!(check_consent_page(&simulator, &remote).is_err(), "a remote server opened a local page");
        for (bad, why) in [
            (page("http://accounts.google.com/o/oauth2/v2/auth", BACK, "s1"), "plain http"),
            (page("https://accounts.google.com.evil.example/auth", BACK, "s1"), "another host"),
            (page("https://evil.example/o/oauth2/v2/auth", BACK, "s1"), "another host"),
            (page(GOOGLE, "http://127.0.0.1:9/", "s1"), "another redirect"),
            (page(GOOGLE, BACK, "s2"), "another state"),
            (GOOGLE.to_string(), "no query"),
            ("file:///etc/passwd".to_string(), "a file"),
            ("smb://share.example/x".to_string(), "a share"),
            ("staffroom-other-app://open".to_string(), "a custom scheme"),
            ("not a url".to_string(), "garbage"),
        ] {
            let error = check_consent_page(&bad, &remote).expect_err(why);
            assert!(error.message.starts_with("The team server sent a Google sign-in address"), "{why}: {error:?}");
        }
    }

    #[test]
    fn links_are_web_pages() {
        for good in ["https://store.example/checkout/1", "http://127.0.0.1:5555/receipt"] {
            assert!(check_web_link(good).is_ok(), "{good}");
        }
        for bad in ["file:///etc/passwd", "smb://share/x", "javascript:alert(1)", "mailto:a@b.c", "x-app://y", ""] {
            assert!(check_web_link(bad).is_err(), "{bad}");
        }
    }
}
