import { Fragment, useId, useState, type FormEvent } from "react";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { api, describeError, fieldError } from "../api";
import { formatDay } from "../format";
import { useDialog } from "../focus";
import { CustomerLink } from "../links";
import type { LicenseKey, LicenseKeyStatus } from "../types";

/** A key's status as staff say it. */
export const KEY_STATUSES: Record<LicenseKeyStatus, [string, string]> = {
  active: ["Active", "status-paid"],
  inactive: ["Not activated", ""],
  expired: ["Expired", "status-pending"],
  disabled: ["Disabled", "status-refunded"],
};

/** A key disabled by hand shows as disabled, whatever status the provider also reports. */
function shownStatus(key: LicenseKey): LicenseKeyStatus {
  return key.disabled ? "disabled" : (key.status as LicenseKeyStatus);
}

/** "2 of 3 machines", "1 machine (no limit)". */
function activations(key: LicenseKey): string {
  const used = `${key.activationUsage}`;
  if (key.activationLimit === null) return `${used} (no limit)`;
  return `${used} of ${key.activationLimit}`;
}

/** Licence keys in a table: the short form, the product, whose, the status, how many machines,
 *  the expiry; the whole key and its machines on request (audited); for admins, disable or
 *  enable, and another limit or expiry. */
export function LicenseKeyTable({ keys, canChange, label, showCustomer = false }: {
  keys: LicenseKey[];
  canChange: boolean;
  label: string;
  showCustomer?: boolean;
}) {
  const [open, setOpen] = useState<{ id: string; what: "show" | "change" } | null>(null);
  if (keys.length === 0) return <p className="muted">No licence keys.</p>;
  const columns = (showCustomer ? 5 : 4) + (canChange ? 1 : 0);
  return (
    <table className="table" aria-label={label}>
      <thead>
        <tr>
          <th>Key</th>
          {showCustomer && <th>Customer</th>}
          <th>Status</th>
          <th>Machines</th>
          <th>Expires</th>
          {canChange && <th><span className="visually-hidden">Actions</span></th>}
        </tr>
      </thead>
      <tbody>
        {keys.map((key) => {
          const [status, tone] = KEY_STATUSES[shownStatus(key)] ?? [key.status, ""];
          const toggle = (what: "show" | "change") => setOpen(open?.id === key.id && open.what === what ? null : { id: key.id, what });
          return (
            <Fragment key={key.id}>
              <tr data-id={key.id} className={key.disabled ? "ended" : undefined}>
                <td>
                  <code className="nowrap">{key.keyShort}</code>
                  <div className="muted small">
                    {key.productName ?? `Product ${key.productId}`}
                    <button
                      type="button"
                      className="link"
                      aria-expanded={open?.id === key.id && open.what === "show"}
                      aria-label={`Key and machines of ${key.keyShort}`}
                      onClick={() => toggle("show")}
                    >
                      Key and machines
                    </button>
                  </div>
                </td>
                {showCustomer && (
                  <td>
                    <CustomerLink id={key.customerId}>{key.customerName || key.customerEmail}</CustomerLink>
                    <div className="muted small">{key.customerEmail}</div>
                  </td>
                )}
                <td><span className={`status ${tone}`}>{status}</span></td>
                <td>{activations(key)}</td>
                <td className="nowrap">{key.expiresAt ? formatDay(key.expiresAt) : "Never"}</td>
                {canChange && (
                  <td>
                    <div className="row nowrap">
                      <DisableButton licenseKey={key} />
                      <button
                        type="button"
                        aria-expanded={open?.id === key.id && open.what === "change"}
                        aria-label={`Change the limit or expiry of ${key.keyShort}…`}
                        onClick={() => toggle("change")}
                      >
                        Change…
                      </button>
                    </div>
                  </td>
                )}
              </tr>
              {open?.id === key.id && (
                <tr>
                  <td colSpan={columns}>
                    {open.what === "show" ? <WholeKey id={key.id} /> : <ChangeTerms licenseKey={key} onDone={() => setOpen(null)} />}
                  </td>
                </tr>
              )}
            </Fragment>
          );
        })}
      </tbody>
    </table>
  );
}

