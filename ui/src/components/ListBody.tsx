import type { ReactNode } from "react";
import type { UseQueryResult } from "@tanstack/react-query";
import { describeError } from "../api";
import type { PageMeta } from "../types";
import { Pager } from "./Pager";
import { StaleBanner } from "./StaleBanner";

interface Props<T> {
  /** The page's query: its data is `{<plural>: T[], meta}`. */
  query: UseQueryResult<{ meta: PageMeta }>;
  items: T[] | undefined;
  /** The things listed, plural: "customers". */
  noun: string;
  /** What an empty page says: with filters, "No customers match."; without, why there are none. */
  empty: string;
  onPage: (page: number) => void;
  /** The table of a page that has items. */
  children: (items: T[]) => ReactNode;
}

/** What every list screen shows under its filters: the stale banner, loading, the error as a
 *  sentence, the empty state, the table, and the pager. */
export function ListBody<T>({ query, items, noun, empty, onPage, children }: Props<T>) {
  const meta = query.data?.meta;
  return (
    <>
      {meta?.stale && <StaleBanner what={`the ${noun}`} syncedAt={meta.syncedAt} />}
      {query.isPending && <p className="muted">Loading {noun}…</p>}
      {query.isError && <p className="error" role="alert">{describeError(query.error)}</p>}
      {items && items.length === 0 && <p className="muted">{empty}</p>}
      {items && items.length > 0 && children(items)}
      {meta && <Pager meta={meta} noun={noun} onPage={onPage} />}
    </>
  );
}
