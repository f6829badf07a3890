import { describe, expect, it } from "vitest";
import { screen } from "@testing-library/react";
import { ConnectionAlert } from "./ConnectionAlert";
import { mockCommands, renderWithQuery } from "../test/render";
import { connectionsView } from "../test/connections";
import type { User } from "../types";

const admin: User = { id: "u1", email: "ada@example.com", name: "Ada", role: "admin", disabled: false, locked: false };
const staff: User = { ...admin, role: "staff" };

describe("The Overview's connection alert", () => {
  it("tells admins what is broken and where the fix is", async () => {
    mockCommands({
      connections: () =>
        connectionsView((c) => {
          c.lemonSqueezy.state = "refused";
          c.lemonSqueezy.problems = [{ code: "key_refused", message: "Lemon Squeezy refuses the API key", fix: "Make a new key" }];
        }),
    });
    renderWithQuery(<ConnectionAlert user={admin} />);
    expect(await screen.findByRole("region", { name: "A connection needs attention" })).toHaveTextContent("Lemon Squeezy refuses the API key.");
    expect(screen.getByRole("link", { name: "Open Connections" })).toHaveAttribute("href", "/settings");
  });

  it("says nothing when all is well, and never asks for staff", async () => {
    const calls = mockCommands({ connections: () => connectionsView() });
    const { container, unmount } = renderWithQuery(<ConnectionAlert user={admin} />);
    await new Promise((r) => setTimeout(r, 50));
    expect(container).toBeEmptyDOMElement();
    unmount();
    calls.length = 0;
    renderWithQuery(<ConnectionAlert user={staff} />);
    await new Promise((r) => setTimeout(r, 50));
    expect(calls.map((c) => c.cmd)).not.toContain("connections");
  });
});
