import { useState, type FormEvent } from "react";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { api, describeError, fieldError } from "../api";
import { ThemeSwitch } from "../theme";

/** Settings (admins): Google sign-in, provider credentials into the keyring, mode, theme. */
export function Settings() {
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
  const { google, secrets, sandbox, dataDir } = view.data;
  return (
    <section className="content stack" aria-labelledby="settings-title">
      <h2 id="settings-title">Settings</h2>
      <div className="card stack" aria-labelledby="google-title">
        <h3 id="google-title">Google</h3>
        <p role="status">
          {google.signedIn
            ? `Signed in${google.kind === "pasted" ? " with a pasted access token (it is not refreshed)" : ""}${google.expiresAt ? `; the access token renews by itself (next at ${new Date(google.expiresAt).toLocaleTimeString()})` : ""}.`
            : "Not signed in: documents cannot be listed or edited."}
        </p>
        {signIn.isPending && <p className="callout">Waiting for you to finish in the browser window that just opened…</p>}
        {(signIn.isError || signOut.isError) && <p className="error" role="alert">{describeError(signIn.error ?? signOut.error)}</p>}
        <div className="row">
          {google.signedIn ? (
            <button type="button" onClick={() => signOut.mutate()} disabled={signOut.isPending}>Sign out of Google</button>
          ) : (
            <button type="button" className="primary" onClick={() => signIn.mutate()} disabled={signIn.isPending || !google.canSignIn}>
              Sign in with Google
            </button>
          )}
        </div>
        {!google.canSignIn && <p className="muted small">Set the Google client id (and secret) below first.</p>}
      </div>
      <SecretForm names={secrets.map((s) => s.name)} onSaved={refresh} />
      <table className="table" aria-label="Credentials">
        <thead><tr><th>Credential</th><th>Comes from</th></tr></thead>
        <tbody>
          {secrets.map((s) => (
            <tr key={s.name}><td>{s.about}<div className="muted small"><code>{s.name}</code></div></td><td>{s.source}</td></tr>
          ))}
        </tbody>
      </table>
      <div className="card stack">
        <h3>This app</h3>
        <p>{sandbox ? "Sandbox mode: both providers are simulated on this computer. Start without --sandbox to use real accounts." : "Connected to the real providers."}</p>
        <p className="muted small">Data folder: <code>{dataDir}</code></p>
        <div className="row"><span>Theme</span><ThemeSwitch /></div>
      </div>
    </section>
  );
}

function SecretForm({ names, onSaved }: { names: string[]; onSaved: () => void }) {
  const [name, setName] = useState(names[0] ?? "");
  const [value, setValue] = useState("");
  const save = useMutation({
    mutationFn: () => api.setSecret(name, value),
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
    <form className="card stack" onSubmit={submit} aria-label="Store a credential" noValidate>
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
