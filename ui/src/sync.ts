import { useEffect, useState } from "react";
import { useQueryClient, type QueryClient } from "@tanstack/react-query";
import { listen } from "@tauri-apps/api/event";
import type { SyncProgress } from "./types";

/** The lists a payments sync refreshes, refetched when one ends. */
const SYNCED_QUERIES = ["products", "subscriptions", "orders", "customers", "customer", "invoices", "license-keys", "discounts", "summary", "sync-status"];

function refetchSynced(queryClient: QueryClient) {
  for (const key of SYNCED_QUERIES) void queryClient.invalidateQueries({ queryKey: [key] });
}

/** The running sync's newest progress, or null when none runs. When a sync ends, the lists it
 *  refreshed are refetched, so every screen shows the new copy without a reload. */
export function useSyncProgress(): SyncProgress | null {
  const queryClient = useQueryClient();
  const [progress, setProgress] = useState<SyncProgress | null>(null);
  useEffect(() => {
    const stop = listen<SyncProgress>("sync-progress", ({ payload }) => {
      if (payload.step !== "done") return setProgress(payload);
      setProgress(null);
      refetchSynced(queryClient);
    });
    return () => void stop.then((unlisten) => unlisten());
  }, [queryClient]);
  return progress;
}

const READING: Record<Exclude<SyncProgress["step"], "done" | "pending">, string> = {
  products: "products",
  variants: "product variants",
  subscriptions: "subscriptions",
  orders: "orders",
  customers: "customers",
  invoices: "invoices",
  license_keys: "licence keys",
  discounts: "discounts",
};

/** A progress step as people read it: "Syncing subscriptions: page 2 of 3". */
export function describeProgress(progress: SyncProgress): string {
  const count = progress.total ? `${progress.done} of ${progress.total}` : `${progress.done}`;
  if (progress.step === "pending") return `Checking pending orders: buyer ${count}`;
  if (progress.step === "done") return "Sync finished";
  return `Syncing ${READING[progress.step]}: page ${count}`;
}

/** Refetches the synced lists (after a sync asked for on screen). */
export function useRefetchSynced() {
  const queryClient = useQueryClient();
  return () => refetchSynced(queryClient);
}
