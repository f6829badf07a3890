//! The `staffroom` command: the headless service and the admin CLI (SPEC section 7).

use std::io::Read as _;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use clap::{Parser, Subcommand};
use staffroom::auth::store::Role;
use staffroom::auth::{Actor, NewUser};
use staffroom::config::{resolve_data_dir, Config, SessionLimits};
use staffroom::http::server::{check_bind, load_tls, TlsFiles};
use staffroom::secrets::{Secret, SecretBackend};
use staffroom::{Core, Error};

#[derive(Parser)]
#[command(name = "staffroom", version, about = "Staffroom: staff back office for payments and documents")]
struct Cli {
    /// Folder of the database and logs (default: the XDG data dir's `staffroom`, or
    /// `staffroom-sandbox` beside it with --sandbox).
    #[arg(long, global = true, env = "STAFFROOM_DATA_DIR")]
    data_dir: Option<PathBuf>,
    /// Where secrets are kept.
    #[arg(long, global = true, env = "STAFFROOM_SECRET_STORE", value_enum, default_value_t = SecretBackend::Auto)]
    secret_store: SecretBackend,
    /// A team server's PostgreSQL database (postgres://…), instead of SQLite in the data dir.
    #[arg(long, global = true, env = "STAFFROOM_DATABASE_URL", hide_env_values = true)]
    database_url: Option<String>,
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Serve the HTTP interface until SIGINT or SIGTERM.
    Serve {
        /// Run against the built-in provider simulators, with a demo account.
        #[arg(long)]
        sandbox: bool,
        /// Address to listen on.
        #[arg(long, default_value = "127.0.0.1:8787")]
        addr: SocketAddr,
        /// TLS certificate chain (PEM); required to listen beyond loopback.
        #[arg(long, requires = "tls_key")]
        tls_cert: Option<PathBuf>,
        /// TLS private key (PEM).
        #[arg(long, requires = "tls_cert")]
        tls_key: Option<PathBuf>,
        /// How often products and subscriptions are synced from the provider, in seconds.
        #[arg(long, env = "STAFFROOM_SYNC_INTERVAL_SECS", default_value_t = 300)]
        sync_interval_secs: u64,
        /// Life of one access token, in seconds.
        #[arg(long, env = "STAFFROOM_TOKEN_TTL_SECS", default_value_t = 15 * 60)]
        token_ttl_secs: u64,
        /// A session ends after this many seconds without a request.
        #[arg(long, env = "STAFFROOM_SESSION_IDLE_SECS", default_value_t = 30 * 60)]
        session_idle_secs: u64,
        /// A session ends this many seconds after sign-in.
        #[arg(long, env = "STAFFROOM_SESSION_MAX_SECS", default_value_t = 12 * 60 * 60)]
        session_max_secs: u64,
        /// Serve only the webhook receiver on this address too, for a tunnel or a provider to
        /// reach (nothing else is served there). Beyond loopback it needs the TLS files too.
        #[arg(long)]
        webhooks_addr: Option<SocketAddr>,
        /// A reverse proxy (CIDR, e.g. 10.0.0.0/8) whose X-Forwarded-For names the client, for
        /// sign-in throttling. Repeatable.
        #[arg(long = "trusted-proxy", value_name = "CIDR")]
        trusted_proxies: Vec<ipnet::IpNet>,
        /// A host name the service answers to besides its address and localhost (the name a
        /// reverse proxy or TLS certificate serves). Repeatable.
        #[arg(long = "public-name", value_name = "NAME")]
        public_names: Vec<String>,
    },
    /// Serve both provider simulators alone, for the replicas of a sandbox team to share: prints
    /// the environment each replica needs (real mode, pointed at them), then serves until
    /// SIGINT or SIGTERM.
    SandboxProviders {
        /// Address to listen on (loopback: put a TLS proxy in front for other machines).
        #[arg(long, default_value = "127.0.0.1:8790")]
        addr: SocketAddr,
        /// The URL replicas reach the simulators at, when not http://ADDR (a TLS proxy's).
        #[arg(long, value_name = "URL")]
        public_url: Option<String>,
        /// Where a paid checkout's webhooks go: the load balancer's
        /// https://…/api/payments/webhooks. Signed with STAFFROOM_WEBHOOK_SECRET, or a new secret.
        #[arg(long, value_name = "URL")]
        webhook_url: Option<String>,
    },
    /// Manage staff accounts.
    #[command(subcommand)]
    Users(UsersCommand),
    /// Manage secrets in the OS keyring.
    #[command(subcommand)]
    Secrets(SecretsCommand),
    /// Sign in to Google (for documents), sign out, or show the sign-in.
    #[command(subcommand)]
    Google(GoogleCommand),
    /// Connect a provider from a headless server.
    #[command(subcommand)]
    Connect(ConnectCommand),
    /// Say how the connections to Lemon Squeezy and Google stand and what fixes each problem;
    /// exits non-zero when one is not connected or has a problem.
    Doctor,
    /// Copy a desktop's data dir into a new team database (--database-url), once: accounts,
    /// orders and the payment cache, the webhook inbox, settings and the audit log.
    Migrate {
        /// The data dir to copy (a desktop's, or a single server's).
        #[arg(long)]
        from_data_dir: PathBuf,
        /// What the data dir holds, for one that does not record it (made before data dirs
        /// did): `real` or `sandbox`. A data dir that records its mode needs none.
        #[arg(long, value_parser = ["real", "sandbox"])]
        source_mode: Option<String>,
    },
}

