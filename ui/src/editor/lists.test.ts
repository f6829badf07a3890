import { describe, expect, it } from "vitest";
import { EditorState, TextSelection, type Command } from "prosemirror-state";
import { DOMParser as PmParser, DOMSerializer } from "prosemirror-model";
import { forEachBlock } from "./chunks";
import { fromDoc, toDoc } from "./convert";
import { flattenPastedLists, indentList, liftListItem, listMarkers, looksOf, markers, splitListItem, toggleList } from "./lists";
import { schema } from "./schema";
import type { EditBlock } from "../types";

type Paragraph = Extract<EditBlock, { kind: "paragraph" }>;

const item = (text: string, level = 0, kind: "bullet" | "number" = "bullet", id = "kix.1"): EditBlock => ({
  kind: "paragraph",
  text,
  style: "NORMAL_TEXT",
  alignment: "START",
  runs: text ? [{ len: text.length }] : [],
  list: { id, kind, level },
});
const para = (text: string): EditBlock => ({ kind: "paragraph", text, style: "NORMAL_TEXT", runs: text ? [{ len: text.length }] : [] });

function state(blocks: EditBlock[]) {
  return EditorState.create({ doc: toDoc(blocks), plugins: [listMarkers] });
}

function apply(s: EditorState, command: Command): EditorState {
  let next = s;
  command(s, (tr) => (next = s.apply(tr)));
  return next;
}

/** Selects from the `n`th block's `from` to the `m`th block's `to` (text offsets). */
function select(s: EditorState, n: number, from: number, m = n, to = from): EditorState {
  const starts: number[] = [];
  forEachBlock(s.doc, (_node, pos) => starts.push(pos + 1));
  return s.apply(s.tr.setSelection(TextSelection.create(s.doc, starts[n] + from, starts[m] + to)));
}

const lists = (s: EditorState) => fromDoc(s.doc).map((b) => (b as Paragraph).list ?? null);

