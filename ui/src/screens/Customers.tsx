import { useState } from "react";
import { useQuery } from "@tanstack/react-query";
import { Link, useLocation } from "wouter";
import { InvoiceTable } from "../components/Invoices";
import { LicenseKeyTable } from "../components/LicenseKeys";
import { ListBody } from "../components/ListBody";
import { OrderCells } from "../components/OrderCells";
import { SubscriptionStatusBadge } from "../components/SubscriptionStatus";
import { useRefetchOnWebhook } from "../events";
import { can } from "../access";
import { api, describeError, formatMoney } from "../api";
import { formatDay, When } from "../format";
import { paths } from "../links";
import type { CustomerStatus, User } from "../types";
import { usePagedList } from "../paging";
import { useListState } from "../listState";
import { ExportButton } from "../components/ExportButton";
import { FromTemplate } from "../components/FromTemplate";
import { FigureCard } from "../components/FigureCard";

const PAGE_SIZE = 20;

/** The provider's customer statuses: whether the store may e-mail them. */
export const CUSTOMER_STATUSES: Record<CustomerStatus, string> = {
  subscribed: "Subscribed to e-mails",
  unsubscribed: "Unsubscribed",
  archived: "Archived",
  requires_verification: "E-mail not verified",
  invalid_email: "E-mail invalid",
  bounced: "E-mail bounced",
};

function statusLabel(status: string): string {
  return CUSTOMER_STATUSES[status as CustomerStatus] ?? status;
}

