import type { ReactNode } from "react";
import { useDialog } from "../focus";

/** The chosen item (or a form: a new document, a share) beside its list, or over it in a narrow
 *  window: focus moves into it when it opens (to the panel, which a screen reader names, or with
 *  `focus="field"` to its first field), so a keyboard reaches it at once; Escape closes it and
 *  focus goes back to the button or row it was opened from. One element whatever it shows
 *  (loading, an error, the item), so focus stays put while it loads. */
export function DetailPanel({ label, onClose, focus = "panel", className, children }: {
  label: string;
  onClose: () => void;
  focus?: "panel" | "field";
  className?: string;
  children: ReactNode;
}) {
  const ref = useDialog<HTMLElement>(onClose, focus);
  return (
    <aside ref={ref} tabIndex={-1} className={className ? `card detail ${className}` : "card detail"} aria-label={label}>
      {children}
    </aside>
  );
}
