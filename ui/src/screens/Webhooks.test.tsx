import { describe, expect, it } from "vitest";
import { screen, waitFor } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { emit } from "@tauri-apps/api/event";
import { Webhooks } from "./Webhooks";
import { mockCommands, renderWithQuery } from "../test/render";
import type { InboxEntry } from "../types";

const admin = { id: "u1", email: "ada@example.com", name: "Ada", role: "admin" as const, disabled: false, locked: false };
const staff = { ...admin, role: "staff" as const };
const entry = (id: number, eventName: string): InboxEntry => ({
  id,
  eventName,
  resourceType: "orders",
  resourceId: "9001",
  verified: true,
  receivedAt: "2026-11-22T10:00:00Z",
  appliedAt: "2026-11-22T10:00:00Z",
  outcome: "applied",
  orderId: "o1",
  subscriptionId: null,
});

describe("Webhooks", () => {
  it("hides this app's receiver switch when a team server receives", async () => {
    const calls = mockCommands({ webhook_events: () => ({ events: [] }) });
    renderWithQuery(<Webhooks user={{ id: "u1", email: "a@b.co", name: "A", role: "admin", disabled: false, locked: false }} teamServer="https://staff.example.com" />);
    expect(await screen.findByText("https://staff.example.com/api/payments/webhooks")).toBeInTheDocument();
    expect(screen.queryByRole("button", { name: "Switch on" })).toBeNull();
    expect(calls.map((c) => c.cmd)).not.toContain("webhook_receiver");
  });

  it("shows loading, then an empty feed with the receiver's address", async () => {
    mockCommands({
      webhook_receiver: () => ({ running: true, url: "http://127.0.0.1:8787/api/payments/webhooks", hasSecret: true, secretProblem: null }),
      webhook_events: () => ({ receiving: true, events: [] }),
    });
    renderWithQuery(<Webhooks user={admin} />);
    expect(screen.getByText("Checking the receiver…")).toBeInTheDocument();
    expect(await screen.findByText("http://127.0.0.1:8787/api/payments/webhooks")).toBeInTheDocument();
    expect(await screen.findByText(/No deliveries yet/)).toBeInTheDocument();
    expect(screen.getByRole("button", { name: "Switch off" })).toBeInTheDocument();
  });

  it("refreshes the feed the moment a delivery arrives", async () => {
    let stored: InboxEntry[] = [entry(1, "order_created")];
    mockCommands({
      webhook_receiver: () => ({ running: true, url: "http://127.0.0.1:1/api/payments/webhooks", hasSecret: true, secretProblem: null }),
      webhook_events: () => ({ receiving: true, events: stored }),
    });
    renderWithQuery(<Webhooks user={admin} />);
    expect(await screen.findByText("order_created")).toBeInTheDocument();
    stored = [entry(2, "subscription_created"), ...stored];
    await emit("webhook", { kind: "applied" });
    expect(await screen.findByText("subscription_created")).toBeInTheDocument();
  });

  it("says how many deliveries were refused, from the summary in the live events", async () => {
    mockCommands({
      webhook_receiver: () => ({ running: true, url: "http://127.0.0.1:1/api/payments/webhooks", hasSecret: true, secretProblem: null }),
      webhook_events: () => ({ receiving: true, events: [] }),
    });
    renderWithQuery(<Webhooks user={admin} />);
    expect(await screen.findByText(/No deliveries yet/)).toBeInTheDocument();
    expect(screen.queryByRole("status", { name: "Refused deliveries" })).toBeNull();
    await emit("webhook", { kind: "refused", at: "2026-11-25T10:00:00Z", verified: false, outcome: "37 deliveries refused in the last minute: bad signature" });
    const notice = await screen.findByRole("status", { name: "Refused deliveries" });
    expect(notice).toHaveTextContent("37 deliveries refused in the last minute: bad signature");
    expect(notice).toHaveTextContent("signing secret");
  });

  it("lets an admin switch the receiver on at a port, and explains a failure", async () => {
    const calls = mockCommands({
      webhook_receiver: () => ({ running: false, url: null, hasSecret: false, secretProblem: null }),
      webhook_events: () => ({ receiving: true, events: [] }),
      set_webhook_receiver: (args) => {
        if (args.port === 1) throw { code: "invalid_request", message: "port: cannot listen on 127.0.0.1:1: permission denied" };
        return { running: true, url: `http://127.0.0.1:${args.port}/api/payments/webhooks`, hasSecret: false, secretProblem: null };
      },
    });
    renderWithQuery(<Webhooks user={admin} />);
    expect(await screen.findByText(/No usable signing secret is set/)).toBeInTheDocument();
    const port = screen.getByLabelText("Port on 127.0.0.1");
    await userEvent.clear(port);
    await userEvent.type(port, "1{Enter}");
    expect(await screen.findByText(/cannot listen on 127.0.0.1:1/)).toBeInTheDocument();
    await userEvent.clear(port);
    await userEvent.type(port, "9000{Enter}");
    expect(await screen.findByText("http://127.0.0.1:9000/api/payments/webhooks")).toBeInTheDocument();
    expect(calls.filter((c) => c.cmd === "set_webhook_receiver").map((c) => c.args)).toEqual([
      { enabled: true, port: 1 },
      { enabled: true, port: 9000 },
    ]);
  });

  it("does not offer the switch to staff, and shows errors as sentences", async () => {
    mockCommands({
      webhook_receiver: () => ({ running: false, url: null, hasSecret: true, secretProblem: null }),
      webhook_events: () => {
        throw { code: "unauthorized", message: "Your session has ended; sign in again" };
      },
    });
    renderWithQuery(<Webhooks user={staff} />);
    expect(await screen.findByText("Only an admin can switch the receiver.")).toBeInTheDocument();
    await waitFor(() => expect(screen.getByRole("alert")).toHaveTextContent("Your session has ended; sign in again (unauthorized)"));
  });
});
