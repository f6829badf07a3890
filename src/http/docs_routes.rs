//! `/api/docs/*`: documents, their edits and sharing, plus the editor's save and drafts (our
//! additions). Each handler translates; the rules live in `DocService`.


use axum::extract::{RawQuery, State};
use axum::http::StatusCode;
use axum::routing::{get, post};
use axum::{Json, Router};

use crate::auth::Actor;
use crate::docs::model::{DocumentList, DocumentSummary, PatchResult, PermissionList};
use crate::docs::{DocumentEnvelope, SaveEdits, SaveOutcome};
use crate::error::Error;
use crate::http::extract::{json_body, query_params as params, PathParam, RawBody, Staff};
use crate::http::ApiError;
use crate::store::docs::Draft;
use crate::Core;

pub fn routes() -> Router<Core> {
    Router::new()
        .route("/api/docs/documents", get(list).post(create))
        .route("/api/docs/documents/{id}", get(read).patch(patch))
        .route("/api/docs/documents/{id}/permissions", post(share))
        .route("/api/docs/documents/{id}/save", post(save))
        .route("/api/docs/documents/{id}/draft", get(draft).put(put_draft).delete(discard_draft))
}

fn typed_body<T: serde::de::DeserializeOwned>(body: &[u8]) -> Result<T, Error> {
    serde_json::from_value(json_body(body)?).map_err(|e| Error::invalid_field("body", e.to_string()))
}

#[derive(serde::Serialize, utoipa::ToSchema)]
pub struct SummaryEnvelope {
    document: DocumentSummary,
}

#[utoipa::path(get, path = "/api/docs/documents", tag = "docs", security(("bearer" = [])),
    params(("folderId" = Option<String>, Query), ("pageSize" = Option<u32>, Query, description = "1 to 100, default 20"),
           ("pageToken" = Option<String>, Query), ("orderBy" = Option<String>, Query, description = "modifiedTime (default) or createdTime, newest first")),
    responses((status = 200, body = DocumentList), (status = 400, description = "invalid_request"), (status = 401, description = "unauthorized")))]
pub(crate) async fn list(
    State(core): State<Core>,
    _: Staff,
    RawQuery(q): RawQuery,
) -> Result<Json<DocumentList>, ApiError> {
    Ok(Json(core.docs.list(&params(q)?).await?))
}

#[utoipa::path(get, path = "/api/docs/documents/{id}", tag = "docs", security(("bearer" = [])),
    params(("id" = String, Path, description = "the resource's id"), ("suggestionsViewMode" = Option<String>, Query, description = "default SUGGESTIONS_INLINE")),
    responses((status = 200, body = Value, description = "{document, stale?, fetchedAt?}"), (status = 404, description = "not_found")))]
pub(crate) async fn read(
    State(core): State<Core>,
    _: Staff,
    PathParam(id): PathParam<String>,
    RawQuery(q): RawQuery,
) -> Result<Json<DocumentEnvelope>, ApiError> {
    Ok(Json(core.docs.get(&id, &params(q)?).await?))
}

#[utoipa::path(post, path = "/api/docs/documents", tag = "docs", security(("bearer" = [])),
    request_body(content = Value, description = "name (1 to 255), content?, folderId?, permissions?, sendNotificationEmail?"),
    responses((status = 201, body = SummaryEnvelope), (status = 400, description = "invalid_request naming every bad field")))]
pub(crate) async fn create(
    State(core): State<Core>,
    Staff(who): Staff,
    RawBody(body): RawBody,
) -> Result<(StatusCode, Json<SummaryEnvelope>), ApiError> {
    let document = core.docs.create(&Actor::Staff(who), &json_body(&body)?).await?;
    Ok((StatusCode::CREATED, Json(SummaryEnvelope { document })))
}

#[utoipa::path(patch, path = "/api/docs/documents/{id}", tag = "docs", security(("bearer" = [])),
    params(("id" = String, Path, description = "the resource's id")),
    request_body(content = Value, description = "requests (insertText, deleteContentRange, updateParagraphStyle), requiredRevisionId?"),
    responses((status = 200, body = PatchResult), (status = 400, description = "invalid_request"), (status = 409, description = "conflict, with details.currentRevisionId")))]
