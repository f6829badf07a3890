import { useMutation } from "@tanstack/react-query";
import { api } from "../api";
import type { AppInfo, User } from "../types";
import { ThemeSwitch } from "../theme";

interface Props {
  info: AppInfo;
  user: User;
  onSignedOut: () => void;
}

/** The signed-in app: navigation on the left, the current area on the right. */
export function Shell({ info, user, onSignedOut }: Props) {
  const signOut = useMutation({ mutationFn: api.logout, onSettled: onSignedOut });
  return (
    <div className="shell">
      <nav className="sidebar" aria-label="Main">
        <div className="brand small-brand">
          <img src="/icon.svg" alt="" width={24} height={24} />
          <span>Staffroom</span>
        </div>
        <a className="nav-item active" href="#overview" aria-current="page">
          Overview
        </a>
      </nav>
      <div className="main">
        <header className="topbar">
          <div className="topbar-title">Overview</div>
          {info.sandbox && <span className="badge" title="Simulated providers; nothing leaves this computer">Sandbox</span>}
          <div className="spacer" />
          <ThemeSwitch />
          <span className="who" aria-label="Signed in as">
            {user.name} <span className="muted">· {user.role}</span>
          </span>
          <button type="button" onClick={() => signOut.mutate()} disabled={signOut.isPending}>
            Sign out
          </button>
        </header>
        <section className="content" aria-labelledby="welcome">
          <h2 id="welcome">Welcome, {user.name}</h2>
          <p className="muted">
            You are signed in as <strong>{user.email}</strong>
            {info.sandbox ? " in the sandbox: payments and documents are simulated on this computer." : "."}
          </p>
        </section>
      </div>
    </div>
  );
}
