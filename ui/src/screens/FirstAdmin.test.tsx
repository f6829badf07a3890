import { describe, expect, it, vi } from "vitest";
import { screen, waitFor } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { FirstAdmin } from "./FirstAdmin";
import { mockCommands, renderWithQuery } from "../test/render";

const admin = { id: "u1", email: "ada@example.com", name: "Ada", role: "admin" as const };

describe("FirstAdmin", () => {
  it("creates the admin, signs in and hands over the user", async () => {
    const calls = mockCommands({
      create_first_admin: () => admin,
      login: () => ({ token: "t", user: admin, expiresAt: "", sessionExpiresAt: "" }),
    });
    const onCreated = vi.fn();
    renderWithQuery(<FirstAdmin onCreated={onCreated} onJoinTeam={() => undefined} />);
    await userEvent.type(screen.getByLabelText("Name"), "Ada");
    await userEvent.type(screen.getByLabelText("Email"), "ada@example.com");
    await userEvent.type(screen.getByLabelText("Password"), "analytical-engine-notes{Enter}");
    await waitFor(() => expect(onCreated).toHaveBeenCalledWith(admin));
    expect(calls.map((c) => c.cmd)).toEqual(["create_first_admin", "login"]);
    expect(calls[0].args).toEqual({ email: "ada@example.com", name: "Ada", password: "analytical-engine-notes" });
  });

  it("shows the password policy's reason next to the field", async () => {
    mockCommands({
      create_first_admin: () => {
        throw {
          code: "invalid_request",
          message: "password: must be at least 15 characters long",
          details: { fields: [{ field: "password", message: "must be at least 15 characters long" }] },
        };
      },
    });
    renderWithQuery(<FirstAdmin onCreated={() => {}} onJoinTeam={() => {}} />);
    await userEvent.click(screen.getByRole("button", { name: "Create admin and sign in" }));
    expect(await screen.findByText("Password must be at least 15 characters long")).toBeInTheDocument();
  });
});
