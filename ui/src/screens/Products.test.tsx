import { describe, expect, it } from "vitest";
import { render, screen, waitFor, within } from "@testing-library/react";
import { QueryClient, QueryClientProvider } from "@tanstack/react-query";
import userEvent from "@testing-library/user-event";
import { Products } from "./Products";
import { mockCommands, renderWithQuery } from "../test/render";
import type { Product } from "../types";

const product = (id: string, name: string, status: "draft" | "published" = "published"): Product => ({
  id, name, slug: name.toLowerCase(), price: 1999, currency: "USD", priceFormatted: "$19.99", status,
  createdAt: "2026-01-01T00:00:00Z", updatedAt: "2026-01-01T00:00:00Z",
});
const page = (products: Product[], extra = {}) => ({ products, meta: { currentPage: 1, totalPages: 3, totalItems: 45, stale: false, ...extra } });

describe("Products", () => {
  it("loads a page, filters by status and pages on", async () => {
    const calls = mockCommands({ list_products: (args) => page([product(`${args.page}`, `Product on page ${args.page}`)]) });
    renderWithQuery(<Products />);
    expect(screen.getByText("Loading products…")).toBeInTheDocument();
    expect(await screen.findByText("Product on page 1")).toBeInTheDocument();
    expect(screen.getByText("Page 1 of 3 · 45 products")).toBeInTheDocument();
    // The next page is fetched ahead, so Next shows it without asking again.
    await waitFor(() => expect(calls.map((c) => c.args.page)).toEqual([1, 2]));
    await userEvent.click(screen.getByRole("button", { name: "Next" }));
    expect(await screen.findByText("Product on page 2")).toBeInTheDocument();
    await userEvent.selectOptions(screen.getByLabelText("Status"), "draft");
    await screen.findByText("Product on page 1");
    await waitFor(() =>
      expect(calls.map((c) => c.args)).toEqual([
        { page: 1, limit: 20, status: null, search: null },
        { page: 2, limit: 20, status: null, search: null },
        { page: 3, limit: 20, status: null, search: null },
        { page: 1, limit: 20, status: "draft", search: null },
        { page: 2, limit: 20, status: "draft", search: null },
      ]),
    );
  });

  it("asks again each time the screen opens, even for a page fetched moments ago", async () => {
    const calls = mockCommands({ list_products: (args) => page([product(`${args.page}`, `Product on page ${args.page}`)]) });
    const client = new QueryClient({ defaultOptions: { queries: { retry: false } } });
    const shown = render(<QueryClientProvider client={client}><Products /></QueryClientProvider>);
    await screen.findByText("Product on page 1");
    shown.unmount();
    render(<QueryClientProvider client={client}><Products /></QueryClientProvider>);
    // Shown at once from the cache, and asked again: what changed while it was closed shows too.
    expect(screen.getByText("Product on page 1")).toBeInTheDocument();
    await waitFor(() => expect(calls.filter((c) => c.args.page === 1)).toHaveLength(2));
  });

  it("searches by name from the first page, and says when no name matches", async () => {
    const calls = mockCommands({
      list_products: (args) => (args.search ? page([], { totalPages: 0, totalItems: 0 }) : page([product("1", "Swift Toolkit")])),
    });
    renderWithQuery(<Products />);
    await screen.findByText("Swift Toolkit");
    await userEvent.type(screen.getByRole("searchbox", { name: "Search products" }), "zz");
    expect(await screen.findByText("No product name contains “zz”.")).toBeInTheDocument();
    expect(calls.at(-1)?.args).toEqual({ page: 1, limit: 20, status: null, search: "zz" });
  });

  it("says when nothing matches, when the data is stale, and when loading failed", async () => {
    mockCommands({ list_products: () => page([], { stale: true, totalPages: 0, totalItems: 0, syncedAt: "2026-11-22T10:00:00Z" }) });
    const first = renderWithQuery(<Products />);
    expect(await screen.findByText("No products match.")).toBeInTheDocument();
    expect(screen.getByRole("status")).toHaveTextContent("Lemon Squeezy cannot be reached");
    first.unmount();
    mockCommands({ list_products: () => { throw { code: "unauthorized", message: "No Lemon Squeezy API key is set" }; } });
    renderWithQuery(<Products />);
    expect(await screen.findByRole("alert")).toHaveTextContent("No Lemon Squeezy API key is set (unauthorized)");
  });

  it("creates an order for the chosen product and offers its checkout link", async () => {
    const calls = mockCommands({
      list_products: () => page([product("15", "Swift Toolkit")]),
      get_product: () => ({ product: { ...product("15", "Swift Toolkit"), variants: [
        { id: "151", name: "Standard", price: 1999, status: "published", isSubscription: false },
        { id: "153", name: "Early access", price: 999, status: "draft", isSubscription: false },
      ] } }),
      create_order: (args) => {
        const order = args;
        if (order.email === "bad") {
          throw { code: "invalid_request", message: "email: is not a valid email address", details: { fields: [{ field: "email", message: "is not a valid email address" }] } };
        }
        return { order: { id: "o1", orderId: "SR-000001", status: "pending", total: 1999, currency: "USD", checkoutUrl: "http://127.0.0.1:9/checkout/custom/x", createdAt: "", email: order.email, name: null } };
      },
    });
    renderWithQuery(<Products />);
    await userEvent.click(await screen.findByRole("button", { name: "Swift Toolkit" }));
    const form = await screen.findByRole("form", { name: "Create order" });
    expect(within(form).getAllByRole("option").map((o) => o.textContent)).toEqual(["Standard — $19.99"]);
    await userEvent.type(within(form).getByLabelText("Customer email"), "bad{Enter}");
    expect(await screen.findByText("Email is not a valid email address")).toBeInTheDocument();
    await userEvent.clear(within(form).getByLabelText("Customer email"));
    await userEvent.type(within(form).getByLabelText("Customer email"), "ada@example.com");
    await userEvent.type(within(form).getByLabelText("Country code (optional, e.g. GB)"), "gb{Enter}");
    const created = await screen.findByRole("status", { name: "Order created" });
    expect(created).toHaveTextContent("Order SR-000001");
    expect(created).toHaveTextContent("http://127.0.0.1:9/checkout/custom/x");
    expect(calls.filter((c) => c.cmd === "create_order").pop()!.args).toEqual({
      productId: "15", variantId: "151", email: "ada@example.com", billingAddress: { country: "GB" },
    });
  });
});
