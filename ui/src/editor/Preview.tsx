import type { EditBlock, StyledRun } from "../types";
import { ALIGNMENTS, SOFT_BREAK } from "./schema";

/** A paragraph's text with its character styles. */
function Styled({ text, runs }: { text: string; runs?: StyledRun[] }) {
  if (!text) return <span className="muted">(empty line)</span>;
  const pieces: [string, StyledRun | null][] = [];
  let at = 0;
  for (const run of runs ?? []) {
    pieces.push([text.slice(at, at + run.len), run]);
    at += run.len;
  }
  if (at < text.length) pieces.push([text.slice(at), null]);
  return (
    <>
      {pieces.map(([piece, run], i) => {
        let node: React.ReactNode = piece.replaceAll(SOFT_BREAK, "\n");
        if (run?.bold) node = <strong>{node}</strong>;
        if (run?.italic) node = <em>{node}</em>;
        if (run?.strikethrough) node = <s>{node}</s>;
        if (run?.underline && !run.link) node = <u>{node}</u>;
        if (run?.link) node = <a href={run.link} title={run.link} onClick={(e) => e.preventDefault()}>{node}</a>;
        return <span key={i}>{node}</span>;
      })}
    </>
  );
}

/** A block as a conflict shows it, side by side with the other version: a paragraph with its
 *  style, alignment, marks and list place; a table with its cells. */
export function BlockPreview({ block }: { block: EditBlock }) {
  switch (block.kind) {
    case "paragraph": {
      const css = {
        ...(block.list ? { "--level": block.list.level } : {}),
        ...(block.alignment && block.alignment !== "START" ? { textAlign: ALIGNMENTS[block.alignment] } : {}),
      } as React.CSSProperties;
      return (
        <p className={`para para-${block.style}${block.list ? ` li li-${block.list.kind}` : ""}`} style={Object.keys(css).length > 0 ? css : undefined}>
          {block.list && <span className="preview-marker" aria-hidden="true">{block.list.kind === "bullet" ? "•" : "#"} </span>}
          <Styled text={block.text} runs={block.runs} />
        </p>
      );
    }
    case "table":
      return (
        <table className="table doc-table preview-table">
          <tbody>
            {block.rows.map((row, r) => (
              <tr key={r}>
                {row.cells.map((cell, c) => (
                  <td key={c}>{cell.map((p, k) => <BlockPreview key={k} block={p} />)}</td>
                ))}
              </tr>
            ))}
          </tbody>
        </table>
      );
    case "fixed":
      return <p className="muted">(An image or other part, kept as it is)</p>;
  }
}
