import { beforeEach, describe, expect, it } from "vitest";
import { act, screen, waitFor, within } from "@testing-library/react";
import { emit } from "@tauri-apps/api/event";
import { mockWindows } from "@tauri-apps/api/mocks";
import userEvent from "@testing-library/user-event";
import { TextSelection } from "prosemirror-state";
import type { EditorView as PmView } from "prosemirror-view";
import { DRAFT_DELAY_MS, Editor } from "./Editor";
import { forEachBlock } from "../editor/chunks";
import { editorViews } from "../editor/RichEditor";
import { mockCommands, renderWithQuery } from "../test/render";
import type { EditorView, GoogleDocument } from "../types";

const document: GoogleDocument = {
  id: "d1",
  name: "Roadmap",
  revisionId: "rev1",
  canEdit: true,
  body: {
    content: [
      { startIndex: 0, endIndex: 1, sectionBreak: {} },
      { startIndex: 1, endIndex: 9, paragraph: { elements: [{ startIndex: 1, endIndex: 9, textRun: { content: "Roadmap\n" } }], paragraphStyle: { namedStyleType: "TITLE" } } },
      { startIndex: 9, endIndex: 22, paragraph: { elements: [
        { startIndex: 9, endIndex: 14, textRun: { content: "Ship " } },
        { startIndex: 14, endIndex: 21, textRun: { content: "Tuesday", style: { bold: true } } },
        { startIndex: 21, endIndex: 22, textRun: { content: "\n" } },
      ], paragraphStyle: { namedStyleType: "NORMAL_TEXT" } } },
      { startIndex: 22, endIndex: 40, table: { rows: 1, columns: 2, tableRows: [{ startIndex: 23, endIndex: 39, tableCells: [
        { startIndex: 24, endIndex: 30, content: [{ startIndex: 25, endIndex: 30, paragraph: { elements: [{ startIndex: 25, endIndex: 30, textRun: { content: "Item\n" } }] } }] },
        { startIndex: 30, endIndex: 39, content: [{ startIndex: 31, endIndex: 39, paragraph: { elements: [{ startIndex: 31, endIndex: 39, textRun: { content: "Units 😀\n" } }] } }] },
      ] }] } },
      { startIndex: 40, endIndex: 41, paragraph: { elements: [{ startIndex: 40, endIndex: 41, textRun: { content: "\n" } }] } },
    ],
  },
};
const view = (extra: Partial<EditorView> = {}): EditorView => ({
  document,
  blocks: [
    { kind: "paragraph", text: "Roadmap", style: "TITLE", runs: [{ len: 7 }] },
    { kind: "paragraph", text: "Ship Tuesday", style: "NORMAL_TEXT", runs: [{ len: 5 }, { len: 7, bold: true }] },
    { kind: "fixed", startIndex: 22 },
    { kind: "paragraph", text: "", style: "NORMAL_TEXT", runs: [] },
  ],
  stale: false,
  draft: null,
  readOnlyReason: null,
  styles: [
    { id: "NORMAL_TEXT", label: "Normal text" },
    { id: "TITLE", label: "Title" },
    { id: "HEADING_1", label: "Heading 1" },
    { id: "HEADING_2", label: "Heading 2" },
  ],
  ...extra,
});

/** The editing surface of the open document, and its ProseMirror view. */
async function surface(name = "Roadmap") {
  const element = await screen.findByRole("textbox", { name: `Text of ${name}` });
  return { element, pm: editorViews.get(element)! };
}

/** The position just after the text of the `n`th block. */
function endOf(pm: PmView, n: number): number {
  let end = 0;
  forEachBlock(pm.state.doc, (node, pos, index) => {
    if (index === n) end = pos + node.nodeSize - 1;
  });
  return end;
}

/** Types as a user would: at the caret (or `at`), as one input. */
function typeAt(pm: PmView, text: string, at?: number) {
  act(() => {
    if (at !== undefined) pm.dispatch(pm.state.tr.setSelection(TextSelection.create(pm.state.doc, at)));
    pm.dispatch(pm.state.tr.insertText(text));
  });
}