#[derive(Subcommand)]
enum ConnectCommand {
    /// Check the API key (read from stdin) and the store with Lemon Squeezy, keep them, sync
    /// the store, and with --webhook-url register its webhook.
    Lemonsqueezy {
        /// The store's id (`staffroom doctor` and a refusal list those the key sees).
        #[arg(long, value_name = "ID")]
        store: String,
        /// Where this server's receiver is reached from the internet:
        /// https://…/api/payments/webhooks.
        #[arg(long, value_name = "URL")]
        webhook_url: Option<String>,
    },
}

#[derive(Subcommand)]
enum GoogleCommand {
    /// Open Google's consent page (printed, for a browser on this machine) and wait for it.
    SignIn {
        /// Give up after this many seconds.
        #[arg(long, default_value_t = 300)]
        timeout_secs: u64,
    },
    /// Revoke the Google tokens and forget them.
    SignOut,
    /// Whether Staffroom is signed in to Google.
    Status,
}

#[derive(Subcommand)]
enum UsersCommand {
    /// Add an account; the password is read from stdin.
    Add {
        #[arg(long)]
        email: String,
        #[arg(long)]
        name: String,
        #[arg(long, value_enum, default_value_t = Role::Staff)]
        role: Role,
        /// Read the password from standard input (required: passwords never go in arguments).
        #[arg(long, required = true)]
        password_stdin: bool,
        /// Use the sandbox's data dir.
        #[arg(long)]
        sandbox: bool,
    },
    /// List accounts.
    List {
        #[arg(long)]
        sandbox: bool,
    },
    /// Disable an account and end its sessions.
    Disable {
        email: String,
        #[arg(long)]
        sandbox: bool,
    },
    /// Enable an account.
    Enable {
        email: String,
        #[arg(long)]
        sandbox: bool,
    },
    /// Lift every sign-in lock of an account (too many wrong guesses).
    Unlock {
        email: String,
        #[arg(long)]
        sandbox: bool,
    },
    /// Set an account's password from stdin and end its sessions.
    SetPassword {
        email: String,
        #[arg(long, required = true)]
        password_stdin: bool,
        #[arg(long)]
        sandbox: bool,
    },
}

#[derive(Subcommand)]
enum SecretsCommand {
    /// Store a secret read from stdin in the keyring.
    Set {
        /// One of: jwt_key, lemonsqueezy_api_key, lemonsqueezy_store_id, webhook_secret,
        /// google_client_id, google_client_secret, google_token.
        name: String,
    },
    /// Say where each secret comes from (never its value).
    Status,
    /// Print a new pair of keys for a team server's replicas (jwt_key and data_key), as
    /// environment lines; give every replica the same pair.
    Generate,
}

