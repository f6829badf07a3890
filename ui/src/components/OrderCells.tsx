import { formatMoney } from "../api";
import type { Order } from "../types";

/** An order's customer, total, status and creation time, as table cells after its number. */
export function OrderCells({ order }: { order: Order }) {
  return (
    <>
      <td>{order.name ?? order.email}</td>
      <td>{formatMoney(order.total, order.currency)}</td>
      <td>
        <span className={`status status-${order.status}`}>{order.status}</span>
        {order.review && <span className="badge pending" title={order.review}> needs review</span>}
      </td>
      <td className="muted">{new Date(order.createdAt).toLocaleString()}</td>
    </>
  );
}
