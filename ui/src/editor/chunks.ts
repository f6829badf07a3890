import { baseKeymap, createParagraphNear, liftEmptyBlock } from "prosemirror-commands";
import { Fragment, Slice, type Node } from "prosemirror-model";
import { EditorState, NodeSelection, Selection, TextSelection, type Command } from "prosemirror-state";
import { schema } from "./schema";

/** Blocks per chunk when a document is loaded.
 *
 *  The document's blocks are grouped in chunks (`doc > chunk > block`), which Docs knows
 *  nothing of: they exist so that a keystroke in a long document costs what it costs in a short
 *  one. Both ProseMirror's view update and WebKit's layout walk every child of the node that
 *  changed; with 5,000 blocks at the top that was about 10 ms each per keystroke, with chunks of
 *  50 about one (docs/PERFORMANCE.md). Chunks are made on loading and not split again: editing
 *  joins them at most, which keeps them correct, at worst larger. */
export const CHUNK_SIZE = 50;

/** The blocks in chunks of `CHUNK_SIZE`. */
export function chunked(blocks: Node[]): Node[] {
  const out: Node[] = [];
  for (let at = 0; at < blocks.length; at += CHUNK_SIZE) {
    out.push(schema.nodes.chunk.create(null, blocks.slice(at, at + CHUNK_SIZE)));
  }
  return out;
}

/** Calls `f` for every block (paragraph, table or fixed part) of the document, in order, with
 *  its position and its index among all blocks. */
export function forEachBlock(doc: Node, f: (node: Node, pos: number, index: number) => void): void {
  let index = 0;
  doc.forEach((chunk, chunkOffset) => {
    chunk.forEach((node, offset) => f(node, chunkOffset + 1 + offset, index++));
  });
}

/** The document's blocks, in order. */
export function blocksOf(doc: Node): Node[] {
  const out: Node[] = [];
  forEachBlock(doc, (node) => out.push(node));
  return out;
}

/** The block ending right before `pos` (a block's start), across a chunk's edge. */
export function blockBefore(doc: Node, pos: number): Node | null {
  const $pos = doc.resolve(pos);
  if ($pos.nodeBefore) return $pos.nodeBefore;
  // The first block of its chunk: the last block of the chunk before.
  return $pos.depth === 1 && $pos.index(0) > 0 ? doc.child($pos.index(0) - 1).lastChild : null;
}

/** The block starting right after `pos` (a block's end), across a chunk's edge. */
export function blockAfter(doc: Node, pos: number): Node | null {
  const $pos = doc.resolve(pos);
  if ($pos.nodeAfter) return $pos.nodeAfter;
  return $pos.depth === 1 && $pos.index(0) + 1 < doc.childCount ? doc.child($pos.index(0) + 1).firstChild : null;
}

/** Backspace at the start of a chunk's first block, or Delete at the end of its last, joins
 *  the two chunks first, then does what the key does (`command`): to the user there are no
 *  chunks, and the paragraphs join as anywhere else. */
export function acrossChunks(command: Command, dir: -1 | 1): Command {
  return (state, dispatch) => {
    const $cursor = state.selection.empty ? state.selection.$from : null;
    if (!$cursor || $cursor.depth !== 2 || !$cursor.parent.isTextblock) return false;
    const atEdge =
      dir < 0
        ? $cursor.parentOffset === 0 && $cursor.index(1) === 0 && $cursor.index(0) > 0
        : $cursor.parentOffset === $cursor.parent.content.size &&
          $cursor.index(1) === $cursor.node(1).childCount - 1 &&
          $cursor.index(0) + 1 < state.doc.childCount;
    if (!atEdge) return false;
    const tr = state.tr.join(dir < 0 ? $cursor.before(1) : $cursor.after(1));
    // The key's command on the joined document, without the view (the edge is known from
    // positions) and without plugins; the whole transaction passes through them when dispatched.
    const joined = EditorState.create({ doc: tr.doc, selection: tr.selection });
    let done = false;
    command(joined, (inner) => {
      inner.steps.forEach((step) => tr.step(step));
      tr.setSelection(Selection.fromJSON(tr.doc, inner.selection.toJSON()));
      done = true;
    });
    if (!done) return false;
    dispatch?.(tr.scrollIntoView());
    return true;
  };
}

/** Every deleting key of ProseMirror's base keymap (Backspace, Delete and their variants, the
 *  Mac's Ctrl+H and Ctrl+D among them), made to act across a chunk's edge. */
export const chunkEdgeKeys: Record<string, Command> = (() => {
  const backward = new Set<Command>([baseKeymap.Backspace, baseKeymap["Mod-Backspace"]]);
  const forward = new Set<Command>([baseKeymap.Delete, baseKeymap["Mod-Delete"]]);
  const keys: Record<string, Command> = {};
  for (const [key, command] of Object.entries(baseKeymap)) {
    if (backward.has(command)) keys[key] = acrossChunks(command, -1);
    else if (forward.has(command)) keys[key] = acrossChunks(command, 1);
  }
  return keys;
})();

/** The base keymap's `liftEmptyBlock` (Enter in an empty block), except in a chunk's own
 *  paragraphs: there it would split the chunk instead of adding a line. */
export const liftEmptyBlockInside: Command = (state, dispatch) =>
  state.selection.$from.depth === 2 && state.selection.$from.node(1).type === schema.nodes.chunk ? false : liftEmptyBlock(state, dispatch);

/** Enter on a selected fixed part or table: a new paragraph after it (before it only at the very
 *  top of the document), as the base keymap's `createParagraphNear` does without chunks. */
export const paragraphNear: Command = (state, dispatch) => {
  const selection = state.selection;
  if (!(selection instanceof NodeSelection) || selection.$from.parent.type !== schema.nodes.chunk) return createParagraphNear(state, dispatch);
  const side = selection.from === 1 ? selection.from : selection.to;
  if (dispatch) {
    const tr = state.tr.insert(side, schema.nodes.paragraph.create());
    dispatch(tr.setSelection(TextSelection.create(tr.doc, side + 1)).scrollIntoView());
  }
  return true;
};

/** A pasted slice's chunks unwrapped: copied here, a slice holds chunks, which the paste rules
 *  (tables arrive as text) read as blocks. */
export function unwrapChunks(slice: Slice): Slice {
  let chunks = false;
  const blocks: Node[] = [];
  slice.content.forEach((node) => {
    if (node.type === schema.nodes.chunk) {
      chunks = true;
      node.forEach((child) => blocks.push(child));
    } else {
      blocks.push(node);
    }
  });
  if (!chunks) return slice;
  return new Slice(Fragment.from(blocks), Math.max(0, slice.openStart - 1), Math.max(0, slice.openEnd - 1));
}
