//! Validation of sign-in requests and account fields: every bad field is named at once.

use staffroom_macros::request;
use staffroom_base::secrets::Secret;

/// Longest email accepted (RFC 5321's path limit less the angle brackets).
pub const MAX_EMAIL_LEN: usize = 254;
/// Longest password accepted at sign-in, in bytes, checked before any hashing.
pub const MAX_LOGIN_PASSWORD_BYTES: usize = 1024;
/// Longest display name.
pub const MAX_NAME_CHARS: usize = 100;

/// `POST /api/auth`: a sign-in.
// SPEC section 3: a plausible address of at most 254 characters, a password of at most 1,024
// bytes, checked before any hashing.
#[request]
#[derive(Debug, Clone, serde::Serialize, ts_rs::TS, utoipa::ToSchema)]
pub struct LoginInput {
    #[field(rule = EMAIL)]
    pub email: String,
    #[field(min_length = 1, max_length = 1024, check = fits_login_limit, message = "must be 1 to 1,024 bytes")]
    #[schema(value_type = String, format = Password)]
    #[serde(serialize_with = "staffroom_base::secrets::serialize_exposed")]
    #[ts(type = "string")]
    pub password: Secret,
}

/// Whether a password given at sign-in is short enough to hash: SPEC counts bytes, where a
/// schema counts characters.
fn fits_login_limit(password: &str) -> bool {
    password.len() <= MAX_LOGIN_PASSWORD_BYTES
}

/// An e-mail address as staff type it: [`is_plausible_email`], which admits internationalized
/// addresses (RFC 6531), so its schema says JSON Schema's `idn-email`.
pub const EMAIL: staffroom_base::request::TextRule = staffroom_base::request::TextRule {
    check: is_plausible_email,
    message: "is not a valid email address",
    formats: &["idn-email"],
    max_length: Some(MAX_EMAIL_LEN),
};

/// Whether `email` looks like a deliverable address: one `@`, a local part of at most 64 bytes,
/// a dotted domain of letters, digits and hyphens, no spaces or control characters.
pub fn is_plausible_email(email: &str) -> bool {
    if email.len() > MAX_EMAIL_LEN {
        return false;
    }
    let Some((local, domain)) = email.split_once('@') else { return false };
    if local.is_empty() || local.len() > 64 || domain.contains('@') {
        return false;
    }
    if local.chars().any(|c| c.is_control() || c.is_whitespace() || "\"(),:;<>[\\]".contains(c))
        || local.starts_with('.')
        || local.ends_with('.')
        || local.contains("..")
    {
        return false;
    }
    let labels: Vec<&str> = domain.split('.').collect();
    labels.len() >= 2
        && labels.iter().all(|label| {
            !label.is_empty()
                && label.len() <= 63
                && !label.starts_with('-')
                && !label.ends_with('-')
                && label.chars().all(|c| c.is_alphanumeric() || c == '-')
        })
}

/// Checks an email field, returning the problem to report.
pub fn email_problem(email: &str) -> Option<&'static str> {
    if email.trim().is_empty() {
        Some("is required")
    } else if email.len() > MAX_EMAIL_LEN {
        Some("must be at most 254 characters")
    } else if !is_plausible_email(email) {
        Some("is not a valid email address")
    } else {
        None
    }
}

/// Checks a display name.
pub fn name_problem(name: &str) -> Option<&'static str> {
    let trimmed = name.trim();
    if trimmed.is_empty() {
        Some("is required")
    } else if trimmed.chars().count() > MAX_NAME_CHARS {
        Some("must be at most 100 characters")
    } else if trimmed.chars().any(char::is_control) {
        Some("must not contain control characters")
    } else {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::Value;
    use staffroom_base::error::FieldError;
    use proptest::prelude::*;
    use serde_json::json;

    #[test]
    fn plausible_emails() {
        for good in ["a@b.co", "first.last+tag@example.co.uk", "ünï@exämple.de", "x_y-z@sub-domain.example.com"] {
            assert!(is_plausible_email(good), "{good}");
        }
        for bad in [
            "",
            "plain",
            "@example.com",
            "a@",
            "a@b",
            "a@@b.com",
            "a b@c.com",
            "a@b..com",
            ".a@b.com",
            "a@-b.com",
            "a@b.com\n",
            "a\u{0}@b.com",
            "a@b_c.com",
        ] {
            assert!(!is_plausible_email(bad), "{bad:?}");
        }
        assert!(!is_plausible_email(&format!("{}@example.com", "a".repeat(65))));
        assert!(!is_plausible_email(&format!("a@{}.com", "b".repeat(250))));
    }

    fn login_input(body: &Value) -> Result<LoginInput, Vec<FieldError>> {
        use staffroom_base::request::Request;
        LoginInput::from_input(body.as_object().expect("an object")).map_err(|error| {
            serde_json::from_value(error.details.expect("fields")["fields"].clone()).expect("field errors")
        })
    }

    #[test]
    fn every_bad_field_is_named() {
        let fields =
            |body: Value| -> Vec<String> { login_input(&body).unwrap_err().into_iter().map(|e| e.field).collect() };
        assert_eq!(fields(json!({})), ["email", "password"]);
        assert_eq!(fields(json!({"email": 3, "password": false})), ["email", "password"]);
        assert_eq!(fields(json!({"email": "nope", "password": "x"})), ["email"]);
        assert_eq!(fields(json!({"email": "a@b.co", "password": "x".repeat(1025)})), ["password"]);
        assert_eq!(fields(json!({"email": format!("{}@b.co", "a".repeat(260)), "password": "x"})), ["email"]);
        // Bytes, not characters: 600 two-byte characters are too many.
        assert_eq!(fields(json!({"email": "a@b.co", "password": "é".repeat(600)})), ["password"]);
        assert!(login_input(&json!({"email": "a@b.co", "password": "x".repeat(1024)})).is_ok());
    }

    proptest! {
        #[test]
        fn never_panics_on_any_json(email in any::<Option<String>>(), password in any::<Option<String>>(), n in any::<i64>()) {
            let mut body = serde_json::Map::new();
            if let Some(e) = email { body.insert("email".into(), e.into()); }
            if let Some(p) = password { body.insert("password".into(), p.into()); }
            body.insert("extra".into(), n.into());
            let _ = login_input(&Value::Object(body));
        }

        #[test]
        fn accepted_emails_are_short_and_single_at(s in "\\PC{0,300}") {
            if is_plausible_email(&s) {
                prop_assert!(s.len() <= MAX_EMAIL_LEN);
                prop_assert_eq!(s.matches('@').count(), 1);
                prop_assert!(!s.chars().any(char::is_whitespace));
            }
        }
    }
}
