import { useEffect, useState, type FormEvent } from "react";
import { listen } from "@tauri-apps/api/event";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useRefetchOnWebhook } from "../events";
import { can } from "../access";
import { api, describeError } from "../api";
import type { User } from "../types";
import type { FeedItem } from "../bindings/FeedItem";

interface Props {
  user: User;
  /** The team server signed in to: it receives the webhooks, so this app's switch is hidden. */
  teamServer?: string | null;
}

/** Webhooks: the receiver (this app's switch and address, or the team server's), and a live
 *  feed of deliveries. */
export function Webhooks({ user, teamServer }: Props) {
  const events = useQuery({ queryKey: ["webhook-events"], queryFn: async () => (await api.webhookEvents({ limit: 100 })).events });

  // Every delivery, application and summary of refusals arrives as a `webhook` event.
  useRefetchOnWebhook([["webhook-events"]]);
  const refused = useLatestRefusal();

  return (
    <section className="content stack" aria-labelledby="webhooks-title">
      <h2 id="webhooks-title">Webhooks</h2>
      {teamServer ? (
        <div className="card" aria-label="Receiver">
          <p>
            The team server receives the webhooks at <code>{teamServer}/api/payments/webhooks</code>. Every desktop signed in to it
            sees them here as they arrive.
          </p>
        </div>
      ) : (
        <Receiver user={user} />
      )}

      {refused && (
        <p className="callout warn" role="status" aria-label="Refused deliveries">
          {refused.outcome} ({new Date(refused.at).toLocaleTimeString()}). Refused deliveries are not stored; if they are
          the provider's, its signing secret and the one in Settings differ.
        </p>
      )}

      <h3>Deliveries</h3>
      {events.isPending && <p className="muted">Loading deliveries…</p>}
      {events.isError && <p className="error" role="alert">{describeError(events.error)}</p>}
      {events.data && events.data.length === 0 && <p className="muted">No deliveries yet. They appear here the moment they arrive.</p>}
      {events.data && events.data.length > 0 && (
        <table className="table" aria-label="Deliveries">
          <thead>
            <tr>
              <th>Received</th>
              <th>Event</th>
              <th>Resource</th>
              <th>Signature</th>
              <th>Outcome</th>
            </tr>
          </thead>
          <tbody>
            {events.data.map((e) => (
              <tr key={e.id}>
                <td>{new Date(e.receivedAt).toLocaleString()}</td>
                <td><code>{e.eventName}</code></td>
                <td>{e.resourceType} {e.resourceId}</td>
                <td>{e.verified ? "verified" : "refused"}</td>
                <td>{e.outcome ?? "waiting"}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}

/** The latest summary of refused deliveries (at most one a minute), from the live events. */
function useLatestRefusal(): FeedItem | null {
  const [latest, setLatest] = useState<FeedItem | null>(null);
  useEffect(() => {
    const stop = listen<FeedItem>("webhook", (event) => {
      if (event.payload?.kind === "refused") setLatest(event.payload);
    });
    return () => void stop.then((unlisten) => unlisten());
  }, []);
  return latest;
}

/** This app's own receiver: on or off, where, and the switch (admins). */
function Receiver({ user }: { user: User }) {
  const queryClient = useQueryClient();
  const status = useQuery({ queryKey: ["webhook-receiver"], queryFn: api.webhookReceiver });
  const [port, setPort] = useState("8787");
  const toggle = useMutation({
    mutationFn: (enabled: boolean) => api.setWebhookReceiver({ enabled, port: enabled ? Number(port) : null }),
    onSuccess: (next) => queryClient.setQueryData(["webhook-receiver"], next),
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    toggle.mutate(true);
  };
  const portValid = /^\d{1,5}$/.test(port) && Number(port) <= 65535;

  return (
  <div className="card" aria-label="Receiver">
    {status.isPending && <p className="muted">Checking the receiver…</p>}
    {status.isError && <p className="error" role="alert">{describeError(status.error)}</p>}
    {status.data && (
      <>
        <p>
          <strong>Receiver: {status.data.running ? "on" : "off"}</strong>
          {status.data.url && (
            <>
              {" "}at <code>{status.data.url}</code>
            </>
          )}
        </p>
        {!status.data.hasSecret && (
          <p className="error" role="alert">
            {status.data.secretProblem ?? "No usable signing secret is set"}: every delivery is refused until an admin registers the webhook (Settings → Connections → Set up).
          </p>
        )}
        {can(user, "set_webhook_receiver") ? (
          status.data.running ? (
            <button type="button" onClick={() => toggle.mutate(false)} disabled={toggle.isPending}>
              Switch off
            </button>
          ) : (
            <form className="inline" onSubmit={submit}>
              <label htmlFor="port">Port on 127.0.0.1</label>
              <input id="port" inputMode="numeric" value={port} onChange={(e) => setPort(e.target.value)} aria-invalid={!portValid} />
              <button type="submit" className="primary" disabled={!portValid || toggle.isPending}>
                Switch on
              </button>
            </form>
          )
        ) : (
          <p className="muted small">Only an admin can switch the receiver.</p>
        )}
        {toggle.isError && <p className="error" role="alert">{describeError(toggle.error)}</p>}
        <p className="muted small">
          Lemon Squeezy cannot reach this computer directly: put a tunnel in front of this address
          (see the webhook guide in the docs).
        </p>
      </>
    )}
  </div>
  );
}
