// Whether the team server this app is signed in to can be reached. The Rust relay of its live
// events says so (`team-server`), and so does any call refused as `unavailable` naming the team
// server. When it is back, every screen refetches what it shows.
import { useEffect, useRef, useSyncExternalStore } from "react";
import { useQueryClient } from "@tanstack/react-query";
import { listen } from "@tauri-apps/api/event";

/** The team server is out of reach. */
export interface Outage {
  server: string;
  message: string;
}

/** The `team-server` event of the relay. */
interface Reach {
  server: string;
  reachable: boolean;
  message?: string;
}

let outage: Outage | null = null;
const watchers = new Set<() => void>();

/** Records that the server cannot be reached (or, with null, that it can again). */
export function reportOutage(next: Outage | null) {
  if (outage?.server === next?.server && outage?.message === next?.message) return;
  outage = next;
  watchers.forEach((watcher) => watcher());
}

function subscribe(watcher: () => void) {
  watchers.add(watcher);
  return () => void watchers.delete(watcher);
}

/** The current outage, if any. */
export function useOutage(): Outage | null {
  return useSyncExternalStore(subscribe, () => outage);
}

/** Follows the relay's events for this window: the server's reach, and `events-reset` (events
 *  were missed), which refetches everything, as does the server coming back. */
export function useTeamServerReach() {
  const queryClient = useQueryClient();
  const current = useOutage();
  const previous = useRef(current);
  useEffect(() => {
    if (previous.current && !current) void queryClient.invalidateQueries();
    previous.current = current;
  }, [current, queryClient]);
  useEffect(() => {
    const stops = [
      listen<Reach>("team-server", ({ payload }) =>
        reportOutage(payload.reachable ? null : { server: payload.server, message: payload.message ?? `The team server ${payload.server} cannot be reached` }),
      ),
      listen("events-reset", () => void queryClient.invalidateQueries()),
    ];
    return () => stops.forEach((stop) => void stop.then((unlisten) => unlisten()));
  }, [queryClient]);
}
