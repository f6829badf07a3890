import { describe, expect, it } from "vitest";
import { screen, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { Discounts } from "./Discounts";
import { mockCommands, renderWithQuery } from "../test/render";
import type { Discount, User } from "../types";

const admin: User = { id: "u1", email: "ada@example.com", name: "Ada", role: "admin", disabled: false, locked: false };
const staff: User = { ...admin, id: "u2", role: "staff" };

const discount = (id: string, code: string, extra: Partial<Discount> = {}): Discount => ({
  id, name: `Discount ${code}`, code, amount: 10, amountType: "percent", duration: "once", durationInMonths: 1,
  startsAt: null, expiresAt: null, maxRedemptions: null, variantIds: [], status: "published",
  createdAt: "2026-05-01T10:00:00Z", updatedAt: "2026-05-01T10:00:00Z", redemptionCount: 0, redemptions: [], ...extra,
});
const page = (discounts: Discount[]) => ({ discounts, currency: "USD", meta: { currentPage: 1, totalPages: 1, totalItems: discounts.length } });

describe("Discounts", () => {
  it("lists codes with what they take off and how often they were used, and shows who used one", async () => {
    mockCommands({
      list_discounts: () => page([
        discount("1", "LAUNCH10", { redemptionCount: 23, redemptions: [
          { id: "9", discountId: "1", providerOrderId: "2001", orderId: "o1", orderNumber: 1042, customerEmail: "zoe@example.com", amount: 330, currency: "USD", createdAt: "2026-11-20T10:00:00Z" },
        ] }),
        discount("5", "WELCOME5", { amount: 500, amountType: "fixed" }),
        discount("8", "TEAM50", { amount: 50, maxRedemptions: 10, variantIds: ["21", "22"], startsAt: "2099-01-01T00:00:00Z" }),
        discount("6", "EARLYBIRD30", { expiresAt: "2026-01-01T00:00:00Z" }),
      ]),
    });
    renderWithQuery(<Discounts user={staff} />);
    const table = await screen.findByRole("table", { name: "Discounts" });
    const row = (code: string) => within(table).getAllByRole("row").find((r) => within(r).queryByText(code))!;
    expect(within(row("WELCOME5")).getByText("$5.00", { exact: false })).toBeInTheDocument();
    expect(within(row("TEAM50")).getByText("0 of 10")).toBeInTheDocument();
    expect(within(row("TEAM50")).getByText("2 variants")).toBeInTheDocument();
    expect(within(row("TEAM50")).getByText(/^From /)).toBeInTheDocument();
    expect(within(row("EARLYBIRD30")).getByText(/^Expired /)).toBeInTheDocument();
    expect(screen.queryByRole("button", { name: "New discount" })).toBeNull();

    await userEvent.click(within(row("LAUNCH10")).getByRole("button", { name: "LAUNCH10" }));
    const used = await screen.findByRole("table", { name: "Orders that used LAUNCH10" });
    expect(within(used).getByRole("link", { name: "#1042" })).toHaveAttribute("href", "/orders/o1");
    expect(within(used).getByText("zoe@example.com")).toBeInTheDocument();
    expect(screen.getByText("The latest 1 of 23.")).toBeInTheDocument();
    expect(screen.queryByRole("button", { name: "Delete discount…" })).toBeNull();
  });

  it("makes a discount, showing the provider's refusal on its field, and deletes one after a confirmation", async () => {
    let attempts = 0;
    const calls = mockCommands({
      list_discounts: () => page([discount("1", "LAUNCH10")]),
      create_discount: () => {
        attempts += 1;
        if (attempts === 1) {
          throw { code: "invalid_request", message: "code: LAUNCH10 is already the code of “Launch”; choose another",
            details: { fields: [{ field: "code", message: "LAUNCH10 is already the code of “Launch”; choose another" }] } };
        }
        return { discount: discount("2", "SUMMER30") };
      },
      delete_discount: () => null,
    });
    renderWithQuery(<Discounts user={admin} />);
    await userEvent.click(await screen.findByRole("button", { name: "New discount" }));
    const form = screen.getByRole("form", { name: "New discount" });
    await userEvent.type(within(form).getByLabelText("Name (for staff)"), "Summer");
    await userEvent.type(within(form).getByLabelText("Code (customers type it)"), "launch 10");
    expect(within(form).getByLabelText("Code (customers type it)")).toHaveValue("LAUNCH10");
    // A percentage that is not a whole number is refused before anything is sent.
    await userEvent.type(within(form).getByLabelText("Percentage"), "12,5");
    await userEvent.click(within(form).getByRole("button", { name: "Create discount" }));
    expect(within(form).getByText("Amount must be a whole percentage, e.g. 20")).toBeInTheDocument();
    expect(calls.some((c) => c.cmd === "create_discount")).toBe(false);

    await userEvent.clear(within(form).getByLabelText("Percentage"));
    await userEvent.type(within(form).getByLabelText("Percentage"), "30");
    await userEvent.selectOptions(within(form).getByLabelText("On subscriptions"), "repeating");
    await userEvent.click(within(form).getByRole("button", { name: "Create discount" }));
    expect(await within(form).findByText(/Code LAUNCH10 is already the code of/)).toBeInTheDocument();

    const code = within(form).getByLabelText("Code (customers type it)");
    await userEvent.clear(code);
    await userEvent.type(code, "SUMMER30");
    await userEvent.click(within(form).getByRole("button", { name: "Create discount" }));
    await screen.findByRole("button", { name: "New discount" });
    expect(calls.filter((c) => c.cmd === "create_discount").at(-1)!.args).toEqual({
      name: "Summer", code: "SUMMER30", amount: 30, amountType: "percent", duration: "repeating", durationInMonths: 3,
      startsAt: null, expiresAt: null, maxRedemptions: null, variantIds: null,
    });

    await userEvent.click(screen.getByRole("button", { name: "LAUNCH10" }));
    await userEvent.click(screen.getByRole("button", { name: "Delete discount…" }));
    expect(calls.some((c) => c.cmd === "delete_discount")).toBe(false);
    await userEvent.click(screen.getByRole("button", { name: "Delete" }));
    expect(calls.filter((c) => c.cmd === "delete_discount").map((c) => c.args)).toEqual([{ id: "1" }]);
  });
});
