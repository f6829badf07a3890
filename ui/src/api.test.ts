import { describe, expect, it } from "vitest";
import { parseAmount } from "./api";

describe("parseAmount", () => {
  it("reads amounts as people in any locale write them", () => {
    expect(parseAmount("12,50")).toBe(1250);
    expect(parseAmount("12.50")).toBe(1250);
    expect(parseAmount(" 12.5 ")).toBe(1250);
    expect(parseAmount("12")).toBe(1200);
    expect(parseAmount("0,05")).toBe(5);
    expect(parseAmount("1.234,56")).toBe(123456);
    expect(parseAmount("1,234.56")).toBe(123456);
    expect(parseAmount("1 234,56")).toBe(123456);
    expect(parseAmount("1.234")).toBe(123400);
  });

  it("refuses what is not an amount", () => {
    for (const text of ["", "abc", "-5", "12,345,6", "1..2", "12.5.0", "$12", "1,23,456.00"]) {
      expect(parseAmount(text), text).toBeNull();
    }
  });
});
