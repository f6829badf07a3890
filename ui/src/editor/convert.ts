import type { Mark, Node } from "prosemirror-model";
import type { EditBlock, ListKind, StyledRun } from "../types";
import { schema, SOFT_BREAK } from "./schema";

type Marks = Omit<StyledRun, "len">;

function marksOf(run: Marks): Mark[] {
  const out: Mark[] = [];
  if (run.bold) out.push(schema.marks.bold.create());
  if (run.italic) out.push(schema.marks.italic.create());
  if (run.underline) out.push(schema.marks.underline.create());
  if (run.strikethrough) out.push(schema.marks.strikethrough.create());
  if (run.link) out.push(schema.marks.link.create({ href: run.link }));
  return out;
}

function runOf(len: number, marks: readonly Mark[]): StyledRun {
  const run: StyledRun = { len };
  for (const mark of marks) {
    if (mark.type === schema.marks.link) run.link = mark.attrs.href as string;
    else run[mark.type.name as "bold" | "italic" | "underline" | "strikethrough"] = true;
  }
  return run;
}

const sameMarks = (a: StyledRun, b: StyledRun) =>
  Boolean(a.bold) === Boolean(b.bold) &&
  Boolean(a.italic) === Boolean(b.italic) &&
  Boolean(a.underline) === Boolean(b.underline) &&
  Boolean(a.strikethrough) === Boolean(b.strikethrough) &&
  (a.link ?? null) === (b.link ?? null);

/** The inline content of a paragraph's text with these runs (soft breaks as their own nodes). */
function inline(text: string, runs: StyledRun[] | undefined): Node[] {
  const pieces: [string, Mark[]][] = [];
  if (!runs) {
    pieces.push([text, []]);
  } else {
    let at = 0;
    for (const run of runs) {
      pieces.push([text.slice(at, at + run.len), marksOf(run)]);
      at += run.len;
    }
    // Runs that do not cover the text (they always do when read from Google) leave the rest plain.
    if (at < text.length) pieces.push([text.slice(at), []]);
  }
  const out: Node[] = [];
  for (const [piece, marks] of pieces) {
    piece.split(SOFT_BREAK).forEach((part, i) => {
      if (i > 0) out.push(schema.nodes.soft_break.create(null, null, marks));
      if (part) out.push(schema.text(part, marks));
    });
  }
  return out;
}

/** The editor's document for the blocks the service sent (or a draft kept). */
export function toDoc(blocks: EditBlock[]): Node {
  const children = blocks.map((block) =>
    block.kind === "fixed"
      ? schema.nodes.fixed.create({ startIndex: block.startIndex })
      : schema.nodes.paragraph.create(
          { style: block.style, listId: block.list?.id ?? null, listKind: block.list?.kind ?? null, level: block.list?.level ?? 0 },
          inline(block.text, block.runs),
        ),
  );
  if (children.length === 0) children.push(schema.nodes.paragraph.create());
  return schema.nodes.doc.create(null, children);
}

/** The blocks the planner turns into Google's requests: each paragraph's text and its runs. */
export function fromDoc(doc: Node): EditBlock[] {
  const blocks: EditBlock[] = [];
  doc.forEach((node) => {
    if (node.type === schema.nodes.fixed) {
      blocks.push({ kind: "fixed", startIndex: node.attrs.startIndex as number });
      return;
    }
    let text = "";
    const runs: StyledRun[] = [];
    node.forEach((child) => {
      const piece = child.isText ? (child.text ?? "") : SOFT_BREAK;
      text += piece;
      const run = runOf(piece.length, child.marks);
      const last = runs[runs.length - 1];
      if (last && sameMarks(last, run)) last.len += run.len;
      else runs.push(run);
    });
    const block: EditBlock = { kind: "paragraph", text, style: node.attrs.style as string, runs };
    if (node.attrs.listKind) {
      block.list = { id: node.attrs.listId as string, kind: node.attrs.listKind as ListKind, level: node.attrs.level as number };
    }
    blocks.push(block);
  });
  return blocks;
}
