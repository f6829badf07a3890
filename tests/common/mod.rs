//! Shared helpers of the integration tests: start the real `staffroom` binary on loopback with a
//! throw-away data dir, run CLI commands against the same data dir, and sign in.
//!
//! With `STAFFROOM_TEST_DATABASE=postgres` the same tests run against a team server: every data
//! dir a test makes is paired with a fresh database in this test binary's throwaway PostgreSQL
//! cluster, and every command and in-process core on that dir uses it (SPEC section 10).
#![allow(dead_code)]

use std::collections::HashMap;
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::{Mutex, OnceLock};
use std::time::{Duration, Instant};

use serde_json::{json, Value};

/// The sandbox's demo account.
pub const DEMO_EMAIL: &str = staffroom::sandbox::DEMO_EMAIL;
/// The sandbox's demo password.
pub const DEMO_PASSWORD: &str = staffroom::sandbox::DEMO_PASSWORD;

/// The URL of the sandbox checkout page's Pay or Decline button for a checkout URL (which, like
/// Lemon Squeezy's, carries a signature in its query).
pub fn checkout_action(checkout_url: &str, action: &str) -> String {
    let page = checkout_url.split('?').next().unwrap_or(checkout_url);
    format!("{page}/{action}")
}

/// The `staffroom` binary built for these tests.
pub fn binary() -> &'static str {
    env!("CARGO_BIN_EXE_staffroom")
}

/// Whether this run puts every test's store on PostgreSQL (`STAFFROOM_TEST_DATABASE=postgres`).
pub fn on_postgres() -> bool {
    std::env::var("STAFFROOM_TEST_DATABASE").is_ok_and(|v| v == "postgres")
}

/// The database paired with `data_dir` when this run is on PostgreSQL: made on first use, the
/// same for every later command and core on that dir.
pub fn database_for(data_dir: &Path) -> Option<String> {
    if !on_postgres() {
        return None;
    }
    static DATABASES: OnceLock<Mutex<HashMap<PathBuf, String>>> = OnceLock::new();
    let mut databases = DATABASES.get_or_init(Default::default).lock().unwrap();
    Some(databases.entry(data_dir.to_path_buf()).or_insert_with(|| pg::cluster().database()).clone())
}

