import { describe, expect, it } from "vitest";
import { render } from "@testing-library/react";
import { Router } from "wouter";
import { auditSentence, exportedRows } from "./audit";
import type { AuditEntry } from "./types";

describe("the audit log in words", () => {
  it("says what an export held: how many, of which list, for which filters", () => {
    expect(exportedRows("orders", { rows: 212, filters: { status: "refunded" } })).toBe("212 refunded orders");
    expect(exportedRows("orders", { rows: 1573, filters: { search: "zoë", from: "2026-01-01" } })).toBe("1,573 orders matching “zoë”, from 2026-01-01");
    expect(exportedRows("license-keys", { rows: 1, filters: {} })).toBe("1 licence key");
    expect(exportedRows("subscriptions", { rows: 3, filters: { status: "past_due" } })).toBe("3 past due subscriptions");
    const entry = { id: 1, at: "2026-11-28T10:00:00Z", actor: "ada@example.com", action: "payments.export", target: "orders", outcome: "success", detail: JSON.stringify({ rows: 212, filters: { status: "refunded" } }) } as unknown as AuditEntry;
    const { container } = render(<Router>{auditSentence(entry, () => "Ada")}</Router>);
    expect(container).toHaveTextContent("Ada exported 212 refunded orders");
  });

  it("says what was made from which template", () => {
    const entry = { id: 2, at: "2026-11-28T10:00:00Z", actor: "bo@example.com", action: "docs.from_template", target: "doc9", outcome: "success", detail: JSON.stringify({ name: "Welcome — Zoë Martin", template: "Welcome letter" }) } as unknown as AuditEntry;
    const { container } = render(<Router>{auditSentence(entry, () => "Bo")}</Router>);
    expect(container).toHaveTextContent("Bo made “Welcome — Zoë Martin” from “Welcome letter”");
  });
});
