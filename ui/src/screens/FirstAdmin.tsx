import { useState, type FormEvent } from "react";
import { useMutation } from "@tanstack/react-query";
import { api, describeError, fieldError } from "../api";
import type { User } from "../types";
import { focusOnMount } from "../focus";

interface Props {
  onCreated: (user: User) => void;
  /** The person joins a team server instead: no local admin is made. */
  onJoinTeam: () => void;
}

/** First run: no account exists yet on this computer. The first person either sets it up (the
 *  admin account) or signs in to the team's server. */
export function FirstAdmin({ onCreated, onJoinTeam }: Props) {
  const [email, setEmail] = useState("");
  const [name, setName] = useState("");
  const [password, setPassword] = useState("");
  const create = useMutation({
    mutationFn: async () => {
      await api.createFirstAdmin({ email, name, password });
      const response = await api.login({ email, password });
      return response.user;
    },
    onSuccess: (user) => onCreated(user),
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    create.mutate();
  };
  const problem = (field: string) => fieldError(create.error, field);

  return (
    <main className="auth-page">
      <form className="auth-card" onSubmit={submit} aria-label="Create the first admin" noValidate>
        <div className="brand">
          <img src="/icon.svg" alt="" width={32} height={32} />
          <h1>Welcome to Staffroom</h1>
        </div>
        <p className="muted">
          Set up this computer: create the first admin account. Admins add the rest of the staff and manage settings.
        </p>
        <p className="muted">
          Joining a team that already uses Staffroom?{" "}
          <button type="button" className="link" onClick={onJoinTeam}>Sign in to a team server</button>
        </p>
        <label htmlFor="name">Name</label>
        <input id="name" ref={focusOnMount} value={name} onChange={(e) => setName(e.target.value)} aria-invalid={Boolean(problem("name"))} />
        {problem("name") && <p className="field-error">Name {problem("name")}</p>}
        <label htmlFor="email">Email</label>
        <input id="email" type="email" autoComplete="username" value={email} onChange={(e) => setEmail(e.target.value)} aria-invalid={Boolean(problem("email"))} />
        {problem("email") && <p className="field-error">Email {problem("email")}</p>}
        <label htmlFor="password">Password</label>
        <input
          id="password"
          type="password"
          autoComplete="new-password"
          value={password}
          onChange={(e) => setPassword(e.target.value)}
          aria-invalid={Boolean(problem("password"))}
          aria-describedby="password-hint"
        />
        <p id="password-hint" className="muted small">
          At least 15 characters. A few unrelated words make a strong, memorable password.
        </p>
        {problem("password") && <p className="field-error">Password {problem("password")}</p>}
        {create.isError && !problem("name") && !problem("email") && !problem("password") && (
          <p className="error" role="alert">{describeError(create.error)}</p>
        )}
        <button type="submit" className="primary" disabled={create.isPending}>
          {create.isPending ? "Creating…" : "Create admin and sign in"}
        </button>
      </form>
    </main>
  );
}
