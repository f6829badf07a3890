import { useEffect, useState } from "react";

/** How long typing must pause before a list follows its search box. */
export const SETTLE_MS = 150;

/** `value` once it has stopped changing for `ms`: a list follows its search box when typing
 *  pauses, not at every key (each key would ask the core and redraw every row while the user is
 *  still typing, the longest frames of a search). React's `useDeferredValue` did this by
 *  rendering at low priority; under Preact it returns the value at once. */
export function useSettled<T>(value: T, ms = SETTLE_MS): T {
  const [settled, setSettled] = useState(value);
  useEffect(() => {
    if (Object.is(value, settled)) return;
    const timer = setTimeout(() => setSettled(value), ms);
    return () => clearTimeout(timer);
  }, [value, settled, ms]);
  return settled;
}
