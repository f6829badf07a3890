import { formatDay } from "../format";
import type { Subscription, SubscriptionStatusFilter } from "../types";

/** The provider's seven statuses as staff say them; billing trouble first among the live ones. */
export const PROVIDER_STATUSES: Record<SubscriptionStatusFilter, string> = {
  on_trial: "Trial",
  active: "Active",
  paused: "Paused",
  past_due: "Past due",
  unpaid: "Unpaid",
  cancelled: "Cancelled",
  expired: "Expired",
};

/** Payment failed: the provider retries (past due) or has given up (unpaid). */
export function billingTrouble(s: Subscription): boolean {
  return s.providerStatus === "past_due" || s.providerStatus === "unpaid";
}

/** A badge of the subscription's own provider status, with what it means in a word more. */
export function SubscriptionStatusBadge({ subscription: s }: { subscription: Subscription }) {
  const label = PROVIDER_STATUSES[s.providerStatus as SubscriptionStatusFilter] ?? s.providerStatus;
  const note = s.pauseMode
    ? `${s.pauseMode === "free" ? "free access" : "no access"}${s.pauseResumesAt ? ` until ${formatDay(s.pauseResumesAt)}` : ""}`
    : billingTrouble(s) && s.lastPaymentAt
      ? `payment failed ${formatDay(s.lastPaymentAt)}`
      : null;
  return (
    <>
      <span className={`status provider-${s.providerStatus}`}>{label}</span>
      {note && <span className="muted small"> {note}</span>}
    </>
  );
}

/** How a subscription is paid: "Visa ···· 4242", "PayPal", or nothing known. */
export function paymentMethod(s: Subscription): string {
  if (s.paymentProcessor === "paypal") return "PayPal";
  if (s.cardBrand && s.cardLastFour) return `${s.cardBrand[0].toUpperCase()}${s.cardBrand.slice(1)} ···· ${s.cardLastFour}`;
  return "—";
}

/** "$9.99 / month", "$99.00 / 3 months". */
export function priceLabel(s: Subscription, money: (cents: number) => string): string {
  if (s.price === null) return "—";
  if (!s.interval) return money(s.price);
  const count = s.intervalCount ?? 1;
  return `${money(s.price)} / ${count === 1 ? s.interval : `${count} ${s.interval}s`}`;
}
