import { useEffect, useRef, useState } from "react";
import type { Node as PmNode } from "prosemirror-model";
import { useMutation, useQuery } from "@tanstack/react-query";
import { getCurrentWindow } from "@tauri-apps/api/window";
import { api, describeError } from "../api";
import { useTeamServerReach } from "../reach";
import { TeamServerBanner } from "../components/TeamServerBanner";
import { fromDoc } from "../editor/convert";
import { BlockPreview } from "../editor/Preview";
import { RichEditor, type RichEditorHandle } from "../editor/RichEditor";
import type { EditBlock, EditorView as EditorViewData, GoogleDocument, RebaseConflict, TabOutline } from "../types";
import { DownloadButton } from "../components/DownloadButton";

/** How often unsaved edits are kept as a draft. */
export const DRAFT_DELAY_MS = 3000;

/** The editor window of one document. */
/** Whether "mine" of a conflict keeps the newer version's images and tables where they are (it
 *  does not when the document's structure changed under the edits). */
function structureKept(conflict: RebaseConflict): boolean {
  // A table added here is not the document's structure: it goes with the text around it.
  const starts = (blocks: EditBlock[]) => blocks.flatMap((b) => (b.kind === "paragraph" || b.startIndex === undefined ? [] : [b.startIndex]));
  return JSON.stringify(starts(conflict.mine)) === JSON.stringify(starts(conflict.theirs));
}

export function Editor({ id }: { id: string }) {
  // The tab shown: the first until another is chosen in the tab bar.
  const [tab, setTab] = useState<string | null>(null);
  const view = useQuery({
    queryKey: ["editor", id, tab],
    queryFn: async () => {
      // Marks for the editor's benchmark: when the document was asked for and when it arrived.
      performance.mark("editor:asked");
      const data = await api.editorDocument({ id, tabId: tab });
      performance.mark("editor:arrived");
      return data;
    },
    // Read once: the editor goes on from its own revision (a save moves it), and a refetch
    // (the window focused again) must not start it again from another.
    staleTime: Infinity,
    refetchOnWindowFocus: false,
  });
  useTeamServerReach();
  if (view.isPending) return <main className="editor"><p className="muted">Opening the document…</p></main>;
  if (view.isError) return <main className="editor"><TeamServerBanner /><p className="error" role="alert">{describeError(view.error)}</p></main>;
  return (
    <>
      <TeamServerBanner />
      <EditorBody key={`${id}/${tab ?? ""}`} id={id} view={view.data} onTab={setTab} />
    </>
  );
}

