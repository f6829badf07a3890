import { Suspense, useEffect, useState } from "react";
import { useMutation } from "@tanstack/react-query";
import { Router, useLocation } from "wouter";
import { useHashLocation } from "wouter/use-hash-location";
import { api } from "../api";
import type { AppInfo, User } from "../types";
import { ThemeSwitch } from "../theme";
import { SyncIndicator } from "../components/SyncIndicator";
import { useRefetchSynced } from "../sync";
import { TeamServerBanner } from "../components/TeamServerBanner";
import { can } from "../access";
import { paths } from "../links";
import type { Operations } from "../ops";
import { useDesktopNotifications } from "../notifications";
import { onDemand, preloadWhenIdle } from "../onDemand";

// Each area's code loads on demand, and all of it is preloaded once the shell is idle, so that
// no click waits for a download (docs/DECISIONS.md, "Only what the screen needs").
export const Overview = onDemand(() => import("./Overview").then((m) => m.Overview));
const Products = onDemand(() => import("./Products").then((m) => m.Products));
const Orders = onDemand(() => import("./Orders").then((m) => m.Orders));
const Customers = onDemand(() => import("./Customers").then((m) => m.Customers));
const CustomerPage = onDemand(() => import("./Customers").then((m) => m.CustomerPage));
const Subscriptions = onDemand(() => import("./Subscriptions").then((m) => m.Subscriptions));
const LicenseKeys = onDemand(() => import("./LicenseKeys").then((m) => m.LicenseKeys));
const Discounts = onDemand(() => import("./Discounts").then((m) => m.Discounts));
const Documents = onDemand(() => import("./Documents").then((m) => m.Documents));
const Webhooks = onDemand(() => import("./Webhooks").then((m) => m.Webhooks));
const Users = onDemand(() => import("./Users").then((m) => m.Users));
const Settings = onDemand(() => import("./Settings").then((m) => m.Settings));
const Setup = onDemand(() => import("./Setup").then((m) => m.Setup));
const Palette = onDemand(() => import("../components/Palette").then((m) => m.Palette));
const ON_DEMAND = [Overview, Products, Orders, Customers, CustomerPage, Subscriptions, LicenseKeys, Discounts, Documents, Webhooks, Users, Settings, Setup, Palette];

type Area =
  | "overview"
  | "products"
  | "orders"
  | "customers"
  | "subscriptions"
  | "license-keys"
  | "discounts"
  | "documents"
  | "webhooks"
  | "users"
  | "settings"
  | "setup";
/** Every area; `hidden` ones are reached from others (the set-up from Settings), not the menu. */
const AREAS: { id: Area; label: string; hidden?: boolean }[] = [
  { id: "overview", label: "Overview" },
  { id: "products", label: "Products" },
  { id: "orders", label: "Orders" },
  { id: "customers", label: "Customers" },
  { id: "subscriptions", label: "Subscriptions" },
  { id: "license-keys", label: "Licence keys" },
  { id: "discounts", label: "Discounts" },
  { id: "documents", label: "Documents" },
  { id: "webhooks", label: "Webhooks" },
  { id: "users", label: "Users & audit" },
  { id: "settings", label: "Settings" },
  { id: "setup", label: "Going live: set up", hidden: true },
];

interface Props {
  info: AppInfo;
  user: User;
  onSignedOut: () => void;
  /** Where to open (the set-up, after the first admin was made in real mode). */
  startAt?: Area;
}

/** The signed-in app, with a URL for every area and thing (`#/customers/1042`), so that the back
 *  button goes back and a link can open anything. */
export function Shell(props: Props) {
  return (
    <Router hook={useHashLocation}>
      <Areas {...props} />
    </Router>
  );
}

/** The area and the thing in it (an order, a customer, a subscription) that a location names. */
function place(location: string, user: User): { area: Area; id?: string } {
  const [first, second] = location.split("/").filter(Boolean);
  const area = AREAS.find((a) => a.id === first && allowed(a.id, user))?.id ?? "overview";
  return { area, id: second ? decodeURIComponent(second) : undefined };
}

/** The operation an area opens with: an area shows for whoever may call it. */
const OPENS_WITH: Partial<Record<Area, keyof Operations>> = { users: "list_users", setup: "connect_lemonsqueezy" };

function allowed(area: Area, user: User): boolean {
  const op = OPENS_WITH[area];
  return !op || can(user, op);
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
  const { area, id } = place(location, user);
  const setArea = (next: Area) => navigate(paths.area(next));
  const title = AREAS.find((a) => a.id === area)!.label;
  const [palette, setPalette] = useState(false);
  const refetchSynced = useRefetchSynced();
  const syncNow = useMutation({ mutationFn: api.syncNow, onSettled: refetchSynced });
  useDesktopNotifications(user);
  useEffect(() => preloadWhenIdle(ON_DEMAND), []);
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
        {AREAS.filter((a) => !a.hidden && allowed(a.id, user)).map((a) => (
          <button
            key={a.id}
            type="button"
            className={a.id === area ? "nav-item active" : "nav-item"}
            aria-current={a.id === area ? "page" : undefined}
            onClick={() => setArea(a.id)}
          >
            {a.label}
          </button>
        ))}
      </nav>
      <div className="main">
        <TeamServerBanner />
        <header className="topbar">
          <div className="topbar-title">{title}</div>
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
        <Suspense fallback={<section className="content" aria-busy="true"><p className="muted">Loading…</p></section>}>
          {area === "products" && <Products />}
          {area === "orders" && <Orders user={user} />}
          {area === "customers" && (id ? <CustomerPage key={id} id={id} user={user} /> : <Customers />)}
          {area === "subscriptions" && <Subscriptions user={user} />}
          {area === "license-keys" && <LicenseKeys user={user} />}
          {area === "discounts" && <Discounts user={user} />}
          {area === "documents" && <Documents />}
          {area === "webhooks" && <Webhooks user={user} teamServer={info.signedInTo} />}
          {area === "users" && <Users me={user} />}
          {area === "settings" && <Settings teamServer={info.signedInTo} user={user} />}
          {area === "setup" && <Setup user={user} teamServer={info.signedInTo} onGo={(next) => navigate(paths.area(next))} />}
          {area === "overview" && <Overview info={info} user={user} onGo={setArea} />}
        </Suspense>
        <Suspense fallback={null}>
          {palette && (
            <Palette
              areas={AREAS.filter((a) => allowed(a.id, user))}
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
