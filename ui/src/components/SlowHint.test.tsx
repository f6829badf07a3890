import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { act, render, screen } from "@testing-library/react";
import { SlowHint } from "./SlowHint";

describe("SlowHint", () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it("shows only once the work outlasts its delay, and goes when the work ends", () => {
    const { rerender } = render(<SlowHint active={true} afterMs={1000}>Still trying…</SlowHint>);
    act(() => vi.advanceTimersByTime(900));
    expect(screen.queryByText("Still trying…")).not.toBeInTheDocument();
    act(() => vi.advanceTimersByTime(200));
    expect(screen.getByText("Still trying…")).toBeInTheDocument();
    rerender(<SlowHint active={false} afterMs={1000}>Still trying…</SlowHint>);
    expect(screen.queryByText("Still trying…")).not.toBeInTheDocument();
  });

  it("never shows for work quicker than its delay", () => {
    const { rerender } = render(<SlowHint active={true} afterMs={1000}>Still trying…</SlowHint>);
    act(() => vi.advanceTimersByTime(500));
    rerender(<SlowHint active={false} afterMs={1000}>Still trying…</SlowHint>);
    act(() => vi.advanceTimersByTime(2000));
    expect(screen.queryByText("Still trying…")).not.toBeInTheDocument();
  });
});