function EditorBody({ id, view, onTab }: { id: string; view: EditorViewData; onTab: (tab: string) => void }) {
  const [doc, setDoc] = useState<GoogleDocument>(view.document);
  // The tab edited: every save and draft names it (none for the first).
  const tabId = view.document.tabId ?? null;
  // A read-only document has no revision (Google gives none to viewers): nothing is saved then.
  const [base, setBase] = useState<string>(view.draft?.baseRevisionId ?? view.document.revisionId ?? "");
  // The blocks the editor was (re)made from; what was typed since lives in the editor's document.
  const [blocks, setBlocks] = useState<EditBlock[]>(view.draft?.blocks ?? view.blocks);
  const [editorKey, setEditorKey] = useState(0);
  const edited = useRef<PmNode | null>(null);
  const editor = useRef<RichEditorHandle>(null);
  // A restored draft is unsaved work.
  const [dirty, setDirty] = useState(Boolean(view.draft));
  const [conflicts, setConflicts] = useState<RebaseConflict[]>([]);
  const [note, setNote] = useState<string | null>(view.draft ? `Restored your unsaved edits from ${new Date(view.draft.updatedAt).toLocaleString()}.` : null);

  useEffect(() => {
    document.title = `${doc.name} — Staffroom`;
  }, [doc.name]);

  /** The blocks as they stand now, typed edits included. */
  const current = (): EditBlock[] => (edited.current ? fromDoc(edited.current) : blocks);
  /** Starts the editor again from these blocks (after a rebase, or a conflict's choice). */
  const restart = (next: EditBlock[]) => {
    edited.current = null;
    setBlocks(next);
    setEditorKey((k) => k + 1);
  };

  const draft = useMutation({
    mutationFn: () => api.saveDraft({ id, tabId, baseRevisionId: base, blocks: current() }),
    onSuccess: (d) => setNote(`Unsaved edits kept at ${new Date(d.updatedAt).toLocaleTimeString()}.`),
  });
  // Kept DRAFT_DELAY_MS after the last edit. A timer, not state: a keystroke must not render the
  // window again (that was a third of a keystroke's time in a long document).
  const draftTimer = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);
  const keepDraftSoon = () => {
    clearTimeout(draftTimer.current);
    draftTimer.current = setTimeout(() => draft.mutate(), DRAFT_DELAY_MS);
  };
  useEffect(() => {
    if (dirty) keepDraftSoon();
    return () => clearTimeout(draftTimer.current);
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [blocks, dirty]);

  // Closing the window (its close button, Ctrl+W or Close) first keeps what was typed since the
  // last draft, so nothing is lost to a window closed a second after typing.
  const latest = useRef({ dirty, base, current });
  latest.current = { dirty, base, current };
  useEffect(() => {
    const stop = getCurrentWindow().onCloseRequested(async () => {
      const { dirty, base, current } = latest.current;
      if (dirty) await api.saveDraft({ id, tabId, baseRevisionId: base, blocks: current() }).catch(() => undefined);
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
  }, [id, tabId]);

  const save = useMutation({
    mutationFn: () => api.saveDocument({ id, tabId, baseRevisionId: base, blocks: current() }),
    onMutate: () => editor.current?.setEditable(false),
    onSettled: () => editor.current?.setEditable(true),
    onSuccess: (outcome) => {
      if (outcome.outcome === "saved") {
        // The editor goes on from the saved revision, its undo history kept (or starts again
        // from it when the two do not line up).
        setDoc(outcome.document);
        setBase(outcome.document.revisionId ?? "");
        const goesOn = editor.current?.saved(outcome.document, outcome.blocks);
        if (goesOn) edited.current = goesOn;
        else restart(outcome.blocks);
        setDirty(false);
        const saved = outcome.requests === 0 ? "Nothing to save." : `Saved (${outcome.requests} ${outcome.requests === 1 ? "change" : "changes"} sent).`;
        setNote(goesOn ? saved : `${saved} The document had changed in Google Docs too: it is shown as it is now.`);
        return;
      }
      setDoc(outcome.document);
      setBase(outcome.document.revisionId ?? "");
      restart(outcome.rebased.blocks);
      setConflicts(outcome.rebased.conflicts);
      setNote(
        outcome.rebased.conflicts.length === 0
          ? "Someone else changed this document. Your edits were carried onto their version: check and save again."
          : "Someone else changed the same parts. Choose a version for each below, then save again.",
      );
    },
  });
  const saveNow = () => {
    if (!save.isPending && conflicts.length === 0) save.mutate();
  };

  const choose = (conflict: RebaseConflict, side: "mine" | "theirs") => {
    if (side === "mine") {
      const now = current();
      const delta = conflict.mine.length - conflict.len;
      restart([...now.slice(0, conflict.at), ...conflict.mine, ...now.slice(conflict.at + conflict.len)]);
      setDirty(true);
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
              onClick={saveNow}
              disabled={save.isPending || conflicts.length > 0 || !dirty}
              title="Save (Ctrl+S)"
            >
              {save.isPending ? "Saving…" : "Save"}
            </button>
          </>
        )}
        {/* Google exports what is saved: unsaved edits would be missing from the file. */}
        {dirty ? (
          <button type="button" disabled title="Save first: the PDF is made from the saved document">Download PDF</button>
        ) : (
          <DownloadButton id={doc.id} name={doc.name} />
        )}
        <button type="button" onClick={() => void getCurrentWindow().close()} title="Close (Ctrl+W); unsaved edits stay as a draft">
          Close
        </button>
      </header>
      {view.stale && <div className="banner" role="status">Google cannot be reached: this is the copy read earlier. Edits are kept as a draft until it can be saved.</div>}
      {readOnly && <div className="banner" role="status">{view.readOnlyReason}</div>}
      {doc.tabsOutline && (
        <TabBar
          tabs={doc.tabsOutline}
          current={tabId ?? doc.tabsOutline[0].id}
          onChoose={async (next) => {
            // What was typed in this tab is kept as its draft, and comes back with it.
            clearTimeout(draftTimer.current);
            if (dirty) await api.saveDraft({ id, tabId, baseRevisionId: base, blocks: current() }).catch(() => undefined);
            onTab(next);
          }}
        />
      )}
      {note && <p className="callout small" aria-live="polite">{note}</p>}
      {save.isError && <p className="error" role="alert">{describeError(save.error)}</p>}
      {conflicts.map((c, n) => (
        <section key={`${c.at}-${n}`} className="card conflict" aria-label="Conflict">
          <div className="conflict-sides">
            <div>
              <h2>Their version</h2>
              {c.theirs.map((b, i) => <BlockPreview key={i} block={b} />)}
            </div>
            <div>
              <h2>Your version</h2>
              {c.mine.map((b, i) => <BlockPreview key={i} block={b} />)}
            </div>
          </div>
          <div className="row">
            <button type="button" onClick={() => choose(c, "theirs")}>Keep theirs</button>
            <button
              type="button"
              onClick={() => choose(c, "mine")}
              disabled={!structureKept(c)}
              title={structureKept(c) ? undefined : "Images or tables moved in their version: copy your text over by hand"}
            >
              Use mine
            </button>
          </div>
        </section>
      ))}
      <RichEditor
        ref={editor}
        key={editorKey}
        blocks={blocks}
        document={doc}
        styles={view.styles}
        readOnly={readOnly}
        onChange={(next) => {
          edited.current = next;
          // Always: a save's "nothing unsaved" may not have rendered yet (the same value costs no render).
          setDirty(true);
          keepDraftSoon();
        }}
        onSave={saveNow}
      />
    </main>
  );
}

/** A document of several tabs: each tab by name, nested ones under their parent, the first (the
 *  one shown and edited here) marked, and where the others are. */
/** The document's tabs, nested ones under their parent: the one shown is current, and choosing
 *  another opens it in place (Staffroom edits each tab on its own, as Google Docs does). */
function TabBar({ tabs, current, onChoose }: { tabs: TabOutline[]; current: string; onChoose: (tab: string) => void }) {
  return (
    <nav className="doc-tabs" aria-label="Tabs of this document">
      <ul>
        {tabs.map((tab) => (
          <li key={tab.id} style={{ marginLeft: `${tab.level * 14}px` }}>
            <button
              type="button"
              className={tab.id === current ? "link current" : "link"}
              aria-current={tab.id === current ? "page" : undefined}
              onClick={() => tab.id !== current && onChoose(tab.id)}
            >
              {tab.title || "Untitled tab"}
            </button>
          </li>
        ))}
      </ul>
      <p className="muted small">Each tab is saved on its own; unsaved edits of a tab are kept for it while you look at another.</p>
    </nav>
  );
}
