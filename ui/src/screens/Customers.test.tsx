import { describe, expect, it } from "vitest";
import { screen, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { CustomerPage, Customers } from "./Customers";
import { mockCommands, renderWithQuery } from "../test/render";
import type { Customer, CustomerDetail, Invoice, Order, Subscription, User } from "../types";

const admin: User = { id: "u1", email: "ada@example.com", name: "Ada", role: "admin", disabled: false, locked: false };
const staff: User = { ...admin, id: "u2", email: "sam@example.com", name: "Sam", role: "staff" };

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
      orders: [order], orderCount: 1, subscriptions: [subscription], subscriptionCount: 1, invoices: [], invoiceCount: 0, licenseKeys: [], licenseKeyCount: 0, stale: false,
    };
    mockCommands({ get_customer: () => ({ customer: detail }) });
    const writes: string[] = [];
    Object.assign(navigator, { clipboard: { writeText: async (text: string) => void writes.push(text) } });
    renderWithQuery(<CustomerPage id="1001" user={admin} />);
    expect(await screen.findByRole("heading", { name: "Ada Lovelace" })).toBeInTheDocument();
    const money = (cents: number) => new Intl.NumberFormat(undefined, { style: "currency", currency: "USD" }).format(cents / 100);
    expect(screen.getByRole("group", { name: `${money(123_450)} Lifetime revenue, less refunds` })).toBeInTheDocument();
    expect(within(screen.getByRole("table", { name: "Customer's orders" })).getByRole("button", { name: "#1042" })).toBeInTheDocument();
    const subs = screen.getByRole("table", { name: "Customer's subscriptions" });
    expect(within(subs).getByText("Past due")).toBeInTheDocument();
    await userEvent.click(screen.getByRole("button", { name: "Copy portal link" }));
    expect(writes).toEqual(["https://store.example/billing?signature=x"]);
    expect(await screen.findByText("Copied: valid for 24 hours.")).toBeInTheDocument();
  });

  it("says when the figures are from the cache, and offers no portal link then", async () => {
    const detail: CustomerDetail = { ...customer("1001", "Ada Lovelace", "ada@example.com"), orders: [], orderCount: 0, subscriptions: [], subscriptionCount: 0, invoices: [], invoiceCount: 0, licenseKeys: [], licenseKeyCount: 0, stale: true };
    mockCommands({ get_customer: () => ({ customer: detail }) });
    renderWithQuery(<CustomerPage id="1001" user={admin} />);
    expect(await screen.findByText(/cannot be reached: these figures are as last synced/)).toBeInTheDocument();
    expect(screen.queryByRole("button", { name: "Copy portal link" })).not.toBeInTheDocument();
    expect(screen.getByText("No orders.")).toBeInTheDocument();
  });

  it("lists the customer's invoices and refunds part of a renewal, for admins only", async () => {
    const invoice = (id: string, billingReason: string, status: string, extra: Partial<Invoice> = {}): Invoice => ({
      id, subscriptionId: "s1", customerId: "1001", billingReason, status, total: 2900, refundedAmount: 0, currency: "USD",
      cardBrand: "visa", cardLastFour: "4242", invoiceUrl: `https://store.example/invoice/${id}`, createdAt: "2026-11-01T10:00:00Z",
      updatedAt: "2026-11-01T10:00:00Z", ...extra,
    });
    const invoices = [
      invoice("i3", "renewal", "pending", { createdAt: "2026-11-01T10:00:00Z", invoiceUrl: null }),
      invoice("i2", "renewal", "paid", { createdAt: "2026-10-01T10:00:00Z" }),
      invoice("i1", "initial", "partial_refund", { createdAt: "2026-09-01T10:00:00Z", refundedAmount: 1000 }),
    ];
    const detail: CustomerDetail = {
      ...customer("1001", "Ada Lovelace", "ada@example.com"),
      orders: [], orderCount: 0, subscriptions: [subscription], subscriptionCount: 1, invoices, invoiceCount: 3, licenseKeys: [], licenseKeyCount: 0, stale: false,
    };
    const calls = mockCommands({
      get_customer: () => ({ customer: detail }),
      refund_invoice: (request) => ({ invoice: { ...invoices[1], status: "partial_refund", refundedAmount: request.amount } }),
    });
    const { unmount } = renderWithQuery(<CustomerPage id="1001" user={admin} />);
    const table = await screen.findByRole("table", { name: "Customer's invoices" });
    const rows = within(table).getAllByRole("row").slice(1);
    expect(rows.map((r) => within(r).getAllByRole("cell")[2].textContent)).toEqual(["Renewal", "Renewal", "First payment"]);
    expect(within(rows[0]).getByText("Payment due")).toBeInTheDocument();
    expect(within(rows[2]).getByText(/− ?\$10\.00 refunded/)).toBeInTheDocument();
    expect(within(rows[2]).getByText("Partly refunded")).toBeInTheDocument();
    expect(within(rows[0]).getAllByRole("button", { name: "Planner Pro" })).toHaveLength(1);
    // A payment still owed cannot be refunded; the paid renewal and what is left of the first can.
    expect(within(rows[0]).queryByRole("button", { name: /Refund/ })).not.toBeInTheDocument();
    await userEvent.click(within(rows[1]).getByRole("button", { name: /Refund the invoice/ }));
    const dialog = screen.getByRole("alertdialog", { name: "Refund" });
    await userEvent.type(within(dialog).getByLabelText(/Part only/), "30");
    expect(within(dialog).getByText(/is more than is left/)).toBeInTheDocument();
    await userEvent.clear(within(dialog).getByLabelText(/Part only/));
    await userEvent.type(within(dialog).getByLabelText(/Part only/), "12,50");
    expect(within(dialog).getByText(/to ada@example.com\?/)).toBeInTheDocument();
    await userEvent.click(within(dialog).getByRole("button", { name: "Refund" }));
    expect(await screen.findByText(/Refunded\. Lemon Squeezy returns the money/)).toBeInTheDocument();
    expect(calls.filter((c) => c.cmd === "refund_invoice").map((c) => c.args)).toEqual([{ id: "i2", amount: 1250 }]);
    unmount();

    renderWithQuery(<CustomerPage id="1001" user={staff} />);
    await screen.findByRole("table", { name: "Customer's invoices" });
    expect(screen.queryByRole("button", { name: /Refund/ })).not.toBeInTheDocument();
  });
});
