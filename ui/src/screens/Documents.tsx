import { useEffect, useState, type FormEvent } from "react";
import { keepPreviousData, useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { api, describeError, fieldError } from "../api";
import { useRefetchOnEvent } from "../events";
import { ListBody } from "../components/ListBody";
import { OpenLinkButton } from "../components/OpenLink";
import { SlowHint } from "../components/SlowHint";
import { When } from "../format";
import type { DocumentOrder, DocumentSummary, NewPermission, Permission, SharedRole, UserRole } from "../types";
import { focusOnMount } from "../focus";
import { useListState } from "../listState";
import { DownloadButton } from "../components/DownloadButton";
import { DetailPanel } from "../components/DetailPanel";

const PAGE_SIZE = 20;

/** Documents: folder filter, sort, pages (Drive page tokens), create and share dialogs. */
export function Documents() {
  // Each search is a Drive request, which Google counts: ask once typing pauses.
  const { filters, search, set } = useListState("documents", { search: "", folder: "", order: "" }, 300);
  const folderId = filters.folder;
  const orderBy = (filters.order || "modifiedTime") as DocumentOrder;
  // A new search starts from its first page (a page token belongs to its query).
  useEffect(() => setTokens([null]), [search]);
  // Drive pages by token: the tokens of the pages before the current one.
  const [tokens, setTokens] = useState<(string | null)[]>([null]);
  const [creating, setCreating] = useState(false);
  const [sharing, setSharing] = useState<DocumentSummary | null>(null);
  const token = tokens[tokens.length - 1];
  const google = useQuery({ queryKey: ["google-status"], queryFn: api.googleStatus });
  const folders = useQuery({ queryKey: ["folders"], queryFn: api.listFolders, enabled: google.data?.signedIn === true });
  const list = useQuery({
    queryKey: ["documents", folderId, orderBy, token, search],
    queryFn: () => api.listDocuments({ folderId: folderId || null, orderBy, pageToken: token, pageSize: PAGE_SIZE, search: search || null }),
    placeholderData: keepPreviousData,
    enabled: google.data?.signedIn === true,
  });
  // A save in an editor window changes the document's modified time, and so the order.
  useRefetchOnEvent("document-saved", [["documents"]]);
  const restart = () => setTokens([null]);
  const folderName = (id: string) => folders.data?.find((f) => f.id === id)?.name;

  if (google.data && !google.data.signedIn) {
    return (
      <section className="content" aria-labelledby="documents-title">
        <h2 id="documents-title">Documents</h2>
        <div className="banner" role="status">
          Staffroom is not signed in to Google. An admin can sign in from Settings
          {google.data.canSignIn ? "" : " once the Google client id is set"}.
        </div>
      </section>
    );
  }
  return (
    <section className={creating || sharing ? "content split" : "content"} aria-labelledby="documents-title">
      <div className="stack">
        <div className="toolbar">
          <h2 id="documents-title">Documents</h2>
          {/* Google can take a while to fail (retries); say so rather than look frozen. */}
          <SlowHint active={list.isFetching && !list.isPending}>Waiting for Google…</SlowHint>
          <div className="spacer" />
          <button type="button" className="primary" onClick={() => setCreating(true)}>New document</button>
        </div>
        <div className="toolbar filters" role="search" aria-label="Find documents">
          <input
            className="search"
            type="search"
            aria-label="Search documents by name"
            placeholder="Name"
            value={filters.search}
            onChange={(e) => set({ search: e.target.value })}
          />
          <label htmlFor="folder-filter" className="muted">Folder</label>
          <select id="folder-filter" value={folderId} onChange={(e) => { set({ folder: e.target.value }); restart(); }}>
            <option value="">All folders</option>
            {(folders.data ?? []).map((f) => <option key={f.id} value={f.id}>{f.name}</option>)}
          </select>
          <label htmlFor="doc-sort" className="muted">Sort</label>
          <select id="doc-sort" value={orderBy} onChange={(e) => { set({ order: e.target.value === "modifiedTime" ? "" : e.target.value }); restart(); }}>
            <option value="modifiedTime">Last modified</option>
            <option value="createdTime">Created</option>
          </select>
        </div>
        {google.isError && <p className="error" role="alert">{describeError(google.error)}</p>}
        <ListBody
          query={list}
          items={list.data?.documents}
          noun="documents"
          empty={
            search
              ? `No document's name has a word starting with “${search}”.`
              : folderId
                ? "No documents in this folder."
                : "No documents yet: New document makes one."
          }
          banner={list.data?.stale && <GoogleStaleBanner fetchedAt={list.data.fetchedAt} retry={list} />}
          pager={
            (tokens.length > 1 || list.data?.nextPageToken) && (
              <nav className="pager" aria-label="Pages">
                <button type="button" onClick={() => setTokens(tokens.slice(0, -1))} disabled={tokens.length <= 1}>Previous</button>
                <span>Page {tokens.length}{folderId && folderName(folderId) ? ` · ${folderName(folderId)}` : ""}</span>
                <button
                  type="button"
                  onClick={() => list.data?.nextPageToken && setTokens([...tokens, list.data.nextPageToken])}
                  disabled={!list.data?.nextPageToken}
                >
                  Next
                </button>
              </nav>
            )
          }
        >
          {(documents) => (
            <table className="table" aria-label="Documents">
              <thead>
                <tr>
                  <th>Name</th>
                  <th>{orderBy === "createdTime" ? "Created" : "Last modified"}</th>
                  <th><span className="sr-only">Actions</span></th>
                </tr>
              </thead>
              <tbody>
                {documents.map((d) => (
                  <tr key={d.id}>
                    <td>{d.name}</td>
                    <td className="muted when"><When iso={orderBy === "createdTime" ? d.createdTime : d.modifiedTime} /></td>
                    <td>
                      <div className="row">
                        {/* A viewer or commenter opens it to read (Google would refuse an edit). */}
                        {d.capabilities?.canEdit === false ? (
                          <button type="button" onClick={() => void api.openEditor({ id: d.id, name: d.name })} aria-label={`Open ${d.name}`}>Open</button>
                        ) : (
                          <button type="button" className="primary" onClick={() => void api.openEditor({ id: d.id, name: d.name })} aria-label={`Edit ${d.name}`}>Edit</button>
                        )}
                        {d.capabilities?.canShare !== false && (
                          <button type="button" onClick={() => setSharing(d)} aria-label={`Share ${d.name}`}>Share</button>
                        )}
                        <DownloadButton id={d.id} name={d.name} label={`Download PDF of ${d.name}`} />
                        <OpenLinkButton url={d.webViewLink} kind="document" label={`Open in browser: ${d.name}`}>Open in browser</OpenLinkButton>
                      </div>
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          )}
        </ListBody>
      </div>
      {creating && <CreateDocument folders={folders.data ?? []} folderId={folderId} onClose={() => setCreating(false)} />}
      {sharing && !creating && <ShareDocument key={sharing.id} document={sharing} onClose={() => setSharing(null)} />}
    </section>
  );
}

/** Google could not be reached: the list is the copy last read, with a retry. */
function GoogleStaleBanner({ fetchedAt, retry }: { fetchedAt?: string | null; retry: { refetch: () => unknown; isFetching: boolean } }) {
  return (
    <div className="banner" role="status">
      Google cannot be reached: showing the documents as last read
      {fetchedAt ? ` (${new Date(fetchedAt).toLocaleString()})` : ""}.{" "}
      <button type="button" className="link" onClick={() => void retry.refetch()} disabled={retry.isFetching}>
        {retry.isFetching ? "Trying…" : "Try again"}
      </button>
    </div>
  );
}

function PermissionFields({ value, onChange, prefix }: { value: Permission; onChange: (p: Permission) => void; prefix: string }) {
  return (
    <>
      <label htmlFor={`${prefix}-type`}>Share with</label>
      <select id={`${prefix}-type`} value={value.type} onChange={(e) => onChange({ ...value, type: e.target.value as Permission["type"] })}>
        <option value="user">A person</option>
        <option value="group">A group</option>
        <option value="domain">Everyone in a domain</option>
        <option value="anyone">Anyone with the link</option>
      </select>
      {(value.type === "user" || value.type === "group") && (
        <>
          <label htmlFor={`${prefix}-email`}>Email</label>
          <input id={`${prefix}-email`} type="email" value={value.emailAddress ?? ""} onChange={(e) => onChange({ ...value, emailAddress: e.target.value })} />
        </>
      )}
      {value.type === "domain" && (
        <>
          <label htmlFor={`${prefix}-domain`}>Domain</label>
          <input id={`${prefix}-domain`} value={value.domain ?? ""} onChange={(e) => onChange({ ...value, domain: e.target.value })} placeholder="example.com" />
        </>
      )}
      <label htmlFor={`${prefix}-role`}>Role</label>
      <select id={`${prefix}-role`} value={value.role} onChange={(e) => onChange({ ...value, role: e.target.value as Permission["role"] })}>
        <option value="reader">Viewer</option>
        <option value="commenter">Commenter</option>
        <option value="writer">Editor</option>
        {value.type === "user" && <option value="owner">Owner (transfer ownership)</option>}
      </select>
    </>
  );
}

/** A role as Google Docs names it to people. */
function roleName(role: string): string {
  return ({ reader: "Viewer", commenter: "Commenter", writer: "Editor", owner: "Owner" } as Record<string, string>)[role] ?? role;
}

/** What the form holds, as the request wants it: only the fields the permission's type takes. */
function cleanPermission(p: Permission): NewPermission {
  const role = p.role as SharedRole;
  switch (p.type) {
    case "user":
      return { type: "user", role: p.role as UserRole, emailAddress: p.emailAddress ?? "" };
    case "group":
      return { type: "group", role, emailAddress: p.emailAddress ?? "" };
    case "domain":
      return { type: "domain", role, domain: p.domain ?? "" };
    default:
      return { type: "anyone", role };
  }
}

function CreateDocument({ folders, folderId, onClose }: { folders: { id: string; name: string }[]; folderId: string; onClose: () => void }) {
  const queryClient = useQueryClient();
  const [name, setName] = useState("");
  const [content, setContent] = useState("");
  const [folder, setFolder] = useState(folderId);
  const [share, setShare] = useState(false);
  const [permission, setPermission] = useState<Permission>({ role: "writer", type: "user", emailAddress: "" });
  const create = useMutation({
    mutationFn: async () =>
      (await api.createDocument({
        name,
        content: content || undefined,
        folderId: folder || undefined,
        permissions: share ? [cleanPermission(permission)] : [],
      })).document,
    onSuccess: () => void queryClient.invalidateQueries({ queryKey: ["documents"] }),
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    create.mutate();
  };
  const problem = (field: string) => fieldError(create.error, field);
  if (create.data) {
    return (
      <DetailPanel label="Document created" onClose={onClose} focus="field" className="callout">
        <p role="status"><strong>{create.data.name}</strong> was created.</p>
        <div className="row">
          <OpenLinkButton url={create.data.webViewLink} kind="document">Open in browser</OpenLinkButton>
          {/* The form's buttons are gone with it: focus comes here. */}
          <button type="button" className="primary" onClick={onClose} ref={focusOnMount}>Done</button>
        </div>
      </DetailPanel>
    );
  }
  return (
    <DetailPanel label="New document" onClose={onClose} focus="field">
      <form className="stack" onSubmit={submit} aria-label="New document" noValidate>
        <h3>New document</h3>
        <label htmlFor="doc-name">Name</label>
        <input id="doc-name" value={name} onChange={(e) => setName(e.target.value)} maxLength={255} aria-invalid={Boolean(problem("name"))} />
        {problem("name") && <p className="field-error">Name {problem("name")}</p>}
        <label htmlFor="doc-folder">Create in folder</label>
        <select id="doc-folder" value={folder} onChange={(e) => setFolder(e.target.value)}>
          <option value="">My Drive</option>
          {folders.map((f) => <option key={f.id} value={f.id}>{f.name}</option>)}
        </select>
        <label htmlFor="doc-content">First text (optional)</label>
        <textarea id="doc-content" rows={4} value={content} onChange={(e) => setContent(e.target.value)} />
        <label className="check">
          <input type="checkbox" checked={share} onChange={(e) => setShare(e.target.checked)} /> Share it right away
        </label>
        {share && <PermissionFields value={permission} onChange={setPermission} prefix="new-share" />}
        {create.isError && !problem("name") && <p className="error" role="alert">{describeError(create.error)}</p>}
        <div className="row">
          <button type="button" onClick={onClose}>Cancel</button>
          <button type="submit" className="primary" disabled={create.isPending}>{create.isPending ? "Creating…" : "Create document"}</button>
        </div>
      </form>
    </DetailPanel>
  );
}

function ShareDocument({ document, onClose }: { document: DocumentSummary; onClose: () => void }) {
  const [permission, setPermission] = useState<Permission>({ role: "reader", type: "user", emailAddress: "" });
  const [notify, setNotify] = useState(true);
  const share = useMutation({
    mutationFn: () =>
      api.shareDocument({
        id: document.id,
        permissions: [cleanPermission(permission)],
        sendNotificationEmail: permission.type === "user" || permission.type === "group" ? notify : undefined,
      }),
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    share.mutate();
  };
  return (
    <DetailPanel label={`Share ${document.name}`} onClose={onClose} focus="field">
      <form className="stack" onSubmit={submit} aria-label={`Share ${document.name}`} noValidate>
        <h3>Share “{document.name}”</h3>
        <PermissionFields value={permission} onChange={setPermission} prefix="share" />
        {(permission.type === "user" || permission.type === "group") && permission.role !== "owner" && (
          <label className="check">
            <input type="checkbox" checked={notify} onChange={(e) => setNotify(e.target.checked)} /> Send an email
          </label>
        )}
        {share.isError && <p className="error" role="alert">{describeError(share.error)}</p>}
        {share.data && (
          <p className="callout" role="status">
            Shared: {share.data.permissions.map((p) => `${p.emailAddress ?? p.domain ?? "anyone with the link"} (${roleName(p.role)})`).join(", ")}.
          </p>
        )}
        <div className="row">
          <button type="button" onClick={onClose}>{share.data ? "Done" : "Cancel"}</button>
          <button type="submit" className="primary" disabled={share.isPending}>{share.isPending ? "Sharing…" : "Share"}</button>
        </div>
      </form>
    </DetailPanel>
  );
}

