//! Addresses that come from a team server and that this app hands to the operating system to
//! open. A hostile or hijacked server could send `file://`, `smb://` or a custom scheme that
//! reaches another program, so each is checked here before it is opened: Google's consent page
//! must be Google's (or, from a server on this computer, the sandbox simulator's) and carry this
//! sign-in's own `redirect_uri` and `state`; every other link must be a web page (http or https).

use staffroom::{Error, ErrorCode, Result};

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
    let server_is_here = url::Url::parse(sign_in.server).is_ok_and(|server| is_loopback(&server));
    let on_this_computer = server_is_here && matches!(page.scheme(), "http" | "https") && is_loopback(&page);
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

/// Whether `url` names this computer: `localhost` or a loopback address.
pub(crate) fn is_loopback(url: &url::Url) -> bool {
    match url.host() {
        Some(url::Host::Domain(name)) => name.eq_ignore_ascii_case("localhost"),
        Some(url::Host::Ipv4(ip)) => ip.is_loopback(),
        Some(url::Host::Ipv6(ip)) => ip.is_loopback(),
        None => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