/// The team keys every replica and command of this test process shares on PostgreSQL: a real
/// team's replicas refuse to start without them (SPEC section 10).
pub fn team_keys() -> &'static [(&'static str, String); 2] {
    static KEYS: OnceLock<[(&'static str, String); 2]> = OnceLock::new();
    KEYS.get_or_init(|| {
        let key = || staffroom::auth::token::generate_key().expose().to_string();
        [("STAFFROOM_JWT_KEY", key()), ("STAFFROOM_DATA_KEY", key())]
    })
}

/// A `staffroom` command on `data_dir`, with secrets in memory unless the caller says otherwise;
/// on a PostgreSQL run, on the database paired with `data_dir` and with the team's keys.
pub fn command(data_dir: &Path) -> Command {
    let mut cmd = Command::new(binary());
    cmd.arg("--data-dir").arg(data_dir);
    cmd.env("STAFFROOM_SECRET_STORE", "memory");
    cmd.env_remove("STAFFROOM_DATA_DIR");
    if let Some(url) = database_for(data_dir) {
        cmd.env("STAFFROOM_DATABASE_URL", url);
        cmd.envs(team_keys().iter().map(|(k, v)| (k, v)));
    }
    cmd
}

/// Runs a CLI command with `stdin` as its input; returns (exit status, stdout, stderr).
pub fn run_cli(data_dir: &Path, args: &[&str], stdin: &str) -> (ExitStatus, String, String) {
    let mut child = command(data_dir)
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the staffroom binary starts");
    child.stdin.take().unwrap().write_all(stdin.as_bytes()).unwrap();
    let out = child.wait_with_output().unwrap();
    (out.status, String::from_utf8_lossy(&out.stdout).into(), String::from_utf8_lossy(&out.stderr).into())
}

/// Adds an account through the CLI, panicking if that fails.
pub fn add_user(data_dir: &Path, email: &str, name: &str, role: &str, password: &str) {
    let (status, out, err) = run_cli(
        data_dir,
        &["users", "add", "--email", email, "--name", name, "--role", role, "--password-stdin"],
        password,
    );
    assert!(status.success(), "users add failed: {out}{err}");
}

/// A running `staffroom serve`, killed when dropped.
pub struct Server {
    child: Option<Child>,
    pub base: String,
    pub data_dir: PathBuf,
    pub stderr_path: PathBuf,
    _temp: Option<tempfile::TempDir>,
}

/// How to start a server.
pub struct ServerOptions {
    pub sandbox: bool,
    pub data_dir: Option<PathBuf>,
    pub env: Vec<(String, String)>,
    pub args: Vec<String>,
}

impl Default for ServerOptions {
    fn default() -> Self {
        ServerOptions { sandbox: true, data_dir: None, env: Vec::new(), args: Vec::new() }
    }
}

impl Server {
    /// `staffroom serve --sandbox` on a fresh data dir.
    pub fn sandbox() -> Server {
        Server::start(ServerOptions::default())
    }

    /// Starts the server and waits for `listening on http://ADDR`.
    pub fn start(options: ServerOptions) -> Server {
        let (temp, data_dir) = match options.data_dir {
            Some(dir) => (None, dir),
            None => {
                let temp = tempfile::tempdir().unwrap();
                let dir = temp.path().to_path_buf();
                (Some(temp), dir)
            }
        };
        let stderr_path = data_dir.with_extension("stderr.log");
        let stderr = std::fs::File::create(&stderr_path).unwrap();
        let mut cmd = command(&data_dir);
        cmd.arg("serve").arg("--addr").arg("127.0.0.1:0");
        if options.sandbox {
            cmd.arg("--sandbox");
        }
        cmd.args(&options.args);
        for (key, value) in &options.env {
            cmd.env(key, value);
        }
        let mut child = cmd.stdout(Stdio::piped()).stderr(stderr).stdin(Stdio::null()).spawn().unwrap();
        let stdout = child.stdout.take().unwrap();
        let (tx, rx) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines().map_while(Result::ok) {
                if let Some(addr) = line.strip_prefix("listening on ") {
                    let _ = tx.send(addr.to_string());
                }
            }
        });
        let base = match rx.recv_timeout(Duration::from_secs(60)) {
            Ok(base) => base,
            Err(_) => {
                let _ = child.kill();
                panic!("staffroom serve did not start: {}", std::fs::read_to_string(&stderr_path).unwrap_or_default());
            }
        };
        Server { child: Some(child), base, data_dir, stderr_path, _temp: temp }
    }

    /// The full URL of `path`.
    pub fn url(&self, path: &str) -> String {
        format!("{}{}", self.base, path)
    }

    /// The process id.
    pub fn pid(&self) -> u32 {
        self.child.as_ref().unwrap().id()
    }

    /// Sends `signal` (e.g. "TERM", "KILL") and waits for the exit.
    pub fn signal_and_wait(&mut self, signal: &str) -> ExitStatus {
        let mut child = self.child.take().expect("still running");
        let sent = Command::new("kill").arg(format!("-{signal}")).arg(child.id().to_string()).status().unwrap();
        assert!(sent.success());
        let deadline = Instant::now() + Duration::from_secs(30);
        loop {
            if let Some(status) = child.try_wait().unwrap() {
                return status;
            }
            assert!(Instant::now() < deadline, "the server did not exit after SIG{signal}");
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// What the server wrote on stderr so far.
    pub fn stderr(&self) -> String {
        std::fs::read_to_string(&self.stderr_path).unwrap_or_default()
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        if let Some(mut child) = self.child.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
        // A failing test shows what the server said (its errors name the cause of a 500).
        if std::thread::panicking() {
            if let Ok(said) = std::fs::read_to_string(&self.stderr_path) {
                let lines: Vec<&str> = said.lines().collect();
                eprintln!("the server's last words:\n{}", lines[lines.len().saturating_sub(40)..].join("\n"));
            }
        }
        let _ = std::fs::remove_file(&self.stderr_path);
    }
}

/// An HTTP client for the tests.
pub fn client() -> reqwest::Client {
    reqwest::Client::builder().timeout(Duration::from_secs(30)).build().unwrap()
}

/// Signs in and returns the whole AuthResponse body; panics unless the answer is 200.
pub async fn login(server: &Server, email: &str, password: &str) -> Value {
    let response = client()
        .post(server.url("/api/auth"))
        .json(&json!({ "email": email, "password": password }))
        .send()
        .await
        .unwrap();
    let status = response.status();
    let body: Value = response.json().await.unwrap();
    assert_eq!(status, 200, "sign-in failed: {body}");
    body
}

/// Signs in as the sandbox demo admin and returns the token.
pub async fn demo_token(server: &Server) -> String {
    login(server, DEMO_EMAIL, DEMO_PASSWORD).await["token"].as_str().unwrap().to_string()
}

/// The webhook log (`GET /api/payments/webhooks?limit=…`) as JSON.
pub async fn webhook_log(server: &Server, token: &str, limit: u32) -> Value {
    client()
        .get(server.url(&format!("/api/payments/webhooks?limit={limit}")))
        .bearer_auth(token)
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap()
}

/// A core on a fresh data dir with secrets in memory, for in-process tests.
pub async fn memory_core(dir: &Path) -> staffroom::Core {
    open_core(dir, false, false).await
}

/// A core on `dir` with secrets in memory: in the sandbox or not, and long-running (receiving
/// webhooks, syncing in the background) or not.
pub async fn open_core(dir: &Path, sandbox: bool, long_running: bool) -> staffroom::Core {
    staffroom::open(core_config(dir, sandbox, long_running)).await.unwrap()
}

/// What [`open_core`] opens, for a test to change before it opens it.
pub fn core_config(dir: &Path, sandbox: bool, long_running: bool) -> staffroom::config::Config {
    let mut config = staffroom::config::Config::new(dir);
    on_test_database(&mut config);
    config.sandbox = sandbox;
    config.long_running = long_running;
    config.secret_backend = staffroom::secrets::SecretBackend::Memory;
    config
}

/// Puts an in-process core's store on the database paired with its data dir, on a PostgreSQL run.
/// Its keys come from the environment as a replica's do, so they are set for the whole process.
pub fn on_test_database(config: &mut staffroom::config::Config) {
    if let Some(url) = database_for(&config.data_dir) {
        config.database_url = Some(staffroom::secrets::Secret::new(url));
        for (key, value) in team_keys() {
            // Every call sets the same values, so racing tests read what they expect.
            std::env::set_var(key, value);
        }
    }
}

/// A sandbox core served on loopback in this process, so tests can flip the simulator's faults.
pub struct SandboxApp {
    pub core: staffroom::Core,
    pub base: String,
    pub token: String,
    _dir: tempfile::TempDir,
}

impl SandboxApp {
    /// Starts a sandbox core with short provider time-outs, serves it, signs in as the demo admin.
    /// Its store has a short history (100 orders): syncing the full 1,600 in every test would
    /// only load the machine; [`SandboxApp::with_history`] has them.
    pub async fn start() -> SandboxApp {
        SandboxApp::start_with_orders(100).await
    }

    /// A sandbox app whose store has the sandbox's full history (SPEC section 11).
    pub async fn with_history() -> SandboxApp {
        SandboxApp::start_with_orders(1_600).await
    }

    async fn start_with_orders(orders: u64) -> SandboxApp {
        let dir = tempfile::tempdir().unwrap();
        let mut config = staffroom::config::Config::new(dir.path());
        on_test_database(&mut config);
        config.sandbox = true;
        config.sandbox_orders = orders;
        config.long_running = true;
        config.secret_backend = staffroom::secrets::SecretBackend::Memory;
        config.payments.client.request_timeout = std::time::Duration::from_millis(700);
        config.payments.client.retry.max_total = std::time::Duration::from_secs(3);
        // A provider that fails every request fails a whole sync (eight lists) in seconds, not
        // in three seconds a list.
        config.payments.client.retry.backoff_base = std::time::Duration::from_millis(50);
        config.docs.client.request_timeout = std::time::Duration::from_millis(700);
        config.docs.client.retry.max_total = std::time::Duration::from_secs(3);
        config.docs.client.retry.backoff_base = std::time::Duration::from_millis(50);
        let core = staffroom::open(config).await.unwrap();
        staffroom::sandbox::ensure_demo_account(&core).await.unwrap();
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let base = format!("http://{}", listener.local_addr().unwrap());
        core.connect_sandbox_webhooks(&base).await.unwrap();
        tokio::spawn(staffroom::http::serve(listener, core.clone(), std::future::pending()));
        let token = sign_in_at(&base, DEMO_EMAIL, DEMO_PASSWORD).await;
        let app = SandboxApp { core, base, token, _dir: dir };
        // The background sync a long-running core starts at once: tests begin after it, so a
        // checkout paid in a test does not race it for the database on a busy machine (its
        // webhooks were refused, retried and, after four tries, lost).
        let synced = app
            .eventually("/api/payments/sync", |s| {
                let resources = s["resources"].as_array().cloned().unwrap_or_default();
                s["running"] == false
                    && resources.iter().any(|r| r["resource"] == "customers" && r["attemptedAt"].is_string())
            })
            .await;
        assert_eq!(synced["running"], false, "the first sync did not end: {synced}");
        app
    }

    /// The core's data dir.
    pub fn data_dir(&self) -> &Path {
        self._dir.path()
    }

    /// Signs in another staff member; their access token.
    pub async fn sign_in(&self, email: &str, password: &str) -> String {
        sign_in_at(&self.base, email, password).await
    }

    /// The payment simulator.
    pub fn simulator(&self) -> &staffroom::sandbox::lemonsqueezy::PaymentSimulator {
        &staffroom::sandbox::simulators(&self.core).unwrap().payments
    }

    /// The Google simulator.
    pub fn google(&self) -> &staffroom::sandbox::google::GoogleSimulator {
        &staffroom::sandbox::simulators(&self.core).unwrap().google
    }

    /// Any request with a JSON body as the demo admin: (status, body).
    pub async fn send(&self, method: reqwest::Method, path: &str, body: Option<Value>) -> (u16, Value) {
        let mut request = client().request(method, format!("{}{path}", self.base)).bearer_auth(&self.token);
        if let Some(body) = body {
            request = request.json(&body);
        }
        let response = request.send().await.unwrap();
        (response.status().as_u16(), response.json().await.unwrap_or(Value::Null))
    }

    /// GET `path` as the demo admin: (status, body).
    pub async fn get(&self, path: &str) -> (u16, Value) {
        let response = client().get(format!("{}{path}", self.base)).bearer_auth(&self.token).send().await.unwrap();
        (response.status().as_u16(), response.json().await.unwrap_or(Value::Null))
    }

    /// POST `body` to `path` as the demo admin: (status, body).
    pub async fn post(&self, path: &str, body: Value) -> (u16, Value) {
        let response =
            client().post(format!("{}{path}", self.base)).bearer_auth(&self.token).json(&body).send().await.unwrap();
        (response.status().as_u16(), response.json().await.unwrap_or(Value::Null))
    }

    /// Saves `blocks` through the editor's door against the revision `view` (an editor view) was
    /// read at; the answer, which must be a 200.
    pub async fn save_document(&self, id: &str, view: &Value, blocks: Value) -> Value {
        let mut edits = serde_json::json!({"baseRevisionId": view["document"]["revisionId"], "blocks": blocks});
        if let Some(tab) = view["document"].get("tabId") {
            edits["tabId"] = tab.clone();
        }
        let (status, saved) = self.post(&format!("/api/docs/documents/{id}/save"), edits).await;
        assert_eq!(status, 200, "{saved}");
        saved
    }

    /// GETs `path` as the demo admin until `done` holds of its body; the last body. It waits up
    /// to 30 s: longer than two deliveries in a row each retried as the simulator does (1 + 3 +
    /// 9 s, like the provider), so deliveries refused on a busy machine still arrive in time.
    /// Waiting costs nothing when the answer comes at once.
    pub async fn eventually(&self, path: &str, done: impl Fn(&Value) -> bool) -> Value {
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
        loop {
            let body = self.get(path).await.1;
            if done(&body) || std::time::Instant::now() >= deadline {
                return body;
            }
            tokio::time::sleep(std::time::Duration::from_millis(50)).await;
        }
    }

    /// Adds Sam, a staff member who is not an admin, and signs him in; his access token.
    pub async fn staff_token(&self) -> String {
        let sam = staffroom::auth::NewUser {
            email: "sam@example.com".into(),
            name: "Sam".into(),
            role: staffroom::auth::store::Role::Staff,
            password: staffroom::secrets::Secret::new(STAFF_PASSWORD),
        };
        self.core.auth.add_user(&staffroom::auth::Actor::Cli, sam).await.unwrap();
        self.sign_in("sam@example.com", STAFF_PASSWORD).await
    }
}

/// The password of [`SandboxApp::staff_token`]'s staff member.
pub const STAFF_PASSWORD: &str = "correct horse battery staple 7";

/// Signs in at the server at `base`; the access token.
async fn sign_in_at(base: &str, email: &str, password: &str) -> String {
    let response: Value = client()
        .post(format!("{base}/api/auth"))
        .json(&json!({ "email": email, "password": password }))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    response["token"].as_str().unwrap_or_else(|| panic!("sign-in refused: {response}")).to_string()
}

/// The field names of an `invalid_request` answer.
pub fn bad_fields(body: &Value) -> Vec<String> {
    body["error"]["details"]["fields"]
        .as_array()
        .map(|f| f.iter().map(|e| e["field"].as_str().unwrap_or("").to_string()).collect())
        .unwrap_or_default()
}
pub mod pg;

/// Runs `sql` on the store behind `data_dir`: its SQLite file, or on a PostgreSQL run the
/// database paired with it. For tests that look at what was stored, not through the API.
pub async fn execute_sql(data_dir: &Path, sql: &str) {
    match database_for(data_dir) {
        Some(url) => pg_client(&url).await.batch_execute(sql).await.unwrap(),
        None => rusqlite::Connection::open(data_dir.join("staffroom.sqlite3")).unwrap().execute_batch(sql).unwrap(),
    }
}

/// The count a `SELECT COUNT(*) …` query gives on the store behind `data_dir`.
pub async fn count_rows(data_dir: &Path, sql: &str) -> i64 {
    match database_for(data_dir) {
        Some(url) => pg_client(&url).await.query_one(sql, &[]).await.unwrap().get(0),
        None => rusqlite::Connection::open(data_dir.join("staffroom.sqlite3"))
            .unwrap()
            .query_row(sql, [], |row| row.get(0))
            .unwrap(),
    }
}

/// The first column of every row `sql` gives on the store behind `data_dir`, as text.
pub async fn column_text(data_dir: &Path, sql: &str) -> Vec<String> {
    match database_for(data_dir) {
        Some(url) => pg_client(&url).await.query(sql, &[]).await.unwrap().iter().map(|row| row.get(0)).collect(),
        None => {
            let conn = rusqlite::Connection::open(data_dir.join("staffroom.sqlite3")).unwrap();
            let mut stmt = conn.prepare(sql).unwrap();
            let rows = stmt.query_map([], |row| row.get(0)).unwrap();
            rows.map(Result::unwrap).collect()
        }
    }
}

/// Everything the store behind `data_dir` holds, as text: the SQLite file and its WAL, or every
/// row of every table of the paired database.
pub async fn stored_text(data_dir: &Path) -> String {
    match database_for(data_dir) {
        Some(url) => {
            let client = pg_client(&url).await;
            let tables =
                client.query("SELECT tablename::text FROM pg_tables WHERE schemaname = 'public'", &[]).await.unwrap();
            let mut text = String::new();
            for table in tables {
                let name: String = table.get(0);
                let rows = client.query(&format!("SELECT t::text FROM \"{name}\" t"), &[]).await.unwrap();
                for row in rows {
                    text.push_str(row.get::<_, &str>(0));
                    text.push('\n');
                }
            }
            // `bytea` prints as hex above: the inbox's bodies as the text they hold.
            let bodies = client.query("SELECT convert_from(body, 'UTF8') FROM webhook_events", &[]).await.unwrap();
            for row in bodies {
                text.push_str(row.get::<_, &str>(0));
                text.push('\n');
            }
            text
        }
        None => {
            let mut bytes = std::fs::read(data_dir.join("staffroom.sqlite3")).unwrap();
            bytes.extend(std::fs::read(data_dir.join("staffroom.sqlite3-wal")).unwrap_or_default());
            String::from_utf8_lossy(&bytes).into_owned()
        }
    }
}

/// A connection to the PostgreSQL database at `url`.
pub async fn pg_client(url: &str) -> tokio_postgres::Client {
    let (client, connection) = tokio_postgres::connect(url, tokio_postgres::NoTls).await.unwrap();
    tokio::spawn(connection);
    client
}
