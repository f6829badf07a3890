//! Who does something: a signed-in staff member, the command line, or Staffroom itself; for
//! permission checks and the audit log.

use serde::Serialize;
use serde_json::json;

use crate::store::Role;
use staffroom_base::error::{Error, ErrorCode, Result};

/// Who is calling: a signed-in staff member, from a verified token and a live session.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct StaffIdentity {
    pub user_id: String,
    pub session_id: String,
    pub email: String,
    pub name: String,
    pub role: Role,
}

/// Who does something, for permission checks and the audit log.
#[derive(Debug, Clone)]
pub enum Actor {
    /// A signed-in staff member.
    Staff(StaffIdentity),
    /// Someone at this machine's command line (trusted like the machine's owner).
    Cli,
    /// Staffroom itself (sandbox seeding, background sync).
    System,
}

impl Actor {
    /// The name written in the audit log.
    pub fn audit_name(&self) -> &str {
        match self {
            Actor::Staff(who) => &who.email,
            Actor::Cli => "cli",
            Actor::System => "system",
        }
    }

    /// Fails unless the actor may manage users and settings.
    pub fn require_admin(&self) -> Result<()> {
        match self {
            // Signed in, but not allowed: `forbidden`, so a client tells it from "signed out".
            Actor::Staff(who) if who.role != Role::Admin => {
                Err(Error::new(ErrorCode::Forbidden, "Only an admin can do this")
                    .with_details(json!({ "requiredRole": "admin" })))
            }
            _ => Ok(()),
        }
    }
}
