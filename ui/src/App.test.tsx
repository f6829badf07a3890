import { describe, expect, it } from "vitest";
import { screen } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { App } from "./App";
import { mockCommands, renderWithQuery, sandboxInfo } from "./test/render";

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
