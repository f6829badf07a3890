import { useState, type ReactNode } from "react";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useLocation, useRoute } from "wouter";
import { InvoiceTable } from "../components/Invoices";
import { ListBody } from "../components/ListBody";
import { billingTrouble, paymentMethod, priceLabel, PROVIDER_STATUSES, SubscriptionStatusBadge } from "../components/SubscriptionStatus";
import { useRefetchOnWebhook } from "../events";
import { can } from "../access";
import { api, describeError, formatMoney } from "../api";
import { formatDay, When } from "../format";
import { CustomerLink, paths } from "../links";
import type { PendingConfirmation, Subscription, SubscriptionActionRequest, SubscriptionStatusFilter, User } from "../types";
import { usePagedList } from "../paging";
import { useListState } from "../listState";
import { ExportButton } from "../components/ExportButton";
import { FromTemplate } from "../components/FromTemplate";
import { DetailPanel } from "../components/DetailPanel";
import { useDialog } from "../focus";

const PAGE_SIZE = 20;

type Action = "cancel" | "resume" | "pause" | "unpause" | "change-plan";
const ACTIONS: Record<Action, { label: string; confirm: string }> = {
  "change-plan": { label: "Change plan", confirm: "Move this subscription to another plan of the same product?" },
  cancel: { label: "Cancel", confirm: "Cancel this subscription? It stays active until the end of the paid period." },
  resume: { label: "Resume", confirm: "Resume this subscription? Billing continues as before." },
  pause: { label: "Pause", confirm: "Pause billing for this subscription?" },
  unpause: { label: "Unpause", confirm: "Start billing this subscription again?" },
};

/** The actions that make sense for a subscription in its provider status. */
function actionsFor(s: Subscription): Action[] {
  if (s.providerStatus === "expired") return [];
  if (s.providerStatus === "cancelled") return ["resume"];
  if (s.pauseMode) return ["unpause", "cancel"];
  return ["pause", "change-plan", "cancel"];
}

/** The extra choices an action takes: how and until when to pause, which plan to move to. */
interface Choices {
  mode: "void" | "free";
  resumesOn: string; // yyyy-mm-dd, or "" for "until unpaused"
  variantId: string;
}
const NO_CHOICES: Choices = { mode: "void", resumesOn: "", variantId: "" };

/** The body of an action's request, from the choices made in the confirmation. */
function requestFor(subscription: Subscription, action: Action, choices: Choices): SubscriptionActionRequest {
  if (action === "pause") {
    // Midnight of the chosen day, in the staff member's own time zone.
    const resumesAt = choices.resumesOn ? new Date(`${choices.resumesOn}T00:00:00`).toISOString() : undefined;
    return { id: subscription.id, action, mode: choices.mode, ...(resumesAt ? { resumesAt } : {}) };
  }
  if (action === "change-plan") return { id: subscription.id, action, variantId: choices.variantId };
  return { id: subscription.id, action };
}

/** The status filter's choices: every live one together, then each of the provider's. */
const STATUS_CHOICES: [SubscriptionStatusFilter, string][] = [
  ["active", "Live (trial, active, paused, past due, unpaid)"],
  ...Object.entries(PROVIDER_STATUSES)
    .filter(([value]) => value !== "active")
    .map(([value, label]) => [value, label] as [SubscriptionStatusFilter, string]),
];

/** Subscriptions: found by customer, status (the provider's own) and product; each with its
 *  price, payment method and billing trouble plain to see; confirmed actions; the chosen one's
 *  links for the customer in a pane beside the list. */
