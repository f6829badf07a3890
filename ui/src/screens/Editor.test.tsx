import { beforeEach, describe, expect, it } from "vitest";
import { act, screen, waitFor, within } from "@testing-library/react";
import { emit } from "@tauri-apps/api/event";
import { mockWindows } from "@tauri-apps/api/mocks";
import userEvent from "@testing-library/user-event";
import { Editor } from "./Editor";
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
    { kind: "paragraph", text: "Roadmap", style: "TITLE" },
    { kind: "paragraph", text: "Ship Tuesday", style: "NORMAL_TEXT" },
    { kind: "fixed", startIndex: 22 },
    { kind: "paragraph", text: "", style: "NORMAL_TEXT" },
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
    await userEvent.click(await screen.findByRole("button", { name: "Paragraph 2" }));
    await userEvent.type(screen.getByRole("textbox", { name: "Paragraph 2" }), "!");
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

  it("shows styles, character styles and a read-only table", async () => {
    mockCommands({ editor_document: () => view() });
    renderWithQuery(<Editor id="d1" />);
    expect(screen.getByText("Opening the document…")).toBeInTheDocument();
    expect(await screen.findByRole("heading", { name: "Roadmap" })).toBeInTheDocument();
    expect(screen.getByLabelText("Style of paragraph 1")).toHaveValue("TITLE");
    expect(within(screen.getByRole("button", { name: "Paragraph 2" })).getByText("Tuesday").tagName).toBe("STRONG");
    const table = screen.getByRole("table", { name: "Table (read-only)" });
    expect(within(table).getByText("Units 😀")).toBeInTheDocument();
    expect(within(table).queryByRole("textbox")).not.toBeInTheDocument();
  });

  it("edits text with an emoji and a style, and saves through the planner", async () => {
    const calls = mockCommands({
      editor_document: () => view(),
      save_document: () => ({ outcome: "saved", document, requests: 2 }),
    });
    renderWithQuery(<Editor id="d1" />);
    await userEvent.click(await screen.findByRole("button", { name: "Paragraph 2" }));
    await userEvent.type(screen.getByRole("textbox", { name: "Paragraph 2" }), " 🎉");
    await userEvent.selectOptions(screen.getByLabelText("Style of paragraph 1"), "HEADING_1");
    expect(screen.getByText("Unsaved changes")).toBeInTheDocument();
    await userEvent.click(screen.getByRole("button", { name: "Save" }));
    expect(await screen.findByText("Saved (2 changes sent).")).toBeInTheDocument();
    expect(calls.find((c) => c.cmd === "save_document")!.args).toEqual({
      id: "d1",
      ...{
        baseRevisionId: "rev1",
        blocks: [
          { kind: "paragraph", text: "Roadmap", style: "HEADING_1" },
          { kind: "paragraph", text: "Ship Tuesday 🎉", style: "NORMAL_TEXT" },
          { kind: "fixed", startIndex: 22 },
          { kind: "paragraph", text: "", style: "NORMAL_TEXT" },
        ],
      },
    });
  });

  it("splits a paragraph with Enter and joins it back with Backspace", async () => {
    mockCommands({ editor_document: () => view() });
    renderWithQuery(<Editor id="d1" />);
    await userEvent.click(await screen.findByRole("button", { name: "Paragraph 2" }));
    const box = screen.getByRole("textbox", { name: "Paragraph 2" }) as HTMLTextAreaElement;
    box.setSelectionRange(5, 5);
    await userEvent.keyboard("{Enter}");
    expect(screen.getByRole("textbox", { name: "Paragraph 3" })).toHaveValue("Tuesday");
    expect(screen.getByRole("button", { name: "Paragraph 2" })).toHaveTextContent("Ship");
    await userEvent.keyboard("{Backspace}");
    expect(screen.getByRole("textbox", { name: "Paragraph 2" })).toHaveValue("Ship Tuesday");
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
        return { outcome: "saved", document, requests: 1 };
      },
    });
    renderWithQuery(<Editor id="d1" />);
    expect(await screen.findByText(/Restored your unsaved edits/)).toBeInTheDocument();
    expect(screen.getByRole("button", { name: "Paragraph 1" })).toHaveTextContent("Mine");
    await userEvent.click(screen.getByRole("button", { name: "Save" }));
    const conflict = await screen.findByRole("region", { name: "Conflict" });
    expect(within(conflict).getByText("Theirs")).toBeInTheDocument();
    expect(within(conflict).getByText("Mine")).toBeInTheDocument();
    expect(screen.getByRole("button", { name: "Save" })).toBeDisabled();
    await userEvent.click(within(conflict).getByRole("button", { name: "Use mine" }));
    await userEvent.click(screen.getByRole("button", { name: "Save" }));
    await screen.findByText("Saved (1 changes sent).");
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
      save_document: () => ({ outcome: "saved", document, requests: 1 }),
    });
    renderWithQuery(<Editor id="d1" />);
    const paragraph = await screen.findByRole("button", { name: "Paragraph 2" });
    expect(paragraph.textContent).toBe("Ship Tuesday\nannounce Wednesday");
    await userEvent.click(paragraph);
    const box = screen.getByRole("textbox", { name: "Paragraph 2" });
    expect(box).toHaveValue("Ship Tuesday\nannounce Wednesday");
    await userEvent.type(box, "{Shift>}{Enter}{/Shift}and tell support");
    expect(screen.queryByRole("textbox", { name: "Paragraph 3" })).not.toBeInTheDocument();
    await userEvent.click(screen.getByRole("button", { name: "Save" }));
    await screen.findByText("Saved (1 changes sent).");
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
    const kept = await screen.findAllByLabelText("Read-only paragraph");
    expect(kept).toHaveLength(2);
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
    expect(screen.queryByRole("button", { name: "Paragraph 2" })).not.toBeInTheDocument();
    expect(screen.getByLabelText("Paragraph 2")).toHaveTextContent("Ship Tuesday");
    expect(screen.queryByLabelText("Style of paragraph 1")).not.toBeInTheDocument();
    expect(calls.some((c) => c.cmd === "save_draft")).toBe(false);
  });

  it("says when the document cannot be opened", async () => {
    mockCommands({ editor_document: () => { throw { code: "not_found", message: "Requested entity was not found." }; } });
    renderWithQuery(<Editor id="d1" />);
    expect(await screen.findByRole("alert")).toHaveTextContent("Requested entity was not found. (not_found)");
  });
});
