import { Suspense, useEffect, useRef, useState } from "react";
import { useMutation } from "@tanstack/react-query";
import { Router, useLocation } from "wouter";
import { useHashLocation } from "wouter/use-hash-location";
import { api } from "../api";
import type { AppInfo, User } from "../types";
import { ThemeSwitch } from "../theme";
import { SyncIndicator } from "../components/SyncIndicator";
import { useRefetchSynced } from "../sync";
import { TeamServerBanner } from "../components/TeamServerBanner";
import { paths } from "../links";
import { ALL_SCREENS, allowed, place, ROUTES, type AreaId } from "../routes";
import { useDesktopNotifications } from "../notifications";
import { onDemand, preloadWhenIdle } from "../onDemand";

const Palette = onDemand(() => import("../components/Palette").then((m) => m.Palette));
/** The Overview, which the app opens on (App preloads it while the sign-in form waits). */
export { Overview } from "../routes";

interface Props {
  info: AppInfo;
  user: User;
  onSignedOut: () => void;
  /** Where to open (the set-up, after the first admin was made in real mode). */
  startAt?: AreaId;
}

/** The signed-in app, with a URL for every area and thing (`#/customers/1042`), so that the back
 *  button goes back and a link can open anything. */
export function Shell(props: Props) {
  // wouter's hash location follows `hashchange` alone, which a step back through history does not
  // fire when the query changes too (a list's filters are in it): a `popstate` is told as one.
  useEffect(() => {
    const told = () => dispatchEvent(new HashChangeEvent("hashchange"));
    addEventListener("popstate", told);
    return () => removeEventListener("popstate", told);
  }, []);
  return (
    <Router hook={useHashLocation}>
      <Areas {...props} />
    </Router>
  );
}

/** Navigation on the left, the current area on the right. */
function Areas({ info, user, onSignedOut, startAt }: Props) {
  const signOut = useMutation({ mutationFn: api.logout, onSettled: onSignedOut });
  const [location, navigate] = useLocation();
  useEffect(() => {
    if (startAt) navigate(paths.area(startAt), { replace: true });
    // Once, when the app opens.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, []);
  const { route, id } = place(location, user);
  // The sidebar opens a screen as it starts, its lists unfiltered (an empty query); the back
  // button returns to a list as it was filtered (useListState).
  const go = (next: AreaId) => navigate(`${paths.area(next)}?`);
  const areas = ROUTES.filter((r) => allowed(r, user));
  const [palette, setPalette] = useState(false);
  const refetchSynced = useRefetchSynced();
  const syncNow = useMutation({ mutationFn: api.syncNow, onSettled: refetchSynced });
  const told = useDesktopNotifications(user);
  useFocusAfterNavigation(location);
  useEffect(() => preloadWhenIdle([...ALL_SCREENS, Palette]), []);
  // Ctrl+K (⌘K on a Mac) opens the palette from any screen.
  useEffect(() => {
    const onKey = (event: KeyboardEvent) => {
      if ((event.ctrlKey || event.metaKey) && event.key.toLowerCase() === "k") {
        event.preventDefault();
        setPalette(true);
      }
    };
    window.addEventListener("keydown", onKey);
    return () => window.removeEventListener("keydown", onKey);
  }, []);
  return (
    <div className="shell">
      <nav className="sidebar" aria-label="Main">
        <div className="brand small-brand">
          <img src="/icon.svg" alt="" width={24} height={24} />
          <span>Staffroom</span>
        </div>
        {areas.filter((r) => !("hidden" in r)).map((r) => (
          <button
            key={r.id}
            type="button"
            className={r.id === route.id ? "nav-item active" : "nav-item"}
            aria-current={r.id === route.id ? "page" : undefined}
            onClick={() => go(r.id)}
          >
            {r.label}
          </button>
        ))}
      </nav>
      <div className="main">
        <TeamServerBanner />
        <header className="topbar">
          <h1 className="topbar-title">{route.label}</h1>
          {info.signedInTo && (
            <span className="badge team" title="Signed in to this team server; every screen shows its data">
              Team server · {new URL(info.signedInTo).host}
            </span>
          )}
          {info.sandbox && <span className="badge" title="Simulated providers; nothing real is charged or written">Sandbox</span>}
          <div className="spacer" />
          <button type="button" className="palette-open" onClick={() => setPalette(true)} aria-keyshortcuts="Control+K">
            Search… <kbd>Ctrl K</kbd>
          </button>
          <SyncIndicator />
          <ThemeSwitch />
          <span className="who" aria-label="Signed in as">
            {user.name} <span className="muted">· {user.role}</span>
          </span>
          <button type="button" onClick={() => signOut.mutate()} disabled={signOut.isPending}>
            Sign out
          </button>
        </header>
        <main className="screen">
          <Suspense fallback={<section className="content" aria-busy="true"><p className="muted">Loading…</p></section>}>
            {route.render({ info, user, id, go })}
          </Suspense>
        </main>
        {/* What changes without a click (an order paid, a payment failed), said where the person is. */}
        <p className="sr-only" role="status" aria-label="Payment events">{told}</p>
        <Suspense fallback={null}>
          {palette && (
            <Palette
              areas={areas}
              onSyncNow={() => syncNow.mutate()}
              onSignOut={() => signOut.mutate()}
              onClose={() => setPalette(false)}
            />
          )}
        </Suspense>
      </div>
    </div>
  );
}

/** After a move to another screen or item, the element that had focus (a row's button, the
 *  palette) is gone and focus with it: it goes to the new screen's first heading, so that the
 *  keyboard goes on from there and a screen reader says where it is. A panel that took focus
 *  itself (DetailPanel) keeps it. */
function useFocusAfterNavigation(location: string) {
  const first = useRef(true);
  useEffect(() => {
    if (first.current) {
      first.current = false;
      return;
    }
    const frame = requestAnimationFrame(() => {
      const active = document.activeElement;
      if (active && active !== document.body && active.isConnected) return;
      const heading = document.querySelector<HTMLElement>("main h2, main h3") ?? document.querySelector<HTMLElement>("h1");
      if (!heading) return;
      heading.tabIndex = -1; // focusable from here, not a stop for Tab
      heading.focus();
    });
    return () => cancelAnimationFrame(frame);
  }, [location]);
}
