// What each window and screen loads, in gzipped JavaScript, against its budget in
// ../budgets.json; exits 1 when one is over its budget by more than 10 %. Run after
// `npm run build` (scripts/test does, on every CI run); tests/e2e/bench.mjs prints the same table.
//   node scripts/bundle-budget.mjs          check and print
//   node scripts/bundle-budget.mjs --json   the sizes only, as JSON
import { readFileSync, realpathSync } from "node:fs";
import { gzipSync } from "node:zlib";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const ui = join(dirname(fileURLToPath(import.meta.url)), "..");
const TOLERANCE = 1.1;

/** Gzipped bytes of what each part of the UI loads: the sign-in window (the page's entry and
 *  every chunk it imports statically), an editor window (the same page with the editor), the
 *  signed-in shell, and each screen loaded on demand, counting only what is not loaded already
 *  when it opens (the sign-in window's and the shell's chunks). */
export function bundleSizes(dist = join(ui, "dist")) {
  const manifest = JSON.parse(readFileSync(join(dist, ".vite", "manifest.json"), "utf8"));
  const gzipped = new Map();
  const size = (file) => {
    if (!gzipped.has(file)) gzipped.set(file, gzipSync(readFileSync(join(dist, file)), { level: 9 }).length);
    return gzipped.get(file);
  };
  /** The chunk `key` and every chunk it imports statically. */
  const closure = (key, seen = new Set()) => {
    if (seen.has(key)) return seen;
    seen.add(key);
    for (const imported of manifest[key].imports ?? []) closure(imported, seen);
    return seen;
  };
  const total = (keys) => [...keys].reduce((sum, key) => sum + size(manifest[key].file), 0);

  const entry = Object.keys(manifest).find((key) => manifest[key].isEntry);
  const signIn = closure(entry);
  const named = (name) => {
    const key = Object.keys(manifest).find((k) => manifest[k].isDynamicEntry && manifest[k].name === name);
    if (!key) throw new Error(`no chunk named ${name} in the build: was it renamed?`);
    return key;
  };
  // Every screen opens inside the shell, so a screen counts only what the shell has not loaded.
  const signedIn = closure(named("Shell"), new Set(signIn));
  const sizes = {
    "sign-in window": total(signIn),
    "editor window": total(closure(named("Editor"), new Set(signIn))),
    "Shell": total([...signedIn].filter((k) => !signIn.has(k))),
  };
  for (const [key, chunk] of Object.entries(manifest)) {
    if (!chunk.isDynamicEntry || chunk.name === "Shell" || chunk.name === "Editor") continue;
    const base = chunk.name === "FirstAdmin" ? signIn : signedIn;
    sizes[chunk.name] = total([...closure(key)].filter((k) => !base.has(k)));
  }
  return sizes;
}

/** Each size next to its budget; the names over budget by more than the tolerance. */
export function checkBudgets(sizes, budgets = JSON.parse(readFileSync(join(ui, "budgets.json"), "utf8"))) {
  const rows = [];
  const over = [];
  for (const [name, bytes] of Object.entries(sizes)) {
    const budget = budgets.bytes[name] ?? budgets.bytes["any other screen"];
    const verdict = bytes > budget * TOLERANCE ? "OVER" : bytes > budget ? "over, within 10 %" : "ok";
    if (verdict === "OVER") over.push(name);
    rows.push(`${name.padEnd(20)} ${(bytes / 1024).toFixed(1).padStart(6)} KB   budget ${(budget / 1024).toFixed(0).padStart(3)} KB   ${verdict}`);
  }
  return { rows, over };
}

if (process.argv[1] && import.meta.url === pathToFileURL(realpathSync(process.argv[1])).href) {
  const sizes = bundleSizes();
  if (process.argv.includes("--json")) {
    console.log(JSON.stringify(sizes));
  } else {
    const { rows, over } = checkBudgets(sizes);
    console.log("JavaScript each part of the UI loads (gzip), against ui/budgets.json:");
    for (const row of rows) console.log(`  ${row}`);
    if (over.length) {
      console.error(`Over budget by more than 10 %: ${over.join(", ")}. Load it on demand, or raise its budget in ui/budgets.json and say why in docs/PERFORMANCE.md.`);
      process.exit(1);
    }
  }
}
