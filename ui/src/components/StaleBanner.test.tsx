import { describe, expect, it } from "vitest";
import { screen, waitFor } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { StaleBanner } from "./StaleBanner";
import { mockCommands, renderWithQuery } from "../test/render";

describe("StaleBanner", () => {
  it("says the list is the cached copy, with when it was synced, and tries again on request", async () => {
    const calls = mockCommands({ sync_now: () => ({ running: false, intervalSecs: 300, resources: [] }) });
    renderWithQuery(<StaleBanner what="the products" syncedAt="2026-11-22T10:00:00Z" />);
    expect(screen.getByRole("status")).toHaveTextContent(
      `Lemon Squeezy cannot be reached: showing the products as last synced (${new Date("2026-11-22T10:00:00Z").toLocaleString()}).`,
    );
    await userEvent.click(screen.getByRole("button", { name: "Try again" }));
    await waitFor(() => expect(calls.map((c) => c.cmd)).toEqual(["sync_now"]));
  });

  it("says why trying again failed", async () => {
    mockCommands({ sync_now: () => { throw { code: "integration_error", message: "Lemon Squeezy did not answer" }; } });
    renderWithQuery(<StaleBanner what="the subscriptions" />);
    await userEvent.click(screen.getByRole("button", { name: "Try again" }));
    expect(await screen.findByText(/Lemon Squeezy did not answer \(integration_error\)/)).toBeInTheDocument();
  });
});
