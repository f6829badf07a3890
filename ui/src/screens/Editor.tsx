import { useEffect, useMemo, useRef, useState, type KeyboardEvent } from "react";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { getCurrentWindow } from "@tauri-apps/api/window";
import { api, describeError } from "../api";
import { useTeamServerReach } from "../reach";
import { TeamServerBanner } from "../components/TeamServerBanner";
import type { EditBlock, EditorView, GoogleDocument, RebaseConflict, StructuralElement, TextRun } from "../types";

/** How often unsaved edits are kept as a draft. */
export const DRAFT_DELAY_MS = 3000;

/** A soft line break inside a paragraph (Shift+Enter), as Google Docs keeps it. */
const SOFT_BREAK = "\u000b";
/** What Google writes in a text run in place of a non-text element (a smart chip, …). */
const NON_TEXT = "\ue907";

/** The editor window of one document. */
export function Editor({ id }: { id: string }) {
  const view = useQuery({ queryKey: ["editor", id], queryFn: () => api.editorDocument({ id }) });
  useTeamServerReach();
  if (view.isPending) return <main className="editor"><p className="muted">Opening the document…</p></main>;
  if (view.isError) return <main className="editor"><TeamServerBanner /><p className="error" role="alert">{describeError(view.error)}</p></main>;
  return (
    <>
      <TeamServerBanner />
      <EditorBody key={view.data.document.revisionId} id={id} view={view.data} />
    </>
  );
}

type Paragraph = Extract<EditBlock, { kind: "paragraph" }>;

