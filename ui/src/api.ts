// Typed wrappers over the desktop commands. Every rejection is the core's error object.
import { invoke } from "@tauri-apps/api/core";
import type {
  ApiError, AppInfo, AuditEntry, AuditRetention, SignedIn, DocumentList, Draft, EditBlock, EditorView, SaveOutcome, DocumentSummary, Folder, GoogleStatus, InboxEntry, Order, PageMeta,
  Permission, Product, ReceiverStatus, SettingsView, Subscription, SubscriptionActionResult, SyncStatus, User,
} from "./types";

function isApiError(value: unknown): value is ApiError {
  return typeof value === "object" && value !== null && "code" in value && "message" in value;
}

/** Calls a command; anything thrown becomes an ApiError. */
async function call<T>(command: string, args?: Record<string, unknown>): Promise<T> {
  try {
    return await invoke<T>(command, args);
  } catch (error) {
    if (isApiError(error)) throw error;
    const message = typeof error === "string" ? error : "The app did not answer; restart Staffroom";
    throw { code: "internal", message } satisfies ApiError;
  }
}

export const api = {
  appInfo: () => call<AppInfo>("app_info"),
  login: (email: string, password: string, remember = false) => call<SignedIn>("login", { email, password, remember }),
  logout: () => call<void>("logout"),
  currentUser: () => call<User | null>("current_user"),
  refreshSession: () => call<SignedIn>("refresh_session"),
  createFirstAdmin: (email: string, name: string, password: string) =>
    call<User>("create_first_admin", { email, name, password }),
  webhookReceiver: () => call<ReceiverStatus>("webhook_receiver"),
  setWebhookReceiver: (enabled: boolean, port: number | null) =>
    call<ReceiverStatus>("set_webhook_receiver", { enabled, port }),
  webhookEvents: (limit = 100) => call<InboxEntry[]>("webhook_events", { limit }),
  listProducts: (page: number, limit: number, status: string, search = "") =>
    call<{ products: Product[]; meta: PageMeta }>("list_products", { page, limit, status: status || null, search: search.trim() || null }),
  getProduct: (id: string) => call<Product>("get_product", { id }),
  createOrder: (order: Record<string, unknown>) => call<Order>("create_order", { order }),
  listDocuments: (folderId: string, orderBy: string, pageToken: string | null, pageSize = 20) =>
    call<DocumentList>("list_documents", { folderId: folderId || null, orderBy, pageToken, pageSize }),
  listFolders: () => call<Folder[]>("list_folders"),
  createDocument: (document: Record<string, unknown>) => call<DocumentSummary>("create_document", { document }),
  shareDocument: (id: string, share: { permissions: Permission[]; sendNotificationEmail?: boolean }) =>
    call<{ permissions: Permission[] }>("share_document", { id, share }),
  googleStatus: () => call<GoogleStatus>("google_status"),
  openEditor: (id: string, name: string) => call<void>("open_editor", { id, name }),
  editorDocument: (id: string) => call<EditorView>("editor_document", { id }),
  saveDocument: (id: string, baseRevisionId: string, blocks: EditBlock[]) =>
    call<SaveOutcome>("save_document", { id, edits: { baseRevisionId, blocks } }),
  saveDraft: (id: string, baseRevisionId: string, blocks: EditBlock[]) =>
    call<Draft>("save_draft", { id, edits: { baseRevisionId, blocks } }),
  discardDraft: (id: string) => call<void>("discard_draft", { id }),
  syncStatus: () => call<SyncStatus>("sync_status"),
  syncNow: () => call<SyncStatus>("sync_now"),
  setSyncInterval: (intervalSecs: number) => call<SyncStatus>("set_sync_interval", { intervalSecs }),
  listOrders: (page: number, limit: number) => call<{ orders: Order[]; meta: PageMeta }>("list_orders", { page, limit }),
  getOrder: (id: string) => call<Order>("get_order", { id }),
  listSubscriptions: (page: number, limit: number, status: string, customerId: string) =>
    call<{ subscriptions: Subscription[]; meta: PageMeta }>("list_subscriptions", {
      page, limit, status: status || null, customerId: customerId || null,
    }),
  actOnSubscription: (id: string, action: string, body?: Record<string, unknown>) =>
    call<SubscriptionActionResult>("act_on_subscription", { id, action, body: body ?? null }),
  settings: () => call<SettingsView>("settings"),
  setSecret: (name: string, value: string) => call<void>("set_secret", { name, value }),
  googleSignIn: () => call<GoogleStatus>("google_sign_in"),
  googleSignOut: () => call<GoogleStatus>("google_sign_out"),
  listUsers: () => call<User[]>("list_users"),
  addUser: (email: string, name: string, role: "admin" | "staff", password: string) =>
    call<User>("add_user", { email, name, role, password }),
  setUserDisabled: (email: string, disabled: boolean) => call<User>("set_user_disabled", { email, disabled }),
  unlockUser: (email: string) => call<User>("unlock_user", { email }),
  auditRetention: () => call<AuditRetention>("audit_retention"),
  setAuditRetention: (days: number) => call<AuditRetention>("set_audit_retention", { days }),
  auditLog: (limit: number, before: number | null) => call<AuditEntry[]>("audit_log", { limit, before }),
};

/** Money in minor units as people read it. */
export function formatMoney(cents: number, currency: string): string {
  return new Intl.NumberFormat(undefined, { style: "currency", currency }).format(cents / 100);
}

/** An error as a sentence with its code, for people. */
export function describeError(error: unknown): string {
  if (!isApiError(error)) return "Something went wrong.";
  const fields = error.details?.fields;
  if (error.code === "invalid_request" && fields && fields.length > 1) {
    return fields.map((f) => `${f.field} ${f.message}`).join("; ") + ` (${error.code})`;
  }
  return `${error.message} (${error.code})`;
}

/** The message for one field of an invalid_request error, if any. */
export function fieldError(error: unknown, field: string): string | undefined {
  if (!isApiError(error)) return undefined;
  return error.details?.fields?.find((f) => f.field === field)?.message;
}
