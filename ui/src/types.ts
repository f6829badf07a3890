// The shapes of what the operations answer and take: the TypeScript types ts-rs renders
// from the Rust DTOs into ./bindings (run scripts/gen-types after changing a DTO), under the
// names the screens use.
import type { ErrorObject } from "./bindings/ErrorObject";
import type { FieldError } from "./bindings/FieldError";

export type { Role } from "./bindings/Role";
export type { UserDto as User } from "./bindings/UserDto";
export type { SignedIn } from "./bindings/SignedIn";
export type { AuditRetention } from "./bindings/AuditRetention";
export type { AppInfo } from "./bindings/desktop/AppInfo";
export type { LinkKind } from "./bindings/desktop/LinkKind";
export type { ErrorCode } from "./bindings/ErrorCode";
export type { FieldError };
export type { ReceiverStatus } from "./bindings/ReceiverStatus";
export type { InboxEntry } from "./bindings/InboxEntry";
export type { PageMeta } from "./bindings/PageMeta";
export type { VariantDto as Variant } from "./bindings/VariantDto";
export type { ProductDto as Product } from "./bindings/ProductDto";
export type { ProductList } from "./bindings/ProductList";
export type { ProductStatus } from "./bindings/ProductStatus";
export type { SubscriptionStatus } from "./bindings/SubscriptionStatus";
export type { SubscriptionStatusFilter } from "./bindings/SubscriptionStatusFilter";
export type { SubscriptionEnvelope } from "./bindings/SubscriptionEnvelope";
export type { CustomerDto as Customer } from "./bindings/CustomerDto";
export type { CustomerDetail } from "./bindings/CustomerDetail";
export type { CustomerList } from "./bindings/CustomerList";
export type { CustomerStatus } from "./bindings/CustomerStatus";
export type { OrderDto as Order } from "./bindings/OrderDto";
export type { OrderList } from "./bindings/OrderList";
export type { SalesSummary } from "./bindings/SalesSummary";
export type { DailyNet } from "./bindings/DailyNet";
export type { OrderItem } from "./bindings/OrderItem";
export type { OrderStatusFilter } from "./bindings/OrderStatusFilter";
export type { SubscriptionDto as Subscription } from "./bindings/SubscriptionDto";
export type { SubscriptionList } from "./bindings/SubscriptionList";
export type { InvoiceDto as Invoice } from "./bindings/InvoiceDto";
export type { InvoiceList } from "./bindings/InvoiceList";
export type { LicenseKeyDto as LicenseKey } from "./bindings/LicenseKeyDto";
export type { LicenseKeyStatus } from "./bindings/LicenseKeyStatus";
export type { DiscountDto as Discount } from "./bindings/DiscountDto";
export type { DiscountRedemptionDto as DiscountRedemption } from "./bindings/DiscountRedemptionDto";
export type { DiscountDuration } from "./bindings/DiscountDuration";
export type { DiscountAmountType } from "./bindings/DiscountAmountType";
export type { CreateDiscountRequest } from "./bindings/CreateDiscountRequest";
export type { SubscriptionActionResult } from "./bindings/SubscriptionActionResult";
export type { SubscriptionActionRequest } from "./bindings/SubscriptionActionRequest";
export type { PendingConfirmation } from "./bindings/PendingConfirmation";
export type { DocumentSummary } from "./bindings/DocumentSummary";
export type { DocumentList } from "./bindings/DocumentList";
export type { DocumentOrder } from "./bindings/DocumentOrder";
export type { Folder } from "./bindings/Folder";
export type { Permission } from "./bindings/Permission";
export type { NewPermission } from "./bindings/NewPermission";
export type { SharedRole } from "./bindings/SharedRole";
export type { UserRole } from "./bindings/UserRole";
export type { PermissionList } from "./bindings/PermissionList";
export type { GoogleStatus } from "./bindings/GoogleStatus";
export type { TextRun } from "./bindings/TextRun";
export type { StructuralElement } from "./bindings/StructuralElement";
export type { Document as GoogleDocument } from "./bindings/Document";
export type { TabOutline } from "./bindings/TabOutline";
export type { EditBlock } from "./bindings/EditBlock";
export type { ListItem } from "./bindings/ListItem";
export type { Alignment } from "./bindings/Alignment";
export type { ListKind } from "./bindings/ListKind";
export type { StyledRun } from "./bindings/StyledRun";
export type { RunLook } from "./bindings/RunLook";
export type { Baseline } from "./bindings/Baseline";
export type { NamedStyle } from "./bindings/NamedStyle";
export type { Draft } from "./bindings/Draft";
export type { EditorView } from "./bindings/EditorView";
export type { RebaseConflict } from "./bindings/RebaseConflict";
export type { SaveOutcome } from "./bindings/SaveOutcome";
export type { SettingsView } from "./bindings/SettingsView";
export type { WebhookLog } from "./bindings/WebhookLog";
export type { AuditEntry } from "./bindings/AuditEntry";
export type { SyncStatus } from "./bindings/SyncStatus";
export type { SyncProgress } from "./bindings/SyncProgress";

export type { Connections } from "./bindings/Connections";
export type { ConnectionState } from "./bindings/ConnectionState";
export type { Problem } from "./bindings/Problem";
export type { KeyCheck } from "./bindings/KeyCheck";
export type { LemonSqueezyConnection } from "./bindings/LemonSqueezyConnection";
export type { GoogleConnection } from "./bindings/GoogleConnection";

/** The error object every command rejects with. Its `details` is free-form JSON in Rust; this
 *  narrows it to the `fields` an invalid_request carries. */
export type ApiError = Omit<ErrorObject, "details"> & {
  details?: { fields?: FieldError[]; [key: string]: unknown };
};
