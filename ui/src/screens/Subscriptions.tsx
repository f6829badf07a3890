import { useState } from "react";
import { keepPreviousData, useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { Pager } from "../components/Pager";
import { useRefetchOnWebhook } from "../webhookEvents";
import { api, describeError } from "../api";
import type { Subscription } from "../types";

const PAGE_SIZE = 20;

type Action = "cancel" | "resume" | "pause" | "unpause";
const ACTIONS: Record<Action, { label: string; confirm: string }> = {
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
  return ["pause", "cancel"];
}

/** Subscriptions: status and customer filters, pages, confirmed actions. */
export function Subscriptions() {
  const queryClient = useQueryClient();
  const [status, setStatus] = useState("");
  const [customer, setCustomer] = useState("");
  const [page, setPage] = useState(1);
  const [pending, setPending] = useState<{ subscription: Subscription; action: Action } | null>(null);
  const list = useQuery({
    queryKey: ["subscriptions", status, customer, page],
    queryFn: () => api.listSubscriptions(page, PAGE_SIZE, status, customer),
    placeholderData: keepPreviousData,
  });
  useRefetchOnWebhook([["subscriptions"]]);
  const act = useMutation({
    mutationFn: ({ subscription, action }: { subscription: Subscription; action: Action }) =>
      api.actOnSubscription(subscription.id, action),
    onSuccess: () => {
      setPending(null);
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
          <select id="sub-status" value={status} onChange={(e) => { setStatus(e.target.value); setPage(1); }}>
            <option value="">All</option>
            <option value="active">Active</option>
            <option value="cancelled">Cancelled</option>
            <option value="expired">Expired</option>
          </select>
          <label htmlFor="sub-customer" className="muted">Customer id</label>
          <input id="sub-customer" className="narrow" value={customer} onChange={(e) => { setCustomer(e.target.value.trim()); setPage(1); }} />
        </div>
        {meta?.stale && <div className="banner" role="status">Lemon Squeezy cannot be reached: showing subscriptions as last synced.</div>}
        {pending && (
          <div className="callout" role="alertdialog" aria-label="Confirm">
            <p>{ACTIONS[pending.action].confirm}</p>
            <p className="muted small">{pending.subscription.customerName ?? pending.subscription.customerEmail} · {pending.subscription.productName}</p>
            {act.isError && <p className="error" role="alert">{describeError(act.error)}</p>}
            <div className="row">
              <button type="button" onClick={() => { setPending(null); act.reset(); }}>Keep as is</button>
              <button type="button" className="primary" disabled={act.isPending} onClick={() => act.mutate(pending)}>
                {act.isPending ? "Working…" : `${ACTIONS[pending.action].label} subscription`}
              </button>
            </div>
          </div>
        )}
        {list.isPending && <p className="muted">Loading subscriptions…</p>}
        {list.isError && <p className="error" role="alert">{describeError(list.error)}</p>}
        {list.data && list.data.subscriptions.length === 0 && <p className="muted">No subscriptions match.</p>}
        {list.data && list.data.subscriptions.length > 0 && (
          <table className="table" aria-label="Subscriptions">
            <thead><tr><th>Customer</th><th>Product</th><th>Status</th><th>Renews or ends</th><th><span className="sr-only">Actions</span></th></tr></thead>
            <tbody>
              {list.data.subscriptions.map((s) => (
                <tr key={s.id}>
                  <td>{s.customerName ?? s.customerEmail ?? s.customerId}<div className="muted small">{s.customerEmail}</div></td>
                  <td>{s.productName}<div className="muted small">{s.variantName}</div></td>
                  <td><span className={`status status-${s.status}`}>{s.status}</span> <span className="muted small">{s.pauseMode ? "paused" : s.providerStatus}</span></td>
                  <td className="muted">{new Date(s.endsAt ?? s.renewsAt).toLocaleDateString()}</td>
                  <td>
                    <div className="row">
                      {actionsFor(s).map((a) => (
                        <button key={a} type="button" onClick={() => { act.reset(); setPending({ subscription: s, action: a }); }} aria-label={`${ACTIONS[a].label} ${s.customerName ?? s.id}`}>
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
