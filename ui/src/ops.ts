// Generated from the operations' declarations by the desktop shell's tests/bindings.rs
// (scripts/gen-types): do not edit.
import type { AccountRequest } from "./bindings/AccountRequest";
import type { AppInfo } from "./bindings/desktop/AppInfo";
import type { AuditEntry } from "./bindings/AuditEntry";
import type { AuditLogRequest } from "./bindings/AuditLogRequest";
import type { AuditRetention } from "./bindings/AuditRetention";
import type { ConnectStoreRequest } from "./bindings/ConnectStoreRequest";
import type { Connections } from "./bindings/Connections";
import type { CreateDiscountRequest } from "./bindings/CreateDiscountRequest";
import type { CreateDocument } from "./bindings/CreateDocument";
import type { CustomerEnvelope } from "./bindings/CustomerEnvelope";
import type { CustomerList } from "./bindings/CustomerList";
import type { DiscountEnvelope } from "./bindings/DiscountEnvelope";
import type { DiscountList } from "./bindings/DiscountList";
import type { DocumentEnvelope } from "./bindings/DocumentEnvelope";
import type { DocumentList } from "./bindings/DocumentList";
import type { DownloadDocumentRequest } from "./bindings/desktop/DownloadDocumentRequest";
import type { DownloadResult } from "./bindings/desktop/DownloadResult";
import type { Draft } from "./bindings/Draft";
import type { EditorView } from "./bindings/EditorView";
import type { EditsRequest } from "./bindings/EditsRequest";
import type { ExportCsvRequest } from "./bindings/desktop/ExportCsvRequest";
import type { ExportCsvResult } from "./bindings/desktop/ExportCsvResult";
import type { Folder } from "./bindings/Folder";
import type { FromTemplateRequest } from "./bindings/FromTemplateRequest";
import type { GoogleClientRequest } from "./bindings/GoogleClientRequest";
import type { GoogleClientSet } from "./bindings/GoogleClientSet";
import type { GoogleStatus } from "./bindings/GoogleStatus";
import type { IdRequest } from "./bindings/IdRequest";
import type { InvoiceEnvelope } from "./bindings/InvoiceEnvelope";
import type { InvoiceList } from "./bindings/InvoiceList";
import type { KeyCheck } from "./bindings/KeyCheck";
import type { KeyCheckRequest } from "./bindings/KeyCheckRequest";
import type { LicenseKeyDetailEnvelope } from "./bindings/LicenseKeyDetailEnvelope";
import type { LicenseKeyEnvelope } from "./bindings/LicenseKeyEnvelope";
import type { LicenseKeyList } from "./bindings/LicenseKeyList";
import type { ListCustomersRequest } from "./bindings/ListCustomersRequest";
import type { ListDiscountsRequest } from "./bindings/ListDiscountsRequest";
import type { ListDocumentsRequest } from "./bindings/ListDocumentsRequest";
import type { ListLicenseKeysRequest } from "./bindings/ListLicenseKeysRequest";
import type { ListOrdersRequest } from "./bindings/ListOrdersRequest";
import type { ListProductsRequest } from "./bindings/ListProductsRequest";
import type { ListSubscriptionsRequest } from "./bindings/ListSubscriptionsRequest";
import type { LoginRequest } from "./bindings/desktop/LoginRequest";
import type { NewAccount } from "./bindings/NewAccount";
import type { NewOrder } from "./bindings/NewOrder";
import type { NoInput } from "./bindings/NoInput";
import type { NotificationRequest } from "./bindings/desktop/NotificationRequest";
import type { OpenEditorRequest } from "./bindings/desktop/OpenEditorRequest";
import type { OpenLinkRequest } from "./bindings/desktop/OpenLinkRequest";
import type { OrderEnvelope } from "./bindings/OrderEnvelope";
import type { OrderList } from "./bindings/OrderList";
import type { PermissionList } from "./bindings/PermissionList";
import type { ProductEnvelope } from "./bindings/ProductEnvelope";
import type { ProductList } from "./bindings/ProductList";
import type { ReadDocumentRequest } from "./bindings/ReadDocumentRequest";
import type { ReceiverStatus } from "./bindings/ReceiverStatus";
import type { ReceiverSwitch } from "./bindings/desktop/ReceiverSwitch";
import type { RefundRequest } from "./bindings/RefundRequest";
import type { SalesSummaryEnvelope } from "./bindings/SalesSummaryEnvelope";
import type { SaveOutcome } from "./bindings/SaveOutcome";
import type { SecretRequest } from "./bindings/SecretRequest";
import type { SetDisabledRequest } from "./bindings/SetDisabledRequest";
import type { SettingsView } from "./bindings/SettingsView";
import type { ShareRequest } from "./bindings/ShareRequest";
import type { SignedIn } from "./bindings/SignedIn";
import type { StoreConnected } from "./bindings/StoreConnected";
import type { SubscriptionActionRequest } from "./bindings/SubscriptionActionRequest";
import type { SubscriptionActionResult } from "./bindings/SubscriptionActionResult";
import type { SubscriptionEnvelope } from "./bindings/SubscriptionEnvelope";
import type { SubscriptionList } from "./bindings/SubscriptionList";
import type { SummaryEnvelope } from "./bindings/SummaryEnvelope";
import type { SummaryRequest } from "./bindings/SummaryRequest";
import type { SyncReport } from "./bindings/SyncReport";
import type { SyncSettings } from "./bindings/SyncSettings";
import type { SyncStatus } from "./bindings/SyncStatus";
import type { TabRequest } from "./bindings/TabRequest";
import type { TemplateList } from "./bindings/TemplateList";
import type { TemplatesFolder } from "./bindings/TemplatesFolder";
import type { TemplatesFolderRequest } from "./bindings/TemplatesFolderRequest";
import type { UpdateLicenseKeyRequest } from "./bindings/UpdateLicenseKeyRequest";
import type { UserDto } from "./bindings/UserDto";
import type { WebhookLog } from "./bindings/WebhookLog";
import type { WebhookLogRequest } from "./bindings/WebhookLogRequest";
import type { WebhookRegistration } from "./bindings/WebhookRegistration";
import type { WebhookUrlRequest } from "./bindings/WebhookUrlRequest";