fn main() -> ExitCode {
    // Everything this process writes (database, WAL, logs) is private to its owner.
    staffroom::data_dir::private_files_from_now_on();
    let cli = Cli::parse();
    let runtime = match tokio::runtime::Builder::new_multi_thread().enable_all().build() {
        Ok(rt) => rt,
        Err(e) => {
            eprintln!("error: cannot start the async runtime: {e}");
            return ExitCode::FAILURE;
        }
    };
    match runtime.block_on(run(cli)) {
        Ok(()) => ExitCode::SUCCESS,
        Err(err) => {
            eprintln!("error: {}", err.message);
            if let Some(details) = &err.details {
                if let Some(fields) = details.get("fields").and_then(|f| f.as_array()).filter(|f| f.len() > 1) {
                    for field in fields {
                        eprintln!(
                            "  {}: {}",
                            field["field"].as_str().unwrap_or("?"),
                            field["message"].as_str().unwrap_or("?")
                        );
                    }
                }
            }
            ExitCode::FAILURE
        }
    }
}

fn read_stdin_secret(what: &str) -> Result<Secret, Error> {
    let mut value = String::new();
    std::io::stdin()
        .read_to_string(&mut value)
        .map_err(|e| Error::invalid_field(what, format!("cannot read standard input: {e}")))?;
    let value = value.trim_end_matches(['\n', '\r']).to_string();
    if value.is_empty() {
        return Err(Error::invalid_field(what, "standard input was empty"));
    }
    Ok(Secret::new(value))
}

fn config(cli: &Cli, sandbox: bool) -> Result<Config, Error> {
    let mut config = Config::new(resolve_data_dir(cli.data_dir.as_deref(), sandbox));
    config.sandbox = sandbox;
    config.secret_backend = cli.secret_store;
    config.database_url = cli.database_url.clone().map(Secret::new);
    config.with_endpoint_overrides(|name| std::env::var(name).ok())
}

async fn open(cli: &Cli, sandbox: bool) -> Result<Core, Error> {
    staffroom::open(config(cli, sandbox)?).await
}

async fn run(cli: Cli) -> Result<(), Error> {
    if !matches!(cli.command, Command::Serve { .. } | Command::SandboxProviders { .. }) {
        staffroom::logging::init_for_command();
    }
    match &cli.command {
        Command::Serve {
            sandbox,
            addr,
            tls_cert,
            tls_key,
            sync_interval_secs,
            token_ttl_secs,
            session_idle_secs,
            session_max_secs,
            webhooks_addr,
            trusted_proxies,
            public_names,
        } => {
            let mut config = config(&cli, *sandbox)?;
            config.long_running = true;
            config.payments.sync_interval = Duration::from_secs((*sync_interval_secs).max(10));
            config.session = SessionLimits {
                access_token: Duration::from_secs(*token_ttl_secs),
                idle: Duration::from_secs(*session_idle_secs),
                absolute: Duration::from_secs(*session_max_secs),
            };
            config.http.trusted_proxies = trusted_proxies.clone();
            config.http.public_names = public_names.clone();
            let tls = match (tls_cert, tls_key) {
                (Some(cert), Some(key)) => Some(TlsFiles { cert: cert.clone(), key: key.clone() }),
                _ => None,
            };
            serve(config, *addr, *webhooks_addr, tls).await
        }
        Command::SandboxProviders { addr, public_url, webhook_url } => {
            sandbox_providers(*addr, public_url.as_deref(), webhook_url.as_deref()).await
        }
        Command::Users(command) => users(&cli, command).await,
        Command::Secrets(command) => secrets(&cli, command).await,
        Command::Google(command) => google(&cli, command).await,
        Command::Connect(ConnectCommand::Lemonsqueezy { store, webhook_url }) => {
            connect_lemonsqueezy(&cli, store, webhook_url.as_deref()).await
        }
        Command::Doctor => doctor(&cli).await,
        Command::Migrate { from_data_dir, source_mode } => migrate(&cli, from_data_dir, source_mode.as_deref()).await,
    }
}

#[cfg(not(feature = "sandbox"))]
async fn sandbox_providers(_: SocketAddr, _: Option<&str>, _: Option<&str>) -> Result<(), Error> {
    Err(Error::new(
        staffroom::ErrorCode::InvalidRequest,
        "this build of Staffroom has no sandbox: build it with the `sandbox` feature",
    ))
}

