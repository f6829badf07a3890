import { useState, type FormEvent } from "react";
import { keepPreviousData, useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { OrderCells } from "../components/OrderCells";
import { Pager } from "../components/Pager";
import { useRefetchOnWebhook } from "../events";
import { api, describeError, fieldError, formatMoney } from "../api";
import type { Order, User } from "../types";

const PAGE_SIZE = 20;

/** Orders: newest first, live as webhooks arrive; the chosen order's event history, and its
 *  refund for admins. */
export function Orders({ user }: { user: User }) {
  const [page, setPage] = useState(1);
  const [selected, setSelected] = useState<string | null>(null);
  const list = useQuery({
    queryKey: ["orders", page],
    queryFn: () => api.listOrders({ page, limit: PAGE_SIZE }),
    placeholderData: keepPreviousData,
  });
  // A webhook applied by the core changes an order: refetch, no reload.
  useRefetchOnWebhook([["orders"], ["order"]]);
  const meta = list.data?.meta;
  return (
    <section className={selected ? "content split" : "content"} aria-labelledby="orders-title">
      <div className="stack">
        <div className="toolbar"><h2 id="orders-title">Orders</h2></div>
        {list.isPending && <p className="muted">Loading orders…</p>}
        {list.isError && <p className="error" role="alert">{describeError(list.error)}</p>}
        {list.data && list.data.orders.length === 0 && <p className="muted">No orders yet. Create one from a product.</p>}
        {list.data && list.data.orders.length > 0 && (
          <table className="table" aria-label="Orders">
            <thead><tr><th>Order</th><th>Customer</th><th>Total</th><th>Status</th><th>Created</th></tr></thead>
            <tbody>
              {list.data.orders.map((o) => (
                <tr key={o.id} data-id={o.orderId} className={o.id === selected ? "selected" : undefined}>
                  <td><button type="button" className="row-link" onClick={() => setSelected(o.id)}>{o.orderId}</button></td>
                  <OrderCells order={o} />
                </tr>
              ))}
            </tbody>
          </table>
        )}
        {meta && <Pager meta={meta} noun="orders" onPage={setPage} />}
      </div>
      {selected && <OrderDetail key={selected} id={selected} canRefund={user.role === "admin"} />}
    </section>
  );
}

function OrderDetail({ id, canRefund }: { id: string; canRefund: boolean }) {
  const order = useQuery({ queryKey: ["order", id], queryFn: async () => (await api.getOrder({ id })).order });
  if (order.isPending) return <aside className="card detail"><p className="muted">Loading…</p></aside>;
  if (order.isError) return <aside className="card detail"><p className="error" role="alert">{describeError(order.error)}</p></aside>;
  const o = order.data;
  return (
    <aside className="card detail" aria-label={`Order ${o.orderId}`}>
      <h3>{o.orderId} <span className={`status status-${o.status}`}>{o.status}</span></h3>
      <p className="muted small">{o.email} · {formatMoney(o.total, o.currency)}{o.paidAt ? ` · paid ${new Date(o.paidAt).toLocaleString()}` : ""}</p>
      {o.refundedAmount > 0 && (
        <p className="small" role="status">
          Refunded {formatMoney(o.refundedAmount, o.currency)}{o.refundedAmount >= o.total ? " (in full)" : ""}
          {o.refundedAt ? ` · ${new Date(o.refundedAt).toLocaleString()}` : ""}
        </p>
      )}
      {canRefund && o.status === "paid" && o.refundedAmount < o.total && <Refund order={o} />}
      {o.review && (
        <p className="callout small" role="status">
          <strong>Needs review:</strong> a payment event did not match this order's checkout, so it was not marked paid ({o.review}). Check the order in Lemon Squeezy.
        </p>
      )}
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
    </aside>
  );
}

/** Refunds an order, all that is left of it or part, after confirming. */
function Refund({ order }: { order: Order }) {
  const queryClient = useQueryClient();
  const left = order.total - order.refundedAmount;
  const [open, setOpen] = useState(false);
  const [part, setPart] = useState("");
  const refund = useMutation({
    mutationFn: () => api.refundOrder({ id: order.id, amount: part ? Math.round(Number(part) * 100) : null }),
    onSuccess: (answer) => {
      setOpen(false);
      setPart("");
      queryClient.setQueryData(["order", order.id], answer.order);
      void queryClient.invalidateQueries({ queryKey: ["orders"] });
    },
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    refund.mutate();
  };
  if (!open) return <button type="button" onClick={() => setOpen(true)}>Refund…</button>;
  const amount = part ? Math.round(Number(part) * 100) : left;
  return (
    <form className="callout stack" role="alertdialog" aria-label="Refund" onSubmit={submit} noValidate>
      <p>
        Refund {formatMoney(amount > 0 ? amount : left, order.currency)} to {order.email}? Lemon Squeezy returns the money to the
        customer; it cannot be undone.
      </p>
      <label htmlFor="refund-part">Part only (optional; up to {formatMoney(left, order.currency)})</label>
      <input id="refund-part" inputMode="decimal" placeholder={(left / 100).toFixed(2)} value={part} onChange={(e) => setPart(e.target.value)} />
      {fieldError(refund.error, "amount") && <p className="error">Amount {fieldError(refund.error, "amount")}</p>}
      {refund.isError && !fieldError(refund.error, "amount") && <p className="error" role="alert">{describeError(refund.error)}</p>}
      <div className="row">
        <button type="button" onClick={() => { setOpen(false); refund.reset(); }}>Keep as is</button>
        <button type="submit" className="primary" disabled={refund.isPending}>{refund.isPending ? "Refunding…" : "Refund"}</button>
      </div>
    </form>
  );
}