/** Every operation a window may call: what it takes and what it answers. */
export type Operations = {
  create_first_admin: { request: NewAccount; response: UserDto };
  list_users: { request: NoInput; response: Array<UserDto> };
  add_user: { request: NewAccount; response: UserDto };
  set_user_disabled: { request: SetDisabledRequest; response: UserDto };
  unlock_user: { request: AccountRequest; response: UserDto };
  list_products: { request: ListProductsRequest; response: ProductList };
  get_product: { request: IdRequest; response: ProductEnvelope };
  create_order: { request: NewOrder; response: OrderEnvelope };
  list_orders: { request: ListOrdersRequest; response: OrderList };
  get_summary: { request: SummaryRequest; response: SalesSummaryEnvelope };
  get_order: { request: IdRequest; response: OrderEnvelope };
  refund_order: { request: RefundRequest; response: OrderEnvelope };
  list_subscriptions: { request: ListSubscriptionsRequest; response: SubscriptionList };
  get_subscription: { request: IdRequest; response: SubscriptionEnvelope };
  list_customers: { request: ListCustomersRequest; response: CustomerList };
  get_customer: { request: IdRequest; response: CustomerEnvelope };
  list_invoices: { request: IdRequest; response: InvoiceList };
  refund_invoice: { request: RefundRequest; response: InvoiceEnvelope };
  list_license_keys: { request: ListLicenseKeysRequest; response: LicenseKeyList };
  get_license_key: { request: IdRequest; response: LicenseKeyDetailEnvelope };
  update_license_key: { request: UpdateLicenseKeyRequest; response: LicenseKeyEnvelope };
  list_discounts: { request: ListDiscountsRequest; response: DiscountList };
  create_discount: { request: CreateDiscountRequest; response: DiscountEnvelope };
  delete_discount: { request: IdRequest; response: null };
  act_on_subscription: { request: SubscriptionActionRequest; response: SubscriptionActionResult };
  sync_now: { request: NoInput; response: SyncReport };
  sync_status: { request: NoInput; response: SyncStatus };
  set_sync_interval: { request: SyncSettings; response: SyncStatus };
  webhook_events: { request: WebhookLogRequest; response: WebhookLog };
  list_documents: { request: ListDocumentsRequest; response: DocumentList };
  list_folders: { request: NoInput; response: Array<Folder> };
  read_document: { request: ReadDocumentRequest; response: DocumentEnvelope };
  create_document: { request: CreateDocument; response: SummaryEnvelope };
  share_document: { request: ShareRequest; response: PermissionList };
  editor_document: { request: TabRequest; response: EditorView };
  save_document: { request: EditsRequest; response: SaveOutcome };
  save_draft: { request: EditsRequest; response: Draft };
  discard_draft: { request: TabRequest; response: null };
  google_status: { request: NoInput; response: GoogleStatus };
  google_sign_out: { request: NoInput; response: GoogleStatus };
  list_templates: { request: NoInput; response: TemplateList };
  create_from_template: { request: FromTemplateRequest; response: SummaryEnvelope };
  settings: { request: NoInput; response: SettingsView };
  set_secret: { request: SecretRequest; response: null };
  audit_log: { request: AuditLogRequest; response: Array<AuditEntry> };
  audit_retention: { request: NoInput; response: AuditRetention };
  set_audit_retention: { request: AuditRetention; response: AuditRetention };
  set_templates_folder: { request: TemplatesFolderRequest; response: TemplatesFolder };
  connections: { request: NoInput; response: Connections };
  check_lemonsqueezy_key: { request: KeyCheckRequest; response: KeyCheck };
  connect_lemonsqueezy: { request: ConnectStoreRequest; response: StoreConnected };
  register_webhook: { request: WebhookUrlRequest; response: WebhookRegistration };
  set_google_client: { request: GoogleClientRequest; response: GoogleClientSet };
  app_info: { request: NoInput; response: AppInfo };
  login: { request: LoginRequest; response: SignedIn };
  logout: { request: NoInput; response: null };
  current_user: { request: NoInput; response: UserDto | null };
  refresh_session: { request: NoInput; response: SignedIn };
  webhook_receiver: { request: NoInput; response: ReceiverStatus };
  set_webhook_receiver: { request: ReceiverSwitch; response: ReceiverStatus };
  open_editor: { request: OpenEditorRequest; response: null };
  google_sign_in: { request: NoInput; response: GoogleStatus };
  reconnect: { request: NoInput; response: null };
  show_notification: { request: NotificationRequest; response: null };
  open_link: { request: OpenLinkRequest; response: null };
  export_csv: { request: ExportCsvRequest; response: ExportCsvResult };
  download_document: { request: DownloadDocumentRequest; response: DownloadResult };
};

