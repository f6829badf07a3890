import { useState } from "react";
import { useQuery, useQueryClient } from "@tanstack/react-query";
import { useLocation, useRoute } from "wouter";
import { OrderCells } from "../components/OrderCells";
import { OpenLinkButton } from "../components/OpenLink";
import { ListBody } from "../components/ListBody";
import { OrderLicenseKeys } from "../components/LicenseKeys";
import { RefundForm } from "../components/RefundForm";
import { useRefetchOnWebhook } from "../events";
import { can } from "../access";
import { api, describeError, formatMoney } from "../api";
import { dayAfter } from "../format";
import { ownRefund } from "../notifications";
import { CustomerLink, paths } from "../links";
import type { Order, OrderStatusFilter, User } from "../types";
import { usePagedList } from "../paging";
import { useListState } from "../listState";
import { ExportButton } from "../components/ExportButton";
import { FromTemplate } from "../components/FromTemplate";
import { DetailPanel } from "../components/DetailPanel";
import { useFocusBack } from "../focus";

const PAGE_SIZE = 20;

/** The status filter's choices: ours, then those only the provider has. */
const STATUSES: [OrderStatusFilter, string][] = [
  ["pending", "Pending"],
  ["paid", "Paid (refunds too)"],
  ["failed", "Failed"],
  ["refunded", "Refunded"],
  ["partial_refund", "Partly refunded"],
  ["fraudulent", "Fraudulent"],
];

/** Search text, status, and the days from and to (yyyy-mm-dd), "" for none: in the address. */
const NO_FILTERS = { search: "", status: "", from: "", to: "" };

/** Orders: every order of the store, newest first, searched and filtered, live as webhooks
 *  arrive; the chosen order's items, amounts, receipt and history, and its refund for admins. */
export function Orders({ user }: { user: User }) {
  const [, navigate] = useLocation();
  // The chosen order is in the location (#/orders/<id>), so the back button closes it.
  const selected = useRoute("/orders/:id")[1]?.id;
  const { filters, search, page, set: change, setPage, clear, filtered } = useListState("orders", NO_FILTERS);
  const status = filters.status as OrderStatusFilter | "";
  // Opening an order keeps the list's filters: the address's query stays as it is.
  const setSelected = (id: string) => navigate(paths.order(id));
  const list = usePagedList(
    (p) => ["orders", p, search, status, filters.from, filters.to],
    (p) =>
      api.listOrders({
        page: p,
        limit: PAGE_SIZE,
        search: search || null,
        status: status || null,
        from: filters.from || null,
        to: filters.to ? dayAfter(filters.to) : null,
      }),
    page,
  );
  // A webhook applied by the core changes an order: refetch, no reload.
  useRefetchOnWebhook([["orders"], ["order"], ["license-keys"]]);
  return (
    <section className={selected ? "content split" : "content"} aria-labelledby="orders-title">
      <div className="stack">
        <div className="toolbar">
          <h2 id="orders-title">Orders</h2>
          <ExportButton
            list="orders"
            noun="orders"
            filters={{ search, status, from: filters.from, to: filters.to ? dayAfter(filters.to) : null }}
          />
        </div>
        <div className="toolbar filters" role="search" aria-label="Find orders">
          <input
            className="search"
            type="search"
            aria-label="Search orders"
            placeholder="E-mail, name, #number or SR- reference"
            value={filters.search}
            onChange={(e) => change({ search: e.target.value })}
          />
          <label htmlFor="order-status" className="muted">Status</label>
          <select id="order-status" value={status} onChange={(e) => change({ status: e.target.value })}>
            <option value="">All</option>
            {STATUSES.map(([value, label]) => <option key={value} value={value}>{label}</option>)}
          </select>
          <label htmlFor="order-from" className="muted">From</label>
          <input id="order-from" type="date" value={filters.from} max={filters.to || undefined} onChange={(e) => change({ from: e.target.value })} />
          <label htmlFor="order-to" className="muted">To</label>
          <input id="order-to" type="date" value={filters.to} min={filters.from || undefined} onChange={(e) => change({ to: e.target.value })} />
          {filtered && <button type="button" className="link" onClick={clear}>Clear</button>}
        </div>
        <ListBody
          query={list}
          items={list.data?.orders}
          noun="orders"
          empty={filtered ? "No orders match." : "No orders yet. Create one from a product."}
          onPage={setPage}
        >
          {(orders) => (
            <table className="table" aria-label="Orders">
              <thead><tr><th>Order</th><th>Customer</th><th className="wide-only">Product</th><th>Total</th><th>Status</th><th>Created</th></tr></thead>
              <tbody>
                {orders.map((o) => (
                  <tr key={o.id} data-id={o.orderId} className={o.id === selected ? "selected" : undefined}>
                    <td>
                      <button type="button" className="row-link" onClick={() => setSelected(o.id)}>{o.orderId}</button>
                      {o.source === "store" && <div className="muted small">storefront</div>}
                    </td>
                    <OrderCells order={o} />
                  </tr>
                ))}
              </tbody>
            </table>
          )}
        </ListBody>
      </div>
      {selected && <OrderDetail key={selected} id={selected} canRefund={can(user, "refund_order")} onClose={() => navigate(paths.area("orders"))} />}
    </section>
  );
}