/** Keeps every list that shows `key` as it is now. */
function useKeyChanged() {
  const queryClient = useQueryClient();
  return () => {
    void queryClient.invalidateQueries({ queryKey: ["license-keys"] });
    void queryClient.invalidateQueries({ queryKey: ["customer"] });
  };
}

/** Disable a key (after a confirmation: the customer's app stops working) or enable it again. */
function DisableButton({ licenseKey: key }: { licenseKey: LicenseKey }) {
  const changed = useKeyChanged();
  const [confirming, setConfirming] = useState(false);
  const disabled = key.disabled;
  const change = useMutation({
    mutationFn: () => api.updateLicenseKey({ id: key.id, disabled: !disabled }),
    onSuccess: () => { setConfirming(false); changed(); },
  });
  if (change.isError) {
    return (
      <span className="row nowrap">
        <span className="error small" role="alert">{describeError(change.error)}</span>
        <button type="button" className="link" onClick={() => { change.reset(); setConfirming(false); changed(); }}>OK</button>
      </span>
    );
  }
  if (!disabled && confirming) {
    return (
      <span className="row nowrap" role="group" aria-label="Disable this key?">
        <span className="small">Apps using it stop working.</span>
        <button type="button" className="danger" disabled={change.isPending} onClick={() => change.mutate()} aria-label={`Disable ${key.keyShort}`}>Disable</button>
        <button type="button" className="link" onClick={() => setConfirming(false)}>Keep</button>
      </span>
    );
  }
  return (
    <button
      type="button"
      disabled={change.isPending}
      onClick={() => (disabled ? change.mutate() : setConfirming(true))}
      aria-label={`${disabled ? "Enable" : "Disable"} ${key.keyShort}${disabled ? "" : "…"}`}
    >
      {disabled ? "Enable" : "Disable…"}
    </button>
  );
}

/** The whole key and the machines it is activated on, read from Lemon Squeezy when asked for
 *  (each reading is in the audit log). */
export function WholeKey({ id }: { id: string }) {
  const detail = useQuery({ queryKey: ["license-key", id], queryFn: () => api.getLicenseKey({ id }), staleTime: 0, gcTime: 0 });
  const [copied, setCopied] = useState(false);
  if (detail.isPending) return <p className="muted small" role="status">Reading the key from Lemon Squeezy…</p>;
  if (detail.isError) return <p className="error" role="alert">{describeError(detail.error)}</p>;
  const key = detail.data.licenseKey;
  return (
    <div className="stack" aria-label="The whole key">
      <div className="row">
        <code className="whole-key">{key.key}</code>
        <button type="button" onClick={() => void navigator.clipboard?.writeText(key.key).then(() => setCopied(true))}>Copy</button>
        {copied && <span className="muted small" role="status">Copied.</span>}
      </div>
      {key.instances.length === 0 ? <p className="muted small">Not activated on any machine.</p> : (
        <ul className="plain" aria-label="Machines">
          {key.instances.map((m) => (
            <li key={m.id}>{m.name} <span className="muted small">since {formatDay(m.createdAt)} · {m.identifier}</span></li>
          ))}
        </ul>
      )}
    </div>
  );
}