/** Calls one operation; rejects with the error object. */
export type Call = <K extends keyof Operations>(op: K, request: Operations[K]["request"]) => Promise<Operations[K]["response"]>;

/** The operations only an admin may call (the rest: any signed-in staff member). */
export const ADMIN_ONLY: ReadonlySet<keyof Operations> = new Set<keyof Operations>(["list_users", "add_user", "set_user_disabled", "unlock_user", "refund_order", "refund_invoice", "update_license_key", "create_discount", "delete_discount", "set_sync_interval", "google_sign_out", "settings", "set_secret", "audit_log", "audit_retention", "set_audit_retention", "set_templates_folder", "connections", "check_lemonsqueezy_key", "connect_lemonsqueezy", "register_webhook", "set_google_client", "set_webhook_receiver", "google_sign_in"]);

/** One function per operation, over `call`. */
export function client(call: Call) {
  return {
    /** The first account, an admin, on a Staffroom that has none (the desktop's first run) */
    createFirstAdmin: (request: NewAccount) => call("create_first_admin", request),
    /** Every staff account, and whether it is disabled or locked */
    listUsers: () => call("list_users", {}),
    /** Adds a staff account */
    addUser: (request: NewAccount) => call("add_user", request),
    /** Disables an account (signing it out everywhere) or enables it again */
    setUserDisabled: (request: SetDisabledRequest) => call("set_user_disabled", request),
    /** Lifts every sign-in lock of an account */
    unlockUser: (request: AccountRequest) => call("unlock_user", request),
    /** Products of the store, from the cache when Lemon Squeezy is out of reach */
    listProducts: (request: ListProductsRequest) => call("list_products", request),
    /** One product with its variants */
    getProduct: (request: IdRequest) => call("get_product", request),
    /** An order: a Lemon Squeezy checkout for a product */
    createOrder: (request: NewOrder) => call("create_order", request),
    /** Every order of the store, newest first, searched and filtered */
    listOrders: (request: ListOrdersRequest) => call("list_orders", request),
    /** The store's revenue, refunds, orders and subscriptions over a range of days, from the cache */
    getSummary: (request: SummaryRequest) => call("get_summary", request),
    /** One order with the webhook events applied to it */
    getOrder: (request: IdRequest) => call("get_order", request),
    /** Refunds a paid order, in full or in part */
    refundOrder: (request: RefundRequest) => call("refund_order", request),
    /** Subscriptions, from the cache */
    listSubscriptions: (request: ListSubscriptionsRequest) => call("list_subscriptions", request),
    /** One subscription as the provider has it now, with the links to update the card and the portal */
    getSubscription: (request: IdRequest) => call("get_subscription", request),
    /** The store's customers, newest first, searched by name or e-mail */
    listCustomers: (request: ListCustomersRequest) => call("list_customers", request),
    /** One customer with their revenue, MRR, portal link, newest orders and subscriptions */
    getCustomer: (request: IdRequest) => call("get_customer", request),
    /** A subscription's invoices (first payment, renewals, plan changes), newest first, from the cache */
    listInvoices: (request: IdRequest) => call("list_invoices", request),
    /** Refunds a paid subscription invoice (a renewal), in full or in part */
    refundInvoice: (request: RefundRequest) => call("refund_invoice", request),
    /** The store's licence keys, newest first, by order, customer or status, searched by e-mail or key (short forms only) */
    listLicenseKeys: (request: ListLicenseKeysRequest) => call("list_license_keys", request),
    /** One licence key in full, with the machines it is activated on, read from Lemon Squeezy (audited) */
    getLicenseKey: (request: IdRequest) => call("get_license_key", request),
    /** Disables or enables a licence key, or changes its activation limit or expiry */
    updateLicenseKey: (request: UpdateLicenseKeyRequest) => call("update_license_key", request),
    /** The store's discount codes, newest first, each with its redemptions, searched by code or name */
    listDiscounts: (request: ListDiscountsRequest) => call("list_discounts", request),
    /** Makes a discount code at Lemon Squeezy */
    createDiscount: (request: CreateDiscountRequest) => call("create_discount", request),
    /** Deletes a discount code at Lemon Squeezy */
    deleteDiscount: (request: IdRequest) => call("delete_discount", request),
    /** Cancel, resume, pause, unpause or change the plan of a subscription (202 when the customer must confirm) */
    actOnSubscription: (request: SubscriptionActionRequest) => call("act_on_subscription", request),
    /** Syncs the store's catalogue, orders, customers, subscriptions, invoices and licence keys now, after any sync already running */
    syncNow: () => call("sync_now", {}),
    /** Whether a sync runs, its interval and each resource's last sync */
    syncStatus: () => call("sync_status", {}),
    /** Changes the interval between background syncs */
    setSyncInterval: (request: SyncSettings) => call("set_sync_interval", request),
    /** The newest stored webhook deliveries, and whether deliveries are received */
    webhookEvents: (request: WebhookLogRequest) => call("webhook_events", request),
    /** One page of Google documents, newest first */
    listDocuments: (request: ListDocumentsRequest) => call("list_documents", request),
    /** Every Drive folder, by name, for the folder filter */
    listFolders: () => call("list_folders", {}),
    /** A document, from the offline copy when Google is out of reach */
    readDocument: (request: ReadDocumentRequest) => call("read_document", request),
    /** A Google document, with its first text and who it is shared with */
    createDocument: (request: CreateDocument) => call("create_document", request),
    /** Shares a document, one permission at a time */
    shareDocument: (request: ShareRequest) => call("share_document", request),
    /** What the editor opens with: the document, its blocks, the unsaved draft, and why it is read-only when it is */
    editorDocument: (request: TabRequest) => call("editor_document", request),
    /** Saves the editor's blocks, or answers the newer revision with the edits carried onto it */
    saveDocument: (request: EditsRequest) => call("save_document", request),
    /** Keeps the editor's unsaved edits */
    saveDraft: (request: EditsRequest) => call("save_draft", request),
    /** Drops the caller's unsaved edits of a document */
    discardDraft: (request: TabRequest) => call("discard_draft", request),
    /** Whether documents can work: Google's credentials and sign-in */
    googleStatus: () => call("google_status", {}),
    /** Signs out of Google: revokes and forgets the tokens */
    googleSignOut: () => call("google_sign_out", {}),
    /** The templates in the chosen folder, with their placeholders */
    listTemplates: () => call("list_templates", {}),
    /** A new document copied from a template, its placeholders filled from a customer, order or subscription */
    createFromTemplate: (request: FromTemplateRequest) => call("create_from_template", request),
    /** What Settings shows: mode, data dir, credentials' sources, Google */
    settings: () => call("settings", {}),
    /** Stores a provider credential in the OS keyring */
    setSecret: (request: SecretRequest) => call("set_secret", request),
    /** The audit log, newest first */
    auditLog: (request: AuditLogRequest) => call("audit_log", request),
    /** How many days audit entries are kept */
    auditRetention: () => call("audit_retention", {}),
    /** Changes how many days audit entries are kept, and prunes */
    setAuditRetention: (request: AuditRetention) => call("set_audit_retention", request),
    /** Chooses the Drive folder of templates */
    setTemplatesFolder: (request: TemplatesFolderRequest) => call("set_templates_folder", request),
    /** How the Lemon Squeezy and Google connections stand, with their problems and fixes */
    connections: () => call("connections", {}),
    /** Asks Lemon Squeezy whom a key belongs to, its mode and the stores it sees; stores nothing */
    checkLemonsqueezyKey: (request: KeyCheckRequest) => call("check_lemonsqueezy_key", request),
    /** Checks a key and a store with Lemon Squeezy, keeps them, and syncs the store */
    connectLemonsqueezy: (request: ConnectStoreRequest) => call("connect_lemonsqueezy", request),
    /** Creates or updates the store's webhook at Lemon Squeezy with a new signing secret */
    registerWebhook: (request: WebhookUrlRequest) => call("register_webhook", request),
    /** Keeps the Google OAuth client staff sign in with */
    setGoogleClient: (request: GoogleClientRequest) => call("set_google_client", request),
    /** The version, the mode, and whether the first admin is still to be made */
    appInfo: () => call("app_info", {}),
    /** Signs in; the token stays in the app */
    login: (request: LoginRequest) => call("login", request),
    /** Signs out, here and of the session */
    logout: () => call("logout", {}),
    /** Who is signed in, if anyone */
    currentUser: () => call("current_user", {}),
    /** Renews the session's token */
    refreshSession: () => call("refresh_session", {}),
    /** Whether the app's own webhook receiver runs, and where */
    webhookReceiver: () => call("webhook_receiver", {}),
    /** Switches the app's webhook receiver on or off */
    setWebhookReceiver: (request: ReceiverSwitch) => call("set_webhook_receiver", request),
    /** Opens a document's editor window, or brings it to the front */
    openEditor: (request: OpenEditorRequest) => call("open_editor", request),
    /** Signs in to Google in the system browser */
    googleSignIn: () => call("google_sign_in", {}),
    /** Checks that the team server can be reached again */
    reconnect: () => call("reconnect", {}),
    /** Shows a desktop notification that opens a screen when clicked */
    showNotification: (request: NotificationRequest) => call("show_notification", request),
    /** Opens a checked link in the system browser */
    openLink: (request: OpenLinkRequest) => call("open_link", request),
    /** Saves a list's rows for its filters as a CSV file the user picks */
    exportCsv: (request: ExportCsvRequest) => call("export_csv", request),
    /** Saves a document as a PDF, DOCX or text file the user picks */
    downloadDocument: (request: DownloadDocumentRequest) => call("download_document", request),
  };
}
