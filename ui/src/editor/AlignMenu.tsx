import { useEffect, useRef, useState, type KeyboardEvent } from "react";
import type { Alignment } from "../types";

/** Each alignment as the menu names it, with Google Docs' shortcut. */
const CHOICES: { alignment: Alignment; label: string; shortcut: string }[] = [
  { alignment: "START", label: "Left align", shortcut: "Ctrl+Shift+L" },
  { alignment: "CENTER", label: "Centre align", shortcut: "Ctrl+Shift+E" },
  { alignment: "END", label: "Right align", shortcut: "Ctrl+Shift+R" },
  { alignment: "JUSTIFIED", label: "Justify", shortcut: "Ctrl+Shift+J" },
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
 *  the four, as Google Docs' does when its toolbar is narrow. Arrow keys move, Enter or Space
 *  chooses, Escape closes. */
export function AlignMenu({ current, onChoose }: Props) {
  const [open, setOpen] = useState(false);
  const button = useRef<HTMLButtonElement>(null);
  const menu = useRef<HTMLDivElement>(null);
  const shown = current ?? "START";

  useEffect(() => {
    if (!open) return;
    // Focus the checked item; a click anywhere else closes the menu.
    menu.current?.querySelector<HTMLElement>('[aria-checked="true"]')?.focus();
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
    } else if (event.key === "Escape" || event.key === "Tab") {
      event.preventDefault();
      setOpen(false);
      button.current?.focus();
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
        aria-expanded={open}
        title="Alignment"
        disabled={current === null}
        onMouseDown={(e) => e.preventDefault()}
        onClick={() => setOpen((o) => !o)}
        onKeyDown={(e) => {
          if (e.key === "ArrowDown") {
            e.preventDefault();
            setOpen(true);
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
              tabIndex={-1}
              onMouseDown={(e) => e.preventDefault()}
              onClick={() => choose(choice.alignment)}
            >
              <AlignIcon alignment={choice.alignment} />
              <span>{choice.label}</span>
              <kbd>{choice.shortcut}</kbd>
            </button>
          ))}
        </div>
      )}
    </span>
  );
}
