//! TLS to the team database (`crates/staffroom-postgres/src/tls.rs`), against real throwaway clusters: one with
//! `ssl=on` and a certificate for `localhost` signed by a CA made for this test, one without TLS.

mod common;

use std::path::PathBuf;
use std::sync::OnceLock;

use common::pg::Cluster;
use staffroom::store::postgres::Postgres;

/// The TLS cluster, the file of the CA that signed its certificate, and of a CA that did not.
struct Tls {
    cluster: Cluster,
    ca: PathBuf,
    other_ca: PathBuf,
}

fn certificate_authority(name: &str) -> rcgen::CertifiedIssuer<'static, rcgen::KeyPair> {
    let mut params = rcgen::CertificateParams::new(Vec::<String>::new()).unwrap();
    params.is_ca = rcgen::IsCa::Ca(rcgen::BasicConstraints::Unconstrained);
    params.distinguished_name.push(rcgen::DnType::CommonName, name);
    rcgen::CertifiedIssuer::self_signed(params, rcgen::KeyPair::generate().unwrap()).unwrap()
}

fn tls() -> &'static Tls {
    static TLS: OnceLock<Tls> = OnceLock::new();
    TLS.get_or_init(|| {
        let dir = tempfile::tempdir().unwrap().keep();
        let ca = certificate_authority("Staffroom test CA");
        let other = certificate_authority("Somebody else's CA");
        let key = rcgen::KeyPair::generate().unwrap();
        let certificate =
            rcgen::CertificateParams::new(vec!["localhost".to_string()]).unwrap().signed_by(&key, &ca).unwrap();
        let cluster = common::pg::start_with_tls(&certificate.pem(), &key.serialize_pem());
        let (ca_file, other_file) = (dir.join("ca.pem"), dir.join("other-ca.pem"));
        std::fs::write(&ca_file, ca.pem()).unwrap();
        std::fs::write(&other_file, other.pem()).unwrap();
        Tls { cluster, ca: ca_file, other_ca: other_file }
    })
}

/// A fresh database of `cluster`, reached by `host`, with `options` as the URL's query.
fn url(cluster: &Cluster, host: &str, options: &str) -> String {
    let url = cluster.database().replace("@127.0.0.1:", &format!("@{host}:"));
    if options.is_empty() {
        url
    } else {
        format!("{url}?{options}")
    }
}

/// Whether the pool's connections and a connection of its own (`LISTEN`'s) are encrypted.
async fn encrypted(pg: &Postgres) -> (bool, bool) {
    const SQL: &str = "SELECT ssl FROM pg_stat_ssl WHERE pid = pg_backend_pid()";
    let pooled: bool = pg.client().await.unwrap().query_one(SQL, &[]).await.unwrap().get(0);
    let (own, connection) = pg.dedicated().await.unwrap();
    tokio::spawn(connection);
    (pooled, own.query_one(SQL, &[]).await.unwrap().get(0))
}

async fn refusal(url: &str) -> String {
    Postgres::open(url).await.expect_err("refused").to_string()
}

#[tokio::test]
async fn a_certificate_from_the_ca_named_is_verified_and_everything_is_encrypted() {
    let t = tls();
    let ca = t.ca.display();
    for mode in ["verify-full", "require", "prefer"] {
        let db = Postgres::open(&url(&t.cluster, "localhost", &format!("sslmode={mode}&sslrootcert={ca}")))
            .await
            .unwrap_or_else(|e| panic!("{mode}: {e}"));
        assert_eq!(encrypted(&db).await, (true, true), "{mode}");
    }
    // The same in libpq's other form.
    let database = t.cluster.database().rsplit('/').next().unwrap().to_string();
    let db = Postgres::open(&format!(
        "host=localhost port={} user=staffroom dbname={database} sslmode=verify-full sslrootcert='{ca}'",
        t.cluster.port()
    ))
    .await
    .unwrap();
    assert_eq!(encrypted(&db).await, (true, true), "key=value form");
}

#[tokio::test]
async fn a_certificate_no_trusted_ca_signed_is_refused_with_a_hint() {
    let t = tls();
    for options in ["", "sslmode=require", &format!("sslmode=verify-full&sslrootcert={}", t.other_ca.display())] {
        let refused = refusal(&url(&t.cluster, "localhost", options)).await;
        assert!(refused.contains("certificate"), "{options}: {refused}");
        assert!(refused.contains("sslrootcert=FILE"), "{options}: a hint: {refused}");
    }
}

#[tokio::test]
async fn verify_full_checks_the_name_and_verify_ca_does_not() {
    let t = tls();
    let ca = t.ca.display();
    // The certificate names localhost, not the address.
    let refused = refusal(&url(&t.cluster, "127.0.0.1", &format!("sslmode=verify-full&sslrootcert={ca}"))).await;
    assert!(refused.contains("not valid for name") && refused.contains("sslmode=verify-ca"), "{refused}");
    let db =
        Postgres::open(&url(&t.cluster, "127.0.0.1", &format!("sslmode=verify-ca&sslrootcert={ca}"))).await.unwrap();
    assert_eq!(encrypted(&db).await, (true, true));
}

#[tokio::test]
async fn disable_stays_plain_and_require_refuses_a_server_without_tls() {
    let db = Postgres::open(&url(&tls().cluster, "localhost", "sslmode=disable")).await.unwrap();
    assert_eq!(encrypted(&db).await, (false, false), "disable on a server that offers TLS");

    let plain = common::pg::cluster();
    let db = Postgres::open(&url(plain, "127.0.0.1", "")).await.unwrap();
    assert_eq!(encrypted(&db).await, (false, false), "prefer on a server without TLS");
    let refused = refusal(&url(plain, "127.0.0.1", "sslmode=require")).await;
    assert!(refused.contains("TLS") || refused.contains("SSL"), "{refused}");
}

/// Without an sslmode, a database named by anything but this computer is reached with TLS or not
/// at all: a server (or someone in the middle) that answers "no TLS" is refused, not spoken to in
/// plain text. Here a name that is not loopback leads to the plain cluster through `hostaddr`.
#[tokio::test]
async fn without_an_sslmode_a_remote_host_needs_tls() {
    let plain = common::pg::cluster();
    let database = url(plain, "127.0.0.1", "").rsplit('/').next().unwrap().to_string();
    let remote = format!("host=db.invalid hostaddr=127.0.0.1 port={} user=staffroom dbname={database}", plain.port());
    let refused = refusal(&remote).await;
    assert!(refused.contains("TLS") || refused.contains("SSL"), "{refused}");
    // Written out, plain text stays possible.
    let db = Postgres::open(&format!("{remote} sslmode=disable")).await.unwrap();
    assert_eq!(encrypted(&db).await, (false, false));
}

#[tokio::test]
async fn a_missing_ca_file_and_an_unknown_mode_are_refused_clearly() {
    let plain = common::pg::cluster();
    let refused = refusal(&url(plain, "127.0.0.1", "sslrootcert=/nonexistent/ca.pem")).await;
    assert!(refused.starts_with("sslrootcert /nonexistent/ca.pem: "), "{refused}");
    let refused = refusal(&url(plain, "127.0.0.1", "sslmode=verify")).await;
    assert!(refused.contains("sslmode=verify is not one of"), "{refused}");
}
