import type { PageMeta } from "../types";

/** Previous / "Page n of m · total things" / Next, for lists paged by number. */
export function Pager({ meta, noun, onPage }: { meta: PageMeta; noun: string; onPage: (page: number) => void }) {
  if (meta.totalPages <= 1) return null;
  const page = meta.currentPage;
  return (
    <nav className="pager" aria-label="Pages">
      <button type="button" onClick={() => onPage(page - 1)} disabled={page <= 1}>Previous</button>
      <span>Page {page} of {meta.totalPages} · {meta.totalItems} {noun}</span>
      <button type="button" onClick={() => onPage(page + 1)} disabled={page >= meta.totalPages}>Next</button>
    </nav>
  );
}
