import { describe, expect, it } from "vitest";
import type { Node } from "prosemirror-model";
import { EditorState } from "prosemirror-state";
import { toDoc } from "./convert";
import type { EditBlock } from "../types";
import { changedWithinOneBlock } from "./changes";
import { blocksOf, CHUNK_SIZE } from "./chunks";

const p = (text: string): EditBlock => ({ kind: "paragraph", text, style: "NORMAL_TEXT", runs: text ? [{ len: text.length }] : [] });

/** Where the text `text` starts in `doc`. */
function at(doc: Node, text: string): number {
  let found = -1;
  doc.descendants((node, pos) => {
    if (found < 0 && node.isText && node.text?.includes(text)) found = pos + node.text.indexOf(text);
    return found < 0;
  });
  return found;
}

/** `doc` with `text` typed at `pos`. */
const typed = (doc: Node, pos: number, text: string) => doc.replace(pos, pos, toDoc([p(text)]).slice(2, 2 + text.length));

describe("a change within one block", () => {
  const table: EditBlock = { kind: "table", startIndex: 9, columns: [0], rows: [{ from: 0, cells: [[p("cell")]] }] };
  const before = toDoc([p("One"), table, p("Two")]);

  it("is typing inside a paragraph or a cell, not a split, a join or a new look", () => {
    expect(changedWithinOneBlock(before, typed(before, at(before, "One") + 1, "x"))).toBe(true);
    expect(changedWithinOneBlock(before, before)).toBe(true);
    expect(changedWithinOneBlock(before, typed(before, at(before, "cell"), "y"))).toBe(true);
    const split = toDoc([p("O"), p("ne"), table, p("Two")]);
    expect(changedWithinOneBlock(before, split)).toBe(false);
    const listed = toDoc([{ ...p("One"), list: { id: "l", kind: "bullet", level: 0 } } as EditBlock, table, p("Two")]);
    expect(changedWithinOneBlock(before, listed)).toBe(false);
  });

  it("is found in a long document's later chunks too, and a join across two chunks is not one", () => {
    const blocks = Array.from({ length: CHUNK_SIZE * 2 + 3 }, (_, i) => p(`Paragraph ${i}.`));
    const long = toDoc(blocks);
    expect(long.childCount).toBe(3);
    const last = `Paragraph ${CHUNK_SIZE * 2 + 2}.`;
    expect(changedWithinOneBlock(long, typed(long, at(long, last) + 3, "zz"))).toBe(true);
    // From the end of the first chunk's last paragraph to the start of the second's first.
    const end = at(long, `Paragraph ${CHUNK_SIZE - 1}.`) + `Paragraph ${CHUNK_SIZE - 1}.`.length;
    const joined = EditorState.create({ doc: long }).tr.delete(end, at(long, `Paragraph ${CHUNK_SIZE}.`)).doc;
    expect(blocksOf(joined)).toHaveLength(blocks.length - 1);
    expect(changedWithinOneBlock(long, joined)).toBe(false);
  });
});
