import { formatMoney } from "../api";
import type { DailyNet } from "../types";

const WIDTH = 720;
const HEIGHT = 160;
const AXIS = 18; // room for the day labels under the bars

// Days as the person's locale writes them ("Nov 22", "22. Nov."; "Nov 22, 2026" in full). A
// day is a UTC date, as the core sums them.
const shortDay = new Intl.DateTimeFormat(undefined, { month: "short", day: "numeric", timeZone: "UTC" });
const fullDay = new Intl.DateTimeFormat(undefined, { dateStyle: "medium", timeZone: "UTC" });
const day = (date: string, format: Intl.DateTimeFormat) => {
  const at = new Date(`${date}T00:00:00Z`);
  return Number.isNaN(at.getTime()) ? date : format.format(at);
};

/** Daily net revenue as bars (a refund larger than the day's sales goes below the line), with
 *  each day's figures in its tooltip. An SVG of at most a few hundred bars: the theme's colours
 *  come from CSS, and it needs no charting library (see docs/DECISIONS.md). */
export function RevenueChart({ daily, currency }: { daily: DailyNet[]; currency: string }) {
  const values = daily.map((d) => d.netRevenue);
  const top = Math.max(1, ...values);
  const bottom = Math.min(0, ...values);
  const span = top - bottom;
  const plot = HEIGHT - AXIS;
  const y = (v: number) => ((top - v) / span) * plot;
  const slot = WIDTH / Math.max(1, daily.length);
  const bar = Math.max(1, slot * 0.7);
  const total = values.reduce((a, b) => a + b, 0);
  const best = daily.reduce<DailyNet | null>((b, d) => (b === null || d.netRevenue > b.netRevenue ? d : b), null);
  const label =
    `Daily net revenue over ${daily.length} days, ${formatMoney(total, currency)} in all` +
    (best && best.netRevenue > 0 ? `; the best day was ${day(best.date, fullDay)} with ${formatMoney(best.netRevenue, currency)}` : "");
  // A few day labels, evenly spread, so that they never overlap.
  const every = Math.max(1, Math.ceil(daily.length / 6));
  return (
    <svg className="chart" viewBox={`0 0 ${WIDTH} ${HEIGHT}`} role="img" aria-label={label} preserveAspectRatio="none">
      <line className="chart-zero" x1={0} x2={WIDTH} y1={y(0)} y2={y(0)} />
      {daily.map((d, i) => {
        const x = i * slot + (slot - bar) / 2;
        const [from, to] = d.netRevenue >= 0 ? [y(d.netRevenue), y(0)] : [y(0), y(d.netRevenue)];
        return (
          <g key={d.date}>
            <rect className={d.netRevenue >= 0 ? "chart-bar" : "chart-bar negative"} x={x} y={from} width={bar} height={Math.max(to - from, d.orders ? 1 : 0)}>
              <title>{`${day(d.date, fullDay)}: ${formatMoney(d.netRevenue, currency)} net, ${d.orders} ${d.orders === 1 ? "order" : "orders"}`}</title>
            </rect>
            {i % every === 0 && (
              <text className="chart-label" x={i === 0 ? x : x + bar / 2} y={HEIGHT - 4} textAnchor={i === 0 ? "start" : "middle"}>{day(d.date, shortDay)}</text>
            )}
          </g>
        );
      })}
    </svg>
  );
}
