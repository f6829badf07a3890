import { describe, expect, it } from "vitest";
import { screen, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { CustomerPage, Customers } from "./Customers";
import { mockCommands, renderWithQuery } from "../test/render";
import type { Customer, CustomerDetail, Order, Subscription } from "../types";

const customer = (id: string, name: string, email: string, extra: Partial<Customer> = {}): Customer => ({
  id, name, email, status: "subscribed", country: "DE", createdAt: "2026-06-01T10:00:00Z", updatedAt: "2026-11-01T10:00:00Z",
  totalRevenue: 123_450, mrr: 2_900, currency: "USD", portalUrl: null, ...extra,
});
const page = (customers: Customer[]) => ({ customers, meta: { currentPage: 1, totalPages: 1, totalItems: customers.length } });

const order: Order = {
  id: "o1", orderId: "#1042", status: "paid", total: 4900, currency: "USD", checkoutUrl: "", createdAt: "2026-11-20T10:00:00Z",
  email: "ada@example.com", name: "Ada Lovelace", productId: "p1", variantId: "v1", customerId: "1001", providerOrderId: "2001",
  paidAt: "2026-11-20T10:00:00Z", refundedAt: null, refundedAmount: 0, updatedAt: "2026-11-20T10:00:00Z", review: null, source: "store",
  providerStatus: "paid", orderNumber: 1042, items: [{ productId: "p1", variantId: "v1", productName: "Planner", variantName: "Default", quantity: 1, price: 4900 }],
  subtotal: 4900, discountTotal: 0, tax: 0, receiptUrl: null,
};
const subscription: Subscription = {
  id: "s1", customerId: "1001", status: "active", providerStatus: "past_due", productId: "p1", variantId: "v2", renewsAt: "2027-01-01T00:00:00Z",
  createdAt: "2026-06-01T10:00:00Z", updatedAt: "2026-11-01T10:00:00Z", productName: "Planner Pro", variantName: "Monthly",
  customerName: "Ada Lovelace", customerEmail: "ada@example.com", pauseMode: null, pauseResumesAt: null, lastPaymentStatus: "failed",
  lastPaymentAt: "2026-11-24T10:00:00Z", price: 2900, interval: "month", intervalCount: 1, currency: "USD", paymentProcessor: "stripe",
  cardBrand: "visa", cardLastFour: "4242", updatePaymentMethodUrl: null, portalUrl: null,
};

describe("Customers", () => {
  it("finds customers by name or e-mail and says what an empty search found", async () => {
    const calls = mockCommands({
      list_customers: (request) =>
        request.search ? page([]) : page([customer("1001", "Ada Lovelace", "ada@example.com"), customer("1002", "Ben Okafor", "ben@example.com", { status: "bounced", mrr: 0 })]),
    });
    renderWithQuery(<Customers />);
    const table = await screen.findByRole("table", { name: "Customers" });
    expect(within(table).getByRole("button", { name: "Ada Lovelace" })).toBeInTheDocument();
    expect(within(table).getByText(/ben@example.com · E-mail bounced/)).toBeInTheDocument();
    expect(within(table).getAllByText(new Intl.NumberFormat(undefined, { style: "currency", currency: "USD" }).format(1234.5))).toHaveLength(2);
    await userEvent.type(screen.getByRole("searchbox", { name: "Search customers" }), "nobody");
    expect(await screen.findByText("No customers match.")).toBeInTheDocument();
    expect(calls.some((c) => c.cmd === "list_customers" && c.args.search === "nobody")).toBe(true);
  });

  it("shows a customer's figures, orders and subscriptions, and copies the portal link", async () => {
    const detail: CustomerDetail = {
      ...customer("1001", "Ada Lovelace", "ada@example.com", { portalUrl: "https://store.example/billing?signature=x" }),
      orders: [order], orderCount: 1, subscriptions: [subscription], subscriptionCount: 1, stale: false,
    };
    mockCommands({ get_customer: () => ({ customer: detail }) });
    const writes: string[] = [];
    Object.assign(navigator, { clipboard: { writeText: async (text: string) => void writes.push(text) } });
    renderWithQuery(<CustomerPage id="1001" />);
    expect(await screen.findByRole("heading", { name: "Ada Lovelace" })).toBeInTheDocument();
    const money = (cents: number) => new Intl.NumberFormat(undefined, { style: "currency", currency: "USD" }).format(cents / 100);
    expect(screen.getByRole("group", { name: `Lifetime revenue: ${money(123_450)}` })).toBeInTheDocument();
    expect(within(screen.getByRole("table", { name: "Customer's orders" })).getByRole("button", { name: "#1042" })).toBeInTheDocument();
    const subs = screen.getByRole("table", { name: "Customer's subscriptions" });
    expect(within(subs).getByText("Past due")).toBeInTheDocument();
    await userEvent.click(screen.getByRole("button", { name: "Copy portal link" }));
    expect(writes).toEqual(["https://store.example/billing?signature=x"]);
    expect(await screen.findByText("Copied: valid for 24 hours.")).toBeInTheDocument();
  });

  it("says when the figures are from the cache, and offers no portal link then", async () => {
    const detail: CustomerDetail = { ...customer("1001", "Ada Lovelace", "ada@example.com"), orders: [], orderCount: 0, subscriptions: [], subscriptionCount: 0, stale: true };
    mockCommands({ get_customer: () => ({ customer: detail }) });
    renderWithQuery(<CustomerPage id="1001" />);
    expect(await screen.findByText(/cannot be reached: these figures are as last synced/)).toBeInTheDocument();
    expect(screen.queryByRole("button", { name: "Copy portal link" })).not.toBeInTheDocument();
    expect(screen.getByText("No orders.")).toBeInTheDocument();
  });
});
