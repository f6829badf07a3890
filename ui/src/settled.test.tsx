import { afterEach, describe, expect, it, vi } from "vitest";
import { act, render } from "@testing-library/react";
import { useSettled } from "./settled";

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

  it("shows the first value at once", () => {
    const { container } = render(<Shown value="ada" />);
    expect(container.textContent).toBe("ada");
  });
});
