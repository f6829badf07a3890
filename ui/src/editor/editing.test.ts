import { describe, expect, it } from "vitest";
import { toggleMark } from "prosemirror-commands";
import { EditorState, TextSelection, type Command } from "prosemirror-state";
import { DOMParser as PmParser, DOMSerializer } from "prosemirror-model";
import { EditorView } from "prosemirror-view";
import { forEachBlock } from "./chunks";
import { flattenPastedLists } from "./lists";
import { enter, keepStructure, linkAt, namedStyleCss, normalizeUrl, paragraphAlignment, setAlignment, setLink, setParagraphStyle } from "./commands";
import { fromDoc, relabel, toDoc } from "./convert";
import { lookCss, schema, SOFT_BREAK } from "./schema";
import type { EditBlock, NamedStyle } from "../types";

const blocks: EditBlock[] = [
  { kind: "paragraph", text: "Launch plan", style: "TITLE", runs: [{ len: 11 }] },
  { kind: "paragraph", text: `Ship 😀 on Tuesday${SOFT_BREAK}then rest`, style: "NORMAL_TEXT", runs: [{ len: 5 }, { len: 2, bold: true }, { len: 21, italic: true, link: "https://example.com" }] },
  { kind: "fixed", startIndex: 40 },
  { kind: "paragraph", text: "", style: "NORMAL_TEXT", runs: [] },
];

function state(from: EditBlock[] = blocks) {
  return EditorState.create({ doc: toDoc(from), plugins: [keepStructure] });
}

function apply(s: EditorState, command: Command): EditorState {
  let next = s;
  command(s, (tr) => (next = s.apply(tr)));
  return next;
}

/** Selects `[from, to)` of the text of the `n`th block (UTF-16 offsets, as Google counts). */
function select(s: EditorState, n: number, from: number, to = from): EditorState {
  let start = 0;
  forEachBlock(s.doc, (_node, pos, index) => {
    if (index === n) start = pos + 1;
  });
  return s.apply(s.tr.setSelection(TextSelection.create(s.doc, start + from, start + to)));
}

