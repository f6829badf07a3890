//! Every operation of the product, declared once.
//!
//! An operation is a type implementing [`Operation`]: its [`OpSpec`] (name, HTTP route, who may
//! call it, which desktop windows may), its request and response types, and the core function it
//! runs. [`operations`] lists them all. Everything else is derived from that list: the HTTP
//! routes (`http::ops`), the OpenAPI document (`http::openapi`), the desktop's one `call`
//! command with its window check and capability files, and the UI's typed client
//! (`ui/src/bindings/ops.ts`). docs/ARCHITECTURE.md follows one operation through all of them.

mod list;

use std::future::Future;
use std::pin::Pin;
use std::collections::{HashMap, HashSet};
use std::sync::{Arc, LazyLock, Mutex};

use serde::Serialize;
use serde_json::Value;

use crate::auth::{Actor, StaffIdentity};
use crate::bindings::Bindings;
use crate::error::{Error, Result};
use crate::Core;

pub use staffroom_base::request::{search, Fields, Input, NoInput, Request, MAX_NUMBER};

/// Who may call an operation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Access {
    /// Anyone: signing in, the first admin's set-up.
    Public,
    /// Whoever holds a bearer token, which the operation checks itself (refresh, sign-out).
    Token,
    /// A signed-in staff member.
    Staff,
    /// A signed-in admin; staff get `forbidden`.
    Admin,
}

/// An HTTP method of a route.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Method {
    Get,
    Post,
    Put,
    Patch,
    Delete,
}

impl Method {
    /// Whether the request's fields travel in the query string rather than a JSON body.
    pub fn reads_query(self) -> bool {
        matches!(self, Method::Get | Method::Delete)
    }
}

/// How an operation's refusals look over HTTP: the error object, or the sign-in endpoint's own
/// bodies (SPEC section 2: `INVALID_CREDENTIALS`, `errors[]`, `RATE_LIMITED`, `INVALID_TOKEN`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ErrorStyle {
    Standard,
    /// `POST /api/auth`.
    SignIn,
    /// Refresh and sign-out: a dead token is `INVALID_TOKEN`.
    Session,
}

/// Where an operation lives on the HTTP service.
#[derive(Debug, Clone, Copy)]
pub struct Route {
    pub method: Method,
    /// The path, with `{name}` for each path parameter (a field of the request).
    pub path: &'static str,
    /// The status of a success: 200, 201 for a create, 204 when there is nothing to answer.
    pub status: u16,
    pub errors: ErrorStyle,
}

impl Route {
    const fn new(method: Method, path: &'static str) -> Route {
        Route { method, path, status: 200, errors: ErrorStyle::Standard }
    }
    pub const fn get(path: &'static str) -> Route {
        Route::new(Method::Get, path)
    }
    pub const fn post(path: &'static str) -> Route {
        Route::new(Method::Post, path)
    }
    pub const fn put(path: &'static str) -> Route {
        Route::new(Method::Put, path)
    }
    pub const fn patch(path: &'static str) -> Route {
        Route::new(Method::Patch, path)
    }
    pub const fn delete(path: &'static str) -> Route {
        Route::new(Method::Delete, path)
    }
    /// The same route answering `status` on success.
    pub const fn status(self, status: u16) -> Route {
        Route { status, ..self }
    }
    /// The same route with the sign-in endpoint's error bodies.
    pub const fn errors(self, errors: ErrorStyle) -> Route {
        Route { errors, ..self }
    }

    /// The names of the path's parameters, in order.
    pub fn path_params(&self) -> Vec<&'static str> {
        self.path.split('/').filter_map(|part| part.strip_prefix('{')?.strip_suffix('}')).collect()
    }

    /// How a client sends `input` on this route, the inverse of how the HTTP door reads it:
    /// the path with its parameters filled in (percent-encoded), then the other fields as the
    /// query string (GET, DELETE) or a JSON body.
    pub fn encode(&self, input: &Input) -> EncodedRequest {
        let text = |value: &Value| match value {
            Value::String(s) => s.clone(),
            other => other.to_string(),
        };
        let names = self.path_params();
        let path = self
            .path
            .split('/')
            .map(|part| match part.strip_prefix('{').and_then(|p| p.strip_suffix('}')) {
                Some(name) => {
                    let value = input.get(name).map(text).unwrap_or_default();
                    url::form_urlencoded::byte_serialize(value.as_bytes()).collect::<String>().replace('+', "%20")
                }
                None => part.to_string(),
            })
            .collect::<Vec<_>>()
            .join("/");
        let rest = input.iter().filter(|(name, value)| !names.contains(&name.as_str()) && !value.is_null());
        if self.method.reads_query() {
            let query = rest.map(|(name, value)| (name.clone(), text(value))).collect();
            EncodedRequest { path, query, body: None }
        } else {
            let body: Input = rest.map(|(name, value)| (name.clone(), value.clone())).collect();
            EncodedRequest { path, query: Vec::new(), body: (!body.is_empty()).then_some(Value::Object(body)) }
        }
    }
}

