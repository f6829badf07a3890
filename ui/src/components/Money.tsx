import { useState } from "react";
import { useQuery } from "@tanstack/react-query";
import { api, describeError, formatMoney } from "../api";
import { RevenueChart } from "./RevenueChart";
import { useRefetchOnWebhook } from "../events";
import { FigureCard } from "./FigureCard";

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
        <FigureCard value={money(s?.netRevenue ?? 0)} label={`Net revenue · ${money(s?.grossRevenue ?? 0)} sold, ${money(s?.refunds ?? 0)} refunded`} />
        <FigureCard value={s ? s.orders.toLocaleString() : "…"} label="Paid orders" onOpen={() => onGo("orders")} />
        <FigureCard value={money(s?.mrr ?? 0)} label={`MRR · ${s ? `${s.newSubscriptions} new, ${s.cancelledSubscriptions} cancelled` : "…"}`} />
        <FigureCard
          value={s ? s.pastDueSubscriptions.toLocaleString() : "…"}
          label="Past due or unpaid: payment failed"
          onOpen={() => onGo("subscriptions")}
          className={s && s.pastDueSubscriptions > 0 ? "attention" : ""}
        />
      </div>
      {s && <RevenueChart daily={s.daily} currency={s.currency} />}
    </div>
  );
}
