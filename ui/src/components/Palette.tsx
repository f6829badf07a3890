import { useEffect, useMemo, useRef, useState, type KeyboardEvent } from "react";
import { useQuery } from "@tanstack/react-query";
import { useLocation } from "wouter";
import { api, describeError, formatMoney } from "../api";
import { paths } from "../links";
import { useSettled } from "../settled";

/** One line of the palette: a thing to open or an action to run. */
interface Item {
  key: string;
  group: string;
  label: string;
  hint?: string;
  run: () => void;
}

interface Props {
  /** The areas this user may open, by id and label. */
  areas: { id: string; label: string }[];
  onSyncNow: () => void;
  onSignOut: () => void;
  onClose: () => void;
}

const SHOWN = 5;

/** Ctrl+K: finds customers, orders, subscriptions, products and documents as you type, and runs
 *  actions, from any screen, with the keyboard alone (arrows, Enter, Escape). */
export function Palette({ areas, onSyncNow, onSignOut, onClose }: Props) {
  const [, navigate] = useLocation();
  const [text, setText] = useState("");
  const [active, setActive] = useState(0);
  const input = useRef<HTMLInputElement>(null);
  // Actions and documents match what is typed at once (Enter must run what is shown); the core
  // is asked once typing pauses.
  const typed = text.trim();
  const search = useSettled(typed);
  const enabled = search.length >= 2;
  const go = (path: string) => () => {
    navigate(path);
    onClose();
  };
  const customers = useQuery({
    queryKey: ["palette", "customers", search],
    queryFn: () => api.listCustomers({ search, limit: SHOWN }),
    enabled,
  });
  const orders = useQuery({ queryKey: ["palette", "orders", search], queryFn: () => api.listOrders({ search, limit: SHOWN }), enabled });
  const subscriptions = useQuery({
    queryKey: ["palette", "subscriptions", search],
    queryFn: () => api.listSubscriptions({ search, limit: SHOWN }),
    enabled,
  });
  const products = useQuery({ queryKey: ["palette", "products", search], queryFn: () => api.listProducts({ search, limit: SHOWN }), enabled });
  // Drive lists no search of its own here: the first page of documents, matched by name.
  const documents = useQuery({ queryKey: ["palette", "documents"], queryFn: () => api.listDocuments({ pageSize: 100 }), enabled, staleTime: 60_000 });

  const items = useMemo<Item[]>(() => {
    const wanted = typed.toLowerCase();
    const matches = (label: string) => !wanted || label.toLowerCase().includes(wanted);
    const actions: Item[] = [
      { key: "a:order", group: "Actions", label: "Create an order", hint: "from a product", run: go(paths.area("products")) },
      { key: "a:sync", group: "Actions", label: "Sync now", hint: "products, orders, customers", run: () => { onSyncNow(); onClose(); } },
      { key: "a:signout", group: "Actions", label: "Sign out", run: () => { onSignOut(); onClose(); } },
      // A screen as it starts, its lists unfiltered, as from the sidebar.
      ...areas.map((a) => ({ key: `a:${a.id}`, group: "Go to", label: a.label, run: go(`${paths.area(a.id)}?`) })),
    ].filter((item) => matches(item.label));
    if (!enabled) return actions;
    // Until the core is asked for what is typed, its answers for earlier text are not shown:
    // Enter must not open a customer found for "ada" when "ada@x" is typed.
    const answered = typed === search;
    return [
      ...((answered && customers.data?.customers) || []).map((c) => ({
        key: `c:${c.id}`, group: "Customers", label: c.name || c.email, hint: c.email, run: go(paths.customer(c.id)),
      })),
      ...((answered && orders.data?.orders) || []).map((o) => ({
        key: `o:${o.id}`, group: "Orders", label: `${o.orderId} · ${o.name ?? o.email}`, hint: formatMoney(o.total, o.currency), run: go(paths.order(o.id)),
      })),
      ...((answered && subscriptions.data?.subscriptions) || []).map((s) => ({
        key: `s:${s.id}`, group: "Subscriptions", label: `${s.customerName ?? s.customerEmail} · ${s.productName ?? ""}`, hint: s.providerStatus.replace("_", " "), run: go(paths.subscription(s.id)),
      })),
      ...((answered && products.data?.products) || []).map((p) => ({
        key: `p:${p.id}`, group: "Products", label: p.name, hint: formatMoney(p.price, p.currency), run: go(paths.area("products")),
      })),
      ...(documents.data?.documents ?? [])
        .filter((d) => matches(d.name))
        .slice(0, SHOWN)
        .map((d) => ({ key: `d:${d.id}`, group: "Documents", label: d.name, hint: "opens the editor", run: () => { void api.openEditor({ id: d.id, name: d.name }); onClose(); } })),
      ...actions,
    ];
  }, [typed, search, enabled, customers.data, orders.data, subscriptions.data, products.data, documents.data, areas]);

  useEffect(() => setActive(0), [typed, search]);
  // Focus comes in, and goes back where it was when the palette is put away unused (Escape, a
  // click outside); what it opens takes focus itself (Shell moves it to the new screen).
  const opener = useRef(document.activeElement instanceof HTMLElement ? document.activeElement : null);
  useEffect(() => input.current?.focus(), []);
  const putAway = () => {
    onClose();
    requestAnimationFrame(() => opener.current?.isConnected && opener.current.focus());
  };
  const loading = enabled && [customers, orders, subscriptions, products].some((q) => q.isFetching);
  const failed = [customers, orders, subscriptions, products].find((q) => q.isError)?.error;

  const onKey = (event: KeyboardEvent) => {
    if (event.key === "Escape") {
      event.preventDefault();
      putAway();
    } else if (event.key === "ArrowDown" || event.key === "ArrowUp") {
      event.preventDefault();
      const step = event.key === "ArrowDown" ? 1 : -1;
      setActive((n) => (items.length ? (n + step + items.length) % items.length : 0));
    } else if (event.key === "Enter") {
      event.preventDefault();
      items[active]?.run();
    }
  };

  let group = "";
  return (
    <div className="palette-backdrop" onMouseDown={putAway}>
      <div className="palette card" role="dialog" aria-modal="true" aria-label="Search everywhere" onMouseDown={(e) => e.stopPropagation()}>
        <input
          ref={input}
          className="palette-input"
          role="combobox"
          aria-expanded="true"
          aria-controls="palette-results"
          aria-activedescendant={items[active] ? `palette-${items[active].key}` : undefined}
          aria-label="Search customers, orders, subscriptions, products, documents and actions"
          placeholder="Customer, e-mail, #order, product, document, or an action…"
          value={text}
          onChange={(e) => setText(e.target.value)}
          onKeyDown={onKey}
        />
        {failed !== undefined && <p className="error small" role="alert">{describeError(failed)}</p>}
        <ul id="palette-results" className="palette-results" role="listbox" aria-label="Results" aria-busy={loading}>
          {items.map((item, n) => {
            const heading = item.group !== group ? (group = item.group) : null;
            return (
              <li key={item.key} role="presentation">
                {heading && <div className="palette-group muted small" aria-hidden="true">{heading}</div>}
                <div
                  id={`palette-${item.key}`}
                  role="option"
                  aria-selected={n === active}
                  className={n === active ? "palette-item active" : "palette-item"}
                  onMouseEnter={() => setActive(n)}
                  onClick={item.run}
                >
                  <span>{item.label}</span>
                  <span className="muted small">{item.group !== "Actions" && item.group !== "Go to" ? `${item.group.replace(/s$/, "")}${item.hint ? ` · ${item.hint}` : ""}` : item.hint ?? ""}</span>
                </div>
              </li>
            );
          })}
          {enabled && typed === search && !loading && items.length === 0 && <li className="muted palette-empty">Nothing matches “{typed}”.</li>}
        </ul>
        <p className="muted small palette-help">↑ ↓ to choose · Enter to open · Esc to close</p>
      </div>
    </div>
  );
}
