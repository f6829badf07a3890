//! `GET /api/events` on a real `staffroom serve --sandbox`: a connected client sees an order turn
//! paid, a client that reconnects with `Last-Event-ID` misses nothing, an id the service no
//! longer has gets a `reset`, and a stream ends with its session.

mod common;

use std::time::{Duration, Instant};

use common::{checkout_action, client, demo_token, Server};
use serde_json::{json, Value};

/// One Server-Sent Event.
#[derive(Debug, Clone)]
struct SseEvent {
    id: Option<String>,
    event: String,
    data: String,
}

/// A client of the event stream, reading the raw bytes as a browser's EventSource would.
struct EventStream {
    response: reqwest::Response,
    buffer: String,
}

impl EventStream {
    async fn open(server: &Server, token: &str, last_event_id: Option<&str>) -> EventStream {
        let mut request = client().get(server.url("/api/events")).bearer_auth(token);
        if let Some(id) = last_event_id {
            request = request.header("Last-Event-ID", id);
        }
        let response = reqwest::Client::new().execute(request.build().unwrap()).await.unwrap();
        assert_eq!(response.status(), 200);
        assert_eq!(response.headers()["content-type"], "text/event-stream");
        EventStream { response, buffer: String::new() }
    }

    /// The next event within `wait`; None when the stream ended or nothing came.
    async fn next(&mut self, wait: Duration) -> Option<SseEvent> {
        let deadline = tokio::time::Instant::now() + wait;
        loop {
            if let Some(end) = self.buffer.find("\n\n") {
                let block: String = self.buffer.drain(..end + 2).collect();
                let mut event = SseEvent { id: None, event: "message".into(), data: String::new() };
                let mut is_comment_only = true;
                for line in block.lines() {
                    let (field, value) = line.split_once(':').unwrap_or((line, ""));
                    let value = value.strip_prefix(' ').unwrap_or(value);
                    match field {
                        "id" => event.id = Some(value.to_string()),
                        "event" => event.event = value.to_string(),
                        "data" => event.data.push_str(value),
                        _ => continue,
                    }
                    is_comment_only = false;
                }
                if is_comment_only {
                    continue; // a keep-alive
                }
                return Some(event);
            }
            let chunk = tokio::time::timeout_at(deadline, self.response.chunk()).await.ok()?.ok()??;
            self.buffer.push_str(std::str::from_utf8(&chunk).unwrap());
        }
    }

    /// Reads events until one satisfies `wanted`, returning all read; panics after `wait`.
    async fn until(&mut self, wait: Duration, wanted: impl Fn(&SseEvent) -> bool) -> Vec<SseEvent> {
        let deadline = Instant::now() + wait;
        let mut seen = Vec::new();
        while Instant::now() < deadline {
            let Some(event) = self.next(deadline - Instant::now()).await else { break };
            let done = wanted(&event);
            seen.push(event);
            if done {
                return seen;
            }
        }
        panic!("the awaited event did not come; saw {seen:?}");
    }
}

/// Whether `event` says the order `order_id` was paid by an applied webhook.
fn applied_to(event: &SseEvent, order_id: &str) -> bool {
    let data: Value = serde_json::from_str(&event.data).unwrap_or(Value::Null);
    event.event == "webhook" && data["kind"] == "applied" && data["orderId"] == order_id
}

/// Creates an order and pays it on the sandbox checkout page; returns its id.
async fn create_and_pay(server: &Server, token: &str, email: &str) -> String {
    let created: Value = client()
        .post(server.url("/api/payments/orders"))
        .bearer_auth(token)
        .json(&json!({"productId": "3", "email": email}))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let checkout = created["order"]["checkoutUrl"].as_str().unwrap_or_else(|| panic!("{created}"));
    let paid = client().post(checkout_action(checkout, "pay")).send().await.unwrap();
    assert!(paid.status().is_success());
    created["order"]["id"].as_str().unwrap().to_string()
}

