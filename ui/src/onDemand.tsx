import type { ComponentType, ReactNode } from "react";

/** A component whose code loads on first use (its own chunk), with `preload()` to fetch it
 *  ahead. Once loaded it renders at once, with no Suspense fallback in between: a preloaded
 *  screen opens in the same frame as the click. Until then it suspends (the nearest
 *  `<Suspense>` shows its fallback). */
export interface OnDemand<P> {
  (props: P): ReactNode;
  preload: () => Promise<unknown>;
}

export function onDemand<P extends object>(load: () => Promise<ComponentType<P>>): OnDemand<P> {
  let loaded: ComponentType<P> | undefined;
  let failed: { error: unknown } | undefined;
  let pending: Promise<unknown> | undefined;
  const preload = () =>
    (pending ??= load().then(
      (component) => {
        loaded = component;
      },
      (error: unknown) => {
        failed = { error };
      },
    ));
  function Loaded(props: P) {
    if (loaded) {
      const Component = loaded;
      return <Component {...props} />;
    }
    if (failed) throw failed.error;
    throw preload();
  }
  return Object.assign(Loaded, { preload });
}

/** Runs `work` once the page has nothing else to do: after the first paint, when the browser
 *  says it is idle (or a moment later where it cannot say). */
export function whenIdle(work: () => void) {
  // Outside a page (a test's environment torn down while a chain of preloads went on) there is
  // nothing to preload for.
  if (typeof window === "undefined") return;
  const idle = (window as { requestIdleCallback?: (callback: () => void, options?: { timeout: number }) => number })
    .requestIdleCallback;
  if (idle) idle(work, { timeout: 2_000 });
  else setTimeout(work, 200);
}

/** Preloads every component given, one after another, each when the page is idle: no click
 *  later waits for a download, and the first screen is never slowed by the others. */
export function preloadWhenIdle(components: { preload: () => Promise<unknown> }[]) {
  const [next, ...rest] = components;
  if (!next) return;
  whenIdle(() => void next.preload().then(() => preloadWhenIdle(rest)));
}
