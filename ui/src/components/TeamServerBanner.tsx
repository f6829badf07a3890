import { useMutation } from "@tanstack/react-query";
import { api, describeError } from "../api";
import { reportOutage, useOutage } from "../reach";

/** Says that the team server cannot be reached and offers "Try again". What is on screen stays:
 *  the editor keeps its draft and dialogs keep their input. */
export function TeamServerBanner() {
  const outage = useOutage();
  const retry = useMutation({ mutationFn: api.reconnect, onSuccess: () => reportOutage(null) });
  if (!outage) return null;
  return (
    <div className="banner" role="alert" aria-label="Team server out of reach">
      The team server <code>{outage.server}</code> cannot be reached. Nothing you typed is lost.{" "}
      <button type="button" className="link" onClick={() => retry.mutate()} disabled={retry.isPending}>
        {retry.isPending ? "Trying…" : "Try again"}
      </button>
      {retry.isError && <span className="error"> {describeError(retry.error)}</span>}
    </div>
  );
}
