import { useEffect, useState } from "react";

export type Theme = "system" | "light" | "dark";
const KEY = "staffroom.theme";

const darkQuery = () => (typeof window.matchMedia === "function" ? window.matchMedia("(prefers-color-scheme: dark)") : null);

/** Applies a theme to the document: "system" follows the OS setting, live. */
export function applyTheme(theme: Theme) {
  const resolve = () => (theme === "system" ? (darkQuery()?.matches ? "dark" : "light") : theme);
  document.documentElement.dataset.theme = resolve();
  darkQuery()?.addEventListener?.("change", () => {
    if (storedTheme() === "system") document.documentElement.dataset.theme = resolve();
  });
}

export function storedTheme(): Theme {
  const value = localStorage.getItem(KEY);
  return value === "light" || value === "dark" ? value : "system";
}

/** A small select in the header: System, Light, Dark. */
export function ThemeSwitch() {
  const [theme, setTheme] = useState<Theme>(storedTheme);
  useEffect(() => {
    applyTheme(theme);
    if (theme === "system") localStorage.removeItem(KEY);
    else localStorage.setItem(KEY, theme);
  }, [theme]);
  return (
    <label className="theme-switch">
      <span className="visually-hidden">Theme</span>
      <select value={theme} onChange={(e) => setTheme(e.target.value as Theme)} aria-label="Theme">
        <option value="system">System theme</option>
        <option value="light">Light</option>
        <option value="dark">Dark</option>
      </select>
    </label>
  );
}
