import { useState, type FormEvent } from "react";
import { useMutation } from "@tanstack/react-query";
import { api, describeError, fieldError } from "../api";
import type { AppInfo, User } from "../types";

interface Props {
  info: AppInfo;
  onSignedIn: (user: User) => void;
}

export function Login({ info, onSignedIn }: Props) {
  const [email, setEmail] = useState("");
  const [password, setPassword] = useState("");
  const [remember, setRemember] = useState(false);
  const signIn = useMutation({
    mutationFn: () => api.login({ email, password, remember }),
    onSuccess: (response) => onSignedIn(response.user),
  });

  const submit = (event: FormEvent) => {
    event.preventDefault();
    signIn.mutate();
  };
  const emailProblem = fieldError(signIn.error, "email");
  const passwordProblem = fieldError(signIn.error, "password");

  return (
    <main className="auth-page">
      <form className="auth-card" onSubmit={submit} aria-label="Sign in" noValidate>
        <div className="brand">
          <img src="/icon.svg" alt="" width={32} height={32} />
          <h1>Staffroom</h1>
          {info.sandbox && <span className="badge">Sandbox</span>}
        </div>
        <p className="muted">Sign in with your staff account.</p>

        {info.sandbox && info.demo && (
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
          autoFocus
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

        {signIn.isError && !emailProblem && !passwordProblem && (
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
