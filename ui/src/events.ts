import { useEffect } from "react";
import { useQueryClient, type QueryKey } from "@tanstack/react-query";
import { listen } from "@tauri-apps/api/event";

/** Refetches `keys` whenever the core reports a webhook delivery (received, rejected, applied),
 *  so what the webhook changed shows without a reload. */
export function useRefetchOnWebhook(keys: QueryKey[]) {
  useRefetchOnEvent("webhook", keys);
}

/** Refetches `keys` whenever the core sends `event` to the windows (e.g. `document-saved` from
 *  an editor window, so the main window's lists show the new modified time). */
export function useRefetchOnEvent(event: string, keys: QueryKey[]) {
  const queryClient = useQueryClient();
  const joined = JSON.stringify(keys);
  useEffect(() => {
    const stop = listen(event, () => {
      for (const queryKey of JSON.parse(joined) as QueryKey[]) void queryClient.invalidateQueries({ queryKey });
    });
    return () => void stop.then((unlisten) => unlisten());
  }, [event, queryClient, joined]);
}
