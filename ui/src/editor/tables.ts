import { Fragment, Slice, type Node } from "prosemirror-model";
import { keymap } from "prosemirror-keymap";
import { TextSelection, type Command } from "prosemirror-state";
import type { EditorView } from "prosemirror-view";
import { goToNextCell, isInTable, tableEditing } from "prosemirror-tables";
import { blockAfter, unwrapChunks } from "./chunks";
import { schema } from "./schema";

/** Cell selection, and Tab / Shift+Tab from cell to cell (before the list keys: a cell holds
 *  no list). */
export const tablePlugins = [tableEditing(), keymap({ Tab: goToNextCell(1), "Shift-Tab": goToNextCell(-1) })];

const TABLE_PARTS = new Set(["table", "table_row", "table_cell", "table_header"]);

/** Pasted cells go into the table the caret is in (prosemirror-tables fits them); a table pasted
 *  anywhere else arrives as its cells' paragraphs, since Staffroom adds no new table to a
 *  document. */
export function pasteTablesAsText(pasted: Slice, view: EditorView): Slice {
  const slice = unwrapChunks(pasted);
  const parts: Node[] = [];
  slice.content.forEach((node) => parts.push(node));
  if (parts.length > 0 && parts.every((node) => TABLE_PARTS.has(node.type.name)) && isInTable(view.state)) return slice;
  if (!parts.some((node) => TABLE_PARTS.has(node.type.name))) return slice;
  const flat: Node[] = [];
  for (const node of parts) {
    if (!TABLE_PARTS.has(node.type.name)) {
      flat.push(node);
      continue;
    }
    node.descendants((child) => {
      if (child.type === schema.nodes.paragraph) flat.push(child);
      return !child.isTextblock;
    });
  }
  return new Slice(Fragment.from(flat), 0, 0);
}

/** A new two-by-two table after the paragraph holding the caret (not inside a table), with a
 *  paragraph after it when none follows; the caret goes to its first cell. */
export const insertTable: Command = (state, dispatch) => {
  const { $from } = state.selection;
  // A paragraph of a chunk, not of a cell (see `chunks.ts`).
  if ($from.depth !== 2 || $from.parent.type !== schema.nodes.paragraph) return false;
  if (dispatch) {
    const cell = () => schema.nodes.table_cell.create(null, schema.nodes.paragraph.create());
    const row = () => schema.nodes.table_row.create(null, [cell(), cell()]);
    const table = schema.nodes.table.create(null, [row(), row()]);
    const after = $from.after(2);
    const next = blockAfter(state.doc, after);
    const nodes = next?.type === schema.nodes.paragraph ? [table] : [table, schema.nodes.paragraph.create()];
    const tr = state.tr.insert(after, nodes);
    // Into the table, its first row, its first cell, that cell's paragraph.
    tr.setSelection(TextSelection.create(tr.doc, after + 4));
    dispatch(tr.scrollIntoView());
  }
  return true;
};
