// The audit log in words: who did what to which order, customer, subscription or document, with
// links, instead of action codes ("Ada refunded $12.50 of order #1042", not `payments.order_refund`).
import type { ReactNode } from "react";
import { Link } from "wouter";
import { formatMoney } from "./api";
import { paths } from "./links";
import type { AuditEntry } from "./types";

/** The actions staff can filter the log by, as they would name them, by area. */
export const AUDIT_ACTIONS: [string, [string, string][]][] = [
  ["Sign-in", [["auth.sign_in", "Signed in"], ["auth.account_locked", "Account locked"], ["auth.sign_out", "Signed out"], ["auth.session_ended", "Session ended"]]],
  ["Users", [["users.add", "Added a user"], ["users.disable", "Disabled a user"], ["users.enable", "Enabled a user"], ["users.set_password", "Set a password"], ["users.unlock", "Unlocked a user"]]],
  ["Orders", [["payments.order_create", "Created an order"], ["payments.order_refund", "Refunded an order"], ["payments.order_review", "Order held for review"]]],
  ["Billing", [["payments.invoice_refund", "Refunded an invoice"], ["payments.license_key_reveal", "Showed a licence key"], ["payments.license_key_update", "Changed a licence key"], ["payments.discount_create", "Made a discount"], ["payments.discount_delete", "Deleted a discount"], ["payments.export", "Exported a list"]]],
  ["Subscriptions", [["payments.subscription_cancel", "Cancelled"], ["payments.subscription_resume", "Resumed"], ["payments.subscription_pause", "Paused"], ["payments.subscription_unpause", "Unpaused"], ["payments.subscription_change_plan", "Changed plan"]]],
  ["Documents", [["docs.create", "Created a document"], ["docs.edit", "Edited a document"], ["docs.share", "Shared a document"], ["docs.from_template", "Made from a template"], ["docs.export", "Downloaded a document"]]],
  ["Settings", [["settings.sync_interval", "Sync interval"], ["settings.audit_retention", "Audit retention"], ["settings.secret_set", "Set a credential"], ["settings.google_sign_in", "Connected Google"], ["settings.google_sign_out", "Disconnected Google"], ["settings.webhook_receiver", "Webhook receiver"], ["settings.templates_folder", "Templates folder"]]],
];

const SUBSCRIPTION_VERBS: Record<string, string> = {
  "payments.subscription_cancel": "cancelled",
  "payments.subscription_resume": "resumed",
  "payments.subscription_pause": "paused",
  "payments.subscription_unpause": "unpaused",
  "payments.subscription_change_plan": "changed the plan of",
};