#[cfg(feature = "sandbox")]
async fn sandbox_providers(addr: SocketAddr, public_url: Option<&str>, webhook_url: Option<&str>) -> Result<(), Error> {
    use staffroom::payments::client::check_base_url;
    check_bind(addr, false)?;
    let field = |name: &str, err: Error| Error::invalid_field(name, err.to_string());
    if let Some(url) = public_url {
        check_base_url(url).map_err(|e| field("public-url", e))?;
    }
    if let Some(url) = webhook_url {
        check_base_url(url).map_err(|e| field("webhook-url", e))?;
    }
    let listener = tokio::net::TcpListener::bind(addr)
        .await
        .map_err(|e| Error::new(staffroom::ErrorCode::Internal, format!("cannot listen on {addr}: {e}")))?;
    let local = listener.local_addr().map_err(|e| Error::internal("listener", e))?;
    let base = public_url.map(str::to_string).unwrap_or_else(|| format!("http://{local}"));
    let (providers, router) = staffroom::sandbox::shared::SharedProviders::build(&base)
        .map_err(|e| Error::internal("sandbox providers", e))?;
    let secret = match std::env::var("STAFFROOM_WEBHOOK_SECRET").ok().filter(|s| !s.trim().is_empty()) {
        Some(secret) => Secret::new(secret),
        None => staffroom::auth::token::generate_key(),
    };
    if let Some(url) = webhook_url {
        providers.send_webhooks_to(url.to_string(), secret.clone());
    }
    println!("listening on http://{local}");
    println!("# Each replica: `staffroom serve --database-url …` (not --sandbox) with these, and the");
    println!("# team's STAFFROOM_JWT_KEY and STAFFROOM_DATA_KEY (staffroom secrets generate).");
    for (name, value) in providers.replica_environment(&secret) {
        println!("{name}={value}");
    }
    use std::io::Write as _;
    std::io::stdout().flush().ok();
    axum::serve(listener, router)
        .with_graceful_shutdown(staffroom::http::shutdown_signal())
        .await
        .map_err(|e| Error::internal("sandbox providers", e))
}

async fn migrate(cli: &Cli, from: &std::path::Path, source_mode: Option<&str>) -> Result<(), Error> {
    let url = cli.database_url.as_deref().ok_or_else(|| {
        Error::invalid_field(
            "database-url",
            "migrate copies into a team's database: give --database-url or STAFFROOM_DATABASE_URL",
        )
    })?;
    if !from.join(staffroom::store::DB_FILE).is_file() {
        return Err(Error::invalid_field("from-data-dir", format!("{} holds no Staffroom data", from.display())));
    }
    let dir = from.to_path_buf();
    let source = tokio::task::spawn_blocking(move || staffroom::store::Sqlite::open(&dir))
        .await
        .map_err(|e| Error::internal("migrate", e))?
        .map_err(|e| Error::new(staffroom::ErrorCode::Internal, e.to_string()))?;
    let target = staffroom::store::postgres::Postgres::open(url)
        .await
        .map_err(|e| Error::new(staffroom::ErrorCode::Unavailable, e.to_string()))?;
    let copied = staffroom::store::migrate::from_data_dir(&source, &target, source_mode).await?;
    for (table, rows) in copied {
        println!("{table:<24} {rows} rows");
    }
    println!("copied {}: staff sign in to the team server with the passwords they had", from.display());
    Ok(())
}

