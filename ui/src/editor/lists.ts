import type { Node } from "prosemirror-model";
import { Plugin, TextSelection, type Command, type EditorState, type Transaction } from "prosemirror-state";
import { Decoration, DecorationSet } from "prosemirror-view";
import type { ListKind } from "../types";
import { changedWithinOneBlock } from "./changes";
import { RELABEL } from "./convert";
import { blockAfter, blockBefore, forEachBlock } from "./chunks";
import { schema } from "./schema";

/** Docs' deepest nesting: levels 0 to 8. */
const MAX_LEVEL = 8;

const isItem = (node: Node | null | undefined): node is Node =>
  Boolean(node && node.type === schema.nodes.paragraph && node.attrs.listKind);

/** The paragraphs the selection touches, with their positions. */
function selectedParagraphs(state: EditorState): { node: Node; pos: number }[] {
  const out: { node: Node; pos: number }[] = [];
  const { from, to } = state.selection;
  state.doc.nodesBetween(from, to, (node, pos) => {
    if (node.type === schema.nodes.paragraph) out.push({ node, pos });
    return node.type === schema.nodes.doc || node.type === schema.nodes.chunk;
  });
  return out;
}

/** The list kind of the paragraph holding the selection's start, or null. */
export function listKindAt(state: EditorState): ListKind | null {
  const parent = state.selection.$from.parent;
  return isItem(parent) ? (parent.attrs.listKind as ListKind) : null;
}

/** A fresh id for a list the editor starts (the planner has Docs make the real one). */
const newListId = () => `new.${Date.now().toString(36)}.${Math.random().toString(36).slice(2, 8)}`;

/** Makes the selected paragraphs a list of `kind`, or, when they all already are one, takes
 *  them out of it (Ctrl+Shift+8 and Ctrl+Shift+7, as in Google Docs). They join the list of that
 *  kind just before or after them; leading tabs become the nesting, as Docs makes them. */
export function toggleList(kind: ListKind): Command {
  return (state, dispatch) => {
    const paragraphs = selectedParagraphs(state);
    if (paragraphs.length === 0) return false;
    const tr = state.tr;
    if (paragraphs.every(({ node }) => node.attrs.listKind === kind)) {
      for (const { node, pos } of paragraphs) tr.setNodeMarkup(pos, undefined, { ...node.attrs, listId: null, listKind: null, level: 0 });
    } else {
      const first = paragraphs[0];
      const last = paragraphs[paragraphs.length - 1];
      const before = blockBefore(state.doc, first.pos);
      const after = blockAfter(state.doc, last.pos + last.node.nodeSize);
      const beside = [before, after].find((n) => isItem(n) && n.attrs.listKind === kind);
      const listId = (beside?.attrs.listId as string | undefined) ?? newListId();
      // From the last paragraph up, so that removing tabs moves nothing still to be done.
      for (const { node, pos } of [...paragraphs].reverse()) {
        // Tabs the paragraph's first text starts with (a soft break first means none).
        const first = node.firstChild;
        const tabs = first?.isText ? (/^\t*/.exec(first.text ?? "")?.[0].length ?? 0) : 0;
        const level = isItem(node) ? (node.attrs.level as number) : Math.min(MAX_LEVEL, tabs);
        if (tabs > 0) tr.delete(pos + 1, pos + 1 + tabs);
        tr.setNodeMarkup(pos, undefined, { ...node.attrs, listId, listKind: kind, level });
      }
    }
    dispatch?.(tr.scrollIntoView());
    return true;
  };
}

/** Nests the selected list items one level deeper (`by` 1) or shallower (-1): Tab and
 *  Shift+Tab. Outside a list it does nothing, and Tab types a tab. */
export function indentList(by: 1 | -1): Command {
  return (state, dispatch) => {
    const items = selectedParagraphs(state).filter(({ node }) => isItem(node));
    if (items.length === 0) return false;
    const tr = state.tr;
    for (const { node, pos } of items) {
      const level = Math.min(MAX_LEVEL, Math.max(0, (node.attrs.level as number) + by));
      if (level !== node.attrs.level) tr.setNodeMarkup(pos, undefined, { ...node.attrs, level });
    }
    dispatch?.(tr);
    return true;
  };
}

