import { describe, expect, it } from "vitest";
import { screen, waitFor, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { Users } from "./Users";
import { mockCommands, renderWithQuery } from "../test/render";
import type { AuditEntry, User } from "../types";

const me: User = { id: "u1", email: "demo@staffroom.test", name: "Demo Admin", role: "admin", disabled: false, locked: false };
const sam: User = { id: "u2", email: "sam@example.com", name: "Sam", role: "staff", disabled: false, locked: false };
const entry = (id: number): AuditEntry => ({ id, at: "2026-11-22T10:00:00Z", actor: "demo@staffroom.test", action: `docs.edit`, target: `doc${id}`, outcome: "success", detail: null });

describe("Users and audit", () => {
  it("says what happened in words, with links, and finds entries by person, action and day", async () => {
    const refund: AuditEntry = {
      id: 7, at: "2026-11-22T10:00:00Z", actor: "ada@example.com", action: "payments.order_refund", target: "o-42", outcome: "success",
      detail: JSON.stringify({ amount: 1250, currency: "USD", order: "#1042", providerOrderId: "2001" }),
    };
    const failed: AuditEntry = { id: 6, at: "2026-11-22T09:00:00Z", actor: "anonymous", action: "auth.sign_in", target: "bo@example.com", outcome: "failure", detail: null };
    const calls = mockCommands({
      list_users: () => [{ ...me, email: "ada@example.com", name: "Ada" }],
      audit_log: () => [refund, failed],
      audit_retention: () => ({ days: 400 }),
    });
    renderWithQuery(<Users me={me} />);
    const audit = await screen.findByRole("table", { name: "Audit log" });
    const money = new Intl.NumberFormat(undefined, { style: "currency", currency: "USD" }).format(12.5);
    expect(within(audit).getByText((_, el) => el?.tagName === "TD" && el.textContent === `Ada refunded ${money} of order #1042`)).toBeInTheDocument();
    expect(within(audit).getByRole("link", { name: "#1042" })).toHaveAttribute("href", "/orders/o-42");
    expect(within(audit).getByText("A sign-in as bo@example.com failed")).toBeInTheDocument();
    await userEvent.selectOptions(screen.getByLabelText("Who"), "ada@example.com");
    await userEvent.selectOptions(screen.getByLabelText("What"), "payments.order_refund");
    await userEvent.type(screen.getByLabelText("To"), "2026-11-22");
    await waitFor(() =>
      expect(calls.filter((c) => c.cmd === "audit_log").at(-1)!.args).toEqual({
        limit: 50, before: null, actor: "ada@example.com", action: "payments.order_refund", from: null, to: "2026-11-23",
      }),
    );
  });

  it("lists users, disables another (never oneself) and pages the audit log", async () => {
    let disabled = false;
    const calls = mockCommands({
      list_users: () => [me, { ...sam, disabled }],
      set_user_disabled: (args) => { disabled = args.disabled as boolean; return { ...sam, disabled }; },
      audit_log: (args) => (args.before ? [entry(1)] : Array.from({ length: 50 }, (_, i) => entry(100 - i))),
    });
    renderWithQuery(<Users me={me} />);
    const table = await screen.findByRole("table", { name: "Users" });
    expect(within(table).queryByRole("button", { name: /demo@staffroom.test/ })).not.toBeInTheDocument();
    await userEvent.click(within(table).getByRole("button", { name: "Disable sam@example.com" }));
    expect(await within(table).findByRole("button", { name: "Enable sam@example.com" })).toBeInTheDocument();
    expect(calls.find((c) => c.cmd === "set_user_disabled")!.args).toEqual({ email: "sam@example.com", disabled: true });
    const audit = await screen.findByRole("table", { name: "Audit log" });
    expect(within(audit).getByText(/a document \(doc100\)/)).toBeInTheDocument();
    await userEvent.click(screen.getByRole("button", { name: "Older" }));
    expect(await within(screen.getByRole("table", { name: "Audit log" })).findByText(/\(doc1\)/)).toBeInTheDocument();
    expect(calls.filter((c) => c.cmd === "audit_log").at(-1)!.args).toEqual({ limit: 50, before: 51, actor: null, action: null, from: null, to: null });
  });

  it("adds a user and names a refused password", async () => {
    let attempts = 0;
    const calls = mockCommands({
      list_users: () => [me],
      audit_log: () => [],
      add_user: (args) => {
        attempts += 1;
        if (attempts === 1) throw { code: "invalid_request", message: "password: is too common", details: { fields: [{ field: "password", message: "is too common" }] } };
        return { ...sam, email: args.email as string };
      },
    });
    renderWithQuery(<Users me={me} />);
    expect(await screen.findByText("Nothing recorded yet.")).toBeInTheDocument();
    await userEvent.type(screen.getByLabelText("Name"), "Sam");
    await userEvent.type(screen.getByLabelText("Email"), "sam@example.com");
    await userEvent.type(screen.getByLabelText(/First password/), "password password");
    await userEvent.click(screen.getByRole("button", { name: "Add user" }));
    expect(await screen.findByText("Password is too common")).toBeInTheDocument();
    await userEvent.type(screen.getByLabelText(/First password/), " plus a long unusual tail");
    await userEvent.click(screen.getByRole("button", { name: "Add user" }));
    expect(await screen.findByText("Added sam@example.com.")).toBeInTheDocument();
    expect(calls.filter((c) => c.cmd === "add_user").at(-1)!.args).toEqual({
      email: "sam@example.com", name: "Sam", role: "staff", password: "password password plus a long unusual tail",
    });
  });

  it("says when users cannot be listed", async () => {
    mockCommands({ list_users: () => { throw { code: "forbidden", message: "Only an admin can do this" }; }, audit_log: () => [] });
    renderWithQuery(<Users me={me} />);
    expect(await screen.findByRole("alert")).toHaveTextContent("Only an admin can do this (forbidden)");
  });

  it("unlocks an account locked by wrong guesses, and sets how long the audit log keeps entries", async () => {
    let locked = true;
    const calls = mockCommands({
      list_users: () => [me, { ...sam, locked }],
      unlock_user: () => { locked = false; return { ...sam, locked }; },
      audit_log: () => [],
      audit_retention: () => ({ days: 400 }),
      set_audit_retention: (args) => ({ days: args.days }),
    });
    renderWithQuery(<Users me={me} />);
    const table = await screen.findByRole("table", { name: "Users" });
    expect(within(table).getByText("locked")).toBeInTheDocument();
    await userEvent.click(within(table).getByRole("button", { name: "Unlock sam@example.com" }));
    await screen.findByRole("button", { name: "Disable sam@example.com" });
    expect(within(table).queryByText("locked")).not.toBeInTheDocument();
    expect(calls.find((c) => c.cmd === "unlock_user")!.args).toEqual({ email: "sam@example.com" });
    await userEvent.selectOptions(await screen.findByLabelText("Keep entries for"), "730");
    expect(calls.find((c) => c.cmd === "set_audit_retention")!.args).toEqual({ days: 730 });
  });
});
