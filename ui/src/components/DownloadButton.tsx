import { useState } from "react";
import { api, describeError } from "../api";

/** "Download PDF": the document as Google exports it, saved where the user picks in the system's
 *  save dialog; then where it went, or why not. */
export function DownloadButton({ id, name, label }: { id: string; name: string; label?: string }) {
  const [busy, setBusy] = useState(false);
  const [outcome, setOutcome] = useState<{ text: string; error: boolean } | null>(null);
  const download = async () => {
    setBusy(true);
    setOutcome(null);
    try {
      const saved = await api.downloadDocument({ id, name, format: "pdf" });
      if (saved.path) setOutcome({ text: `Saved to ${saved.path}`, error: false });
    } catch (error) {
      setOutcome({ text: `The download failed: ${describeError(error)}`, error: true });
    } finally {
      setBusy(false);
    }
  };
  return (
    <>
      <button type="button" onClick={() => void download()} disabled={busy} aria-label={label}>
        {busy ? "Downloading…" : "Download PDF"}
      </button>
      {outcome && (
        <span className={outcome.error ? "error small" : "small muted"} role={outcome.error ? "alert" : "status"}>
          {outcome.text}
        </span>
      )}
    </>
  );
}