/** Enter in a list item: an empty item leaves the list (as in Docs); otherwise the new item
 *  stays in the list at the same level. Elsewhere Enter does what it always does. */
export const splitListItem: Command = (state, dispatch) => {
  const { $from, $to, empty } = state.selection;
  const item = $from.parent;
  if (!isItem(item) || $from.parent !== $to.parent) return false;
  if (empty && item.content.size === 0) return leaveList(state, dispatch);
  if (!dispatch) return true;
  const tr = state.tr;
  if (!empty) tr.deleteSelection();
  const atEnd = tr.selection.$from.parentOffset === tr.selection.$from.parent.content.size;
  // At the end, the new item starts as normal text (a heading's next line is not a heading).
  const attrs = { ...item.attrs, style: atEnd ? "NORMAL_TEXT" : item.attrs.style };
  tr.split(tr.selection.from, 1, [{ type: schema.nodes.paragraph, attrs }]);
  dispatch(tr.scrollIntoView());
  return true;
};

/** Backspace at the very start of a list item takes it out of the list first (as in Docs). */
export const liftListItem: Command = (state, dispatch) => {
  const { $from, empty } = state.selection;
  if (!empty || !isItem($from.parent) || $from.parentOffset !== 0) return false;
  return leaveList(state, dispatch);
};

function leaveList(state: EditorState, dispatch?: (tr: Transaction) => void): boolean {
  const { $from } = state.selection;
  const pos = $from.before();
  dispatch?.(state.tr.setNodeMarkup(pos, undefined, { ...$from.parent.attrs, listId: null, listKind: null, level: 0 }));
  return true;
}

/** Tab in a paragraph outside a list types a tab, as in Docs. */
export const insertTab: Command = (state, dispatch) => {
  if (!(state.selection instanceof TextSelection)) return false;
  dispatch?.(state.tr.insertText("\t").scrollIntoView());
  return true;
};

const ROMAN: [number, string][] = [[1000, "m"], [900, "cm"], [500, "d"], [400, "cd"], [100, "c"], [90, "xc"], [50, "l"], [40, "xl"], [10, "x"], [9, "ix"], [5, "v"], [4, "iv"], [1, "i"]];

function roman(n: number): string {
  let out = "";
  for (const [value, digits] of ROMAN) {
    while (n >= value) {
      out += digits;
      n -= value;
    }
  }
  return out;
}

function alpha(n: number): string {
  let out = "";
  for (; n > 0; n = Math.floor((n - 1) / 26)) out = String.fromCharCode(97 + ((n - 1) % 26)) + out;
  return out;
}

/** How one level of a list looks, as Docs says it (`lists[id].listProperties.nestingLevels`). */
export interface NestingLevel {
  glyphType?: string;
  glyphFormat?: string;
  glyphSymbol?: string;
  startNumber?: number;
}

/** The looks of a list's levels (none for a list the editor made: Docs' defaults then). */
export type ListLooks = (id: string, level: number) => NestingLevel | undefined;

/** The looks the document's `lists` give. */
export function looksOf(lists: Record<string, unknown> | undefined): ListLooks {
  return (id, level) => (lists?.[id] as { listProperties?: { nestingLevels?: NestingLevel[] } } | undefined)?.listProperties?.nestingLevels?.[level];
}

const NO_LOOKS: ListLooks = () => undefined;

/** `n` as a level of this glyph type writes it; null for a type that is not a number. */
function numeral(type: string | undefined, n: number): string | null {
  switch (type) {
    case "DECIMAL":
      return String(n);
    case "ZERO_DECIMAL":
      return n < 10 ? `0${n}` : String(n);
    case "ALPHA":
      return alpha(n);
    case "UPPER_ALPHA":
      return alpha(n).toUpperCase();
    case "ROMAN":
      return roman(n);
    case "UPPER_ROMAN":
      return roman(n).toUpperCase();
    case "NONE":
      return "";
    default:
      return null;
  }
}

