import { describe, expect, it } from "vitest";
import { screen } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { applyTheme, ThemeSwitch } from "./theme";
import { renderWithQuery } from "./test/render";

describe("theme", () => {
  it("follows the OS unless a theme is chosen, and remembers the choice", async () => {
    applyTheme("system");
    expect(document.documentElement.dataset.theme).toBe("light");
    renderWithQuery(<ThemeSwitch />);
    await userEvent.selectOptions(screen.getByLabelText("Theme"), "dark");
    expect(document.documentElement.dataset.theme).toBe("dark");
    expect(localStorage.getItem("staffroom.theme")).toBe("dark");
    await userEvent.selectOptions(screen.getByLabelText("Theme"), "system");
    expect(localStorage.getItem("staffroom.theme")).toBeNull();
  });
});
