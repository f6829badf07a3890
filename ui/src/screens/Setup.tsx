import { useState, type FormEvent, type ReactNode } from "react";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { api, describeError, fieldError } from "../api";
import { focusOnMount } from "../focus";
import { OpenLinkButton } from "../components/OpenLink";
import { ProblemList, StateBadge, useConnections, webhookUrl, WEBHOOK_PATH } from "../connections";
import type { Connections, KeyCheck, User } from "../types";

const STEPS = [
  { id: "store", label: "Lemon Squeezy" },
  { id: "webhook", label: "Webhooks" },
  { id: "google", label: "Google" },
  { id: "staff", label: "Staff" },
] as const;
type Step = (typeof STEPS)[number]["id"];

interface Props {
  user: User;
  /** The team server signed in to, whose address Lemon Squeezy may reach. */
  teamServer?: string | null;
  /** Leaves the set-up for an area (`users`, `overview`). */
  onGo: (area: string) => void;
}

/** Going live: a new admin connects the real store and Google, step by step, each step checked
 *  with the provider before anything is kept; any step may wait for later (Settings →
 *  Connections shows what is left). */
export function Setup({ user, teamServer, onGo }: Props) {
  const [step, setStep] = useState<Step>("store");
  const index = STEPS.findIndex((s) => s.id === step);
  const next = () => setStep(STEPS[Math.min(index + 1, STEPS.length - 1)].id);
  return (
    <section className="content stack setup" aria-labelledby="setup-title">
      <h2 id="setup-title">Going live</h2>
      <p className="muted">
        Connect your Lemon Squeezy store and your Google account. Each step is checked with the provider before anything is kept, and any
        step can wait: Settings → Connections shows what is left.
      </p>
      <ol className="steps" aria-label="Steps">
        {STEPS.map((s, i) => (
          <li key={s.id} aria-current={s.id === step ? "step" : undefined} className={i < index ? "done" : undefined}>
            <button type="button" className="link" onClick={() => setStep(s.id)}>
              <span className="step-number">{i + 1}</span> {s.label}
            </button>
          </li>
        ))}
      </ol>
      {step === "store" && <StoreStep onDone={next} />}
      {step === "webhook" && <WebhookStep teamServer={teamServer} onDone={next} />}
      {step === "google" && <GoogleStep user={user} onDone={next} />}
      {step === "staff" && <StaffStep onGo={onGo} />}
    </section>
  );
}

/** A step's card: its title, what it is for, and its actions. */
function StepCard({ title, children }: { title: string; children: ReactNode }) {
  return (
    <div className="card stack step-card">
      <h3 tabIndex={-1} ref={focusOnMount}>{title}</h3>
      {children}
    </div>
  );
}

