//! TLS to the team database. The URL takes libpq's `sslmode` and `sslrootcert`, as managed
//! PostgreSQL services print them, but a certificate is always verified: where libpq's `prefer`
//! and `require` encrypt without checking who answers, here they check it as `verify-full` does.
//!
//! | `sslmode` | TLS | the certificate |
//! |---|---|---|
//! | `disable` | never | - |
//! | `prefer`, `allow` | when the server offers it | verified, with the host name |
//! | `require` (the default), `verify-full` | always | verified, with the host name |
//! | `verify-ca` | always | verified against `sslrootcert` only, without the host name |
//!
//! The CAs trusted are those of `sslrootcert=FILE` (PEM) when given, else the public ones
//! (Mozilla's list, as browsers trust them). `verify-ca` needs `sslrootcert`: without the host
//! name, any public CA would vouch for anyone's certificate. `prefer` only keeps out listeners:
//! someone between the replica and the database can answer that it has no TLS, and the
//! connection goes on in plain text. So without an `sslmode`, `require` is the default, unless
//! every host named is this computer (a loopback address, `localhost`, or a Unix socket), where
//! no one stands between and `prefer` is.

use std::sync::Arc;

use tokio_postgres::config::SslMode;
use tokio_postgres_rustls::MakeRustlsConnect;
use tokio_rustls::rustls::client::danger::{HandshakeSignatureValid, ServerCertVerified, ServerCertVerifier};
use tokio_rustls::rustls::client::WebPkiServerVerifier;
use tokio_rustls::rustls::crypto::ring;
use tokio_rustls::rustls::pki_types::pem::PemObject;
use tokio_rustls::rustls::pki_types::{CertificateDer, ServerName, UnixTime};
use tokio_rustls::rustls::{CertificateError, ClientConfig, DigitallySignedStruct, RootCertStore, SignatureScheme};

/// The connector every connection to the database uses.
pub type Connector = MakeRustlsConnect;

/// A connection string's settings for tokio-postgres, and the TLS connector they call for.
pub fn settings(url: &str) -> Result<(tokio_postgres::Config, Connector), String> {
    let (rest, options) = take_tls_options(url)?;
    let mut config: tokio_postgres::Config =
        rest.parse().map_err(|e| format!("the database URL is not one PostgreSQL understands: {e}"))?;
    let (mode, check_name) = match options.mode.as_deref() {
        None if only_this_computer(&config) => (SslMode::Prefer, true),
        None => (SslMode::Require, true),
        Some("prefer") | Some("allow") => (SslMode::Prefer, true),
        Some("disable") => (SslMode::Disable, true),
        Some("require") | Some("verify-full") => (SslMode::Require, true),
        Some("verify-ca") if options.root_cert.is_some() => (SslMode::Require, false),
        Some("verify-ca") => {
            return Err("sslmode=verify-ca needs sslrootcert=FILE, the CA that signs the database's \
                        certificate: any public CA would vouch for anyone's"
                .into())
        }
        Some(other) => {
            return Err(format!(
                "sslmode={other} is not one of disable, allow, prefer, require, verify-ca, verify-full"
            ))
        }
    };
    if config.get_ssl_mode() != SslMode::Prefer {
        // tokio-postgres found an sslmode this split did not: the URL is not as it seems.
        return Err("the database URL's sslmode could not be read; percent-encode any '?' in the password".into());
    }
    config.ssl_mode(mode);
    let roots = match &options.root_cert {
        Some(path) => roots_from_file(path)?,
        None => RootCertStore { roots: webpki_roots::TLS_SERVER_ROOTS.to_vec() },
    };
    let provider = Arc::new(ring::default_provider());
    let builder = ClientConfig::builder_with_provider(provider.clone())
        .with_safe_default_protocol_versions()
        .map_err(|e| format!("TLS: {e}"))?;
    let client = if check_name {
        builder.with_root_certificates(roots).with_no_client_auth()
    } else {
        let verifier = WebPkiServerVerifier::builder_with_provider(Arc::new(roots), provider)
            .build()
            .map_err(|e| format!("sslrootcert: {e}"))?;
        builder.dangerous().with_custom_certificate_verifier(Arc::new(AnyName(verifier))).with_no_client_auth()
    };
    Ok((config, MakeRustlsConnect::new(client)))
}

/// Whether every host `config` names is this computer: a Unix socket, `localhost` or a loopback
/// address (none named means the local socket, as libpq has it).
fn only_this_computer(config: &tokio_postgres::Config) -> bool {
    use tokio_postgres::config::Host;
    let host_is_local = |host: &Host| match host {
        Host::Unix(_) => true,
        Host::Tcp(name) => {
            name.eq_ignore_ascii_case("localhost")
                || name.trim_matches(['[', ']']).parse::<std::net::IpAddr>().is_ok_and(|ip| ip.is_loopback())
        }
    };
    config.get_hosts().iter().all(host_is_local) && config.get_hostaddrs().iter().all(|ip| ip.is_loopback())
}

