import { describe, expect, it } from "vitest";
import { screen, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { emit } from "@tauri-apps/api/event";
import { Orders } from "./Orders";
import { mockCommands, renderWithQuery } from "../test/render";
import type { Order } from "../types";

const order = (status: Order["status"]): Order => ({
  id: "o1", orderId: "SR-000001", status, total: 1999, currency: "USD", checkoutUrl: "http://127.0.0.1/checkout/custom/1",
  createdAt: "2026-11-22T10:00:00Z", email: "ada@example.com", name: "Ada", productId: "p1", variantId: "v1",
  customerId: null, providerOrderId: null, paidAt: null, refundedAt: null, updatedAt: "2026-11-22T10:00:00Z", review: null,
});
const page = (orders: Order[]) => ({ orders, meta: { currentPage: 1, totalPages: 1, totalItems: orders.length } });

describe("Orders", () => {
  it("turns an order paid when a webhook is applied, without a reload, and shows its history", async () => {
    let status: Order["status"] = "pending";
    mockCommands({
      list_orders: () => page([order(status)]),
      get_order: () => ({ order: { ...order(status), events: status === "paid" ? [{ eventName: "order_created", receivedAt: "2026-11-22T10:01:00Z", outcome: "applied" }] : [] } }),
    });
    renderWithQuery(<Orders />);
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
    const first = renderWithQuery(<Orders />);
    expect(screen.getByText("Loading orders…")).toBeInTheDocument();
    expect(await screen.findByText("No orders yet. Create one from a product.")).toBeInTheDocument();
    first.unmount();
    mockCommands({ list_orders: () => { throw { code: "internal", message: "The database is locked" }; } });
    renderWithQuery(<Orders />);
    expect(await screen.findByRole("alert")).toHaveTextContent("The database is locked (internal)");
  });

  it("marks an order whose payment did not match its checkout for review, and says why", async () => {
    const held = { ...order("pending"), review: "subtotal is 100, the checkout's is 1999" };
    mockCommands({ list_orders: () => page([held]), get_order: () => ({ order: { ...held, events: [] } }) });
    renderWithQuery(<Orders />);
    const table = await screen.findByRole("table", { name: "Orders" });
    expect(within(table).getByText("needs review")).toBeInTheDocument();
    await userEvent.click(screen.getByRole("button", { name: "SR-000001" }));
    expect(await screen.findByText(/subtotal is 100, the checkout's is 1999/)).toBeInTheDocument();
  });
});