describe("lists in the editor", () => {
  it("keeps each item's list, kind and level through the editor", () => {
    const blocks = [para("Checklist"), item("Book the venue"), item("Order coffee", 1), item("Send invites", 0, "number", "kix.2")];
    expect(fromDoc(toDoc(blocks))).toEqual(blocks);
  });

  it("draws each list as the document's lists say it looks: symbols, numerals, formats, start numbers", () => {
    const lists = {
      "kix.roman": { listProperties: { nestingLevels: [{ glyphType: "UPPER_ROMAN", glyphFormat: "%0." }, { glyphType: "DECIMAL", glyphFormat: "%0.%1." }] } },
      "kix.from3": { listProperties: { nestingLevels: [{ glyphType: "ALPHA", glyphFormat: "(%0)", startNumber: 3 }] } },
      "kix.arrow": { listProperties: { nestingLevels: [{ glyphSymbol: "➢", glyphFormat: "%0" }, { glyphType: "NONE", glyphFormat: "%1" }] } },
      "kix.zero": { listProperties: { nestingLevels: [{ glyphType: "ZERO_DECIMAL", glyphFormat: "%0)" }] } },
      "kix.nested": { listProperties: { nestingLevels: [{ glyphSymbol: "●", glyphFormat: "<%0>" }, { glyphType: "DECIMAL", glyphFormat: "%0 %1.", startNumber: 0 }] } },
    };
    const s = state([
      item("Scope", 0, "number", "kix.roman"),
      item("In", 1, "number", "kix.roman"),
      item("Out", 1, "number", "kix.roman"),
      item("Plan", 0, "number", "kix.roman"),
      item("Third", 0, "number", "kix.from3"),
      item("Fourth", 0, "number", "kix.from3"),
      item("Go", 0, "bullet", "kix.arrow"),
      item("Quietly", 1, "bullet", "kix.arrow"),
      item("First", 0, "number", "kix.zero"),
      item("Top", 0, "bullet", "kix.nested"),
      item("Zeroth", 1, "number", "kix.nested"),
      // A list the editor made (no looks in the document): Docs' defaults.
      item("New", 0, "number", "new.1"),
    ]);
    expect([...markers(s.doc, looksOf(lists)).values()]).toEqual(["I.", "I.1.", "I.2.", "II.", "(c)", "(d)", "➢", "", "01)", "<●>", "● 0.", "1."]);
  });

  it("numbers each list per level and shows bullets by level, as Docs does", () => {
    const s = state([item("a", 0, "number"), item("b", 1, "number"), item("c", 1, "number"), item("d", 0, "number"), item("e", 1, "number"), para("x"), item("f", 0, "bullet", "kix.2"), item("g", 1, "bullet", "kix.2")]);
    expect([...markers(s.doc).values()]).toEqual(["1.", "a.", "b.", "2.", "a.", "●", "○"]);
  });

  it("makes paragraphs a list, joins the list beside them, and takes them out again", () => {
    const s = state([item("one"), para("two"), para("\t\tthree")]);
    const listed = apply(select(s, 1, 0, 2, 2), toggleList("bullet"));
    // Both join "one"'s list; the leading tabs became the level.
    expect(lists(listed)).toEqual([
      { id: "kix.1", kind: "bullet", level: 0 },
      { id: "kix.1", kind: "bullet", level: 0 },
      { id: "kix.1", kind: "bullet", level: 2 },
    ]);
    expect((fromDoc(listed.doc)[2] as Paragraph).text).toBe("three");
    const numbered = apply(select(listed, 0, 0), toggleList("number"));
    expect(lists(numbered)[0]).toMatchObject({ kind: "number" });
    expect(lists(numbered)[0]?.id).not.toBe("kix.1");
    const unlisted = apply(select(listed, 0, 0, 2, 1), toggleList("bullet"));
    expect(lists(unlisted)).toEqual([null, null, null]);
  });

  it("nests with Tab and Shift+Tab within 0 to 8", () => {
    let s = select(state([item("one"), item("two")]), 1, 1);
    for (let i = 0; i < 10; i++) s = apply(s, indentList(1));
    expect(lists(s)[1]?.level).toBe(8);
    s = apply(s, indentList(-1));
    expect(lists(s)[1]?.level).toBe(7);
    // Outside a list the command declines, so that Tab types a tab.
    expect(indentList(1)(select(state([para("x")]), 0, 0))).toBe(false);
  });

  it("continues the list on Enter, and leaves it on Enter in an empty item or Backspace at its start", () => {
    const split = apply(select(state([item("Book the venue")]), 0, 4), splitListItem);
    expect(fromDoc(split.doc).map((b) => [(b as Paragraph).text, (b as Paragraph).list?.id])).toEqual([["Book", "kix.1"], [" the venue", "kix.1"]]);
    const empty = apply(select(state([item("one"), item("")]), 1, 0), splitListItem);
    expect(lists(empty)).toEqual([{ id: "kix.1", kind: "bullet", level: 0 }, null]);
    const lifted = apply(select(state([item("one")]), 0, 0), liftListItem);
    expect(lists(lifted)).toEqual([null]);
    expect(liftListItem(select(state([item("one")]), 0, 1))).toBe(false);
  });

  it("copies items within the editor as items, with their style, kind, level and list", () => {
    const blocks = [item("Venue", 0, "number"), { ...item("Deposit", 1, "number"), style: "HEADING_2" }];
    const dom = document.createElement("div");
    toDoc(blocks).forEach((node) => dom.appendChild(DOMSerializer.fromSchema(schema).serializeNode(node)));
    expect(fromDoc(PmParser.fromSchema(schema).parse(dom))).toEqual(blocks);
  });

  it("pastes Word's lists, written as paragraphs, with their kind and level", () => {
    const html = `<p class=MsoListParagraphCxSpFirst style='text-indent:-18pt;mso-list:l0 level1 lfo1'><![if !supportLists]><span style='font-family:Symbol'><span style='mso-list:Ignore'>·<span style='font:7.0pt "Times New Roman"'>&nbsp;&nbsp; </span></span></span><![endif]>Venue</p>
      <p class=MsoListParagraphCxSpLast style='margin-left:72pt;mso-list:l0 level2 lfo1'><span style='mso-list:Ignore'>o<span>&nbsp; </span></span>Deposit</p>
      <p class=MsoNormal>Between</p>
      <p class=MsoListParagraph style='mso-list:l1 level1 lfo2'><span style='mso-list:Ignore'>1.<span>&nbsp;</span></span>Invite</p>
      <p class=MsoListParagraph style='mso-list:l1 level2 lfo2'><span style='mso-list:Ignore'>1.1.<span>&nbsp;</span></span>Guests</p>
      <p class=MsoListParagraph style='mso-list:l1 level1 lfo3'><span style='mso-list:Ignore'>1.<span>&nbsp;</span></span>Restarted</p>`;
    const dom = new window.DOMParser().parseFromString(flattenPastedLists(html), "text/html");
    const parsed = fromDoc(PmParser.fromSchema(schema).parse(dom.body)) as Paragraph[];
    expect(parsed.map((p) => [p.text, p.list?.kind ?? null, p.list?.level ?? null])).toEqual([
      ["Venue", "bullet", 0],
      ["Deposit", "bullet", 1],
      ["Between", null, null],
      ["Invite", "number", 0],
      ["Guests", "number", 1],
      ["Restarted", "number", 0],
    ]);
    expect(parsed[0].list?.id).toBe(parsed[1].list?.id);
    expect(parsed[3].list?.id).not.toBe(parsed[0].list?.id);
    expect(parsed[4].list?.id).toBe(parsed[3].list?.id);
    // A list Word restarted (another instance of it) is a list of its own.
    expect(parsed[5].list?.id).not.toBe(parsed[3].list?.id);
  });

  it("pastes Google Docs' lists with their levels and alignments, one id per list", () => {
    const html = `<b style="font-weight:normal;" id="docs-internal-guid-2"><ul><li dir="ltr" aria-level="1"><p dir="ltr"><span>Venue</span></p></li>
      <ul><li aria-level="2"><p dir="ltr" style="line-height:1.38;text-align: center;"><span>Deposit</span></p></li></ul></ul><ol><li aria-level="1"><p>Invite</p></li></ol><p>After</p></b>`;
    const dom = new window.DOMParser().parseFromString(flattenPastedLists(html), "text/html");
    const parsed = fromDoc(PmParser.fromSchema(schema).parse(dom.body)) as Paragraph[];
    expect(parsed.map((p) => [p.text, p.list?.kind ?? null, p.list?.level ?? null, p.alignment])).toEqual([
      // Without an alignment of their own, they show their named style's.
      ["Venue", "bullet", 0, undefined],
      ["Deposit", "bullet", 1, "CENTER"],
      ["Invite", "number", 0, undefined],
      ["After", null, null, undefined],
    ]);
    expect(parsed[0].list?.id).toBe(parsed[1].list?.id);
    expect(parsed[2].list?.id).not.toBe(parsed[0].list?.id);
    // Lists nested in items, as web pages write them.
    const nested = new window.DOMParser().parseFromString(flattenPastedLists("<ol><li>Plan<ul><li>Budget</li></ul></li><li>Do</li></ol>"), "text/html");
    const items = fromDoc(PmParser.fromSchema(schema).parse(nested.body)) as Paragraph[];
    expect(items.map((p) => [p.text, p.list?.kind, p.list?.level])).toEqual([["Plan", "number", 0], ["Budget", "bullet", 1], ["Do", "number", 0]]);
    expect(items[0].list?.id).toBe(items[2].list?.id);
    expect(items[1].list?.id).not.toBe(items[0].list?.id);
  });
});