export function Subscriptions({ user }: { user: User }) {
  const queryClient = useQueryClient();
  const [, navigate] = useLocation();
  // The chosen subscription is in the location (#/subscriptions/<id>).
  const selected = useRoute("/subscriptions/:id")[1]?.id;
  const { filters, search, page, set, setPage, clear, filtered } = useListState("subscriptions", { search: "", status: "", product: "" });
  const status = filters.status as SubscriptionStatusFilter | "";
  const product = filters.product;
  const [pending, setPending] = useState<{ subscription: Subscription; action: Action } | null>(null);
  const [choices, setChoices] = useState<Choices>(NO_CHOICES);
  // Changes that wait for the customer (PayPal), by subscription id.
  const [waiting, setWaiting] = useState<Record<string, PendingConfirmation>>({});
  const list = usePagedList(
    (p) => ["subscriptions", status, product, search, p],
    (p) => api.listSubscriptions({ page: p, limit: PAGE_SIZE, status: status || null, productId: product || null, search: search || null }),
    page,
  );
  const products = useQuery({ queryKey: ["products", "all"], queryFn: () => api.listProducts({ limit: 100 }) });
  useRefetchOnWebhook([["subscriptions"], ["subscription"]]);
  const act = useMutation({
    mutationFn: ({ subscription, action }: { subscription: Subscription; action: Action }) =>
      api.actOnSubscription(requestFor(subscription, action, choices)),
    onSuccess: (result) => {
      setPending(null);
      const confirmation = result.pendingConfirmation;
      if (confirmation) setWaiting((w) => ({ ...w, [result.subscription.id]: confirmation }));
      void queryClient.invalidateQueries({ queryKey: ["subscriptions"] });
      void queryClient.invalidateQueries({ queryKey: ["subscription", result.subscription.id] });
    },
  });
  const ask = (subscription: Subscription, action: Action) => {
    act.reset();
    setChoices(NO_CHOICES);
    setPending({ subscription, action });
  };
  return (
    <section className={selected ? "content split" : "content"} aria-labelledby="subscriptions-title">
      <div className="stack">
        <div className="toolbar">
          <h2 id="subscriptions-title">Subscriptions</h2>
          <ExportButton list="subscriptions" noun="subscriptions" filters={{ status, productId: product, search }} />
        </div>
        <div className="toolbar filters" role="search" aria-label="Find subscriptions">
          <input className="search" type="search" aria-label="Search subscriptions" placeholder="Customer's name or e-mail" value={filters.search} onChange={(e) => set({ search: e.target.value })} />
          <label htmlFor="sub-status" className="muted">Status</label>
          <select id="sub-status" value={status} onChange={(e) => set({ status: e.target.value })}>
            <option value="">All</option>
            {STATUS_CHOICES.map(([value, label]) => <option key={value} value={value}>{label}</option>)}
          </select>
          <label htmlFor="sub-product" className="muted">Product</label>
          <select id="sub-product" value={product} onChange={(e) => set({ product: e.target.value })}>
            <option value="">All</option>
            {(products.data?.products ?? []).map((p) => <option key={p.id} value={p.id}>{p.name}</option>)}
          </select>
          {filtered && <button type="button" className="link" onClick={clear}>Clear</button>}
        </div>
        {pending && (
          <Confirm onCancel={() => { setPending(null); act.reset(); }}>
            <p>{ACTIONS[pending.action].confirm}</p>
            <p className="muted small">{pending.subscription.customerName ?? pending.subscription.customerEmail} · {pending.subscription.productName}</p>
            {pending.subscription.paymentProcessor === "paypal" && (
              <p className="small">Paid through PayPal: the change waits until the customer confirms it at a link you will be given.</p>
            )}
            {pending.action === "pause" && <PauseChoices choices={choices} onChange={setChoices} />}
            {pending.action === "change-plan" && (
              <PlanChoice subscription={pending.subscription} choices={choices} onChange={setChoices} />
            )}
            {act.isError && <p className="error" role="alert">{describeError(act.error)}</p>}
            <div className="row">
              <button type="button" onClick={() => { setPending(null); act.reset(); }}>Keep as is</button>
              <button
                type="button"
                className="primary"
                disabled={act.isPending || (pending.action === "change-plan" && !choices.variantId)}
                onClick={() => act.mutate(pending)}
              >
                {act.isPending ? "Working…" : `${ACTIONS[pending.action].label} subscription`}
              </button>
            </div>
          </Confirm>
        )}
        {Object.entries(waiting).map(([id, confirmation]) => (
          <div key={id} className="callout" role="status" aria-label={`Change of subscription ${id} waits for the customer`}>
            <strong>Waiting for the customer (subscription {id}).</strong> {confirmation.message}:{" "}
            <code>{confirmation.url}</code>{" "}
            <button type="button" className="link" onClick={() => void navigator.clipboard?.writeText(confirmation.url)}>Copy link</button>
            <button type="button" className="link" onClick={() => setWaiting(({ [id]: _, ...rest }) => rest)}>Dismiss</button>
          </div>
        ))}
        <ListBody
          query={list}
          items={list.data?.subscriptions}
          noun="subscriptions"
          empty={filtered ? "No subscriptions match." : "No subscriptions yet."}
          onPage={setPage}
        >
          {(subscriptions) => (
            <table className="table" aria-label="Subscriptions">
              <thead><tr><th>Customer</th><th>Product</th><th className="wide-only">Price</th><th className="wide-only">Payment</th><th>Status</th><th>Renews or ends</th><th><span className="sr-only">Actions</span></th></tr></thead>
              <tbody>
                {subscriptions.map((s) => (
                  <tr key={s.id} data-id={s.id} className={s.id === selected ? "selected" : billingTrouble(s) ? "trouble" : undefined}>
                    <td>
                      <button type="button" className="row-link" onClick={() => navigate(paths.subscription(s.id))}>
                        {s.customerName ?? s.customerEmail ?? s.customerId}
                      </button>
                      <div className="muted small"><CustomerLink id={s.customerId}>{s.customerEmail}</CustomerLink></div>
                    </td>
                    <td>{s.productName}<div className="muted small">{s.variantName}</div></td>
                    <td className="wide-only">{priceLabel(s, (cents) => formatMoney(cents, s.currency ?? "USD"))}</td>
                    <td className="wide-only">{paymentMethod(s)}</td>
                    <td>
                      <SubscriptionStatusBadge subscription={s} />
                      {waiting[s.id] && <div className="badge pending">change pending: customer confirms</div>}
                    </td>
                    <td className="muted"><When iso={s.endsAt ?? s.renewsAt} /></td>
                    <td>
                      <div className="row">
                        {actionsFor(s).map((a) => (
                          <button key={a} type="button" onClick={() => ask(s, a)} aria-label={`${ACTIONS[a].label} ${s.customerName ?? s.id}`}>
                            {ACTIONS[a].label}
                          </button>
                        ))}
                      </div>
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          )}
        </ListBody>
      </div>
      {selected && <SubscriptionDetail key={selected} id={selected} canRefund={can(user, "refund_invoice")} onClose={() => navigate(paths.area("subscriptions"))} />}
    </section>
  );
}

/** The chosen subscription as the provider has it now: plan, payment method, and the links the
 *  customer needs (signed for a day, so read afresh, never kept). */
function SubscriptionDetail({ id, canRefund, onClose }: { id: string; canRefund: boolean; onClose: () => void }) {
  const answer = useQuery({ queryKey: ["subscription", id], queryFn: () => api.getSubscription({ id }) });
  const subscription = answer.data?.subscription;
  return (
    <DetailPanel label={subscription ? `Subscription ${subscription.id}` : "Subscription"} onClose={onClose} className="stack">
      {answer.isPending && <p className="muted" role="status">Loading…</p>}
      {answer.isError && <p className="error" role="alert">{describeError(answer.error)}</p>}
      {answer.data && <SubscriptionShown s={answer.data.subscription} stale={answer.data.stale} canRefund={canRefund} onClose={onClose} />}
    </DetailPanel>
  );
}

function SubscriptionShown({ s, stale, canRefund, onClose }: { s: Subscription; stale: boolean; canRefund: boolean; onClose: () => void }) {
  const [copied, setCopied] = useState<string | null>(null);
  const copy = async (what: string, url: string) => {
    await navigator.clipboard?.writeText(url);
    setCopied(what);
  };
  return (
    <>
      <div className="toolbar">
        <h3>{s.productName} <span className="muted small">{s.variantName}</span></h3>
        <div className="spacer" />
        <button type="button" className="link" onClick={onClose} aria-label="Close">✕</button>
      </div>
      <p><SubscriptionStatusBadge subscription={s} /></p>
      <p className="small">
        <CustomerLink id={s.customerId}>{s.customerName ?? s.customerEmail}</CustomerLink>
        {s.customerName && <span className="muted"> · {s.customerEmail}</span>}
      </p>
      <FromTemplate madeFor={{ subscriptionId: s.id, label: s.customerName ?? s.customerEmail ?? s.id }} />
      <dl className="amounts">
        <dt>Price</dt><dd>{priceLabel(s, (cents) => formatMoney(cents, s.currency ?? "USD"))}</dd>
        <dt>Payment</dt><dd>{paymentMethod(s)}</dd>
        <dt>{s.endsAt ? "Ends" : "Renews"}</dt><dd>{formatDay(s.endsAt ?? s.renewsAt)}</dd>
        <dt>Since</dt><dd>{formatDay(s.createdAt)}</dd>
      </dl>
      {stale && <p className="muted small" role="status">Lemon Squeezy cannot be reached: the customer's links need it.</p>}
      {billingTrouble(s) && s.updatePaymentMethodUrl && (
        <div className="callout small">
          <p><strong>The last payment failed.</strong> Send the customer this link to update their card.</p>
          <button type="button" className="primary" onClick={() => void copy("card", s.updatePaymentMethodUrl!)}>Copy update-payment link</button>
        </div>
      )}
      <div className="row">
        {!billingTrouble(s) && s.updatePaymentMethodUrl && (
          <button type="button" onClick={() => void copy("card", s.updatePaymentMethodUrl!)}>Copy update-payment link</button>
        )}
        {s.portalUrl && <button type="button" onClick={() => void copy("portal", s.portalUrl!)}>Copy portal link</button>}
      </div>
      {copied && <p className="muted small" role="status">Copied the {copied === "card" ? "update-payment" : "portal"} link: it works for 24 hours.</p>}
      <SubscriptionInvoices id={s.id} canRefund={canRefund} recipient={s.customerEmail ?? s.customerName ?? "the customer"} />
    </>
  );
}

/** The subscription's invoices, from the cache, kept current by payment events. */
function SubscriptionInvoices({ id, canRefund, recipient }: { id: string; canRefund: boolean; recipient: string }) {
  const invoices = useQuery({ queryKey: ["invoices", id], queryFn: () => api.listInvoices({ id }) });
  useRefetchOnWebhook([["invoices", id]]);
  return (
    <div className="stack">
      <h4>Invoices {invoices.data && <span className="muted small">{invoices.data.meta.totalItems.toLocaleString()}</span>}</h4>
      {invoices.isPending && <p className="muted small" role="status">Loading invoices…</p>}
      {invoices.isError && <p className="error" role="alert">{describeError(invoices.error)}</p>}
      {invoices.data && <InvoiceTable invoices={invoices.data.invoices} canRefund={canRefund} recipient={recipient} label="Subscription's invoices" compact />}
    </div>
  );
}

function PauseChoices({ choices, onChange }: { choices: Choices; onChange: (c: Choices) => void }) {
  const tomorrow = new Date(Date.now() + 86_400_000).toISOString().slice(0, 10);
  return (
    <div className="row">
      <label htmlFor="pause-mode">While paused</label>
      <select id="pause-mode" value={choices.mode} onChange={(e) => onChange({ ...choices, mode: e.target.value as Choices["mode"] })}>
        <option value="void">Don’t charge, no access</option>
        <option value="free">Keep access for free</option>
      </select>
      <label htmlFor="pause-until">Resume on (optional)</label>
      <input id="pause-until" type="date" min={tomorrow} value={choices.resumesOn} onChange={(e) => onChange({ ...choices, resumesOn: e.target.value })} />
    </div>
  );
}

/** The product's other published subscription plans. */
function PlanChoice({ subscription, choices, onChange }: { subscription: Subscription; choices: Choices; onChange: (c: Choices) => void }) {
  const product = useQuery({ queryKey: ["product", subscription.productId], queryFn: async () => (await api.getProduct({ id: subscription.productId })).product });
  if (product.isPending) return <p className="muted small">Loading plans…</p>;
  if (product.isError) return <p className="error" role="alert">{describeError(product.error)}</p>;
  const plans = (product.data.variants ?? []).filter((v) => v.isSubscription && v.status === "published" && v.id !== subscription.variantId);
  if (plans.length === 0) return <p className="muted small">This product has no other plan to move to.</p>;
  return (
    <div className="row">
      <label htmlFor="new-plan">New plan</label>
      <select id="new-plan" value={choices.variantId} onChange={(e) => onChange({ ...choices, variantId: e.target.value })}>
        <option value="">Choose a plan…</option>
        {plans.map((v) => (
          <option key={v.id} value={v.id}>{v.name} — {formatMoney(v.price, product.data.currency)}</option>
        ))}
      </select>
    </div>
  );
}

/** The question before a subscription is changed: focus moves to its first choice (or "Keep as
 *  is"), Escape keeps the subscription as it is, and focus goes back to the row's button. */
function Confirm({ onCancel, children }: { onCancel: () => void; children: ReactNode }) {
  const dialog = useDialog<HTMLDivElement>(onCancel);
  return (
    <div ref={dialog} className="callout" role="alertdialog" aria-label="Confirm">
      {children}
    </div>
  );
}