#[tokio::test]
async fn a_connected_client_sees_an_order_paid_and_a_reconnect_misses_nothing() {
    let server = Server::sandbox();
    let token = demo_token(&server).await;
    let mut stream = EventStream::open(&server, &token, None).await;

    let first = create_and_pay(&server, &token, "ana@example.com").await;
    let seen = stream.until(Duration::from_secs(10), |e| applied_to(e, &first)).await;
    let ids: Vec<i64> = seen.iter().map(|e| e.id.as_deref().unwrap().parse().unwrap()).collect();
    assert!(ids.windows(2).all(|w| w[0] < w[1]), "ids rise: {ids:?}");
    assert!(seen.iter().any(|e| e.event == "webhook" && e.data.contains("\"received\"")), "{seen:?}");
    let last_id = seen.last().unwrap().id.clone().unwrap();
    drop(stream);

    // While no one listens, a second order is paid; the reconnect brings what was missed.
    let second = create_and_pay(&server, &token, "ben@example.com").await;
    let mut paid = false;
    for _ in 0..200 {
        let order: Value = client()
            .get(server.url(&format!("/api/payments/orders/{second}")))
            .bearer_auth(&token)
            .send()
            .await
            .unwrap()
            .json()
            .await
            .unwrap();
        if order["order"]["status"] == "paid" {
            paid = true;
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert!(paid, "the second order was paid while the client was away");
    let mut stream = EventStream::open(&server, &token, Some(&last_id)).await;
    let missed = stream.until(Duration::from_secs(10), |e| applied_to(e, &second)).await;
    let first_missed: i64 = missed[0].id.as_deref().unwrap().parse().unwrap();
    assert_eq!(first_missed, last_id.parse::<i64>().unwrap() + 1, "resumes right after the last id seen");
    assert!(!missed.iter().any(|e| applied_to(e, &first)), "nothing seen before comes again");
}

#[tokio::test]
async fn an_id_the_service_does_not_have_gets_a_reset_first() {
    let server = Server::sandbox();
    let token = demo_token(&server).await;
    let mut stream = EventStream::open(&server, &token, Some("987654321")).await;
    let reset = stream.next(Duration::from_secs(10)).await.expect("a reset event");
    assert_eq!(reset.event, "reset");
    // The reset names the newest id, so a reconnect after it asks for what follows.
    let latest: i64 = reset.id.unwrap().parse().unwrap();
    assert!(latest < 987654321);
}

#[tokio::test]
async fn the_stream_needs_a_live_session_and_ends_with_it() {
    let server = Server::sandbox();
    let answer = client().get(server.url("/api/events")).send().await.unwrap();
    assert_eq!(answer.status(), 401);
    let body: Value = answer.json().await.unwrap();
    assert_eq!(body["error"]["code"], "unauthorized");

    let token = demo_token(&server).await;
    for bad in ["-1", "abc", "1.5"] {
        let answer = client()
            .get(server.url("/api/events"))
            .bearer_auth(&token)
            .header("Last-Event-ID", bad)
            .send()
            .await
            .unwrap();
        assert_eq!(answer.status(), 400, "Last-Event-ID {bad}");
        let body: Value = answer.json().await.unwrap();
        assert_eq!(body["error"]["details"]["fields"][0]["field"], "Last-Event-ID", "{body}");
    }

    let mut stream = EventStream::open(&server, &token, None).await;
    let signed_out = client().post(server.url("/api/auth/logout")).bearer_auth(&token).send().await.unwrap();
    assert!(signed_out.status().is_success());
    // The stream checks its session every few seconds; after sign-out it ends rather than idles.
    let started = Instant::now();
    while let Some(event) = stream.next(Duration::from_secs(20)).await {
        assert!(started.elapsed() < Duration::from_secs(20), "still streaming {event:?}");
    }
    assert!(started.elapsed() < Duration::from_secs(15), "the stream ended with its session");
}

/// The refusal `GET /api/events` gives past a cap: 429 `rate_limited` with `Retry-After`.
async fn assert_stream_refused(server: &Server, token: &str) {
    let answer = client().get(server.url("/api/events")).bearer_auth(token).send().await.unwrap();
    assert_eq!(answer.status(), 429);
    let retry_after: u64 = answer.headers()["retry-after"].to_str().unwrap().parse().unwrap();
    assert!(retry_after >= 1, "{retry_after}");
    let body: Value = answer.json().await.unwrap();
    assert_eq!(body["error"]["code"], "rate_limited", "{body}");
}

/// One session may hold a few streams, not every place: the next is refused, another session is
/// not, a stream closed gives its place back, and a sign-out ends them all.
#[tokio::test]
async fn one_session_cannot_take_every_place_with_event_streams() {
    use staffroom::http::live_streams::PER_SESSION;
    let server = Server::sandbox();
    let token = demo_token(&server).await;
    let mut streams = Vec::new();
    for _ in 0..PER_SESSION {
        streams.push(EventStream::open(&server, &token, None).await);
    }
    assert_stream_refused(&server, &token).await;
    let other = demo_token(&server).await;
    let _other_stream = EventStream::open(&server, &other, None).await;

    drop(streams.pop());
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        let answer = client().get(server.url("/api/events")).bearer_auth(&token).send().await.unwrap();
        if answer.status() == 200 {
            streams.push(EventStream { response: answer, buffer: String::new() });
            break;
        }
        assert_eq!(answer.status(), 429);
        assert!(Instant::now() < deadline, "a closed stream's place never came back");
        tokio::time::sleep(Duration::from_millis(200)).await;
    }

    let signed_out = client().post(server.url("/api/auth/logout")).bearer_auth(&token).send().await.unwrap();
    assert!(signed_out.status().is_success());
    let started = Instant::now();
    for mut stream in streams {
        while stream.next(Duration::from_secs(20)).await.is_some() {}
    }
    assert!(started.elapsed() < Duration::from_secs(15), "the streams ended with their session");
}

/// 1,000 forged deliveries leave one summary in the live events and the log, not 1,000 events or
/// log lines, and a genuine delivery sent after them reaches a connected client at once.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_flood_of_forged_deliveries_is_one_summary_and_genuine_ones_still_arrive() {
    use futures::StreamExt as _;
    let server = Server::sandbox();
    let token = demo_token(&server).await;
    let mut stream = EventStream::open(&server, &token, None).await;
    let http = client();
    let lines_before = server.stderr().lines().count();
    let statuses: Vec<u16> = futures::stream::iter(0..1_000)
        .map(|i| {
            let request = http
                .post(server.url("/api/payments/webhooks"))
                .header("content-type", "application/json")
                .header("x-signature", "00".repeat(32))
                .body(format!(r#"{{"meta":{{"event_name":"order_created"}},"n":{i}}}"#));
            async move { request.send().await.unwrap().status().as_u16() }
        })
        .buffer_unordered(32)
        .collect()
        .await;
    assert!(statuses.iter().all(|s| *s == 401), "every forged delivery is refused");
    // The log says so in a summary, not in a line per delivery that would push out the rest.
    let said = server.stderr();
    let flood_lines: Vec<&str> = said.lines().skip(lines_before).collect();
    assert!(flood_lines.len() <= 5, "{} log lines for 1,000 forged deliveries: {flood_lines:?}", flood_lines.len());

    let order = create_and_pay(&server, &token, "after-the-flood@example.com").await;
    let started = Instant::now();
    let seen = stream.until(Duration::from_secs(10), |e| applied_to(e, &order)).await;
    assert!(started.elapsed() < Duration::from_secs(5), "the genuine delivery waited {:?}", started.elapsed());
    // Every webhook item with an unverified signature: a refusal, or a summary of refusals.
    let refused = |events: &[SseEvent]| -> Vec<Value> {
        events
            .iter()
            .filter(|e| e.event == "webhook")
            .filter_map(|e| serde_json::from_str::<Value>(&e.data).ok())
            .filter(|data| data["verified"] == false)
            .collect()
    };
    // One summary at most (a refusal before the flood, from anywhere, may have started the
    // minute, and then the flood's summary comes at its end).
    let seen_refused = refused(&seen);
    assert!(seen_refused.len() <= 1, "{seen:?}");
    for summary in &seen_refused {
        assert_eq!(summary["kind"], "refused");
        assert!(summary["outcome"].as_str().unwrap_or_default().contains("refused: bad signature"), "{summary}");
    }

    // What is stored for reconnecting clients: no more than that, and no event per refusal.
    let mut replay = EventStream::open(&server, &token, Some("0")).await;
    let mut stored = Vec::new();
    while let Some(event) = replay.next(Duration::from_secs(2)).await {
        stored.push(event);
    }
    assert!(refused(&stored).len() <= 2, "{stored:?}");
}

/// The answer to `GET /api/events` with `token`, without reading its stream.
async fn ask_for_stream(server_url: &str, token: &str) -> reqwest::Response {
    client().get(format!("{server_url}/api/events")).bearer_auth(token).send().await.unwrap()
}

/// One person signing in again and again cannot gather streams without end: a sign-in past
/// `MAX_SESSIONS` ends their oldest session, and their streams, over all their sessions, stop at
/// `PER_PERSON`; meanwhile another person signs in and streams.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn one_person_cannot_take_every_place_however_many_sessions_they_open() {
    use staffroom::auth::MAX_SESSIONS;
    use staffroom::http::live_streams::{PER_PERSON, PER_SESSION};
    let server = Server::sandbox();
    let mut tokens = Vec::new();
    for _ in 0..20 {
        tokens.push(demo_token(&server).await);
    }
    let mut open = Vec::new();
    let (mut ended, mut refused) = (0, 0);
    for token in &tokens {
        for _ in 0..PER_SESSION {
            let answer = ask_for_stream(&server.base, token).await;
            match answer.status().as_u16() {
                200 => open.push(answer),
                401 => ended += 1,
                429 => {
                    let body: Value = answer.json().await.unwrap();
                    assert!(
                        body["error"]["message"].as_str().unwrap().contains("in this session and others"),
                        "{body}"
                    );
                    refused += 1;
                }
                other => panic!("{other}"),
            }
        }
    }
    assert_eq!(open.len(), PER_PERSON, "the person's streams over all their sessions");
    assert_eq!(ended, (20 - MAX_SESSIONS as usize) * PER_SESSION, "the oldest sessions were ended by the newest");
    assert_eq!(refused, 20 * PER_SESSION - PER_PERSON - ended);

    // Someone else is not kept out.
    let (status, _, err) = common::run_cli(
        &server.data_dir,
        &["users", "add", "--email", "bo@example.com", "--name", "Bo", "--role", "staff", "--password-stdin"],
        common::STAFF_PASSWORD,
    );
    assert!(status.success(), "{err}");
    let bo =
        common::login(&server, "bo@example.com", common::STAFF_PASSWORD).await["token"].as_str().unwrap().to_string();
    assert_eq!(ask_for_stream(&server.base, &bo).await.status(), 200);
}

/// A client that opens a stream and stops reading it would hold the stream's place for good:
/// events pile up for it, and the stream's sending waits. Once nothing has been taken for the
/// write time-out, the stream ends and its place is free again (the session may open its four).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_stream_whose_client_stops_reading_ends_and_gives_its_place_back() {
    use staffroom::http::live_streams::PER_SESSION;
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let app = common::SandboxApp::start().await;
    let addr = app.base.trim_start_matches("http://").to_string();
    let socket = tokio::net::TcpSocket::new_v4().unwrap();
    socket.set_recv_buffer_size(4096).unwrap();
    let mut stuck = socket.connect(addr.parse().unwrap()).await.unwrap();
    let request = format!("GET /api/events HTTP/1.1\r\nHost: {addr}\r\nAuthorization: Bearer {}\r\n\r\n", app.token);
    stuck.write_all(request.as_bytes()).await.unwrap();
    let mut head = [0u8; 512];
    let read = stuck.read(&mut head).await.unwrap();
    assert!(String::from_utf8_lossy(&head[..read]).starts_with("HTTP/1.1 200"), "the stream opened");
    // Its session holds one place of four.
    let others: Vec<_> =
        futures::future::join_all((1..PER_SESSION).map(|_| ask_for_stream(&app.base, &app.token))).await;
    assert!(others.iter().all(|a| a.status() == 200));
    assert_eq!(ask_for_stream(&app.base, &app.token).await.status(), 429, "the session's places are taken");
    drop(others);

    // Far more events than the stuck client's sockets hold (the other streams were closed).
    let hub = app.core.events.clone().unwrap();
    let big = "x".repeat(50_000);
    for _ in 0..400 {
        hub.publish(staffroom::events::EventKind::DocumentSaved, &big);
    }
    let started = Instant::now();
    let mut regained = Vec::new();
    while regained.len() < PER_SESSION {
        let answer = ask_for_stream(&app.base, &app.token).await;
        if answer.status() == 200 {
            regained.push(answer);
            continue;
        }
        assert!(started.elapsed() < Duration::from_secs(45), "the stuck stream kept its place");
        tokio::time::sleep(Duration::from_millis(250)).await;
    }
    drop(stuck);
}