/// A hint for a connection that failed, when it failed on the database's certificate.
pub fn hint(error: &str) -> &'static str {
    if error.contains("not valid for name") {
        " (the database's certificate does not name the host in the URL: connect by a name it \
         carries, or, with sslrootcert naming your own CA, use sslmode=verify-ca)"
    } else if error.contains("UnknownIssuer") {
        " (the database's certificate is not signed by a CA this server trusts: name the CA's \
         certificate file with sslrootcert=FILE in the URL, or use sslmode=disable only where \
         the network itself is trusted)"
    } else {
        ""
    }
}

fn roots_from_file(path: &str) -> Result<RootCertStore, String> {
    let pem = std::fs::read(path).map_err(|e| format!("sslrootcert {path}: {e}"))?;
    let mut roots = RootCertStore::empty();
    for cert in CertificateDer::pem_slice_iter(&pem) {
        let cert = cert.map_err(|e| format!("sslrootcert {path}: {e}"))?;
        roots.add(cert).map_err(|e| format!("sslrootcert {path}: {e}"))?;
    }
    if roots.is_empty() {
        return Err(format!("sslrootcert {path}: no PEM certificate in the file"));
    }
    Ok(roots)
}

/// `verify-ca`: the chain must lead to a trusted CA; the name on the certificate may differ
/// from the host connected to (a database reached by an address its certificate does not name).
#[derive(Debug)]
struct AnyName(Arc<WebPkiServerVerifier>);

