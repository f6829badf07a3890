import { useState, type FormEvent } from "react";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { api, describeError, fieldError } from "../api";
import { ThemeSwitch } from "../theme";
import { useRefetchSynced } from "../sync";
import { can } from "../access";
import { NOTIFICATION_KINDS, useNotificationSettings } from "../notifications";
import type { SyncStatus, User } from "../types";
import { ConnectionsCard } from "../components/ConnectionsCard";

interface Props {
  /** The team server signed in to: these are its settings, and its credentials live on its
   *  replicas, so they are shown read-only. */
  teamServer?: string | null;
}

/** Settings: everyone's own (notifications, theme); for admins, also the connections to Lemon
 *  Squeezy and Google, Google sign-in, the payments sync, the mode, and credentials by hand. */
export function Settings({ teamServer, user }: Props & { user: User }) {
  if (can(user, "settings")) return <AdminSettings teamServer={teamServer} user={user} />;
  return (
    <section className="content stack" aria-labelledby="settings-title">
      <h2 id="settings-title">Settings</h2>
      <div className="columns">
        <NotificationsCard user={user} />
        <div className="card stack">
          <div className="row"><span>Theme</span><ThemeSwitch /></div>
          <p className="muted small">The rest of Settings (credentials, Google, the sync) is for admins.</p>
        </div>
      </div>
    </section>
  );
}

/** Which desktop notifications this person wants, on this computer. */
function NotificationsCard({ user }: { user: User }) {
  const [settings, change] = useNotificationSettings(user);
  return (
    <fieldset className="card stack" aria-labelledby="notifications-title">
      <h3 id="notifications-title">Notifications</h3>
      <p className="muted small">Shown by your desktop when a webhook tells of it; a click opens it here.</p>
      {NOTIFICATION_KINDS.map(([kind, label]) => (
        <label key={kind} className="check">
          <input type="checkbox" checked={settings[kind]} onChange={(e) => change(kind, e.target.checked)} /> {label}
        </label>
      ))}
    </fieldset>
  );
}

function AdminSettings({ teamServer, user }: Props & { user: User }) {
  const queryClient = useQueryClient();
  const view = useQuery({ queryKey: ["settings"], queryFn: api.settings });
  const refresh = () => {
    void queryClient.invalidateQueries({ queryKey: ["settings"] });
    void queryClient.invalidateQueries({ queryKey: ["google-status"] });
  };
  const signIn = useMutation({ mutationFn: api.googleSignIn, onSuccess: refresh });
  const signOut = useMutation({ mutationFn: api.googleSignOut, onSuccess: refresh });

  if (view.isPending) return <section className="content"><p className="muted">Loading settings…</p></section>;
  if (view.isError) return <section className="content"><p className="error" role="alert">{describeError(view.error)}</p></section>;
  const { google, secrets, sandbox, dataDir, simulators } = view.data;
  return (
    <section className="content stack" aria-labelledby="settings-title">
      <h2 id="settings-title">Settings</h2>
      <ConnectionsCard user={user} />
      <div className="columns">
        <div className="stack">
          <div className="card stack" aria-labelledby="google-title">
            <h3 id="google-title">Google</h3>
            <p role="status">
              {google.signedIn
                ? `Signed in${google.kind === "pasted" ? " with a pasted access token (it is not refreshed)" : ""}${google.expiresAt ? `; the access token renews by itself (next at ${new Date(google.expiresAt).toLocaleTimeString()})` : ""}.`
                : "Not signed in: documents cannot be listed or edited."}
            </p>
            {signIn.isPending && <p className="callout">Waiting for you to finish in the browser window that just opened…</p>}
            {(signIn.isError || signOut.isError) && <p className="error" role="alert">{describeError(signIn.error ?? signOut.error)}</p>}
            {teamServer && !google.signedIn && (
              <p className="muted small">
                The team server keeps its own sign-in: Google's page opens in your browser here, and the server finishes the sign-in and
                keeps the tokens, for everyone on the team.
              </p>
            )}
            <div className="row">
              {google.signedIn ? (
                <button type="button" onClick={() => signOut.mutate()} disabled={signOut.isPending}>Sign out of Google</button>
              ) : (
                <button type="button" className="primary" onClick={() => signIn.mutate()} disabled={signIn.isPending || !google.canSignIn}>
                  Sign in with Google
                </button>
              )}
            </div>
            {!google.canSignIn && (
              <p className="muted small">No Google OAuth client is set yet: add one with Set up, under Connections above.</p>
            )}
          </div>
          {google.signedIn && <TemplatesCard />}
          <NotificationsCard user={user} />
          <SyncCard teamServer={teamServer} />
          <div className="card stack">
            <h3>{teamServer ? "The team server" : "This app"}</h3>
            {teamServer && <p>Signed in to <code>{teamServer}</code>: these are its settings, for every desktop signed in to it.</p>}
            <p>
              {sandbox
                ? teamServer
                  ? "Sandbox mode: the server simulates both providers."
                  : "Sandbox mode: both providers are simulated on this computer, and nothing real is charged or written. Staffroom opened from the applications menu uses your real store and Google."
                : "Connected to the real providers."}
            </p>
            {simulators && (
              <p className="muted small" aria-label="Simulators">
                Simulators: payments at <code>{simulators.payments}</code>, Google at <code>{simulators.google}</code>{" "}
                (each takes faults at <code>/__sandbox/faults</code>).
              </p>
            )}
            <p className="muted small">{teamServer ? "The server's data folder" : "Data folder"}: <code>{dataDir}</code></p>
            <div className="row"><span>Theme</span><ThemeSwitch /></div>
          </div>
        </div>
        <details className="card stack advanced">
          <summary>Advanced: credentials by hand</summary>
          <p className="muted small">
            Set up (under Connections) checks each credential with its provider before keeping it: use it. This is for rotating one by hand.
            {teamServer && " The team server keeps them sealed in its database, where Set up puts them; a replica's environment (STAFFROOM_<NAME>) wins."}
          </p>
          {!teamServer && <SecretForm names={secrets.map((s) => s.name)} onSaved={refresh} />}
          <table className="table" aria-label="Credentials">
            <thead><tr><th>Credential</th><th>Comes from</th></tr></thead>
            <tbody>
              {secrets.map((s) => (
                <tr key={s.name}><td>{s.about}<div className="muted small"><code>{s.name}</code></div></td><td>{s.source}</td></tr>
              ))}
            </tbody>
          </table>
        </details>
      </div>
    </section>
  );
}