/** Another activation limit (or none) and another expiry (or never). */
function ChangeTerms({ licenseKey: key, onDone }: { licenseKey: LicenseKey; onDone: () => void }) {
  const changed = useKeyChanged();
  const ids = { limit: useId(), unlimited: useId(), expiry: useId(), never: useId() };
  const [limit, setLimit] = useState(key.activationLimit === null ? "" : String(key.activationLimit));
  const [unlimited, setUnlimited] = useState(key.activationLimit === null);
  const [expiry, setExpiry] = useState(key.expiresAt?.slice(0, 10) ?? "");
  const [never, setNever] = useState(key.expiresAt === null);
  const limitNumber = Number(limit);
  const limitProblem = unlimited ? null : !/^\d+$/.test(limit.trim()) || limitNumber < 1 ? "must be a whole number of machines, at least 1" : null;
  const expiryProblem = never || expiry ? null : "needs a date, or tick Never";
  // Only what was changed is sent: an expiry kept as it was keeps its time of day.
  const limitChanged = unlimited ? key.activationLimit !== null : key.activationLimit !== limitNumber;
  const expiryChanged = never ? key.expiresAt !== null : key.expiresAt?.slice(0, 10) !== expiry;
  const save = useMutation({
    mutationFn: () => api.updateLicenseKey({
      id: key.id,
      ...(limitChanged ? (unlimited ? { unlimitedActivations: true } : { activationLimit: limitNumber }) : {}),
      ...(expiryChanged ? (never ? { neverExpires: true } : { expiresAt: expiry }) : {}),
    }),
    onSuccess: () => { changed(); onDone(); },
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (!limitProblem && !expiryProblem) save.mutate();
  };
  // Focus goes to the first field; Escape keeps the terms; focus goes back to Change….
  const dialog = useDialog<HTMLFormElement>(onDone);
  return (
    <form ref={dialog} className="callout stack" aria-label="Limit or expiry" onSubmit={submit} noValidate>
      <div className="row">
        <label htmlFor={ids.limit}>Machines</label>
        <input id={ids.limit} inputMode="numeric" size={5} value={limit} disabled={unlimited} onChange={(e) => setLimit(e.target.value)} />
        <input id={ids.unlimited} type="checkbox" checked={unlimited} onChange={(e) => setUnlimited(e.target.checked)} />
        <label htmlFor={ids.unlimited}>No limit</label>
        <span className="muted small">Activated on {key.activationUsage} now.</span>
      </div>
      {limitProblem && limit.trim() && <p className="error">Machines {limitProblem}</p>}
      {fieldError(save.error, "activationLimit") && <p className="error">Machines {fieldError(save.error, "activationLimit")}</p>}
      <div className="row">
        <label htmlFor={ids.expiry}>Expires</label>
        <input id={ids.expiry} type="date" value={expiry} disabled={never} onChange={(e) => setExpiry(e.target.value)} />
        <input id={ids.never} type="checkbox" checked={never} onChange={(e) => setNever(e.target.checked)} />
        <label htmlFor={ids.never}>Never</label>
      </div>
      {expiryProblem && <p className="error">Expiry {expiryProblem}</p>}
      {fieldError(save.error, "expiresAt") && <p className="error">Expiry {fieldError(save.error, "expiresAt")}</p>}
      {save.isError && !fieldError(save.error, "activationLimit") && !fieldError(save.error, "expiresAt") && (
        <p className="error" role="alert">{describeError(save.error)}</p>
      )}
      <div className="row">
        <button type="button" onClick={onDone}>Cancel</button>
        <button type="submit" className="primary" disabled={save.isPending || limitProblem !== null || expiryProblem !== null || !(limitChanged || expiryChanged)}>
          {save.isPending ? "Saving…" : "Save"}
        </button>
      </div>
    </form>
  );
}

/** An order's licence keys, for its side panel: the short form, the status and the machines,
 *  and the whole key on request. */
export function OrderLicenseKeys({ orderId }: { orderId: string }) {
  const keys = useQuery({ queryKey: ["license-keys", "order", orderId], queryFn: () => api.listLicenseKeys({ orderId, limit: 10 }) });
  const [shown, setShown] = useState<string | null>(null);
  if (keys.isError) return <p className="error small" role="alert">Licence keys: {describeError(keys.error)}</p>;
  if (!keys.data || keys.data.licenseKeys.length === 0) return null;
  return (
    <>
      <h4>Licence keys</h4>
      <ul className="plain" aria-label="Order's licence keys">
        {keys.data.licenseKeys.map((key) => {
          const [status, tone] = KEY_STATUSES[shownStatus(key)] ?? [key.status, ""];
          return (
            <li key={key.id} data-id={key.id}>
              <code>{key.keyShort}</code> <span className={`status ${tone}`}>{status}</span>{" "}
              <span className="muted small">{activations(key)} machines</span>
              <button
                type="button"
                className="link"
                aria-expanded={shown === key.id}
                aria-label={`Key and machines of ${key.keyShort}`}
                onClick={() => setShown(shown === key.id ? null : key.id)}
              >
                Key and machines
              </button>
              {shown === key.id && <WholeKey id={key.id} />}
            </li>
          );
        })}
      </ul>
    </>
  );
}
