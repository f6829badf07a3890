import { Fragment, useState } from "react";
import { useQueryClient } from "@tanstack/react-query";
import { api, formatMoney } from "../api";
import { ownRefund } from "../notifications";
import { formatDay } from "../format";
import { RefundForm } from "./RefundForm";
import { OpenLinkButton } from "./OpenLink";
import type { Invoice } from "../types";

/** Why an invoice was made, as staff say it. */
const REASONS: Record<string, string> = { initial: "First payment", renewal: "Renewal", updated: "Plan change" };

/** An invoice's status as staff say it; `pending` is a payment still owed (a failed renewal the
 *  provider retries). */
const STATUSES: Record<string, [string, string]> = {
  paid: ["Paid", "status-paid"],
  pending: ["Payment due", "status-pending"],
  void: ["Void", "status-failed"],
  refunded: ["Refunded", "status-refunded"],
  partial_refund: ["Partly refunded", "status-pending"],
};

function refundable(invoice: Invoice): boolean {
  return (invoice.status === "paid" || invoice.status === "partial_refund") && invoice.refundedAmount < invoice.total;
}

/** A subscription's or a customer's invoices, newest first: when, why, how much (and how much
 *  was refunded), the card, the status, the invoice itself, and a refund for admins. `compact`
 *  fits a side panel: the reason goes under the date, the status under the total, and the card
 *  (the subscription's) is left out. */
export function InvoiceTable({ invoices, canRefund, recipient, subscriptionLink, label, compact = false }: {
  invoices: Invoice[];
  canRefund: boolean;
  /** Who a refund goes to, for its question. */
  recipient: string;
  /** Each invoice's subscription, on a page that shows several. */
  subscriptionLink?: (invoice: Invoice) => React.ReactNode;
  label: string;
  compact?: boolean;
}) {
  const queryClient = useQueryClient();
  const [refunding, setRefunding] = useState<string | null>(null);
  const [done, setDone] = useState<string | null>(null);
  if (invoices.length === 0) return <p className="muted">No invoices yet.</p>;
  const columns = 3 + (subscriptionLink ? 1 : 0) + (compact ? 0 : 3);
  return (
    <>
      <table className={compact ? "table compact" : "table"} aria-label={label}>
        <thead>
          <tr>
            <th>Date</th>
            {subscriptionLink && <th>Subscription</th>}
            {!compact && <th>For</th>}
            <th className="number">Total</th>
            {!compact && <th>Card</th>}
            {!compact && <th>Status</th>}
            <th><span className="visually-hidden">Actions</span></th>
          </tr>
        </thead>
        <tbody>
          {invoices.map((invoice) => {
            const [status, tone] = STATUSES[invoice.status] ?? [invoice.status, ""];
            const money = (cents: number) => formatMoney(cents, invoice.currency);
            const reason = REASONS[invoice.billingReason] ?? invoice.billingReason;
            return (
              <Fragment key={invoice.id}>
                <tr data-id={invoice.id} className={invoice.status === "pending" || invoice.status === "void" ? "trouble" : undefined}>
                  <td className="nowrap">
                    {formatDay(invoice.createdAt)}
                    {compact && <div className="muted small">{reason}</div>}
                  </td>
                  {subscriptionLink && <td>{subscriptionLink(invoice)}</td>}
                  {!compact && <td>{reason}</td>}
                  <td className="number nowrap">
                    {money(invoice.total)}
                    {invoice.refundedAmount > 0 && <div className="muted small">−{money(invoice.refundedAmount)} refunded</div>}
                    {compact && <div><span className={`status ${tone}`}>{status}</span></div>}
                  </td>
                  {!compact && <td className="muted">{cardLabel(invoice)}</td>}
                  {!compact && <td><span className={`status ${tone}`}>{status}</span></td>}
                  <td>
                    <div className={compact ? "stack-tight" : "row nowrap"}>
                      {invoice.invoiceUrl && (
                        <OpenLinkButton url={invoice.invoiceUrl} kind="invoice" className="link" label={`Open the invoice of ${formatDay(invoice.createdAt)}`}>Invoice</OpenLinkButton>
                      )}
                      {canRefund && refundable(invoice) && (
                        // Stays while its form is open, so that focus comes back to it.
                        <button type="button" className={compact ? "link" : undefined} aria-expanded={refunding === invoice.id} onClick={() => { setRefunding(invoice.id); setDone(null); }} aria-label={`Refund the invoice of ${formatDay(invoice.createdAt)}…`}>Refund…</button>
                      )}
                    </div>
                  </td>
                </tr>
                {refunding === invoice.id && (
                  <tr>
                    <td colSpan={columns}>
                      <RefundForm
                        left={invoice.total - invoice.refundedAmount}
                        currency={invoice.currency}
                        recipient={recipient}
                        send={(amount) => ownRefund(invoice.id, () => api.refundInvoice({ id: invoice.id, amount }))}
                        onRefunded={() => {
                          setRefunding(null);
                          setDone(invoice.id);
                          void queryClient.invalidateQueries({ queryKey: ["invoices"] });
                          void queryClient.invalidateQueries({ queryKey: ["customer"] });
                        }}
                        onCancel={() => setRefunding(null)}
                      />
                    </td>
                  </tr>
                )}
              </Fragment>
            );
          })}
        </tbody>
      </table>
      {done && <p className="muted small" role="status">Refunded. Lemon Squeezy returns the money to the customer within a few days.</p>}
    </>
  );
}

/** "Visa ···· 4242", or PayPal's empty card. */
function cardLabel(invoice: Invoice): string {
  if (invoice.cardBrand && invoice.cardLastFour) return `${invoice.cardBrand[0].toUpperCase()}${invoice.cardBrand.slice(1)} ···· ${invoice.cardLastFour}`;
  return "—";
}
