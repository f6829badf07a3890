import type { ReactNode } from "react";
import type { UseQueryResult } from "@tanstack/react-query";
import { describeError } from "../api";
import type { PageMeta } from "../types";
import { Pager } from "./Pager";
import { StaleBanner } from "./StaleBanner";

interface Props<T> {
  /** The page's query: for the provider's lists its data is `{<plural>: T[], meta}`. */
  query: UseQueryResult<object>;
  items: T[] | undefined;
  /** The things listed, plural: "customers". */
  noun: string;
  /** What an empty page says: with filters, "No customers match."; without, why there are none. */
  empty: string;
  /** Pages by number, from the page's `meta`. */
  onPage?: (page: number) => void;
  /** Instead of `meta`'s: the banner over a cached copy, and the pager (Documents page by
   *  Drive's tokens and are cached from Google, not synced from the provider). */
  banner?: ReactNode;
  pager?: ReactNode;
  /** The table of a page that has items. */
  children: (items: T[]) => ReactNode;
}

/** What every list screen shows under its filters: the stale banner, loading, the error as a
 *  sentence, the empty state, the table, and the pager. */
export function ListBody<T>({ query, items, noun, empty, onPage, banner, pager, children }: Props<T>) {
  const meta = query.data && "meta" in query.data ? (query.data.meta as PageMeta) : undefined;
  return (
    <>
      {banner ?? (meta?.stale && <StaleBanner what={`the ${noun}`} syncedAt={meta.syncedAt} />)}
      {query.isPending && <p className="muted">Loading {noun}…</p>}
      {query.isError && <p className="error" role="alert">{describeError(query.error)}</p>}
      {items && items.length === 0 && <p className="muted">{empty}</p>}
      {items && items.length > 0 && children(items)}
      {pager ?? (meta && onPage && <Pager meta={meta} noun={noun} onPage={onPage} />)}
    </>
  );
}
