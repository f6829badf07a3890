import { Schema, type Mark, type MarkSpec, type Node, type NodeSpec } from "prosemirror-model";
import { tableNodes } from "prosemirror-tables";
import type { Alignment, RunLook } from "../types";

/** A run's look as CSS. A size is drawn next to normal text's 11 points (Docs' default), so that
 *  it scales with the page as the named styles do. */
export function lookCss(look: RunLook): string {
  const parts: string[] = [];
  if (look.baseline) parts.push(`vertical-align: ${look.baseline === "SUPERSCRIPT" ? "super" : "sub"}`, "font-size: 0.75em");
  // A highlight keeps its text dark, as on paper, in the dark theme too. A colour of the
  // author's own is given as `--look-color`, which the dark theme lightens (styles.css) so that
  // dark red on the dark page stays readable.
  if (look.highlight) parts.push(`color: ${look.color ?? "#1f2328"}`);
  else if (look.color) parts.push(`--look-color: ${look.color}`);
  if (look.highlight) parts.push(`background-color: ${look.highlight}`);
  if (look.font) parts.push(`font-family: ${JSON.stringify(look.font)}, sans-serif`);
  if (look.size && !look.baseline) parts.push(`font-size: calc(var(--page-font-size, 14px) * ${Number(look.size) / 11})`);
  return parts.join("; ");
}

/** Google Docs' named paragraph styles the editor writes, and the element each is shown as. */
const STYLE_TAGS: Record<string, string> = {
  TITLE: "h1",
  SUBTITLE: "p",
  HEADING_1: "h1",
  HEADING_2: "h2",
  HEADING_3: "h3",
  HEADING_4: "h4",
  HEADING_5: "h5",
  HEADING_6: "h6",
};

/** A soft line break inside a paragraph (Shift+Enter), as Google Docs keeps it: U+000B. */
export const SOFT_BREAK = "\u000b";

/** Docs' paragraph alignments and the CSS `text-align` each is drawn with (START and END follow
 *  the text's direction, as in Docs). */
export const ALIGNMENTS: Record<Alignment, string> = { START: "start", CENTER: "center", END: "end", JUSTIFIED: "justify" };

/** A pasted element's alignment: its CSS `text-align` (Google Docs, web pages) or its `align`
 *  attribute (Word); null when it has neither (the paragraph then shows its named style's).
 *  Left and right are START and END in left-to-right text, the other way round in right-to-left
 *  text. */
export function alignmentOf(element: HTMLElement): Alignment | null {
  const value = (element.style.textAlign || element.getAttribute("align") || "").toLowerCase();
  if (!value) return null;
  const rtl = element.closest("[dir]")?.getAttribute("dir")?.toLowerCase() === "rtl";
  if (value === "center") return "CENTER";
  if (value === "justify") return "JUSTIFIED";
  if (value === "end" || value === (rtl ? "left" : "right")) return "END";
  return "START";
}

/** A paragraph's inline CSS: its own alignment (none: its named style's, see `namedStyleCss`)
 *  and its list level. */
function paragraphCss(node: Node): string | undefined {
  const parts: string[] = [];
  const alignment = node.attrs.alignment as Alignment | null;
  if (alignment) parts.push(`text-align: ${ALIGNMENTS[alignment]}`);
  if (node.attrs.listKind) parts.push(`--level: ${node.attrs.level as number}`);
  return parts.length > 0 ? parts.join("; ") : undefined;
}

