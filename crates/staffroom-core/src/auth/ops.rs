//! The operations of staff accounts: signing in and out over HTTP, the first admin's set-up on
//! the desktop, and the accounts admins manage.

pub use staffroom_auth::requests::*;

use super::{AuthResponse, UserDto};
use crate::api::{Access, Caller, ErrorStyle, NoInput, OpSpec, Operation, Route, NO_WINDOW};
use crate::auth::LoginInput;
use crate::error::Result;
use crate::Core;

const NO_ACCOUNT: &[(u16, &str)] = &[(404, "not_found: no account with this email")];

pub struct SignIn;
impl Operation for SignIn {
    const SPEC: OpSpec = OpSpec::new("sign_in", "auth", "Signs in: a token for the session it starts")
        .route(Route::post("/api/auth").errors(ErrorStyle::SignIn))
        .access(Access::Public)
        .windows(NO_WINDOW)
        .errors(&[
            (401, "INVALID_CREDENTIALS: the email or password is wrong"),
            (422, "errors[] naming each bad field"),
            (429, "RATE_LIMITED: too many failed sign-ins, with Retry-After"),
        ]);
    type Request = LoginInput;
    type Response = AuthResponse;
    async fn run(core: &Core, caller: &Caller, request: LoginInput) -> Result<AuthResponse> {
        Ok(core.auth.login(request, &caller.address).await?)
    }
}

pub struct RefreshToken;
impl Operation for RefreshToken {
    const SPEC: OpSpec =
        OpSpec::new("refresh_token", "auth", "A fresh token for the session; the one before stops working")
            .route(Route::post("/api/auth/refresh").errors(ErrorStyle::Session))
            .access(Access::Token)
            .windows(NO_WINDOW)
            .errors(&[(401, "INVALID_TOKEN: the session has ended")]);
    type Request = NoInput;
    type Response = AuthResponse;
    async fn run(core: &Core, caller: &Caller, _: NoInput) -> Result<AuthResponse> {
        core.auth.refresh(caller.token()?).await
    }
}

/// "Keep me signed in" on a team server: the desktop keeps its latest token across restarts, by
/// which time that token has usually expired. The session behind it may still be live.
pub struct ResumeSession;
impl Operation for ResumeSession {
    const SPEC: OpSpec = OpSpec::new(
        "resume_session",
        "auth",
        "A fresh token for a live session whose token may have expired (a desktop's \"keep me signed in\"); the one before stops working",
    )
    .route(Route::post("/api/auth/resume").errors(ErrorStyle::Session))
    .access(Access::Token)
    .windows(NO_WINDOW)
    .errors(&[(401, "INVALID_TOKEN: the session has ended (signed out, idle too long, past its 12 hours, or its user disabled)")]);
    type Request = NoInput;
    type Response = AuthResponse;
    async fn run(core: &Core, caller: &Caller, _: NoInput) -> Result<AuthResponse> {
        core.auth.resume(caller.token()?).await
    }
}

pub struct SignOut;
impl Operation for SignOut {
    const SPEC: OpSpec = OpSpec::new("sign_out", "auth", "Ends the session at once")
        .route(Route::post("/api/auth/logout").status(204).errors(ErrorStyle::Session))
        .access(Access::Token)
        .windows(NO_WINDOW)
        .errors(&[(401, "INVALID_TOKEN: the session has already ended")]);
    type Request = NoInput;
    type Response = ();
    async fn run(core: &Core, caller: &Caller, _: NoInput) -> Result<()> {
        core.auth.logout(caller.token()?).await
    }
}

pub struct Me;
impl Operation for Me {
    const SPEC: OpSpec =
        OpSpec::new("me", "auth", "The signed-in staff member").route(Route::get("/api/auth/me")).windows(NO_WINDOW);
    type Request = NoInput;
    type Response = MeResponse;
    async fn run(_: &Core, caller: &Caller, _: NoInput) -> Result<MeResponse> {
        let who = caller.identity.as_ref().ok_or_else(crate::api::signed_out)?;
        Ok(MeResponse { user: UserDto::from(who) })
    }
}

pub struct CreateFirstAdmin;
impl Operation for CreateFirstAdmin {
    const SPEC: OpSpec = OpSpec::new(
        "create_first_admin",
        "users",
        "The first account, an admin, on a Staffroom that has none (the desktop's first run)",
    )
    .access(Access::Public)
    .errors(&[(409, "conflict: Staffroom already has accounts")]);
    type Request = NewAccount;
    type Response = UserDto;
    async fn run(core: &Core, _: &Caller, request: NewAccount) -> Result<UserDto> {
        core.auth.create_first_admin(request.email, request.name, request.password).await
    }
}

pub struct ListUsers;
impl Operation for ListUsers {
    const SPEC: OpSpec =
        OpSpec::new("list_users", "users", "Every staff account, and whether it is disabled or locked")
            .route(Route::get("/api/users"))
            .access(Access::Admin);
    type Request = NoInput;
    type Response = Vec<UserDto>;
    async fn run(core: &Core, caller: &Caller, _: NoInput) -> Result<Vec<UserDto>> {
        core.auth.list_users(&caller.actor()?).await
    }
}

pub struct AddUser;
impl Operation for AddUser {
    const SPEC: OpSpec = OpSpec::new("add_user", "users", "Adds a staff account")
        .route(Route::post("/api/users").status(201))
        .access(Access::Admin);
    type Request = NewAccount;
    type Response = UserDto;
    async fn run(core: &Core, caller: &Caller, request: NewAccount) -> Result<UserDto> {
        core.auth.add_user(&caller.actor()?, request.into()).await
    }
}

pub struct SetUserDisabled;
impl Operation for SetUserDisabled {
    const SPEC: OpSpec = OpSpec::new(
        "set_user_disabled",
        "users",
        "Disables an account (signing it out everywhere) or enables it again",
    )
    .route(Route::patch("/api/users/{email}"))
    .access(Access::Admin)
    .errors(&[
        (404, "not_found: no account with this email"),
        (409, "conflict: an admin cannot disable their own account"),
    ]);
    type Request = SetDisabledRequest;
    type Response = UserDto;
    async fn run(core: &Core, caller: &Caller, request: SetDisabledRequest) -> Result<UserDto> {
        core.auth.set_disabled(&caller.actor()?, &request.email, request.disabled).await
    }
}

pub struct UnlockUser;
impl Operation for UnlockUser {
    const SPEC: OpSpec = OpSpec::new("unlock_user", "users", "Lifts every sign-in lock of an account")
        .route(Route::post("/api/users/{email}/unlock"))
        .access(Access::Admin)
        .errors(NO_ACCOUNT);
    type Request = AccountRequest;
    type Response = UserDto;
    async fn run(core: &Core, caller: &Caller, request: AccountRequest) -> Result<UserDto> {
        core.auth.unlock(&caller.actor()?, &request.email).await
    }
}
