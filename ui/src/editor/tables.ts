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

/** Pasted cells go into the table the caret is in (prosemirror-tables fits them), without
 *  merges or list items, which a cell here cannot hold; a table pasted anywhere else arrives as
 *  its cells' paragraphs (tables are added with Insert table). */
export function pasteTablesAsText(pasted: Slice, view: EditorView): Slice {
  const inTable = isInTable(view.state);
  const unwrapped = unwrapChunks(pasted);
  const slice = inTable ? new Slice(fitForCells(unwrapped.content), unwrapped.openStart, unwrapped.openEnd) : unwrapped;
  const parts: Node[] = [];
  slice.content.forEach((node) => parts.push(node));
  if (parts.length > 0 && parts.every((node) => TABLE_PARTS.has(node.type.name)) && inTable) return slice;
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

/** Pasted content as a table here holds it: each merged cell a single one (the planner edits
 *  plain grids; prosemirror-tables pads the rows it leaves short) and each list item a plain
 *  paragraph (a cell's paragraphs are never list items, which the save would drop silently). */
function fitForCells(content: Fragment): Fragment {
  const nodes: Node[] = [];
  content.forEach((node) => nodes.push(fitForCell(node)));
  return nodes.every((node, i) => node === content.child(i)) ? content : Fragment.from(nodes);
}

/** One node of `fitForCells`: itself when it needs no change. */
function fitForCell(node: Node): Node {
  if (node.type === schema.nodes.paragraph) {
    return node.attrs.listKind ? node.type.create({ ...node.attrs, listId: null, listKind: null, level: 0 }, node.content, node.marks) : node;
  }
  if (node.isLeaf || node.isTextblock) return node;
  const merged = TABLE_PARTS.has(node.type.name) && (node.attrs.colspan > 1 || node.attrs.rowspan > 1);
  const content = fitForCells(node.content);
  if (!merged && content === node.content) return node;
  return node.type.create(merged ? { ...node.attrs, colspan: 1, rowspan: 1, colwidth: null } : node.attrs, content, node.marks);
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