/** What an item shows before its text. With the list's looks from the document: its level's
 *  format with each `%N` replaced by level N's symbol, or its count there in that level's
 *  numerals from the level's start number (Docs' `%0.%1.`); a level with a symbol and no format
 *  shows the symbol. Otherwise Docs' default glyphs for each level of its kind (●, ○, ■ and 1.,
 *  a., i., repeating every three levels). `counts[l]`: the item's place among its list's items
 *  at level l, from 1. */
export function marker(kind: ListKind, level: number, counts: number[], look: (level: number) => NestingLevel | undefined = () => undefined): string {
  const own = look(level);
  // A level's own sign: its symbol, or its number (Docs: a start number of 0 counts as 1 for
  // letters and Roman numerals, and as 0 for digits; an absent one as 1, as Docs writes it out).
  const sign = (at: number): string | null => {
    const then = look(at);
    if (then?.glyphSymbol) return then.glyphSymbol;
    const type = then?.glyphType;
    const start = then?.startNumber ?? 1;
    const first = start === 0 && type !== "DECIMAL" && type !== "ZERO_DECIMAL" ? 1 : start;
    return numeral(type, (counts[at] ?? 1) + first - 1);
  };
  if (own && sign(level) !== null) {
    if (own.glyphFormat === undefined) return sign(level) ?? "";
    return own.glyphFormat.replace(/%(\d)/g, (_, at: string) => sign(Number(at)) ?? String(counts[Number(at)] ?? 1));
  }
  const number = counts[level] ?? 1;
  if (kind === "bullet") return ["●", "○", "■"][level % 3];
  return `${[String(number), alpha(number), roman(number)][level % 3]}.`;
}

/** The markers of every item, numbered per list and level (a deeper level restarts under each
 *  shallower item, as in Docs). */
export function markers(doc: Node, looks: ListLooks = NO_LOOKS): Map<number, string> {
  const out = new Map<number, string>();
  const counters = new Map<string, number[]>();
  forEachBlock(doc, (node, pos) => {
    if (!isItem(node)) return;
    const id = node.attrs.listId as string;
    const level = node.attrs.level as number;
    const counts = counters.get(id) ?? [];
    counts[level] = (counts[level] ?? 0) + 1;
    counts.length = level + 1;
    counters.set(id, counts);
    out.set(pos, marker(node.attrs.listKind as ListKind, level, counts, (l) => looks(id, l)));
  });
  return out;
}

/** Shows each list item's bullet or number (computed, not text: never typed over or copied), as
 *  the document's lists (read through `lists`, which a save replaces) say they look. */
export function listMarkersOf(lists: () => Record<string, unknown> | undefined) {
  const decorate = (doc: Node) => decorations(doc, looksOf(lists()));
  return new Plugin({
    state: {
      init: (_, state) => decorate(state.doc),
      // Typing inside one block leaves every marker as it was: the old ones move with the text (a
      // new set would make the view compare every block's decorations on each keystroke).
      apply: (tr, old, before) => {
        // After a save the document's lists are Google's, which may look otherwise: draw again.
        if (tr.getMeta(RELABEL)) return decorate(tr.doc);
        if (!tr.docChanged) return old;
        return changedWithinOneBlock(before.doc, tr.doc) ? old.map(tr.mapping, tr.doc) : decorate(tr.doc);
      },
    },
    props: {
      decorations(state) {
        return this.getState(state);
      },
    },
  });
}

/** The markers with Docs' default looks (a document without lists, the tests). */
export const listMarkers = listMarkersOf(() => undefined);

function decorations(doc: Node, looks: ListLooks): DecorationSet {
  const out: Decoration[] = [];
  for (const [pos, text] of markers(doc, looks)) {
    const node = doc.nodeAt(pos);
    if (node) out.push(Decoration.node(pos, pos + node.nodeSize, { "data-marker": text }));
  }
  return DecorationSet.create(doc, out);
}

