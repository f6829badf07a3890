import type { Mark, Node } from "prosemirror-model";
import type { EditorState, Transaction } from "prosemirror-state";
import type { Alignment, EditBlock, ListKind, RunLook, StyledRun } from "../types";
import { chunked, forEachBlock } from "./chunks";
import { schema, SOFT_BREAK } from "./schema";

type Marks = Omit<StyledRun, "len">;

function marksOf(run: Marks): Mark[] {
  const out: Mark[] = [];
  if (run.bold) out.push(schema.marks.bold.create());
  if (run.italic) out.push(schema.marks.italic.create());
  if (run.underline) out.push(schema.marks.underline.create());
  if (run.strikethrough) out.push(schema.marks.strikethrough.create());
  if (run.link) out.push(schema.marks.link.create({ href: run.link }));
  if (run.look) out.push(schema.marks.look.create({ look: run.look }));
  return out;
}

function runOf(len: number, marks: readonly Mark[]): StyledRun {
  const run: StyledRun = { len };
  for (const mark of marks) {
    if (mark.type === schema.marks.link) run.link = mark.attrs.href as string;
    else if (mark.type === schema.marks.look) run.look = mark.attrs.look as RunLook;
    else run[mark.type.name as "bold" | "italic" | "underline" | "strikethrough"] = true;
  }
  return run;
}

const sameMarks = (a: StyledRun, b: StyledRun) =>
  Boolean(a.bold) === Boolean(b.bold) &&
  Boolean(a.italic) === Boolean(b.italic) &&
  Boolean(a.underline) === Boolean(b.underline) &&
  Boolean(a.strikethrough) === Boolean(b.strikethrough) &&
  (a.link ?? null) === (b.link ?? null) &&
  JSON.stringify(a.look ?? null) === JSON.stringify(b.look ?? null);

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

/** A paragraph block as the editor's node. */
function paragraphNode(block: Extract<EditBlock, { kind: "paragraph" }>): Node {
  return schema.nodes.paragraph.create(
    {
      style: block.style,
      alignment: block.alignment ?? null,
      listId: block.list?.id ?? null,
      listKind: block.list?.kind ?? null,
      level: block.list?.level ?? 0,
    },
    inline(block.text, block.runs),
  );
}

/** A cell's paragraphs as nodes (a cell always holds one at least). */
function cellContent(blocks: EditBlock[]): Node[] {
  const paragraphs = blocks.flatMap((b) => (b.kind === "paragraph" ? [paragraphNode(b)] : []));
  return paragraphs.length > 0 ? paragraphs : [schema.nodes.paragraph.create()];
}

/** The editor's node for a block. */
function blockNode(block: EditBlock): Node {
  switch (block.kind) {
    case "fixed":
      return schema.nodes.fixed.create({ startIndex: block.startIndex });
    case "paragraph":
      return paragraphNode(block);
    case "table":
      return schema.nodes.table.create(
        { startIndex: block.startIndex ?? null },
        block.rows.map((row) =>
          schema.nodes.table_row.create(
            { from: row.from ?? null },
            row.cells.map((cell, c) => schema.nodes.table_cell.create({ column: block.columns[c] ?? null }, cellContent(cell))),
          ),
        ),
      );
  }
}

/** The editor's document for the blocks the service sent (or a draft kept). */
export function toDoc(blocks: EditBlock[]): Node {
  const children = blocks.map(blockNode);
  if (children.length === 0) children.push(schema.nodes.paragraph.create());
  return schema.nodes.doc.create(null, chunked(children));
}

/** A paragraph node's text, runs, style, alignment and list place. */
function paragraphBlock(node: Node): EditBlock {
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
  if (node.attrs.alignment) block.alignment = node.attrs.alignment as Alignment;
  if (node.attrs.listKind) {
    block.list = { id: node.attrs.listId as string, kind: node.attrs.listKind as ListKind, level: node.attrs.level as number };
  }
  return block;
}

/** Which of the document's rows or columns each one is: a copy pasted out of order, or twice,
 *  counts as new (the text is the same either way; only the requests are fewer). */
function identities(values: unknown[]): (number | null)[] {
  let last = -1;
  return values.map((value) => {
    if (typeof value !== "number" || value <= last) return null;
    last = value;
    return value;
  });
}

/** A table node as the planner's block. A cell's paragraphs are never list items (Docs' lists
 *  in cells are not edited here). */
function tableBlock(node: Node): EditBlock {
  const rows: Node[] = [];
  node.forEach((row) => rows.push(row));
  const cellsOf = (row: Node) => {
    const cells: Node[] = [];
    row.forEach((cell) => cells.push(cell));
    return cells;
  };
  // Each column's identity from the first row that has one (a row added above the first has none).
  const grid = rows.map(cellsOf);
  const width = grid.length > 0 ? grid[0].length : 0;
  const columns = identities(
    Array.from({ length: width }, (_, c) => grid.map((cells) => cells[c]?.attrs.column).find((v) => v !== null && v !== undefined) ?? null),
  );
  const from = identities(rows.map((row) => row.attrs.from));
  return {
    kind: "table",
    ...(node.attrs.startIndex === null ? {} : { startIndex: node.attrs.startIndex as number }),
    columns,
    rows: rows.map((row, r) => ({
      ...(from[r] === null ? {} : { from: from[r] as number }),
      cells: cellsOf(row).map((cell) => {
        const paragraphs: EditBlock[] = [];
        cell.forEach((p) => {
          const block = paragraphBlock(p);
          if (block.kind === "paragraph") delete block.list;
          paragraphs.push(block);
        });
        return paragraphs;
      }),
    })),
  };
}

