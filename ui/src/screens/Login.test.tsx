import { describe, expect, it, vi } from "vitest";
import { screen, waitFor } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { Login } from "./Login";
import { mockCommands, realInfo, renderWithQuery, sandboxInfo } from "../test/render";

const user = { id: "u1", email: "demo@staffroom.test", name: "Demo Admin", role: "admin" as const };

describe("Login", () => {
  it("shows the demo account in sandbox mode and fills it in", async () => {
    const calls = mockCommands({ login: () => ({ token: "t", user, expiresAt: "", sessionExpiresAt: "" }) });
    const onSignedIn = vi.fn();
    renderWithQuery(<Login info={sandboxInfo} onSignedIn={onSignedIn} />);
    expect(screen.getByRole("note", { name: "Sandbox demo account" })).toHaveTextContent("demo@staffroom.test");
    await userEvent.click(screen.getByRole("button", { name: "Use demo account" }));
    expect(screen.getByLabelText("Email")).toHaveValue("demo@staffroom.test");
    await userEvent.click(screen.getByRole("button", { name: "Sign in" }));
    await waitFor(() => expect(onSignedIn).toHaveBeenCalledWith(user));
    expect(calls).toEqual([{ cmd: "login", args: { email: "demo@staffroom.test", password: "sandbox-demo-passphrase", remember: false, server: null } }]);
  });

  it("sends what was just filled in when Sign in comes right after, within the same frame", async () => {
    const calls = mockCommands({ login: () => ({ token: "t", user, expiresAt: "", sessionExpiresAt: "" }) });
    renderWithQuery(<Login info={sandboxInfo} onSignedIn={vi.fn()} />);
    // Two clicks one task apart, as a script (or a quick hand) makes them: no frame in between.
    screen.getByRole("button", { name: "Use demo account" }).click();
    await new Promise((resolve) => setTimeout(resolve, 0));
    screen.getByRole("button", { name: "Sign in" }).click();
    await waitFor(() => expect(calls).toHaveLength(1));
    expect(calls[0].args).toMatchObject({ email: "demo@staffroom.test", password: "sandbox-demo-passphrase" });
  });

  it("asks the shell to remember the sign-in only when told to", async () => {
    const calls = mockCommands({ login: () => ({ token: "t", user, expiresAt: "", sessionExpiresAt: "" }) });
    const onSignedIn = vi.fn();
    renderWithQuery(<Login info={sandboxInfo} onSignedIn={onSignedIn} />);
    await userEvent.click(screen.getByRole("button", { name: "Use demo account" }));
    await userEvent.click(screen.getByRole("checkbox", { name: "Keep me signed in on this computer" }));
    await userEvent.click(screen.getByRole("button", { name: "Sign in" }));
    await waitFor(() => expect(onSignedIn).toHaveBeenCalled());
    expect(calls[0].args).toMatchObject({ remember: true });
  });

  it("signs in to a team server by its address, without this computer's demo account", async () => {
    const calls = mockCommands({ login: () => ({ token: "t", user, expiresAt: "", sessionExpiresAt: "" }) });
    const onSignedIn = vi.fn();
    renderWithQuery(<Login info={sandboxInfo} onSignedIn={onSignedIn} />);
    expect(screen.getByRole("radio", { name: "This computer" })).toBeChecked();
    await userEvent.click(screen.getByRole("radio", { name: "Team server" }));
    expect(screen.queryByRole("note", { name: "Sandbox demo account" })).toBeNull();
    await userEvent.type(screen.getByLabelText("Team server address"), "https://staff.example.com");
    await userEvent.type(screen.getByLabelText("Email"), "kim@example.com");
    await userEvent.type(screen.getByLabelText("Password"), "a long passphrase here");
    await userEvent.click(screen.getByRole("button", { name: "Sign in" }));
    await waitFor(() => expect(onSignedIn).toHaveBeenCalledWith(user));
    expect(calls[0].args).toMatchObject({ server: "https://staff.example.com", email: "kim@example.com" });
  });

  it("offers the remembered team server, and shows a refused address on its field", async () => {
    mockCommands({
      login: () => {
        throw {
          code: "invalid_request",
          message: "The request is invalid",
          details: { fields: [{ field: "server", message: "must use HTTPS (plain http only for a server on this computer)" }] },
        };
      },
    });
    renderWithQuery(<Login info={{ ...realInfo, teamServer: "http://staff.example.com", useTeamServer: true }} onSignedIn={() => {}} />);
    expect(screen.getByRole("radio", { name: "Team server" })).toBeChecked();
    expect(screen.getByLabelText("Team server address")).toHaveValue("http://staff.example.com");
    await userEvent.click(screen.getByRole("button", { name: "Sign in" }));
    expect(await screen.findByText("The address must use HTTPS (plain http only for a server on this computer)")).toBeInTheDocument();
    expect(screen.getByLabelText("Team server address")).toHaveAttribute("aria-invalid", "true");
  });

  it("never shows demo credentials outside the sandbox", () => {
    mockCommands({});
    renderWithQuery(<Login info={realInfo} onSignedIn={() => {}} />);
    expect(screen.queryByRole("note")).toBeNull();
    expect(document.body).not.toHaveTextContent("sandbox-demo-passphrase");
  });

  it("submits with Enter and shows wrong credentials as a sentence with its code", async () => {
    mockCommands({
      login: () => {
        throw { code: "unauthorized", message: "The email or password is wrong" };
      },
    });
    renderWithQuery(<Login info={realInfo} onSignedIn={() => {}} />);
    await userEvent.type(screen.getByLabelText("Email"), "a@example.com");
    await userEvent.type(screen.getByLabelText("Password"), "nope{Enter}");
    expect(await screen.findByRole("alert")).toHaveTextContent("The email or password is wrong (unauthorized)");
  });

  it("puts validation errors next to their fields", async () => {
    mockCommands({
      login: () => {
        throw {
          code: "invalid_request",
          message: "2 fields are invalid",
          details: { fields: [{ field: "email", message: "is not a valid email address" }, { field: "password", message: "is required" }] },
        };
      },
    });
    renderWithQuery(<Login info={realInfo} onSignedIn={() => {}} />);
    await userEvent.click(screen.getByRole("button", { name: "Sign in" }));
    expect(await screen.findByText("Email is not a valid email address")).toBeInTheDocument();
    expect(screen.getByText("Password is required")).toBeInTheDocument();
    expect(screen.getByLabelText("Email")).toHaveAttribute("aria-invalid", "true");
  });

  it("explains throttling", async () => {
    mockCommands({
      login: () => {
        throw { code: "rate_limited", message: "Too many failed sign-ins; wait before trying again" };
      },
    });
    renderWithQuery(<Login info={realInfo} onSignedIn={() => {}} />);
    await userEvent.click(screen.getByRole("button", { name: "Sign in" }));
    expect(await screen.findByRole("alert")).toHaveTextContent("Too many failed sign-ins; wait before trying again (rate_limited)");
  });

  it("shows progress while signing in", async () => {
    let release: (value: unknown) => void = () => {};
    mockCommands({ login: () => new Promise((resolve) => (release = resolve)) });
    renderWithQuery(<Login info={realInfo} onSignedIn={() => {}} />);
    await userEvent.click(screen.getByRole("button", { name: "Sign in" }));
    expect(await screen.findByRole("button", { name: "Signing in…" })).toBeDisabled();
    release({ token: "t", user, expiresAt: "", sessionExpiresAt: "" });
  });
});
