// How the connections to Lemon Squeezy and Google stand (SPEC section 13): one query for every
// screen that shows them (Settings → Connections, the Overview's alert, the set-up), and the
// pieces they share.
import { useQuery } from "@tanstack/react-query";
import { api } from "./api";
import { can } from "./access";
import type { Connections, ConnectionState, Problem, User } from "./types";

/** Where Staffroom's receiver listens below the address it is reached at. */
export const WEBHOOK_PATH = "/api/payments/webhooks";

/** The connections, for admins (nobody else may ask). Read again every minute: a webhook that
 *  stopped arriving is news. */
export function useConnections(user: User) {
  return useQuery({
    queryKey: ["connections"],
    queryFn: api.connections,
    enabled: can(user, "connections"),
    refetchInterval: 60_000,
    staleTime: 10_000,
  });
}

/** Whether anything is wrong: a connection not connected, or a problem. */
export function healthy(connections: Connections): boolean {
  const { lemonSqueezy, google } = connections;
  return (
    lemonSqueezy.state === "connected" &&
    google.state === "connected" &&
    lemonSqueezy.problems.length === 0 &&
    google.problems.length === 0
  );
}

const STATE_WORDS: Record<ConnectionState, string> = {
  connected: "Connected",
  not_configured: "Not connected",
  refused: "Refused",
  unreachable: "Out of reach",
};

/** A connection's state as a badge. */
export function StateBadge({ state }: { state: ConnectionState }) {
  return <span className={`state state-${state}`}>{STATE_WORDS[state]}</span>;
}

/** Problems, each with its fix beside it. */
export function ProblemList({ problems, label }: { problems: Problem[]; label: string }) {
  if (problems.length === 0) return null;
  return (
    <ul className="problems" aria-label={label}>
      {problems.map((p, i) => (
        <li key={`${p.code}-${i}`} className="problem">
          <p className="problem-message">{p.message}.</p>
          <p className="problem-fix"><strong>Fix:</strong> {p.fix}.</p>
        </li>
      ))}
    </ul>
  );
}

/** The webhook URL for an address as people give it: `https://shop.example.com` or the whole
 *  `…/api/payments/webhooks`. */
export function webhookUrl(address: string): string {
  const trimmed = address.trim().replace(/\/+$/, "");
  if (trimmed === "" || trimmed.endsWith(WEBHOOK_PATH)) return trimmed;
  return `${trimmed}${WEBHOOK_PATH}`;
}

/** A time as people read it, or "never". */
export function when(at: string | null | undefined): string {
  return at ? new Date(at).toLocaleString() : "never";
}
