import { describe, expect, it } from "vitest";
import { screen, waitFor, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { Settings } from "./Settings";
import { mockCommands, renderWithQuery } from "../test/render";
import { connectionsView } from "../test/connections";
import type { SettingsView, SyncStatus, User } from "../types";

const admin: User = { id: "u1", email: "ada@example.com", name: "Ada", role: "admin", disabled: false, locked: false };
const staff: User = { ...admin, id: "u2", email: "sam@example.com", name: "Sam", role: "staff" };

const view = (signedIn: boolean): SettingsView => ({
  sandbox: true,
  dataDir: "/home/u/.local/share/staffroom-sandbox",
  secrets: [
    { name: "lemonsqueezy_api_key", about: "Lemon Squeezy API key", source: "sandbox (generated)" },
    { name: "google_client_id", about: "Google OAuth client id", source: "not set" },
  ],
  google: signedIn ? { signedIn: true, kind: "oauth", expiresAt: "2026-11-22T11:00:00Z", canSignIn: true } : { signedIn: false, canSignIn: true },
  simulators: { payments: "http://127.0.0.1:41001", google: "http://127.0.0.1:41002" },
});

const syncStatus = (intervalSecs: number, running = false): SyncStatus => ({
  running,
  intervalSecs,
  resources: [
    { resource: "products", syncedAt: "2026-11-22T10:00:00Z", attemptedAt: "2026-11-22T10:00:00Z", error: null },
    { resource: "subscriptions", syncedAt: null, attemptedAt: "2026-11-22T10:00:00Z", error: "Lemon Squeezy did not answer in time" },
  ],
});

describe("Settings", () => {
  it("shows a team server's credentials read-only, with where each comes from", async () => {
    const calls = mockCommands({ settings: () => view(false), sync_status: () => syncStatus(300) });
    renderWithQuery(<Settings user={admin} teamServer="https://staff.example.com" />);
    expect(await screen.findByText("https://staff.example.com")).toBeInTheDocument();
    const credentials = screen.getByRole("table", { name: "Credentials" });
    expect(within(credentials).getByText("sandbox (generated)")).toBeInTheDocument();
    expect(screen.queryByRole("form", { name: "Store a credential" })).toBeNull();
    expect(calls.map((c) => c.cmd)).not.toContain("set_secret");
  });

  it("signs the team server in to Google from here", async () => {
    let signedIn = false;
    const calls = mockCommands({
      settings: () => view(signedIn),
      sync_status: () => syncStatus(300),
      google_sign_in: () => { signedIn = true; return view(true).google; },
    });
    renderWithQuery(<Settings user={admin} teamServer="https://staff.example.com" />);
    expect(await screen.findByText(/the server finishes the sign-in and keeps the tokens/)).toBeInTheDocument();
    expect(await screen.findByText(/read from a copy on the team server/)).toBeInTheDocument();
    await userEvent.click(screen.getByRole("button", { name: "Sign in with Google" }));
    expect(await screen.findByRole("button", { name: "Sign out of Google" })).toBeInTheDocument();
    expect(calls.map((c) => c.cmd)).toContain("google_sign_in");
  });

  it("signs in to Google and out again", async () => {
    let signedIn = false;
    const calls = mockCommands({
      settings: () => view(signedIn),
      sync_status: () => syncStatus(300),
      google_sign_in: () => { signedIn = true; return view(true).google; },
      google_sign_out: () => { signedIn = false; return view(false).google; },
    });
    renderWithQuery(<Settings user={admin} />);
    expect(screen.getByText("Loading settings…")).toBeInTheDocument();
    const google = await screen.findByRole("heading", { name: "Google" });
    expect(within(google.parentElement!).getByRole("status")).toHaveTextContent("Not signed in");
    await userEvent.click(screen.getByRole("button", { name: "Sign in with Google" }));
    await userEvent.click(await screen.findByRole("button", { name: "Sign out of Google" }));
    await screen.findByRole("button", { name: "Sign in with Google" });
    expect(calls.map((c) => c.cmd).filter((c) => c.startsWith("google"))).toEqual(["google_sign_in", "google_sign_out"]);
  });

  it("stores a credential without ever showing it, and says where each comes from", async () => {
    const calls = mockCommands({ settings: () => view(false), sync_status: () => syncStatus(300), set_secret: () => null });
    renderWithQuery(<Settings user={admin} />);
    const table = await screen.findByRole("table", { name: "Credentials" });
    expect(within(table).getByText("sandbox (generated)")).toBeInTheDocument();
    expect(screen.getByLabelText("Simulators")).toHaveTextContent("payments at http://127.0.0.1:41001, Google at http://127.0.0.1:41002");
    await userEvent.selectOptions(screen.getByLabelText("Credential"), "google_client_id");
    await userEvent.type(screen.getByLabelText("Value"), "client.apps.googleusercontent.com");
    expect(screen.getByLabelText("Value")).toHaveAttribute("type", "password");
    await userEvent.click(screen.getByRole("button", { name: "Store" }));
    expect(await screen.findByText("Stored. The value is never shown again.")).toBeInTheDocument();
    expect(screen.getByLabelText("Value")).toHaveValue("");
    expect(calls.find((c) => c.cmd === "set_secret")!.args).toEqual({ name: "google_client_id", value: "client.apps.googleusercontent.com" });
  });

  it("shows the payments sync, changes its interval and syncs now", async () => {
    let interval = 300;
    const calls = mockCommands({
      settings: () => view(false),
      sync_status: () => syncStatus(interval),
      set_sync_interval: (args) => { interval = args.intervalSecs as number; return syncStatus(interval); },
      sync_now: () => syncStatus(interval),
    });
    renderWithQuery(<Settings user={admin} />);
    const table = await screen.findByRole("table", { name: "Last syncs" });
    expect(within(table).getByText("never")).toBeInTheDocument();
    expect(within(table).getByText("Failed: Lemon Squeezy did not answer in time")).toBeInTheDocument();
    const every = screen.getByLabelText("Sync every");
    expect(every).toHaveDisplayValue("5 minutes");
    await userEvent.selectOptions(every, "3600");
    await waitFor(() => expect(screen.getByLabelText("Sync every")).toHaveDisplayValue("hour"));
    await userEvent.click(screen.getByRole("button", { name: "Sync now" }));
    await waitFor(() => expect(calls.some((c) => c.cmd === "sync_now")).toBe(true));
    expect(calls.find((c) => c.cmd === "set_sync_interval")!.args).toEqual({ intervalSecs: 3600 });
  });

  it("shows an interval set elsewhere, a running sync, and a refused change", async () => {
    mockCommands({
      settings: () => view(false),
      connections: () => connectionsView(),
      sync_status: () => syncStatus(90, true),
      set_sync_interval: () => { throw { code: "invalid_request", message: "intervalSecs must be from 60 to 86400 seconds" }; },
    });
    renderWithQuery(<Settings user={admin} />);
    expect(await screen.findByLabelText("Sync every")).toHaveDisplayValue("90 seconds");
    expect(screen.getByRole("button", { name: "Syncing…" })).toBeDisabled();
    await userEvent.selectOptions(screen.getByLabelText("Sync every"), "60");
    expect(await screen.findByRole("alert")).toHaveTextContent("intervalSecs must be from 60 to 86400 seconds (invalid_request)");
  });

  it("says when the settings cannot be read (an admin made staff meanwhile)", async () => {
    mockCommands({ settings: () => { throw { code: "forbidden", message: "Only an admin can do this" }; } });
    renderWithQuery(<Settings user={admin} />);
    expect(await screen.findByRole("alert")).toHaveTextContent("Only an admin can do this (forbidden)");
  });

  it("lets staff switch their own notifications, kept for them on this computer, without the admin settings", async () => {
    const calls = mockCommands({});
    renderWithQuery(<Settings user={staff} />);
    const box = screen.getByRole("checkbox", { name: "An order is paid" });
    expect(box).toBeChecked();
    await userEvent.click(box);
    expect(box).not.toBeChecked();
    expect(JSON.parse(localStorage.getItem("staffroom.notifications.u2")!)).toMatchObject({ orderPaid: false, paymentFailed: true });
    expect(screen.getByText(/is for admins/)).toBeInTheDocument();
    expect(calls.some((c) => c.cmd === "settings")).toBe(false);
  });

  it("shows each connection with the fix beside each problem, and a broken one's way back to the set-up", async () => {
    mockCommands({
      settings: () => view(true),
      sync_status: () => syncStatus(300),
      connections: () =>
        connectionsView((c) => {
          c.lemonSqueezy.problems = [
            {
              code: "webhook_silent",
              message: "Lemon Squeezy sent a webhook at 2026-11-28 10:31:00 UTC but none has arrived here since 2026-11-28 09:00:00 UTC: check that https://staff.example.com/api/payments/webhooks reaches this server",
              fix: "Open the address from outside this network",
            },
          ];
          c.google = { state: "connected", account: null, scopes: ["https://www.googleapis.com/auth/documents"], missingScopes: ["https://www.googleapis.com/auth/drive"], problems: [{ code: "scopes_missing", message: "Google's sign-in lacks drive", fix: "Sign in to Google again and tick every box Google asks about" }] };
        }),
    });
    renderWithQuery(<Settings user={admin} />);
    const lemon = await screen.findByRole("list", { name: "Lemon Squeezy problems" });
    expect(within(lemon).getByText(/none has arrived here since/)).toBeInTheDocument();
    expect(within(lemon).getByText(/Open the address from outside this network/)).toBeInTheDocument();
    expect(screen.getByText("Ada's Shop · EUR · #1", { exact: false })).toBeInTheDocument();
    const google = screen.getByRole("list", { name: "Google problems" });
    expect(within(google).getByText(/tick every box/)).toBeInTheDocument();
    expect(screen.getByRole("link", { name: "Set up" })).toHaveAttribute("href", "/setup");
  });
});