/** Customers: the store's customers, newest first, found by name or e-mail. */
export function Customers() {
  const [, navigate] = useLocation();
  const { filters, search, page, set, setPage, clear, filtered } = useListState("customers", { search: "", status: "" });
  const status = filters.status as CustomerStatus | "";
  const list = usePagedList(
    (p) => ["customers", p, search, status],
    (p) => api.listCustomers({ page: p, limit: PAGE_SIZE, search: search || null, status: status || null }),
    page,
  );
  useRefetchOnWebhook([["customers"]]);
  return (
    <section className="content" aria-labelledby="customers-title">
      <div className="stack">
        <div className="toolbar">
          <h2 id="customers-title">Customers</h2>
          <ExportButton list="customers" noun="customers" filters={{ search, status }} />
        </div>
        <div className="toolbar filters" role="search" aria-label="Find customers">
          <input
            className="search"
            type="search"
            aria-label="Search customers"
            placeholder="Name or e-mail"
            value={filters.search}
            onChange={(e) => set({ search: e.target.value })}
          />
          <label htmlFor="customer-status" className="muted">E-mails</label>
          <select id="customer-status" value={status} onChange={(e) => set({ status: e.target.value })}>
            <option value="">All</option>
            {Object.entries(CUSTOMER_STATUSES).map(([value, label]) => <option key={value} value={value}>{label}</option>)}
          </select>
          {filtered && <button type="button" className="link" onClick={clear}>Clear</button>}
        </div>
        <ListBody
          query={list}
          items={list.data?.customers}
          noun="customers"
          empty={filtered ? "No customers match." : "No customers yet: they appear after the first sync."}
          onPage={setPage}
        >
          {(customers) => (
            <table className="table" aria-label="Customers">
              <thead><tr><th>Customer</th><th>Country</th><th className="number">Revenue</th><th className="number">MRR</th><th>Customer since</th></tr></thead>
              <tbody>
                {customers.map((c) => (
                  <tr key={c.id} data-id={c.id}>
                    <td>
                      <button type="button" className="row-link" onClick={() => navigate(paths.customer(c.id))}>{c.name || c.email}</button>
                      <div className="muted small">{c.email}{c.status !== "subscribed" ? ` · ${statusLabel(c.status)}` : ""}</div>
                    </td>
                    <td>{c.country ?? "—"}</td>
                    <td className="number">{formatMoney(c.totalRevenue, c.currency)}</td>
                    <td className="number">{c.mrr > 0 ? formatMoney(c.mrr, c.currency) : "—"}</td>
                    <td className="muted">{formatDay(c.createdAt)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          )}
        </ListBody>
      </div>
    </section>
  );
}

/** A customer's page: who they are, what they brought in, their portal link, their orders,
 *  subscriptions and invoices. */
export function CustomerPage({ id, user }: { id: string; user: User }) {
  const [, navigate] = useLocation();
  const customer = useQuery({ queryKey: ["customer", id], queryFn: async () => (await api.getCustomer({ id })).customer });
  useRefetchOnWebhook([["customer", id]]);
  const subscriptionNames = new Map(customer.data?.subscriptions.map((s) => [s.id, s.productName ?? s.productId]));
  const [copied, setCopied] = useState(false);
  const back = <Link href={paths.area("customers")} className="link-text">← Customers</Link>;
  if (customer.isPending) return <section className="content"><p>{back}</p><p className="muted" role="status">Loading the customer…</p></section>;
  if (customer.isError) return <section className="content"><p>{back}</p><p className="error" role="alert">{describeError(customer.error)}</p></section>;
  const c = customer.data;
  const money = (cents: number) => formatMoney(cents, c.currency);
  const copy = async (url: string) => {
    await navigator.clipboard?.writeText(url);
    setCopied(true);
  };
  return (
    <section className="content stack" aria-labelledby="customer-title">
      <p>{back}</p>
      <div className="toolbar">
        <h2 id="customer-title">{c.name || c.email}</h2>
        <span className="muted">{c.email}{c.country ? ` · ${c.country}` : ""} · customer since {formatDay(c.createdAt)}</span>
      </div>
      <FromTemplate madeFor={{ customerId: c.id, label: c.name || c.email }} />
      {c.stale && <p className="banner" role="status">Lemon Squeezy cannot be reached: these figures are as last synced, and there is no portal link.</p>}
      <div className="figures">
        <FigureCard value={money(c.totalRevenue)} label="Lifetime revenue, less refunds" />
        <FigureCard value={money(c.mrr)} label="MRR" />
        <FigureCard value={statusLabel(c.status)} label="E-mail status" valueClass="small-value" />
      </div>
      {c.portalUrl && (
        <div className="row">
          <button type="button" onClick={() => void copy(c.portalUrl!)}>Copy portal link</button>
          <span className="muted small" role="status">{copied ? "Copied: valid for 24 hours." : "The customer's billing portal: invoices, card, plan."}</span>
        </div>
      )}
      <h3>Orders <span className="muted small">{c.orderCount.toLocaleString()}</span></h3>
      {c.orders.length === 0 ? <p className="muted">No orders.</p> : (
        <table className="table" aria-label="Customer's orders">
          <thead><tr><th>Order</th><th>Customer</th><th className="wide-only">Product</th><th className="number">Total</th><th>Status</th><th>Created</th></tr></thead>
          <tbody>
            {c.orders.map((o) => (
              <tr key={o.id} data-id={o.orderId}>
                <td><button type="button" className="row-link" onClick={() => navigate(paths.order(o.id))}>{o.orderId}</button></td>
                <OrderCells order={o} />
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {c.orderCount > c.orders.length && (
        <p className="muted small">The newest {c.orders.length} of {c.orderCount.toLocaleString()} orders.</p>
      )}
      <h3>Subscriptions <span className="muted small">{c.subscriptionCount.toLocaleString()}</span></h3>
      {c.subscriptions.length === 0 ? <p className="muted">No subscriptions.</p> : (
        <table className="table" aria-label="Customer's subscriptions">
          <thead><tr><th>Product</th><th>Price</th><th>Status</th><th>Renews or ends</th></tr></thead>
          <tbody>
            {c.subscriptions.map((s) => (
              <tr key={s.id} data-id={s.id}>
                <td>
                  <button type="button" className="row-link" onClick={() => navigate(paths.subscription(s.id))}>{s.productName ?? s.productId}</button>
                  <div className="muted small">{s.variantName}</div>
                </td>
                <td>{s.price !== null ? formatMoney(s.price, c.currency) : "—"}</td>
                <td><SubscriptionStatusBadge subscription={s} /></td>
                <td className="muted"><When iso={s.endsAt ?? s.renewsAt} /></td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <h3>Invoices <span className="muted small">{c.invoiceCount.toLocaleString()}</span></h3>
      <InvoiceTable
        invoices={c.invoices}
        canRefund={can(user, "refund_invoice")}
        recipient={c.email}
        label="Customer's invoices"
        subscriptionLink={(invoice) => (
          <button type="button" className="row-link" onClick={() => navigate(paths.subscription(invoice.subscriptionId))}>
            {subscriptionNames.get(invoice.subscriptionId) ?? `#${invoice.subscriptionId}`}
          </button>
        )}
      />
      {c.invoiceCount > c.invoices.length && (
        <p className="muted small">The newest {c.invoices.length} of {c.invoiceCount.toLocaleString()} invoices.</p>
      )}
      <h3>Licence keys <span className="muted small">{c.licenseKeyCount.toLocaleString()}</span></h3>
      <LicenseKeyTable keys={c.licenseKeys} canChange={can(user, "update_license_key")} label="Customer's licence keys" />
      {c.licenseKeyCount > c.licenseKeys.length && (
        <p className="muted small">The newest {c.licenseKeys.length} of {c.licenseKeyCount.toLocaleString()} licence keys.</p>
      )}
    </section>
  );
}