describe("the editor's document", () => {
  it("holds the blocks as they were read: texts, styles, runs, soft breaks and fixed parts", () => {
    expect(fromDoc(toDoc(blocks))).toEqual(blocks);
  });

  it("marks what is selected, and the runs say so in UTF-16 units", () => {
    // "Launch" in bold.
    const bold = apply(select(state(), 0, 0, 6), toggleMark(schema.marks.bold));
    expect(fromDoc(bold.doc)[0]).toEqual({ kind: "paragraph", text: "Launch plan", style: "TITLE", runs: [{ len: 6, bold: true }, { len: 5 }] });
    // The emoji is two units: striking "😀 on" through covers five.
    const struck = apply(select(state(), 1, 5, 10), toggleMark(schema.marks.strikethrough));
    const runs = (fromDoc(struck.doc)[1] as Extract<EditBlock, { kind: "paragraph" }>).runs;
    expect(runs).toEqual([
      { len: 5 },
      { len: 2, bold: true, strikethrough: true },
      { len: 3, italic: true, strikethrough: true, link: "https://example.com" },
      { len: 18, italic: true, link: "https://example.com" },
    ]);
  });

  it("sets a paragraph's named style", () => {
    const heading = apply(select(state(), 1, 3), setParagraphStyle("HEADING_2"));
    expect(fromDoc(heading.doc)[1]).toMatchObject({ style: "HEADING_2" });
  });

  it("adds, finds and removes a link with its underline, as Google Docs does", () => {
    const linked = apply(select(state(), 0, 7, 11), setLink("https://example.com/plan"));
    expect(fromDoc(linked.doc)[0]).toMatchObject({ runs: [{ len: 7 }, { len: 4, underline: true, link: "https://example.com/plan" }] });
    // The caret inside the link finds all of it, across differently styled pieces.
    expect(linkAt(select(state(), 1, 12))).toEqual({ href: "https://example.com", from: expect.any(Number), to: expect.any(Number) });
    const inside = select(linked, 0, 9);
    expect(linkAt(inside)?.href).toBe("https://example.com/plan");
    const removed = apply(inside, setLink(null));
    expect(fromDoc(removed.doc)[0]).toMatchObject({ runs: [{ len: 11 }] });
  });

  it("never loses, moves or copies a fixed part", () => {
    const s = state();
    let fixedAt = 0;
    const starts: number[] = [];
    forEachBlock(s.doc, (node, pos) => {
      if (node.type === schema.nodes.fixed) fixedAt = pos;
      starts.push(pos);
    });
    const deleted = s.apply(s.tr.delete(fixedAt, fixedAt + 1));
    expect(deleted.doc.eq(s.doc)).toBe(true);
    // Typing stays possible everywhere else, and joining two paragraphs is fine.
    const typed = s.apply(s.tr.insertText("Hello ", starts[0] + 1));
    expect(fromDoc(typed.doc)[0]).toMatchObject({ text: "Hello Launch plan" });
    const joined = s.apply(s.tr.delete(starts[1] - 1, starts[1] + 1));
    expect(fromDoc(joined.doc).filter((b) => b.kind === "paragraph")).toHaveLength(2);
  });

  it("pastes from Google Docs with its marks, headings and alignments, and drops the rest", () => {
    const html = `<b style="font-weight:normal;" id="docs-internal-guid-1"><h2 dir="ltr" style="line-height:1.38;text-align: center;margin-top:18pt;"><span style="font-weight:700">Refunds</span></h2>
      <p><span style="font-style:italic">Within</span> <span style="text-decoration:line-through">14</span> <a href="https://example.com/terms">days</a><img src="x.png"></p>
      <p dir="ltr" style="text-align: justify;">Terms</p></b>`;
    const dom = new window.DOMParser().parseFromString(html, "text/html");
    const parsed = fromDoc(PmParser.fromSchema(schema).parse(dom.body));
    expect(parsed).toEqual([
      { kind: "paragraph", text: "Refunds", style: "HEADING_2", alignment: "CENTER", runs: [{ len: 7, bold: true }] },
      {
        kind: "paragraph",
        text: "Within 14 days",
        style: "NORMAL_TEXT",
        runs: [{ len: 6, italic: true }, { len: 1 }, { len: 2, strikethrough: true }, { len: 1 }, { len: 4, link: "https://example.com/terms" }],
      },
      { kind: "paragraph", text: "Terms", style: "NORMAL_TEXT", alignment: "JUSTIFIED", runs: [{ len: 5 }] },
    ]);
  });

  it("aligns the paragraphs of the selection, and Enter at a paragraph's end keeps its alignment", () => {
    const aligned = blocks.map((b) => (b.kind === "paragraph" ? { ...b, alignment: "START" as const } : b));
    // From the title's third character to the next paragraph's fourth.
    const s = select(state(aligned), 0, 2);
    const across = s.apply(s.tr.setSelection(TextSelection.create(s.doc, s.selection.from, select(s, 1, 3).selection.from)));
    const centred = apply(across, setAlignment("CENTER"));
    const alignments = fromDoc(centred.doc).map((b) => (b.kind === "paragraph" ? b.alignment : b.kind));
    expect(alignments).toEqual(["CENTER", "CENTER", "fixed", "START"]);
    expect(paragraphAlignment(select(centred, 1, 2))).toBe("CENTER");
    // Drawn as CSS, a paragraph's own alignment (START too: a named style may say otherwise).
    const dom = DOMSerializer.fromSchema(schema).serializeFragment(centred.doc.content, { document });
    const shown = Array.from((dom as DocumentFragment).querySelectorAll<HTMLElement>(".para")).map((p) => p.style.textAlign);
    expect(shown).toEqual(["center", "center", "start"]);
    // The next paragraph is normal text, aligned as the one it follows (as in Docs).
    const end = select(centred, 0, 11);
    const split = apply(end, enter);
    expect(fromDoc(split.doc)[1]).toMatchObject({ kind: "paragraph", text: "", style: "NORMAL_TEXT", alignment: "CENTER" });
  });

  it("shows a paragraph without its own alignment as its named style says, and Enter makes another that says nothing", () => {
    // A document whose Title style is centred, as Docs' namedStyles write it.
    const styles: NamedStyle[] = [
      { id: "NORMAL_TEXT", label: "Normal text", alignment: "START", fontSize: 11 },
      { id: "TITLE", label: "Title", alignment: "CENTER", fontSize: 26 },
      { id: "HEADING_6", label: "Heading 6", italic: true },
    ];
    const s = select(state(), 0, 11);
    expect(paragraphAlignment(s, styles)).toBe("CENTER");
    expect(paragraphAlignment(s)).toBe("START");
    expect(namedStyleCss(styles).split("\n")).toEqual([
      ".page .para-NORMAL_TEXT { text-align: start }",
      ".page .para-TITLE { text-align: center; font-size: 2.364em }",
      ".page .para-HEADING_6 { font-style: italic }",
    ]);
    // Drawn without an inline alignment, so that the style's applies.
    const dom = DOMSerializer.fromSchema(schema).serializeFragment(s.doc.content, { document });
    expect((dom as DocumentFragment).querySelector<HTMLElement>(".para-TITLE")?.style.textAlign).toBe("");
    const split = fromDoc(apply(s, enter).doc);
    expect(split[1]).toEqual({ kind: "paragraph", text: "", style: "NORMAL_TEXT", runs: [] });
    expect(split[0]).not.toHaveProperty("alignment");
  });

  it("shows how runs look beyond what it edits, and gives the look back untouched", () => {
    const looked: EditBlock[] = [
      {
        kind: "paragraph",
        text: "E = mc2 in red",
        style: "NORMAL_TEXT",
        runs: [{ len: 6 }, { len: 1, look: { baseline: "SUPERSCRIPT" } }, { len: 4 }, { len: 3, bold: true, look: { color: "#cc0000", font: "Roboto Mono", size: "10" } }],
      },
    ];
    const s = state(looked);
    expect(fromDoc(s.doc)).toEqual(looked);
    const dom = DOMSerializer.fromSchema(schema).serializeFragment(s.doc.content, { document }) as DocumentFragment;
    const spans = Array.from(dom.querySelectorAll<HTMLElement>("span.look"));
    expect(spans.map((span) => span.textContent)).toEqual(["2", "red"]);
    expect(spans[0].style.verticalAlign).toBe("super");
    // The author's colour, which the dark theme lightens (the end-to-end suite checks it drawn).
    expect(spans[1].style.getPropertyValue("--look-color")).toBe("#cc0000");
    expect(spans[1].style.fontFamily).toContain("Roboto Mono");
    // Highlighted text stays dark on its highlight, whatever the theme.
    expect(lookCss({ highlight: "#fff299" })).toBe("color: #1f2328; background-color: #fff299");
    // Bold taken off the red word: its look stays.
    const plain = apply(select(s, 0, 11, 14), toggleMark(schema.marks.bold));
    const runs = (fromDoc(plain.doc)[0] as { runs: unknown[] }).runs;
    expect(runs[3]).toEqual({ len: 3, look: { color: "#cc0000", font: "Roboto Mono", size: "10" } });
  });

  it("reads right-aligned pasted text as END, or as START in right-to-left text", () => {
    const parse = (html: string) => fromDoc(PmParser.fromSchema(schema).parse(new window.DOMParser().parseFromString(html, "text/html").body));
    expect(parse(`<p style="text-align: right">Total</p><p align="left">Note</p>`).map((b) => (b.kind === "paragraph" ? b.alignment : null))).toEqual(["END", "START"]);
    expect(parse(`<div dir="rtl"><p style="text-align: right">שלום</p><p style="text-align: left">סוף</p></div>`).map((b) => (b.kind === "paragraph" ? b.alignment : null))).toEqual(["START", "END"]);
  });

  it("after a save, takes the saved alignments where a draft kept before alignment left them unsaid", () => {
    // The draft's blocks have no alignment; Google's copy says each paragraph's.
    const saved = blocks.map((b, i) => (b.kind === "paragraph" ? { ...b, alignment: i === 0 ? ("CENTER" as const) : ("START" as const) } : b));
    const s = state();
    const tr = relabel(s, saved);
    expect(tr).not.toBeNull();
    const after = s.apply(tr!);
    expect(fromDoc(after.doc)).toEqual(saved);
    // A different alignment is a different document: the editor starts again from Google's.
    const centred = state(saved.map((b) => (b.kind === "paragraph" ? { ...b, alignment: "CENTER" as const } : b)));
    expect(relabel(centred, saved)).toBeNull();
  });

  it("pastes plain text as paragraphs, one a line, in the real view", () => {
    const empty: EditBlock[] = [{ kind: "paragraph", text: "", style: "NORMAL_TEXT", runs: [] }];
    const view = new EditorView(document.createElement("div"), {
      state: EditorState.create({ doc: toDoc(empty), plugins: [keepStructure] }),
      transformPastedHTML: flattenPastedLists,
    });
    // jsdom has no ClipboardEvent: a plain event stands in for the paste.
    view.pasteText("Refunds\r\nWithin 14 days 😀\n\nThank you", new Event("paste") as ClipboardEvent);
    expect(fromDoc(view.state.doc)).toEqual([
      { kind: "paragraph", text: "Refunds", style: "NORMAL_TEXT", runs: [{ len: 7 }] },
      { kind: "paragraph", text: "Within 14 days 😀", style: "NORMAL_TEXT", runs: [{ len: 17 }] },
      { kind: "paragraph", text: "Thank you", style: "NORMAL_TEXT", runs: [{ len: 9 }] },
    ]);
    view.destroy();
  });

  it("takes web and e-mail addresses as links, and nothing else", () => {
    expect(normalizeUrl("example.com/a")).toBe("https://example.com/a");
    expect(normalizeUrl(" https://example.com ")).toBe("https://example.com");
    expect(normalizeUrl("ada@example.com")).toBe("mailto:ada@example.com");
    expect(normalizeUrl("javascript:alert(1)")).toBeNull();
    expect(normalizeUrl("two words")).toBeNull();
  });
});