async fn serve(
    config: Config,
    addr: SocketAddr,
    hooks: Option<SocketAddr>,
    tls: Option<TlsFiles>,
) -> Result<(), Error> {
    check_bind(addr, tls.is_some())?;
    if let Some(hooks) = hooks {
        check_bind(hooks, tls.is_some())?;
    }
    let tls = tls.as_ref().map(load_tls).transpose()?;
    let (data_dir, sandbox) = (config.data_dir.clone(), config.sandbox);
    std::fs::create_dir_all(&data_dir).ok();
    let _log_guard = staffroom::logging::init(Some(&data_dir.join("logs")));
    staffroom::http::server::raise_open_file_limit();
    let core = staffroom::open(config).await?;
    if core.config.sandbox {
        staffroom::sandbox::ensure_demo_account(&core).await?;
    }
    let listener = tokio::net::TcpListener::bind(addr)
        .await
        .map_err(|e| Error::new(staffroom::ErrorCode::Internal, format!("cannot listen on {addr}: {e}")))?;
    let local = listener.local_addr().map_err(|e| Error::internal("listener", e))?;
    tracing::info!(addr = %local, sandbox, data_dir = %data_dir.display(), "Staffroom service started");
    let scheme = if tls.is_some() { "https" } else { "http" };
    core.connect_sandbox_webhooks(&format!("{scheme}://{local}")).await?;
    // One signal stops every listener; each finishes what is in flight.
    let (stop, stopped) = tokio::sync::watch::channel(false);
    let events = core.events.clone();
    tokio::spawn(async move {
        staffroom::http::shutdown_signal().await;
        // Event streams never finish on their own: end them so the shutdown need not wait.
        if let Some(events) = events {
            events.close();
        }
        let _ = stop.send(true);
    });
    let until_stopped = |mut stopped: tokio::sync::watch::Receiver<bool>| async move {
        let _ = stopped.wait_for(|stop| *stop).await;
    };
    let limits = staffroom::http::server::ConnectionLimits::behind(&core.config.http.trusted_proxies);
    let hooks_server = match hooks {
        Some(hooks) => {
            let listener = tokio::net::TcpListener::bind(hooks)
                .await
                .map_err(|e| Error::new(staffroom::ErrorCode::Internal, format!("cannot listen on {hooks}: {e}")))?;
            let local = listener.local_addr().map_err(|e| Error::internal("listener", e))?;
            println!("webhooks on {scheme}://{local}/api/payments/webhooks");
            tracing::info!(addr = %local, "serving only the webhook receiver here");
            let router = staffroom::http::webhook_router(core.clone());
            Some(tokio::spawn(staffroom::http::server::serve_router(
                listener,
                router,
                tls.clone(),
                limits.clone(),
                until_stopped(stopped.clone()),
            )))
        }
        None => None,
    };
    println!("listening on {scheme}://{local}");
    if sandbox {
        println!("sandbox: sign in as {} / {}", staffroom::sandbox::DEMO_EMAIL, staffroom::sandbox::DEMO_PASSWORD);
    }
    use std::io::Write as _;
    std::io::stdout().flush().ok();
    let router = staffroom::http::router(core, local.ip());
    staffroom::http::server::serve_router(listener, router, tls, limits, until_stopped(stopped))
        .await
        .map_err(|e| Error::internal("http server", e))?;
    if let Some(hooks_server) = hooks_server {
        hooks_server
            .await
            .map_err(|e| Error::internal("webhook listener", e))?
            .map_err(|e| Error::internal("webhook listener", e))?;
    }
    tracing::info!("stopped");
    Ok(())
}

async fn users(cli: &Cli, command: &UsersCommand) -> Result<(), Error> {
    let sandbox = match command {
        UsersCommand::Add { sandbox, .. }
        | UsersCommand::List { sandbox }
        | UsersCommand::Disable { sandbox, .. }
        | UsersCommand::Enable { sandbox, .. }
        | UsersCommand::Unlock { sandbox, .. }
        | UsersCommand::SetPassword { sandbox, .. } => *sandbox,
    };
    let core = open(cli, sandbox).await?;
    let actor = Actor::Cli;
    match command {
        UsersCommand::Add { email, name, role, .. } => {
            let password = read_stdin_secret("password")?;
            let user = core
                .auth
                .add_user(&actor, NewUser { email: email.clone(), name: name.clone(), role: *role, password })
                .await?;
            println!("added {} ({}) as {}", user.email, user.name, user.role.as_str());
        }
        UsersCommand::List { .. } => {
            let users = core.auth.list_users(&actor).await?;
            if users.is_empty() {
                println!("no accounts yet");
            }
            for user in users {
                let state = if user.disabled { "disabled" } else { "active" };
                println!("{}\t{}\t{}\t{}", user.email, user.name, user.role.as_str(), state);
            }
        }
        UsersCommand::Disable { email, .. } => {
            let user = core.auth.set_disabled(&actor, email, true).await?;
            println!("disabled {}; their sessions have ended", user.email);
        }
        UsersCommand::Enable { email, .. } => {
            let user = core.auth.set_disabled(&actor, email, false).await?;
            println!("enabled {}", user.email);
        }
        UsersCommand::Unlock { email, .. } => {
            let user = core.auth.unlock(&actor, email).await?;
            println!("unlocked {}: it can sign in again", user.email);
        }
        UsersCommand::SetPassword { email, .. } => {
            let password = read_stdin_secret("password")?;
            let user = core.auth.set_password(&actor, email, password).await?;
            println!("password of {} changed; their sessions have ended", user.email);
        }
    }
    Ok(())
}

