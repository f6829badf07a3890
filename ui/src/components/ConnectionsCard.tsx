// Settings → Connections: how Lemon Squeezy and Google stand, as the providers answer now, with
// the fix next to each problem and the set-up one click away (Google's sign-in is the Google
// card's, beside it).
import { Link } from "wouter";
import { describeError } from "../api";
import { ProblemList, StateBadge, useConnections, when } from "../connections";
import { paths } from "../links";
import type { User } from "../types";

export function ConnectionsCard({ user }: { user: User }) {
  const connections = useConnections(user);

  return (
    <div className="card stack" aria-labelledby="connections-title">
      <div className="row">
        <h3 id="connections-title">Connections</h3>
        <div className="spacer" />
        <button type="button" onClick={() => void connections.refetch()} disabled={connections.isFetching}>
          {connections.isFetching ? "Checking…" : "Check again"}
        </button>
        <Link href={paths.area("setup")} className="button-link">Set up</Link>
      </div>
      {connections.isPending && <p className="muted">Asking Lemon Squeezy and Google…</p>}
      {connections.isError && <p className="error" role="alert">{describeError(connections.error)}</p>}
      {connections.data && (
        <>
          <section className="connection" aria-label="Lemon Squeezy">
            <p>
              <strong>Lemon Squeezy</strong> <StateBadge state={connections.data.lemonSqueezy.state} />
            </p>
            <LemonSqueezyFacts user={user} />
            <ProblemList problems={connections.data.lemonSqueezy.problems} label="Lemon Squeezy problems" />
          </section>
          <section className="connection" aria-label="Google">
            <p>
              <strong>Google</strong> <StateBadge state={connections.data.google.state} />
              {connections.data.google.account && <> · {connections.data.google.account.email}</>}
            </p>
            {connections.data.google.scopes.length > 0 && (
              <p className="muted small">Scopes: {connections.data.google.scopes.map((s) => s.replace("https://www.googleapis.com/auth/", "")).join(", ")}</p>
            )}
            <ProblemList problems={connections.data.google.problems} label="Google problems" />
          </section>
        </>
      )}
    </div>
  );
}

function LemonSqueezyFacts({ user }: { user: User }) {
  const connections = useConnections(user);
  const lemon = connections.data?.lemonSqueezy;
  if (!lemon || lemon.state === "not_configured") return null;
  return (
    <dl className="facts">
      {lemon.account && (
        <>
          <dt>Account</dt>
          <dd>{lemon.account.name} · {lemon.account.email}</dd>
        </>
      )}
      {lemon.store && (
        <>
          <dt>Store</dt>
          <dd>
            {lemon.store.name} · {lemon.store.currency} · #{lemon.store.id}{" "}
            {lemon.store.testMode ? <span className="badge">Test mode</span> : <span className="badge live">Live</span>}
          </dd>
        </>
      )}
      <dt>Webhook</dt>
      <dd>{lemon.webhook ? <><code>{lemon.webhook.url}</code> · last sent {when(lemon.webhook.lastSentAt)}</> : "none"}</dd>
      <dt>Last delivery here</dt>
      <dd>{when(lemon.lastDeliveryAt)}</dd>
      <dt>Last sync</dt>
      <dd>{when(lemon.lastSyncAt)}</dd>
    </dl>
  );
}
