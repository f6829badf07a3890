import type { Node } from "prosemirror-model";

/** Whether `after` differs from `before` only inside one top-level block that keeps its type and
 *  attributes: the case of nearly every keystroke, in which the document's structure (its fixed
 *  parts, tables and lists) cannot have changed. Comparing stops at the first and last changed
 *  block (unchanged blocks are the same objects), so a large document costs nothing more. */
export function changedWithinOneBlock(before: Node, after: Node): boolean {
  if (before.childCount !== after.childCount) return false;
  const start = before.content.findDiffStart(after.content);
  if (start === null) return true;
  const end = before.content.findDiffEnd(after.content);
  if (!end) return false;
  const index = (doc: Node, pos: number) => doc.resolve(Math.min(pos, doc.content.size)).index(0);
  const i = index(before, start);
  if (i !== index(before, Math.max(start, end.a - 1)) || i !== index(after, start) || i !== index(after, Math.max(start, end.b - 1))) {
    return false;
  }
  const a = before.child(i);
  const b = after.child(i);
  return a.sameMarkup(b);
}