function OrderDetail({ id, canRefund, onClose }: { id: string; canRefund: boolean; onClose: () => void }) {
  const order = useQuery({ queryKey: ["order", id], queryFn: async () => (await api.getOrder({ id })).order });
  return (
    <DetailPanel label={order.data ? `Order ${order.data.orderId}` : "Order"} onClose={onClose}>
      {order.isPending && <p className="muted" role="status">Loading…</p>}
      {order.isError && <p className="error" role="alert">{describeError(order.error)}</p>}
      {order.data && <OrderShown o={order.data} canRefund={canRefund} />}
    </DetailPanel>
  );
}

function OrderShown({ o, canRefund }: { o: Order; canRefund: boolean }) {
  const money = (cents: number) => formatMoney(cents, o.currency);
  return (
    <>
      <h3>{o.orderId} <span className={`status status-${o.status}`}>{o.status}</span></h3>
      <p className="muted small">
        <CustomerLink id={o.customerId}>{o.name ?? o.email}</CustomerLink>{o.name ? ` · ${o.email}` : ""}
        {o.orderNumber !== null && o.source === "staffroom" ? ` · receipt #${o.orderNumber}` : ""}
        {o.paidAt ? ` · paid ${new Date(o.paidAt).toLocaleString()}` : ""}
      </p>
      {o.items.length > 0 && (
        <table className="table compact" aria-label="Items">
          <tbody>
            {o.items.map((item, i) => (
              <tr key={i}>
                <td>{item.productName ?? item.productId}<div className="muted small">{item.variantName}</div></td>
                <td className="muted">{item.quantity > 1 ? `${item.quantity} ×` : ""}</td>
                <td className="number">{money(item.price)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <dl className="amounts" aria-label="Amounts">
        <dt>Subtotal</dt><dd>{money(o.subtotal)}</dd>
        {o.discountTotal > 0 && <><dt>Discount</dt><dd>−{money(o.discountTotal)}</dd></>}
        {o.tax > 0 && <><dt>Tax</dt><dd>{money(o.tax)}</dd></>}
        <dt>Total</dt><dd><strong>{money(o.total)}</strong></dd>
        {o.refundedAmount > 0 && <><dt>Refunded</dt><dd>−{money(o.refundedAmount)}</dd></>}
      </dl>
      {o.refundedAmount > 0 && (
        <p className="small" role="status">
          Refunded {money(o.refundedAmount)}{o.refundedAmount >= o.total ? " (in full)" : ""}
          {o.refundedAt ? ` · ${new Date(o.refundedAt).toLocaleString()}` : ""}
        </p>
      )}
      <div className="row">
        {o.receiptUrl && <OpenLinkButton url={o.receiptUrl} kind="receipt">Open receipt</OpenLinkButton>}
        {canRefund && o.status === "paid" && o.providerOrderId && o.refundedAmount < o.total && <Refund order={o} />}
      </div>
      {o.review && (
        <p className="callout small" role="status">
          <strong>Needs review:</strong> a payment event did not match this order's checkout, so it was not marked paid ({o.review}). Check the order in Lemon Squeezy.
        </p>
      )}
      <FromTemplate madeFor={{ orderId: o.id, label: o.name ?? o.email }} />
      <OrderLicenseKeys orderId={o.id} />
      <h4>Events</h4>
      {(o.events ?? []).length === 0 ? (
        <p className="muted">No webhook has arrived for this order yet.</p>
      ) : (
        <ol className="plain" aria-label="Event history">
          {(o.events ?? []).map((e, i) => (
            <li key={i}>
              <strong>{e.eventName}</strong> <span className="muted small">{new Date(e.receivedAt).toLocaleString()}{e.outcome ? ` · ${e.outcome}` : ""}</span>
            </li>
          ))}
        </ol>
      )}
    </>
  );
}

/** Refunds an order, all that is left of it or part, after confirming what will be sent. */
function Refund({ order }: { order: Order }) {
  const queryClient = useQueryClient();
  const [open, setOpen] = useState(false);
  const [opener, focusBack] = useFocusBack<HTMLButtonElement>();
  const close = () => {
    setOpen(false);
    focusBack();
  };
  if (!open) return <button type="button" ref={opener} onClick={() => setOpen(true)}>Refund…</button>;
  return (
    <RefundForm
      left={order.total - order.refundedAmount}
      currency={order.currency}
      recipient={order.email}
      send={async (amount) => {
        const refunded = await ownRefund(order.id, () => api.refundOrder({ id: order.id, amount }));
        queryClient.setQueryData(["order", order.id], refunded.order);
      }}
      onRefunded={() => {
        close();
        void queryClient.invalidateQueries({ queryKey: ["orders"] });
      }}
      onCancel={close}
    />
  );
}
