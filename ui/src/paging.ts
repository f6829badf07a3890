import { useEffect } from "react";
import { keepPreviousData, useQuery, useQueryClient, type QueryKey } from "@tanstack/react-query";
import type { PageMeta } from "./types";

/** How long a fetched page is shown without asking again when paged to: a page fetched ahead is
 *  not fetched a second time on "Next". What changes the list while it is on screen (a webhook,
 *  a sync, another desktop's change) invalidates it, and that refetches whatever its age. */
const FRESH_FOR = 10_000;

/** One page of a list paged by number: the previous page stays on screen while the next loads,
 *  and once a page has arrived the one after it is fetched into the cache, so that "Next" shows
 *  it at once (the usual way through a list). */
export function usePagedList<T extends { meta: PageMeta }>(key: (page: number) => QueryKey, fetch: (page: number) => Promise<T>, page: number) {
  const queryClient = useQueryClient();
  const list = useQuery({
    queryKey: key(page),
    queryFn: () => fetch(page),
    placeholderData: keepPreviousData,
    staleTime: FRESH_FOR,
    // Opening the screen always asks again: what changed while it was closed (an order made
    // from Products, a webhook for another list) was not invalidated for it. Paging within it
    // (a new key) goes by `staleTime`, so a page fetched ahead shows at once.
    refetchOnMount: "always",
  });
  const arrived = list.isSuccess && !list.isPlaceholderData;
  const totalPages = list.data?.meta.totalPages ?? 0;
  const next = JSON.stringify(key(page + 1));
  useEffect(() => {
    if (arrived && page < totalPages) void queryClient.prefetchQuery({ queryKey: key(page + 1), queryFn: () => fetch(page + 1), staleTime: FRESH_FOR });
    // `next` names the page to fetch; `key` and `fetch` are new closures on every render.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [arrived, next, page, totalPages, queryClient]);
  return list;
}
