import { forwardRef, useEffect, useImperativeHandle, useMemo, useRef, useState, type FormEvent } from "react";
import { createRoot, type Root } from "react-dom/client";
import { toggleMark } from "prosemirror-commands";
import { history, redo, redoDepth, undo, undoDepth } from "prosemirror-history";
import type { MarkType, Node } from "prosemirror-model";
import { EditorState, type Command } from "prosemirror-state";
import { EditorView, type NodeView } from "prosemirror-view";
import { addColumnAfter, addColumnBefore, addRowAfter, addRowBefore, deleteColumn, deleteRow, isInTable } from "prosemirror-tables";
import type { Alignment, EditBlock, GoogleDocument, ListKind, NamedStyle, StructuralElement } from "../types";
import { AlignMenu } from "./AlignMenu";
import { OpenLinkButton } from "../components/OpenLink";
import {
  editingKeys,
  isActive,
  keepStructure,
  linkAt,
  namedStyleCss,
  normalizeUrl,
  paragraphAlignment,
  paragraphStyle,
  setAlignment,
  setLink,
  setParagraphStyle,
} from "./commands";
import { relabel, toDoc } from "./convert";
import { flattenPastedLists, indentList, listKindAt, listMarkersOf, toggleList } from "./lists";
import { Fixed } from "./Fixed";
import { schema } from "./schema";
import { insertTable, pasteTablesAsText, tablePlugins } from "./tables";
import "prosemirror-view/style/prosemirror.css";
import "prosemirror-tables/style/tables.css";
import { focusOnMount } from "../focus";

/** Each editing surface's view by its element: how the component tests type into it (jsdom
 *  cannot drive contenteditable input as a browser does). */
export const editorViews = new WeakMap<Element, EditorView>();

interface Props {
  /** The blocks to start from; a new editor is made when the parent gives it a new `key`. */
  blocks: EditBlock[];
  document: GoogleDocument;
  styles: NamedStyle[];
  readOnly: boolean;
  /** Called with the edited document after each change (turn it into blocks with `fromDoc`). */
  onChange: (doc: Node) => void;
  onSave: () => void;
}

/** What the window asks of the editor. */
export interface RichEditorHandle {
  /** Goes on from the saved revision (its document and blocks), undo history kept: the edited
   *  document now, or null when it cannot. */
  saved(document: GoogleDocument, blocks: EditBlock[]): Node | null;
  /** Stops (or lets again) the user type: while a save is on its way, so that nothing typed
   *  meanwhile is mistaken for saved. */
  setEditable(on: boolean): void;
}

/** A table, list item or other part Staffroom does not edit, shown in place by React. */
class FixedView implements NodeView {
  dom: HTMLElement;
  private root: Root;

  constructor(element: StructuralElement | undefined, document: GoogleDocument) {
    this.dom = window.document.createElement("div");
    this.dom.className = "fixed-block";
    this.dom.contentEditable = "false";
    this.root = createRoot(this.dom);
    this.root.render(<Fixed element={element} doc={document} />);
  }

  // Nothing inside is the editor's: its clicks and mutations are React's.
  stopEvent() {
    return true;
  }

  ignoreMutation() {
    return true;
  }

  destroy() {
    const root = this.root;
    // Unmounting while React renders would warn; the node view may go during a dispatch.
    queueMicrotask(() => root.unmount());
  }
}

/** The document's top-level elements by start index, for the fixed parts' views. */
const elementsOf = (document: GoogleDocument) => new Map(document.body.content.map((e) => [e.startIndex, e]));

/** What the toolbar shows of the editor's state: worked out on each change, the toolbar drawn
 *  again only when one of them differs (typing changes none, so it renders nothing). */
interface Tools {
  style: string | null;
  alignment: Alignment | null;
  bold: boolean;
  italic: boolean;
  underline: boolean;
  strikethrough: boolean;
  link: boolean;
  list: ListKind | null;
  insertTable: boolean;
  /** Each table command's name, where it applies now. */
  table: Record<string, boolean>;
  undo: boolean;
  redo: boolean;
}

