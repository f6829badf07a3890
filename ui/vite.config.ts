/// <reference types="vitest/config" />
import { defineConfig } from "vite";

// The UI is written against React's API and runs on Preact (through preact/compat): React and
// ReactDOM alone are 68 KB of gzipped JavaScript, more than the sign-in window's whole budget
// (docs/DECISIONS.md, "Preact under React's API"). Tests run on the same aliases, so they test
// what ships.
const preact = [
  { find: /^react-dom\/test-utils$/, replacement: "preact/test-utils" },
  { find: /^react-dom\/client$/, replacement: "preact/compat/client" },
  { find: /^react-dom$/, replacement: "preact/compat" },
  { find: /^react\/jsx-(dev-)?runtime$/, replacement: "preact/jsx-runtime" },
  { find: /^react$/, replacement: "preact/compat" },
  // React 17's stand-in for useSyncExternalStore (wouter's): Preact's own instead.
  { find: /^use-sync-external-store\/shim(\/index\.js)?$/, replacement: "preact/compat" },
];
// Testing Library's ES module build: its CommonJS entry would require the real ReactDOM, past
// the aliases.
const testingLibrary = { find: /^@testing-library\/react$/, replacement: "@testing-library/react/dist/@testing-library/react.esm.js" };

// Tauri expects a fixed dev port and serves the built files itself in release builds.
export default defineConfig({
  resolve: { alias: preact },
  oxc: { jsx: { runtime: "automatic", importSource: "preact" } },
  clearScreen: false,
  server: { port: 1420, strictPort: true },
  // The manifest tells the bundle budget (scripts/bundle-budget.mjs) which chunks each window and
  // screen loads.
  build: { target: "es2022", sourcemap: false, manifest: true },
  test: {
    environment: "jsdom",
    setupFiles: ["./src/test/setup.ts"],
    css: false,
    alias: [testingLibrary],
    // Libraries that import React are bundled into the tests, so the aliases reach them too.
    server: { deps: { inline: [/@testing-library/, /@tanstack/, /wouter/] } },
  },
});
