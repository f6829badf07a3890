import type { Node } from "prosemirror-model";

/** Whether `after` differs from `before` only inside one block that keeps its type and
 *  attributes: the case of nearly every keystroke, in which the document's structure (its fixed
 *  parts, tables and lists) cannot have changed. Comparing stops at the first and last changed
 *  block (unchanged blocks are the same objects), so a large document costs nothing more. */
export function changedWithinOneBlock(before: Node, after: Node): boolean {
  // The one chunk that changed (see `chunks.ts`), then the one block in it.
  const chunk = changedChild(before, after);
  if (chunk === null || chunk === "same") return chunk === "same";
  const block = changedChild(chunk[0], chunk[1]);
  return block === "same" || (block !== null && block[0].sameMarkup(block[1]));
}

/** The one child of `before` that `after` changed, both versions; "same" when nothing changed;
 *  null when more than one child changed, or one was added or removed. */
function changedChild(before: Node, after: Node): [Node, Node] | "same" | null {
  if (before.childCount !== after.childCount) return null;
  const start = before.content.findDiffStart(after.content);
  if (start === null) return "same";
  const end = before.content.findDiffEnd(after.content);
  if (!end) return null;
  const index = (node: Node, pos: number) => node.resolve(Math.min(pos, node.content.size)).index(0);
  const i = index(before, start);
  if (i !== index(before, Math.max(start, end.a - 1)) || i !== index(after, start) || i !== index(after, Math.max(start, end.b - 1))) {
    return null;
  }
  return [before.child(i), after.child(i)];
}
