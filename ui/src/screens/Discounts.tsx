import { Fragment, useState, type FormEvent } from "react";
import { useDialog, useFocusBack } from "../focus";
import { useMutation, useQueries, useQuery, useQueryClient } from "@tanstack/react-query";
import { Link } from "wouter";
import { ListBody } from "../components/ListBody";
import { can } from "../access";
import { api, describeError, fieldError, formatMoney, parseAmount } from "../api";
import { formatDay } from "../format";
import { paths } from "../links";
import type { CreateDiscountRequest, Discount, DiscountDuration, User } from "../types";
import { useListState } from "../listState";
import { usePagedList } from "../paging";

const PAGE_SIZE = 20;

/** "20 %" or "$5.00". */
function amountOf(d: Discount, currency: string): string {
  return d.amountType === "percent" ? `${d.amount} %` : formatMoney(d.amount, currency);
}

/** Which payments of a subscription it takes off. */
function durationOf(d: Discount): string {
  if (d.duration === "forever") return "Every payment";
  if (d.duration === "repeating") return `${d.durationInMonths} month${d.durationInMonths === 1 ? "" : "s"}`;
  return "First payment";
}

/** Whether a customer can use it now, as staff say it. */
function stateOf(d: Discount, now = Date.now()): [string, string] {
  if (d.status === "draft") return ["Draft", ""];
  if (d.expiresAt && Date.parse(d.expiresAt) <= now) return [`Expired ${formatDay(d.expiresAt)}`, "status-refunded"];
  if (d.startsAt && Date.parse(d.startsAt) > now) return [`From ${formatDay(d.startsAt)}`, "status-pending"];
  if (d.maxRedemptions !== null && d.redemptionCount >= d.maxRedemptions) return ["Used up", "status-refunded"];
  return [d.expiresAt ? `Until ${formatDay(d.expiresAt)}` : "Active", "status-paid"];
}

/** Discounts: the store's codes, newest first, each with how often and by whom it was used;
 *  admins make new ones and delete old ones. */
export function Discounts({ user }: { user: User }) {
  const { filters, search, page, set, setPage } = useListState("discounts", { search: "" });
  const [open, setOpen] = useState<string | null>(null);
  const [creating, setCreating] = useState(false);
  const [opener, focusBack] = useFocusBack<HTMLButtonElement>();
  const list = usePagedList(
    (p) => ["discounts", p, search],
    (p) => api.listDiscounts({ page: p, limit: PAGE_SIZE, search: search || null }),
    page,
  );
  const admin = can(user, "create_discount");
  const currency = list.data?.currency ?? "USD";
  return (
    <section className="content" aria-labelledby="discounts-title">
      <div className="stack">
        <div className="toolbar">
          <h2 id="discounts-title">Discounts</h2>
          {admin && !creating && <button type="button" className="primary" ref={opener} onClick={() => setCreating(true)}>New discount</button>}
        </div>
        {creating && <NewDiscount currency={currency} onDone={() => { setCreating(false); focusBack(); }} />}
        <div className="toolbar filters" role="search" aria-label="Find discounts">
          <input
            className="search"
            type="search"
            aria-label="Search discounts"
            placeholder="Code or name"
            value={filters.search}
            onChange={(e) => set({ search: e.target.value })}
          />
        </div>
        <ListBody
          query={list}
          items={list.data?.discounts}
          noun="discounts"
          empty={search ? "No discounts match." : "No discounts yet."}
          onPage={setPage}
        >
          {(discounts) => (
            <table className="table" aria-label="Discounts">
              <thead>
                <tr><th>Code</th><th>Name</th><th>Amount</th><th>Applies to</th><th>Used</th><th>State</th></tr>
              </thead>
              <tbody>
                {discounts.map((d) => {
                  const [state, tone] = stateOf(d);
                  const expanded = open === d.id;
                  return (
                    <Fragment key={d.id}>
                      <tr data-id={d.id} className={expanded ? "selected" : undefined}>
                        <td>
                          <button type="button" className="row-link" aria-expanded={expanded} onClick={() => setOpen(expanded ? null : d.id)}>
                            <code>{d.code}</code>
                          </button>
                        </td>
                        <td>{d.name}</td>
                        <td className="nowrap">{amountOf(d, currency)} <span className="muted small">· {durationOf(d)}</span></td>
                        <td>{d.variantIds.length === 0 ? "Every product" : `${d.variantIds.length} variant${d.variantIds.length === 1 ? "" : "s"}`}</td>
                        <td className="nowrap">{d.maxRedemptions === null ? d.redemptionCount : `${d.redemptionCount} of ${d.maxRedemptions}`}</td>
                        <td><span className={`status ${tone}`}>{state}</span></td>
                      </tr>
                      {expanded && (
                        <tr className="detail-row">
                          <td colSpan={6}><DiscountDetail discount={d} currency={currency} canDelete={admin} onDeleted={() => setOpen(null)} /></td>
                        </tr>
                      )}
                    </Fragment>
                  );
                })}
              </tbody>
            </table>
          )}
        </ListBody>
      </div>
    </section>
  );
}

