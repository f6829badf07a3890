import { useEffect, useRef } from "react";

/** A ref that focuses its element once, when it is mounted: what React's `autoFocus` does.
 *  Preact only sets the `autofocus` attribute, which browsers honour on page load alone, so a
 *  field that appears later (a dialog, the link form) would not get the caret. Stable, so it is
 *  not called again on every render. */
export const focusOnMount = (element: HTMLElement | null) => element?.focus();

const FIELDS = "input:not([disabled]), select:not([disabled]), textarea:not([disabled])";

/** What a dialog or a panel does for the keyboard. When it opens, focus moves into it: to its
 *  first field (a form asks for something: the caret goes there), else its first button, or with
 *  `"panel"` to the panel itself, which a screen reader then names. Escape closes it (unless
 *  something inside used the key first: a menu, a field's own Escape). When it closes, focus
 *  goes back to what opened it, if that is still on screen and focus would otherwise be lost. */
export function useDialog<T extends HTMLElement>(onClose: () => void, focus: "field" | "panel" = "field") {
  const ref = useRef<T>(null);
  const close = useRef(onClose);
  close.current = onClose;
  useEffect(() => {
    const box = ref.current;
    if (!box) return;
    const opener = document.activeElement instanceof HTMLElement && !box.contains(document.activeElement) ? document.activeElement : null;
    const target = focus === "panel" ? box : (box.querySelector<HTMLElement>(FIELDS) ?? box.querySelector<HTMLElement>("button:not([disabled])"));
    target?.focus();
    const onKey = (event: KeyboardEvent) => {
      if (event.key !== "Escape" || event.defaultPrevented) return;
      event.preventDefault();
      close.current();
    };
    box.addEventListener("keydown", onKey);
    return () => {
      box.removeEventListener("keydown", onKey);
      const active = document.activeElement;
      const lost = !active || active === document.body || box.contains(active) || !active.isConnected;
      if (lost && opener?.isConnected) opener.focus();
    };
  }, [focus]);
  return ref;
}

/** For a button that its form takes the place of while open (Refund…, New document from
 *  template): a ref for the button, and `back()` to call as the form closes, which focuses the
 *  button once it is on screen again. */
export function useFocusBack<T extends HTMLElement>() {
  const ref = useRef<T>(null);
  const back = () => requestAnimationFrame(() => ref.current?.focus());
  return [ref, back] as const;
}
