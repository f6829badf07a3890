//! The second backend: a team server's HTTP interface (SPEC section 10). Every operation goes
//! over the route its declaration names, encoded as the server's HTTP door reads it, from Rust:
//! the token is sent from here and never reaches the web view. Answers and refusals come back as
//! the same values the core in this process gives, so the screens cannot tell the two apart;
//! a server out of reach is its own error, `unavailable` with `details.teamServer`.

use std::time::Duration;

use futures_util::StreamExt;
use serde_json::{json, Value};
use staffroom::api::{Answer, BoxFuture, Input, OpEntry};
use staffroom::error::FieldError;
use staffroom::{Error, ErrorCode, Result};

use crate::backend::Backend;

/// How long connecting to the server may take.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(10);
/// How long a whole call may take (the server's own provider calls time out sooner).
const CALL_TIMEOUT: Duration = Duration::from_secs(60);

/// A team server, by its base URL.
pub struct TeamServer {
    base: String,
    http: reqwest::Client,
    /// For the event stream, which stays open for hours: no time limit on the whole call.
    stream_http: reqwest::Client,
}

/// What `GET /api/health` says of a server.
#[derive(Debug, Clone, serde::Deserialize)]
pub struct ServerHealth {
    pub version: String,
    pub sandbox: bool,
}

impl TeamServer {
    /// The server at `url`: HTTPS, or plain http on this computer's loopback only. TLS trusts
    /// the system's certificate store (and the web's common roots).
    pub fn new(url: &str) -> Result<TeamServer> {
        let base = server_url(url)?;
        let client = |whole_call: Option<Duration>| {
            let mut builder = reqwest::Client::builder()
                // A redirect would re-send a password or a bearer token wherever the server (or
                // whoever answers for it) points, even to plain http: none is followed.
                .redirect(reqwest::redirect::Policy::none())
                .connect_timeout(CONNECT_TIMEOUT)
                .tls_built_in_native_certs(true)
                .user_agent(concat!("Staffroom-desktop/", env!("CARGO_PKG_VERSION")));
            if let Some(limit) = whole_call {
                builder = builder.timeout(limit);
            }
            builder.build().map_err(|e| Error::internal("the team server's HTTP client", e))
        };
        Ok(TeamServer { base, http: client(Some(CALL_TIMEOUT))?, stream_http: client(None)? })
    }

    /// The server's base URL, as the user will see it.
    pub fn url(&self) -> &str {
        &self.base
    }

    /// Whether the server answers as a Staffroom service, and whether it runs the sandbox.
    pub async fn health(&self) -> Result<ServerHealth> {
        let response =
            self.http.get(format!("{}/api/health", self.base)).send().await.map_err(|e| self.unreachable(&e))?;
        self.refuse_redirect(&response)?;
        let status = response.status().as_u16();
        match response.json::<ServerHealth>().await {
            Ok(health) if status == 200 => Ok(health),
            _ => Err(self.not_staffroom(status)),
        }
    }

    /// The request of the server's live events (`GET /api/events`) after `last_id`: a stream,
    /// so only connecting is timed.
    pub fn events(&self, token: &str, last_id: Option<i64>) -> reqwest::RequestBuilder {
        let mut request = self.stream_http.get(format!("{}/api/events", self.base)).bearer_auth(token);
        if let Some(id) = last_id {
            request = request.header("Last-Event-ID", id.to_string());
        }
        request
    }