/** Intervals offered, in seconds; the core takes any from a minute to a day. */
const INTERVALS = [60, 5 * 60, 15 * 60, 30 * 60, 60 * 60, 6 * 60 * 60, 24 * 60 * 60];

/** The Drive folder whose Google documents are the templates of "New document from template". */
function TemplatesCard() {
  const queryClient = useQueryClient();
  const templates = useQuery({ queryKey: ["templates"], queryFn: api.listTemplates, retry: false });
  const folders = useQuery({ queryKey: ["folders"], queryFn: api.listFolders });
  const [folderId, setFolderId] = useState<string | null>(null);
  const choose = useMutation({
    mutationFn: (id: string) => api.setTemplatesFolder({ folderId: id }),
    onSuccess: () => {
      setFolderId(null);
      void queryClient.invalidateQueries({ queryKey: ["templates"] });
    },
  });
  const current = templates.data?.folderId ?? "";
  const shown = folderId ?? current;
  const count = templates.data?.templates.length;
  return (
    <form
      className="card stack"
      aria-labelledby="templates-title"
      onSubmit={(e) => {
        e.preventDefault();
        if (shown) choose.mutate(shown);
      }}
    >
      <h3 id="templates-title">Templates</h3>
      <p className="muted small">
        Staff make letters, quotes and notices from the Google documents in this folder, with {"{{customer.name}}"}, {"{{order.total}}"} and the
        other placeholders filled from the customer's, order's or subscription's page.
      </p>
      <label htmlFor="templates-folder">Folder</label>
      <select id="templates-folder" value={shown} onChange={(e) => setFolderId(e.target.value)}>
        <option value="">{folders.isPending ? "Reading Drive's folders…" : "Choose a folder…"}</option>
        {(folders.data ?? []).map((f) => <option key={f.id} value={f.id}>{f.name}</option>)}
      </select>
      <p role="status" className="small">
        {templates.isPending ? "" : count === undefined ? "No folder chosen yet." : `${count} template${count === 1 ? "" : "s"} in the folder.`}
      </p>
      {choose.isError && <p className="error" role="alert">{describeError(choose.error)}</p>}
      <div className="row">
        <button type="submit" className="primary" disabled={!shown || shown === current || choose.isPending}>
          {choose.isPending ? "Saving…" : "Use this folder"}
        </button>
      </div>
    </form>
  );
}

function describeInterval(secs: number): string {
  if (secs % 3600 === 0) return secs === 3600 ? "hour" : `${secs / 3600} hours`;
  if (secs % 60 === 0) return secs === 60 ? "minute" : `${secs / 60} minutes`;
  return `${secs} seconds`;
}

