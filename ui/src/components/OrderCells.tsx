import { formatMoney } from "../api";
import { When } from "../format";
import { CustomerLink } from "../links";
import type { Order } from "../types";

/** The provider's statuses worth showing beside ours (a refund keeps an order `paid`). */
const PROVIDER_NOTES: Record<string, string> = { refunded: "refunded", partial_refund: "partly refunded", fraudulent: "fraudulent" };

/** An order's customer, product, total, status and creation time, as table cells after its number.
 *  The product is `wide-only`: an order's panel beside the list shows its items. */
export function OrderCells({ order }: { order: Order }) {
  const note = order.providerStatus ? PROVIDER_NOTES[order.providerStatus] : undefined;
  const item = order.items[0];
  return (
    <>
      <td>
        <CustomerLink id={order.customerId}>{order.name ?? order.email}</CustomerLink>
        {order.name && <div className="muted small">{order.email}</div>}
      </td>
      <td className="wide-only">{item ? item.productName ?? item.productId : order.productId}{item?.variantName && <div className="muted small">{item.variantName}</div>}</td>
      <td className="number">{formatMoney(order.total, order.currency)}</td>
      <td>
        <span className={`status status-${order.status}`}>{order.status}</span>
        {note && <span className="muted small"> {note}</span>}
        {order.review && <span className="badge pending" title={order.review}> needs review</span>}
      </td>
      <td className="muted"><When iso={order.createdAt} /></td>
    </>
  );
}
