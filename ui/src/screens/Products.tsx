import { useState, type FormEvent } from "react";
import { useMutation, useQuery } from "@tanstack/react-query";
import { ListBody } from "../components/ListBody";
import { DetailPanel } from "../components/DetailPanel";
import { OpenLinkButton } from "../components/OpenLink";
import { api, describeError, fieldError, formatMoney } from "../api";
import type { Order, Product, ProductStatus } from "../types";
import { usePagedList } from "../paging";
import { useListState } from "../listState";

const PAGE_SIZE = 20;

/** Products: a filtered, paged list; the chosen product's variants; "Create order". */
export function Products() {
  const { filters, search: settled, page, set, setPage } = useListState("products", { search: "", status: "" });
  const status = filters.status as ProductStatus | "";
  const [selected, setSelected] = useState<string | null>(null);
  const list = usePagedList(
    (p) => ["products", status, settled, p],
    (p) => api.listProducts({ page: p, limit: PAGE_SIZE, status: status || null, search: settled || null }),
    page,
  );

  return (
    <section className={selected ? "content split" : "content"} aria-labelledby="products-title">
      <div className="stack">
        <div className="toolbar">
          <h2 id="products-title">Products</h2>
          <div className="spacer" />
          <input
            type="search"
            aria-label="Search products"
            placeholder="Search by name"
            value={filters.search}
            maxLength={100}
            onChange={(e) => set({ search: e.target.value })}
          />
          <label htmlFor="status-filter" className="muted">Status</label>
          <select
            id="status-filter"
            value={status}
            onChange={(e) => set({ status: e.target.value })}
          >
            <option value="">All</option>
            <option value="published">Published</option>
            <option value="draft">Draft</option>
          </select>
        </div>
        <ListBody
          query={list}
          items={list.data?.products}
          noun="products"
          empty={settled ? `No product name contains “${settled}”.` : "No products match."}
          onPage={setPage}
        >
          {(products) => (
            <table className="table" aria-label="Products">
              <thead><tr><th>Name</th><th>Price</th><th>Status</th></tr></thead>
              <tbody>
                {products.map((p) => (
                  <tr key={p.id} className={p.id === selected ? "selected" : undefined}>
                    <td>
                      <button type="button" className="row-link" onClick={() => setSelected(p.id)}>{p.name}</button>
                    </td>
                    <td>{formatMoney(p.price, p.currency)}</td>
                    <td><span className={`status status-${p.status}`}>{p.status}</span></td>
                  </tr>
                ))}
              </tbody>
            </table>
          )}
        </ListBody>
      </div>
      {selected && <ProductDetail key={selected} id={selected} onClose={() => setSelected(null)} />}
    </section>
  );
}

function ProductDetail({ id, onClose }: { id: string; onClose: () => void }) {
  const product = useQuery({ queryKey: ["product", id], queryFn: async () => (await api.getProduct({ id })).product });
  return (
    <DetailPanel label={product.data ? `Product ${product.data.name}` : "Product"} onClose={onClose}>
      {product.isPending && <p className="muted" role="status">Loading…</p>}
      {product.isError && <p className="error" role="alert">{describeError(product.error)}</p>}
      {product.data && <ProductShown p={product.data} />}
    </DetailPanel>
  );
}

function ProductShown({ p }: { p: Product }) {
  return (
    <>
      <h3>{p.name}</h3>
      <p className="muted small">{p.slug} · {p.status}</p>
      <h4>Variants</h4>
      <ul className="plain">
        {(p.variants ?? []).map((v) => (
          <li key={v.id}>
            {v.name} — {formatMoney(v.price, p.currency)} <span className="muted small">{v.status}{v.isSubscription ? " · subscription" : ""}</span>
          </li>
        ))}
      </ul>
      {p.status === "published" ? <CreateOrder product={p} /> : <p className="muted">Drafts cannot be sold.</p>}
    </>
  );
}

function CreateOrder({ product }: { product: Product }) {
  const sellable = (product.variants ?? []).filter((v) => v.status === "published");
  const [variantId, setVariantId] = useState(sellable[0]?.id ?? "");
  const [email, setEmail] = useState("");
  const [name, setName] = useState("");
  const [country, setCountry] = useState("");
  const [discountCode, setDiscountCode] = useState("");
  const [copied, setCopied] = useState(false);
  const create = useMutation({
    mutationFn: async () =>
      (await api.createOrder({
        productId: product.id,
        variantId: variantId || undefined,
        email,
        name: name || undefined,
        billingAddress: country ? { country: country.toUpperCase() } : undefined,
        discountCode: discountCode.trim() || undefined,
      })).order,
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    create.mutate();
  };
  const problem = (field: string) => fieldError(create.error, field);

  if (create.data) return <OrderCreated order={create.data} copied={copied} onCopied={() => setCopied(true)} />;
  return (
    <form className="stack" onSubmit={submit} aria-label="Create order" noValidate>
      <h4>Create order</h4>
      <label htmlFor="variant">Variant</label>
      <select id="variant" value={variantId} onChange={(e) => setVariantId(e.target.value)}>
        {sellable.map((v) => (
          <option key={v.id} value={v.id}>{v.name} — {formatMoney(v.price, product.currency)}</option>
        ))}
      </select>
      <label htmlFor="order-email">Customer email</label>
      <input id="order-email" type="email" value={email} onChange={(e) => setEmail(e.target.value)} aria-invalid={Boolean(problem("email"))} />
      {problem("email") && <p className="field-error">Email {problem("email")}</p>}
      <label htmlFor="order-name">Customer name (optional)</label>
      <input id="order-name" value={name} onChange={(e) => setName(e.target.value)} />
      <label htmlFor="order-country">Country code (optional, e.g. GB)</label>
      <input id="order-country" value={country} maxLength={2} onChange={(e) => setCountry(e.target.value)} aria-invalid={Boolean(problem("billingAddress.country"))} />
      {problem("billingAddress.country") && <p className="field-error">Country {problem("billingAddress.country")}</p>}
      <label htmlFor="order-discount">Discount code (optional)</label>
      <input
        id="order-discount"
        className="code-input"
        value={discountCode}
        autoCapitalize="characters"
        spellCheck="false"
        onChange={(e) => setDiscountCode(e.target.value.toUpperCase())}
        aria-invalid={Boolean(problem("discountCode"))}
      />
      {problem("discountCode") && <p className="field-error">Discount code: {problem("discountCode")}</p>}
      {create.isError && !problem("email") && !problem("billingAddress.country") && !problem("discountCode") && (
        <p className="error" role="alert">{describeError(create.error)}</p>
      )}
      <button type="submit" className="primary" disabled={create.isPending}>
        {create.isPending ? "Creating checkout…" : "Create order"}
      </button>
    </form>
  );
}

function OrderCreated({ order, copied, onCopied }: { order: Order; copied: boolean; onCopied: () => void }) {
  return (
    <div className="callout" role="status" aria-label="Order created">
      <p>
        <strong>Order {order.orderId}</strong> for {order.email}: {formatMoney(order.total, order.currency)}, {order.status}.
      </p>
      <p className="small"><code>{order.checkoutUrl}</code></p>
      <div className="row">
        <button type="button" onClick={() => void navigator.clipboard?.writeText(order.checkoutUrl).then(onCopied)}>
          {copied ? "Copied" : "Copy checkout link"}
        </button>
        <OpenLinkButton url={order.checkoutUrl} kind="checkout" className="primary">Open checkout</OpenLinkButton>
      </div>
    </div>
  );
}
