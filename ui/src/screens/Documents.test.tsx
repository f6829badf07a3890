import { describe, expect, it } from "vitest";
import { act, screen, waitFor } from "@testing-library/react";
import { emit } from "@tauri-apps/api/event";
import userEvent from "@testing-library/user-event";
import { Documents } from "./Documents";
import { mockCommands, renderWithQuery } from "../test/render";
import type { DocumentSummary } from "../types";

const doc = (id: string, name: string): DocumentSummary => ({
  id, name, mimeType: "application/vnd.google-apps.document",
  createdTime: "2026-01-01T00:00:00Z", modifiedTime: "2026-02-01T00:00:00Z",
  webViewLink: `https://docs.example/d/${id}`,
});
const signedIn = { signedIn: true, kind: "oauth", canSignIn: true };
const folders = [{ id: "fld_a", name: "Operations" }, { id: "fld_b", name: "Support" }];

describe("Documents", () => {
  it("lists, filters by folder, sorts and pages with Drive's tokens", async () => {
    const calls = mockCommands({
      google_status: () => signedIn,
      list_folders: () => folders,
      list_documents: (args) => ({
        documents: [doc(`${args.pageToken ?? "first"}`, `Doc on ${args.pageToken ?? "first page"} in ${args.folderId ?? "all"}`)],
        nextPageToken: args.pageToken ? undefined : "t2",
      }),
    });
    renderWithQuery(<Documents />);
    expect(await screen.findByText("Doc on first page in all")).toBeInTheDocument();
    await userEvent.click(screen.getByRole("button", { name: "Next" }));
    expect(await screen.findByText("Doc on t2 in all")).toBeInTheDocument();
    expect(screen.getByRole("button", { name: "Next" })).toBeDisabled();
    await userEvent.click(screen.getByRole("button", { name: "Previous" }));
    expect(await screen.findByText("Doc on first page in all")).toBeInTheDocument();
    await userEvent.selectOptions(screen.getByLabelText("Folder"), "fld_b");
    expect(await screen.findByText("Doc on first page in fld_b")).toBeInTheDocument();
    await userEvent.selectOptions(screen.getByLabelText("Sort"), "createdTime");
    await screen.findByRole("columnheader", { name: "Created" });
    const listed = calls.filter((c) => c.cmd === "list_documents").map((c) => c.args);
    expect(listed).toContainEqual({ folderId: null, orderBy: "modifiedTime", pageToken: "t2", pageSize: 20, search: null });
    expect(listed).toContainEqual({ folderId: "fld_b", orderBy: "createdTime", pageToken: null, pageSize: 20, search: null });
  });

  it("searches by name once typing pauses, and offers to open, not edit or share, what the user may only view", async () => {
    const calls = mockCommands({
      google_status: () => signedIn,
      list_folders: () => folders,
      list_documents: (args) => ({
        documents: args.search
          ? [{ ...doc("p1", "Pricing review"), capabilities: { canEdit: false, canShare: false } }]
          : [{ ...doc("q1", "Quarterly plan"), capabilities: { canEdit: true, canShare: true } }],
      }),
    });
    renderWithQuery(<Documents />);
    expect(await screen.findByRole("button", { name: "Edit Quarterly plan" })).toBeInTheDocument();
    await userEvent.type(screen.getByLabelText("Search documents by name"), "pricing");
    expect(await screen.findByRole("button", { name: "Open Pricing review" })).toBeInTheDocument();
    expect(screen.queryByRole("button", { name: "Edit Pricing review" })).not.toBeInTheDocument();
    expect(screen.queryByRole("button", { name: "Share Pricing review" })).not.toBeInTheDocument();
    // One request for the word, not one a keystroke.
    const searches = calls.filter((c) => c.cmd === "list_documents" && c.args.search).map((c) => c.args.search);
    expect(searches).toEqual(["pricing"]);
  });

  it("shows loading, empty and error states, and says when Google is not signed in", async () => {
    mockCommands({ google_status: () => signedIn, list_folders: () => [], list_documents: () => ({ documents: [] }) });
    const first = renderWithQuery(<Documents />);
    expect(screen.getByText("Loading documents…")).toBeInTheDocument();
    expect(await screen.findByText("No documents yet: New document makes one.")).toBeInTheDocument();
    first.unmount();
    mockCommands({
      google_status: () => signedIn,
      list_folders: () => [],
      list_documents: () => { throw { code: "integration_error", message: "Google could not be reached" }; },
    });
    const second = renderWithQuery(<Documents />);
    expect(await screen.findByRole("alert")).toHaveTextContent("Google could not be reached (integration_error)");
    second.unmount();
    mockCommands({ google_status: () => ({ signedIn: false, canSignIn: true }) });
    renderWithQuery(<Documents />);
    expect(await screen.findByRole("status")).toHaveTextContent("not signed in to Google");
  });

  it("shows the list as last read, marked stale, while Google is out of reach, and tries again", async () => {
    let reachable = false;
    const calls = mockCommands({
      google_status: () => signedIn,
      list_folders: () => folders,
      list_documents: () =>
        reachable
          ? { documents: [doc("d1", "Runbook")] }
          : { documents: [doc("d1", "Runbook")], stale: true, fetchedAt: "2026-11-20T09:30:00.000Z" },
    });
    renderWithQuery(<Documents />);
    expect(await screen.findByText("Runbook")).toBeInTheDocument();
    expect(screen.getByRole("status")).toHaveTextContent("Google cannot be reached: showing the documents as last read");
    reachable = true;
    await userEvent.click(screen.getByRole("button", { name: "Try again" }));
    await waitFor(() => expect(screen.queryByRole("status")).not.toBeInTheDocument());
    expect(screen.getByText("Runbook")).toBeInTheDocument();
    expect(calls.filter((c) => c.cmd === "list_documents")).toHaveLength(2);
  });

  it("shows a save made in an editor window without a reload", async () => {
    let modified = "2026-02-01T00:00:00Z";
    mockCommands({
      google_status: () => signedIn,
      list_folders: () => folders,
      list_documents: () => ({ documents: [{ ...doc("d1", "Runbook"), modifiedTime: modified }] }),
    });
    renderWithQuery(<Documents />);
    const row = (await screen.findByText("Runbook")).closest("tr")!;
    const before = row.textContent;
    modified = "2026-11-23T10:00:00Z";
    await act(() => emit("document-saved", "d1"));
    await waitFor(() => expect(screen.getByText("Runbook").closest("tr")!.textContent).not.toBe(before));
  });

  it("creates a document in a folder with initial sharing, naming bad fields", async () => {
    let attempts = 0;
    const calls = mockCommands({
      google_status: () => signedIn,
      list_folders: () => folders,
      list_documents: () => ({ documents: [] }),
      create_document: (args) => {
        attempts += 1;
        if (attempts === 1) throw { code: "invalid_request", message: "name: must not be blank", details: { fields: [{ field: "name", message: "must not be blank" }] } };
        return { document: doc("new1", args.name as string) };
      },
    });
    renderWithQuery(<Documents />);
    await screen.findByText("No documents yet: New document makes one.");
    await userEvent.click(screen.getByRole("button", { name: "New document" }));
    await userEvent.click(screen.getByRole("button", { name: "Create document" }));
    expect(await screen.findByText("Name must not be blank")).toBeInTheDocument();
    await userEvent.type(screen.getByLabelText("Name"), "Plan 🚀");
    await userEvent.selectOptions(screen.getByLabelText("Create in folder"), "fld_a");
    await userEvent.type(screen.getByLabelText("First text (optional)"), "Hello 😀");
    await userEvent.click(screen.getByLabelText("Share it right away"));
    await userEvent.type(screen.getByLabelText("Email"), "sam@example.com");
    await userEvent.click(screen.getByRole("button", { name: "Create document" }));
    expect(await screen.findByRole("complementary", { name: "Document created" })).toHaveTextContent("Plan 🚀 was created.");
    // Focus moves from the form, gone, to Done.
    expect(screen.getByRole("button", { name: "Done" })).toHaveFocus();
    expect(calls.filter((c) => c.cmd === "create_document").at(-1)!.args).toEqual({
      name: "Plan 🚀",
      content: "Hello 😀",
      folderId: "fld_a",
      permissions: [{ role: "writer", type: "user", emailAddress: "sam@example.com" }],
    });
  });

  it("shares with anyone with the link without an email or a notification", async () => {
    const calls = mockCommands({
      google_status: () => signedIn,
      list_folders: () => folders,
      list_documents: () => ({ documents: [doc("d1", "Roadmap")] }),
      share_document: () => ({ permissions: [{ id: "anyoneWithLink", role: "reader", type: "anyone" }] }),
    });
    renderWithQuery(<Documents />);
    await userEvent.click(await screen.findByRole("button", { name: "Share Roadmap" }));
    await userEvent.selectOptions(screen.getByLabelText("Share with"), "anyone");
    expect(screen.queryByLabelText("Email")).not.toBeInTheDocument();
    await userEvent.click(screen.getByRole("button", { name: "Share" }));
    expect(await screen.findByText("Shared: anyone with the link (Viewer).")).toBeInTheDocument();
    expect(calls.find((c) => c.cmd === "share_document")!.args).toEqual({
      id: "d1",
      permissions: [{ role: "reader", type: "anyone" }],
      sendNotificationEmail: undefined,
    });
  });
});
