//! A throwaway PostgreSQL cluster for the tests (SPEC section 10): Debian's server binaries, a
//! temporary data directory, a free port on 127.0.0.1, never the machine's default cluster.
//! One cluster serves a whole test binary; each test gets a database of its own in it. A
//! watchdog process stops the cluster and removes its directory when the test process ends,
//! however it ends.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::OnceLock;

/// The running cluster: where it listens.
pub struct Cluster {
    port: u16,
}

/// The cluster of this test binary, started on first use.
pub fn cluster() -> &'static Cluster {
    static CLUSTER: OnceLock<Cluster> = OnceLock::new();
    CLUSTER.get_or_init(|| Cluster::start().unwrap_or_else(|why| panic!("no throwaway PostgreSQL cluster: {why}")))
}

/// Debian keeps each major version's server binaries in /usr/lib/postgresql/<major>/bin; the
/// newest wins (the project needs 15 or later, SPEC section 10).
fn server_bin() -> Result<PathBuf, String> {
    let versions = std::fs::read_dir("/usr/lib/postgresql")
        .map_err(|e| format!("/usr/lib/postgresql: {e}; run scripts/install-deps"))?
        .filter_map(|entry| entry.ok()?.file_name().to_str()?.parse::<u32>().ok())
        .filter(|major| *major >= 15);
    let newest = versions.max().ok_or("PostgreSQL 15 or later is not installed; run scripts/install-deps")?;
    Ok(PathBuf::from(format!("/usr/lib/postgresql/{newest}/bin")))
}

/// `initdb` refuses to run as root, so as root every server command runs as `postgres`.
fn as_server_user(program: &Path) -> Command {
    if is_root() {
        let mut command = Command::new("runuser");
        command.args(["-u", "postgres", "--"]).arg(program);
        command
    } else {
        Command::new(program)
    }
}

fn is_root() -> bool {
    // SAFETY: geteuid has no preconditions and cannot fail.
    unsafe { libc::geteuid() == 0 }
}

fn run(mut command: Command, what: &str) -> Result<(), String> {
    let output = command.stdin(Stdio::null()).output().map_err(|e| format!("{what}: {e}"))?;
    if output.status.success() {
        Ok(())
    } else {
        Err(format!(
            "{what} failed: {}{}",
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        ))
    }
}

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port()
}

/// A cluster of its own that also speaks TLS (`ssl=on`), with this certificate and key (PEM).
pub fn start_with_tls(cert_pem: &str, key_pem: &str) -> Cluster {
    Cluster::start_serving(Some((cert_pem, key_pem)))
        .unwrap_or_else(|why| panic!("no throwaway PostgreSQL cluster with TLS: {why}"))
}

impl Cluster {
    fn start() -> Result<Cluster, String> {
        Self::start_serving(None)
    }

    fn start_serving(tls: Option<(&str, &str)>) -> Result<Cluster, String> {
        let bin = server_bin()?;
        let dir = tempfile::Builder::new().prefix("staffroom-pg-").tempdir().map_err(|e| e.to_string())?.keep();
        if is_root() {
            run(
                {
                    let mut chown = Command::new("chown");
                    chown.arg("postgres:").arg(&dir);
                    chown
                },
                "chown",
            )?;
        }
        let data = dir.join("data");
        let mut initdb = as_server_user(&bin.join("initdb"));
        // Trust on loopback: the cluster lives for one test run, in a directory only its owner
        // reads. --no-sync: initdb's own fsyncs buy nothing for a throwaway cluster. C.UTF-8:
        // text sorts by code point, as SQLite's does, and ILIKE knows "MÜLLER" is "müller".
        initdb.arg("-D").arg(&data).args([
            "-U",
            "staffroom",
            "-A",
            "trust",
            "-E",
            "UTF8",
            "--locale=C.UTF-8",
            "--no-sync",
        ]);
        run(initdb, "initdb")?;
        let mut settings = String::new();
        if let Some((cert, key)) = tls {
            // The server reads its key only if no one else can (0600, owned by the server's user).
            for (name, pem) in [("server.crt", cert), ("server.key", key)] {
                let path = data.join(name);
                std::fs::write(&path, pem).map_err(|e| format!("{name}: {e}"))?;
                std::fs::set_permissions(&path, std::os::unix::fs::PermissionsExt::from_mode(0o600))
                    .map_err(|e| format!("{name}: {e}"))?;
                if is_root() {
                    let mut chown = Command::new("chown");
                    chown.arg("postgres:").arg(&path);
                    run(chown, "chown")?;
                }
            }
            settings.push_str(" -c ssl=on");
        }
        let port = free_port();
        let mut start = as_server_user(&bin.join("pg_ctl"));
        start.arg("-D").arg(&data).arg("-l").arg(dir.join("log")).arg("-w").arg("-o").arg(format!(
            "-p {port} -k {} -c listen_addresses=127.0.0.1 -c max_connections=200{settings}",
            dir.display()
        ));
        start.arg("start");
        run(start, "pg_ctl start")?;
        watch(&bin, &dir, &data)?;
        Ok(Cluster { port })
    }

    /// The port it listens on (on 127.0.0.1).
    pub fn port(&self) -> u16 {
        self.port
    }

    /// A fresh, empty database in the cluster; its URL.
    pub fn database(&self) -> String {
        let name = format!("t{}", uuid::Uuid::new_v4().simple());
        let mut create = Command::new(server_bin().unwrap().join("psql"));
        create.args(["-h", "127.0.0.1", "-p", &self.port.to_string(), "-U", "staffroom", "-d", "postgres", "-q", "-c"]);
        create.arg(format!("CREATE DATABASE {name}"));
        run(create, "CREATE DATABASE").unwrap();
        format!("postgres://staffroom@127.0.0.1:{}/{name}", self.port)
    }
}

/// Starts a watchdog that waits for this process to end, then stops the cluster at once and
/// removes its directory.
fn watch(bin: &Path, dir: &Path, data: &Path) -> Result<(), String> {
    let pg_ctl = bin.join("pg_ctl");
    let stop = if is_root() {
        format!("runuser -u postgres -- '{}' -D '{}' -m immediate stop", pg_ctl.display(), data.display())
    } else {
        format!("'{}' -D '{}' -m immediate stop", pg_ctl.display(), data.display())
    };
    let script = format!(
        "while kill -0 {pid} 2>/dev/null; do sleep 0.5; done; {stop} >/dev/null 2>&1; rm -rf '{dir}'",
        pid = std::process::id(),
        dir = dir.display(),
    );
    Command::new("sh")
        .args(["-c", &script])
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .map_err(|e| format!("watchdog: {e}"))?;
    Ok(())
}
