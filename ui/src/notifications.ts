import { useEffect, useState } from "react";
import { listen } from "@tauri-apps/api/event";
import { useLocation } from "wouter";
import { api, formatMoney } from "./api";
import { paths } from "./links";
import type { FeedItem } from "./bindings/FeedItem";
import type { User } from "./types";

/** The kinds of notification a person may switch off. */
export type NotificationKind = "orderPaid" | "paymentFailed" | "subscriptionCancelled" | "refund";
export type NotificationSettings = Record<NotificationKind, boolean>;

export const NOTIFICATION_KINDS: [NotificationKind, string][] = [
  ["orderPaid", "An order is paid"],
  ["paymentFailed", "A subscription payment fails"],
  ["subscriptionCancelled", "A subscription is cancelled"],
  ["refund", "Someone else makes a refund"],
];

const ALL_ON: NotificationSettings = { orderPaid: true, paymentFailed: true, subscriptionCancelled: true, refund: true };

/** The switches are each person's on this computer, as the operating system's own are. */
const key = (user: User) => `staffroom.notifications.${user.id}`;

export function loadNotificationSettings(user: User): NotificationSettings {
  try {
    return { ...ALL_ON, ...(JSON.parse(localStorage.getItem(key(user)) ?? "{}") as Partial<NotificationSettings>) };
  } catch {
    return ALL_ON;
  }
}

export function saveNotificationSettings(user: User, settings: NotificationSettings) {
  localStorage.setItem(key(user), JSON.stringify(settings));
}

/** Refunds made from this window lately: the refund's own event then tells nothing new. */
const ownRefunds = new Map<string, number>();
const OWN_REFUND_MEMORY_MS = 10 * 60_000;

/** Refunds `id` (our order id, or an invoice's id) with `refund`, remembering meanwhile that
 *  this window did it: the provider's event may arrive before the answer does. */
export async function ownRefund<T>(id: string, refund: () => Promise<T>): Promise<T> {
  ownRefunds.set(id, Date.now());
  try {
    return await refund();
  } catch (error) {
    ownRefunds.delete(id);
    throw error;
  }
}

function isOwnRefund(id: string | null): boolean {
  const at = id ? ownRefunds.get(id) : undefined;
  return at !== undefined && Date.now() - at < OWN_REFUND_MEMORY_MS;
}

export interface Notice {
  kind: NotificationKind;
  title: string;
  body: string;
  route: string;
}

/** A delivery older than this when it arrives was missed while the app was away (a team
 *  server's stream catching up): it is counted, not told one by one. Generous, because the time
 *  is the server's clock and the age is read on this computer's. */
export const LATE_AFTER_MS = 10 * 60_000;

/** The deliveries notifications are about: what changed, applied (not held, stale, ignored or
 *  failed, which change nothing). */
const TOLD: Record<string, NotificationKind> = {
  order_created: "orderPaid",
  order_paid: "orderPaid",
  subscription_payment_failed: "paymentFailed",
  subscription_cancelled: "subscriptionCancelled",
  order_refunded: "refund",
  subscription_payment_refunded: "refund",
};

function kindOf(item: FeedItem): NotificationKind | null {
  const applied = item.kind === "applied" && (item.outcome === "applied" || Boolean(item.outcome?.startsWith("applied:")));
  return applied && item.eventName ? (TOLD[item.eventName] ?? null) : null;
}

/** What an applied delivery is worth telling, if anything: the order or subscription it names
 *  is read for the sentence. */