    /// A file the server answers with (a list's export, a document's): its answer once the
    /// server has accepted, for its body to be read as it arrives (no time limit on the whole:
    /// a large export takes a while); a refusal is the core's error, as for any operation.
    pub async fn file(&self, path: &str, query: Input, token: Option<&str>) -> Result<reqwest::Response> {
        let query: Vec<(String, String)> = query
            .into_iter()
            .filter(|(_, value)| !value.is_null())
            .map(|(name, value)| (name, value.as_str().map(str::to_owned).unwrap_or_else(|| value.to_string())))
            .collect();
        let mut request = self.stream_http.get(format!("{}{path}", self.base)).query(&query);
        if let Some(token) = token {
            request = request.bearer_auth(token);
        }
        let response = request.send().await.map_err(|e| self.unreachable(&e))?;
        self.refuse_redirect(&response)?;
        let status = response.status().as_u16();
        if status == 200 {
            return Ok(response);
        }
        let bytes = self.read_body(response).await?;
        let body: Option<Value> = serde_json::from_slice(&bytes).ok();
        Err(body.and_then(|body| refusal(status, &body, None)).unwrap_or_else(|| self.not_staffroom(status)))
    }

    /// A list's export from the server: how many rows it holds and its body as it arrives.
    pub async fn export(
        &self,
        export: &staffroom::payments::exports::ExportEntry,
        token: Option<&str>,
        filters: Input,
    ) -> Result<(u64, impl futures_util::Stream<Item = Result<bytes::Bytes>> + Send + 'static)> {
        let response = self.file(&export.path(), filters, token).await?;
        let total = response
            .headers()
            .get(staffroom::http::exports::TOTAL_ROWS)
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.parse().ok())
            .unwrap_or(0);
        let base = self.base.clone();
        let body = response.bytes_stream().map(move |chunk| {
            chunk.map_err(|e| {
                tracing::warn!(server = %base, error = %e, "a team server's file broke off");
                Error::new(ErrorCode::Unavailable, format!("The team server {base} stopped sending the file"))
                    .with_details(json!({ "teamServer": base }))
            })
        });
        Ok((total, body))
    }

    /// An answer's whole body, up to [`crate::limits::MAX_ANSWER_BYTES`].
    async fn read_body(&self, response: reqwest::Response) -> Result<Vec<u8>> {
        crate::limits::read_answer(response).await.map_err(|e| match e {
            crate::limits::ReadError::Http(e) => self.unreachable(&e),
            crate::limits::ReadError::TooLarge => self.too_large(),
        })
    }

    pub(crate) fn unreachable(&self, why: &reqwest::Error) -> Error {
        tracing::warn!(server = %self.base, error = %why, "the team server cannot be reached");
        let mut error = Error::new(ErrorCode::Unavailable, format!("The team server {} cannot be reached", self.base))
            .with_details(json!({ "teamServer": self.base }));
        error.timed_out = why.is_timeout();
        error
    }

    async fn send(&self, operation: &'static OpEntry, token: Option<&str>, input: Input) -> Result<Answer> {
        let route = operation
            .spec
            .route
            .ok_or_else(|| Error::not_found(format!("{} is not offered by a team server", operation.spec.name)))?;
        let encoded = route.encode(&input);
        let method = match route.method {
            staffroom::api::Method::Get => reqwest::Method::GET,
            staffroom::api::Method::Post => reqwest::Method::POST,
            staffroom::api::Method::Put => reqwest::Method::PUT,
            staffroom::api::Method::Patch => reqwest::Method::PATCH,
            staffroom::api::Method::Delete => reqwest::Method::DELETE,
        };
        let mut request = self.http.request(method, format!("{}{}", self.base, encoded.path)).query(&encoded.query);
        if let Some(token) = token {
            request = request.bearer_auth(token);
        }
        if let Some(body) = &encoded.body {
            request = request.json(body);
        }
        let response = request.send().await.map_err(|e| self.unreachable(&e))?;
        self.refuse_redirect(&response)?;
        let status = response.status().as_u16();
        let retry_after = response
            .headers()
            .get(reqwest::header::RETRY_AFTER)
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.trim().parse::<u64>().ok());
        let bytes = self.read_body(response).await?;
        let body: Option<Value> = serde_json::from_slice(&bytes).ok();
        if (200..300).contains(&status) {
            return match body {
                Some(body) => Ok(Answer { status: Some(status), body }),
                None if bytes.is_empty() => Ok(Answer { status: Some(status), body: Value::Null }),
                None => Err(self.not_staffroom(status)),
            };
        }
        let Some(body) = body else { return Err(self.not_staffroom(status)) };
        Err(refusal(status, &body, retry_after).unwrap_or_else(|| self.not_staffroom(status)))
    }

    /// A redirect is never followed (see [`TeamServer::new`]): it is an error naming the server
    /// and where it pointed, so the user can give the server's own address.
    pub(crate) fn refuse_redirect(&self, response: &reqwest::Response) -> Result<()> {
        if !response.status().is_redirection() {
            return Ok(());
        }
        let status = response.status().as_u16();
        let location = response.headers().get(reqwest::header::LOCATION).and_then(|v| v.to_str().ok()).unwrap_or("");
        tracing::warn!(server = %self.base, status, location, "the team server answered with a redirect; not followed");
        Err(Error::new(
            ErrorCode::Unavailable,
            format!(
                "The team server {} answered with a redirect (to {}), which Staffroom does not follow: \
                 give the server's own address",
                self.base,
                if location.is_empty() { "nowhere" } else { location }
            ),
        )
        .with_details(json!({ "teamServer": self.base, "status": status, "location": location })))
    }

    /// An answer past [`crate::limits::MAX_ANSWER_BYTES`]: not read, whatever it holds.
    pub(crate) fn too_large(&self) -> Error {
        tracing::warn!(server = %self.base, "the team server sent an answer too large to read");
        Error::new(
            ErrorCode::IntegrationError,
            format!(
                "The team server {} sent an answer of more than {} MB, which Staffroom does not read",
                self.base,
                crate::limits::MAX_ANSWER_BYTES / (1024 * 1024)
            ),
        )
        .with_details(json!({ "teamServer": self.base }))
    }

    /// An answer that is not Staffroom's (a proxy's error page, another service): the server,
    /// as far as this app can tell, is not there.
    pub(crate) fn not_staffroom(&self, status: u16) -> Error {
        tracing::warn!(server = %self.base, status, "the team server answered with something that is not Staffroom's");
        Error::new(
            ErrorCode::Unavailable,
            format!("The team server {} cannot be reached (it answered {status})", self.base),
        )
        .with_details(json!({ "teamServer": self.base, "status": status }))
    }
}