const TABLE_COMMANDS: Record<string, Command> = { addRowBefore, addRowAfter, addColumnBefore, addColumnAfter, deleteRow, deleteColumn };

function toolsOf(state: EditorState, styles: NamedStyle[]): Tools {
  const inTable = isInTable(state);
  return {
    style: paragraphStyle(state),
    alignment: paragraphAlignment(state, styles),
    bold: isActive(state, schema.marks.bold),
    italic: isActive(state, schema.marks.italic),
    underline: isActive(state, schema.marks.underline),
    strikethrough: isActive(state, schema.marks.strikethrough),
    link: linkAt(state) !== null,
    list: listKindAt(state),
    insertTable: insertTable(state),
    // Enabled in a table, where the command applies (a table keeps one row and one column).
    table: Object.fromEntries(Object.entries(TABLE_COMMANDS).map(([name, command]) => [name, inTable && command(state)])),
    undo: undoDepth(state) > 0,
    redo: redoDepth(state) > 0,
  };
}

const sameTools = (a: Tools | null, b: Tools) =>
  a !== null && (Object.keys(b) as (keyof Tools)[]).every((k) => (k === "table" ? Object.keys(b.table).every((n) => a.table[n] === b.table[n]) : a[k] === b[k]));

/** The document's one editing surface: paragraphs with their named styles, alignments and
 *  character styles, lists, tables' cells, rows and columns, everything else shown in place; a
 *  toolbar, Google Docs' shortcuts, undo and redo. */