/** Word writes a list item as a paragraph whose style names its list, level and the list's
 *  instance (`mso-list:l0 level2 lfo1`: a restarted list is another instance), with its bullet
 *  or number as text in a span styled `mso-list:Ignore`. Each becomes a list paragraph as
 *  `flattenPastedLists` makes them; the typed bullet or number goes (the editor draws its own),
 *  and says the kind: a number has a digit (`1.`, `1.1.`, `(2)`) or is a few letters with a
 *  period or parenthesis (`a)`, `iv.`); anything else (`·`, `o`, `§`) is a bullet. */
function markWordItems(dom: Document) {
  const paste = Math.random().toString(36).slice(2, 10);
  for (const p of [...dom.body.querySelectorAll<HTMLElement>("p[style*='mso-list']")]) {
    const place = /mso-list:\s*l(\d+)\s+level(\d+)(?:\s+lfo(\d+))?/i.exec(p.getAttribute("style") ?? "");
    if (!place) continue;
    const label = [...p.querySelectorAll("span")].find((span) => /mso-list:\s*ignore/i.test(span.getAttribute("style") ?? ""));
    const typed = (label?.textContent ?? "").replace(/\s/g, "");
    const kind = /\d/.test(typed) || /^\(?[a-z]{1,4}[.)]$/i.test(typed) ? "number" : "bullet";
    label?.remove();
    p.dataset.listKind = kind;
    p.dataset.listId = `pasted.${paste}.word-${place[1]}-${place[3] ?? 0}.${kind}`;
    p.dataset.level = String(Math.min(MAX_LEVEL, Math.max(0, Number(place[2]) - 1)));
  }
}

/** Pasted HTML with each list item made a paragraph saying its list's kind and id and its level
 *  (`<p data-list-kind data-list-id data-level>`), in order, lists unwrapped. Google Docs writes
 *  one <ul> per level with `aria-level` on each <li>; other pages nest lists in items; Word
 *  writes paragraphs (see `markWordItems`). */
export function flattenPastedLists(html: string): string {
  const dom = new window.DOMParser().parseFromString(html, "text/html");
  markWordItems(dom);
  const items = [...dom.body.querySelectorAll("li")];
  const ids = new Map<Element, string>();
  // Read every item's place before anything moves.
  const places = items.map((li) => {
    const list = li.closest("ul, ol");
    let root: Element | null = list;
    let depth = 0;
    for (let at = list; at; at = at.parentElement?.closest("ul, ol") ?? null) {
      root = at;
      depth++;
    }
    if (root && !ids.has(root)) ids.set(root, `pasted.${Math.random().toString(36).slice(2, 10)}`);
    const ariaLevel = Number(li.getAttribute("aria-level"));
    const level = Math.min(MAX_LEVEL, Math.max(0, (Number.isInteger(ariaLevel) && ariaLevel > 0 ? ariaLevel : depth) - 1));
    const kind = list?.tagName === "OL" ? "number" : "bullet";
    // A list has one kind: items of the other kind nested in it make a list of their own.
    return { kind, id: `${(root && ids.get(root)) ?? "pasted"}.${kind}`, level };
  });
  items.forEach((li, n) => {
    const p = dom.createElement("p");
    p.dataset.listKind = places[n].kind;
    p.dataset.listId = places[n].id;
    p.dataset.level = String(places[n].level);
    // The item's alignment: Google Docs sets it on the <p> inside the <li>, pages on the <li>.
    const inner = [...li.children].find((child) => child.tagName === "P" || child.tagName === "DIV") as HTMLElement | undefined;
    const textAlign = inner?.style.textAlign || (li as HTMLElement).style.textAlign || inner?.getAttribute("align") || li.getAttribute("align");
    if (textAlign) p.style.textAlign = textAlign;
    const nested: Element[] = [];
    for (const child of [...li.childNodes]) {
      if (child instanceof Element && (child.tagName === "UL" || child.tagName === "OL")) nested.push(child);
      else if (child instanceof Element && (child.tagName === "P" || child.tagName === "DIV")) p.append(...child.childNodes);
      else p.append(child);
    }
    li.replaceWith(p, ...nested);
  });
  for (const list of [...dom.body.querySelectorAll("ul, ol")]) list.replaceWith(...list.childNodes);
  return dom.body.innerHTML;
}