/// A request as it goes over HTTP.
#[derive(Debug, Clone, PartialEq)]
pub struct EncodedRequest {
    pub path: String,
    pub query: Vec<(String, String)>,
    pub body: Option<Value>,
}

/// A kind of desktop window.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Window {
    /// The main window (label `main`).
    Main,
    /// A document's editor window (labels `editor-<document id>`).
    Editor,
}

impl Window {
    /// The capability (and its file name) of this kind of window.
    pub fn capability(self) -> &'static str {
        match self {
            Window::Main => "main",
            Window::Editor => "editor",
        }
    }

    /// The window labels it covers, as a capability names them.
    pub fn labels(self) -> &'static str {
        match self {
            Window::Main => "main",
            Window::Editor => "editor-*",
        }
    }

    /// The kind of the window labelled `label`, if any.
    pub fn of_label(label: &str) -> Option<Window> {
        match label {
            "main" => Some(Window::Main),
            _ if label.starts_with("editor-") => Some(Window::Editor),
            _ => None,
        }
    }
}

/// Desktop windows: the main one only, both, or none (an HTTP-only operation).
pub const MAIN: &[Window] = &[Window::Main];
pub const EDITOR: &[Window] = &[Window::Editor];
pub const MAIN_AND_EDITOR: &[Window] = &[Window::Main, Window::Editor];
pub const NO_WINDOW: &[Window] = &[];

/// What an operation is: its declaration.
#[derive(Debug, Clone, Copy)]
pub struct OpSpec {
    /// Its one name: the desktop's operation name, the OpenAPI `operationId`, the client's key.
    pub name: &'static str,
    /// One line for people (the OpenAPI summary).
    pub summary: &'static str,
    /// Its area: `auth`, `users`, `payments`, `docs`, `settings`.
    pub tag: &'static str,
    /// Where it is served over HTTP; `None` for a desktop-only operation.
    pub route: Option<Route>,
    pub access: Access,
    /// The desktop windows that may call it; none for an HTTP-only operation.
    pub windows: &'static [Window],
    /// What it may refuse with beyond what every operation may (bad input, signed out, a
    /// provider's failure): status and meaning, for the OpenAPI document.
    pub errors: &'static [(u16, &'static str)],
}

impl OpSpec {
    /// A staff operation of the main window with no route yet; fill in the rest.
    pub const fn new(name: &'static str, tag: &'static str, summary: &'static str) -> OpSpec {
        OpSpec { name, summary, tag, route: None, access: Access::Staff, windows: MAIN, errors: &[] }
    }
    pub const fn route(self, route: Route) -> OpSpec {
        OpSpec { route: Some(route), ..self }
    }
    pub const fn access(self, access: Access) -> OpSpec {
        OpSpec { access, ..self }
    }
    pub const fn windows(self, windows: &'static [Window]) -> OpSpec {
        OpSpec { windows, ..self }
    }
    pub const fn errors(self, errors: &'static [(u16, &'static str)]) -> OpSpec {
        OpSpec { errors, ..self }
    }
}

/// Who calls, as the door established it: the signed-in staff member (for staff and admin
/// operations), the bearer token, and the client's address (for sign-in throttling).
#[derive(Debug, Clone)]
pub struct Caller {
    pub identity: Option<StaffIdentity>,
    pub token: Option<String>,
    pub address: String,
}

impl Caller {
    /// The signed-in staff member as an actor of the core's services.
    pub fn actor(&self) -> Result<Actor> {
        self.identity.clone().map(Actor::Staff).ok_or_else(signed_out)
    }

    /// The bearer token.
    pub fn token(&self) -> Result<&str> {
        self.token.as_deref().ok_or_else(signed_out)
    }
}

/// The refusal of a call without a live session, the same at both doors.
pub fn signed_out() -> Error {
    Error::unauthorized("Sign in first")
}

