import { afterEach, describe, expect, it } from "vitest";
import { render, waitFor } from "@testing-library/react";
import { useState } from "react";
import { useSettled } from "./settled";
import { QueryClient, QueryObserver } from "@tanstack/react-query";
import { ASKED, interactionOf, measureInteractions } from "./perf";

const measures = (name: string) => performance.getEntriesByName(`interaction:${name}`, "measure");

describe("measured interactions", () => {
  afterEach(() => {
    performance.clearMeasures();
    document.body.innerHTML = "";
  });

  it("names what each input is by where it happens", () => {
    document.body.innerHTML = `
      <nav aria-label="Main"><button id="area">Orders</button></nav>
      <nav aria-label="Pages"><button id="next">Next</button><span id="label">Page 1</span></nav>
      <table><thead><tr><th><button id="sort">Name</button></th></tr></thead>
      <tbody><tr><td id="cell"><button id="row">#1</button></td></tr></tbody></table>
      <select id="status"></select><input id="search" type="search"><input id="name" type="text">`;
    const at = (id: string) => document.getElementById(id)!;
    expect(interactionOf(at("area"), "click")).toBe("switch area");
    expect(interactionOf(at("next"), "click")).toBe("page");
    expect(interactionOf(at("label"), "click")).toBeNull();
    expect(interactionOf(at("sort"), "click")).toBe("sort");
    expect(interactionOf(at("row"), "click")).toBe("open a detail");
    expect(interactionOf(at("status"), "change")).toBe("filter");
    expect(interactionOf(at("search"), "input")).toBe("search");
    expect(interactionOf(at("name"), "input")).toBeNull();
  });

  it("measures a click until its rows are painted, waiting for the query that brings them", async () => {
    const root = document.createElement("div");
    root.innerHTML = `<nav aria-label="Pages"><button>Next</button></nav><button id="other">Other</button><ul></ul>`;
    document.body.append(root);
    const queryClient = new QueryClient();
    measureInteractions(root, queryClient);
    // The next page's query, on screen from the click (as a list's would be), answering in 80 ms.
    root.querySelector("nav button")!.addEventListener("click", () => {
      root.querySelector("ul")!.innerHTML = "<li>Loading…</li>";
      const page = new QueryObserver(queryClient, {
        queryKey: ["page", 2],
        queryFn: () => new Promise<string[]>((resolve) => setTimeout(() => resolve(["a", "b"]), 80)),
      });
      page.subscribe(({ data }) => {
        if (data) root.querySelector("ul")!.innerHTML = data.map((row) => `<li>${row}</li>`).join("");
      });
    });

    (root.querySelector("#other") as HTMLButtonElement).click();
    (root.querySelector("nav button") as HTMLButtonElement).click();
    // Named as a click that waited for the core: the goal is for clicks answered from the cache.
    await waitFor(() => expect(measures(`page${ASKED}`)).toHaveLength(1));
    expect(measures(`page${ASKED}`)[0].duration).toBeGreaterThanOrEqual(80);
    expect(performance.getEntriesByType("measure")).toHaveLength(1);
  });

  it("ends a click answered from the cache when it is painted, not when the background refresh returns", async () => {
    const root = document.createElement("div");
    root.innerHTML = `<nav aria-label="Main"><button>Orders</button></nav><ul></ul>`;
    document.body.append(root);
    const queryClient = new QueryClient();
    queryClient.setQueryData(["orders"], ["#1", "#2"]);
    measureInteractions(root, queryClient);
    // The screen shows the cached rows at once and asks again; the answer takes 300 ms.
    let refreshed = false;
    root.querySelector("nav button")!.addEventListener("click", () => {
      const orders = new QueryObserver(queryClient, {
        queryKey: ["orders"],
        queryFn: () => new Promise<string[]>((resolve) => setTimeout(() => ((refreshed = true), resolve(["#1", "#2"])), 300)),
      });
      orders.subscribe(({ data }) => (root.querySelector("ul")!.innerHTML = (data ?? []).map((row) => `<li>${row}</li>`).join("")));
      void orders.refetch();
    });
    (root.querySelector("nav button") as HTMLButtonElement).click();
    await waitFor(() => expect(measures("switch area")).toHaveLength(1));
    expect(refreshed).toBe(false);
    expect(measures(`switch area${ASKED}`)).toHaveLength(0);
  });

  it("ends a search key when the rows it asked for are painted, after typing paused", async () => {
    const root = document.createElement("div");
    document.body.append(root);
    const queryClient = new QueryClient();
    measureInteractions(root, queryClient);
    function Search() {
      const [text, setText] = useState("");
      const settled = useSettled(text, 100);
      return (
        <>
          <input type="search" value={text} onInput={(e) => setText((e.target as HTMLInputElement).value)} />
          <ul>{settled && <li>{settled}</li>}</ul>
        </>
      );
    }
    render(<Search />, { container: root });
    const box = root.querySelector("input")!;
    box.value = "ada";
    box.dispatchEvent(new Event("input", { bubbles: true }));
    await waitFor(() => expect(measures("search")).toHaveLength(1));
    expect(root.querySelector("li")?.textContent).toBe("ada");
    expect(measures("search")[0].duration).toBeGreaterThanOrEqual(100);
  });

  it("counts a key typed before the last one was painted, up to the next key, and ignores live status regions", async () => {
    const root = document.createElement("div");
    root.innerHTML = `<input type="search"><p role="status">Syncing 1 of 9</p><ul></ul>`;
    document.body.append(root);
    measureInteractions(root, new QueryClient());
    const search = root.querySelector("input")!;
    search.dispatchEvent(new Event("input", { bubbles: true }));
    search.dispatchEvent(new Event("input", { bubbles: true }));
    // The sync's progress keeps changing; the search is done once its own change is painted.
    const ticking = setInterval(() => (root.querySelector("p")!.textContent = `Syncing ${Math.random()}`), 5);
    root.querySelector("ul")!.innerHTML = "<li>Ada</li>";
    await waitFor(() => expect(measures("search")).toHaveLength(2));
    clearInterval(ticking);
  });
});