function parseDetail(entry: AuditEntry): Record<string, unknown> {
  try {
    const parsed: unknown = entry.detail ? JSON.parse(entry.detail) : {};
    return parsed && typeof parsed === "object" ? (parsed as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

/** Who did it, as people call them: a colleague's name, or what acted for nobody in particular. */
function who(actor: string, nameOf: (email: string) => string | undefined): string {
  if (actor === "system") return "Staffroom";
  if (actor === "cli") return "The command line";
  if (actor === "anonymous") return "Someone";
  return nameOf(actor) ?? actor;
}

/** What an export held, in words: "212 refunded orders", "1,573 orders matching “zoë”". */
export function exportedRows(list: string, detail: Record<string, unknown>): string {
  const rows = typeof detail.rows === "number" ? detail.rows : null;
  const filters = detail.filters && typeof detail.filters === "object" ? (detail.filters as Record<string, unknown>) : {};
  const status = typeof filters.status === "string" ? `${filters.status.replace(/_/g, " ")} ` : "";
  const noun = list === "license-keys" ? "licence keys" : list;
  const one = rows === 1 ? noun.replace(/s$/, "") : noun;
  const more = [
    typeof filters.search === "string" ? `matching “${filters.search}”` : null,
    typeof filters.from === "string" ? `from ${filters.from.slice(0, 10)}` : null,
    typeof filters.to === "string" ? `before ${filters.to.slice(0, 10)}` : null,
    typeof filters.customerId === "string" ? `of customer ${filters.customerId}` : null,
    typeof filters.productId === "string" ? `of product ${filters.productId}` : null,
  ].filter(Boolean);
  return `${rows === null ? "" : `${rows.toLocaleString()} `}${status}${one}${more.length ? ` ${more.join(", ")}` : ""}`;
}

/** The entry as a sentence with links to what it names. */
export function auditSentence(entry: AuditEntry, nameOf: (email: string) => string | undefined): ReactNode {
  const actor = who(entry.actor, nameOf);
  const target = entry.target ?? "";
  const person = nameOf(target) ?? target;
  const detail = parseDetail(entry);
  const failed = entry.outcome !== "success";
  const tried = (done: string, attempt: string) => (failed ? attempt : done);
  const link = (href: string, text: string) => <Link href={href} className="link-text">{text}</Link>;
  switch (entry.action) {
    case "auth.sign_in":
      return failed ? <>A sign-in as {target} failed</> : <>{actor} signed in</>;
    case "auth.account_locked":
      return <>{person}'s account was locked after repeated failed sign-ins</>;
    case "auth.sign_out":
      return <>{actor} signed out</>;
    case "auth.session_ended":
      return <>{person}'s session was ended</>;
    case "users.add":
      return <>{actor} {tried("added", "tried to add")} {person} as a user</>;
    case "users.disable":
      return <>{actor} {tried("disabled", "tried to disable")} {person}</>;
    case "users.enable":
      return <>{actor} {tried("enabled", "tried to enable")} {person}</>;
    case "users.set_password":
      return <>{actor} {tried("set a new password for", "tried to set a password for")} {person}</>;
    case "users.unlock":
      return <>{actor} {tried("unlocked", "tried to unlock")} {person}</>;
    case "payments.order_create": {
      const id = typeof detail.orderId === "string" ? detail.orderId : null;
      return <>{actor} {tried("created order", "could not create an order")} {id ? link(paths.order(id), target) : target}</>;
    }
    case "payments.order_review":
      return <>An order's payment did not match its checkout, so it was held for review: {target}</>;
    case "payments.order_refund": {
      const amount = typeof detail.amount === "number" && typeof detail.currency === "string" ? formatMoney(detail.amount, detail.currency) : null;
      const order = typeof detail.order === "string" ? detail.order : "an order";
      return <>{actor} {tried("refunded", "tried to refund")} {amount ? `${amount} of ` : ""}order {link(paths.order(target), order)}</>;
    }
    case "payments.invoice_refund": {
      const amount = typeof detail.amount === "number" && typeof detail.currency === "string" ? formatMoney(detail.amount, detail.currency) : null;
      const subscription = typeof detail.subscription === "string" ? detail.subscription : null;
      return (
        <>
          {actor} {tried("refunded", "tried to refund")} {amount ? `${amount} of ` : ""}invoice {target}
          {subscription ? <> of subscription {link(paths.subscription(subscription), subscription)}</> : null}
        </>
      );
    }
    case "payments.license_key_reveal": {
      const short = typeof detail.keyShort === "string" ? detail.keyShort : target;
      const customer = typeof detail.customer === "string" ? ` (${detail.customer})` : "";
      return <>{actor} {tried("looked at the whole licence key", "tried to look at licence key")} {short}{customer}</>;
    }
    case "payments.license_key_update": {
      const changes = [
        detail.disabled === true ? "disabled it" : detail.disabled === false ? "enabled it" : null,
        "activation_limit" in detail ? (detail.activation_limit === null ? "removed its machine limit" : `limited it to ${String(detail.activation_limit)} machines`) : null,
        "expires_at" in detail ? (detail.expires_at === null ? "made it never expire" : `made it expire ${String(detail.expires_at).slice(0, 10)}`) : null,
      ].filter(Boolean);
      return <>{actor} {tried("changed", "tried to change")} licence key {target}{changes.length ? `: ${changes.join(", ")}` : ""}</>;
    }
    case "payments.discount_create": {
      const code = typeof detail.code === "string" ? detail.code : target;
      const fixed = typeof detail.amount === "number" && typeof detail.currency === "string" ? ` (${formatMoney(detail.amount, detail.currency)} off)` : "";
      const off = detail.amountType === "percent" && typeof detail.amount === "number" ? ` (${detail.amount} % off)` : fixed;
      return <>{actor} {tried("made", "tried to make")} the discount code {code}{off}</>;
    }
    case "payments.discount_delete": {
      const code = typeof detail.code === "string" ? detail.code : `discount ${target}`;
      return <>{actor} {tried("deleted", "tried to delete")} the discount code {code}</>;
    }
    case "payments.export":
      return <>{actor} exported {exportedRows(target, detail)}</>;
    case "docs.create": {
      const name = typeof detail.name === "string" ? `“${detail.name}”` : "a document";
      return <>{actor} {tried("created", "tried to create")} {name}</>;
    }
    case "docs.from_template": {
      const name = typeof detail.name === "string" ? `“${detail.name}”` : "a document";
      const template = typeof detail.template === "string" ? ` from “${detail.template}”` : "";
      return <>{actor} {tried("made", "tried to make")} {name}{template}</>;
    }
    case "docs.export": {
      const name = typeof detail.name === "string" ? `“${detail.name}”` : `a document (${target})`;
      const format = typeof detail.format === "string" ? ` as ${detail.format.toUpperCase()}` : "";
      return <>{actor} downloaded {name}{format}</>;
    }
    case "settings.templates_folder": {
      const name = typeof detail.name === "string" ? `“${detail.name}”` : target;
      return <>{actor} chose {name} as the templates folder</>;
    }
    case "docs.edit":
      return <>{actor} {tried("edited", "tried to edit")} a document ({target})</>;
    case "docs.share": {
      const people = Array.isArray(detail.permissions) ? detail.permissions.length : 0;
      return <>{actor} {tried("shared", "tried to share")} a document ({target}){people ? ` with ${people} ${people === 1 ? "person" : "people"}` : ""}</>;
    }
    case "settings.sync_interval": {
      const minutes = typeof detail.intervalSecs === "number" ? Math.round(detail.intervalSecs / 60) : null;
      return <>{actor} set payments to sync {minutes ? `every ${minutes} minute${minutes === 1 ? "" : "s"}` : "at a new interval"}</>;
    }
    case "settings.audit_retention":
      return <>{actor} changed how long the audit log keeps entries</>;
    case "settings.secret_set":
      return <>{actor} {tried("set", "tried to set")} the credential {target}</>;
    case "settings.google_sign_in":
      return <>{actor} {tried("connected", "tried to connect")} Google</>;
    case "settings.google_sign_out":
      return <>{actor} disconnected Google</>;
    case "settings.webhook_receiver":
      return <>{actor} switched the webhook receiver {target || ""}</>;
    default:
      if (entry.action in SUBSCRIPTION_VERBS) {
        return <>{actor} {failed ? `tried to change` : SUBSCRIPTION_VERBS[entry.action]} subscription {link(paths.subscription(target), target)}</>;
      }
      return <>{actor}: {entry.action} {target}</>;
  }
}
