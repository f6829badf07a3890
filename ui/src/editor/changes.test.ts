import { describe, expect, it } from "vitest";
import { toDoc } from "./convert";
import type { EditBlock } from "../types";
import { changedWithinOneBlock } from "./changes";

const p = (text: string): EditBlock => ({ kind: "paragraph", text, style: "NORMAL_TEXT", runs: text ? [{ len: text.length }] : [] });

describe("a change within one block", () => {
  const before = toDoc([p("One"), { kind: "table", startIndex: 9, columns: [0], rows: [{ from: 0, cells: [[p("cell")]] }] }, p("Two")]);

  it("is typing inside a paragraph or a cell, not a split, a join or a new look", () => {
    const typed = before.replace(2, 2, toDoc([p("x")]).slice(1, 2));
    expect(changedWithinOneBlock(before, typed)).toBe(true);
    expect(changedWithinOneBlock(before, before)).toBe(true);
    // Inside the table's only cell: 1 (into "One") + 3 + 1 + table, row, cell, paragraph.
    const cellText = before.resolve(before.child(0).nodeSize + 4).pos;
    const inCell = before.replace(cellText, cellText, toDoc([p("y")]).slice(1, 2));
    expect(changedWithinOneBlock(before, inCell)).toBe(true);
    const split = toDoc([p("O"), p("ne"), { kind: "table", startIndex: 9, columns: [0], rows: [{ from: 0, cells: [[p("cell")]] }] }, p("Two")]);
    expect(changedWithinOneBlock(before, split)).toBe(false);
    const listed = toDoc([{ ...p("One"), list: { id: "l", kind: "bullet", level: 0 } } as EditBlock, { kind: "table", startIndex: 9, columns: [0], rows: [{ from: 0, cells: [[p("cell")]] }] }, p("Two")]);
    expect(changedWithinOneBlock(before, listed)).toBe(false);
  });
});
