import { useState, type FormEvent } from "react";
import { useMutation } from "@tanstack/react-query";
import { api, describeError, fieldError } from "../api";
import type { AppInfo, User } from "../types";
import { focusOnMount } from "../focus";

interface Props {
  info: AppInfo;
  /** Start with "Team server" chosen (joining a team from the first-run screen). */
  joinTeam?: boolean;
  onSignedIn: (user: User) => void;
}

type Place = "computer" | "server";

export function Login({ info, joinTeam = false, onSignedIn }: Props) {
  const [place, setPlace] = useState<Place>(joinTeam || info.useTeamServer ? "server" : "computer");
  const [server, setServer] = useState(info.teamServer ?? "");
  const [email, setEmail] = useState("");
  const [password, setPassword] = useState("");
  const [remember, setRemember] = useState(false);
  const signIn = useMutation({
    mutationFn: () => api.login({ email, password, remember, server: place === "server" ? server : null }),
    onSuccess: (response) => onSignedIn(response.user),
  });

  const submit = (event: FormEvent) => {
    event.preventDefault();
    signIn.mutate();
  };
  const emailProblem = fieldError(signIn.error, "email");
  const passwordProblem = fieldError(signIn.error, "password");
  const serverProblem = fieldError(signIn.error, "server");
  const onThisComputer = place === "computer";

  return (
    <main className="auth-page">
      <form className="auth-card" onSubmit={submit} aria-label="Sign in" noValidate>
        <div className="brand">
          <img src="/icon.svg" alt="" width={32} height={32} />
          <h1>Staffroom</h1>
          {info.sandbox && <span className="badge">Sandbox</span>}
        </div>
        <p className="muted">Sign in with your staff account.</p>

        <fieldset className="choice">
          <legend>Sign in to</legend>
          <label className="check">
            <input type="radio" name="place" checked={onThisComputer} onChange={() => setPlace("computer")} />
            This computer
          </label>
          <label className="check">
            <input type="radio" name="place" checked={!onThisComputer} onChange={() => setPlace("server")} />
            Team server
          </label>
        </fieldset>
        {!onThisComputer && (
          <>
            <label htmlFor="server">Team server address</label>
            <input
              id="server"
              type="url"
              inputMode="url"
              placeholder="https://staffroom.example.com"
              value={server}
              aria-invalid={Boolean(serverProblem)}
              aria-describedby="server-hint"
              onChange={(e) => setServer(e.target.value)}
            />
            <p id="server-hint" className="muted small">HTTPS; plain http only for a server on this computer.</p>
            {serverProblem && <p className="field-error">The address {serverProblem}</p>}
          </>
        )}

        {onThisComputer && info.sandbox && info.demo && (
          <div className="callout" role="note" aria-label="Sandbox demo account">
            <strong>Sandbox mode.</strong> Payments and documents are simulated; nothing leaves this
            computer.
            <dl className="demo">
              <dt>Demo email</dt>
              <dd><code>{info.demo.email}</code></dd>
              <dt>Password</dt>
              <dd><code>{info.demo.password}</code></dd>
            </dl>
            <button
              type="button"
              className="link"
              onClick={() => {
                setEmail(info.demo!.email);
                setPassword(info.demo!.password);
              }}
            >
              Use demo account
            </button>
          </div>
        )}

        <label htmlFor="email">Email</label>
        <input
          id="email"
          type="email"
          autoComplete="username"
          ref={focusOnMount}
          value={email}
          aria-invalid={Boolean(emailProblem)}
          onChange={(e) => setEmail(e.target.value)}
        />
        {emailProblem && <p className="field-error">Email {emailProblem}</p>}

        <label htmlFor="password">Password</label>
        <input
          id="password"
          type="password"
          autoComplete="current-password"
          value={password}
          aria-invalid={Boolean(passwordProblem)}
          onChange={(e) => setPassword(e.target.value)}
        />
        {passwordProblem && <p className="field-error">Password {passwordProblem}</p>}

        <label className="check">
          <input type="checkbox" checked={remember} onChange={(e) => setRemember(e.target.checked)} />
          Keep me signed in on this computer
        </label>

        {signIn.isError && !emailProblem && !passwordProblem && !serverProblem && (
          <p className="error" role="alert">
            {describeError(signIn.error)}
          </p>
        )}

        <button type="submit" className="primary" disabled={signIn.isPending}>
          {signIn.isPending ? "Signing in…" : "Sign in"}
        </button>
        <p className="muted small">Staffroom {info.version}</p>
      </form>
    </main>
  );
}