pub(crate) async fn patch(
    State(core): State<Core>,
    Staff(who): Staff,
    PathParam(id): PathParam<String>,
    RawBody(body): RawBody,
) -> Result<Json<PatchResult>, ApiError> {
    Ok(Json(core.docs.patch(&Actor::Staff(who), &id, &json_body(&body)?).await?))
}

#[utoipa::path(post, path = "/api/docs/documents/{id}/permissions", tag = "docs", security(("bearer" = [])),
    params(("id" = String, Path, description = "the resource's id")),
    request_body(content = Value, description = "permissions (role, type, emailAddress?, domain?), sendNotificationEmail?"),
    responses((status = 200, body = PermissionList), (status = 400, description = "invalid_request")))]
pub(crate) async fn share(
    State(core): State<Core>,
    Staff(who): Staff,
    PathParam(id): PathParam<String>,
    RawBody(body): RawBody,
) -> Result<Json<PermissionList>, ApiError> {
    Ok(Json(core.docs.share(&Actor::Staff(who), &id, &json_body(&body)?).await?))
}

#[utoipa::path(post, path = "/api/docs/documents/{id}/save", tag = "docs", security(("bearer" = [])),
    params(("id" = String, Path, description = "the resource's id")),
    request_body(content = SaveEdits, description = "The editor's blocks against baseRevisionId"),
    responses((status = 200, body = Value, description = "{outcome: saved, document, requests} or {outcome: conflict, document, rebased}"),
              (status = 404, description = "not_found"),
              (status = 409, description = "conflict: the edits were made on a revision this app no longer has (details.currentRevisionId)")))]
pub(crate) async fn save(
    State(core): State<Core>,
    Staff(who): Staff,
    PathParam(id): PathParam<String>,
    RawBody(body): RawBody,
) -> Result<Json<SaveOutcome>, ApiError> {
    Ok(Json(core.docs.save(&Actor::Staff(who), &id, typed_body(&body)?).await?))
}

#[utoipa::path(get, path = "/api/docs/documents/{id}/draft", tag = "docs", security(("bearer" = [])),
    params(("id" = String, Path, description = "the resource's id")),
    responses((status = 200, body = Draft), (status = 404, description = "no draft")))]
pub(crate) async fn draft(
    State(core): State<Core>,
    Staff(who): Staff,
    PathParam(id): PathParam<String>,
) -> Result<Json<Draft>, ApiError> {
    match core.docs.draft(&Actor::Staff(who), &id).await? {
        Some(draft) => Ok(Json(draft)),
        None => Err(Error::not_found("This document has no unsaved edits").into()),
    }
}

#[utoipa::path(put, path = "/api/docs/documents/{id}/draft", tag = "docs", security(("bearer" = [])),
    params(("id" = String, Path, description = "the resource's id")),
    request_body(content = SaveEdits), responses((status = 200, body = Draft), (status = 404, description = "not_found"),
        (status = 409, description = "conflict: the edits were made on a revision this app no longer has (details.currentRevisionId)")))]
pub(crate) async fn put_draft(
    State(core): State<Core>,
    Staff(who): Staff,
    PathParam(id): PathParam<String>,
    RawBody(body): RawBody,
) -> Result<Json<Draft>, ApiError> {
    Ok(Json(core.docs.save_draft(&Actor::Staff(who), &id, typed_body(&body)?).await?))
}

#[utoipa::path(delete, path = "/api/docs/documents/{id}/draft", tag = "docs", security(("bearer" = [])),
    params(("id" = String, Path, description = "the resource's id")),
    responses((status = 204, description = "dropped")))]
pub(crate) async fn discard_draft(
    State(core): State<Core>,
    Staff(who): Staff,
    PathParam(id): PathParam<String>,
) -> Result<StatusCode, ApiError> {
    core.docs.discard_draft(&Actor::Staff(who), &id).await?;
    Ok(StatusCode::NO_CONTENT)
}