async fn google(cli: &Cli, command: &GoogleCommand) -> Result<(), Error> {
    let core = open(cli, false).await?;
    match command {
        GoogleCommand::SignIn { timeout_secs } => {
            let pending = core.docs.begin_sign_in(&Actor::Cli).await?;
            println!("Open this page in a browser on this machine to sign in to Google:\n\n  {}\n", pending.url);
            core.docs.finish_sign_in(&Actor::Cli, pending, std::time::Duration::from_secs(*timeout_secs)).await?;
            match cli.database_url {
                Some(_) => {
                    println!("signed in to Google for the team: the tokens are sealed with data_key in its database")
                }
                None => println!("signed in to Google; the tokens are in the {}", core.secrets.describe()),
            }
        }
        GoogleCommand::SignOut => {
            core.docs.sign_out(&Actor::Cli).await?;
            println!("signed out of Google");
        }
        GoogleCommand::Status => {
            let status = core.docs.auth().status().await?;
            match (status.signed_in, status.kind.as_deref()) {
                (true, Some(kind)) => println!(
                    "signed in ({kind}){}",
                    status.expires_at.map(|at| format!(", access token expires {at}")).unwrap_or_default()
                ),
                _ if status.can_sign_in => println!("not signed in; run `staffroom google sign-in`"),
                _ => println!("not signed in; set google_client_id (and google_client_secret) first"),
            }
        }
    }
    Ok(())
}

async fn connect_lemonsqueezy(cli: &Cli, store: &str, webhook_url: Option<&str>) -> Result<(), Error> {
    let key = read_stdin_secret("apiKey")?;
    let core = open(cli, false).await?;
    let connection = core.connect_store(&Actor::Cli, key, store.trim()).await?;
    if let Some(store) = &connection.store {
        let mode = if store.test_mode { "test mode" } else { "live" };
        println!("connected store {} ({}, {}, {mode})", store.id, store.name, store.currency);
    }
    if let Some(url) = webhook_url {
        let registered = core.register_webhook(&Actor::Cli, url).await?;
        println!(
            "registered webhook {} at {} for {} events",
            registered.webhook.id,
            registered.webhook.url,
            registered.webhook.events.len()
        );
    }
    // Connected: what else wants doing is said, but this command did what it was asked.
    print!("\n{}", core.connections().await?.report());
    Ok(())
}

/// Prints how both connections stand; an error when something is wrong.
async fn doctor(cli: &Cli) -> Result<(), Error> {
    let core = open(cli, false).await?;
    let connections = core.connections().await?;
    print!("{}", connections.report());
    if connections.healthy() {
        Ok(())
    } else {
        Err(Error::new(staffroom::ErrorCode::Unavailable, "a connection needs attention (see above)"))
    }
}

async fn secrets(cli: &Cli, command: &SecretsCommand) -> Result<(), Error> {
    if let SecretsCommand::Generate = command {
        // Needs nothing opened: the keys go to standard output only, for the operator to give
        // every replica (environment, a file each, or each one's keyring).
        println!("STAFFROOM_JWT_KEY={}", staffroom::auth::token::generate_key().expose());
        println!("STAFFROOM_DATA_KEY={}", staffroom::auth::token::generate_key().expose());
        eprintln!("Give every replica of the team server this same pair, and keep it secret.");
        return Ok(());
    }
    let core = open(cli, false).await?;
    match command {
        SecretsCommand::Set { name } => {
            staffroom::secrets::validate_name(name).map_err(|e| Error::invalid_field("name", e.to_string()))?;
            let value = read_stdin_secret("value")?;
            core.set_secret(&Actor::Cli, name, value).await?;
            println!("stored {name} in the {}", core.secrets.describe());
        }
        SecretsCommand::Status => {
            println!("backend: {}", core.secrets.describe());
            for (name, about, source) in core.secret_sources().await? {
                println!("{name:<24} {source:<28} {about}");
            }
        }
        SecretsCommand::Generate => unreachable!("answered above"),
    }
    Ok(())
}
