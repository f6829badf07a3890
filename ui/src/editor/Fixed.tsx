import type { GoogleDocument, StructuralElement, TextRun } from "../types";
import { SOFT_BREAK } from "./schema";

/** What Google writes in a text run in place of a non-text element (a smart chip, …). */
const NON_TEXT = "\ue907";

/** Text as shown: soft line breaks as line breaks, non-text elements as a marker. */
function shown(text: string): React.ReactNode {
  if (!text.includes(NON_TEXT)) return text.replaceAll(SOFT_BREAK, "\n");
  return text.split(NON_TEXT).flatMap((part, i) => [
    ...(i > 0 ? [<span key={`x${i}`} className="object-placeholder" title="A smart chip or other element that only Google Docs shows">◆ chip</span>] : []),
    part.replaceAll(SOFT_BREAK, "\n"),
  ]);
}

/** A fixed paragraph's runs with their character styles. */
function Runs({ runs, text }: { runs?: TextRun[]; text: string }) {
  if (!text) return <span className="muted">&nbsp;</span>;
  if (!runs) return <>{shown(text)}</>;
  return (
    <>
      {runs.map((run, i) => {
        const content = run.content.replace(/\n$/, "");
        const style = run.style ?? {};
        let node: React.ReactNode = shown(content);
        if (style.bold) node = <strong>{node}</strong>;
        if (style.italic) node = <em>{node}</em>;
        if (style.strikethrough) node = <s>{node}</s>;
        if (style.underline || style.link) node = <u>{node}</u>;
        if (run.suggestedInsertionIds?.length) node = <ins className="suggestion" title="Suggested addition, not accepted yet">{node}</ins>;
        if (run.suggestedDeletionIds?.length) node = <del className="suggestion" title="Suggested removal, not accepted yet">{node}</del>;
        return <span key={i} title={style.link ? "Link" : undefined}>{node}</span>;
      })}
    </>
  );
}

/** The title Google gives an inline or anchored object, if any. */
function objectTitle(objects: Record<string, unknown> | undefined, id: string, kind: "inline" | "positioned"): string {
  const object = objects?.[id] as Record<string, Record<string, Record<string, unknown>>> | undefined;
  const props = object?.[kind === "inline" ? "inlineObjectProperties" : "positionedObjectProperties"];
  const title = props?.embeddedObject?.title;
  return typeof title === "string" && title ? title : kind === "inline" ? "Image" : "Anchored object";
}

/** Why a paragraph is shown but not edited here. */
function keptBecause(p: NonNullable<StructuralElement["paragraph"]>): string {
  const runs = p.elements.flatMap((e) => (e.textRun ? [e.textRun] : []));
  if (runs.some((r) => r.suggestedInsertionIds?.length || r.suggestedDeletionIds?.length)) return "Pending suggestion: accept or reject it in Google Docs";
  if (p.positionedObjectIds?.length) return "An object is anchored here";
  if (p.elements.some((e) => !e.textRun)) return "Holds an image or other object";
  if (runs.some((r) => r.content.includes("\ue907"))) return "Holds an element only Google Docs shows";
  // The one list item kept as it is: making its list again would read the tab as nesting.
  if (p.bullet) return "A list item starting with a tab: edit it in Google Docs";
  return "Holds an element only Google Docs shows";
}

/** A table or other structure, or a paragraph holding more than text: shown, never edited. */
export function Fixed({ element, doc }: { element?: StructuralElement; doc: GoogleDocument }) {
  const paragraph = element?.paragraph;
  if (paragraph) {
    return (
      <p className="fixed-para" aria-label="Read-only paragraph">
        <span className="why">{keptBecause(paragraph)}</span>
        {paragraph.bullet ? "• " : null}
        {paragraph.elements.map((e, i) => {
          if (e.textRun) return <Runs key={i} runs={[e.textRun]} text={e.textRun.content.replace(/\n$/, "")} />;
          const inline = (e as unknown as { inlineObjectElement?: { inlineObjectId?: string } }).inlineObjectElement;
          const title = inline?.inlineObjectId ? objectTitle(doc.inlineObjects, inline.inlineObjectId, "inline") : "Element";
          return <span key={i} className="object-placeholder">🖼 {title}</span>;
        })}
        {(paragraph.positionedObjectIds ?? []).map((id) => (
          <span key={id} className="object-placeholder"> ⚓ {objectTitle(doc.positionedObjects, id, "positioned")}</span>
        ))}
      </p>
    );
  }
  if (element?.table) {
    return (
      <table className="table doc-table" aria-label="Table (read-only)">
        <caption className="why">Merged cells or a list in a cell: edit this table in Google Docs</caption>
        <tbody>
          {element.table.tableRows.map((row, r) => (
            <tr key={r}>
              {row.tableCells.map((cell, c) => (
                <td key={c}>
                  {cell.content
                    .flatMap((e) => e.paragraph?.elements ?? [])
                    .map((el) => el.textRun?.content ?? "")
                    .join("")
                    .trim()}
                </td>
              ))}
            </tr>
          ))}
        </tbody>
      </table>
    );
  }
  return <p className="fixed muted" aria-label="Read-only part">(An image or other part that cannot be edited here)</p>;
}
