import { describe, expect, it } from "vitest";
import { screen, waitFor, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { emit } from "@tauri-apps/api/event";
import { Orders } from "./Orders";
import { mockCommands, renderWithQuery } from "../test/render";
import type { Order, User } from "../types";

const admin: User = { id: "u1", email: "ada@example.com", name: "Ada", role: "admin", disabled: false, locked: false };
const staff: User = { ...admin, role: "staff" };

const order = (status: Order["status"]): Order => ({
  id: "o1", orderId: "SR-000001", status, total: 1999, currency: "USD", checkoutUrl: "http://127.0.0.1/checkout/custom/1",
  createdAt: "2026-11-22T10:00:00Z", email: "ada@example.com", name: "Ada", productId: "p1", variantId: "v1",
  customerId: null, providerOrderId: null, paidAt: null, refundedAt: null, refundedAmount: 0, updatedAt: "2026-11-22T10:00:00Z", review: null,
  source: "staffroom", providerStatus: null, orderNumber: null, items: [{ productId: "p1", variantId: "v1", productName: "Planner", variantName: "Default", quantity: 1, price: 1999 }],
  subtotal: 1999, discountTotal: 0, tax: 0, receiptUrl: null,
});
const page = (orders: Order[]) => ({ orders, meta: { currentPage: 1, totalPages: 1, totalItems: orders.length } });

describe("Orders", () => {
  it("turns an order paid when a webhook is applied, without a reload, and shows its history", async () => {
    let status: Order["status"] = "pending";
    mockCommands({
      list_orders: () => page([order(status)]),
      get_order: () => ({ order: { ...order(status), events: status === "paid" ? [{ eventName: "order_created", receivedAt: "2026-11-22T10:01:00Z", outcome: "applied" }] : [] } }),
    });
    renderWithQuery(<Orders user={admin} />);
    const table = await screen.findByRole("table", { name: "Orders" });
    expect(within(table).getByText("pending")).toBeInTheDocument();
    await userEvent.click(screen.getByRole("button", { name: "SR-000001" }));
    expect(await screen.findByText("No webhook has arrived for this order yet.")).toBeInTheDocument();
    status = "paid";
    await emit("webhook", { kind: "applied" });
    expect(await within(table).findByText("paid")).toBeInTheDocument();
    const history = await screen.findByRole("list", { name: "Event history" });
    expect(history).toHaveTextContent("order_created");
  });

  it("shows loading, empty and error states", async () => {
    mockCommands({ list_orders: () => page([]) });
    const first = renderWithQuery(<Orders user={admin} />);
    expect(screen.getByText("Loading orders…")).toBeInTheDocument();
    expect(await screen.findByText("No orders yet. Create one from a product.")).toBeInTheDocument();
    first.unmount();
    mockCommands({ list_orders: () => { throw { code: "internal", message: "The database is locked" }; } });
    renderWithQuery(<Orders user={admin} />);
    expect(await screen.findByRole("alert")).toHaveTextContent("The database is locked (internal)");
  });

  it("marks an order whose payment did not match its checkout for review, and says why", async () => {
    const held = { ...order("pending"), review: "subtotal is 100, the checkout's is 1999" };
    mockCommands({ list_orders: () => page([held]), get_order: () => ({ order: { ...held, events: [] } }) });
    renderWithQuery(<Orders user={admin} />);
    const table = await screen.findByRole("table", { name: "Orders" });
    expect(within(table).getByText("needs review")).toBeInTheDocument();
    await userEvent.click(screen.getByRole("button", { name: "SR-000001" }));
    expect(await screen.findByText(/subtotal is 100, the checkout's is 1999/)).toBeInTheDocument();
  });

  it("lets an admin refund a paid order in part after confirming, and shows what was refunded", async () => {
    let refunded = 0;
    const paid = () => ({ ...order("paid"), paidAt: "2026-11-22T10:01:00Z", providerOrderId: "9001", refundedAmount: refunded, refundedAt: refunded ? "2026-11-23T09:00:00Z" : null });
    const calls = mockCommands({
      list_orders: () => page([paid()]),
      get_order: () => ({ order: { ...paid(), events: [] } }),
      refund_order: (args) => {
        if (args.amount === 1250) throw { code: "invalid_request", message: "amount: must be at most 1000", details: { fields: [{ field: "amount", message: "must be at most 1000 ($10.00, what is left to refund); 1250 is more" }] } };
        refunded += (args.amount as number | null) ?? 1999 - refunded;
        return { order: paid() };
      },
    });
    renderWithQuery(<Orders user={admin} />);
    await userEvent.click(await screen.findByRole("button", { name: "SR-000001" }));
    await userEvent.click(await screen.findByRole("button", { name: "Refund…" }));
    const dialog = screen.getByRole("alertdialog", { name: "Refund" });
    expect(dialog).toHaveTextContent("Refund $19.99 to ada@example.com?");
    await userEvent.click(within(dialog).getByRole("button", { name: "Keep as is" }));
    expect(calls.some((c) => c.cmd === "refund_order")).toBe(false);

    await userEvent.click(screen.getByRole("button", { name: "Refund…" }));
    // More than is left is refused before anything is sent.
    await userEvent.type(screen.getByLabelText(/Part only/), "50");
    expect(screen.getByText("Amount is more than is left ($19.99)")).toBeInTheDocument();
    expect(screen.getByRole("button", { name: "Refund" })).toBeDisabled();
    // The amount as the user's locale writes it, and what the dialog says will be refunded.
    await userEvent.clear(screen.getByLabelText(/Part only/));
    await userEvent.type(screen.getByLabelText(/Part only/), "12,50");
    expect(screen.getByRole("alertdialog", { name: "Refund" })).toHaveTextContent("Refund $12.50 to ada@example.com?");
    await userEvent.click(screen.getByRole("button", { name: "Refund" }));
    expect(await screen.findByText(/Amount must be at most 1000/)).toBeInTheDocument();
    await userEvent.clear(screen.getByLabelText(/Part only/));
    await userEvent.type(screen.getByLabelText(/Part only/), "5.00");
    await userEvent.click(screen.getByRole("button", { name: "Refund" }));
    expect(await screen.findByText(/Refunded \$5\.00/)).toBeInTheDocument();
    expect(calls.filter((c) => c.cmd === "refund_order").map((c) => c.args)).toEqual([
      { id: "o1", amount: 1250 },
      { id: "o1", amount: 500 },
    ]);
  });

  it("is used with the keyboard: the order's panel takes focus, the refund's amount the caret, and Escape closes each, focus going back", async () => {
    const paid = { ...order("paid"), paidAt: "2026-11-22T10:01:00Z", providerOrderId: "9001" };
    mockCommands({ list_orders: () => page([paid]), get_order: () => ({ order: { ...paid, events: [] } }) });
    renderWithQuery(<Orders user={admin} />);
    const row = await screen.findByRole("button", { name: "SR-000001" });
    row.focus();
    await userEvent.keyboard("{Enter}");
    const panel = await screen.findByRole("complementary", { name: "Order SR-000001" });
    await waitFor(() => expect(panel).toHaveFocus());

    const refund = await screen.findByRole("button", { name: "Refund…" });
    refund.focus();
    await userEvent.keyboard("{Enter}");
    await waitFor(() => expect(screen.getByLabelText(/Part only/)).toHaveFocus());
    await userEvent.keyboard("{Escape}");
    expect(screen.queryByRole("alertdialog")).not.toBeInTheDocument();
    // Escape closed the dialog only, not the panel behind it.
    expect(screen.getByRole("complementary", { name: "Order SR-000001" })).toBeInTheDocument();
    await waitFor(() => expect(screen.getByRole("button", { name: "Refund…" })).toHaveFocus());

    await userEvent.keyboard("{Escape}");
    await waitFor(() => expect(screen.queryByRole("complementary", { name: /Order/ })).not.toBeInTheDocument());
    await waitFor(() => expect(screen.getByRole("button", { name: "SR-000001" })).toHaveFocus());
  });

  it("offers no refund to staff, nor for an order that is not paid", async () => {
    mockCommands({ list_orders: () => page([order("pending")]), get_order: () => ({ order: { ...order("pending"), events: [] } }) });
    const first = renderWithQuery(<Orders user={admin} />);
    await userEvent.click(await screen.findByRole("button", { name: "SR-000001" }));
    await screen.findByText("No webhook has arrived for this order yet.");
    expect(screen.queryByRole("button", { name: "Refund…" })).not.toBeInTheDocument();
    first.unmount();
    const paid = { ...order("paid"), paidAt: "2026-11-22T10:01:00Z" };
    mockCommands({ list_orders: () => page([paid]), get_order: () => ({ order: { ...paid, events: [] } }) });
    renderWithQuery(<Orders user={staff} />);
    await userEvent.click(await screen.findByRole("button", { name: "SR-000001" }));
    await screen.findByText("No webhook has arrived for this order yet.");
    expect(screen.queryByRole("button", { name: "Refund…" })).not.toBeInTheDocument();
  });

  it("searches and filters the whole store, and shows an order's items, amounts and receipt", async () => {
    const store: Order = {
      ...order("paid"), id: "ls-7", orderId: "#1042", source: "store", providerStatus: "partial_refund", orderNumber: 1042,
      providerOrderId: "2000042", total: 2399, subtotal: 2199, discountTotal: 200, tax: 400, refundedAmount: 500,
      receiptUrl: "https://example.com/my-orders/abc", name: "Bea Costa", email: "bea.costa7@example.com",
    };
    const calls = mockCommands({
      list_orders: (args) => page(args.search || args.status ? [store] : [order("pending"), store]),
      get_order: () => ({ order: { ...store, events: [] } }),
    });
    renderWithQuery(<Orders user={staff} />);
    const table = await screen.findByRole("table", { name: "Orders" });
    expect(within(table).getByText("partly refunded")).toBeInTheDocument();
    expect(within(table).getByText("storefront")).toBeInTheDocument();
    await userEvent.type(screen.getByRole("searchbox", { name: "Search orders" }), "bea");
    await userEvent.selectOptions(screen.getByLabelText("Status"), "partial_refund");
    // The search is sent once typing pauses (ui/src/settled.ts), with the filter chosen meanwhile.
    const sent = () => calls.filter((c) => c.cmd === "list_orders").map((c) => c.args);
    await waitFor(() => expect(sent().at(-1)).toMatchObject({ search: "bea", status: "partial_refund", page: 1 }));
    expect(sent().filter((args) => args.search === "b" || args.search === "be")).toEqual([]);
    await userEvent.click(screen.getByRole("button", { name: "Clear" }));
    // The whole list again, at once from the cache (it was fetched moments ago).
    expect(await within(screen.getByRole("table", { name: "Orders" })).findByText("pending")).toBeInTheDocument();
    await userEvent.click(await screen.findByRole("button", { name: "#1042" }));
    const detail = await screen.findByRole("complementary", { name: "Order #1042" });
    expect(within(detail).getByRole("table", { name: "Items" })).toHaveTextContent("Planner");
    expect(within(detail).getByLabelText("Amounts")).toHaveTextContent("Subtotal$21.99Discount−$2.00Tax$4.00Total$23.99Refunded−$5.00");
    expect(within(detail).getByRole("button", { name: "Open receipt" })).toBeInTheDocument();
  });
});
