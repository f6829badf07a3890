// The signed-in app's areas, each once: its path (`#/<id>`, and `#/<id>/<thing>` for one thing in
// it), its label, who may open it, and its screen, loaded on demand. The sidebar, the palette,
// the shell's rendering and the preloading all read this table; links are `paths` (links.tsx).
import type { ReactElement } from "react";
import { can } from "./access";
import { onDemand } from "./onDemand";
import type { Operations } from "./ops";
import type { AppInfo, User } from "./types";

/** What every screen may be given. */
export interface ScreenProps {
  info: AppInfo;
  user: User;
  /** The thing the path names below the area (`#/customers/1042` → `1042`). */
  id?: string;
  /** Goes to an area. */
  go: (area: AreaId) => void;
}

export const Overview = onDemand(() => import("./screens/Overview").then((m) => m.Overview));
const Products = onDemand(() => import("./screens/Products").then((m) => m.Products));
const Orders = onDemand(() => import("./screens/Orders").then((m) => m.Orders));
const Customers = onDemand(() => import("./screens/Customers").then((m) => m.Customers));
const CustomerPage = onDemand(() => import("./screens/Customers").then((m) => m.CustomerPage));
const Subscriptions = onDemand(() => import("./screens/Subscriptions").then((m) => m.Subscriptions));
const LicenseKeys = onDemand(() => import("./screens/LicenseKeys").then((m) => m.LicenseKeys));
const Discounts = onDemand(() => import("./screens/Discounts").then((m) => m.Discounts));
const Documents = onDemand(() => import("./screens/Documents").then((m) => m.Documents));
const Webhooks = onDemand(() => import("./screens/Webhooks").then((m) => m.Webhooks));
const Users = onDemand(() => import("./screens/Users").then((m) => m.Users));
const Settings = onDemand(() => import("./screens/Settings").then((m) => m.Settings));
const Setup = onDemand(() => import("./screens/Setup").then((m) => m.Setup));

interface Route {
  id: string;
  label: string;
  /** The operation the area opens with: it shows for whoever may call it. */
  opensWith?: keyof Operations;
  /** Reached from another area (the set-up from Settings), not the menu. */
  hidden?: boolean;
  /** The code it loads. */
  screens: { preload: () => Promise<unknown> }[];
  render: (props: ScreenProps) => ReactElement;
}

export const ROUTES = [
  {
    id: "overview",
    label: "Overview",
    screens: [Overview],
    render: ({ info, user, go }) => <Overview info={info} user={user} onGo={go} />,
  },
  { id: "products", label: "Products", screens: [Products], render: () => <Products /> },
  { id: "orders", label: "Orders", screens: [Orders], render: ({ user }) => <Orders user={user} /> },
  {
    id: "customers",
    label: "Customers",
    screens: [Customers, CustomerPage],
    render: ({ user, id }) => (id ? <CustomerPage key={id} id={id} user={user} /> : <Customers />),
  },
  { id: "subscriptions", label: "Subscriptions", screens: [Subscriptions], render: ({ user }) => <Subscriptions user={user} /> },
  { id: "license-keys", label: "Licence keys", screens: [LicenseKeys], render: ({ user }) => <LicenseKeys user={user} /> },
  { id: "discounts", label: "Discounts", screens: [Discounts], render: ({ user }) => <Discounts user={user} /> },
  { id: "documents", label: "Documents", screens: [Documents], render: () => <Documents /> },
  {
    id: "webhooks",
    label: "Webhooks",
    screens: [Webhooks],
    render: ({ user, info }) => <Webhooks user={user} teamServer={info.signedInTo} />,
  },
  { id: "users", label: "Users & audit", opensWith: "list_users", screens: [Users], render: ({ user }) => <Users me={user} /> },
  {
    id: "settings",
    label: "Settings",
    screens: [Settings],
    render: ({ user, info }) => <Settings teamServer={info.signedInTo} user={user} />,
  },
  {
    id: "setup",
    label: "Going live: set up",
    opensWith: "connect_lemonsqueezy",
    hidden: true,
    screens: [Setup],
    render: ({ user, info, go }) => <Setup user={user} teamServer={info.signedInTo} onGo={(next) => go(next as AreaId)} />,
  },
] as const satisfies readonly Route[];

export type AreaId = (typeof ROUTES)[number]["id"];

/** Whether `user` may open the area `route`. */
export function allowed(route: Route, user: Pick<User, "role">): boolean {
  return !route.opensWith || can(user, route.opensWith);
}

/** The area and the thing in it that a location names; the Overview for anything else. */
export function place(location: string, user: User): { route: (typeof ROUTES)[number]; id?: string } {
  const [first, second] = location.split("/").filter(Boolean);
  const route = ROUTES.find((r) => r.id === first && allowed(r, user)) ?? ROUTES[0];
  return { route, id: second ? decodeURIComponent(second) : undefined };
}

/** Every screen's code, to preload once the shell is idle. */
export const ALL_SCREENS = ROUTES.flatMap((r) => [...r.screens]);
