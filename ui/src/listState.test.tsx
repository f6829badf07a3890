import { describe, expect, it } from "vitest";
import { act, render, screen } from "@testing-library/react";
import { useListState } from "./listState";

let state: ReturnType<typeof useListState<{ search: string; status: string }>>;
function Orders() {
  state = useListState("orders", { search: "", status: "" }, 0);
  return <p>{`${state.filters.status}|${state.search}|${state.page}|${state.filtered}`}</p>;
}
const query = () => new URLSearchParams(window.location.search);

describe("a list's filters and page in the address", () => {
  it("reads them, writes each change in place, goes back to the first page on a new filter, and leaves other lists' alone", async () => {
    window.history.replaceState(null, "", "/?orders.status=refunded&orders.page=3&customers.status=bounced");
    const before = window.history.length;
    render(<Orders />);
    expect(screen.getByText("refunded||3|true")).toBeInTheDocument();

    act(() => state.setPage(4));
    expect(screen.getByText("refunded||4|true")).toBeInTheDocument();
    act(() => state.set({ status: "paid" }));
    expect(screen.getByText("paid||1|true")).toBeInTheDocument();
    expect(query().get("orders.page")).toBeNull();
    act(() => state.set({ search: "zoë@example.com" }));
    await screen.findByText("paid|zoë@example.com|1|true");
    expect(query().get("orders.search")).toBe("zoë@example.com");

    act(() => state.clear());
    await screen.findByText("||1|false");
    expect(query().toString()).toBe("customers.status=bounced");
    // In place: typing and paging make no history of their own.
    expect(window.history.length).toBe(before);
  });

  it("takes a page that is not a page number as the first", () => {
    window.history.replaceState(null, "", "/?orders.page=-2");
    render(<Orders />);
    expect(screen.getByText("||1|false")).toBeInTheDocument();
  });
});
