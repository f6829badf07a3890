import type { ReactNode } from "react";
import { useDialog } from "../focus";

/** The chosen item beside (or, in a narrow window, over) its list: focus moves into it when it
 *  opens, so a keyboard reaches its actions at once and a screen reader names it; Escape closes
 *  it and focus goes back to the row it was opened from. One element whatever it shows (loading,
 *  an error, the item), so focus stays put while it loads. */
export function DetailPanel({ label, onClose, className, children }: {
  label: string;
  onClose: () => void;
  className?: string;
  children: ReactNode;
}) {
  const ref = useDialog<HTMLElement>(onClose, "panel");
  return (
    <aside ref={ref} tabIndex={-1} className={className ? `card detail ${className}` : "card detail"} aria-label={label}>
      {children}
    </aside>
  );
}
