// How long each click in the main window takes to show its result, measured inside the page with
// the Performance API: a mark at the input event (its own timestamp) and, once what it changed
// is painted, a measure named after the interaction ("page", "filter", "sort", "open a detail",
// "switch area", "search"). "Painted" is the frame after the last change the interaction made to
// the page, once no query on screen is waiting for what it has never had: a list refreshed in the
// background while its cached rows are shown does not hold the measure, nor does a page fetched
// ahead. A key in a search box is done when the rows it asked for are painted, so its figure
// includes the pause typing must make first (ui/src/settled.ts). An interaction that had to wait
// for the core is named so (" · asked the core"): the goal is for clicks answered from the cache,
// and the others are a different figure. The bench
// (tests/e2e/bench.mjs) reads the measures over a scripted session; nothing else does. Watching
// costs nothing between interactions: the page is observed only while one waits to be measured.
import type { QueryClient } from "@tanstack/react-query";
import { onSettled, settling } from "./settled";

/** What kind of interaction an input event on `target` is, if it is one this measures. */
export function interactionOf(target: Element, type: string): string | null {
  if (type === "input") return target.matches("input[type=search]") ? "search" : null;
  if (type === "change") {
    if (target.matches("select[id$='sort']")) return "sort";
    return target.matches("select, input[type=date], input[type=checkbox]") ? "filter" : null;
  }
  if (target.closest("nav[aria-label='Main']")) return target.closest("button") ? "switch area" : null;
  if (target.closest("nav[aria-label='Pages']")) return target.closest("button") ? "page" : null;
  if (target.closest("th")) return target.closest("button") ? "sort" : null;
  if (target.closest("tbody tr")) return "open a detail";
  return null;
}

/** The measures kept at most: one per interaction, for the bench to read. */
const KEPT = 1_000;
export const PREFIX = "interaction:";
/** Appended to the name of an interaction that waited for the core. */
export const ASKED = " · asked the core";

/** How many queries on screen are loading something they have never had (not a refresh of what
 *  is shown). */
function waiting(queryClient: QueryClient) {
  return queryClient.isFetching({ type: "active", predicate: (query) => query.state.data === undefined });
}

interface Pending {
  name: string;
  start: number;
  /** When the frame after the latest change was seen. */
  painted: number;
  changed: boolean;
  /** Whether it waited for the core: a query on screen had nothing to show yet. */
  asked: boolean;
}

/** Measures every interaction of `root`'s page from now on. */
export function measureInteractions(root: HTMLElement, queryClient: QueryClient) {
  let pending: Pending | null = null;
  let scheduled = false;
  // Live status regions (the sync's progress, banners) change on their own: not a click's result.
  const observer = new MutationObserver((records) => {
    const own = records.some((record) => {
      const element = record.target instanceof Element ? record.target : record.target.parentElement;
      return !element?.closest("[role=status]");
    });
    if (!own) return;
    if (pending) pending.changed = true;
    afterNextPaint();
  });

  const finish = (done: Pending) => {
    observer.disconnect();
    pending = null;
    if (performance.getEntriesByType("measure").length >= KEPT) performance.clearMeasures();
    performance.measure(PREFIX + done.name + (done.asked ? ASKED : ""), { start: done.start, end: done.painted });
  };
  // After the next frame: a change since the last look was painted in it. With nothing changed
  // since, and nothing loading, the interaction is done.
  const look = () => {
    scheduled = false;
    const current = pending;
    if (!current) return;
    if (current.changed) {
      current.changed = false;
      current.painted = performance.now();
      afterNextPaint();
    } else if (settling()) {
      // A search box waits for typing to pause before its list asks (ui/src/settled.ts).
    } else if (waiting(queryClient) === 0) {
      finish(current);
    } else {
      current.asked = true;
    }
  };
  function afterNextPaint() {
    if (scheduled || !pending) return;
    scheduled = true;
    requestAnimationFrame(() => setTimeout(look, 0));
  }
  // A search box that settles starts what the key asked for.
  onSettled(() => {
    // What it starts (a render, then a query) comes after this: look a frame later.
    if (pending) pending.changed = true;
    afterNextPaint();
  });
  // A query that starts marks the wait as the core's; one that ends without changing the page
  // ends the wait too.
  queryClient.getQueryCache().subscribe((event) => {
    const started = event.type === "updated" && event.action.type === "fetch";
    if (pending && started && event.query.state.data === undefined && event.query.isActive()) pending.asked = true;
    afterNextPaint();
  });

  const onInput = (event: Event) => {
    if (!(event.target instanceof Element)) return;
    const name = interactionOf(event.target, event.type);
    if (!name) return;
    // The event's own time (when the input happened, before any handler ran), on the page's
    // clock; where timestamps are on the wall clock instead (jsdom), now.
    const start = event.timeStamp <= performance.now() ? event.timeStamp : performance.now();
    // A new interaction ends one still waiting (typing: each key is one). Its figure is then a
    // lower bound, up to this input: dropping it would leave only the fast ones in the figures.
    if (pending) {
      if (pending.changed || waiting(queryClient) > 0 || settling()) pending.painted = start;
      finish(pending);
    }
    pending = { name, start, painted: start, changed: true, asked: false };
    observer.observe(root, { childList: true, subtree: true, characterData: true, attributes: true });
    afterNextPaint();
  };
  for (const type of ["click", "change", "input"]) root.addEventListener(type, onInput, { capture: true });
}
