import { useQuery } from "@tanstack/react-query";
import { useLocation } from "wouter";
import { api, describeError } from "../api";
import { Money } from "../components/Money";
import { OrderCells } from "../components/OrderCells";
import { billingTrouble, priceLabel, SubscriptionStatusBadge } from "../components/SubscriptionStatus";
import { useRefetchOnWebhook } from "../events";
import { formatMoney } from "../api";
import { CustomerLink, paths } from "../links";
import { ConnectionAlert } from "../components/ConnectionAlert";
import type { AppInfo, Subscription, User } from "../types";
import { FigureCard } from "../components/FigureCard";

type Destination = "products" | "orders" | "subscriptions";

interface Props {
  info: AppInfo;
  user: User;
  onGo: (area: Destination) => void;
}

/** The first screen after signing in: the day's figures at a glance, each a way into its screen. */
export function Overview({ info, user, onGo }: Props) {
  const orders = useQuery({ queryKey: ["orders", "overview"], queryFn: () => api.listOrders({ page: 1, limit: 5 }) });
  const active = useQuery({ queryKey: ["subscriptions", "overview", "active"], queryFn: () => api.listSubscriptions({ page: 1, limit: 1, status: "active" }) });
  const products = useQuery({ queryKey: ["products", "overview"], queryFn: () => api.listProducts({ page: 1, limit: 1, status: "published" }) });
  const sync = useQuery({ queryKey: ["sync-status"], queryFn: api.syncStatus });
  useRefetchOnWebhook([["orders"], ["subscriptions"]]);
  const lastSync = sync.data?.resources.map((r) => r.syncedAt).filter((t): t is string => Boolean(t)).sort()[0];

  return (
    <section className="content stack" aria-labelledby="welcome">
      <h2 id="welcome">Welcome, {user.name}</h2>
      <p className="muted">
        Signed in as <strong>{user.email}</strong>
        {info.sandbox ? " in the sandbox: payments and documents are simulated on this computer." : "."}
        {lastSync && ` Payments last synced ${new Date(lastSync).toLocaleString()}.`}
      </p>
      <ConnectionAlert user={user} />
      <div className="figures">
        <Figure label="Live subscriptions (trial, active, paused, payment failed)" query={active} value={(d) => d.meta.totalItems} onOpen={() => onGo("subscriptions")} />
        <Figure label="Published products" query={products} value={(d) => d.meta.totalItems} onOpen={() => onGo("products")} />
        <Figure label="Orders" query={orders} value={(d) => d.meta.totalItems} onOpen={() => onGo("orders")} />
      </div>
      <Money onGo={onGo} />
      <PaymentTrouble />
      <div className="card stack" aria-labelledby="recent-orders">
        <h3 id="recent-orders">Latest orders</h3>
        {orders.isPending && <p className="muted">Loading orders…</p>}
        {orders.isError && <p className="error" role="alert">{describeError(orders.error)}</p>}
        {orders.data?.orders.length === 0 && <p className="muted">No orders yet. Create one from a product.</p>}
        {orders.data && orders.data.orders.length > 0 && (
          <table className="table" aria-label="Latest orders">
            <tbody>
              {orders.data.orders.map((o) => (
                <tr key={o.id}>
                  <td>{o.orderId}</td>
                  <OrderCells order={o} />
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </div>
    </section>
  );
}

/** How many past-due and how many unpaid subscriptions the Overview lists. */
const TROUBLE_SHOWN = 5;

/** The subscriptions whose payment failed: past due (the provider retries) and unpaid (it has
 *  given up), with a way to each one's update-payment link. */
function PaymentTrouble() {
  const [, navigate] = useLocation();
  const pastDue = useQuery({ queryKey: ["subscriptions", "overview", "past_due"], queryFn: () => api.listSubscriptions({ limit: TROUBLE_SHOWN, status: "past_due" }) });
  const unpaid = useQuery({ queryKey: ["subscriptions", "overview", "unpaid"], queryFn: () => api.listSubscriptions({ limit: TROUBLE_SHOWN, status: "unpaid" }) });
  const shown: Subscription[] = [...(pastDue.data?.subscriptions ?? []), ...(unpaid.data?.subscriptions ?? [])];
  const total = (pastDue.data?.meta.totalItems ?? 0) + (unpaid.data?.meta.totalItems ?? 0);
  const error = pastDue.error ?? unpaid.error;
  return (
    <div className="card stack" aria-labelledby="trouble-title">
      <div className="toolbar">
        <h3 id="trouble-title">Payment failed <span className="muted small">{total.toLocaleString()}</span></h3>
        <div className="spacer" />
        {total > shown.length && <span className="muted small">the newest {TROUBLE_SHOWN} of each kind</span>}
      </div>
      {error && <p className="error" role="alert">{describeError(error)}</p>}
      {!error && pastDue.data && unpaid.data && shown.length === 0 && <p className="muted">Every subscription's last payment went through.</p>}
      {shown.length > 0 && (
        <table className="table" aria-label="Subscriptions whose payment failed">
          <tbody>
            {shown.filter(billingTrouble).map((s) => (
              <tr key={s.id} className="trouble">
                <td><CustomerLink id={s.customerId}>{s.customerName ?? s.customerEmail}</CustomerLink><div className="muted small">{s.customerEmail}</div></td>
                <td>{s.productName}<div className="muted small">{priceLabel(s, (cents) => formatMoney(cents, s.currency ?? "USD"))}</div></td>
                <td><SubscriptionStatusBadge subscription={s} /></td>
                <td><button type="button" onClick={() => navigate(paths.subscription(s.id))}>Open</button></td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </div>
  );
}

interface FigureProps<T> {
  label: string;
  query: { data?: T; isPending: boolean; isError: boolean };
  value: (data: T) => number;
  onOpen: () => void;
}

/** One figure; a click opens its screen. */
function Figure<T>({ label, query, value, onOpen }: FigureProps<T>) {
  const shown = query.data !== undefined ? value(query.data).toLocaleString() : query.isError ? "—" : "…";
  return <FigureCard value={shown} label={label} onOpen={onOpen} />;
}
