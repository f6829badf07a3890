import { describe, expect, it } from "vitest";
import { checkBudgets } from "./bundle-budget.mjs";

describe("bundle budget", () => {
  it("fails a part over its budget by more than 10 %, and only that one", () => {
    const budgets = { bytes: { "sign-in window": 1000, "any other screen": 500 } };
    const { rows, over } = checkBudgets({ "sign-in window": 1099, Orders: 551 }, budgets);
    expect(over).toEqual(["Orders"]);
    expect(rows[0]).toMatch(/sign-in window .* over, within 10 %$/);
    expect(rows[1]).toMatch(/Orders .* OVER$/);
  });
});
