import { useState, type FormEvent } from "react";
import { useQuery } from "@tanstack/react-query";
import { api, describeError, isApiError } from "../api";
import { useFocusBack } from "../focus";
import type { CustomerRole } from "../bindings/CustomerRole";

/** What a new document is made for: a customer, an order or a subscription (by their ids), and
 *  the name it suggests ("Welcome letter — Zoë Martin"). */
export interface MadeFor {
  customerId?: string | null;
  orderId?: string | null;
  subscriptionId?: string | null;
  /** Whom it is for, as the suggested name ends. */
  label: string;
}

/** "New document from template" on a customer's, an order's or a subscription's page: pick a
 *  template from the folder an admin chose, name the new document, invite the customer if wanted;
 *  it is made with the placeholders filled and opens in the editor. */
export function FromTemplate({ madeFor }: { madeFor: MadeFor }) {
  const [open, setOpen] = useState(false);
  // Focus goes back to the button the form came from when it closes.
  const [opener, focusBack] = useFocusBack<HTMLButtonElement>();
  const close = () => {
    setOpen(false);
    focusBack();
  };
  if (!open) return <button type="button" ref={opener} onClick={() => setOpen(true)}>New document from template</button>;
  return <FromTemplateForm madeFor={madeFor} onClose={close} />;
}

function FromTemplateForm({ madeFor, onClose }: { madeFor: MadeFor; onClose: () => void }) {
  const templates = useQuery({ queryKey: ["templates"], queryFn: api.listTemplates, retry: false });
  const [templateId, setTemplateId] = useState("");
  const [name, setName] = useState("");
  const [share, setShare] = useState<CustomerRole | "">("");
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const chosen = templates.data?.templates.find((t) => t.id === templateId);
  const suggested = chosen ? `${chosen.name} — ${madeFor.label}` : "";

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    if (!chosen) return setError("Choose a template.");
    setBusy(true);
    setError(null);
    try {
      const made = await api.createFromTemplate({
        templateId: chosen.id,
        name: name.trim() || suggested,
        customerId: madeFor.customerId ?? null,
        orderId: madeFor.orderId ?? null,
        subscriptionId: madeFor.subscriptionId ?? null,
        shareWith: share || null,
      });
      await api.openEditor({ id: made.document.id, name: made.document.name });
      onClose();
    } catch (failure) {
      const left = isApiError(failure) && Array.isArray(failure.details?.placeholders) ? (failure.details.placeholders as string[]) : null;
      setError(left ? `This template holds placeholders that cannot be filled here: ${left.map((p) => `{{${p}}}`).join(", ")}. Nothing was made.` : describeError(failure));
    } finally {
      setBusy(false);
    }
  };

  if (templates.isError) {
    const noFolder = isApiError(templates.error) && templates.error.code === "conflict";
    return (
      <div className="callout stack" role="alert">
        <p>{noFolder ? "No templates yet: an admin chooses the Drive folder of templates in Settings." : describeError(templates.error)}</p>
        <div className="row"><button type="button" onClick={onClose}>Close</button></div>
      </div>
    );
  }
  return (
    <form
      className="callout stack from-template"
      aria-label="New document from template"
      onSubmit={(e) => void submit(e)}
      onKeyDown={(e) => {
        if (e.key === "Escape" && !busy) onClose();
      }}
      noValidate
    >
      <h3>New document from template</h3>
      {templates.isPending ? (
        <p className="muted">Reading the templates…</p>
      ) : templates.data.templates.length === 0 ? (
        <p className="muted">The templates folder holds no Google documents yet.</p>
      ) : (
        <>
          <label htmlFor="template-choice">Template</label>
          <select id="template-choice" value={templateId} onChange={(e) => setTemplateId(e.target.value)} required autoFocus>
            <option value="">Choose…</option>
            {templates.data.templates.map((t) => (
              <option key={t.id} value={t.id}>{t.name}</option>
            ))}
          </select>
          {chosen && (
            <p className="muted small">
              {chosen.placeholders.length ? `Fills ${chosen.placeholders.map((p) => `{{${p}}}`).join(", ")}` : "It has no placeholders: a plain copy."}
            </p>
          )}
          <label htmlFor="template-name">Name</label>
          <input id="template-name" value={name} placeholder={suggested || "The new document's name"} onChange={(e) => setName(e.target.value)} maxLength={255} />
          <label htmlFor="template-share">Invite the customer</label>
          <select id="template-share" value={share} onChange={(e) => setShare(e.target.value as CustomerRole | "")}>
            <option value="">No</option>
            <option value="reader">As a reader</option>
            <option value="commenter">As a commenter</option>
          </select>
        </>
      )}
      {error && <p className="error" role="alert">{error}</p>}
      <div className="row">
        <button type="submit" className="primary" disabled={busy || !chosen}>{busy ? "Making it…" : "Make and open"}</button>
        <button type="button" onClick={onClose} disabled={busy}>Cancel</button>
      </div>
    </form>
  );
}
