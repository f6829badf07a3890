//! Desktop notifications, the operating system's own (Tauri's notification plugin): the main
//! window decides what is worth telling (its Settings say which kinds the person wants) and asks
//! for one with `show_notification`; a click on one brings the main window to the front and
//! tells it which screen to open (`open-item`, the notification's `route`).

use serde::Serialize;
use staffroom::api::{OpSpec, MAIN};
use staffroom_macros::request;
use staffroom::{Error, Result};
use tauri::{AppHandle, Emitter, Manager, Runtime};
use tauri_plugin_notification::NotificationExt;

use crate::ops::{Context, DesktopOperation};

/// The screens a notification may open: an order, a subscription or a customer, or a list (as
/// `NotificationRequest.route`'s pattern says, checked again when a click brings one back).
fn is_route(route: &str) -> bool {
    let mut parts = route.strip_prefix('/').unwrap_or("-").splitn(2, '/');
    let area = parts.next().unwrap_or_default();
    let id_ok = parts
        .next()
        .is_none_or(|id| !id.is_empty() && id.len() <= 64 && id.chars().all(|c| c.is_ascii_alphanumeric() || c == '-'));
    matches!(area, "orders" | "subscriptions" | "customers" | "webhooks") && id_ok
}

/// One notification: what it says and the screen a click opens.
#[request]
#[derive(Debug, Serialize, ts_rs::TS, utoipa::ToSchema)]
#[ts(export_to = "desktop/")]
pub struct NotificationRequest {
    /// At most 120 characters.
    #[field(
        // Not blank, no control characters (white space as Unicode and `trim` count it).
        pattern = "^[^\\x00-\\x1f\\x7f-\\x9f]*[^\\t-\\r \\x85\\xa0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000\\x00-\\x1f\\x7f-\\x9f][^\\x00-\\x1f\\x7f-\\x9f]*$",
        min_length = 1,
        max_length = 120,
        message = "must be 1 to 120 characters, without control characters"
    )]
    pub title: String,
    /// At most 400 characters.
    #[field(max_length = 400)]
    pub body: String,
    /// `/orders/{id}`, `/subscriptions/{id}`, `/customers/{id}`, or a list (`/orders`).
    #[field(
        pattern = "^/(orders|subscriptions|customers|webhooks)(/[A-Za-z0-9-]{1,64})?$",
        message = "must be an order, subscription or customer screen, e.g. /orders/{id}"
    )]
    pub route: String,
}

/// Shows a notification; a click on it opens its `route` in the main window.
pub struct ShowNotification;
impl DesktopOperation for ShowNotification {
    const SPEC: OpSpec =
        OpSpec::new("show_notification", "desktop", "Shows a desktop notification that opens a screen when clicked")
            .windows(MAIN);
    type Request = NotificationRequest;
    type Response = ();
    async fn run<R: Runtime>(cx: &Context<'_, R>, request: NotificationRequest) -> Result<()> {
        cx.app
            .notification()
            .builder()
            .title(plain(&request.title))
            .body(plain(&request.body))
            .extra("route", request.route)
            .show()
            .map_err(|e| Error::internal("showing a notification", e))
    }
}

/// Text shown as written: Linux notification servers read a body as markup (`<b>`, `<a href>`),
/// and a buyer's name is theirs to choose.
fn plain(text: &str) -> String {
    if cfg!(all(unix, not(target_os = "macos"))) {
        text.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;")
    } else {
        text.to_string()
    }
}

/// Has a click on any notification open its screen. Registered when the app starts: the plugin
/// offers the click only on notifications shown after a handler exists.
pub fn open_on_click<R: Runtime>(app: &AppHandle<R>) -> Result<()> {
    let handle = app.clone();
    app.notification()
        .on_action(move |action| {
            // "tap" is a click on the notification itself (it has no buttons).
            if action.action_id() != "tap" {
                return;
            }
            let route = action.notification().and_then(|n| n.extra().get("route")).and_then(|r| r.as_str());
            let Some(route) = route.filter(|r| is_route(r)) else { return };
            if let Some(window) = handle.get_webview_window("main") {
                let _ = window.unminimize();
                let _ = window.show();
                let _ = window.set_focus();
            }
            let _ = handle.emit_to("main", "open-item", route);
        })
        .map_err(|e| Error::internal("notification clicks", e))
}

#[cfg(test)]
mod tests {
    use super::{is_route, plain};

    #[test]
    fn only_the_apps_own_screens_are_opened() {
        for good in ["/orders/3f1c-22", "/subscriptions/12", "/customers/1001", "/orders", "/webhooks"] {
            assert!(is_route(good), "{good}");
        }
        for bad in ["", "/", "orders/1", "/settings", "/orders/", "/orders/a b", "https://evil.example", "/orders/1/2"]
        {
            assert!(!is_route(bad), "{bad}");
        }
    }

    #[test]
    fn a_buyers_name_is_shown_as_written_not_as_markup() {
        let shown = plain("Zoë <b>O'Brien</b> & <a href=\"https://evil.example\">co</a>");
        if cfg!(target_os = "linux") {
            assert_eq!(
                shown,
                "Zoë &lt;b&gt;O'Brien&lt;/b&gt; &amp; &lt;a href=\"https://evil.example\"&gt;co&lt;/a&gt;"
            );
        }
    }
}
