import { useEffect, useState } from "react";

interface Props {
  /** Work is under way (e.g. a query refetching behind the data on screen). */
  active: boolean;
  children: React.ReactNode;
  /** How long the work may take before the hint shows, so quick refreshes do not flicker. */
  afterMs?: number;
}

/** A quiet note that shows only once some work has taken longer than `afterMs`. */
export function SlowHint({ active, children, afterMs = 1500 }: Props) {
  const [shown, setShown] = useState(false);
  useEffect(() => {
    if (!active) {
      setShown(false);
      return;
    }
    const timer = setTimeout(() => setShown(true), afterMs);
    return () => clearTimeout(timer);
  }, [active, afterMs]);
  return shown ? <span className="muted small" aria-live="polite">{children}</span> : null;
}
