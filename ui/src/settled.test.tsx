import { afterEach, describe, expect, it, vi } from "vitest";
import { act, render } from "@testing-library/react";
import { settling, useSettled } from "./settled";

function Shown({ value }: { value: string }) {
  return <p>{useSettled(value, 100)}</p>;
}

describe("useSettled", () => {
  afterEach(() => vi.useRealTimers());

  it("follows the value once it has stopped changing, skipping what was typed in between", () => {
    vi.useFakeTimers();
    const seen: string[] = [];
    function Recorded({ value }: { value: string }) {
      const settled = useSettled(value, 100);
      seen.push(settled);
      return <p>{settled}</p>;
    }
    const { container, rerender } = render(<Recorded value="" />);
    for (const typed of ["a", "ad", "ada"]) {
      rerender(<Recorded value={typed} />);
      act(() => void vi.advanceTimersByTime(60));
    }
    expect(container.textContent).toBe("");
    act(() => void vi.advanceTimersByTime(100));
    expect(container.textContent).toBe("ada");
    expect(seen).not.toContain("a");
    expect(seen).not.toContain("ad");
  });

  it("follows an emptied box at once, and says while it waits", () => {
    vi.useFakeTimers();
    const { container, rerender } = render(<Shown value="ada" />);
    rerender(<Shown value="" />);
    expect(container.textContent).toBe("");
    expect(settling()).toBe(false);
    rerender(<Shown value="bea" />);
    // The emptied box's "" until typing pauses, never the old "ada".
    expect(container.textContent).toBe("");
    expect(settling()).toBe(true);
    act(() => void vi.advanceTimersByTime(100));
    expect(settling()).toBe(false);
    expect(container.textContent).toBe("bea");
  });

  it("shows the first value at once", () => {
    const { container } = render(<Shown value="ada" />);
    expect(container.textContent).toBe("ada");
  });
});
