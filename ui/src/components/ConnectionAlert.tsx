// The Overview's word to admins when a connection is broken: what is wrong, in a sentence each,
// and the way to Settings → Connections, where the fix is.
import { Link } from "wouter";
import { healthy, useConnections } from "../connections";
import { paths } from "../links";
import type { User } from "../types";

export function ConnectionAlert({ user }: { user: User }) {
  const connections = useConnections(user);
  if (!connections.data || healthy(connections.data)) return null;
  const { lemonSqueezy, google } = connections.data;
  const problems = [...lemonSqueezy.problems, ...google.problems];
  return (
    <div className="card stack alert-card" role="region" aria-labelledby="connection-alert-title">
      <h3 id="connection-alert-title">A connection needs attention</h3>
      <ul>
        {problems.slice(0, 4).map((p, i) => <li key={`${p.code}-${i}`}>{p.message}.</li>)}
      </ul>
      <div className="row">
        <Link href={paths.area("settings")} className="button-link primary">Open Connections</Link>
        {problems.some((p) => ["not_connected", "google_client_missing", "no_webhook"].includes(p.code)) && (
          <Link href={paths.area("setup")} className="button-link">Set up</Link>
        )}
      </div>
    </div>
  );
}
