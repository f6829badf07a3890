import { describe, expect, it, vi } from "vitest";
import { screen, waitFor } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { Setup } from "./Setup";
import { mockCommands, renderWithQuery } from "../test/render";
import { connectionsView } from "../test/connections";
import type { KeyCheck, User } from "../types";

const admin: User = { id: "u1", email: "ada@example.com", name: "Ada", role: "admin", disabled: false, locked: false };

const checked: KeyCheck = {
  account: { name: "Ada Owner", email: "ada@example.com" },
  testMode: true,
  stores: [
    { id: "1", name: "Ada's Shop", currency: "EUR", url: "https://ada.lemonsqueezy.com" },
    { id: "2", name: "Side Project", currency: "USD", url: "https://side.lemonsqueezy.com" },
  ],
};

const refusedKey = {
  code: "invalid_request",
  message: "apiKey: Lemon Squeezy refused this key",
  details: { fields: [{ field: "apiKey", message: "Lemon Squeezy refused this key: copy it again" }] },
};

describe("Going live", () => {
  it("walks a new admin from the key to a store, the webhook, Google and staff", async () => {
    const onGo = vi.fn();
    const calls = mockCommands({
      check_lemonsqueezy_key: (r) => {
        if (r.apiKey !== "good-key") throw refusedKey;
        return checked;
      },
      connect_lemonsqueezy: () => ({ lemonSqueezy: connectionsView().lemonSqueezy }),
      sync_status: () => ({ running: false, intervalSecs: 600, resources: [] }),
      webhook_receiver: () => ({ running: false, url: null, hasSecret: false, secretProblem: null }),
      register_webhook: (r) => ({ webhook: { id: "9", url: r.url, events: Array(15).fill("x"), testMode: true } }),
      connections: () => connectionsView((c) => {
        c.google = { state: "not_configured", account: null, scopes: [], missingScopes: [], problems: [{ code: "google_client_missing", message: "No Google OAuth client is set", fix: "Create one" }] };
      }),
      set_google_client: () => ({ google: connectionsView().google }),
    });
    renderWithQuery(<Setup user={admin} onGo={onGo} />);

    // A refused key: the sentence under the field, no store asked for.
    await userEvent.type(screen.getByLabelText("API key"), "wrong");
    await userEvent.click(screen.getByRole("button", { name: "Check the key" }));
    expect(await screen.findByText(/Lemon Squeezy refused this key/)).toBeInTheDocument();
    expect(screen.getByLabelText("API key")).toHaveAttribute("aria-invalid", "true");

    await userEvent.clear(screen.getByLabelText("API key"));
    await userEvent.type(screen.getByLabelText("API key"), "good-key");
    await userEvent.click(screen.getByRole("button", { name: "Check the key" }));
    expect(await screen.findByText("Test mode")).toBeInTheDocument();
    const connect = screen.getByRole("button", { name: "Connect this store" });
    expect(connect).toBeDisabled();
    await userEvent.click(screen.getByRole("radio", { name: /Side Project/ }));
    await userEvent.click(connect);
    expect(await screen.findByText(/Synced: its products, orders and subscriptions are here now/)).toBeInTheDocument();
    expect(calls.find((c) => c.cmd === "connect_lemonsqueezy")!.args).toEqual({ apiKey: "good-key", storeId: "2" });

    // Webhooks: nowhere says what that means; an address registers.
    await userEvent.click(screen.getByRole("button", { name: "Next: webhooks" }));
    await userEvent.click(screen.getByRole("radio", { name: "Nowhere for now" }));
    expect(await screen.findByText(/only with the sync, every 10 minutes/)).toBeInTheDocument();
    await userEvent.click(screen.getByRole("radio", { name: /A tunnel to this computer/ }));
    expect(screen.getByText(/This computer’s receiver is off/)).toBeInTheDocument();
    await userEvent.type(screen.getByLabelText("Public address (https://…)"), "https://tunnel.example.com/");
    expect(screen.getByText("https://tunnel.example.com/api/payments/webhooks")).toBeInTheDocument();
    await userEvent.click(screen.getByRole("button", { name: "Register the webhook" }));
    expect(await screen.findByText(/Webhook #9 sends 15 kinds of event/)).toBeInTheDocument();
    expect(calls.find((c) => c.cmd === "register_webhook")!.args).toEqual({ url: "https://tunnel.example.com/api/payments/webhooks" });

    // Google: where to make the client, then its id and secret.
    await userEvent.click(screen.getByRole("button", { name: "Next: Google" }));
    expect(await screen.findByRole("button", { name: "Open Google Cloud Console" })).toBeInTheDocument();
    await userEvent.type(screen.getByLabelText("Client ID"), "1-abc.apps.googleusercontent.com");
    await userEvent.type(screen.getByLabelText("Client secret"), "GOCSPX-secret");
    await userEvent.click(screen.getByRole("button", { name: "Save the client" }));
    await waitFor(() => expect(calls.some((c) => c.cmd === "set_google_client")).toBe(true));
    expect(calls.find((c) => c.cmd === "set_google_client")!.args).toEqual({ clientId: "1-abc.apps.googleusercontent.com", clientSecret: "GOCSPX-secret" });

    // Staff, then out.
    await userEvent.click(screen.getByRole("button", { name: /Staff$/ }));
    await userEvent.click(screen.getByRole("button", { name: "Add staff accounts" }));
    expect(onGo).toHaveBeenCalledWith("users");
  });

  it("offers the team server's own address for webhooks", async () => {
    const calls = mockCommands({
      sync_status: () => ({ running: false, intervalSecs: 300, resources: [] }),
      register_webhook: (r) => ({ webhook: { id: "3", url: r.url, events: [], testMode: false } }),
    });
    renderWithQuery(<Setup user={admin} teamServer="https://staff.example.com" onGo={() => {}} />);
    await userEvent.click(screen.getByRole("button", { name: /Webhooks/ }));
    expect(screen.getByRole("radio", { name: /This team server/ })).toBeChecked();
    await userEvent.click(screen.getByRole("button", { name: "Register the webhook" }));
    await waitFor(() => expect(calls.some((c) => c.cmd === "register_webhook")).toBe(true));
    expect(calls.find((c) => c.cmd === "register_webhook")!.args).toEqual({ url: "https://staff.example.com/api/payments/webhooks" });
    expect(calls.map((c) => c.cmd)).not.toContain("webhook_receiver");
  });
});