/// One operation of the product.
pub trait Operation: Send + Sync + 'static {
    const SPEC: OpSpec;
    type Request: Request;
    type Response: Serialize + ts_rs::TS + utoipa::ToSchema + Send + 'static;

    /// Runs it: the request is already read and checked, and the caller allowed.
    fn run(core: &Core, caller: &Caller, request: Self::Request)
        -> impl Future<Output = Result<Self::Response>> + Send;

    /// The HTTP status of this answer when it is not the route's (a change that waits: 202).
    fn status(_response: &Self::Response) -> Option<u16> {
        None
    }
}

/// An operation's answer: its response as JSON, and its HTTP status when not the route's.
#[derive(Debug, Clone, PartialEq)]
pub struct Answer {
    pub status: Option<u16>,
    pub body: Value,
}

/// A boxed future, for the type-erased operations.
pub type BoxFuture<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;

/// The request and response types of an operation, for its documents: the OpenAPI schemas and
/// the TypeScript bindings.
#[derive(Clone, Copy)]
pub struct OpTypes {
    /// Adds both types' bindings (and those they refer to).
    pub bindings: fn(Bindings) -> Bindings,
    /// Their TypeScript names.
    pub ts_names: fn() -> (String, String),
    /// The TypeScript types those names use, with their files (relative to the bindings folder).
    pub ts_imports: fn() -> Vec<(String, std::path::PathBuf)>,
    /// Their OpenAPI schemas (`request`, `response`), with every schema they refer to.
    pub schemas: fn() -> OpSchemas,
    /// Whether the operation takes no input at all.
    pub no_input: fn() -> bool,
    /// Reads and checks an input as the operation does, keeping only the verdict (for the test
    /// that every parser accepts and refuses what its schema does).
    pub read: fn(&Input) -> Result<()>,
}

/// A schema, or a reference to one of the document's components.
pub type SchemaRef = utoipa::openapi::RefOr<utoipa::openapi::schema::Schema>;

/// An operation's OpenAPI schemas: its request's and response's (none for an empty answer),
/// and the named schemas they refer to.
pub struct OpSchemas {
    pub request: SchemaRef,
    pub response: Option<SchemaRef>,
    pub components: Vec<(String, SchemaRef)>,
}

impl OpTypes {
    /// The types of requests `Q` answered with `S`.
    pub fn of<Q: Request, S: Serialize + ts_rs::TS + utoipa::ToSchema + 'static>() -> OpTypes {
        OpTypes {
            bindings: |bindings| bindings.add::<Q>().add::<S>(),
            ts_names: || {
                let config = crate::bindings::config();
                (<Q as ts_rs::TS>::name(&config), <S as ts_rs::TS>::name(&config))
            },
            ts_imports: || {
                let mut imports = crate::bindings::imports_of::<Q>();
                imports.extend(crate::bindings::imports_of::<S>());
                imports
            },
            schemas: || {
                let mut components = Vec::new();
                Q::schemas(&mut components);
                S::schemas(&mut components);
                let is_unit = std::any::TypeId::of::<S>() == std::any::TypeId::of::<()>();
                OpSchemas { request: Q::schema(), response: (!is_unit).then(S::schema), components }
            },
            no_input: || std::any::TypeId::of::<Q>() == std::any::TypeId::of::<NoInput>(),
            read: |input| Q::from_input(input).map(drop),
        }
    }
}

impl OpTypes {
    /// Parameters that came as text (a query string's, a path's) typed as the request's schema
    /// types them, as OpenAPI reads such a parameter: a whole number where the schema says
    /// `integer`, `true` or `false` where it says `boolean`, anything else as the text it is (for
    /// the request to refuse by name).
    pub fn text_input(&self, params: impl IntoIterator<Item = (String, String)>) -> Input {
        let types = self.text_types();
        params
            .into_iter()
            .map(|(name, text)| {
                let is_whole = !text.is_empty() && text.strip_prefix('-').unwrap_or(&text).bytes().all(|b| b.is_ascii_digit());
                let value = if types.integers.contains(&name) && is_whole {
                    text.parse::<i64>().map(Value::from).unwrap_or(Value::String(text))
                } else if types.booleans.contains(&name) && (text == "true" || text == "false") {
                    Value::Bool(text == "true")
                } else {
                    Value::String(text)
                };
                (name, value)
            })
            .collect()
    }

