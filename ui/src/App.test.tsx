import { describe, expect, it } from "vitest";
import { screen, waitFor } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { App } from "./App";
import { mockCommands, realInfo, renderWithQuery, sandboxInfo } from "./test/render";

const user = { id: "u1", email: "demo@staffroom.test", name: "Demo Admin", role: "admin" as const };

describe("App", () => {
  it("shows a loading state, then the login screen", async () => {
    mockCommands({ app_info: () => sandboxInfo, current_user: () => null });
    renderWithQuery(<App />);
    expect(screen.getByText("Starting Staffroom…")).toBeInTheDocument();
    expect(await screen.findByRole("form", { name: "Sign in" })).toBeInTheDocument();
  });

  it("asks for the first admin when there is no account", async () => {
    mockCommands({ app_info: () => ({ ...sandboxInfo, needsFirstAdmin: true }), current_user: () => null });
    renderWithQuery(<App />);
    expect(await screen.findByRole("form", { name: "Create the first admin" })).toBeInTheDocument();
  });

  it("lets a newcomer join a team server instead of making a local admin", async () => {
    const calls = mockCommands({
      app_info: () => ({ ...realInfo, needsFirstAdmin: true }),
      current_user: () => null,
      login: () => ({ token: "t", user, expiresAt: "", sessionExpiresAt: "" }),
    });
    renderWithQuery(<App />);
    await userEvent.click(await screen.findByRole("button", { name: "Sign in to a team server" }));
    expect(screen.getByRole("radio", { name: "Team server" })).toBeChecked();
    await userEvent.type(screen.getByLabelText("Team server address"), "https://staff.example.com");
    await userEvent.type(screen.getByLabelText("Email"), "kim@example.com");
    await userEvent.type(screen.getByLabelText("Password"), "a long passphrase here");
    await userEvent.click(screen.getByRole("button", { name: "Sign in" }));
    expect(await screen.findByRole("heading", { name: "Welcome, Demo Admin" })).toBeInTheDocument();
    expect(calls.map((c) => c.cmd)).not.toContain("create_first_admin");
  });

  it("says when the team server cannot be reached, and recovers on Try again", async () => {
    let reachable = false;
    const calls = mockCommands({
      app_info: () => ({ ...realInfo, teamServer: "https://staff.example.com", useTeamServer: true, signedInTo: "https://staff.example.com" }),
      current_user: () => user,
      list_orders: () => {
        if (!reachable) throw { code: "unavailable", message: "The team server https://staff.example.com cannot be reached", details: { teamServer: "https://staff.example.com" } };
        return { orders: [], meta: { page: 1, limit: 10, total: 0, totalPages: 0 } };
      },
      reconnect: () => {
        reachable = true;
        return null;
      },
    });
    renderWithQuery(<App />);
    await userEvent.click(await screen.findByRole("button", { name: "Orders" }));
    const banner = await screen.findByRole("alert", { name: "Team server out of reach" });
    expect(banner).toHaveTextContent("The team server https://staff.example.com cannot be reached");
    expect(screen.getByText("Team server · staff.example.com")).toBeInTheDocument();
    await userEvent.click(screen.getByRole("button", { name: "Try again" }));
    await waitFor(() => expect(screen.queryByRole("alert", { name: "Team server out of reach" })).toBeNull());
    await waitFor(() => expect(calls.filter((c) => c.cmd === "list_orders").length).toBeGreaterThan(1));
  });

  it("signs in to the shell and signs out again", async () => {
    const calls = mockCommands({
      app_info: () => sandboxInfo,
      current_user: () => null,
      login: () => ({ token: "t", user, expiresAt: "", sessionExpiresAt: "" }),
      logout: () => null,
    });
    renderWithQuery(<App />);
    await userEvent.click(await screen.findByRole("button", { name: "Use demo account" }));
    await userEvent.click(screen.getByRole("button", { name: "Sign in" }));
    expect(await screen.findByRole("heading", { name: "Welcome, Demo Admin" })).toBeInTheDocument();
    expect(screen.getByText("Sandbox")).toBeInTheDocument();
    await userEvent.click(screen.getByRole("button", { name: "Sign out" }));
    expect(await screen.findByRole("form", { name: "Sign in" })).toBeInTheDocument();
    expect(calls.map((c) => c.cmd)).toContain("logout");
  });

  it("shows a startup failure as a sentence", async () => {
    mockCommands({
      app_info: () => {
        throw { code: "internal", message: "Something went wrong inside Staffroom; the details are in its log" };
      },
      current_user: () => null,
    });
    renderWithQuery(<App />);
    expect(await screen.findByRole("alert")).toHaveTextContent("the details are in its log (internal)");
  });
});
