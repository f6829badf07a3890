import { Suspense } from "react";
import { describe, expect, it } from "vitest";
import { render, screen } from "@testing-library/react";
import { onDemand } from "./onDemand";

describe("onDemand", () => {
  it("loads once, shows the fallback only until loaded, and renders a preloaded component at once", async () => {
    let loads = 0;
    const Greeting = onDemand(async () => {
      loads += 1;
      return ({ name }: { name: string }) => <p>Hello, {name}</p>;
    });
    const first = render(<Suspense fallback={<p>Loading…</p>}><Greeting name="Ada" /></Suspense>);
    expect(screen.getByText("Loading…")).toBeInTheDocument();
    expect(await screen.findByText("Hello, Ada")).toBeInTheDocument();
    first.unmount();

    await Greeting.preload();
    render(<Suspense fallback={<p>Loading…</p>}><Greeting name="Grace" /></Suspense>);
    // Already loaded: no fallback, not even for a frame.
    expect(screen.getByText("Hello, Grace")).toBeInTheDocument();
    expect(screen.queryByText("Loading…")).toBeNull();
    expect(loads).toBe(1);
  });

  it("throws a failed load's error from render, instead of suspending forever", async () => {
    const Broken = onDemand<object>(() => Promise.reject(new Error("chunk missing")));
    await Broken.preload();
    expect(() => Broken({})).toThrow("chunk missing");
  });
});
