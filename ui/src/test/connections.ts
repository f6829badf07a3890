// What `connections` answers, for screens' tests: a healthy pair by default.
import type { Connections } from "../types";

export function connectionsView(change: (c: Connections) => void = () => {}): Connections {
  const view: Connections = {
    lemonSqueezy: {
      state: "connected",
      account: { name: "Ada Owner", email: "ada@example.com" },
      store: { id: "1", name: "Ada's Shop", currency: "EUR", testMode: false },
      webhook: {
        id: "7",
        url: "https://staff.example.com/api/payments/webhooks",
        events: ["order_created"],
        lastSentAt: "2026-11-28T10:00:00Z",
      },
      lastDeliveryAt: "2026-11-28T10:00:01Z",
      lastSyncAt: "2026-11-28T09:55:00Z",
      problems: [],
    },
    google: {
      state: "connected",
      account: { email: "ada@example.com" },
      scopes: ["https://www.googleapis.com/auth/documents", "https://www.googleapis.com/auth/drive"],
      missingScopes: [],
      problems: [],
    },
  };
  change(view);
  return view;
}