/** The blocks the planner turns into Google's requests: each paragraph's text and its runs,
 *  each table's rows and cells. */
export function fromDoc(doc: Node): EditBlock[] {
  const blocks: EditBlock[] = [];
  forEachBlock(doc, (node) => {
    if (node.type === schema.nodes.fixed) blocks.push({ kind: "fixed", startIndex: node.attrs.startIndex as number });
    else if (node.type === schema.nodes.table) blocks.push(tableBlock(node));
    else blocks.push(paragraphBlock(node));
  });
  return blocks;
}

/** The meta a relabelling transaction carries: the structure guard lets it through (it moves
 *  identities, not content). */
export const RELABEL = "staffroom-relabel";

/** A block's content, without the identities a save moves: where fixed parts and tables start,
 *  which rows and columns are the document's, and list ids (Google names a new list itself). */
function content(block: EditBlock): unknown {
  switch (block.kind) {
    case "fixed":
      return "fixed";
    case "paragraph":
      return [
        block.text,
        block.style,
        block.alignment ?? null,
        // In a fixed order (the service's JSON and the editor's name a run's fields in others).
        block.runs?.map((r) => [r.len, Boolean(r.bold), Boolean(r.italic), Boolean(r.underline), Boolean(r.strikethrough), r.link ?? null]) ?? null,
        block.list ? [block.list.kind, block.list.level] : null,
      ];
    case "table":
      return block.rows.map((row) => row.cells.map((cell) => cell.map(content)));
  }
}

/** After a save: ties the editor's fixed parts, tables, rows, columns and lists to the saved
 *  revision's (`blocks`, read back from Google), leaving the undo history as it is. Null when the
 *  saved revision does not hold exactly what the editor holds (someone else changed it too): then
 *  the editor starts again from `blocks`. */
export function relabel(state: EditorState, blocks: EditBlock[]): Transaction | null {
  const { doc } = state;
  const mine = fromDoc(doc).map((block, i) => (blocks[i] ? withSavedAlignments(block, blocks[i]) : block));
  if (mine.length !== blocks.length || mine.some((b, i) => JSON.stringify(content(b)) !== JSON.stringify(content(blocks[i])))) {
    return null;
  }
  const tr = state.tr.setMeta("addToHistory", false).setMeta(RELABEL, true);
  // A paragraph whose alignment the editor left unsaid takes the saved one.
  const align = (node: Node, pos: number, block: EditBlock | undefined) => {
    if (node.attrs.alignment === null && block?.kind === "paragraph" && block.alignment) tr.setNodeAttribute(pos, "alignment", block.alignment);
  };
  forEachBlock(doc, (node, pos, i) => {
    const block = blocks[i];
    if (block.kind === "fixed") {
      tr.setNodeAttribute(pos, "startIndex", block.startIndex);
    } else if (block.kind === "paragraph") {
      if (block.list) tr.setNodeAttribute(pos, "listId", block.list.id);
      align(node, pos, block);
    } else {
      tr.setNodeAttribute(pos, "startIndex", block.startIndex ?? null);
      node.forEach((row, rowOffset, r) => {
        const rowPos = pos + 1 + rowOffset;
        tr.setNodeAttribute(rowPos, "from", block.rows[r].from ?? null);
        row.forEach((cell, cellOffset, c) => {
          const cellPos = rowPos + 1 + cellOffset;
          tr.setNodeAttribute(cellPos, "column", block.columns[c] ?? null);
          cell.forEach((paragraph, offset, k) => align(paragraph, cellPos + 1 + offset, block.rows[r].cells[c]?.[k]));
        });
      });
    }
  });
  return tr;
}

/** `mine` with the alignments it leaves unsaid (a draft kept before the editor had alignment)
 *  taken from `saved`: the saved revision kept them as they were. */
function withSavedAlignments(mine: EditBlock, saved: EditBlock): EditBlock {
  if (mine.kind === "paragraph" && saved.kind === "paragraph") {
    return mine.alignment === undefined && saved.alignment ? { ...mine, alignment: saved.alignment } : mine;
  }
  if (mine.kind === "table" && saved.kind === "table") {
    const cell = (paragraphs: EditBlock[], r: number, c: number) =>
      paragraphs.map((p, k) => {
        const other = saved.rows[r]?.cells[c]?.[k];
        return other ? withSavedAlignments(p, other) : p;
      });
    return { ...mine, rows: mine.rows.map((row, r) => ({ ...row, cells: row.cells.map((paragraphs, c) => cell(paragraphs, r, c)) })) };
  }
  return mine;
}
