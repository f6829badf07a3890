import { useState, type FormEvent } from "react";
import { useListState } from "../listState";
import { keepPreviousData, useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { api, describeError, fieldError } from "../api";
import { AUDIT_ACTIONS, auditSentence } from "../audit";
import { dayAfter, When } from "../format";
import type { AuditLogRequest } from "../bindings/AuditLogRequest";
import type { User } from "../types";

const AUDIT_PAGE = 50;

/** Users and audit (admins): staff accounts, adding and disabling them; the audit log. */
export function Users({ me }: { me: User }) {
  const queryClient = useQueryClient();
  const users = useQuery({ queryKey: ["users"], queryFn: api.listUsers });
  const toggle = useMutation({
    mutationFn: (u: User) => api.setUserDisabled({ email: u.email, disabled: !u.disabled }),
    onSuccess: () => void queryClient.invalidateQueries({ queryKey: ["users"] }),
  });
  const unlock = useMutation({
    mutationFn: (u: User) => api.unlockUser({ email: u.email }),
    onSuccess: () => {
      void queryClient.invalidateQueries({ queryKey: ["users"] });
      void queryClient.invalidateQueries({ queryKey: ["audit"] });
    },
  });
  return (
    <section className="content stack" aria-labelledby="users-title">
      <h2 id="users-title">Users</h2>
      {users.isPending && <p className="muted">Loading users…</p>}
      {users.isError && <p className="error" role="alert">{describeError(users.error)}</p>}
      {toggle.isError && <p className="error" role="alert">{describeError(toggle.error)}</p>}
      {unlock.isError && <p className="error" role="alert">{describeError(unlock.error)}</p>}
      {users.data && (
        <table className="table" aria-label="Users">
          <thead><tr><th>Name</th><th>Email</th><th>Role</th><th>Account</th><th><span className="sr-only">Actions</span></th></tr></thead>
          <tbody>
            {users.data.map((u) => (
              <tr key={u.id}>
                <td>{u.name}</td>
                <td>{u.email}</td>
                <td>{u.role}</td>
                <td>
                  {u.disabled ? <span className="status status-failed">disabled</span> : <span className="status status-paid">active</span>}
                  {u.locked && <span className="badge pending" title="Too many wrong passwords: sign-ins are refused until the lock ends or an admin unlocks it">locked</span>}
                </td>
                <td>
                  <div className="row">
                    {u.locked && (
                      <button type="button" onClick={() => unlock.mutate(u)} disabled={unlock.isPending} aria-label={`Unlock ${u.email}`}>
                        Unlock
                      </button>
                    )}
                    {u.id !== me.id && (
                      <button type="button" onClick={() => toggle.mutate(u)} disabled={toggle.isPending} aria-label={`${u.disabled ? "Enable" : "Disable"} ${u.email}`}>
                        {u.disabled ? "Enable" : "Disable"}
                      </button>
                    )}
                  </div>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <AddUser />
      <Audit users={users.data ?? []} />
    </section>
  );
}

function AddUser() {
  const queryClient = useQueryClient();
  const [email, setEmail] = useState("");
  const [name, setName] = useState("");
  const [role, setRole] = useState<"admin" | "staff">("staff");
  const [password, setPassword] = useState("");
  const add = useMutation({
    mutationFn: () => api.addUser({ email, name, role, password }),
    onSuccess: () => {
      setEmail("");
      setName("");
      setPassword("");
      void queryClient.invalidateQueries({ queryKey: ["users"] });
      void queryClient.invalidateQueries({ queryKey: ["audit"] });
    },
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    add.mutate();
  };
  const problem = (field: string) => fieldError(add.error, field);
  return (
    <form className="card stack" onSubmit={submit} aria-label="Add a user" noValidate>
      <h3>Add a user</h3>
      <label htmlFor="user-name">Name</label>
      <input id="user-name" value={name} onChange={(e) => setName(e.target.value)} aria-invalid={Boolean(problem("name"))} />
      {problem("name") && <p className="field-error">Name {problem("name")}</p>}
      <label htmlFor="user-email">Email</label>
      <input id="user-email" type="email" value={email} onChange={(e) => setEmail(e.target.value)} aria-invalid={Boolean(problem("email"))} />
      {problem("email") && <p className="field-error">Email {problem("email")}</p>}
      <label htmlFor="user-role">Role</label>
      <select id="user-role" value={role} onChange={(e) => setRole(e.target.value as "admin" | "staff")}>
        <option value="staff">Staff</option>
        <option value="admin">Admin</option>
      </select>
      <label htmlFor="user-password">First password (15 characters or more; they can change it)</label>
      <input id="user-password" type="password" autoComplete="new-password" value={password} onChange={(e) => setPassword(e.target.value)} aria-invalid={Boolean(problem("password"))} />
      {problem("password") && <p className="field-error">Password {problem("password")}</p>}
      {add.isError && !problem("name") && !problem("email") && !problem("password") && <p className="error" role="alert">{describeError(add.error)}</p>}
      {add.isSuccess && <p className="muted" role="status">Added {add.data.email}.</p>}
      <div className="row"><button type="submit" className="primary" disabled={add.isPending}>{add.isPending ? "Adding…" : "Add user"}</button></div>
    </form>
  );
}

/** Who, what, and the days from and to (yyyy-mm-dd), "" for none: in the address. */
const NO_AUDIT_FILTERS = { actor: "", action: "", from: "", to: "" };

/** The audit log in sentences, newest first, found by person, action and days. */
function Audit({ users }: { users: User[] }) {
  const { filters, set, clear, filtered } = useListState("audit", NO_AUDIT_FILTERS);
  // Pages by the id of the last entry shown (newest first).
  const [cursors, setCursors] = useState<(number | null)[]>([null]);
  const before = cursors[cursors.length - 1];
  const log = useQuery({
    queryKey: ["audit", before, filters],
    queryFn: () =>
      api.auditLog({
        limit: AUDIT_PAGE,
        before,
        actor: filters.actor || null,
        action: (filters.action || null) as AuditLogRequest["action"],
        from: filters.from || null,
        to: filters.to ? dayAfter(filters.to) : null,
      }),
    placeholderData: keepPreviousData,
  });
  // A new filter starts from the newest entries.
  const change = (next: Partial<typeof NO_AUDIT_FILTERS>) => {
    set(next);
    setCursors([null]);
  };
  const names = new Map(users.map((u) => [u.email, u.name]));
  const nameOf = (email: string) => names.get(email);
  const entries = log.data ?? [];
  return (
    <div className="stack" aria-labelledby="audit-title">
      <div className="toolbar">
        <h3 id="audit-title">Audit log</h3>
        <div className="spacer" />
        <Retention />
      </div>
      <div className="toolbar filters" role="search" aria-label="Find in the audit log">
        <label htmlFor="audit-actor" className="muted">Who</label>
        <select id="audit-actor" value={filters.actor} onChange={(e) => change({ actor: e.target.value })}>
          <option value="">Anyone</option>
          {users.map((u) => <option key={u.email} value={u.email}>{u.name} ({u.email})</option>)}
          <option value="system">Staffroom itself</option>
          <option value="cli">The command line</option>
        </select>
        <label htmlFor="audit-action" className="muted">What</label>
        <select id="audit-action" value={filters.action} onChange={(e) => change({ action: e.target.value })}>
          <option value="">Anything</option>
          {AUDIT_ACTIONS.map(([area, actions]) => (
            <optgroup key={area} label={area}>
              {actions.map(([value, label]) => <option key={value} value={value}>{label}</option>)}
            </optgroup>
          ))}
        </select>
        <label htmlFor="audit-from" className="muted">From</label>
        <input id="audit-from" type="date" value={filters.from} max={filters.to || undefined} onChange={(e) => change({ from: e.target.value })} />
        <label htmlFor="audit-to" className="muted">To</label>
        <input id="audit-to" type="date" value={filters.to} min={filters.from || undefined} onChange={(e) => change({ to: e.target.value })} />
        {filtered && <button type="button" className="link" onClick={() => { clear(); setCursors([null]); }}>Clear</button>}
      </div>
      {log.isPending && <p className="muted">Loading the audit log…</p>}
      {log.isError && <p className="error" role="alert">{describeError(log.error)}</p>}
      {log.data && entries.length === 0 && <p className="muted">{filtered ? "Nothing recorded matches." : "Nothing recorded yet."}</p>}
      {entries.length > 0 && (
        <table className="table" aria-label="Audit log">
          <thead><tr><th>When</th><th>What happened</th><th>Outcome</th></tr></thead>
          <tbody>
            {entries.map((e) => (
              <tr key={e.id} data-action={e.action}>
                <td className="muted"><When iso={e.at} /></td>
                <td>{auditSentence(e, nameOf)}</td>
                <td className={e.outcome === "success" ? "muted" : "error"}>{e.outcome === "success" ? "done" : e.outcome}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {(cursors.length > 1 || entries.length === AUDIT_PAGE) && (
        <nav className="pager" aria-label="Audit pages">
          <button type="button" onClick={() => setCursors(cursors.slice(0, -1))} disabled={cursors.length <= 1}>Newer</button>
          <button type="button" onClick={() => setCursors([...cursors, entries[entries.length - 1].id])} disabled={entries.length < AUDIT_PAGE}>Older</button>
        </nav>
      )}
    </div>
  );
}

const RETENTION_CHOICES = [90, 180, 400, 730, 1825, 3650];

/** How long the audit log keeps entries (admins). */
function Retention() {
  const queryClient = useQueryClient();
  const retention = useQuery({ queryKey: ["audit-retention"], queryFn: api.auditRetention });
  const change = useMutation({
    mutationFn: (days: number) => api.setAuditRetention({ days }),
    onSuccess: (value) => {
      queryClient.setQueryData(["audit-retention"], value);
      void queryClient.invalidateQueries({ queryKey: ["audit"] });
    },
  });
  if (!retention.data) return null;
  const days = retention.data.days;
  const choices = RETENTION_CHOICES.includes(days) ? RETENTION_CHOICES : [...RETENTION_CHOICES, days].sort((a, b) => a - b);
  return (
    <>
      <label htmlFor="audit-retention" className="muted">Keep entries for</label>
      <select id="audit-retention" value={days} disabled={change.isPending} onChange={(e) => change.mutate(Number(e.target.value))}>
        {choices.map((d) => <option key={d} value={d}>{d} days</option>)}
      </select>
      {change.isError && <span className="error" role="alert">{describeError(change.error)}</span>}
    </>
  );
}
