import { useEffect, useRef, useState, type KeyboardEvent } from "react";
import type { Alignment } from "../types";

/** Each alignment as the menu names it, with Google Docs' shortcut. */
const CHOICES: { alignment: Alignment; label: string; key: string }[] = [
  { alignment: "START", label: "Left align", key: "L" },
  { alignment: "CENTER", label: "Centre align", key: "E" },
  { alignment: "END", label: "Right align", key: "R" },
  { alignment: "JUSTIFIED", label: "Justify", key: "J" },
];

/** Four lines set as the alignment sets a paragraph's. */
function AlignIcon({ alignment }: { alignment: Alignment }) {
  const widths = alignment === "JUSTIFIED" ? [12, 12, 12, 12] : [12, 8, 12, 8];
  const x = (w: number) => (alignment === "CENTER" ? 2 + (12 - w) / 2 : alignment === "END" ? 14 - w : 2);
  return (
    <svg width="16" height="16" viewBox="0 0 16 16" aria-hidden="true" focusable="false">
      {widths.map((w, i) => <rect key={i} x={x(w)} y={2.5 + i * 3.3} width={w} height="1.6" rx="0.5" fill="currentColor" />)}
    </svg>
  );
}

interface Props {
  /** The alignment at the selection; null where none applies (a fixed part is selected). */
  current: Alignment | null;
  onChoose: (alignment: Alignment) => void;
}

/** The toolbar's alignment control: one button (the toolbar has room for one) opening a menu of
 *  the four, as Google Docs' does when its toolbar is narrow. Down (or Enter, Space) opens it on
 *  the alignment in use, Up on the last; arrows move, Enter or Space chooses, Escape closes, Tab
 *  closes and moves on. */
export function AlignMenu({ current, onChoose }: Props) {
  // Closed, or open with the focus on the alignment in use or on the last item.
  const [open, setOpen] = useState<false | "current" | "last">(false);
  const button = useRef<HTMLButtonElement>(null);
  const menu = useRef<HTMLDivElement>(null);
  const shown = current ?? "START";

  useEffect(() => {
    if (!open) return;
    // Focus the checked item (or the last); a click anywhere else closes the menu.
    const items = menu.current?.querySelectorAll<HTMLElement>('[role="menuitemradio"]');
    (open === "last" ? items?.[items.length - 1] : menu.current?.querySelector<HTMLElement>('[aria-checked="true"]'))?.focus();
    const close = (event: MouseEvent) => {
      if (!menu.current?.contains(event.target as Node) && !button.current?.contains(event.target as Node)) setOpen(false);
    };
    document.addEventListener("mousedown", close);
    return () => document.removeEventListener("mousedown", close);
  }, [open]);

  const choose = (alignment: Alignment) => {
    setOpen(false);
    onChoose(alignment);
  };
  const onMenuKey = (event: KeyboardEvent<HTMLDivElement>) => {
    const items = Array.from(menu.current?.querySelectorAll<HTMLElement>('[role="menuitemradio"]') ?? []);
    const at = items.indexOf(document.activeElement as HTMLElement);
    const step = event.key === "ArrowDown" ? 1 : event.key === "ArrowUp" ? -1 : 0;
    if (step !== 0) {
      event.preventDefault();
      items[(at + step + items.length) % items.length]?.focus();
    } else if (event.key === "Home" || event.key === "End") {
      event.preventDefault();
      items[event.key === "Home" ? 0 : items.length - 1]?.focus();
    } else if (event.key === "Escape") {
      event.preventDefault();
      setOpen(false);
      button.current?.focus();
    } else if (event.key === "Tab") {
      // From the button, the browser's own Tab then moves on to the next control.
      button.current?.focus();
      setOpen(false);
    }
  };

  const label = CHOICES.find((c) => c.alignment === shown)?.label ?? "Left align";
  return (
    <span className="menu-anchor">
      <button
        ref={button}
        type="button"
        className="tool"
        aria-label={`Alignment: ${label}`}
        aria-haspopup="menu"
        aria-expanded={open !== false}
        title="Alignment"
        disabled={current === null}
        onMouseDown={(e) => e.preventDefault()}
        onClick={() => setOpen((o) => (o ? false : "current"))}
        onKeyDown={(e) => {
          if (e.key === "ArrowDown" || e.key === "ArrowUp") {
            e.preventDefault();
            setOpen(e.key === "ArrowUp" ? "last" : "current");
          }
        }}
      >
        <AlignIcon alignment={shown} />
      </button>
      {open && (
        <div ref={menu} className="card tool-menu" role="menu" aria-label="Alignment" onKeyDown={onMenuKey}>
          {CHOICES.map((choice) => (
            <button
              key={choice.alignment}
              type="button"
              role="menuitemradio"
              aria-checked={choice.alignment === shown}
              aria-keyshortcuts={`Control+Shift+${choice.key}`}
              tabIndex={-1}
              onMouseDown={(e) => e.preventDefault()}
              onClick={() => choose(choice.alignment)}
            >
              <AlignIcon alignment={choice.alignment} />
              <span>{choice.label}</span>
              <kbd aria-hidden="true">Ctrl+Shift+{choice.key}</kbd>
            </button>
          ))}
        </div>
      )}
    </span>
  );
}
