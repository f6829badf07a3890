// How the screens write dates: in the user's locale, relative for the last week ("3 hours
// ago", "yesterday"), where that reads better than a date; the full time on hover.

const RELATIVE_FOR_MS = 7 * 86_400_000;
const STEPS: [Intl.RelativeTimeFormatUnit, number][] = [
  ["day", 86_400_000],
  ["hour", 3_600_000],
  ["minute", 60_000],
];

/** `iso` as people read it: relative when it was in the last week, else the date. */
export function formatWhen(iso: string, now: number = Date.now()): string {
  const at = new Date(iso);
  const ago = now - at.getTime();
  if (Number.isNaN(ago)) return iso;
  if (ago >= 0 && ago < RELATIVE_FOR_MS) {
    const relative = new Intl.RelativeTimeFormat(undefined, { numeric: "auto" });
    for (const [unit, ms] of STEPS) {
      if (ago >= ms) return relative.format(-Math.floor(ago / ms), unit);
    }
    return relative.format(0, "minute");
  }
  return new Intl.DateTimeFormat(undefined, { dateStyle: "medium" }).format(at);
}

/** A date in the user's locale, without the time. */
export function formatDay(iso: string): string {
  const at = new Date(iso);
  return Number.isNaN(at.getTime()) ? iso : new Intl.DateTimeFormat(undefined, { dateStyle: "medium" }).format(at);
}

/** The day after `date` (yyyy-mm-dd): a range's exclusive end that includes the day chosen. */
export function dayAfter(date: string): string {
  const next = new Date(`${date}T00:00:00Z`);
  next.setUTCDate(next.getUTCDate() + 1);
  return next.toISOString().slice(0, 10);
}

/** A moment, written by {@link formatWhen}, with the full date and time on hover. */
export function When({ iso }: { iso: string }) {
  const full = new Date(iso);
  const title = Number.isNaN(full.getTime()) ? iso : new Intl.DateTimeFormat(undefined, { dateStyle: "full", timeStyle: "short" }).format(full);
  return <time dateTime={iso} title={title}>{formatWhen(iso)}</time>;
}
