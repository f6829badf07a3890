import { describe, expect, it } from "vitest";
import { EditorState, TextSelection, type Command } from "prosemirror-state";
import { Fragment, Slice } from "prosemirror-model";
import { addColumnBefore, addRowAfter, addRowBefore, CellSelection, deleteColumn, deleteRow } from "prosemirror-tables";
import type { EditorView } from "prosemirror-view";
import { blocksOf, forEachBlock } from "./chunks";
import { keepStructure, paragraphAlignment, setAlignment, setParagraphStyle } from "./commands";
import { fromDoc, relabel, toDoc } from "./convert";
import { listMarkers } from "./lists";
import { schema } from "./schema";
import { insertTable, pasteTablesAsText, tablePlugins } from "./tables";
import type { EditBlock } from "../types";

const cell = (text: string, style = "NORMAL_TEXT"): EditBlock[] => [
  { kind: "paragraph", text, style, alignment: "START", runs: text ? [{ len: text.length }] : [] },
];
/** A cell added here: its paragraph has no alignment of its own (it shows its style's). */
const newCell = (): EditBlock[] => [{ kind: "paragraph", text: "", style: "NORMAL_TEXT", runs: [] }];

const blocks: EditBlock[] = [
  { kind: "paragraph", text: "Figures", style: "HEADING_2", runs: [{ len: 7 }] },
  {
    kind: "table",
    startIndex: 9,
    columns: [0, 1],
    rows: [
      { from: 0, cells: [cell("Item", "HEADING_3"), cell("Units", "HEADING_3")] },
      { from: 1, cells: [cell("Coffee ☕"), cell("10")] },
    ],
  },
  { kind: "paragraph", text: "", style: "NORMAL_TEXT", runs: [] },
];

function state(from: EditBlock[] = blocks) {
  return EditorState.create({ doc: toDoc(from), plugins: [...tablePlugins, keepStructure] });
}

function apply(s: EditorState, command: Command): EditorState {
  let next = s;
  command(s, (tr) => (next = s.apply(tr)));
  return next;
}

/** The caret at the start of the text `text` (the first place it occurs). */
function caretAt(s: EditorState, text: string): EditorState {
  let at = -1;
  s.doc.descendants((node, pos) => {
    if (at < 0 && node.isText && node.text?.includes(text)) at = pos + node.text.indexOf(text);
    return at < 0;
  });
  return s.apply(s.tr.setSelection(TextSelection.create(s.doc, at)));
}

const table = (b: EditBlock[]) => b.find((x) => x.kind === "table") as Extract<EditBlock, { kind: "table" }>;

