import { useEffect, useState } from "react";

/** How long typing must pause before a list follows its search box. */
export const SETTLE_MS = 150;

/** Searches waiting for typing to pause, and who wants to know when one settles (the in-app
 *  measures of ui/src/perf.ts: a key is done when the rows it asked for are painted). */
let waiting = 0;
const listeners = new Set<() => void>();

/** Whether a search box's text is waiting to be followed. */
export function settling() {
  return waiting > 0;
}

/** Calls `listener` each time a search box's text is followed; returns the unsubscribe. */
export function onSettled(listener: () => void) {
  listeners.add(listener);
  return () => void listeners.delete(listener);
}

/** A search box's text once typing has paused for `ms`: a list follows its search box when
 *  typing pauses, not at every key (each key would ask the core and redraw every row while the
 *  user is still typing, the longest frames of a search). An emptied box is followed at once: the
 *  whole list is back from the cache. React's `useDeferredValue` did this by rendering at low
 *  priority; under Preact it returns the value at once. */
export function useSettled(text: string, ms = SETTLE_MS): string {
  const [settled, setSettled] = useState(text);
  useEffect(() => {
    if (text === "") {
      // Kept, the old text would come back for a moment when typing starts again.
      if (settled !== "") setSettled("");
      return;
    }
    if (text === settled) return;
    waiting += 1;
    let done = false;
    const finish = () => {
      if (done) return;
      done = true;
      waiting -= 1;
    };
    const timer = setTimeout(() => {
      finish();
      setSettled(text);
      listeners.forEach((listener) => listener());
    }, ms);
    return () => {
      clearTimeout(timer);
      finish();
    };
  }, [text, settled, ms]);
  return text === "" ? "" : settled;
}
