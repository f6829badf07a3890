import { describe, expect, it } from "vitest";
import { act, screen, waitFor } from "@testing-library/react";
import { emit } from "@tauri-apps/api/event";
import { useQuery } from "@tanstack/react-query";
import { SyncIndicator } from "./SyncIndicator";
import { mockCommands, renderWithQuery } from "../test/render";

/** A list that counts its fetches, to see the sync's end refetch it. */
function ProductsProbe() {
  const list = useQuery({ queryKey: ["products", "", "", 1], queryFn: () => (window as unknown as { __fetches: number }).__fetches++ });
  return <p>fetched {list.data ?? "-"}</p>;
}

describe("SyncIndicator", () => {
  it("shows nothing until a sync runs, then its step and pages, and refetches the lists when it ends", async () => {
    mockCommands({});
    (window as unknown as { __fetches: number }).__fetches = 0;
    renderWithQuery(<><SyncIndicator /><ProductsProbe /></>);
    await screen.findByText("fetched 0");
    expect(screen.queryByRole("status", { name: "Sync progress" })).not.toBeInTheDocument();

    await act(() => emit("sync-progress", { step: "subscriptions", done: 2, total: 3, error: null }));
    const status = await screen.findByRole("status", { name: "Sync progress" });
    expect(status).toHaveTextContent("Syncing subscriptions: page 2 of 3");
    const bar = screen.getByRole("progressbar");
    expect(bar).toHaveAttribute("value", "2");
    expect(bar).toHaveAttribute("max", "3");

    // No total from the provider: an indeterminate bar.
    await act(() => emit("sync-progress", { step: "pending", done: 1, total: null, error: null }));
    expect(await screen.findByText("Checking pending orders: buyer 1")).toBeInTheDocument();
    expect(screen.getByRole("progressbar")).not.toHaveAttribute("value");
    await act(() => emit("sync-progress", { step: "customers", done: 4, total: 5, error: null }));
    expect(await screen.findByText("Syncing customers: page 4 of 5")).toBeInTheDocument();

    await act(() => emit("sync-progress", { step: "done", done: 0, total: null, error: null }));
    await waitFor(() => expect(screen.queryByRole("status", { name: "Sync progress" })).not.toBeInTheDocument());
    expect(await screen.findByText("fetched 1")).toBeInTheDocument();
  });
});
