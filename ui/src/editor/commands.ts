import { baseKeymap, chainCommands, splitBlockAs, toggleMark } from "prosemirror-commands";
import { redo, undo } from "prosemirror-history";
import { keymap } from "prosemirror-keymap";
import type { MarkType, Node } from "prosemirror-model";
import { Plugin, type Command, type EditorState } from "prosemirror-state";
import { indentList, insertTab, liftListItem, splitListItem, toggleList } from "./lists";
import { changedWithinOneBlock } from "./changes";
import { blocksOf, chunkEdgeKeys, forEachBlock, liftEmptyBlockInside, paragraphNear } from "./chunks";
import type { Alignment, NamedStyle } from "../types";
import { RELABEL } from "./convert";
import { ALIGNMENTS, schema } from "./schema";

/** Sets one attribute of every paragraph the selection touches (each range of it: a cell
 *  selection is one range a cell), into tables' cells. */
function setParagraphAttr(name: "style" | "alignment", value: string): Command {
  return (state, dispatch) => {
    const tr = state.tr;
    for (const { $from, $to } of state.selection.ranges) {
      state.doc.nodesBetween($from.pos, $to.pos, (node, pos) => {
        if (node.type === schema.nodes.paragraph && node.attrs[name] !== value) tr.setNodeAttribute(pos, name, value);
        // Into tables and their cells, not into paragraphs.
        return !node.isTextblock;
      });
    }
    if (!tr.docChanged) return false;
    dispatch?.(tr);
    return true;
  };
}

/** Gives every paragraph the selection touches the named style (TITLE, HEADING_2, …). */
export const setParagraphStyle = (style: string): Command => setParagraphAttr("style", style);

/** Aligns every paragraph the selection touches. */
export const setAlignment = (alignment: Alignment): Command => setParagraphAttr("alignment", alignment);

/** The first paragraph the selection touches (the one holding the caret, or a selected cell's),
 *  or null on a fixed part. */
function paragraphAt(state: EditorState): Node | null {
  const parent = state.selection.$from.parent;
  if (parent.type === schema.nodes.paragraph) return parent;
  let found: Node | null = null;
  state.doc.nodesBetween(state.selection.from, state.selection.to, (node) => {
    if (!found && node.type === schema.nodes.paragraph) found = node;
    return !found;
  });
  return found;
}

/** The named style of the paragraph holding the selection's start (null on a fixed part). */
export function paragraphStyle(state: EditorState): string | null {
  return (paragraphAt(state)?.attrs.style as string | undefined) ?? null;
}

/** The alignment of the paragraph holding the selection's start (null on a fixed part): its
 *  own, or else its named style's in this document (`styles`), or else START. */
export function paragraphAlignment(state: EditorState, styles: NamedStyle[] = []): Alignment | null {
  const paragraph = paragraphAt(state);
  if (!paragraph) return null;
  const own = paragraph.attrs.alignment as Alignment | null;
  return own ?? styles.find((s) => s.id === paragraph.attrs.style)?.alignment ?? "START";
}

/** The CSS that draws each named style as this document defines it: its alignment (a
 *  paragraph's own, inline, wins), its size next to normal text's, its weight and slant. */
export function namedStyleCss(styles: NamedStyle[]): string {
  const normal = styles.find((s) => s.id === "NORMAL_TEXT")?.fontSize;
  return styles
    .map((s) => {
      const rules: string[] = [];
      if (s.alignment) rules.push(`text-align: ${ALIGNMENTS[s.alignment]}`);
      if (s.fontSize && normal && s.id !== "NORMAL_TEXT") rules.push(`font-size: ${(s.fontSize / normal).toFixed(3)}em`);
      if (s.bold !== undefined) rules.push(`font-weight: ${s.bold ? 700 : 400}`);
      if (s.italic !== undefined) rules.push(`font-style: ${s.italic ? "italic" : "normal"}`);
      return rules.length > 0 ? `.page .para-${s.id} { ${rules.join("; ")} }` : "";
    })
    .filter((rule) => rule !== "")
    .join("\n");
}

/** Whether the mark is on at the selection: on all of a range, or where typing would go. */
export function isActive(state: EditorState, type: MarkType): boolean {
  const { from, to, empty, $from } = state.selection;
  if (empty) return Boolean(type.isInSet(state.storedMarks ?? $from.marks()));
  return state.doc.rangeHasMark(from, to, type);
}

/** The link at the selection's start: its URL and the stretch it runs over, or null. */
export function linkAt(state: EditorState): { href: string; from: number; to: number } | null {
  const { $from } = state.selection;
  const type = schema.marks.link;
  const mark = type.isInSet($from.marks()) ?? type.isInSet($from.nodeAfter?.marks ?? []);
  if (!mark) return null;
  // The paragraph's pieces; a link is the run of neighbouring pieces carrying it (a bold word
  // inside a link is a piece of its own).
  const spans: { from: number; to: number; linked: boolean }[] = [];
  let at = $from.start();
  $from.parent.forEach((child: Node) => {
    spans.push({ from: at, to: at + child.nodeSize, linked: mark.isInSet(child.marks) !== undefined });
    at += child.nodeSize;
  });
  let first = spans.findIndex((s) => s.linked && s.from <= $from.pos && $from.pos <= s.to);
  if (first < 0) return null;
  let last = first;
  while (first > 0 && spans[first - 1].linked) first--;
  while (last < spans.length - 1 && spans[last + 1].linked) last++;
  return { href: mark.attrs.href as string, from: spans[first].from, to: spans[last].to };
}

