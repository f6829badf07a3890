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
  get_summary: (args: Record<string, unknown>) => ({ summary: summary(String(args.from)) }),
});
const summary = (from: string) => ({
  from: `${from}T00:00:00Z`, to: "2026-11-23T00:00:00Z", currency: "USD", orders: 3, grossRevenue: 9900, refunds: 1500,
  netRevenue: 8400, mrr: 123450, activeSubscriptions: 175, newSubscriptions: 4, cancelledSubscriptions: 2, pastDueSubscriptions: 35,
  daily: [{ date: "2026-11-21", orders: 1, netRevenue: 3300 }, { date: "2026-11-22", orders: 2, netRevenue: 5100 }],
  stale: false, syncedAt: "2026-11-22T10:00:00Z",
});

describe("Overview", () => {
  it("lists the subscriptions whose payment failed, past due and unpaid, each opening its subscription", async () => {
    const failed = (id: string, providerStatus: string) => ({
      id, customerId: "1001", status: "active", providerStatus, productId: "p1", variantId: "v1", renewsAt: "2027-01-01T00:00:00Z",
      createdAt: "2026-06-01T00:00:00Z", updatedAt: "2026-11-20T00:00:00Z", productName: "Planner Pro", variantName: "Monthly",
      customerName: `Buyer ${id}`, customerEmail: `${id}@example.com`, pauseMode: null, pauseResumesAt: null, lastPaymentStatus: "failed",
      lastPaymentAt: "2026-11-20T00:00:00Z", price: 2900, interval: "month", intervalCount: 1, currency: "USD", paymentProcessor: "stripe",
      cardBrand: "visa", cardLastFour: "4242", updatePaymentMethodUrl: null, portalUrl: null,
    });
    mockCommands({
      ...figures([]),
      list_subscriptions: (args) =>
        args.status === "past_due"
          ? { subscriptions: [failed("s1", "past_due")], meta: meta(12) }
          : args.status === "unpaid"
            ? { subscriptions: [failed("s2", "unpaid")], meta: meta(3) }
            : { subscriptions: [], meta: meta(120) },
    });
    renderWithQuery(<Overview info={sandboxInfo} user={user} onGo={vi.fn()} />);
    const table = await screen.findByRole("table", { name: "Subscriptions whose payment failed" });
    expect(within(table).getByText("Past due")).toHaveClass("provider-past_due");
    expect(within(table).getByText("Unpaid")).toHaveClass("provider-unpaid");
    expect(screen.getByRole("heading", { name: /Payment failed/ })).toHaveTextContent("15");
    await userEvent.click(within(table).getAllByRole("button", { name: "Open" })[0]);
    expect(window.location.pathname).toBe("/subscriptions/s1");
  });

  it("shows the day's figures and latest orders, each figure opening its screen", async () => {
    mockCommands(figures([order(1, "paid"), order(2, "pending")]));
    const onGo = vi.fn();
    renderWithQuery(<Overview info={sandboxInfo} user={user} onGo={onGo} />);
    expect(screen.getByRole("heading", { name: "Welcome, Demo Admin" })).toBeInTheDocument();
    expect(screen.getByText("Loading orders…")).toBeInTheDocument();
    const latest = await screen.findByRole("table", { name: "Latest orders" });
    expect(within(latest).getByText("SR-000002")).toBeInTheDocument();
    expect(within(latest).getByText("pending")).toHaveClass("status-pending");
    await userEvent.click(await screen.findByRole("button", { name: "120 Live subscriptions (trial, active, paused, payment failed)" }));
    await userEvent.click(screen.getByRole("button", { name: "25 Published products" }));
    await userEvent.click(screen.getByRole("button", { name: "2 Orders" }));
    expect(onGo.mock.calls.map((c) => c[0])).toEqual(["subscriptions", "products", "orders"]);
    expect(screen.getByText(/Payments last synced/)).toBeInTheDocument();
  });

  it("refreshes when a webhook arrives, and says when there are no orders or figures fail", async () => {
    let orders: Order[] = [];
    mockCommands({ ...figures(orders), list_orders: () => ({ orders, meta: meta(orders.length) }), list_products: () => { throw { code: "integration_error", message: "Lemon Squeezy did not answer" }; } });
    renderWithQuery(<Overview info={sandboxInfo} user={user} onGo={() => undefined} />);
    expect(await screen.findByText("No orders yet. Create one from a product.")).toBeInTheDocument();
    expect(await screen.findByRole("button", { name: "— Published products" })).toBeInTheDocument();
    orders = [order(1, "paid")];
    await emit("webhook", { kind: "applied" });
    expect(await screen.findByRole("button", { name: "1 Orders" })).toBeInTheDocument();
  });

  it("says why the latest orders cannot be shown", async () => {
    mockCommands({ ...figures([]), list_orders: () => { throw { code: "unauthorized", message: "Sign in first" }; } });
    renderWithQuery(<Overview info={sandboxInfo} user={user} onGo={() => undefined} />);
    expect(await screen.findByRole("alert")).toHaveTextContent("Sign in first (unauthorized)");
  });

  it("shows the money: net revenue, MRR, what needs attention, and a chart of each day, for 30 or 90 days", async () => {
    const calls = mockCommands(figures([order(1, "paid")]));
    const onGo = vi.fn();
    renderWithQuery(<Overview info={sandboxInfo} user={user} onGo={onGo} />);
    expect(await screen.findByRole("group", { name: "$84.00 Net revenue · $99.00 sold, $15.00 refunded" })).toBeInTheDocument();
    expect(screen.getByText("Net revenue · $99.00 sold, $15.00 refunded")).toBeInTheDocument();
    expect(screen.getByRole("group", { name: /^\$1,234\.50 MRR · / })).toBeInTheDocument();
    const chart = screen.getByRole("img", { name: /Daily net revenue over 2 days, \$84\.00 in all; the best day was Nov 22, 2026/ });
    expect(chart.querySelectorAll("rect")).toHaveLength(2);
    await userEvent.click(screen.getByRole("button", { name: "35 Past due or unpaid: payment failed" }));
    expect(onGo).toHaveBeenLastCalledWith("subscriptions");
    await userEvent.click(screen.getByRole("button", { name: "90 days" }));
    expect(await screen.findByRole("heading", { name: "Revenue, last 90 days" })).toBeInTheDocument();
    const froms = calls.filter((c) => c.cmd === "get_summary").map((c) => String(c.args.from));
    const daysBetween = (a: string, b: string) => Math.round((Date.parse(b) - Date.parse(a)) / 86_400_000);
    expect(daysBetween(froms.at(-1)!, froms[0])).toBe(60);
  });
});