function EditorBody({ id, view }: { id: string; view: EditorView }) {
  const queryClient = useQueryClient();
  const [doc, setDoc] = useState<GoogleDocument>(view.document);
  // A read-only document has no revision (Google gives none to viewers): nothing is saved then.
  const [base, setBase] = useState<string>(view.draft?.baseRevisionId ?? view.document.revisionId ?? "");
  const [blocks, setBlocks] = useState<EditBlock[]>(view.draft?.blocks ?? view.blocks);
  // A restored draft is unsaved work.
  const [dirty, setDirty] = useState(Boolean(view.draft));
  const [editing, setEditing] = useState<number | null>(null);
  const [caret, setCaret] = useState<number | null>(null);
  const [conflicts, setConflicts] = useState<RebaseConflict[]>([]);
  const [note, setNote] = useState<string | null>(view.draft ? `Restored your unsaved edits from ${new Date(view.draft.updatedAt).toLocaleString()}.` : null);

  useEffect(() => {
    document.title = `${doc.name} — Staffroom`;
  }, [doc.name]);

  // Elements by start index (fixed blocks), and the styled runs of the base paragraphs.
  const elements = useMemo(() => new Map(doc.body.content.map((e) => [e.startIndex, e])), [doc]);
  const baseRuns = useMemo(() => {
    const runs = new Map<string, TextRun[]>();
    for (const e of doc.body.content) {
      const p = e.paragraph;
      if (!p) continue;
      const list = p.elements.flatMap((el) => (el.textRun ? [el.textRun] : []));
      const text = list.map((r) => r.content).join("").replace(/\n$/, "");
      if (!runs.has(text)) runs.set(text, list);
    }
    return runs;
  }, [doc]);

  const draft = useMutation({
    mutationFn: () => api.saveDraft({ id, baseRevisionId: base, blocks }),
    onSuccess: (d) => setNote(`Unsaved edits kept at ${new Date(d.updatedAt).toLocaleTimeString()}.`),
  });
  useEffect(() => {
    if (!dirty) return;
    const timer = setTimeout(() => draft.mutate(), DRAFT_DELAY_MS);
    return () => clearTimeout(timer);
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [blocks, dirty]);

  // Closing the window (its close button, Ctrl+W or Close) first keeps what was typed since the
  // last draft, so nothing is lost to a window closed a second after typing.
  const latest = useRef({ dirty, base, blocks });
  latest.current = { dirty, base, blocks };
  useEffect(() => {
    const stop = getCurrentWindow().onCloseRequested(async () => {
      const { dirty, base, blocks } = latest.current;
      if (dirty) await api.saveDraft({ id, baseRevisionId: base, blocks }).catch(() => undefined);
    });
    const onKey = (event: globalThis.KeyboardEvent) => {
      if ((event.ctrlKey || event.metaKey) && event.key.toLowerCase() === "w") {
        event.preventDefault();
        void getCurrentWindow().close();
      }
    };
    window.addEventListener("keydown", onKey);
    return () => {
      window.removeEventListener("keydown", onKey);
      void stop.then((unlisten) => unlisten());
    };
  }, [id]);

  const save = useMutation({
    mutationFn: () => api.saveDocument({ id, baseRevisionId: base, blocks }),
    onSuccess: (outcome) => {
      if (outcome.outcome === "saved") {
        setDirty(false);
        setNote(outcome.requests === 0 ? "Nothing to save." : `Saved (${outcome.requests} changes sent).`);
        void queryClient.invalidateQueries({ queryKey: ["editor", id] });
        return;
      }
      setDoc(outcome.document);
      setBase(outcome.document.revisionId ?? "");
      setBlocks(outcome.rebased.blocks);
      setConflicts(outcome.rebased.conflicts);
      setNote(
        outcome.rebased.conflicts.length === 0
          ? "Someone else changed this document. Your edits were carried onto their version: check and save again."
          : "Someone else changed the same parts. Choose a version for each below, then save again.",
      );
    },
  });

  const update = (next: EditBlock[]) => {
    setBlocks(next);
    setDirty(true);
  };
  const setParagraph = (index: number, change: Partial<Paragraph>) =>
    update(blocks.map((b, i) => (i === index && b.kind === "paragraph" ? { ...b, ...change } : b)));

  const onKeyDown = (index: number, event: KeyboardEvent<HTMLTextAreaElement>) => {
    const block = blocks[index] as Paragraph;
    const at = event.currentTarget.selectionStart;
    if ((event.ctrlKey || event.metaKey) && event.key === "s") {
      event.preventDefault();
      save.mutate();
    } else if (event.key === "Enter" && !event.shiftKey) {
      // Enter splits the paragraph at the caret, as in any editor; Shift+Enter breaks the line
      // within it, as in Google Docs.
      event.preventDefault();
      const next: Paragraph = { kind: "paragraph", text: block.text.slice(at), style: "NORMAL_TEXT" };
      update([...blocks.slice(0, index), { ...block, text: block.text.slice(0, at) }, next, ...blocks.slice(index + 1)]);
      setEditing(index + 1);
      setCaret(0);
    } else if (event.key === "Backspace" && at === 0 && event.currentTarget.selectionEnd === 0 && blocks[index - 1]?.kind === "paragraph") {
      // Backspace at the start joins the paragraph to the one before.
      event.preventDefault();
      const previous = blocks[index - 1] as Paragraph;
      update([...blocks.slice(0, index - 1), { ...previous, text: previous.text + block.text }, ...blocks.slice(index + 1)]);
      setEditing(index - 1);
      setCaret(previous.text.length);
    } else if (event.key === "Escape") {
      setEditing(null);
    }
  };

  const choose = (conflict: RebaseConflict, side: "mine" | "theirs") => {
    if (side === "mine") {
      const delta = conflict.mine.length - conflict.len;
      update([...blocks.slice(0, conflict.at), ...conflict.mine, ...blocks.slice(conflict.at + conflict.len)]);
      setConflicts(conflicts.filter((c) => c !== conflict).map((c) => (c.at > conflict.at ? { ...c, at: c.at + delta } : c)));
    } else {
      setConflicts(conflicts.filter((c) => c !== conflict));
    }
  };

  const readOnly = view.readOnlyReason !== null;
  return (
    <main className="editor" aria-label={`${readOnly ? "Reading" : "Editing"} ${doc.name}`}>
      <header className="editor-bar">
        <h1>{doc.name}</h1>
        <div className="spacer" />
        {readOnly ? (
          <span className="badge" role="status">Read only</span>
        ) : (
          <>
            <span className="muted small" role="status">{dirty ? "Unsaved changes" : "All changes saved"}</span>
            <button
              type="button"
              className="primary"
              onClick={() => save.mutate()}
              disabled={save.isPending || conflicts.length > 0 || !dirty}
              title="Save (Ctrl+S)"
            >
              {save.isPending ? "Saving…" : "Save"}
            </button>
          </>
        )}
        <button type="button" onClick={() => void getCurrentWindow().close()} title="Close (Ctrl+W); unsaved edits stay as a draft">
          Close
        </button>
      </header>
      {view.stale && <div className="banner" role="status">Google cannot be reached: this is the copy read earlier. Edits are kept as a draft until it can be saved.</div>}
      {readOnly && <div className="banner" role="status">{view.readOnlyReason}</div>}
      {note && <p className="callout small" aria-live="polite">{note}</p>}
      {save.isError && <p className="error" role="alert">{describeError(save.error)}</p>}
      {conflicts.map((c, n) => (
        <section key={`${c.at}-${n}`} className="card conflict" aria-label="Conflict">
          <div className="conflict-sides">
            <div>
              <h3>Their version</h3>
              {c.theirs.map((b, i) => <p key={i}>{b.kind === "paragraph" ? b.text || "(empty line)" : "(table)"}</p>)}
            </div>
            <div>
              <h3>Your version</h3>
              {c.mine.map((b, i) => <p key={i}>{b.kind === "paragraph" ? b.text || "(empty line)" : "(table)"}</p>)}
            </div>
          </div>
          <div className="row">
            <button type="button" onClick={() => choose(c, "theirs")}>Keep theirs</button>
            <button type="button" onClick={() => choose(c, "mine")} disabled={c.mine.some((b) => b.kind === "fixed")}>Use mine</button>
          </div>
        </section>
      ))}
      <article className="page">
        {blocks.map((block, index) => {
          if (block.kind === "fixed") return <Fixed key={`f${block.startIndex}`} element={elements.get(block.startIndex)} doc={doc} />;
          const label = `Paragraph ${index + 1}`;
          if (readOnly) {
            return (
              <div key={index} className="para-row">
                <span className="muted small">{view.styles.find((s) => s.id === block.style)?.label}</span>
                <div aria-label={label} className={`para para-${block.style}`}><Runs runs={baseRuns.get(block.text)} text={block.text} /></div>
              </div>
            );
          }
          return (
            <div key={index} className="para-row">
              <select
                aria-label={`Style of paragraph ${index + 1}`}
                value={block.style}
                onChange={(e) => setParagraph(index, { style: e.target.value })}
              >
                {view.styles.map((s) => <option key={s.id} value={s.id}>{s.label}</option>)}
              </select>
              {editing === index ? (
                <AutoTextarea
                  label={label}
                  className={`para para-${block.style}`}
                  value={block.text}
                  caret={caret}
                  onChange={(text) => setParagraph(index, { text })}
                  onKeyDown={(e) => onKeyDown(index, e)}
                />
              ) : (
                <div
                  role="button"
                  tabIndex={0}
                  aria-label={label}
                  className={`para para-${block.style}`}
                  onClick={() => { setEditing(index); setCaret(null); }}
                  onKeyDown={(e) => { if (e.key === "Enter") { e.preventDefault(); setEditing(index); setCaret(null); } }}
                >
                  <Runs runs={baseRuns.get(block.text)} text={block.text} />
                </div>
              )}
            </div>
          );
        })}
      </article>
    </main>
  );
}

function AutoTextarea(props: {
  label: string;
  className: string;
  value: string;
  caret: number | null;
  onChange: (value: string) => void;
  onKeyDown: (event: KeyboardEvent<HTMLTextAreaElement>) => void;
}) {
  const ref = useRef<HTMLTextAreaElement>(null);
  useEffect(() => {
    const el = ref.current;
    if (!el) return;
    el.focus();
    const at = props.caret ?? el.value.length;
    el.setSelectionRange(at, at);
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, []);
  return (
    <textarea
      ref={ref}
      aria-label={props.label}
      className={props.className}
      rows={props.value.split(SOFT_BREAK).reduce((rows, line) => rows + Math.max(1, Math.ceil(line.length / 80)), 0)}
      // Soft line breaks show as line breaks; a line break typed here (Shift+Enter, or pasted)
      // is one, since Enter itself splits the paragraph.
      value={props.value.replaceAll(SOFT_BREAK, "\n")}
      onChange={(e) => props.onChange(e.target.value.replace(/\r?\n/g, SOFT_BREAK))}
      onKeyDown={props.onKeyDown}
    />
  );
}

/** Text as shown: soft line breaks as line breaks, non-text elements as a marker. */
function shown(text: string): React.ReactNode {
  if (!text.includes(NON_TEXT)) return text.replaceAll(SOFT_BREAK, "\n");
  return text.split(NON_TEXT).flatMap((part, i) => [
    ...(i > 0 ? [<span key={`x${i}`} className="object-placeholder" title="A smart chip or other element that only Google Docs shows">◆ chip</span>] : []),
    part.replaceAll(SOFT_BREAK, "\n"),
  ]);
}

/** A paragraph's text with its character styles, when it is still the text that was read. */
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
  if (p.bullet) return "List item";
  if (p.elements.some((e) => !e.textRun)) return "Holds an image or other object";
  return "Holds an element only Google Docs shows";
}

/** A table or other structure, or a paragraph holding more than text: shown, never edited. */
function Fixed({ element, doc }: { element?: StructuralElement; doc: GoogleDocument }) {
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