impl Backend for TeamServer {
    fn call<'a>(
        &'a self,
        operation: &'static OpEntry,
        token: Option<&'a str>,
        input: Input,
    ) -> BoxFuture<'a, Result<Answer>> {
        Box::pin(self.send(operation, token, input))
    }
}

/// The error a refusal's body holds, as the core gave it: the error object
/// `{"error":{code,message,details?}}`, or the sign-in endpoint's own bodies (SPEC section 2).
fn refusal(status: u16, body: &Value, retry_after: Option<u64>) -> Option<Error> {
    let mut error = match &body["error"] {
        Value::Object(object) => {
            let code: ErrorCode = serde_json::from_value(object.get("code")?.clone()).ok()?;
            let message = object.get("message")?.as_str()?;
            let mut error = Error::new(code, message);
            error.details = object.get("details").cloned();
            error.timed_out = code == ErrorCode::IntegrationError && status == 504;
            error
        }
        Value::String(kind) => {
            let message = body["message"].as_str()?;
            match kind.as_str() {
                "INVALID_CREDENTIALS" | "INVALID_TOKEN" => Error::unauthorized(message),
                "RATE_LIMITED" => Error::new(ErrorCode::RateLimited, message),
                "INTERNAL" => Error::new(ErrorCode::Internal, message),
                _ => return None,
            }
        }
        _ => {
            let fields: Vec<FieldError> = serde_json::from_value(body.get("errors")?.clone()).ok()?;
            Error::invalid(fields)
        }
    };
    if error.code == ErrorCode::RateLimited {
        error.retry_after = retry_after;
    }
    Some(error)
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

/// Whether `typed` is a team server's address [`server_url`] takes.
pub fn is_server_url(typed: &str) -> bool {
    server_url(typed).is_ok()
}

/// A team server's base URL from what the user typed: HTTPS, or plain http on loopback only; no
/// credentials, query or fragment; no trailing slash.
pub fn server_url(typed: &str) -> Result<String> {
    let bad = |message: &str| Error::invalid_field("server", message);
    let url = url::Url::parse(typed.trim())
        .map_err(|_| bad("must be a web address such as https://staffroom.example.com"))?;
    if url.host().is_none() {
        return Err(bad("must name a server"));
    }
    let loopback = is_loopback(&url);
    match url.scheme() {
        "https" => {}
        "http" if loopback => {}
        "http" => return Err(bad("must use HTTPS (plain http only for a server on this computer)")),
        _ => return Err(bad("must be an https:// address")),
    }
    if !url.username().is_empty() || url.password().is_some() {
        return Err(bad("must not hold a user name or password"));
    }
    if url.query().is_some() || url.fragment().is_some() {
        return Err(bad("must not have a query or a fragment"));
    }
    Ok(url.as_str().trim_end_matches('/').to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_server_is_https_or_loopback() {
        assert_eq!(server_url(" https://staff.example.com/ ").unwrap(), "https://staff.example.com");
        assert_eq!(server_url("https://example.com/staffroom/").unwrap(), "https://example.com/staffroom");
        assert_eq!(server_url("http://127.0.0.1:8787").unwrap(), "http://127.0.0.1:8787");
        assert_eq!(server_url("http://[::1]:8787").unwrap(), "http://[::1]:8787");
        assert_eq!(server_url("http://localhost:8787").unwrap(), "http://localhost:8787");
        for bad in [
            "http://staff.example.com",
            "http://10.0.0.5:8787",
            "ftp://staff.example.com",
            "staff.example.com",
            "",
            "https://user:pw@staff.example.com",
            "https://staff.example.com/?a=1",
            "https://staff.example.com/#x",
        ] {
            let error = server_url(bad).expect_err(bad);
            assert_eq!(error.code, ErrorCode::InvalidRequest, "{bad}");
            assert_eq!(error.details.unwrap()["fields"][0]["field"], "server", "{bad}");
        }
    }

    #[test]
    fn refusals_read_back_as_the_core_gave_them() {
        let object =
            json!({"error": {"code": "conflict", "message": "Changed", "details": {"currentRevisionId": "r2"}}});
        let error = refusal(409, &object, None).unwrap();
        assert_eq!((error.code, error.message.as_str()), (ErrorCode::Conflict, "Changed"));
        assert_eq!(error.details.unwrap()["currentRevisionId"], "r2");

        let timed_out =
            refusal(504, &json!({"error": {"code": "integration_error", "message": "Slow"}}), None).unwrap();
        assert!(timed_out.timed_out);

        let wrong =
            refusal(401, &json!({"error": "INVALID_CREDENTIALS", "message": "The email or password is wrong"}), None);
        assert_eq!(wrong.unwrap(), Error::unauthorized("The email or password is wrong"));
        let throttled = refusal(429, &json!({"error": "RATE_LIMITED", "message": "Wait"}), Some(30)).unwrap();
        assert_eq!((throttled.code, throttled.retry_after), (ErrorCode::RateLimited, Some(30)));
        let fields = refusal(422, &json!({"errors": [{"field": "email", "message": "is required"}]}), None).unwrap();
        assert_eq!(fields, Error::invalid(vec![FieldError::new("email", "is required")]));

        assert!(refusal(502, &json!({"message": "Bad gateway"}), None).is_none(), "not Staffroom's");
        assert!(refusal(400, &json!({"error": {"code": "no_such_code", "message": "x"}}), None).is_none());
    }
}
