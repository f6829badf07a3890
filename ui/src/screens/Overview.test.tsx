import { describe, expect, it, vi } from "vitest";
import { screen, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { emit } from "@tauri-apps/api/event";
import { Overview } from "./Overview";
import { mockCommands, renderWithQuery, sandboxInfo } from "../test/render";
import type { Order } from "../types";

const user = { id: "u1", email: "demo@staffroom.test", name: "Demo Admin", role: "admin" as const, disabled: false, locked: false };
const order = (n: number, status: Order["status"]): Order => ({
  id: `o${n}`, orderId: `SR-00000${n}`, status, total: 3300, currency: "USD", checkoutUrl: "http://127.0.0.1/checkout/custom/1",
  createdAt: "2026-11-22T10:00:00Z", email: "buyer@example.com", name: `Buyer ${n}`, productId: "p1", variantId: "v1",
  customerId: null, providerOrderId: null, paidAt: null, refundedAt: null, refundedAmount: 0, updatedAt: "2026-11-22T10:00:00Z", review: null,
  source: "staffroom", providerStatus: null, orderNumber: null, items: [{ productId: "p1", variantId: "v1", productName: "Planner", variantName: "Default", quantity: 1, price: 1999 }],
  subtotal: 1999, discountTotal: 0, tax: 0, receiptUrl: null,
});
const meta = (totalItems: number) => ({ currentPage: 1, totalPages: 1, totalItems });
const figures = (orders: Order[], activeSubscriptions = 120) => ({
  list_orders: () => ({ orders, meta: meta(orders.length) }),
  list_subscriptions: () => ({ subscriptions: [], meta: meta(activeSubscriptions) }),
  list_products: () => ({ products: [], meta: meta(25) }),
  sync_status: () => ({ running: false, intervalSecs: 300, resources: [{ resource: "products", syncedAt: "2026-11-22T10:00:00Z", attemptedAt: null, error: null }] }),
});

describe("Overview", () => {
  it("shows the day's figures and latest orders, each figure opening its screen", async () => {
    mockCommands(figures([order(1, "paid"), order(2, "pending")]));
    const onGo = vi.fn();
    renderWithQuery(<Overview info={sandboxInfo} user={user} onGo={onGo} />);
    expect(screen.getByRole("heading", { name: "Welcome, Demo Admin" })).toBeInTheDocument();
    expect(screen.getByText("Loading orders…")).toBeInTheDocument();
    const latest = await screen.findByRole("table", { name: "Latest orders" });
    expect(within(latest).getByText("SR-000002")).toBeInTheDocument();
    expect(within(latest).getByText("pending")).toHaveClass("status-pending");
    await userEvent.click(await screen.findByRole("button", { name: "Active subscriptions: 120" }));
    await userEvent.click(screen.getByRole("button", { name: "Published products: 25" }));
    await userEvent.click(screen.getByRole("button", { name: "Orders: 2" }));
    expect(onGo.mock.calls.map((c) => c[0])).toEqual(["subscriptions", "products", "orders"]);
    expect(screen.getByText(/Payments last synced/)).toBeInTheDocument();
  });

  it("refreshes when a webhook arrives, and says when there are no orders or figures fail", async () => {
    let orders: Order[] = [];
    mockCommands({ ...figures(orders), list_orders: () => ({ orders, meta: meta(orders.length) }), list_products: () => { throw { code: "integration_error", message: "Lemon Squeezy did not answer" }; } });
    renderWithQuery(<Overview info={sandboxInfo} user={user} onGo={() => undefined} />);
    expect(await screen.findByText("No orders yet. Create one from a product.")).toBeInTheDocument();
    expect(await screen.findByRole("button", { name: "Published products: —" })).toBeInTheDocument();
    orders = [order(1, "paid")];
    await emit("webhook", { kind: "applied" });
    expect(await screen.findByRole("button", { name: "Orders: 1" })).toBeInTheDocument();
  });

  it("says why the latest orders cannot be shown", async () => {
    mockCommands({ ...figures([]), list_orders: () => { throw { code: "unauthorized", message: "Sign in first" }; } });
    renderWithQuery(<Overview info={sandboxInfo} user={user} onGo={() => undefined} />);
    expect(await screen.findByRole("alert")).toHaveTextContent("Sign in first (unauthorized)");
  });
});
