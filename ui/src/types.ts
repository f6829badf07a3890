// Shapes of the core's DTOs as the desktop commands return them (Rust: staffroom::auth,
// staffroom::error, src-tauri/src/commands.rs).

export type Role = "admin" | "staff";

export interface User {
  id: string;
  email: string;
  name: string;
  role: Role;
  disabled?: boolean;
}

export interface AuthResponse {
  token: string;
  user: User;
  expiresAt: string;
  sessionExpiresAt: string;
}

export interface AppInfo {
  version: string;
  sandbox: boolean;
  demo: { email: string; password: string } | null;
  needsFirstAdmin: boolean;
}

export type ErrorCode =
  | "unauthorized"
  | "not_found"
  | "invalid_request"
  | "conflict"
  | "rate_limited"
  | "integration_error"
  | "method_not_allowed"
  | "payload_too_large"
  | "unsupported_media_type"
  | "internal";

export interface FieldError {
  field: string;
  message: string;
}

/** The error object every command rejects with. */
export interface ApiError {
  code: ErrorCode;
  message: string;
  details?: { fields?: FieldError[]; [key: string]: unknown };
}

export interface ReceiverStatus {
  running: boolean;
  url: string | null;
  hasSecret: boolean;
}

/** A stored webhook delivery. */
export interface InboxEntry {
  id: number;
  eventName: string;
  resourceType: string;
  resourceId: string;
  verified: boolean;
  receivedAt: string;
  appliedAt: string | null;
  outcome: string | null;
  orderId: string | null;
  subscriptionId: string | null;
}

export interface PageMeta {
  currentPage: number;
  totalPages: number;
  totalItems: number;
  stale?: boolean;
  syncedAt?: string;
}

export interface Variant {
  id: string;
  name: string;
  price: number;
  status: string;
  isSubscription: boolean;
}

export interface Product {
  id: string;
  name: string;
  slug: string;
  price: number;
  currency: string;
  priceFormatted: string;
  status: "draft" | "published";
  createdAt: string;
  updatedAt: string;
  variants?: Variant[];
}

export interface Order {
  id: string;
  orderId: string;
  status: "pending" | "paid" | "failed";
  total: number;
  currency: string;
  checkoutUrl: string;
  createdAt: string;
  email: string;
  name: string | null;
  productId?: string;
  variantId?: string;
  paidAt?: string | null;
  updatedAt?: string;
  events?: { eventName: string; receivedAt: string; outcome: string | null }[];
}

export interface Subscription {
  id: string;
  customerId: string;
  status: "active" | "cancelled" | "expired";
  providerStatus: string;
  productId: string;
  variantId: string;
  renewsAt: string;
  endsAt?: string;
  createdAt: string;
  updatedAt: string;
  productName: string | null;
  variantName: string | null;
  customerName: string | null;
  customerEmail: string | null;
  pauseMode: string | null;
  pauseResumesAt: string | null;
}

export interface DocumentSummary {
  id: string;
  name: string;
  mimeType: string;
  createdTime: string;
  modifiedTime: string;
  webViewLink: string;
  thumbnailLink?: string;
}

export interface DocumentList {
  documents: DocumentSummary[];
  nextPageToken?: string;
}

export interface Folder {
  id: string;
  name: string;
}

export interface Permission {
  id?: string;
  role: "owner" | "writer" | "reader";
  type: "user" | "group" | "domain" | "anyone";
  emailAddress?: string;
  domain?: string;
}

export interface GoogleStatus {
  signedIn: boolean;
  kind?: "oauth" | "pasted";
  expiresAt?: string;
  canSignIn: boolean;
}

export interface TextRun {
  content: string;
  style?: Record<string, unknown>;
}

export interface StructuralElement {
  startIndex: number;
  endIndex: number;
  paragraph?: {
    elements: { startIndex: number; endIndex: number; textRun?: TextRun }[];
    paragraphStyle?: { namedStyleType?: string };
  };
  sectionBreak?: unknown;
  table?: { rows: number; columns: number; tableRows: { tableCells: { content: StructuralElement[] }[] }[] };
  tableOfContents?: unknown;
}

export interface GoogleDocument {
  id: string;
  name: string;
  revisionId: string;
  body: { content: StructuralElement[] };
}

export type EditBlock =
  | { kind: "paragraph"; text: string; style: string }
  | { kind: "fixed"; startIndex: number };

export interface Draft {
  documentId: string;
  baseRevisionId: string;
  blocks: EditBlock[];
  updatedAt: string;
}

export interface EditorView {
  document: GoogleDocument;
  blocks: EditBlock[];
  stale: boolean;
  draft: Draft | null;
}

export interface RebaseConflict {
  at: number;
  len: number;
  mine: EditBlock[];
  theirs: EditBlock[];
}

export type SaveOutcome =
  | { outcome: "saved"; document: GoogleDocument; requests: number }
  | { outcome: "conflict"; document: GoogleDocument; rebased: { blocks: EditBlock[]; conflicts: RebaseConflict[] } };

export interface SettingsView {
  sandbox: boolean;
  dataDir: string;
  secrets: { name: string; about: string; source: string }[];
  google: GoogleStatus;
}

export interface AuditEntry {
  id: number;
  at: string;
  actor: string;
  action: string;
  target: string | null;
  outcome: string;
  detail: string | null;
}
