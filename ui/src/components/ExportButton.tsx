import { useEffect, useState } from "react";
import { listen } from "@tauri-apps/api/event";
import { api, describeError } from "../api";

/** What the desktop sends while an export is written (`export-progress`). */
interface ExportProgress {
  list: string;
  rows: number;
  total: number;
}

type Filters = Record<string, string | number | boolean | null | undefined>;

/** "Export CSV" on a list: every row its current filters match, saved where the user picks in the
 *  system's save dialog, with the rows written so far shown while it runs and where it went after. */
export function ExportButton({ list, noun, filters }: { list: string; noun: string; filters: Filters }) {
  const [running, setRunning] = useState(false);
  const [progress, setProgress] = useState<ExportProgress | null>(null);
  const [outcome, setOutcome] = useState<{ text: string; error: boolean } | null>(null);

  useEffect(() => {
    if (!running) return;
    const stop = listen<ExportProgress>("export-progress", (event) => {
      if (event.payload.list === list) setProgress(event.payload);
    });
    return () => void stop.then((unlisten) => unlisten());
  }, [running, list]);

  const start = async () => {
    setRunning(true);
    setProgress(null);
    setOutcome(null);
    try {
      const given = Object.fromEntries(
        Object.entries(filters).filter((entry): entry is [string, string | number | boolean] => entry[1] !== null && entry[1] !== undefined && entry[1] !== ""),
      );
      const saved = await api.exportCsv({ list, filters: given });
      if (saved.path) {
        setOutcome({ text: `Saved ${saved.rows.toLocaleString()} ${saved.rows === 1 ? noun.replace(/s$/, "") : noun} to ${saved.path}`, error: false });
      }
    } catch (error) {
      setOutcome({ text: `The export failed: ${describeError(error)}`, error: true });
    } finally {
      setRunning(false);
    }
  };

  const label = progress ? `Exported ${progress.rows.toLocaleString()} of ${progress.total.toLocaleString()} ${noun}` : `Exporting ${noun}…`;
  return (
    <div className="export">
      <button type="button" onClick={() => void start()} disabled={running}>
        Export CSV
      </button>
      {running && (
        <span className="export-progress" role="status">
          <span className="small muted">{label}</span>
          <progress max={progress?.total || undefined} value={progress?.total ? progress.rows : undefined} aria-label={label} />
        </span>
      )}
      {!running && outcome && (
        <span className={outcome.error ? "error small" : "small muted"} role={outcome.error ? "alert" : "status"} data-testid="export-outcome">
          {outcome.text}
        </span>
      )}
    </div>
  );
}
