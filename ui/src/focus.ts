/** A ref that focuses its element once, when it is mounted: what React's `autoFocus` does.
 *  Preact only sets the `autofocus` attribute, which browsers honour on page load alone, so a
 *  field that appears later (a dialog, the link form) would not get the caret. Stable, so it is
 *  not called again on every render. */
export const focusOnMount = (element: HTMLElement | null) => element?.focus();
