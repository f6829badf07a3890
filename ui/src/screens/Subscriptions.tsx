import { useState } from "react";
import { keepPreviousData, useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { Pager } from "../components/Pager";
import { StaleBanner } from "../components/StaleBanner";
import { useRefetchOnWebhook } from "../events";
import { api, describeError, formatMoney } from "../api";
import type { PendingConfirmation, Subscription, SubscriptionActionRequest, SubscriptionStatus } from "../types";

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

function pausedLabel(s: Subscription): string {
  const how = s.pauseMode === "free" ? "paused, free" : "paused";
  return s.pauseResumesAt ? `${how} until ${new Date(s.pauseResumesAt).toLocaleDateString()}` : how;
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

/** Subscriptions: status and customer filters, pages, confirmed actions. */
export function Subscriptions() {
  const queryClient = useQueryClient();
  const [status, setStatus] = useState<SubscriptionStatus | "">("");
  const [customer, setCustomer] = useState("");
  const [page, setPage] = useState(1);
  const [pending, setPending] = useState<{ subscription: Subscription; action: Action } | null>(null);
  const [choices, setChoices] = useState<Choices>(NO_CHOICES);
  // Changes that wait for the customer (PayPal), by subscription id.
  const [waiting, setWaiting] = useState<Record<string, PendingConfirmation>>({});
  const list = useQuery({
    queryKey: ["subscriptions", status, customer, page],
    queryFn: () => api.listSubscriptions({ page, limit: PAGE_SIZE, status: status || null, customerId: customer || null }),
    placeholderData: keepPreviousData,
  });
  useRefetchOnWebhook([["subscriptions"]]);
  const act = useMutation({
    mutationFn: ({ subscription, action }: { subscription: Subscription; action: Action }) =>
      api.actOnSubscription(requestFor(subscription, action, choices)),
    onSuccess: (result) => {
      setPending(null);
      const confirmation = result.pendingConfirmation;
      if (confirmation) setWaiting((w) => ({ ...w, [result.subscription.id]: confirmation }));
      void queryClient.invalidateQueries({ queryKey: ["subscriptions"] });
    },
  });
  const meta = list.data?.meta;
  return (
    <section className="content" aria-labelledby="subscriptions-title">
      <div className="stack">
        <div className="toolbar">
          <h2 id="subscriptions-title">Subscriptions</h2>
          <div className="spacer" />
          <label htmlFor="sub-status" className="muted">Status</label>
          <select id="sub-status" value={status} onChange={(e) => { setStatus(e.target.value as SubscriptionStatus | ""); setPage(1); }}>
            <option value="">All</option>
            <option value="active">Active</option>
            <option value="cancelled">Cancelled</option>
            <option value="expired">Expired</option>
          </select>
          <label htmlFor="sub-customer" className="muted">Customer id</label>
          <input id="sub-customer" className="narrow" value={customer} onChange={(e) => { setCustomer(e.target.value.trim()); setPage(1); }} />
        </div>
        {meta?.stale && <StaleBanner what="the subscriptions" syncedAt={meta.syncedAt} />}
        {pending && (
          <div className="callout" role="alertdialog" aria-label="Confirm">
            <p>{ACTIONS[pending.action].confirm}</p>
            <p className="muted small">{pending.subscription.customerName ?? pending.subscription.customerEmail} · {pending.subscription.productName}</p>
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
          </div>
        )}
        {Object.entries(waiting).map(([id, confirmation]) => (
          <div key={id} className="callout" role="status" aria-label={`Change of subscription ${id} waits for the customer`}>
            <strong>Waiting for the customer (subscription {id}).</strong> {confirmation.message}:{" "}
            <code>{confirmation.url}</code>{" "}
            <button type="button" className="link" onClick={() => void navigator.clipboard?.writeText(confirmation.url)}>Copy link</button>
            <button type="button" className="link" onClick={() => setWaiting(({ [id]: _, ...rest }) => rest)}>Dismiss</button>
          </div>
        ))}
        {list.isPending && <p className="muted">Loading subscriptions…</p>}
        {list.isError && <p className="error" role="alert">{describeError(list.error)}</p>}
        {list.data && list.data.subscriptions.length === 0 && <p className="muted">No subscriptions match.</p>}
        {list.data && list.data.subscriptions.length > 0 && (
          <table className="table" aria-label="Subscriptions">
            <thead><tr><th>Customer</th><th>Product</th><th>Status</th><th>Renews or ends</th><th><span className="sr-only">Actions</span></th></tr></thead>
            <tbody>
              {list.data.subscriptions.map((s) => (
                <tr key={s.id} data-id={s.id}>
                  <td>{s.customerName ?? s.customerEmail ?? s.customerId}<div className="muted small">{s.customerEmail}</div></td>
                  <td>{s.productName}<div className="muted small">{s.variantName}</div></td>
                  <td>
                    <span className={`status status-${s.status}`}>{s.status}</span> <span className="muted small">{s.pauseMode ? pausedLabel(s) : s.providerStatus}</span>
                    {waiting[s.id] && <div className="badge pending">change pending: customer confirms</div>}
                  </td>
                  <td className="muted">{new Date(s.endsAt ?? s.renewsAt).toLocaleDateString()}</td>
                  <td>
                    <div className="row">
                      {actionsFor(s).map((a) => (
                        <button key={a} type="button" onClick={() => { act.reset(); setChoices(NO_CHOICES); setPending({ subscription: s, action: a }); }} aria-label={`${ACTIONS[a].label} ${s.customerName ?? s.id}`}>
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
        {meta && <Pager meta={meta} noun="subscriptions" onPage={setPage} />}
      </div>
    </section>
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
