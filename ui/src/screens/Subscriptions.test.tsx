import { describe, expect, it } from "vitest";
import { screen, waitFor, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { Subscriptions } from "./Subscriptions";
import { mockCommands, renderWithQuery } from "../test/render";
import type { Subscription, User } from "../types";

const admin: User = { id: "u1", email: "ada@example.com", name: "Ada", role: "admin", disabled: false, locked: false };

const sub = (id: string, providerStatus: string, extra: Partial<Subscription> = {}): Subscription => ({
  id, customerId: "c1", status: providerStatus === "cancelled" ? "cancelled" : providerStatus === "expired" ? "expired" : "active",
  providerStatus, productId: "p1", variantId: "v1", renewsAt: "2026-12-22T00:00:00Z", createdAt: "2026-01-01T00:00:00Z",
  updatedAt: "2026-01-01T00:00:00Z", productName: "Pro plan", variantName: "Monthly", customerName: `Customer ${id}`,
  customerEmail: `${id}@example.com`, pauseMode: null, pauseResumesAt: null, lastPaymentStatus: null, lastPaymentAt: null,
  price: 900, interval: "month", intervalCount: 1, currency: "USD", paymentProcessor: "stripe", cardBrand: "visa", cardLastFour: "4242",
  updatePaymentMethodUrl: null, portalUrl: null,
  ...extra,
});
const page = (subscriptions: Subscription[], meta = {}) => ({ subscriptions, meta: { currentPage: 1, totalPages: 2, totalItems: 30, ...meta } });

describe("Subscriptions", () => {
  it("filters by the provider's status, product and the customer's name, and pages", async () => {
    const calls = mockCommands({
      list_subscriptions: () => page([sub("s1", "active")]),
      list_products: () => ({ products: [{ id: "p1", name: "Pro plan", slug: "pro", price: 900, currency: "USD", status: "published", createdAt: "", updatedAt: "", priceFormatted: "$9.00" }], meta: { currentPage: 1, totalPages: 1, totalItems: 1 } }),
    });
    renderWithQuery(<Subscriptions user={admin} />);
    await screen.findByText("Customer s1");
    expect(screen.getByText("$9.00 / month")).toBeInTheDocument();
    expect(screen.getByText("Visa ···· 4242")).toBeInTheDocument();
    await userEvent.selectOptions(screen.getByLabelText("Status"), "past_due");
    await userEvent.selectOptions(await screen.findByLabelText("Product"), "p1");
    await userEvent.type(screen.getByRole("searchbox", { name: "Search subscriptions" }), "ada");
    const args = () => calls.filter((c) => c.cmd === "list_subscriptions").map((c) => c.args);
    // Sent once typing pauses (ui/src/settled.ts).
    await waitFor(() => expect(args()).toContainEqual({ page: 1, limit: 20, status: "past_due", productId: "p1", search: "ada" }));
    await userEvent.click(screen.getByRole("button", { name: "Next" }));
    await screen.findByText("Page 1 of 2 · 30 subscriptions");
    expect(args()[0]).toEqual({ page: 1, limit: 20, status: null, productId: null, search: null });
    expect(args().at(-1)).toEqual({ page: 2, limit: 20, status: "past_due", productId: "p1", search: "ada" });
  });

  it("marks billing trouble and gives the chosen one's update-payment link to copy", async () => {
    const failed = sub("s4", "past_due", { lastPaymentStatus: "failed", lastPaymentAt: "2026-11-24T10:00:00Z" });
    mockCommands({
      list_subscriptions: () => page([failed, sub("s5", "active", { paymentProcessor: "paypal", cardBrand: null, cardLastFour: null })], { totalPages: 1 }),
      list_products: () => ({ products: [], meta: { currentPage: 1, totalPages: 0, totalItems: 0 } }),
      get_subscription: () => ({ subscription: { ...failed, updatePaymentMethodUrl: "https://store.example/subscription/s4/payment-details?signature=x" }, stale: false }),
    });
    const writes: string[] = [];
    Object.assign(navigator, { clipboard: { writeText: async (text: string) => void writes.push(text) } });
    renderWithQuery(<Subscriptions user={admin} />);
    const table = await screen.findByRole("table", { name: "Subscriptions" });
    expect(within(table).getByText("Past due")).toHaveClass("provider-past_due");
    expect(within(table).getByText(/payment failed/)).toBeInTheDocument();
    expect(screen.getByText("PayPal")).toBeInTheDocument();
    await userEvent.click(screen.getByRole("button", { name: "Customer s4" }));
    const pane = await screen.findByRole("complementary", { name: "Subscription s4" });
    expect(pane).toHaveTextContent("The last payment failed.");
    await userEvent.click(screen.getByRole("button", { name: "Copy update-payment link" }));
    expect(writes).toEqual(["https://store.example/subscription/s4/payment-details?signature=x"]);
  });

  it("cancels and resumes only after confirmation, offering what the status allows", async () => {
    let cancelled = false;
    const calls = mockCommands({
      list_subscriptions: () => page([sub("s1", cancelled ? "cancelled" : "active"), sub("s2", "expired")], { totalPages: 1 }),
      act_on_subscription: (args) => { cancelled = args.action === "cancel"; return { subscription: sub("s1", cancelled ? "cancelled" : "active") }; },
    });
    renderWithQuery(<Subscriptions user={admin} />);
    await userEvent.click(await screen.findByRole("button", { name: "Cancel Customer s1" }));
    expect(screen.getByRole("alertdialog", { name: "Confirm" })).toHaveTextContent("Cancel this subscription?");
    await userEvent.click(screen.getByRole("button", { name: "Keep as is" }));
    expect(calls.some((c) => c.cmd === "act_on_subscription")).toBe(false);
    await userEvent.click(screen.getByRole("button", { name: "Cancel Customer s1" }));
    await userEvent.click(screen.getByRole("button", { name: "Cancel subscription" }));
    await userEvent.click(await screen.findByRole("button", { name: "Resume Customer s1" }));
    await userEvent.click(screen.getByRole("button", { name: "Resume subscription" }));
    await screen.findByRole("button", { name: "Cancel Customer s1" });
    expect(calls.filter((c) => c.cmd === "act_on_subscription").map((c) => c.args)).toEqual([
      { id: "s1", action: "cancel" },
      { id: "s1", action: "resume" },
    ]);
    expect(screen.queryByRole("button", { name: /^(Cancel|Resume|Pause|Unpause|Change plan) Customer s2/ })).not.toBeInTheDocument();
  });

  it("pauses with a mode and a resume date, and changes plan to another plan of the product", async () => {
    const calls = mockCommands({
      list_subscriptions: () => page([sub("s1", "active"), sub("s3", "paused", { pauseMode: "free", pauseResumesAt: "2027-02-01T00:00:00Z" })], { totalPages: 1 }),
      act_on_subscription: () => ({ subscription: sub("s1", "active") }),
      get_product: () => ({ product: {
        id: "p1", name: "Pro plan", slug: "pro", price: 900, currency: "USD", status: "published", createdAt: "", updatedAt: "",
        variants: [
          { id: "v1", name: "Monthly", price: 900, status: "published", isSubscription: true },
          { id: "v2", name: "Yearly", price: 9000, status: "published", isSubscription: true },
          { id: "v3", name: "Old", price: 500, status: "draft", isSubscription: true },
        ],
      } }),
    });
    renderWithQuery(<Subscriptions user={admin} />);
    expect(await screen.findByText(/free access until/)).toBeInTheDocument();
    expect(screen.getByRole("button", { name: "Unpause Customer s3" })).toBeInTheDocument();

    await userEvent.click(screen.getByRole("button", { name: "Pause Customer s1" }));
    await userEvent.selectOptions(screen.getByLabelText("While paused"), "free");
    await userEvent.type(screen.getByLabelText("Resume on (optional)"), "2027-03-01");
    await userEvent.click(screen.getByRole("button", { name: "Pause subscription" }));
    await waitFor(() => expect(screen.queryByRole("alertdialog")).not.toBeInTheDocument());

    await userEvent.click(screen.getByRole("button", { name: "Change plan Customer s1" }));
    const confirm = screen.getByRole("button", { name: "Change plan subscription" });
    expect(confirm).toBeDisabled();
    const plan = await screen.findByLabelText("New plan");
    // Only the other published plans: not the current one, not a draft.
    expect(Array.from((plan as HTMLSelectElement).options).map((o) => o.value)).toEqual(["", "v2"]);
    await userEvent.selectOptions(plan, "v2");
    await userEvent.click(confirm);
    await waitFor(() => expect(screen.queryByRole("alertdialog")).not.toBeInTheDocument());

    expect(calls.filter((c) => c.cmd === "act_on_subscription").map((c) => c.args)).toEqual([
      { id: "s1", action: "pause", mode: "free", resumesAt: new Date("2027-03-01T00:00:00").toISOString() },
      { id: "s1", action: "change-plan", variantId: "v2" },
    ]);
  });

  it("shows a refused action, the stale banner, and empty and error states", async () => {
    mockCommands({
      list_subscriptions: () => page([sub("s1", "active")], { stale: true, totalPages: 1 }),
      act_on_subscription: () => { throw { code: "invalid_request", message: "request: an expired subscription cannot be resumed" }; },
    });
    const first = renderWithQuery(<Subscriptions user={admin} />);
    expect(await screen.findByRole("status")).toHaveTextContent("Lemon Squeezy cannot be reached");
    await userEvent.click(screen.getByRole("button", { name: "Pause Customer s1" }));
    await userEvent.click(screen.getByRole("button", { name: "Pause subscription" }));
    expect(await screen.findByRole("alert")).toHaveTextContent("cannot be resumed (invalid_request)");
    first.unmount();
    mockCommands({ list_subscriptions: () => page([], { totalPages: 0, totalItems: 0 }) });
    const second = renderWithQuery(<Subscriptions user={admin} />);
    expect(screen.getByText("Loading subscriptions…")).toBeInTheDocument();
    expect(await screen.findByText("No subscriptions yet.")).toBeInTheDocument();
    second.unmount();
    mockCommands({ list_subscriptions: () => { throw { code: "unauthorized", message: "No Lemon Squeezy API key is set" }; } });
    renderWithQuery(<Subscriptions user={admin} />);
    expect(await screen.findByRole("alert")).toHaveTextContent("(unauthorized)");
  });

  it("says when a plan change waits for the customer (PayPal) and where they confirm it", async () => {
    mockCommands({
      list_subscriptions: () => page([sub("s1", "active")], { totalPages: 1 }),
      act_on_subscription: () => ({
        subscription: sub("s1", "active"),
        pendingConfirmation: { url: "https://shop.example/billing/1/update", message: "The customer pays through PayPal: the change happens once they confirm it at this link" },
      }),
      get_product: () => ({ product: {
        id: "p1", name: "Pro plan", slug: "pro", price: 900, currency: "USD", status: "published", createdAt: "", updatedAt: "", priceFormatted: "$9.00",
        variants: [{ id: "v1", name: "Monthly", price: 900, status: "published", isSubscription: true }, { id: "v2", name: "Yearly", price: 9000, status: "published", isSubscription: true }],
      } }),
    });
    renderWithQuery(<Subscriptions user={admin} />);
    await userEvent.click(await screen.findByRole("button", { name: "Change plan Customer s1" }));
    await userEvent.selectOptions(await screen.findByLabelText("New plan"), "v2");
    await userEvent.click(screen.getByRole("button", { name: "Change plan subscription" }));
    const waiting = await screen.findByRole("status", { name: "Change of subscription s1 waits for the customer" });
    expect(waiting).toHaveTextContent("https://shop.example/billing/1/update");
    expect(screen.getByText("change pending: customer confirms")).toBeInTheDocument();
  });
});
