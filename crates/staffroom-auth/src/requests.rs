//! What staff send the account operations (signing in, the first admin, the accounts admins
//! manage), each request with its bounds declared once; the operations themselves are declared
//! in the core.

use serde::Serialize;
use staffroom_macros::request;

use crate::store::Role;
use crate::validate;
use crate::{NewUser, UserDto};
use staffroom_base::request::Fields;
use staffroom_base::secrets::Secret;

/// `GET /api/auth/me`: the signed-in staff member.
#[derive(Debug, Clone, Serialize, serde::Deserialize, ts_rs::TS, utoipa::ToSchema)]
pub struct MeResponse {
    pub user: UserDto,
}

/// A new account, or the first admin (whose role is admin whatever is asked).
#[request]
#[derive(Debug, Clone, Serialize, ts_rs::TS, utoipa::ToSchema)]
pub struct NewAccount {
    #[schema(format = Email, max_length = 254)]
    #[field(text)]
    pub email: String,
    /// 1 to 100 characters.
    #[schema(min_length = 1, max_length = 100)]
    #[field(text)]
    pub name: String,
    /// `staff` when absent.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional = nullable)]
    #[field(with = role)]
    pub role: Option<Role>,
    /// 15 to 128 characters, not a common or easily guessed one.
    #[schema(value_type = String, format = Password, min_length = 15, max_length = 128)]
    #[serde(serialize_with = "staffroom_base::secrets::serialize_exposed")]
    #[ts(type = "string")]
    #[field(with = password)]
    pub password: Secret,
}

/// An account's role, if one is asked for. The rules of the other fields are the account
/// service's, which names every broken one.
fn role(fields: &mut Fields) -> Option<Role> {
    match fields.choice("role", &["admin", "staff"]) {
        Some("admin") => Some(Role::Admin),
        Some(_) => Some(Role::Staff),
        None => None,
    }
}

/// A required password, kept as a secret from the moment it is read.
fn password(fields: &mut Fields) -> Secret {
    Secret::new(fields.required_string("password").unwrap_or_default())
}

impl From<NewAccount> for NewUser {
    fn from(account: NewAccount) -> Self {
        NewUser {
            email: account.email,
            name: account.name,
            role: account.role.unwrap_or(Role::Staff),
            password: account.password,
        }
    }
}

/// A request naming an account by its email.
#[request]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, ts_rs::TS, utoipa::ToSchema)]
pub struct AccountRequest {
    #[field(rule = validate::EMAIL)]
    pub email: String,
}

/// `PATCH /api/users/{email}`: disables or re-enables an account.
#[request]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, ts_rs::TS, utoipa::ToSchema)]
pub struct SetDisabledRequest {
    #[field(rule = validate::EMAIL)]
    pub email: String,
    #[field(flag)]
    pub disabled: bool,
}