/** A discount's latest redemptions (each order linked), and Delete for admins. */
function DiscountDetail({ discount, currency, canDelete, onDeleted }: {
  discount: Discount;
  currency: string;
  canDelete: boolean;
  onDeleted: () => void;
}) {
  const queryClient = useQueryClient();
  const [confirming, setConfirming] = useState(false);
  const remove = useMutation({
    mutationFn: () => api.deleteDiscount({ id: discount.id }),
    onSuccess: () => {
      void queryClient.invalidateQueries({ queryKey: ["discounts"] });
      onDeleted();
    },
  });
  const { redemptions, redemptionCount } = discount;
  return (
    <div className="stack" aria-label={`Discount ${discount.code}`}>
      {redemptions.length === 0 ? (
        <p className="muted">Not used yet.</p>
      ) : (
        <table className="table compact" aria-label={`Orders that used ${discount.code}`}>
          <thead><tr><th>Order</th><th>Customer</th><th>Taken off</th><th>Date</th></tr></thead>
          <tbody>
            {redemptions.map((r) => (
              <tr key={r.id}>
                <td>{r.orderId ? <Link href={paths.order(r.orderId)} className="link-text">#{r.orderNumber ?? r.providerOrderId}</Link> : `#${r.providerOrderId}`}</td>
                <td>{r.customerEmail ?? <span className="muted">not synced yet</span>}</td>
                <td className="nowrap">{formatMoney(r.amount, r.currency ?? currency)}</td>
                <td className="nowrap">{formatDay(r.createdAt)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {redemptionCount > redemptions.length && <p className="muted small">The latest {redemptions.length} of {redemptionCount}.</p>}
      {canDelete && (
        <div className="row">
          {confirming ? (
            <>
              <span>Delete {discount.code}? Customers can no longer use it; orders that did keep their discount.</span>
              <button type="button" className="danger" onClick={() => remove.mutate()} disabled={remove.isPending}>
                {remove.isPending ? "Deleting…" : "Delete"}
              </button>
              <button type="button" onClick={() => setConfirming(false)}>Keep it</button>
            </>
          ) : (
            <button type="button" onClick={() => setConfirming(true)}>Delete discount…</button>
          )}
        </div>
      )}
      {remove.isError && <p className="error" role="alert">{describeError(remove.error)}</p>}
    </div>
  );
}

/** The form of a new discount: what it takes off, for how long, from when to when, how often,
 *  on which products. Each refusal is shown on its field. */
function NewDiscount({ currency, onDone }: { currency: string; onDone: () => void }) {
  const queryClient = useQueryClient();
  const [name, setName] = useState("");
  const [code, setCode] = useState("");
  const [amountType, setAmountType] = useState<"percent" | "fixed">("percent");
  const [amount, setAmount] = useState("");
  const [duration, setDuration] = useState<DiscountDuration>("once");
  const [months, setMonths] = useState("3");
  const [startsAt, setStartsAt] = useState("");
  const [expiresAt, setExpiresAt] = useState("");
  const [limit, setLimit] = useState("");
  const [limited, setLimited] = useState(false);
  const [variants, setVariants] = useState<string[]>([]);
  const [localProblem, setLocalProblem] = useState<string | null>(null);
  const create = useMutation({
    mutationFn: (request: CreateDiscountRequest) => api.createDiscount(request),
    onSuccess: () => {
      void queryClient.invalidateQueries({ queryKey: ["discounts"] });
      onDone();
    },
  });
  // The caret goes to the name; Escape puts the form away.
  const dialog = useDialog<HTMLFormElement>(onDone);
  const submit = (event: FormEvent) => {
    event.preventDefault();
    const value = amountType === "percent" ? Number(amount.trim().replace(/\s*%$/, "")) : parseAmount(amount);
    if (value === null || !Number.isInteger(value) || value <= 0) {
      setLocalProblem(amountType === "percent" ? "must be a whole percentage, e.g. 20" : "must be an amount, e.g. 5,00");
      return;
    }
    setLocalProblem(null);
    create.mutate({
      name: name.trim(),
      code,
      amount: value,
      amountType,
      duration,
      durationInMonths: duration === "repeating" ? Number(months) : null,
      startsAt: startsAt || null,
      // A discount that expires on a day can still be used that day.
      expiresAt: expiresAt ? `${expiresAt}T23:59:59Z` : null,
      maxRedemptions: limit.trim() ? Number(limit) : null,
      variantIds: variants.length ? variants : null,
    });
  };
  const problem = (field: string) => fieldError(create.error, field);
  const shown = ["name", "code", "amount", "durationInMonths", "startsAt", "expiresAt", "maxRedemptions", "variantIds"];
  const toggleVariant = (id: string) => setVariants((v) => (v.includes(id) ? v.filter((x) => x !== id) : [...v, id]));
  return (
    <form ref={dialog} className="panel stack" onSubmit={submit} aria-label="New discount" noValidate>
      <h3>New discount</h3>
      <div className="form-grid">
        <label htmlFor="discount-name">Name (for staff)</label>
        <div>
          <input id="discount-name" value={name} onChange={(e) => setName(e.target.value)} aria-invalid={Boolean(problem("name"))} />
          {problem("name") && <p className="field-error">Name {problem("name")}</p>}
        </div>
        <label htmlFor="discount-code">Code (customers type it)</label>
        <div>
          <input id="discount-code" className="code-input" value={code} spellCheck="false" onChange={(e) => setCode(e.target.value.toUpperCase().replace(/\s/g, ""))} aria-invalid={Boolean(problem("code"))} />
          {problem("code") && <p className="field-error">Code {problem("code")}</p>}
        </div>
        <span id="discount-kind">Takes off</span>
        <div className="row" role="radiogroup" aria-labelledby="discount-kind">
          <label className="check"><input type="radio" name="amount-type" checked={amountType === "percent"} onChange={() => setAmountType("percent")} /> a percentage</label>
          <label className="check"><input type="radio" name="amount-type" checked={amountType === "fixed"} onChange={() => setAmountType("fixed")} /> a fixed amount ({currency})</label>
        </div>
        <label htmlFor="discount-amount">{amountType === "percent" ? "Percentage" : "Amount"}</label>
        <div>
          <input id="discount-amount" inputMode="decimal" value={amount} placeholder={amountType === "percent" ? "20" : "5,00"} onChange={(e) => setAmount(e.target.value)} aria-invalid={Boolean(localProblem || problem("amount"))} />
          {(localProblem || problem("amount")) && <p className="field-error">Amount {localProblem ?? problem("amount")}</p>}
        </div>
        <label htmlFor="discount-duration">On subscriptions</label>
        <div className="row">
          <select id="discount-duration" value={duration} onChange={(e) => setDuration(e.target.value as DiscountDuration)}>
            <option value="once">the first payment</option>
            <option value="repeating">a number of months</option>
            <option value="forever">every payment</option>
          </select>
          {duration === "repeating" && (
            <label className="check">for <input aria-label="Months" type="number" min={1} max={120} value={months} onChange={(e) => setMonths(e.target.value)} className="narrow" /> months</label>
          )}
          {problem("durationInMonths") && <p className="field-error">Months {problem("durationInMonths")}</p>}
        </div>
        <label htmlFor="discount-starts">Starts (optional)</label>
        <div>
          <input id="discount-starts" type="date" value={startsAt} onChange={(e) => setStartsAt(e.target.value)} />
          {problem("startsAt") && <p className="field-error">Start {problem("startsAt")}</p>}
        </div>
        <label htmlFor="discount-expires">Expires (optional)</label>
        <div>
          <input id="discount-expires" type="date" value={expiresAt} min={startsAt || undefined} onChange={(e) => setExpiresAt(e.target.value)} aria-invalid={Boolean(problem("expiresAt"))} />
          {problem("expiresAt") && <p className="field-error">Expiry {problem("expiresAt")}</p>}
        </div>
        <label htmlFor="discount-limit">Uses in all (optional)</label>
        <div>
          <input id="discount-limit" type="number" min={1} className="narrow" value={limit} onChange={(e) => setLimit(e.target.value)} aria-invalid={Boolean(problem("maxRedemptions"))} />
          {problem("maxRedemptions") && <p className="field-error">Uses {problem("maxRedemptions")}</p>}
        </div>
        <span id="discount-products">Products</span>
        <div className="stack">
          <label className="check">
            <input type="checkbox" checked={limited} onChange={(e) => { setLimited(e.target.checked); if (!e.target.checked) setVariants([]); }} />
            {" "}Only some products
          </label>
          {limited && <VariantPicker chosen={variants} onToggle={toggleVariant} />}
          {problem("variantIds") && <p className="field-error">Products: {problem("variantIds")}</p>}
        </div>
      </div>
      {create.isError && !shown.some((f) => problem(f)) && <p className="error" role="alert">{describeError(create.error)}</p>}
      <div className="row">
        <button type="submit" className="primary" disabled={create.isPending}>{create.isPending ? "Creating…" : "Create discount"}</button>
        <button type="button" onClick={onDone}>Cancel</button>
      </div>
    </form>
  );
}

/** The store's published products with their published variants, each a checkbox. */
function VariantPicker({ chosen, onToggle }: { chosen: string[]; onToggle: (id: string) => void }) {
  const list = useQuery({ queryKey: ["products", "published"], queryFn: () => api.listProducts({ limit: 100, status: "published" }) });
  const details = useQueries({
    queries: (list.data?.products ?? []).map((p) => ({ queryKey: ["product", p.id], queryFn: () => api.getProduct({ id: p.id }) })),
  });
  if (list.isPending) return <p className="muted small" role="status">Loading products…</p>;
  if (list.isError) return <p className="error" role="alert">{describeError(list.error)}</p>;
  return (
    <fieldset className="variant-picks" aria-label="Variants the discount is limited to">
      {details.map(({ data }) => data && (data.product.variants ?? []).filter((v) => v.status === "published").map((v) => (
        <label key={v.id} className="check nowrap">
          <input type="checkbox" checked={chosen.includes(v.id)} onChange={() => onToggle(v.id)} />
          {" "}{data.product.name} — {v.name} ({formatMoney(v.price, data.product.currency)})
        </label>
      )))}
    </fieldset>
  );
}