describe("Editor", () => {
  // Each editor is its own window, named after its document.
  beforeEach(() => mockWindows("editor-d1"));

  it("closes with Ctrl+W or Close, keeping unsaved edits as a draft when the window goes", async () => {
    const calls = mockCommands({
      editor_document: () => view(),
      save_draft: (args) => ({ documentId: "d1", baseRevisionId: args.baseRevisionId, blocks: args.blocks, updatedAt: "2026-11-23T10:00:00Z" }),
      "plugin:window|close": () => null,
      "plugin:window|destroy": () => null,
    });
    renderWithQuery(<Editor id="d1" />);
    const { pm } = await surface();
    typeAt(pm, "!", endOf(pm, 1));
    await userEvent.keyboard("{Control>}w{/Control}");
    await userEvent.click(screen.getByRole("button", { name: "Close" }));
    expect(calls.filter((c) => c.cmd === "plugin:window|close")).toHaveLength(2);
    expect(calls.some((c) => c.cmd === "save_draft")).toBe(false);

    // The window manager (or close()) asks to close: the draft is kept first, then the window goes.
    await act(() => emit("tauri://close-requested", null));
    await waitFor(() => expect(calls.some((c) => c.cmd === "plugin:window|destroy")).toBe(true));
    const kept = calls.findIndex((c) => c.cmd === "save_draft");
    expect(kept).toBeGreaterThan(-1);
    expect(kept).toBeLessThan(calls.findIndex((c) => c.cmd === "plugin:window|destroy"));
    expect((calls[kept].args as { blocks: { text?: string }[] }).blocks[1].text).toBe("Ship Tuesday!");
  });

  it("shows a document's tabs in a bar; another tab opens in place, the unsaved edits of the one left kept as its draft", async () => {
    const outline = [
      { id: "t.0", title: "Tab 1", level: 0 },
      { id: "t.6r0bq3kd1x2m", title: "Decisions", level: 0 },
      { id: "t.h4v9w2zq0c7e", title: "Action items", level: 1 },
    ];
    const decisions: GoogleDocument = { ...document, tabsOutline: outline, tabId: "t.6r0bq3kd1x2m" };
    const calls = mockCommands({
      editor_document: (args) => view({ document: args.tabId ? decisions : { ...document, tabsOutline: outline } }),
      save_draft: (args) => ({ documentId: "d1", baseRevisionId: args.baseRevisionId, blocks: args.blocks, updatedAt: "2026-11-23T10:00:00Z" }),
      save_document: (args) => ({ outcome: "saved", document: decisions, blocks: args.blocks, requests: 1 }),
    });
    renderWithQuery(<Editor id="d1" />);
    const bar = await screen.findByRole("navigation", { name: "Tabs of this document" });
    expect(within(bar).getAllByRole("button").map((b) => b.textContent)).toEqual(["Tab 1", "Decisions", "Action items"]);
    expect(within(bar).getByRole("button", { name: "Tab 1" })).toHaveAttribute("aria-current", "page");
    const { pm } = await surface();
    typeAt(pm, "!", endOf(pm, 1));

    await userEvent.click(within(bar).getByRole("button", { name: "Decisions" }));
    await waitFor(() => expect(calls.filter((c) => c.cmd === "editor_document").at(-1)?.args).toMatchObject({ id: "d1", tabId: "t.6r0bq3kd1x2m" }));
    // The first tab's edits were kept as its draft (no tab named) before the other opened.
    const kept = calls.find((c) => c.cmd === "save_draft");
    expect(kept?.args).toMatchObject({ id: "d1", tabId: null });
    expect((kept?.args as { blocks: { text?: string }[] }).blocks[1].text).toBe("Ship Tuesday!");
    const now = await screen.findByRole("navigation", { name: "Tabs of this document" });
    await waitFor(() => expect(within(now).getByRole("button", { name: "Decisions" })).toHaveAttribute("aria-current", "page"));

    // A save in this tab names it.
    const { pm: again } = await surface();
    typeAt(again, "?", endOf(again, 1));
    await userEvent.click(screen.getByRole("button", { name: "Save" }));
    await waitFor(() => expect(calls.find((c) => c.cmd === "save_document")?.args).toMatchObject({ id: "d1", tabId: "t.6r0bq3kd1x2m" }));
  });

  it("draws a paragraph without its own alignment as the document's named style says", async () => {
    mockCommands({ editor_document: () => view({ styles: [{ id: "NORMAL_TEXT", label: "Normal text", fontSize: 11 }, { id: "TITLE", label: "Title", alignment: "CENTER", fontSize: 26 }] }) });
    const { container } = renderWithQuery(<Editor id="d1" />);
    await surface();
    expect(container.querySelector("style")?.textContent).toContain(".page .para-TITLE { text-align: center; font-size: 2.364em }");
    expect(screen.getByRole("button", { name: "Alignment: Centre align" })).toBeInTheDocument();
    expect(screen.queryByRole("navigation", { name: "Tabs of this document" })).toBeNull();
  });

  it("keeps typed edits as a draft once typing pauses, and the toolbar follows the caret", async () => {
    const calls = mockCommands({
      editor_document: () => view(),
      save_draft: (args) => ({ documentId: "d1", baseRevisionId: args.baseRevisionId, blocks: args.blocks, updatedAt: "2026-11-23T10:00:00Z" }),
    });
    renderWithQuery(<Editor id="d1" />);
    const { pm } = await surface();
    typeAt(pm, "!", endOf(pm, 1));
    await new Promise((resolve) => setTimeout(resolve, DRAFT_DELAY_MS / 2));
    typeAt(pm, "?");
    // One draft, DRAFT_DELAY_MS after the last keystroke, holding both.
    await new Promise((resolve) => setTimeout(resolve, DRAFT_DELAY_MS / 2 + 200));
    expect(calls.some((c) => c.cmd === "save_draft")).toBe(false);
    await waitFor(() => expect(screen.getByText(/Unsaved edits kept at/)).toBeInTheDocument(), { timeout: DRAFT_DELAY_MS });
    const drafts = calls.filter((c) => c.cmd === "save_draft");
    expect(drafts).toHaveLength(1);
    expect((drafts[0].args as { blocks: { text?: string }[] }).blocks[1].text).toBe("Ship Tuesday!?");
    // Into the bold word: the toolbar shows it.
    const bold = screen.getByRole("button", { name: "Bold" });
    act(() => pm.dispatch(pm.state.tr.setSelection(TextSelection.create(pm.state.doc, endOf(pm, 0) + 4))));
    expect(bold).toHaveAttribute("aria-pressed", "false");
    act(() => pm.dispatch(pm.state.tr.setSelection(TextSelection.create(pm.state.doc, endOf(pm, 1) - 4))));
    expect(bold).toHaveAttribute("aria-pressed", "true");
  }, 15_000);

  it("shows styles, character styles and a read-only table on one page", async () => {
    mockCommands({ editor_document: () => view() });
    renderWithQuery(<Editor id="d1" />);
    expect(screen.getByText("Opening the document…")).toBeInTheDocument();
    const { element } = await surface();
    expect(within(element).getByRole("heading", { name: "Roadmap" })).toHaveClass("para-TITLE");
    expect(screen.getByLabelText("Paragraph style")).toHaveValue("TITLE");
    expect(within(element).getByText("Tuesday").tagName).toBe("STRONG");
    const table = await within(element).findByRole("table", { name: "Table (read-only)" });
    expect(within(table).getByText("Units 😀")).toBeInTheDocument();
    const toolbar = screen.getByRole("toolbar", { name: "Formatting" });
    for (const name of ["Bold", "Italic", "Underline", "Strikethrough", "Link", "Undo", "Redo"]) {
      expect(within(toolbar).getByRole("button", { name })).toBeInTheDocument();
    }
  });

  it("reaches every enabled toolbar control from the text with Shift+Tab, each named, and runs one with the keyboard", async () => {
    mockCommands({ editor_document: () => view() });
    renderWithQuery(<Editor id="d1" />);
    const { element, pm } = await surface();
    element.focus();
    act(() => pm.dispatch(pm.state.tr.setSelection(TextSelection.create(pm.state.doc, endOf(pm, 0) + 2, endOf(pm, 0) + 6))));
    const toolbar = screen.getByRole("toolbar", { name: "Formatting" });
    const enabled = [...toolbar.querySelectorAll<HTMLElement>("button, select")].filter((c) => !(c as HTMLButtonElement).disabled);
    // Back from the text through the toolbar, last control first, to the style select.
    const reached: HTMLElement[] = [];
    for (let i = 0; i < enabled.length; i++) {
      await userEvent.tab({ shift: true });
      reached.push(window.document.activeElement as HTMLElement);
    }
    expect(reached.reverse()).toEqual(enabled);
    for (const control of enabled) expect(control.getAttribute("aria-label")).toBeTruthy();
    // Bold from the keyboard: Space on the focused button makes "Ship" bold.
    screen.getByRole("button", { name: "Bold" }).focus();
    await userEvent.keyboard(" ");
    expect(within(element).getByText("Ship").tagName).toBe("STRONG");
  });

  it("aligns paragraphs from the toolbar's menu by keyboard and with Google Docs' shortcuts, and saves the alignment", async () => {
    const aligned = view().blocks.map((b) => (b.kind === "paragraph" ? { ...b, alignment: "START" as const } : b));
    const calls = mockCommands({
      editor_document: () => view({ blocks: aligned }),
      save_document: (args) => ({ outcome: "saved", document: { ...document, revisionId: "rev9" }, blocks: (args as { blocks: unknown }).blocks, requests: 1 }),
    });
    renderWithQuery(<Editor id="d1" />);
    const { element, pm } = await surface();
    act(() => pm.dispatch(pm.state.tr.setSelection(TextSelection.create(pm.state.doc, endOf(pm, 0) + 3))));
    const button = screen.getByRole("button", { name: "Alignment: Left align" });
    button.focus();
    await userEvent.keyboard("{ArrowDown}");
    const menu = screen.getByRole("menu", { name: "Alignment" });
    expect(within(menu).getByRole("menuitemradio", { name: /Left align/ })).toHaveFocus();
    await userEvent.keyboard("{ArrowDown}{Enter}");
    expect(screen.queryByRole("menu")).not.toBeInTheDocument();
    expect(within(element).getByText("Ship", { exact: false }).closest("p")).toHaveStyle({ textAlign: "center" });
    expect(screen.getByRole("button", { name: "Alignment: Centre align" })).toBeInTheDocument();
    // Escape closes the menu and gives the focus back to its button.
    screen.getByRole("button", { name: "Alignment: Centre align" }).focus();
    await userEvent.keyboard("{ArrowDown}{Escape}");
    expect(screen.queryByRole("menu")).not.toBeInTheDocument();
    expect(screen.getByRole("button", { name: "Alignment: Centre align" })).toHaveFocus();
    // Up opens it on the last item; Tab closes it and moves on to the next control.
    await userEvent.keyboard("{ArrowUp}");
    expect(screen.getByRole("menuitemradio", { name: "Justify" })).toHaveFocus();
    await userEvent.keyboard("{Tab}");
    expect(screen.queryByRole("menu")).not.toBeInTheDocument();
    expect(screen.getByRole("button", { name: "Bulleted list" })).toHaveFocus();
    // Ctrl+Shift+J justifies the title.
    element.focus();
    act(() => pm.dispatch(pm.state.tr.setSelection(TextSelection.create(pm.state.doc, 3))));
    await userEvent.keyboard("{Control>}{Shift>}j{/Shift}{/Control}");
    await userEvent.click(screen.getByRole("button", { name: "Save" }));
    expect(await screen.findByText("Saved (1 change sent).")).toBeInTheDocument();
    const sent = (calls.find((c) => c.cmd === "save_document")!.args as { blocks: { alignment?: string }[] }).blocks;
    expect(sent.map((b) => b.alignment)).toEqual(["JUSTIFIED", "CENTER", undefined, "START"]);
  });

  it("edits text with an emoji, a style and bold, and saves the runs through the planner", async () => {
    const calls = mockCommands({
      editor_document: () => view(),
      // Google's copy after the save holds what was sent.
      save_document: (args) => ({ outcome: "saved", document: { ...document, revisionId: "rev9" }, blocks: (args as { blocks: unknown }).blocks, requests: 3 }),
    });
    renderWithQuery(<Editor id="d1" />);
    const { element, pm } = await surface();
    typeAt(pm, " 🎉", endOf(pm, 1));
    // The title becomes a heading; "Ship" becomes bold with Ctrl+B.
    act(() => pm.dispatch(pm.state.tr.setSelection(TextSelection.create(pm.state.doc, 3))));
    await userEvent.selectOptions(screen.getByLabelText("Paragraph style"), "HEADING_1");
    element.focus();
    act(() => pm.dispatch(pm.state.tr.setSelection(TextSelection.create(pm.state.doc, endOf(pm, 0) + 2, endOf(pm, 0) + 6))));
    await userEvent.keyboard("{Control>}b{/Control}");
    expect(screen.getByRole("button", { name: "Bold" })).toHaveAttribute("aria-pressed", "true");
    expect(screen.getByText("Unsaved changes")).toBeInTheDocument();
    await userEvent.click(screen.getByRole("button", { name: "Save" }));
    expect(await screen.findByText("Saved (3 changes sent).")).toBeInTheDocument();
    expect(calls.find((c) => c.cmd === "save_document")!.args).toEqual({
      id: "d1",
      tabId: null,
      ...{
        baseRevisionId: "rev1",
        blocks: [
          { kind: "paragraph", text: "Roadmap", style: "HEADING_1", runs: [{ len: 7 }] },
          // Typed after bold text, the emoji is bold too, as in Google Docs.
          { kind: "paragraph", text: "Ship Tuesday 🎉", style: "NORMAL_TEXT", runs: [{ len: 4, bold: true }, { len: 1 }, { len: 10, bold: true }] },
          { kind: "fixed", startIndex: 22 },
          { kind: "paragraph", text: "", style: "NORMAL_TEXT", runs: [] },
        ],
      },
    });
    // The editor goes on from the saved revision: undo still takes the edits back, and the next
    // save is made against the saved revision.
    expect(screen.getByText("All changes saved")).toBeInTheDocument();
    element.focus();
    await userEvent.keyboard("{Control>}z{/Control}");
    expect(screen.getByText("Unsaved changes")).toBeInTheDocument();
    expect([...element.querySelectorAll("strong")].map((b) => b.textContent)).not.toContain("Ship");
    await userEvent.keyboard("{Control>}s{/Control}");
    await waitFor(() => expect(calls.filter((c) => c.cmd === "save_document")).toHaveLength(2));
    const second = calls.filter((c) => c.cmd === "save_document")[1].args as { baseRevisionId: string };
    expect(second.baseRevisionId).toBe("rev9");
  });

  it("splits a paragraph with Enter, undoes and redoes it, and joins it back with Backspace", async () => {
    mockCommands({ editor_document: () => view() });
    renderWithQuery(<Editor id="d1" />);
    const { element, pm } = await surface();
    const paragraphs = () => [...element.querySelectorAll(".para")].map((p) => p.textContent);
    element.focus();
    act(() => pm.dispatch(pm.state.tr.setSelection(TextSelection.create(pm.state.doc, endOf(pm, 0) + 7))));
    await userEvent.keyboard("{Enter}");
    expect(paragraphs()).toEqual(["Roadmap", "Ship ", "Tuesday", ""]);
    await userEvent.keyboard("{Control>}z{/Control}");
    expect(paragraphs()).toEqual(["Roadmap", "Ship Tuesday", ""]);
    await userEvent.click(screen.getByRole("button", { name: "Redo" }));
    expect(paragraphs()).toEqual(["Roadmap", "Ship ", "Tuesday", ""]);
    element.focus();
    await userEvent.keyboard("{Backspace}");
    expect(paragraphs()).toEqual(["Roadmap", "Ship Tuesday", ""]);
  });

  it("links the selection with Ctrl+K, refusing what is not an address, and removes it again", async () => {
    mockCommands({ editor_document: () => view() });
    renderWithQuery(<Editor id="d1" />);
    const { element, pm } = await surface();
    element.focus();
    act(() => pm.dispatch(pm.state.tr.setSelection(TextSelection.create(pm.state.doc, endOf(pm, 0) + 7, endOf(pm, 1)))));
    await userEvent.keyboard("{Control>}k{/Control}");
    const form = screen.getByRole("form", { name: "Link" });
    // The caret moves to the address, so what is typed next goes there, not into the document.
    expect(within(form).getByLabelText("Link to")).toHaveFocus();
    await userEvent.type(within(form).getByLabelText("Link to"), "not an address");
    await userEvent.click(within(form).getByRole("button", { name: "Apply" }));
    expect(within(form).getByRole("alert")).toHaveTextContent("Type a web address");
    await userEvent.clear(within(form).getByLabelText("Link to"));
    await userEvent.type(within(form).getByLabelText("Link to"), "example.com/ship");
    await userEvent.click(within(form).getByRole("button", { name: "Apply" }));
    const link = within(element).getByRole("link", { name: "Tuesday" });
    expect(link).toHaveAttribute("href", "https://example.com/ship");
    // With the caret in the link, Ctrl+K offers to change or remove it.
    act(() => pm.dispatch(pm.state.tr.setSelection(TextSelection.create(pm.state.doc, endOf(pm, 1) - 2))));
    await userEvent.keyboard("{Control>}k{/Control}");
    expect(screen.getByLabelText("Link to")).toHaveValue("https://example.com/ship");
    await userEvent.click(screen.getByRole("button", { name: "Remove link" }));
    expect(within(element).queryByRole("link")).not.toBeInTheDocument();
  });

  it("restores a draft and never overwrites a collaborator silently", async () => {
    const calls = mockCommands({
      editor_document: () => view({ draft: { documentId: "d1", baseRevisionId: "rev1", updatedAt: "2026-11-22T10:00:00Z", blocks: [
        { kind: "paragraph", text: "Mine", style: "TITLE" },
        { kind: "paragraph", text: "Ship Tuesday", style: "NORMAL_TEXT" },
        { kind: "fixed", startIndex: 22 },
        { kind: "paragraph", text: "", style: "NORMAL_TEXT" },
      ] } }),
      save_document: (args) => {
        const edits = args as { baseRevisionId: string };
        if (edits.baseRevisionId === "rev1") {
          return { outcome: "conflict", document: { ...document, revisionId: "rev2" }, rebased: {
            blocks: [{ kind: "paragraph", text: "Theirs", style: "TITLE" }, { kind: "paragraph", text: "Ship Tuesday", style: "NORMAL_TEXT" }, { kind: "fixed", startIndex: 22 }, { kind: "paragraph", text: "", style: "NORMAL_TEXT" }],
            conflicts: [{ at: 0, len: 1, mine: [{ kind: "paragraph", text: "Mine", style: "TITLE" }], theirs: [{ kind: "paragraph", text: "Theirs", style: "TITLE" }] }],
          } };
        }
        return { outcome: "saved", document, blocks: (args as { blocks: unknown }).blocks, requests: 1 };
      },
    });
    renderWithQuery(<Editor id="d1" />);
    expect(await screen.findByText(/Restored your unsaved edits/)).toBeInTheDocument();
    expect((await surface()).element.querySelector(".para")).toHaveTextContent("Mine");
    await userEvent.click(screen.getByRole("button", { name: "Save" }));
    const conflict = await screen.findByRole("region", { name: "Conflict" });
    expect(within(conflict).getByText("Theirs")).toBeInTheDocument();
    expect(within(conflict).getByText("Mine")).toBeInTheDocument();
    expect(screen.getByRole("button", { name: "Save" })).toBeDisabled();
    await userEvent.click(within(conflict).getByRole("button", { name: "Use mine" }));
    await userEvent.click(screen.getByRole("button", { name: "Save" }));
    await screen.findByText(/^Saved \(1 change sent\)\./);
    const saves = calls.filter((c) => c.cmd === "save_document").map((c) => c.args as { baseRevisionId: string; blocks: { text?: string }[] });
    expect(saves[1].baseRevisionId).toBe("rev2");
    expect(saves[1].blocks[0].text).toBe("Mine");
  });

  it("shows a soft line break as a line, and Shift+Enter adds one inside the paragraph", async () => {
    const calls = mockCommands({
      editor_document: () => view({ blocks: [
        { kind: "paragraph", text: "Roadmap", style: "TITLE" },
        { kind: "paragraph", text: "Ship Tuesday\u000bannounce Wednesday", style: "NORMAL_TEXT" },
        { kind: "fixed", startIndex: 22 },
        { kind: "paragraph", text: "", style: "NORMAL_TEXT" },
      ] }),
      save_document: (args) => ({ outcome: "saved", document, blocks: (args as { blocks: unknown }).blocks, requests: 1 }),
    });
    renderWithQuery(<Editor id="d1" />);
    const { element, pm } = await surface();
    const paragraph = element.querySelectorAll(".para")[1];
    expect(paragraph.querySelector("br")).not.toBeNull();
    element.focus();
    act(() => pm.dispatch(pm.state.tr.setSelection(TextSelection.create(pm.state.doc, endOf(pm, 1)))));
    await userEvent.keyboard("{Shift>}{Enter}{/Shift}");
    typeAt(pm, "and tell support");
    expect(element.querySelectorAll(".para")).toHaveLength(3);
    await userEvent.click(screen.getByRole("button", { name: "Save" }));
    await screen.findByText(/^Saved \(1 change sent\)\./);
    const edits = calls.find((c) => c.cmd === "save_document")!.args as { blocks: { text?: string }[] };
    expect(edits.blocks[1].text).toBe("Ship Tuesday\u000bannounce Wednesday\u000band tell support");
  });

  it("shows suggestions, images and anchored objects as they are, and never as editable text", async () => {
    const rich: GoogleDocument = {
      ...document,
      inlineObjects: { "kix.photo": { inlineObjectProperties: { embeddedObject: { title: "Team photo" } } } },
      positionedObjects: { "kix.plan": { positionedObjectProperties: { embeddedObject: { title: "Floor plan" } } } },
      body: { content: [
        ...document.body.content.slice(0, 2),
        { startIndex: 9, endIndex: 30, paragraph: { elements: [
          { startIndex: 9, endIndex: 15, textRun: { content: "Prices" } },
          { startIndex: 15, endIndex: 29, textRun: { content: " rise in March", suggestedInsertionIds: ["suggest.1"] } },
          { startIndex: 29, endIndex: 30, textRun: { content: "\n" } },
        ] } },
        { startIndex: 30, endIndex: 45, paragraph: { positionedObjectIds: ["kix.plan"], elements: [
          { startIndex: 30, endIndex: 42, textRun: { content: "Team photo: " } },
          { startIndex: 42, endIndex: 43, inlineObjectElement: { inlineObjectId: "kix.photo" } } as never,
          { startIndex: 43, endIndex: 44, textRun: { content: "\ue907" } },
          { startIndex: 44, endIndex: 45, textRun: { content: "\n" } },
        ] } },
      ] },
    };
    mockCommands({ editor_document: () => view({ document: rich, blocks: [
      { kind: "paragraph", text: "Roadmap", style: "TITLE" },
      { kind: "fixed", startIndex: 9 },
      { kind: "fixed", startIndex: 30 },
    ] }) });
    renderWithQuery(<Editor id="d1" />);
    await waitFor(() => expect(screen.getAllByLabelText("Read-only paragraph")).toHaveLength(2));
    const kept = screen.getAllByLabelText("Read-only paragraph");
    expect(within(kept[0]).getByText(/Pending suggestion/)).toBeInTheDocument();
    expect(within(kept[0]).getByText("rise in March", { exact: false }).closest("ins")).not.toBeNull();
    expect(kept[1]).toHaveTextContent("🖼 Team photo");
    expect(kept[1]).toHaveTextContent("⚓ Floor plan");
    expect(kept[1]).toHaveTextContent("◆ chip");
    expect(within(kept[1]).queryByRole("textbox")).not.toBeInTheDocument();
  });

  it("opens a document Google lets this user only view as read-only, saying why", async () => {
    const calls = mockCommands({
      editor_document: () => view({
        document: { ...document, revisionId: null, canEdit: false, suggestionsViewMode: "PREVIEW_WITHOUT_SUGGESTIONS" },
        readOnlyReason: "Google gives you view access only: the document is shown without its pending suggestions, and cannot be edited here.",
      }),
    });
    renderWithQuery(<Editor id="d1" />);
    expect(await screen.findByText(/Google gives you view access only/)).toBeInTheDocument();
    expect(screen.getByText("Read only")).toBeInTheDocument();
    expect(screen.queryByRole("button", { name: "Save" })).not.toBeInTheDocument();
    const { element } = await surface();
    expect(element).toHaveAttribute("contenteditable", "false");
    expect(element).toHaveTextContent("Ship Tuesday");
    expect(screen.queryByRole("toolbar", { name: "Formatting" })).not.toBeInTheDocument();
    expect(calls.some((c) => c.cmd === "save_draft")).toBe(false);
  });

  it("says when the document cannot be opened", async () => {
    mockCommands({ editor_document: () => { throw { code: "not_found", message: "Requested entity was not found." }; } });
    renderWithQuery(<Editor id="d1" />);
    expect(await screen.findByRole("alert")).toHaveTextContent("Requested entity was not found. (not_found)");
  });
});
