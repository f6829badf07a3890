import { describeProgress, useSyncProgress } from "../sync";

/** In the top bar while the payments cache syncs: what is being read and how far it has got. */
export function SyncIndicator() {
  const progress = useSyncProgress();
  if (!progress) return null;
  const label = describeProgress(progress);
  return (
    <div className="sync-indicator" role="status" aria-label="Sync progress">
      <span className="small muted">{label}</span>
      {/* Without a total the bar is indeterminate: the provider did not say how many pages. */}
      <progress max={progress.total ?? undefined} value={progress.total ? progress.done : undefined} aria-label={label} />
    </div>
  );
}
