import { describe, expect, it } from "vitest";
import { screen, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { LicenseKeys } from "./LicenseKeys";
import { mockCommands, renderWithQuery } from "../test/render";
import type { LicenseKey, User } from "../types";

const admin: User = { id: "u1", email: "ada@example.com", name: "Ada", role: "admin", disabled: false, locked: false };
const staff: User = { ...admin, id: "u2", role: "staff" };

const key = (id: string, status: string, extra: Partial<LicenseKey> = {}): LicenseKey => ({
  id, keyShort: `XXXX-${id}8f9c98a48a`, status, disabled: status === "disabled", activationLimit: 3, activationUsage: status === "active" ? 2 : 0,
  expiresAt: null, orderId: "o1", providerOrderId: "2001", customerId: "1001", customerName: "Zoë O'Brien",
  customerEmail: "zoe@example.com", productId: "13", productName: "Golden Workshop", createdAt: "2026-11-01T10:00:00Z",
  updatedAt: "2026-11-01T10:00:00Z", ...extra,
});
const page = (licenseKeys: LicenseKey[]) => ({ licenseKeys, meta: { currentPage: 1, totalPages: 1, totalItems: licenseKeys.length } });

describe("Licence keys", () => {
  it("finds keys by e-mail or key, shows a whole key and its machines on request, and disables one after a confirmation", async () => {
    const calls = mockCommands({
      list_license_keys: (request) => (request.search ? page([key("12", "active")]) : page([key("12", "active"), key("11", "disabled", { activationLimit: null, expiresAt: "2027-02-01T00:00:00Z" })])),
      get_license_key: () => ({
        licenseKey: { ...key("12", "active"), key: "80E15DB5-C796-436B-850C-128F9C98A48A", instances: [
          { id: "1", name: "Zoë · MacBook Pro", identifier: "f70a79fa-6054-433e-9c1b-6075344292e4", createdAt: "2026-11-02T10:00:00Z" },
          { id: "2", name: "Zoë · ThinkPad X1", identifier: "0b3e2c5d-1111-4222-8333-444455556666", createdAt: "2026-11-03T10:00:00Z" },
        ] },
      }),
      update_license_key: (request) => ({ licenseKey: key("12", request.disabled ? "disabled" : "active") }),
    });
    renderWithQuery(<LicenseKeys user={admin} />);
    const table = await screen.findByRole("table", { name: "Licence keys" });
    const rows = within(table).getAllByRole("row").slice(1);
    expect(within(rows[0]).getByText("2 of 3")).toBeInTheDocument();
    expect(within(rows[1]).getByText("0 (no limit)")).toBeInTheDocument();
    expect(within(rows[1]).getByText("Disabled")).toBeInTheDocument();
    expect(within(rows[1]).getByRole("button", { name: "Enable XXXX-118f9c98a48a" })).toBeInTheDocument();

    await userEvent.type(screen.getByRole("searchbox", { name: "Search licence keys" }), "zoe@");
    await screen.findByText("Clear");
    expect(calls.some((c) => c.cmd === "list_license_keys" && c.args.search === "zoe@")).toBe(true);

    const first = (await screen.findAllByRole("row")).find((r) => r.getAttribute("data-id") === "12")!;
    expect(calls.some((c) => c.cmd === "get_license_key")).toBe(false);
    await userEvent.click(within(first).getByRole("button", { name: "Key and machines of XXXX-128f9c98a48a" }));
    expect(await screen.findByText("80E15DB5-C796-436B-850C-128F9C98A48A")).toBeInTheDocument();
    expect(within(screen.getByRole("list", { name: "Machines" })).getAllByRole("listitem")).toHaveLength(2);

    await userEvent.click(within(first).getByRole("button", { name: "Disable XXXX-128f9c98a48a…" }));
    expect(calls.some((c) => c.cmd === "update_license_key")).toBe(false);
    await userEvent.click(within(screen.getByRole("group", { name: "Disable this key?" })).getByRole("button", { name: "Disable XXXX-128f9c98a48a" }));
    expect(calls.filter((c) => c.cmd === "update_license_key").map((c) => c.args)).toEqual([{ id: "12", disabled: true }]);
  });

  it("changes a key's limit and expiry, and refuses a limit that is not a number before sending", async () => {
    const calls = mockCommands({
      list_license_keys: () => page([key("12", "active", { expiresAt: "2027-02-01T00:00:00Z" })]),
      update_license_key: () => ({ licenseKey: key("12", "active", { activationLimit: 5 }) }),
    });
    renderWithQuery(<LicenseKeys user={admin} />);
    await userEvent.click(await screen.findByRole("button", { name: /Change the limit or expiry/ }));
    const form = screen.getByRole("form", { name: "Limit or expiry" });
    expect(within(form).getByLabelText("Expires")).toHaveValue("2027-02-01");
    const machines = within(form).getByLabelText("Machines");
    await userEvent.clear(machines);
    await userEvent.type(machines, "none");
    expect(within(form).getByText(/must be a whole number of machines/)).toBeInTheDocument();
    expect(within(form).getByRole("button", { name: "Save" })).toBeDisabled();
    await userEvent.clear(machines);
    await userEvent.type(machines, "5");
    await userEvent.click(within(form).getByLabelText("Never"));
    await userEvent.click(within(form).getByRole("button", { name: "Save" }));
    expect(calls.filter((c) => c.cmd === "update_license_key").map((c) => c.args)).toEqual([{ id: "12", activationLimit: 5, neverExpires: true }]);
  });

  it("sends only what was changed: a new limit leaves the expiry, and its time of day, alone", async () => {
    const calls = mockCommands({
      list_license_keys: () => page([key("12", "active", { expiresAt: "2027-02-01T13:22:05Z" })]),
      update_license_key: () => ({ licenseKey: key("12", "active", { activationLimit: 4 }) }),
    });
    renderWithQuery(<LicenseKeys user={admin} />);
    await userEvent.click(await screen.findByRole("button", { name: /Change the limit or expiry/ }));
    const form = screen.getByRole("form", { name: "Limit or expiry" });
    expect(within(form).getByRole("button", { name: "Save" })).toBeDisabled();
    const machines = within(form).getByLabelText("Machines");
    await userEvent.clear(machines);
    await userEvent.type(machines, "4");
    await userEvent.click(within(form).getByRole("button", { name: "Save" }));
    expect(calls.filter((c) => c.cmd === "update_license_key").map((c) => c.args)).toEqual([{ id: "12", activationLimit: 4 }]);
  });

  it("lets staff see keys and their machines, but not change them", async () => {
    mockCommands({ list_license_keys: () => page([key("12", "active")]) });
    renderWithQuery(<LicenseKeys user={staff} />);
    await screen.findByRole("table", { name: "Licence keys" });
    expect(screen.getByRole("button", { name: /Key and machines/ })).toBeInTheDocument();
    expect(screen.queryByRole("button", { name: /Disable|Enable|Change/ })).not.toBeInTheDocument();
  });
});
