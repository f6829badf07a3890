import { describe, expect, it, vi } from "vitest";
import { screen, waitFor } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { Palette } from "./Palette";
import { mockCommands, renderWithQuery } from "../test/render";

const meta = (n: number) => ({ currentPage: 1, totalPages: 1, totalItems: n });

describe("Palette", () => {
  it("finds a customer and an order by e-mail as you type, and opens one with the keyboard", async () => {
    const calls = mockCommands({
      list_customers: () => ({ customers: [{ id: "1001", name: "Ada Lovelace", email: "ada@example.com", status: "subscribed", country: "GB", createdAt: "", updatedAt: "", totalRevenue: 0, mrr: 0, currency: "USD", portalUrl: null }], meta: meta(1) }),
      list_orders: () => ({ orders: [{ id: "o9", orderId: "#1042", name: "Ada Lovelace", email: "ada@example.com", total: 4900, currency: "USD" }], meta: meta(1) }),
      list_subscriptions: () => ({ subscriptions: [], meta: meta(0) }),
      list_products: () => ({ products: [], meta: meta(0) }),
      list_documents: () => ({ documents: [{ id: "d1", name: "Ada's onboarding notes" }] }),
    });
    const onClose = vi.fn();
    renderWithQuery(<Palette areas={[{ id: "orders", label: "Orders" }]} onSyncNow={vi.fn()} onSignOut={vi.fn()} onClose={onClose} />);
    const box = screen.getByRole("combobox");
    expect(box).toHaveFocus();
    await userEvent.type(box, "ada@");
    expect(await screen.findByRole("option", { name: /Ada Lovelace.*Customer · ada@example.com/ })).toHaveAttribute("aria-selected", "true");
    expect(screen.getByRole("option", { name: /#1042 · Ada Lovelace/ })).toBeInTheDocument();
    expect(calls.filter((c) => c.cmd === "list_customers").at(-1)?.args).toEqual({ search: "ada@", limit: 5 });
    await userEvent.keyboard("{ArrowDown}");
    expect(screen.getByRole("option", { name: /#1042/ })).toHaveAttribute("aria-selected", "true");
    await userEvent.keyboard("{Enter}");
    expect(window.location.pathname).toBe("/orders/o9");
    expect(onClose).toHaveBeenCalled();
  });

  it("asks the core once typing pauses, and never opens what an earlier text found", async () => {
    const calls = mockCommands({
      list_customers: (args) => ({
        customers: args.search === "ada"
          ? [{ id: "1001", name: "Ada Lovelace", email: "ada@example.com", status: "subscribed", country: "GB", createdAt: "", updatedAt: "", totalRevenue: 0, mrr: 0, currency: "USD", portalUrl: null }]
          : [],
        meta: meta(args.search === "ada" ? 1 : 0),
      }),
      list_orders: () => ({ orders: [], meta: meta(0) }),
      list_subscriptions: () => ({ subscriptions: [], meta: meta(0) }),
      list_products: () => ({ products: [], meta: meta(0) }),
      list_documents: () => ({ documents: [] }),
    });
    const onClose = vi.fn();
    renderWithQuery(<Palette areas={[{ id: "orders", label: "Orders" }]} onSyncNow={vi.fn()} onSignOut={vi.fn()} onClose={onClose} />);
    const box = screen.getByRole("combobox");
    await userEvent.type(box, "ada");
    expect(await screen.findByRole("option", { name: /Ada Lovelace/ })).toBeInTheDocument();
    // Only the text typing paused on was sent.
    expect(calls.filter((c) => c.cmd === "list_customers").map((c) => c.args.search)).toEqual(["ada"]);
    // More typed and Enter at once: Ada was found for "ada", not for "ada zz"; nothing opens.
    await userEvent.type(box, " zz{Enter}");
    expect(screen.queryByRole("option", { name: /Ada Lovelace/ })).toBeNull();
    expect(window.location.pathname).not.toBe("/customers/1001");
    expect(onClose).not.toHaveBeenCalled();
  });

  it("runs actions by name, and Escape closes it", async () => {
    mockCommands({});
    const onSyncNow = vi.fn();
    const onClose = vi.fn();
    renderWithQuery(<Palette areas={[{ id: "customers", label: "Customers" }]} onSyncNow={onSyncNow} onSignOut={vi.fn()} onClose={onClose} />);
    await userEvent.type(screen.getByRole("combobox"), "sy");
    await waitFor(() => expect(screen.getAllByRole("option")[0]).toHaveTextContent("Sync now"));
    await userEvent.keyboard("{Enter}");
    expect(onSyncNow).toHaveBeenCalledOnce();
    await userEvent.keyboard("{Escape}");
    expect(onClose).toHaveBeenCalled();
  });
});