function StoreStep({ onDone }: { onDone: () => void }) {
  const queryClient = useQueryClient();
  const [apiKey, setApiKey] = useState("");
  const [storeId, setStoreId] = useState("");
  const check = useMutation({
    mutationFn: () => api.checkLemonsqueezyKey({ apiKey }),
    onSuccess: (checked: KeyCheck) => setStoreId(checked.stores.length === 1 ? checked.stores[0].id : ""),
  });
  const connect = useMutation({
    mutationFn: () => api.connectLemonsqueezy({ apiKey, storeId }),
    onSuccess: () => {
      setApiKey("");
      void queryClient.invalidateQueries({ queryKey: ["connections"] });
      void queryClient.invalidateQueries();
    },
  });
  const submitKey = (event: FormEvent) => {
    event.preventDefault();
    connect.reset();
    check.mutate();
  };
  const submitStore = (event: FormEvent) => {
    event.preventDefault();
    connect.mutate();
  };
  const keyProblem = fieldError(check.error, "apiKey") ?? fieldError(connect.error, "apiKey");
  const checked = check.data;
  const connected = connect.data?.lemonSqueezy;

  return (
    <StepCard title="1. Your Lemon Squeezy store">
      <form className="stack" onSubmit={submitKey} aria-label="Lemon Squeezy key" noValidate>
        <label htmlFor="api-key">API key</label>
        <input
          id="api-key"
          type="password"
          autoComplete="off"
          value={apiKey}
          onChange={(e) => setApiKey(e.target.value)}
          aria-invalid={Boolean(keyProblem)}
          aria-describedby="api-key-help"
        />
        <p id="api-key-help" className="muted small">
          In Lemon Squeezy: Settings → API → the + button. Name it “Staffroom”, copy the key it shows once, and paste it here. A key made in
          test mode sees test orders only. It is checked with Lemon Squeezy before it is kept, and never shown again.
        </p>
        <div className="row">
          <OpenLinkButton url="https://app.lemonsqueezy.com/settings/api" kind="web">Open Lemon Squeezy’s API settings</OpenLinkButton>
        </div>
        {keyProblem && <p className="field-error" role="alert">{keyProblem}</p>}
        {check.isError && !keyProblem && <p className="error" role="alert">{describeError(check.error)}</p>}
        <div className="row">
          <button type="submit" className={checked ? undefined : "primary"} disabled={check.isPending || apiKey.trim() === ""}>
            {check.isPending ? "Asking Lemon Squeezy…" : "Check the key"}
          </button>
        </div>
      </form>
      {checked && !connected && (
        <form className="stack" onSubmit={submitStore} aria-label="Pick the store" noValidate>
          <p role="status">
            The key is <strong>{checked.account.name}</strong>’s ({checked.account.email}),{" "}
            {checked.testMode ? <span className="badge">Test mode</span> : <span className="badge live">Live</span>}
            {checked.stores.length === 0 && " but the account has no store yet: make one in Lemon Squeezy first."}
          </p>
          {checked.stores.length > 0 && (
            <fieldset>
              <legend>Which store does Staffroom serve?</legend>
              {checked.stores.map((store) => (
                <label key={store.id} className="check">
                  <input type="radio" name="store" value={store.id} checked={storeId === store.id} onChange={() => setStoreId(store.id)} />{" "}
                  <strong>{store.name}</strong> <span className="muted">· {store.currency} · #{store.id}</span>
                </label>
              ))}
            </fieldset>
          )}
          {fieldError(connect.error, "storeId") && <p className="field-error" role="alert">{fieldError(connect.error, "storeId")}</p>}
          {connect.isError && !fieldError(connect.error, "storeId") && !keyProblem && (
            <p className="error" role="alert">{describeError(connect.error)}</p>
          )}
          <div className="row">
            <button type="submit" className="primary" disabled={connect.isPending || storeId === ""}>
              {connect.isPending ? "Connecting and syncing the store…" : "Connect this store"}
            </button>
          </div>
          {connect.isPending && <p className="muted small">The first sync reads every product, order and subscription; a large store takes a minute.</p>}
        </form>
      )}
      {connected && (
        <div className="stack" role="status">
          <p>
            <StateBadge state={connected.state} /> <strong>{connected.store?.name}</strong>{" "}
            <span className="muted">· {connected.store?.currency}{connected.store?.testMode ? " · test mode" : ""}</span>
          </p>
          <p className="muted small">
            {connected.lastSyncAt ? "Synced: its products, orders and subscriptions are here now." : "The first sync goes on in the background."}
          </p>
          <div className="row">
            <button type="button" className="primary" onClick={onDone}>Next: webhooks</button>
          </div>
        </div>
      )}
      {!connected && (
        <div className="row">
          <button type="button" className="link" onClick={onDone}>Later</button>
        </div>
      )}
    </StepCard>
  );
}

type Route = "team" | "address" | "none";