/** Links `href` over the selection, or over the link under the caret, underlined as Google Docs
 *  does; `null` removes the link and its underline. */
export function setLink(href: string | null): Command {
  return (state, dispatch) => {
    const { empty } = state.selection;
    const existing = empty ? linkAt(state) : null;
    const from = existing?.from ?? state.selection.from;
    const to = existing?.to ?? state.selection.to;
    if (from === to) return false;
    const tr = state.tr.removeMark(from, to, schema.marks.link).removeMark(from, to, schema.marks.underline);
    if (href) {
      tr.addMark(from, to, schema.marks.link.create({ href })).addMark(from, to, schema.marks.underline.create());
    }
    dispatch?.(tr.scrollIntoView());
    return true;
  };
}

/** A line break inside the paragraph (Shift+Enter), as Google Docs makes it. */
export const insertSoftBreak: Command = (state, dispatch) => {
  const node = schema.nodes.soft_break.create(null, null, state.storedMarks ?? state.selection.$from.marks());
  dispatch?.(state.tr.replaceSelectionWith(node, true).scrollIntoView());
  return true;
};

/** The document's shape the planner relies on: the fixed parts and tables, in order, with text
 *  between them exactly where there was text ("P F P T P"). */
function shape(doc: Node): string {
  let out = "";
  forEachBlock(doc, (node) => {
    const isNewTable = node.type === schema.nodes.table && node.attrs.startIndex === null;
    const piece =
      node.type === schema.nodes.fixed
        ? `F${node.attrs.startIndex as number} `
        : node.type === schema.nodes.table && !isNewTable
          ? `T${node.attrs.startIndex as number} `
          : "P ";
    if (!(piece === "P " && out.endsWith("P "))) out += piece;
  });
  return out;
}

/** Whether every table added here has a paragraph right before and right after it (Docs puts a
 *  new table inside a paragraph, which it splits). */
function newTablesFramed(doc: Node): boolean {
  const blocks = blocksOf(doc);
  const paragraph = (n: Node | undefined) => n?.type === schema.nodes.paragraph;
  return blocks.every(
    (node, i) => node.type !== schema.nodes.table || node.attrs.startIndex !== null || (paragraph(blocks[i - 1]) && paragraph(blocks[i + 1])),
  );
}

/** Refuses any edit that would remove, move or copy a fixed part or a table of the document, or
 *  join the text around it (a table's rows, columns and cells change inside it); a table added
 *  here keeps a paragraph on either side. */
export const keepStructure = new Plugin({
  filterTransaction: (tr, state) =>
    !tr.docChanged ||
    tr.getMeta(RELABEL) === true ||
    changedWithinOneBlock(state.doc, tr.doc) ||
    (shape(tr.doc) === shape(state.doc) && newTablesFramed(tr.doc)),
});

/** URLs a link may take: the web and e-mail. */
export function normalizeUrl(typed: string): string | null {
  const url = typed.trim();
  if (!url || /\s/.test(url)) return null;
  if (/^(https?:|mailto:)/i.test(url)) return url;
  if (/^[^@\s]+@[^@\s]+\.[^@\s]+$/.test(url)) return `mailto:${url}`;
  if (/^[\w-]+(\.[\w-]+)+(\/\S*)?$/.test(url)) return `https://${url}`;
  return null;
}

/** Enter at a paragraph's end: the next one is normal text aligned as this one (as in Docs); in
 *  the middle, both halves keep everything. */
const splitParagraph = splitBlockAs((node, atEnd) =>
  atEnd && node.type === schema.nodes.paragraph ? { type: schema.nodes.paragraph, attrs: { alignment: node.attrs.alignment as Alignment | null } } : null,
);

/** Enter: a list item continues its list; otherwise the base keymap's Enter, read through chunks. */
export const enter: Command = chainCommands(splitListItem, paragraphNear, liftEmptyBlockInside, splitParagraph);

/** Google Docs' own shortcuts, then the usual editing keys. Ctrl+S and Ctrl+K are the window's. */
export function editingKeys(actions: { save: () => void; link: () => void }): Plugin[] {
  const run = (action: () => void): Command => () => {
    action();
    return true;
  };
  const styles: Record<string, Command> = {
    "Mod-Alt-0": setParagraphStyle("NORMAL_TEXT"),
    "Mod-Shift-l": setAlignment("START"),
    "Mod-Shift-e": setAlignment("CENTER"),
    "Mod-Shift-r": setAlignment("END"),
    "Mod-Shift-j": setAlignment("JUSTIFIED"),
  };
  for (let n = 1; n <= 6; n++) styles[`Mod-Alt-${n}`] = setParagraphStyle(`HEADING_${n}`);
  return [
    keymap({
      "Mod-b": toggleMark(schema.marks.bold),
      "Mod-i": toggleMark(schema.marks.italic),
      "Mod-u": toggleMark(schema.marks.underline),
      "Alt-Shift-5": toggleMark(schema.marks.strikethrough),
      "Mod-z": undo,
      "Mod-Shift-z": redo,
      "Mod-y": redo,
      "Shift-Enter": insertSoftBreak,
      "Mod-s": run(actions.save),
      "Mod-k": run(actions.link),
      "Mod-Shift-8": toggleList("bullet"),
      "Mod-Shift-7": toggleList("number"),
      Tab: chainCommands(indentList(1), insertTab),
      "Shift-Tab": indentList(-1),
      Enter: enter,
      Backspace: liftListItem,
      ...styles,
    }),
    // Chunks are invisible: at a chunk's edge, Backspace and Delete act as anywhere else.
    keymap(chunkEdgeKeys),
    keymap(baseKeymap),
  ];
}