export const RichEditor = forwardRef<RichEditorHandle, Props>(function RichEditor({ blocks, document, styles, readOnly, onChange, onSave }, ref) {
  const mount = useRef<HTMLDivElement>(null);
  const view = useRef<EditorView | null>(null);
  const [tools, setTools] = useState<Tools | null>(null);
  const shownTools = useRef<Tools | null>(null);
  // The document's named styles: how a paragraph without its own alignment is drawn and named.
  const namedStyles = useRef(styles);
  namedStyles.current = styles;
  const styleSheet = useMemo(() => namedStyleCss(styles), [styles]);
  const showTools = (state: EditorState) => {
    const next = toolsOf(state, namedStyles.current);
    if (sameTools(shownTools.current, next)) return;
    shownTools.current = next;
    setTools(next);
  };
  const [linking, setLinking] = useState<string | null>(null);
  // The latest callbacks, for the editor's key bindings made once.
  const actions = useRef({ onChange, onSave, link: () => {} });
  actions.current.onChange = onChange;
  actions.current.onSave = onSave;
  actions.current.link = () => {
    if (view.current) setLinking(linkAt(view.current.state)?.href ?? "");
  };
  const elements = useMemo(() => elementsOf(document), [document]);
  // Node views are made by the editor made once: they read the latest revision's elements.
  const latest = useRef({ elements, document });
  latest.current = { elements, document };
  useImperativeHandle(ref, () => ({
    saved(saved: GoogleDocument, next: EditBlock[]) {
      const editor = view.current;
      latest.current = { elements: elementsOf(saved), document: saved };
      const tr = editor ? relabel(editor.state, next) : null;
      if (!editor || !tr) return null;
      // Not an edit: nothing is unsaved after it.
      const after = editor.state.apply(tr);
      // A state handed back unchanged: a plugin refused the transaction.
      if (after === editor.state && tr.steps.length > 0) return null;
      editor.updateState(after);
      showTools(after);
      return editor.state.doc;
    },
    setEditable(on: boolean) {
      view.current?.setProps({ editable: () => on && !readOnly });
    },
  }));

  useEffect(() => {
    if (!mount.current) return;
    const initial = EditorState.create({
      doc: toDoc(blocks),
      plugins: [
        history(),
        ...tablePlugins,
        ...editingKeys({ save: () => actions.current.onSave(), link: () => actions.current.link() }),
        keepStructure,
        // Markers as the document's lists look (a save brings Google's new lists with it).
        listMarkersOf(() => latest.current.document.lists),
      ],
    });
    const editor = new EditorView(mount.current, {
      state: initial,
      editable: () => !readOnly,
      attributes: { class: "page", role: "textbox", "aria-multiline": "true", "aria-label": `Text of ${document.name}` },
      nodeViews: {
        fixed: (node) => new FixedView(latest.current.elements.get(node.attrs.startIndex as number), latest.current.document),
      },
      transformPastedHTML: flattenPastedLists,
      transformPasted: pasteTablesAsText,
      // A link in the text is edited, not followed: the window must never navigate away from the
      // document (Ctrl+K offers "Open", in the browser).
      handleDOMEvents: {
        click: (_view, event) => {
          if ((event.target as HTMLElement | null)?.closest?.("a")) event.preventDefault();
          return false;
        },
      },
      dispatchTransaction(tr) {
        const next = editor.state.apply(tr);
        editor.updateState(next);
        showTools(next);
        if (tr.docChanged) actions.current.onChange(next.doc);
      },
    });
    view.current = editor;
    performance.mark("editor:editable");
    editorViews.set(editor.dom, editor);
    showTools(initial);
    return () => {
      editor.destroy();
      view.current = null;
    };
    // Made once per editor: the parent gives it a new key for new blocks.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, []);

  const run = (command: Command) => {
    const editor = view.current;
    if (!editor) return;
    command(editor.state, editor.dispatch);
    editor.focus();
  };
  const mark = (type: MarkType, label: string, shortcut: string, text: string) => (
    <button
      type="button"
      className="tool"
      aria-label={label}
      aria-pressed={tools ? tools[type.name as "bold" | "italic" | "underline" | "strikethrough"] : false}
      title={`${label} (${shortcut})`}
      onMouseDown={(e) => e.preventDefault()}
      onClick={() => run(toggleMark(type))}
    >
      {text}
    </button>
  );

  const listButton = (kind: ListKind, label: string, shortcut: string, text: string) => (
    <button
      type="button"
      className="tool"
      aria-label={label}
      aria-pressed={tools?.list === kind}
      title={`${label} (${shortcut})`}
      onMouseDown={(e) => e.preventDefault()}
      onClick={() => run(toggleList(kind))}
    >
      {/* The glyph is a picture of the list, drawn by CSS: as text, "1≡" would be read as part of
          its name, which is "Numbered list". */}
      <span className="glyph" data-glyph={text} aria-hidden="true" />
    </button>
  );

  const tableButton = (label: string, command: keyof typeof TABLE_COMMANDS, text: string) => (
    <button
      type="button"
      className="tool"
      aria-label={label}
      title={label}
      disabled={!tools?.table[command]}
      onMouseDown={(e) => e.preventDefault()}
      onClick={() => run(TABLE_COMMANDS[command])}
    >
      {text}
    </button>
  );

  return (
    <>
      {!readOnly && tools && (
        <div className="editor-tools" role="toolbar" aria-label="Formatting">
          <select
            aria-label="Paragraph style"
            value={tools.style ?? ""}
            onChange={(e) => run(setParagraphStyle(e.target.value))}
          >
            {tools.style === null && <option value="">—</option>}
            {styles.map((s) => <option key={s.id} value={s.id}>{s.label}</option>)}
          </select>
          {mark(schema.marks.bold, "Bold", "Ctrl+B", "B")}
          {mark(schema.marks.italic, "Italic", "Ctrl+I", "I")}
          {mark(schema.marks.underline, "Underline", "Ctrl+U", "U")}
          {mark(schema.marks.strikethrough, "Strikethrough", "Alt+Shift+5", "S")}
          <button
            type="button"
            className="tool"
            aria-label="Link"
            aria-pressed={tools.link}
            title="Link (Ctrl+K)"
            onMouseDown={(e) => e.preventDefault()}
            onClick={() => actions.current.link()}
          >
            🔗
          </button>
          <span className="tool-gap" />
          <AlignMenu current={tools.alignment} onChoose={(alignment) => run(setAlignment(alignment))} />
          {listButton("bullet", "Bulleted list", "Ctrl+Shift+8", "•≡")}
          {listButton("number", "Numbered list", "Ctrl+Shift+7", "1≡")}
          <button type="button" className="tool" aria-label="Decrease indent" title="Decrease indent (Shift+Tab)" disabled={!tools.list} onMouseDown={(e) => e.preventDefault()} onClick={() => run(indentList(-1))}>⇤</button>
          <button type="button" className="tool" aria-label="Increase indent" title="Increase indent (Tab)" disabled={!tools.list} onMouseDown={(e) => e.preventDefault()} onClick={() => run(indentList(1))}>⇥</button>
          <span className="tool-gap" />
          <button type="button" className="tool" aria-label="Insert table" title="Insert table" disabled={!tools.insertTable} onMouseDown={(e) => e.preventDefault()} onClick={() => run(insertTable)}>⊞</button>
          {tableButton("Insert row above", "addRowBefore", "⤒")}
          {tableButton("Insert row below", "addRowAfter", "⤓")}
          {tableButton("Insert column left", "addColumnBefore", "⇷")}
          {tableButton("Insert column right", "addColumnAfter", "⇸")}
          {tableButton("Delete row", "deleteRow", "⊟")}
          {tableButton("Delete column", "deleteColumn", "⊠")}
          <span className="tool-gap" />
          <button type="button" className="tool" aria-label="Undo" title="Undo (Ctrl+Z)" disabled={!tools.undo} onMouseDown={(e) => e.preventDefault()} onClick={() => run(undo)}>↶</button>
          <button type="button" className="tool" aria-label="Redo" title="Redo (Ctrl+Shift+Z)" disabled={!tools.redo} onMouseDown={(e) => e.preventDefault()} onClick={() => run(redo)}>↷</button>
        </div>
      )}
      {linking !== null && view.current && (
        <LinkForm
          href={linking}
          hasLink={linkAt(view.current.state) !== null}
          onApply={(href) => { run(setLink(href)); setLinking(null); }}
          onClose={() => { setLinking(null); view.current?.focus(); }}
        />
      )}
      <style>{styleSheet}</style>
      <div ref={mount} className="page-mount" />
    </>
  );
});

/** Add, change, open or remove the link at the selection (Ctrl+K). */
function LinkForm({ href, hasLink, onApply, onClose }: { href: string; hasLink: boolean; onApply: (href: string | null) => void; onClose: () => void }) {
  const [typed, setTyped] = useState(href);
  const [problem, setProblem] = useState<string | null>(null);
  const submit = (event: FormEvent) => {
    event.preventDefault();
    const url = normalizeUrl(typed);
    if (!url) {
      setProblem("Type a web address (https://…) or an e-mail address.");
      return;
    }
    onApply(url);
  };
  return (
    <form className="card link-form" aria-label="Link" onSubmit={submit} onKeyDown={(e) => { if (e.key === "Escape") onClose(); }}>
      <label htmlFor="link-url">Link to</label>
      <input id="link-url" value={typed} onChange={(e) => { setTyped(e.target.value); setProblem(null); }} ref={focusOnMount} aria-invalid={problem !== null} placeholder="https://example.com" />
      <button type="submit" className="primary">Apply</button>
      {hasLink && /^https?:/i.test(href) && <OpenLinkButton url={href} kind="web">Open</OpenLinkButton>}
      {hasLink && <button type="button" onClick={() => onApply(null)}>Remove link</button>}
      <button type="button" onClick={onClose}>Cancel</button>
      {problem && <p className="field-error" role="alert">{problem}</p>}
    </form>
  );
}
