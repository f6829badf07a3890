import { useState } from "react";
import { useQuery } from "@tanstack/react-query";
import { api, describeError, formatMoney } from "../api";
import { RevenueChart } from "./RevenueChart";
import { useRefetchOnWebhook } from "../events";

/** The start of the day `days` ago (UTC), as the summary's `from`. */
function daysAgo(days: number): string {
  const start = new Date();
  start.setUTCHours(0, 0, 0, 0);
  start.setUTCDate(start.getUTCDate() - (days - 1));
  return start.toISOString().slice(0, 10);
}

/** The Overview's money: revenue, refunds and net over the last 30 or 90 days, MRR, and the
 *  subscriptions that need attention, with a chart of each day's net revenue. */
export function Money({ onGo }: { onGo: (area: "orders" | "subscriptions") => void }) {
  const [days, setDays] = useState<30 | 90>(30);
  const summary = useQuery({
    queryKey: ["summary", days],
    queryFn: async () => (await api.getSummary({ from: daysAgo(days) })).summary,
  });
  useRefetchOnWebhook([["summary"]]);
  const s = summary.data;
  const money = (cents: number) => (s ? formatMoney(cents, s.currency) : "…");
  return (
    <div className="card stack" aria-labelledby="money-title">
      <div className="toolbar">
        <h3 id="money-title">Revenue, last {days} days</h3>
        <div className="spacer" />
        <div className="segmented" role="group" aria-label="Days shown">
          {([30, 90] as const).map((n) => (
            <button key={n} type="button" aria-pressed={days === n} onClick={() => setDays(n)}>{n} days</button>
          ))}
        </div>
      </div>
      {summary.isError && <p className="error" role="alert">{describeError(summary.error)}</p>}
      {s?.stale && <p className="callout small" role="status">The last sync failed: these figures are from {s.syncedAt ? new Date(s.syncedAt).toLocaleString() : "before it"}.</p>}
      <div className="figures">
        <div className="figure card" role="group" aria-label={`Net revenue: ${money(s?.netRevenue ?? 0)}`}>
          <span className="figure-value">{money(s?.netRevenue ?? 0)}</span>
          <span className="muted small">Net revenue · {money(s?.grossRevenue ?? 0)} sold, {money(s?.refunds ?? 0)} refunded</span>
        </div>
        <button type="button" className="card figure" onClick={() => onGo("orders")} aria-label={`Paid orders: ${s ? s.orders.toLocaleString() : "…"}`}>
          <span className="figure-value">{s ? s.orders.toLocaleString() : "…"}</span>
          <span className="muted small">Paid orders</span>
        </button>
        <div className="figure card" role="group" aria-label={`MRR: ${money(s?.mrr ?? 0)}`}>
          <span className="figure-value">{money(s?.mrr ?? 0)}</span>
          <span className="muted small">MRR · {s ? `${s.newSubscriptions} new, ${s.cancelledSubscriptions} cancelled` : "…"}</span>
        </div>
        <button type="button" className={s && s.pastDueSubscriptions > 0 ? "card figure attention" : "card figure"} onClick={() => onGo("subscriptions")} aria-label={`Past due: ${s ? s.pastDueSubscriptions : "…"}`}>
          <span className="figure-value">{s ? s.pastDueSubscriptions.toLocaleString() : "…"}</span>
          <span className="muted small">Past due or unpaid: payment failed</span>
        </button>
      </div>
      {s && <RevenueChart daily={s.daily} currency={s.currency} />}
    </div>
  );
}