    /// Which of the request's fields its schema types as integers and as booleans: worked out
    /// once per request type (a door asks on every query), keyed by the schema function.
    fn text_types(&self) -> Arc<TextTypes> {
        static KNOWN: LazyLock<Mutex<HashMap<usize, Arc<TextTypes>>>> = LazyLock::new(Default::default);
        let key = self.schemas as usize;
        if let Some(known) = KNOWN.lock().unwrap_or_else(|e| e.into_inner()).get(&key) {
            return known.clone();
        }
        let schemas = (self.schemas)();
        let json = |schema: &SchemaRef| serde_json::to_value(schema).unwrap_or_default();
        let components: HashMap<String, Value> =
            schemas.components.iter().map(|(name, schema)| (format!("#/components/schemas/{name}"), json(schema))).collect();
        let resolve = |schema: &Value| match schema.get("$ref").and_then(Value::as_str) {
            Some(reference) => components.get(reference).cloned().unwrap_or_default(),
            None => schema.clone(),
        };
        let request = resolve(&json(&schemas.request));
        let mut types = TextTypes::default();
        for (name, property) in request["properties"].as_object().into_iter().flatten() {
            let property = resolve(property);
            let says = |kind: &str| match &property["type"] {
                Value::String(t) => t == kind,
                Value::Array(ts) => ts.iter().any(|t| t == kind),
                _ => false,
            };
            if says("integer") {
                types.integers.insert(name.clone());
            }
            if says("boolean") {
                types.booleans.insert(name.clone());
            }
        }
        let types = Arc::new(types);
        KNOWN.lock().unwrap_or_else(|e| e.into_inner()).insert(key, types.clone());
        types
    }
}

/// The fields of a request that text is typed for.
#[derive(Default)]
struct TextTypes {
    integers: HashSet<String>,
    booleans: HashSet<String>,
}

/// An operation with its type erased: what the list holds and the doors call.
pub struct OpEntry {
    pub spec: OpSpec,
    pub types: OpTypes,
    run: for<'a> fn(&'a Core, &'a Caller, Input) -> BoxFuture<'a, Result<Answer>>,
}

impl OpEntry {
    /// The entry of operation `O`.
    pub fn of<O: Operation>() -> OpEntry {
        OpEntry { spec: O::SPEC, types: OpTypes::of::<O::Request, O::Response>(), run: run_erased::<O> }
    }

    /// Reads and checks `input`, then runs the operation for an authorized `caller`.
    pub async fn call(&self, core: &Core, caller: &Caller, input: Input) -> Result<Answer> {
        (self.run)(core, caller, input).await
    }
}

fn run_erased<'a, O: Operation>(core: &'a Core, caller: &'a Caller, input: Input) -> BoxFuture<'a, Result<Answer>> {
    Box::pin(async move {
        let request = O::Request::from_input(&input)?;
        let response = O::run(core, caller, request).await?;
        let status = O::status(&response);
        let body = serde_json::to_value(&response).map_err(|e| Error::internal("answer", e))?;
        Ok(Answer { status, body })
    })
}

/// Every operation of the core, in the order the documents list them.
pub fn operations() -> &'static [OpEntry] {
    static OPERATIONS: LazyLock<Vec<OpEntry>> = LazyLock::new(list::operations);
    &OPERATIONS
}

/// The operation called `name`.
pub fn find(name: &str) -> Option<&'static OpEntry> {
    operations().iter().find(|entry| entry.spec.name == name)
}

/// Calls an operation as a door does: checks who calls against its access (before reading any
/// input, so a stranger learns nothing of the input's rules), then reads and checks the input
/// and runs it. `token` is the caller's bearer token, `address` where the call comes from.
pub async fn dispatch(
    core: &Core,
    entry: &OpEntry,
    token: Option<&str>,
    address: &str,
    input: Input,
) -> Result<Answer> {
    let caller = authorize(core, entry, token, address).await?;
    entry.call(core, &caller, input).await
}

/// Checks the caller of `entry` against its access: the staff member a token names, and their
/// role for an admin operation.
pub async fn authorize(core: &Core, entry: &OpEntry, token: Option<&str>, address: &str) -> Result<Caller> {
    let identity = match entry.spec.access {
        Access::Public => None,
        Access::Token => {
            token.ok_or_else(signed_out)?;
            None
        }
        Access::Staff | Access::Admin => {
            let who = core.auth.authenticate(token.ok_or_else(signed_out)?).await?;
            if entry.spec.access == Access::Admin {
                Actor::Staff(who.clone()).require_admin()?;
            }
            Some(who)
        }
    };
    Ok(Caller { identity, token: token.map(str::to_owned), address: address.to_owned() })
}
