import { describe, expect, it } from "vitest";
import { screen, waitFor } from "@testing-library/react";
import { emit } from "@tauri-apps/api/event";
import { Router, useLocation } from "wouter";
import { memoryLocation } from "wouter/memory-location";
import { ownRefund, saveNotificationSettings, useDesktopNotifications } from "./notifications";
import { mockCommands, renderWithQuery } from "./test/render";
import type { User } from "./types";

const sam: User = { id: "u7", email: "sam@example.com", name: "Sam", role: "staff", disabled: false, locked: false };

const order = (id: string, extra: Record<string, unknown> = {}) => ({
  order: { id, orderId: "SR-000042", orderNumber: 1042, status: "paid", total: 2970, currency: "USD", name: "Zoë", email: "zoe@example.com", refundedAmount: 500, ...extra },
});
const subscription = { subscription: { id: "77", customerName: "Kai", customerEmail: "kai@example.com", productName: "Pro plan" } };
const applied = (eventName: string, extra: Record<string, unknown> = {}) => ({
  kind: "applied", at: new Date().toISOString(), inboxId: 1, eventName, resourceType: null, resourceId: "9",
  verified: true, outcome: "applied", orderId: "o1", subscriptionId: "77", ...extra,
});

function Listener({ user }: { user: User }) {
  const told = useDesktopNotifications(user);
  const [location] = useLocation();
  return (
    <>
      <p>at {location}</p>
      <p role="status">{told}</p>
    </>
  );
}

function shown(calls: { cmd: string; args: Record<string, unknown> }[]) {
  return calls.filter((c) => c.cmd === "show_notification").map((c) => c.args);
}

describe("desktop notifications", () => {
  it("tells of a paid order, a failed payment and someone else's refund, as the person's switches say, and a click opens the thing", async () => {
    localStorage.clear();
    const calls = mockCommands({
      get_order: ({ id }) => order(String(id)),
      get_subscription: () => subscription,
      show_notification: () => null,
    });
    const { hook } = memoryLocation({ path: "/overview" });
    renderWithQuery(<Router hook={hook}><Listener user={sam} /></Router>);
    await screen.findByText("at /overview");

    await emit("webhook", applied("order_created"));
    await waitFor(() => expect(shown(calls)).toHaveLength(1));
    expect(shown(calls)[0]).toEqual({ title: "Order paid: $29.70", body: "#1042 · Zoë", route: "/orders/o1" });
    // Said in the window's live region too.
    expect(screen.getByRole("status")).toHaveTextContent("Order paid: $29.70. #1042 · Zoë");

    await emit("webhook", applied("subscription_payment_failed"));
    await waitFor(() => expect(shown(calls)).toHaveLength(2));
    expect(shown(calls)[1]).toEqual({ title: "Subscription payment failed", body: "Kai · Pro plan", route: "/subscriptions/77" });

    // A refund made from this window is not news; one made elsewhere is.
    await ownRefund("o1", async () => null);
    await emit("webhook", applied("order_refunded"));
    await emit("webhook", applied("order_refunded", { orderId: "o2" }));
    await waitFor(() => expect(shown(calls)).toHaveLength(3));
    expect(shown(calls)[2]).toEqual({ title: "Refund made on order #1042", body: "$5.00 refunded in all · zoe@example.com", route: "/orders/o2" });

    // Switched off: nothing; received but not applied, or of no interest: nothing.
    saveNotificationSettings(sam, { orderPaid: false, paymentFailed: true, subscriptionCancelled: true, refund: true });
    await emit("webhook", applied("order_created", { orderId: "o3" }));
    await emit("webhook", { ...applied("subscription_payment_failed"), kind: "received" });
    await emit("webhook", applied("subscription_updated"));
    await emit("webhook", applied("subscription_payment_failed", { outcome: "stale: an older payment" }));
    await emit("webhook", applied("subscription_cancelled"));
    await waitFor(() => expect(shown(calls)).toHaveLength(4));
    expect(shown(calls)[3]).toMatchObject({ title: "Subscription cancelled" });
    expect(screen.getByRole("status")).toHaveTextContent("Subscription cancelled. Kai · Pro plan");
    // Whatever was wrongly on its way has had time to arrive.
    await new Promise((settle) => setTimeout(settle, 100));
    expect(shown(calls)).toHaveLength(4);
    expect(calls.some((c) => c.cmd === "get_order" && c.args.id === "o3")).toBe(false);

    // The click, as the desktop tells of it.
    await emit("open-item", "/subscriptions/77");
    expect(await screen.findByText("at /subscriptions/77")).toBeInTheDocument();
  });

  it("sums up what was missed while away in one notification instead of replaying it", async () => {
    localStorage.clear();
    const calls = mockCommands({ get_order: ({ id }) => order(String(id)), show_notification: () => null });
    const { hook } = memoryLocation({ path: "/overview" });
    renderWithQuery(<Router hook={hook}><Listener user={sam} /></Router>);
    await screen.findByText("at /overview");
    const yesterday = new Date(Date.now() - 86_400_000).toISOString();
    for (let n = 0; n < 12; n += 1) await emit("webhook", { ...applied("order_created", { orderId: `o${n}` }), at: yesterday });
    await waitFor(() => expect(shown(calls)).toHaveLength(1), { timeout: 5_000 });
    expect(shown(calls)[0]).toEqual({
      title: "12 payment events while Staffroom was away",
      body: "They are in the lists now; the Webhooks screen has each one.",
      route: "/webhooks",
    });
    expect(calls.some((c) => c.cmd === "get_order")).toBe(false);
  });
});