impl ServerCertVerifier for AnyName {
    fn verify_server_cert(
        &self,
        end_entity: &CertificateDer<'_>,
        intermediates: &[CertificateDer<'_>],
        server_name: &ServerName<'_>,
        ocsp_response: &[u8],
        now: UnixTime,
    ) -> Result<ServerCertVerified, tokio_rustls::rustls::Error> {
        match self.0.verify_server_cert(end_entity, intermediates, server_name, ocsp_response, now) {
            Err(tokio_rustls::rustls::Error::InvalidCertificate(
                CertificateError::NotValidForName | CertificateError::NotValidForNameContext { .. },
            )) => Ok(ServerCertVerified::assertion()),
            other => other,
        }
    }

    fn verify_tls12_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, tokio_rustls::rustls::Error> {
        self.0.verify_tls12_signature(message, cert, dss)
    }

    fn verify_tls13_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, tokio_rustls::rustls::Error> {
        self.0.verify_tls13_signature(message, cert, dss)
    }

    fn supported_verify_schemes(&self) -> Vec<SignatureScheme> {
        self.0.supported_verify_schemes()
    }
}

/// The TLS options of a connection string, taken out of it.
#[derive(Debug, Default, PartialEq)]
struct TlsOptions {
    mode: Option<String>,
    root_cert: Option<String>,
}

impl TlsOptions {
    /// Keeps `value` if `key` is a TLS option; whether it was.
    fn take(&mut self, key: &str, value: String) -> bool {
        match key {
            "sslmode" => self.mode = Some(value),
            "sslrootcert" => self.root_cert = Some(value),
            _ => return false,
        }
        true
    }
}

/// Splits a connection string, in either of libpq's forms (a `postgres://` URL, or `key=value`
/// pairs), into the rest, which tokio-postgres reads, and the TLS options, which it does not
/// (it knows no `sslrootcert`, nor the `verify-*` modes).
fn take_tls_options(url: &str) -> Result<(String, TlsOptions), String> {
    let mut options = TlsOptions::default();
    if url.starts_with("postgres://") || url.starts_with("postgresql://") {
        // The query starts after the user and password, which may hold a '?' of their own and
        // end at the first '@' (where tokio-postgres ends them too).
        let after_password = url.find('@').map_or(0, |at| at + 1);
        let Some(start) = url[after_password..].find('?').map(|at| after_password + at) else {
            return Ok((url.to_string(), options));
        };
        let (base, query) = (&url[..start], &url[start + 1..]);
        let decode = |s: &str| percent_encoding::percent_decode_str(s).decode_utf8_lossy().into_owned();
        let mut kept = Vec::new();
        for pair in query.split('&') {
            let (key, value) = pair.split_once('=').unwrap_or((pair, ""));
            if !options.take(&decode(key), decode(value)) {
                kept.push(pair);
            }
        }
        let rest = if kept.is_empty() { base.to_string() } else { format!("{base}?{}", kept.join("&")) };
        return Ok((rest, options));
    }
    let mut kept = Vec::new();
    for (key, value) in key_values(url)? {
        if !options.take(&key, value.clone()) {
            kept.push(format!("{key}='{}'", value.replace('\\', "\\\\").replace('\'', "\\'")));
        }
    }
    Ok((kept.join(" "), options))
}

/// libpq's `key = value` pairs: values unquoted or in single quotes, `\` escaping the next
/// character in either.
fn key_values(s: &str) -> Result<Vec<(String, String)>, String> {
    let mut pairs = Vec::new();
    let mut chars = s.chars().peekable();
    loop {
        while chars.next_if(|c| c.is_whitespace()).is_some() {}
        if chars.peek().is_none() {
            return Ok(pairs);
        }
        let mut key = String::new();
        while let Some(c) = chars.next_if(|c| *c != '=' && !c.is_whitespace()) {
            key.push(c);
        }
        while chars.next_if(|c| c.is_whitespace()).is_some() {}
        if chars.next() != Some('=') {
            // The word is not repeated: it may be a piece of a password that needed quotes.
            return Err("the database URL has a word without \"=\" and a value (quote values with spaces: \
                        password='…')"
                .into());
        }
        while chars.next_if(|c| c.is_whitespace()).is_some() {}
        let mut value = String::new();
        if chars.next_if_eq(&'\'').is_some() {
            loop {
                match chars.next() {
                    Some('\'') => break,
                    Some('\\') => value.extend(chars.next()),
                    Some(c) => value.push(c),
                    None => return Err(format!("the database URL's value of \"{key}\" has no closing quote")),
                }
            }
        } else {
            while let Some(c) = chars.next_if(|c| !c.is_whitespace()) {
                if c == '\\' {
                    value.extend(chars.next());
                } else {
                    value.push(c);
                }
            }
        }
        pairs.push((key, value));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn options(mode: Option<&str>, root_cert: Option<&str>) -> TlsOptions {
        TlsOptions { mode: mode.map(Into::into), root_cert: root_cert.map(Into::into) }
    }

    #[test]
    fn tls_options_come_out_of_a_url() {
        let (rest, found) =
            take_tls_options("postgres://u:p@db.example.com:5432/team?sslmode=verify-full&application_name=x&sslrootcert=%2Fetc%2Fca.pem")
                .unwrap();
        assert_eq!(rest, "postgres://u:p@db.example.com:5432/team?application_name=x");
        assert_eq!(found, options(Some("verify-full"), Some("/etc/ca.pem")));
        let (rest, found) = take_tls_options("postgresql://db/team?sslmode=require").unwrap();
        assert_eq!((rest.as_str(), found), ("postgresql://db/team", options(Some("require"), None)));
        let (rest, found) = take_tls_options("postgres://db/team").unwrap();
        assert_eq!((rest.as_str(), found), ("postgres://db/team", options(None, None)));
        // A '?' in the password is the password's; '+' is a plus, as libpq reads it.
        let (rest, found) = take_tls_options("postgres://u:a?b@db/t?sslmode=require&sslrootcert=/ca+1.pem").unwrap();
        assert_eq!((rest.as_str(), found), ("postgres://u:a?b@db/t", options(Some("require"), Some("/ca+1.pem"))));
    }

    #[test]
    fn tls_options_come_out_of_key_values() {
        let (rest, found) = take_tls_options(
            r"host=db  sslmode = verify-ca password='it\'s \\ here' sslrootcert='/a b/ca.pem' port=5433",
        )
        .unwrap();
        assert_eq!(found, options(Some("verify-ca"), Some("/a b/ca.pem")));
        assert_eq!(rest, r"host='db' password='it\'s \\ here' port='5433'");
        let config: tokio_postgres::Config = rest.parse().unwrap();
        assert_eq!(config.get_password(), Some(r"it's \ here".as_bytes()));
    }

    #[test]
    fn broken_key_values_are_refused_clearly() {
        let loose = take_tls_options("password=two words").unwrap_err();
        assert!(loose.contains("a word without \"=\"") && !loose.contains("words"), "{loose}");
        assert!(take_tls_options("password='open").unwrap_err().contains("no closing quote"));
    }

    #[test]
    fn modes_are_libpqs_and_unknown_ones_are_refused() {
        for (mode, expected) in [
            ("disable", SslMode::Disable),
            ("prefer", SslMode::Prefer),
            ("require", SslMode::Require),
            ("verify-full", SslMode::Require),
        ] {
            // (verify-ca needs a CA file: tests/pg_tls.rs.)
            let (config, _) = settings(&format!("postgres://db/team?sslmode={mode}")).unwrap();
            assert_eq!(config.get_ssl_mode(), expected, "{mode}");
        }
        // Without an sslmode: require, unless every host is this computer.
        for (url, mode) in [
            ("host=db", SslMode::Require),
            ("postgres://u@db.example.com/team", SslMode::Require),
            ("postgres://u@10.0.0.5:5432/team", SslMode::Require),
            ("postgres://u@127.0.0.1:5432/team", SslMode::Prefer),
            ("postgres://u@[::1]:5432/team", SslMode::Prefer),
            ("postgres://u@localhost/team", SslMode::Prefer),
            ("host=/var/run/postgresql dbname=team", SslMode::Prefer),
            ("host=localhost,db.example.com dbname=team", SslMode::Require),
            ("host=db.example.com hostaddr=127.0.0.1 dbname=team", SslMode::Require),
            ("host=localhost hostaddr=192.0.2.7 dbname=team", SslMode::Require),
            ("postgres://u@db.example.com/team?sslmode=disable", SslMode::Disable),
        ] {
            assert_eq!(settings(url).unwrap().0.get_ssl_mode(), mode, "{url}");
        }
        assert!(settings("postgres://db/x?sslmode=verify").err().unwrap().contains("sslmode=verify is not one of"));
        let unsafe_ca = settings("postgres://db/x?sslmode=verify-ca").err().unwrap();
        assert!(unsafe_ca.contains("verify-ca needs sslrootcert"), "{unsafe_ca}");
        let (config, _) = settings("postgres://u:a?b@db/t?sslmode=require").unwrap();
        assert_eq!((config.get_password(), config.get_ssl_mode()), (Some(&b"a?b"[..]), SslMode::Require));
        let missing = settings("postgres://db/x?sslrootcert=/nonexistent/ca.pem").err().unwrap();
        assert!(missing.starts_with("sslrootcert /nonexistent/ca.pem: "), "{missing}");
    }

    proptest! {
        /// Whatever the values, taking the TLS options out of `key=value` pairs leaves the other
        /// settings as tokio-postgres reads them.
        #[test]
        fn key_values_keep_every_other_setting(
            user in "[^\\x00]{1,20}",
            password in "[^\\x00]{0,20}",
            dbname in "[^\\x00]{1,20}",
            mode in prop::sample::select(vec!["disable", "prefer", "require", "verify-ca", "verify-full"]),
        ) {
            let quote = |v: &str| format!("'{}'", v.replace('\\', "\\\\").replace('\'', "\\'"));
            let url = format!(
                "host=db.example.com user={} sslmode={mode} password={} sslrootcert='/etc/ca.pem' dbname={}",
                quote(&user), quote(&password), quote(&dbname)
            );
            let (rest, found) = take_tls_options(&url).unwrap();
            prop_assert_eq!(found, options(Some(mode), Some("/etc/ca.pem")));
            let config: tokio_postgres::Config = rest.parse().unwrap();
            prop_assert_eq!(config.get_user(), Some(user.as_str()));
            prop_assert_eq!(config.get_password(), Some(password.as_bytes()));
            prop_assert_eq!(config.get_dbname(), Some(dbname.as_str()));
        }

        /// Whatever the values, taking the TLS options out of a URL leaves the other settings as
        /// tokio-postgres reads them.
        #[test]
        fn urls_keep_every_other_setting(
            user in "[a-z]{1,10}",
            password in "[^\\x00]{0,20}",
            dbname in "[a-z]{1,10}",
            name in "[^\\x00]{0,20}",
            mode in prop::sample::select(vec!["disable", "prefer", "require", "verify-full"]),
        ) {
            let encode = |v: &str| percent_encoding::utf8_percent_encode(v, percent_encoding::NON_ALPHANUMERIC).to_string();
            let url = format!(
                "postgres://{user}:{}@db.example.com:5432/{dbname}?application_name={}&sslmode={mode}&sslrootcert=%2Fetc%2Fca.pem",
                encode(&password), encode(&name)
            );
            let (rest, found) = take_tls_options(&url).unwrap();
            prop_assert_eq!(found, options(Some(mode), Some("/etc/ca.pem")));
            let config: tokio_postgres::Config = rest.parse().unwrap();
            prop_assert_eq!(config.get_user(), Some(user.as_str()));
            prop_assert_eq!(config.get_password(), Some(password.as_bytes()));
            prop_assert_eq!(config.get_dbname(), Some(dbname.as_str()));
            prop_assert_eq!(config.get_application_name(), Some(name.as_str()));
        }

        /// Any string is split or refused, never a panic.
        #[test]
        fn any_connection_string_is_split_or_refused(url in "\\PC{0,60}") {
            let _ = take_tls_options(&url);
        }
    }
}
