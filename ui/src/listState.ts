import { useLocation, useSearch } from "wouter";
import { SETTLE_MS, useSettled } from "./settled";

/** A list screen's filters (each a string; "" for none) and its page, kept in the address under
 *  the list's name (`?orders.status=refunded&orders.page=3`), so that the back button, a link or
 *  a reload brings the list back as it was, and each list keeps its own. `search` is the search
 *  box's text (the filter named `search`, if the list has one) once typing pauses (the list follows it then); changing any filter goes back to the
 *  first page. Every list screen reads its filters and page through this (Documents, which Drive
 *  pages by token, its filters only). */
export function useListState<F extends Record<string, string>>(list: string, none: F, settleMs = SETTLE_MS) {
  const [location, navigate] = useLocation();
  const params = new URLSearchParams(useSearch());
  const read = (name: string) => params.get(`${list}.${name}`) ?? "";
  const filters = Object.fromEntries(Object.keys(none).map((name) => [name, read(name)])) as F;
  const page = Math.max(1, Number.parseInt(read("page"), 10) || 1);
  const search = useSettled((filters.search ?? "").trim(), settleMs);

  /** Writes `changed` into the address in place (typing makes no history of its own). */
  const write = (changed: Record<string, string>) => {
    const next = new URLSearchParams(params);
    for (const [name, value] of Object.entries(changed)) {
      if (value) next.set(`${list}.${name}`, value);
      else next.delete(`${list}.${name}`);
    }
    navigate(`${location}?${next.toString()}`, { replace: true });
  };
  const set = (changed: Partial<F>) => write({ ...(changed as Record<string, string>), page: "" });
  const setPage = (to: number) => write({ page: to > 1 ? String(to) : "" });
  const clear = () => set(none);
  const filtered = Object.entries(filters).some(([name, value]) => (name === "search" ? search !== "" : value !== ""));
  return { filters, search, page, set, setPage, clear, filtered };
}