function WebhookStep({ teamServer, onDone }: { teamServer?: string | null; onDone: () => void }) {
  const queryClient = useQueryClient();
  const [route, setRoute] = useState<Route>(teamServer ? "team" : "address");
  const [address, setAddress] = useState(teamServer ?? "");
  const receiver = useQuery({ queryKey: ["webhook-receiver"], queryFn: api.webhookReceiver, enabled: !teamServer });
  const switchOn = useMutation({
    mutationFn: () => api.setWebhookReceiver({ enabled: true, port: 8787 }),
    onSuccess: (next) => queryClient.setQueryData(["webhook-receiver"], next),
  });
  const register = useMutation({
    mutationFn: () => api.registerWebhook({ url: webhookUrl(route === "team" ? teamServer ?? "" : address) }),
    onSuccess: () => void queryClient.invalidateQueries({ queryKey: ["connections"] }),
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    register.mutate();
  };
  const sync = useQuery({ queryKey: ["sync-status"], queryFn: api.syncStatus });
  const minutes = Math.ceil((sync.data?.intervalSecs ?? 300) / 60);
  const local = receiver.data;
  const registered = register.data?.webhook;

  return (
    <StepCard title="2. Where webhooks arrive">
      <p className="muted">
        Lemon Squeezy tells Staffroom of each payment, refund and cancellation the moment it happens, by calling an address on the
        internet. Staffroom makes that webhook in your store itself, with a new signing secret.
      </p>
      <form className="stack" onSubmit={submit} aria-label="Webhook address" noValidate>
        <fieldset>
          <legend>Where can Lemon Squeezy reach this Staffroom?</legend>
          {teamServer && (
            <label className="check">
              <input type="radio" name="route" checked={route === "team"} onChange={() => setRoute("team")} /> This team server,{" "}
              <code>{webhookUrl(teamServer)}</code>
            </label>
          )}
          <label className="check">
            <input type="radio" name="route" checked={route === "address"} onChange={() => setRoute("address")} />{" "}
            {teamServer ? "Another public address (a reverse proxy in front of the server)" : "A tunnel to this computer, or a server's public address"}
          </label>
          <label className="check">
            <input type="radio" name="route" checked={route === "none"} onChange={() => setRoute("none")} /> Nowhere for now
          </label>
        </fieldset>
        {route === "address" && (
          <>
            {!teamServer && local && (
              <div className="callout connection">
                {local.running ? (
                  <p>This computer’s receiver listens at <code>{local.url}</code>: point the tunnel there.</p>
                ) : (
                  <>
                    <p>This computer’s receiver is off. Switch it on, then start a tunnel to it (for example <code>cloudflared tunnel --url http://127.0.0.1:8787</code>).</p>
                    <div className="row">
                      <button type="button" onClick={() => switchOn.mutate()} disabled={switchOn.isPending}>Switch the receiver on</button>
                    </div>
                    {switchOn.isError && <p className="error" role="alert">{describeError(switchOn.error)}</p>}
                  </>
                )}
              </div>
            )}
            <label htmlFor="webhook-address">Public address (https://…)</label>
            <input
              id="webhook-address"
              inputMode="url"
              value={address}
              placeholder="https://staffroom.example.com"
              onChange={(e) => setAddress(e.target.value)}
              aria-invalid={Boolean(fieldError(register.error, "url"))}
              aria-describedby="webhook-address-help"
            />
            <p id="webhook-address-help" className="muted small">
              Deliveries go to <code>{webhookUrl(address) || `https://…${WEBHOOK_PATH}`}</code>.
            </p>
          </>
        )}
        {route === "none" && (
          <p className="callout">
            Without a webhook, what changes in Lemon Squeezy (a payment, a refund, a cancellation) reaches Staffroom only with the sync, every{" "}
            {minutes} minutes. You can register the webhook later from Settings → Connections.
          </p>
        )}
        {fieldError(register.error, "url") && <p className="field-error" role="alert">{fieldError(register.error, "url")}</p>}
        {register.isError && !fieldError(register.error, "url") && <p className="error" role="alert">{describeError(register.error)}</p>}
        {registered && (
          <p role="status">
            <StateBadge state="connected" /> Webhook #{registered.id} sends {registered.events.length} kinds of event to <code>{registered.url}</code>
            {registered.testMode ? " (test mode)" : ""}.
          </p>
        )}
        <div className="row">
          {route !== "none" && !registered && (
            <button type="submit" className="primary" disabled={register.isPending || (route === "address" && address.trim() === "")}>
              {register.isPending ? "Registering…" : "Register the webhook"}
            </button>
          )}
          <button type="button" className={registered || route === "none" ? "primary" : "link"} onClick={onDone}>
            {registered || route === "none" ? "Next: Google" : "Later"}
          </button>
        </div>
      </form>
    </StepCard>
  );
}

function GoogleStep({ user, onDone }: { user: User; onDone: () => void }) {
  const queryClient = useQueryClient();
  const connections = useConnections(user);
  const [clientId, setClientId] = useState("");
  const [clientSecret, setClientSecret] = useState("");
  const refresh = () => void queryClient.invalidateQueries({ queryKey: ["connections"] });
  const save = useMutation({
    mutationFn: () => api.setGoogleClient({ clientId, clientSecret }),
    // What the server answered is the new state: shown at once, not after a refetch.
    onSuccess: ({ google }) => {
      queryClient.setQueryData(["connections"], (old: Connections | undefined) => (old ? { ...old, google } : old));
      refresh();
    },
  });
  const signIn = useMutation({ mutationFn: api.googleSignIn, onSuccess: refresh });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    save.mutate();
  };
  const google = connections.data?.google;
  const needsClient = google?.problems.some((p) => p.code === "google_client_missing") ?? true;

  return (
    <StepCard title="3. Google, for documents">
      {google && (
        <p role="status">
          <StateBadge state={google.state} /> {google.account ? google.account.email : google.state === "connected" ? "Signed in" : ""}
        </p>
      )}
      {needsClient && !save.isSuccess && (
        <form className="stack" onSubmit={submit} aria-label="Google OAuth client" noValidate>
          <p className="muted small">
            Staff sign in to Google through an OAuth client of your own. In Google Cloud Console, enable the Google Drive API and the Google
            Docs API, then under APIs &amp; Services → Credentials create an “OAuth client ID” of type <strong>Desktop app</strong>, and paste its
            id and secret here.
          </p>
          <div className="row">
            <OpenLinkButton url="https://console.cloud.google.com/apis/credentials" kind="web">Open Google Cloud Console</OpenLinkButton>
          </div>
          <label htmlFor="client-id">Client ID</label>
          <input
            id="client-id"
            value={clientId}
            placeholder="….apps.googleusercontent.com"
            onChange={(e) => setClientId(e.target.value)}
            aria-invalid={Boolean(fieldError(save.error, "clientId"))}
          />
          {fieldError(save.error, "clientId") && <p className="field-error">Client ID {fieldError(save.error, "clientId")}</p>}
          <label htmlFor="client-secret">Client secret</label>
          <input
            id="client-secret"
            type="password"
            autoComplete="off"
            value={clientSecret}
            onChange={(e) => setClientSecret(e.target.value)}
            aria-invalid={Boolean(fieldError(save.error, "clientSecret"))}
          />
          {fieldError(save.error, "clientSecret") && <p className="field-error">Client secret {fieldError(save.error, "clientSecret")}</p>}
          {save.isError && !fieldError(save.error, "clientId") && !fieldError(save.error, "clientSecret") && (
            <p className="error" role="alert">{describeError(save.error)}</p>
          )}
          <div className="row">
            <button type="submit" className="primary" disabled={save.isPending}>Save the client</button>
          </div>
        </form>
      )}
      {google && (google.state !== "connected" || google.missingScopes.length > 0) && !needsClient && (
        <div className="stack">
          {signIn.isPending && <p className="callout">Waiting for you to finish in the browser window that just opened…</p>}
          {signIn.isError && <p className="error" role="alert">{describeError(signIn.error)}</p>}
          <div className="row">
            <button type="button" className="primary" onClick={() => signIn.mutate()} disabled={signIn.isPending}>
              Sign in with Google
            </button>
          </div>
          <p className="muted small">Tick every box Google asks about: Staffroom lists documents with Drive and edits them with Docs.</p>
        </div>
      )}
      {google && <ProblemList problems={google.problems.filter((p) => !["google_client_missing", "google_signed_out"].includes(p.code))} label="Google problems" />}
      <div className="row">
        <button type="button" className={google?.state === "connected" ? "primary" : "link"} onClick={onDone}>
          {google?.state === "connected" ? "Next: staff" : "Later"}
        </button>
      </div>
    </StepCard>
  );
}

function StaffStep({ onGo }: { onGo: (area: string) => void }) {
  return (
    <StepCard title="4. Your staff">
      <p>
        Add an account for each person who works in Staffroom: staff see and sell; admins also refund, manage accounts and these settings.
      </p>
      <div className="row">
        <button type="button" className="primary" onClick={() => onGo("users")}>Add staff accounts</button>
        <button type="button" onClick={() => onGo("overview")}>Finish</button>
      </div>
    </StepCard>
  );
}