describe("tables in the editor", () => {
  it("hold the document's table: its rows, columns and cells' paragraphs", () => {
    expect(fromDoc(toDoc(blocks))).toEqual(blocks);
  });

  it("add rows and columns as new ones and remove the document's own", () => {
    let s = apply(caretAt(state(), "Coffee"), addRowAfter);
    s = apply(caretAt(s, "Units"), addColumnBefore);
    s = apply(caretAt(s, "Item"), deleteColumn);
    const t = table(fromDoc(s.doc));
    expect(t.columns).toEqual([null, 1]);
    expect(t.rows.map((r) => r.from)).toEqual([0, 1, undefined]);
    expect(t.rows[2].cells).toEqual([newCell(), newCell()]);
    s = apply(caretAt(s, "Units"), deleteRow);
    expect(table(fromDoc(s.doc)).rows.map((r) => r.from)).toEqual([1, undefined]);
  });

  it("never lose the table itself, and style a cell's paragraph like any other", () => {
    const s = state();
    // Removing the whole table, as a selection over it would, is refused.
    let tablePos = -1;
    forEachBlock(s.doc, (node, pos) => {
      if (node.type === schema.nodes.table) tablePos = pos;
    });
    const size = s.doc.nodeAt(tablePos)!.nodeSize;
    expect(s.apply(s.tr.delete(tablePos, tablePos + size)).doc.eq(s.doc)).toBe(true);
    const styled = apply(caretAt(s, "10"), setParagraphStyle("HEADING_1"));
    expect(table(fromDoc(styled.doc)).rows[1].cells[1]).toEqual(cell("10", "HEADING_1"));
  });

  it("align the cells selected, and only those, and the toolbar reads the first", () => {
    const s = state();
    // The cell holding `text`, as prosemirror-tables names a cell: the position before it.
    const cellAt = (text: string) => {
      const $caret = caretAt(s, text).selection.$from;
      return $caret.before($caret.depth - 1);
    };
    // "Units" down to "10": the second column.
    const column = s.apply(s.tr.setSelection(CellSelection.create(s.doc, cellAt("Units"), cellAt("10"))));
    expect(paragraphAlignment(column)).toBe("START");
    const aligned = apply(column, setAlignment("END"));
    const t = table(fromDoc(aligned.doc));
    const alignmentOf = (paragraphs: EditBlock[]) => (paragraphs[0].kind === "paragraph" ? paragraphs[0].alignment : null);
    expect(t.rows.map((row) => row.cells.map(alignmentOf))).toEqual([["START", "END"], ["START", "END"]]);
    expect(paragraphAlignment(aligned)).toBe("END");
  });

  it("add a new table after a paragraph, framed by paragraphs, which stays framed", () => {
    const s = apply(caretAt(state(), "Figures"), insertTable);
    const b = fromDoc(s.doc);
    // A paragraph comes between it and the document's table.
    expect(b.map((x) => x.kind)).toEqual(["paragraph", "table", "paragraph", "table", "paragraph"]);
    expect(b[1]).toEqual({ kind: "table", columns: [null, null], rows: [{ cells: [newCell(), newCell()] }, { cells: [newCell(), newCell()] }] });
    // That paragraph cannot go: the new table keeps one on either side.
    let between = -1;
    forEachBlock(s.doc, (_node, pos, i) => {
      if (i === 2) between = pos;
    });
    expect(s.apply(s.tr.delete(between, between + 2)).doc.eq(s.doc)).toBe(true);
    // Not inside a table.
    expect(insertTable(caretAt(state(), "Coffee"))).toBe(false);
  });

  it("keep their columns when a row is added above the first", () => {
    const s = apply(caretAt(state(), "Item"), addRowBefore);
    const t = table(fromDoc(s.doc));
    expect(t.columns).toEqual([0, 1]);
    expect(t.rows.map((r) => r.from)).toEqual([undefined, 0, 1]);
  });

  it("after a save, move to the saved revision's identities, with the real plugins, or refuse when it holds other text", () => {
    const plugins = [...tablePlugins, keepStructure, listMarkers];
    const typed = apply(caretAt(EditorState.create({ doc: toDoc(blocks), plugins }), "Figures"), (st, dispatch) => {
      dispatch?.(st.tr.insertText("New "));
      return true;
    });
    const saved: EditBlock[] = fromDoc(typed.doc).map((b) =>
      b.kind === "table" ? { ...b, startIndex: 13, rows: b.rows.map((r, i) => ({ ...r, from: i })) } : b,
    );
    // The service names a run's fields in its own order.
    const reordered = saved.map((b) => (b.kind === "paragraph" && b.runs ? { ...b, runs: b.runs.map(({ len, ...rest }) => ({ ...rest, len })) } : b));
    const tr = relabel(typed, reordered)!;
    const after = typed.apply(tr);
    expect(after).not.toBe(typed);
    expect(table(fromDoc(after.doc)).startIndex).toBe(13);
    // A collaborator's word in the saved revision: the editor must start again from it.
    const theirs = saved.map((b) => (b.kind === "paragraph" && b.text === "New Figures" ? { ...b, text: "New Figures!", runs: [{ len: 12 }] } : b));
    expect(relabel(typed, theirs)).toBeNull();
  });

  it("take a row or column pasted from elsewhere as new, and a table pasted outside one as text", () => {
    const s = caretAt(state(), "Figures");
    const pasted = toDoc([
      { kind: "paragraph", text: "Before", style: "NORMAL_TEXT", runs: [{ len: 6 }] },
      { kind: "table", columns: [null], rows: [{ cells: [cell("A")] }, { cells: [cell("B")] }] },
    ]);
    const slice = pasteTablesAsText(new Slice(pasted.content, 0, 0), { state: s } as EditorView);
    const texts: string[] = [];
    slice.content.forEach((node) => texts.push(node.textContent));
    expect(texts).toEqual(["Before", "A", "B"]);
    // Cells pasted into a table are left to prosemirror-tables to fit.
    // (Copied here, a slice holds the chunks the blocks are in: they are unwrapped.)
    const cells = Fragment.from(blocksOf(pasted)[1]);
    const inTable = caretAt(state(), "Coffee");
    expect(pasteTablesAsText(new Slice(cells, 0, 0), { state: inTable } as EditorView).content).toBe(cells);
    // A merged cell pasted into a table becomes a single one, and a list item a plain paragraph:
    // a cell here holds neither, and the save would refuse the one and drop the other.
    const merged = schema.nodes.table_row.create(null, [
      schema.nodes.table_cell.create({ colspan: 2 }, schema.nodes.paragraph.create({ listId: "kix.1", listKind: "bullet" }, schema.text("Wide"))),
    ]);
    const fitted = pasteTablesAsText(new Slice(Fragment.from(merged), 0, 0), { state: inTable } as EditorView);
    const wide = fitted.content.child(0).child(0);
    expect(wide.attrs.colspan).toBe(1);
    expect(wide.child(0).attrs.listKind).toBeNull();
    expect(wide.textContent).toBe("Wide");
    // Identities out of order count as new.
    const shuffled = fromDoc(toDoc([{ ...blocks[1], rows: [{ ...(table(blocks).rows[1]) }, { ...(table(blocks).rows[0]) }] } as EditBlock]));
    expect(table(shuffled).rows.map((r) => r.from)).toEqual([1, undefined]);
  });
});
