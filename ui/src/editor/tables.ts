import { Fragment, Slice, type Node } from "prosemirror-model";
import { keymap } from "prosemirror-keymap";
import type { EditorView } from "prosemirror-view";
import { goToNextCell, isInTable, tableEditing } from "prosemirror-tables";
import { schema } from "./schema";

/** Cell selection, and Tab / Shift+Tab from cell to cell (before the list keys: a cell holds
 *  no list). */
export const tablePlugins = [tableEditing(), keymap({ Tab: goToNextCell(1), "Shift-Tab": goToNextCell(-1) })];

const TABLE_PARTS = new Set(["table", "table_row", "table_cell", "table_header"]);

/** Pasted cells go into the table the caret is in (prosemirror-tables fits them); a table pasted
 *  anywhere else arrives as its cells' paragraphs, since Staffroom adds no new table to a
 *  document. */
export function pasteTablesAsText(slice: Slice, view: EditorView): Slice {
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