const nodes: Record<string, NodeSpec> = {
  doc: { content: "chunk+" },
  // Consecutive blocks, for speed only (see `chunks.ts`): not a Docs structure, and invisible.
  chunk: { content: "block+", toDOM: () => ["div", { class: "chunk" }, 0] },
  // One Docs paragraph is one paragraph here, whatever its named style: the text offsets of both
  // are the same (JavaScript strings count UTF-16 units, as Google's indexes do).
  // A list item is a paragraph with its list's id, kind ("bullet" or "number") and nesting
  // level, as Docs keeps it: a paragraph with a bullet, not a node of a list node. Its
  // alignment is null when the paragraph has none of its own: it shows its named style's.
  paragraph: {
    group: "block",
    content: "inline*",
    attrs: {
      style: { default: "NORMAL_TEXT" },
      alignment: { default: null },
      listId: { default: null },
      listKind: { default: null },
      level: { default: 0 },
    },
    parseDOM: [
      // A list item: pasted (flattened by `flattenPastedLists`) or copied here, any style.
      {
        tag: "[data-list-kind]",
        getAttrs: (p: HTMLElement) => {
          const kind = p.dataset.listKind;
          if (kind !== "bullet" && kind !== "number") return false;
          const level = Number(p.dataset.level);
          return {
            style: /\bpara-([A-Z0-9_]+)/.exec(p.className)?.[1] ?? "NORMAL_TEXT",
            alignment: alignmentOf(p),
            listKind: kind,
            listId: p.dataset.listId || "pasted",
            level: Number.isInteger(level) ? Math.min(8, Math.max(0, level)) : 0,
          };
        },
      },
      ...(
        [
          ["h1", "HEADING_1"],
          ["h2", "HEADING_2"],
          ["h3", "HEADING_3"],
          ["h4", "HEADING_4"],
          ["h5", "HEADING_5"],
          ["h6", "HEADING_6"],
          ["p.title", "TITLE"],
          ["p.subtitle", "SUBTITLE"],
          ["p", "NORMAL_TEXT"],
        ] as const
      ).map(([tag, style]) => ({ tag, getAttrs: (p: HTMLElement) => ({ style, alignment: alignmentOf(p) }) })),
    ],
    toDOM: (node: Node) => {
      const style = node.attrs.style as string;
      const kind = node.attrs.listKind as string | null;
      const css = paragraphCss(node);
      if (!kind) return [STYLE_TAGS[style] ?? "p", { class: `para para-${style}`, ...(css ? { style: css } : {}) }, 0];
      const level = node.attrs.level as number;
      // The data attributes let a copied item paste back as one (the rule above reads them).
      const attrs = {
        class: `para para-${style} li li-${kind}`,
        style: css,
        "data-list-kind": kind,
        "data-list-id": node.attrs.listId as string,
        "data-level": String(level),
      };
      return [STYLE_TAGS[style] ?? "p", attrs, 0];
    },
  },
  // A table whose cells hold paragraphs: `startIndex` names the document's table, each row's
  // `from` and each cell's `column` which of its rows and columns they are (null: added here).
  // Those never go to the clipboard: a pasted row or column is a new one.
  ...tableGrid(),
  // What Staffroom does not edit (a table with merged cells, a paragraph holding an image or a
  // suggestion): shown in place by a node view, never edited, never made from pasted HTML.
  fixed: {
    group: "block",
    atom: true,
    selectable: true,
    attrs: { startIndex: {} },
    toDOM: () => ["div", { class: "fixed-block" }],
  },
  text: { group: "inline" },
  soft_break: {
    inline: true,
    group: "inline",
    selectable: false,
    parseDOM: [{ tag: "br" }],
    toDOM: () => ["br"],
  },
};

/** prosemirror-tables' table, row and cell nodes, with the attributes that tie them to Docs. */
function tableGrid(): Record<string, NodeSpec> {
  const grid = tableNodes({ tableGroup: "block", cellContent: "paragraph+", cellAttributes: { column: { default: null } } });
  return {
    table: { ...grid.table, attrs: { startIndex: { default: null } } },
    table_row: { ...grid.table_row, attrs: { from: { default: null } } },
    table_cell: grid.table_cell,
    table_header: grid.table_header,
  };
}

/** Pasted HTML from Google Docs wraps everything in `<b style="font-weight:normal">`. */
const notNormalWeight = (node: HTMLElement) => node.style.fontWeight !== "normal" && null;

const marks: Record<string, MarkSpec> = {
  bold: {
    parseDOM: [
      { tag: "strong" },
      { tag: "b", getAttrs: notNormalWeight },
      { style: "font-weight", getAttrs: (value: string) => /^(bold(er)?|[6-9]\d{2})$/.test(value) && null },
    ],
    toDOM: () => ["strong", 0],
  },
  italic: {
    parseDOM: [{ tag: "em" }, { tag: "i" }, { style: "font-style=italic" }],
    toDOM: () => ["em", 0],
  },
  underline: {
    parseDOM: [{ tag: "u" }, { style: "text-decoration", getAttrs: (value: string) => value.includes("underline") && null }],
    toDOM: () => ["u", 0],
  },
  strikethrough: {
    parseDOM: [
      { tag: "s" },
      { tag: "del" },
      { tag: "strike" },
      { style: "text-decoration", getAttrs: (value: string) => value.includes("line-through") && null },
    ],
    toDOM: () => ["s", 0],
  },
  // How a run looks beyond what the editor edits (raised or lowered, colour, highlight, font,
  // size): shown as Google shows it, kept, never written by a save. Not parsed from pasted
  // HTML: only what Google holds has it.
  look: {
    attrs: { look: {} },
    toDOM: (mark: Mark) => ["span", { class: "look", style: lookCss(mark.attrs.look as RunLook) }, 0],
  },
  link: {
    attrs: { href: {} },
    inclusive: false,
    parseDOM: [
      {
        tag: "a[href]",
        getAttrs: (node: HTMLElement) => {
          const href = node.getAttribute("href") ?? "";
          return /^(https?:|mailto:)/i.test(href) ? { href } : false;
        },
      },
    ],
    toDOM: (mark: Mark) => ["a", { href: mark.attrs.href as string, title: mark.attrs.href as string, rel: "noreferrer" }, 0],
  },
};

export const schema = new Schema({ nodes, marks });
