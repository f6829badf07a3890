import { useMutation } from "@tanstack/react-query";
import { api, describeError } from "../api";
import { useRefetchSynced } from "../sync";

interface Props {
  /** What is shown from the cache, as in "showing the products as last synced". */
  what: string;
  syncedAt?: string | null;
}

/** Says that Lemon Squeezy cannot be reached and the list is the cached copy; offers a retry. */
export function StaleBanner({ what, syncedAt }: Props) {
  const refetch = useRefetchSynced();
  const retry = useMutation({ mutationFn: api.syncNow, onSettled: refetch });
  return (
    <div className="banner" role="status">
      Lemon Squeezy cannot be reached: showing {what} as last synced
      {syncedAt ? ` (${new Date(syncedAt).toLocaleString()})` : ""}.{" "}
      <button type="button" className="link" onClick={() => retry.mutate()} disabled={retry.isPending}>
        {retry.isPending ? "Trying…" : "Try again"}
      </button>
      {retry.isError && <span className="error"> {describeError(retry.error)}</span>}
    </div>
  );
}
