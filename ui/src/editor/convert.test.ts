// The editor's side of index mapping. The editor does not map its positions to Docs' indexes:
// it sends blocks (each paragraph's text with its runs' lengths in UTF-16 code units, as Docs
// counts), and the planner (crates/staffroom-providers/src/google/planner.rs) turns them into
// indexes. So the mapping holds exactly when every block Docs can send survives the editor's
// document unchanged: texts with surrogate pairs, clusters and soft breaks, run boundaries and
// marks, alignments, list places, tables with their identities, fixed parts.
import { describe, expect, it } from "vitest";
import fc from "fast-check";
import type { EditBlock, StyledRun } from "../types";
import { fromDoc, toDoc } from "./convert";
import { SOFT_BREAK } from "./schema";

const STYLES = ["NORMAL_TEXT", "TITLE", "SUBTITLE", "HEADING_1", "HEADING_2", "HEADING_3", "HEADING_4", "HEADING_5", "HEADING_6"];
/** Characters of one and two UTF-16 units, a cluster of several, and a soft break. */
const piece = fc
  .array(fc.constantFrom("a", "Z", " ", "é", "中", "😀", "👩‍💻", "🇬🇧", SOFT_BREAK, "\t", "‑"), { minLength: 1, maxLength: 4 })
  .map((chars) => chars.join(""));
const marks = fc.record({
  bold: fc.boolean(),
  italic: fc.boolean(),
  underline: fc.boolean(),
  strikethrough: fc.boolean(),
  link: fc.option(fc.constantFrom("https://example.com/a", "https://example.com/b?q=1"), { nil: undefined }),
});

/** A run as the service sends it: only the marks that are set. */
function run(len: number, m: Omit<StyledRun, "len">): StyledRun {
  const out: StyledRun = { len };
  for (const name of ["bold", "italic", "underline", "strikethrough"] as const) if (m[name]) out[name] = true;
  if (m.link) out.link = m.link;
  return out;
}

/** A paragraph as Docs has it: runs cover the text, none empty, neighbours differ. */
const paragraph = (listed: boolean) =>
  fc
    .record({
      pieces: fc.array(fc.tuple(piece, marks), { maxLength: 4 }),
      style: fc.constantFrom(...STYLES),
      // Absent in a draft kept before the editor had alignment.
      alignment: fc.option(fc.constantFrom("START" as const, "CENTER" as const, "END" as const, "JUSTIFIED" as const), { nil: undefined }),
      list: listed
        ? fc.option(fc.record({ id: fc.constantFrom("kix.a", "kix.b"), kind: fc.constantFrom("bullet" as const, "number" as const), level: fc.integer({ min: 0, max: 8 }) }), { nil: undefined })
        : fc.constant(undefined),
    })
    .map(({ pieces, style, alignment, list }): EditBlock => {
      const runs: StyledRun[] = [];
      for (const [text, m] of pieces) {
        const next = run(text.length, m);
        const last = runs[runs.length - 1];
        if (last && JSON.stringify({ ...last, len: 0 }) === JSON.stringify({ ...next, len: 0 })) last.len += next.len;
        else runs.push(next);
      }
      const block: EditBlock = { kind: "paragraph", text: pieces.map(([text]) => text).join(""), style, runs };
      if (alignment) block.alignment = alignment;
      if (list) block.list = list;
      return block;
    });

const table = fc
  .record({ width: fc.integer({ min: 1, max: 3 }), height: fc.integer({ min: 1, max: 3 }), startIndex: fc.integer({ min: 1, max: 100_000 }) })
  .chain(({ width, height, startIndex }) =>
    fc.array(fc.array(fc.array(paragraph(false), { minLength: 1, maxLength: 2 }), { minLength: width, maxLength: width }), { minLength: height, maxLength: height }).map(
      (cells): EditBlock => ({
        kind: "table",
        startIndex,
        columns: Array.from({ length: width }, (_, c) => c),
        rows: cells.map((row, r) => ({ from: r, cells: row })),
      }),
    ),
  );

const fixed = fc.integer({ min: 1, max: 100_000 }).map((startIndex): EditBlock => ({ kind: "fixed", startIndex }));
const blocks = fc.array(fc.oneof({ arbitrary: paragraph(true), weight: 6 }, { arbitrary: table, weight: 1 }, { arbitrary: fixed, weight: 1 }), { minLength: 1, maxLength: 12 });

describe("the editor's document and the planner's blocks", () => {
  it("gives back every block it was given: texts, UTF-16 run lengths, marks, alignments, lists, tables, fixed parts", () => {
    fc.assert(
      fc.property(blocks, (given) => {
        expect(fromDoc(toDoc(given))).toEqual(given);
      }),
      { numRuns: 300 },
    );
  });

  it("counts a run's length in UTF-16 code units, as Docs does", () => {
    const given: EditBlock[] = [{ kind: "paragraph", text: "😀 ok", style: "NORMAL_TEXT", runs: [{ len: 2, bold: true }, { len: 3 }] }];
    expect(fromDoc(toDoc(given))).toEqual(given);
  });
});