export async function noticeOf(item: FeedItem): Promise<Notice | null> {
  if (!kindOf(item)) return null;
  switch (item.eventName) {
    case "order_created":
    case "order_paid": {
      if (!item.orderId) return null;
      const { order } = await api.getOrder({ id: item.orderId });
      if (order.status !== "paid") return null;
      const who = order.name || order.email;
      const number = order.orderNumber ? `#${order.orderNumber}` : order.orderId;
      return { kind: "orderPaid", title: `Order paid: ${formatMoney(order.total, order.currency)}`, body: `${number} · ${who}`, route: paths.order(order.id) };
    }
    case "subscription_payment_failed":
    case "subscription_cancelled": {
      if (!item.subscriptionId) return null;
      const { subscription } = await api.getSubscription({ id: item.subscriptionId });
      const who = subscription.customerName || subscription.customerEmail;
      const what = `${who} · ${subscription.productName}`;
      return item.eventName === "subscription_cancelled"
        ? { kind: "subscriptionCancelled", title: "Subscription cancelled", body: what, route: paths.subscription(subscription.id) }
        : { kind: "paymentFailed", title: "Subscription payment failed", body: what, route: paths.subscription(subscription.id) };
    }
    case "order_refunded": {
      if (!item.orderId || isOwnRefund(item.orderId)) return null;
      const { order } = await api.getOrder({ id: item.orderId });
      const number = order.orderNumber ? `#${order.orderNumber}` : order.orderId;
      const body = `${formatMoney(order.refundedAmount, order.currency)} refunded in all · ${order.email}`;
      return { kind: "refund", title: `Refund made on order ${number}`, body, route: paths.order(order.id) };
    }
    case "subscription_payment_refunded": {
      if (!item.subscriptionId || isOwnRefund(item.resourceId)) return null;
      return { kind: "refund", title: "Refund of a subscription payment", body: "A renewal was refunded.", route: paths.subscription(item.subscriptionId) };
    }
    default:
      return null;
  }
}

/** Tells the signed-in person, through the operating system, of what they asked to hear about
 *  as webhooks apply it; a click on a notification opens its screen here. Deliveries missed
 *  while away are summed up in one notification, not replayed. Returns the last thing told, as
 *  a sentence, for the window's live region: a screen reader says it too, where the person is. */
export function useDesktopNotifications(user: User): string {
  const [, navigate] = useLocation();
  const [told, setTold] = useState("");
  useEffect(() => {
    let late = 0;
    let flush: ReturnType<typeof setTimeout> | undefined;
    const tell = (notice: Notice) => {
      if (!loadNotificationSettings(user)[notice.kind]) return;
      setTold(`${notice.title}. ${notice.body}`);
      void api.showNotification({ title: notice.title, body: notice.body, route: notice.route }).catch(() => undefined);
    };
    const stopFeed = listen<FeedItem>("webhook", ({ payload }) => {
      const kind = kindOf(payload);
      if (!kind || !loadNotificationSettings(user)[kind]) return;
      if (Date.now() - Date.parse(payload.at) > LATE_AFTER_MS) {
        late += 1;
        clearTimeout(flush);
        flush = setTimeout(() => {
          const body = "They are in the lists now; the Webhooks screen has each one.";
          const title = `${late} payment events while Staffroom was away`;
          setTold(`${title}. ${body}`);
          void api.showNotification({ title, body, route: "/webhooks" }).catch(() => undefined);
          late = 0;
        }, 3_000);
        return;
      }
      void noticeOf(payload).then((notice) => notice && tell(notice), () => undefined);
    });
    const stopOpen = listen<string>("open-item", ({ payload }) => navigate(payload));
    return () => {
      clearTimeout(flush);
      void stopFeed.then((unlisten) => unlisten());
      void stopOpen.then((unlisten) => unlisten());
    };
  }, [user, navigate]);
  return told;
}

/** The switches, kept as they are changed. */
export function useNotificationSettings(user: User): [NotificationSettings, (kind: NotificationKind, on: boolean) => void] {
  const [settings, setSettings] = useState(() => loadNotificationSettings(user));
  const change = (kind: NotificationKind, on: boolean) => {
    const next = { ...settings, [kind]: on };
    saveNotificationSettings(user, next);
    setSettings(next);
  };
  return [settings, change];
}
