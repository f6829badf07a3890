import { describe, expect, it } from "vitest";
import { baseKeymap } from "prosemirror-commands";
import { Slice } from "prosemirror-model";
import { EditorState, NodeSelection, TextSelection, type Command } from "prosemirror-state";
import { acrossChunks, blocksOf, CHUNK_SIZE, chunkEdgeKeys, forEachBlock, unwrapChunks } from "./chunks";
import { enter, keepStructure } from "./commands";
import { fromDoc, toDoc } from "./convert";
import { listMarkers, markers, toggleList } from "./lists";
import { insertTable } from "./tables";
import type { EditBlock } from "../types";

type Paragraph = Extract<EditBlock, { kind: "paragraph" }>;

const p = (text: string): EditBlock => ({ kind: "paragraph", text, style: "NORMAL_TEXT", runs: text ? [{ len: text.length }] : [] });
const item = (text: string): EditBlock => ({ ...p(text), list: { id: "kix.1", kind: "number", level: 0 } }) as EditBlock;

/** A document of a little over two chunks: "Paragraph 0." to "Paragraph 102.". */
const long = (make: (i: number) => EditBlock = (i) => p(`Paragraph ${i}.`)) => Array.from({ length: CHUNK_SIZE * 2 + 3 }, (_, i) => make(i));

function state(blocks: EditBlock[]) {
  return EditorState.create({ doc: toDoc(blocks), plugins: [keepStructure, listMarkers] });
}

function apply(s: EditorState, command: Command): EditorState {
  let next = s;
  command(s, (tr) => (next = s.apply(tr)));
  return next;
}

/** The caret `offset` characters into the first text holding `text`. */
function caretIn(s: EditorState, text: string, offset = 0): EditorState {
  let at = -1;
  s.doc.descendants((node, pos) => {
    if (at < 0 && node.isText && node.text?.includes(text)) at = pos + node.text.indexOf(text) + offset;
    return at < 0;
  });
  return s.apply(s.tr.setSelection(TextSelection.create(s.doc, at)));
}

const texts = (s: EditorState) => fromDoc(s.doc).map((b) => (b as Paragraph).text);

describe("chunks, which the user never sees", () => {
  it("hold a long document's blocks in order, and give them back as they were", () => {
    const blocks = long();
    const doc = toDoc(blocks);
    expect(doc.childCount).toBe(3);
    expect(doc.child(0).childCount).toBe(CHUNK_SIZE);
    expect(blocksOf(doc)).toHaveLength(blocks.length);
    expect(fromDoc(doc)).toEqual(blocks);
  });

  it("join under Backspace and Delete at their edges, and the paragraphs join as anywhere else", () => {
    const first = `Paragraph ${CHUNK_SIZE}.`;
    const backspace = apply(caretIn(state(long()), first), acrossChunks(baseKeymap.Backspace, -1));
    expect(backspace.doc.childCount).toBe(2);
    expect(texts(backspace)[CHUNK_SIZE - 1]).toBe(`Paragraph ${CHUNK_SIZE - 1}.${first}`);
    // The caret stays where the paragraphs met.
    expect(backspace.selection.$from.parent.textContent).toBe(`Paragraph ${CHUNK_SIZE - 1}.${first}`);
    const last = `Paragraph ${CHUNK_SIZE - 1}.`;
    const del = apply(caretIn(state(long()), last, last.length), acrossChunks(baseKeymap.Delete, 1));
    expect(texts(del)[CHUNK_SIZE - 1]).toBe(`${last}${first}`);
    expect(texts(del)).toHaveLength(long().length - 1);
    // Anywhere else the keys are the editor's usual ones.
    expect(acrossChunks(baseKeymap.Backspace, -1)(caretIn(state(long()), "Paragraph 3."))).toBe(false);
    expect(acrossChunks(baseKeymap.Backspace, -1)(caretIn(state(long()), "Paragraph 0."))).toBe(false);
  });

  it("leave Enter as it is: twice at a paragraph's end makes a blank line, on a fixed part a paragraph after it", () => {
    const text = "Paragraph 10.";
    let s = apply(caretIn(state(long()), text, text.length), enter);
    s = apply(s, enter);
    expect(texts(s).slice(10, 13)).toEqual([text, "", ""]);
    expect(blocksOf(s.doc)).toHaveLength(long().length + 2);
    expect(s.doc.childCount).toBe(3);
    // A fixed part first in the second chunk, selected: the new paragraph comes after it.
    const blocks = long((i) => (i === CHUNK_SIZE ? { kind: "fixed", startIndex: 900 } : p(`Paragraph ${i}.`)));
    const fixed = state(blocks);
    let at = -1;
    forEachBlock(fixed.doc, (node, pos) => {
      if (node.type.name === "fixed") at = pos;
    });
    const after = apply(fixed.apply(fixed.tr.setSelection(NodeSelection.create(fixed.doc, at))), enter);
    expect(fromDoc(after.doc).slice(CHUNK_SIZE - 1, CHUNK_SIZE + 2).map((b) => b.kind === "paragraph" ? b.text : b.kind)).toEqual([`Paragraph ${CHUNK_SIZE - 1}.`, "fixed", ""]);
  });

  it("take every deleting key of the base keymap across their edges", () => {
    expect(Object.keys(chunkEdgeKeys)).toEqual(expect.arrayContaining(["Backspace", "Mod-Backspace", "Shift-Backspace", "Delete", "Mod-Delete"]));
    const first = `Paragraph ${CHUNK_SIZE}.`;
    const joined = apply(caretIn(state(long()), first), chunkEdgeKeys["Shift-Backspace"]);
    expect(texts(joined)[CHUNK_SIZE - 1]).toBe(`Paragraph ${CHUNK_SIZE - 1}.${first}`);
  });

  it("number a list across their edges, and a list made there joins the list before it", () => {
    const s = state(long((i) => item(`Item ${i}.`)));
    expect([...markers(s.doc).values()].slice(CHUNK_SIZE - 1, CHUNK_SIZE + 1)).toEqual([`${CHUNK_SIZE}.`, `${CHUNK_SIZE + 1}.`]);
    const blocks = long((i) => (i < CHUNK_SIZE ? item(`Item ${i}.`) : p(`Paragraph ${i}.`)));
    const listed = apply(caretIn(state(blocks), `Paragraph ${CHUNK_SIZE}.`), toggleList("number"));
    expect((fromDoc(listed.doc)[CHUNK_SIZE] as Paragraph).list).toEqual({ id: "kix.1", kind: "number", level: 0 });
  });

  it("let a new table at a chunk's end use the paragraph that follows in the next", () => {
    const s = apply(caretIn(state(long()), `Paragraph ${CHUNK_SIZE - 1}.`), insertTable);
    const kinds = fromDoc(s.doc).map((b) => b.kind);
    expect(kinds.filter((k) => k === "table")).toHaveLength(1);
    expect(kinds).toHaveLength(long().length + 1);
  });

  it("are unwrapped from what is copied here, keeping which ends are open", () => {
    const doc = toDoc(long());
    const slice = doc.slice(4, doc.child(0).nodeSize + 6);
    expect(slice.openStart).toBe(2);
    const unwrapped = unwrapChunks(slice);
    expect(unwrapped.openStart).toBe(1);
    expect(unwrapped.content.childCount).toBe(CHUNK_SIZE + 1);
    const plain = new Slice(toDoc([p("x")]).child(0).content, 0, 0);
    expect(unwrapChunks(plain)).toBe(plain);
  });
});
