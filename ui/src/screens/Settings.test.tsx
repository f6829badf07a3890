import { describe, expect, it } from "vitest";
import { screen, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { Settings } from "./Settings";
import { mockCommands, renderWithQuery } from "../test/render";
import type { SettingsView } from "../types";

const view = (signedIn: boolean): SettingsView => ({
  sandbox: true,
  dataDir: "/home/u/.local/share/staffroom-sandbox",
  secrets: [
    { name: "lemonsqueezy_api_key", about: "Lemon Squeezy API key", source: "sandbox (generated)" },
    { name: "google_client_id", about: "Google OAuth client id", source: "not set" },
  ],
  google: signedIn ? { signedIn: true, kind: "oauth", expiresAt: "2026-11-22T11:00:00Z", canSignIn: true } : { signedIn: false, canSignIn: true },
});

describe("Settings", () => {
  it("signs in to Google and out again", async () => {
    let signedIn = false;
    const calls = mockCommands({
      settings: () => view(signedIn),
      google_sign_in: () => { signedIn = true; return view(true).google; },
      google_sign_out: () => { signedIn = false; return view(false).google; },
    });
    renderWithQuery(<Settings />);
    expect(screen.getByText("Loading settings…")).toBeInTheDocument();
    const google = await screen.findByRole("heading", { name: "Google" });
    expect(within(google.parentElement!).getByRole("status")).toHaveTextContent("Not signed in");
    await userEvent.click(screen.getByRole("button", { name: "Sign in with Google" }));
    await userEvent.click(await screen.findByRole("button", { name: "Sign out of Google" }));
    await screen.findByRole("button", { name: "Sign in with Google" });
    expect(calls.map((c) => c.cmd).filter((c) => c.startsWith("google"))).toEqual(["google_sign_in", "google_sign_out"]);
  });

  it("stores a credential without ever showing it, and says where each comes from", async () => {
    const calls = mockCommands({ settings: () => view(false), set_secret: () => null });
    renderWithQuery(<Settings />);
    const table = await screen.findByRole("table", { name: "Credentials" });
    expect(within(table).getByText("sandbox (generated)")).toBeInTheDocument();
    await userEvent.selectOptions(screen.getByLabelText("Credential"), "google_client_id");
    await userEvent.type(screen.getByLabelText("Value"), "client.apps.googleusercontent.com");
    expect(screen.getByLabelText("Value")).toHaveAttribute("type", "password");
    await userEvent.click(screen.getByRole("button", { name: "Store" }));
    expect(await screen.findByText("Stored. The value is never shown again.")).toBeInTheDocument();
    expect(screen.getByLabelText("Value")).toHaveValue("");
    expect(calls.find((c) => c.cmd === "set_secret")!.args).toEqual({ name: "google_client_id", value: "client.apps.googleusercontent.com" });
  });

  it("says when settings cannot be read (not an admin)", async () => {
    mockCommands({ settings: () => { throw { code: "unauthorized", message: "Only an admin can do this" }; } });
    renderWithQuery(<Settings />);
    expect(await screen.findByRole("alert")).toHaveTextContent("Only an admin can do this (unauthorized)");
  });
});