/** Each cached list as the rest of the app names it (sentence case). */
const RESOURCE_NAMES: Record<string, string> = {
  products: "Products",
  subscriptions: "Subscriptions",
  orders: "Orders",
  customers: "Customers",
  invoices: "Invoices",
  license_keys: "Licence keys",
  discounts: "Discounts",
};

function resourceName(resource: string): string {
  const words = resource.replace(/_/g, " ");
  return RESOURCE_NAMES[resource] ?? words.charAt(0).toUpperCase() + words.slice(1);
}

/** The payments cache: how often it syncs, when each list last did, and "Sync now". */
function SyncCard({ teamServer }: Props) {
  const queryClient = useQueryClient();
  const status = useQuery({ queryKey: ["sync-status"], queryFn: api.syncStatus });
  const show = (next: SyncStatus) => queryClient.setQueryData(["sync-status"], next);
  const refetchSynced = useRefetchSynced();
  // A failed sync is said here and recorded on each list's line below.
  const syncNow = useMutation({
    mutationFn: api.syncNow,
    onSettled: () => {
      void queryClient.invalidateQueries({ queryKey: ["sync-status"] });
      refetchSynced();
    },
  });
  const changeInterval = useMutation({ mutationFn: (intervalSecs: number) => api.setSyncInterval({ intervalSecs }), onSuccess: show });

  if (status.isPending) return <div className="card"><p className="muted">Loading the sync…</p></div>;
  if (status.isError) return <div className="card"><p className="error" role="alert">{describeError(status.error)}</p></div>;
  const { intervalSecs, resources, running } = status.data;
  const choices = INTERVALS.includes(intervalSecs) ? INTERVALS : [...INTERVALS, intervalSecs].sort((a, b) => a - b);
  return (
    <div className="card stack" aria-labelledby="sync-title">
      <h3 id="sync-title">Lemon Squeezy sync</h3>
      <p className="muted small">
        Products and subscriptions are read from a copy {teamServer ? "on the team server" : "on this computer"}, refreshed in the background;
        webhooks update it in between.
      </p>
      <div className="row">
        <label htmlFor="sync-interval">Sync every</label>
        <select
          id="sync-interval"
          value={intervalSecs}
          disabled={changeInterval.isPending}
          onChange={(e) => changeInterval.mutate(Number(e.target.value))}
        >
          {choices.map((secs) => <option key={secs} value={secs}>{describeInterval(secs)}</option>)}
        </select>
        <div className="spacer" />
        <button type="button" onClick={() => syncNow.mutate()} disabled={syncNow.isPending || running}>
          {syncNow.isPending || running ? "Syncing…" : "Sync now"}
        </button>
      </div>
      {(changeInterval.isError || syncNow.isError) && (
        <p className="error" role="alert">{describeError(changeInterval.error ?? syncNow.error)}</p>
      )}
      <table className="table" aria-label="Last syncs">
        <thead><tr><th>List</th><th>Last synced</th><th>Last attempt</th></tr></thead>
        <tbody>
          {resources.map((r) => (
            <tr key={r.resource}>
              <td>{resourceName(r.resource)}</td>
              <td>{r.syncedAt ? new Date(r.syncedAt).toLocaleString() : "never"}</td>
              <td>{r.error ? <span className="error">Failed: {r.error}</span> : r.attemptedAt ? "succeeded" : "—"}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

function SecretForm({ names, onSaved }: { names: string[]; onSaved: () => void }) {
  const [name, setName] = useState(names[0] ?? "");
  const [value, setValue] = useState("");
  const save = useMutation({
    mutationFn: () => api.setSecret({ name, value }),
    onSuccess: () => {
      setValue("");
      onSaved();
    },
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    save.mutate();
  };
  return (
    <form className="stack" onSubmit={submit} aria-label="Store a credential" noValidate>
      <h3>Store a credential in the keyring</h3>
      <label htmlFor="secret-name">Credential</label>
      <select id="secret-name" value={name} onChange={(e) => setName(e.target.value)}>
        {names.map((n) => <option key={n} value={n}>{n}</option>)}
      </select>
      <label htmlFor="secret-value">Value</label>
      <input id="secret-value" type="password" autoComplete="off" value={value} onChange={(e) => setValue(e.target.value)} aria-invalid={Boolean(fieldError(save.error, "value"))} />
      {save.isError && <p className="error" role="alert">{describeError(save.error)}</p>}
      {save.isSuccess && <p className="muted" role="status">Stored. The value is never shown again.</p>}
      <div className="row"><button type="submit" className="primary" disabled={save.isPending}>Store</button></div>
    </form>
  );
}
