// What both end-to-end files share: the WebDriver session of the real app under tauri-driver,
// and the helpers that find, click and type as a person would, waiting for React to settle.

import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import { By, Capabilities, WebDriver } from "selenium-webdriver";
import { Executor, HttpClient } from "selenium-webdriver/http/index.js";

export const app = required("STAFFROOM_E2E_APP");
export const dataDir = required("STAFFROOM_E2E_DATA");
export const shots = required("STAFFROOM_E2E_SHOTS");
const driverUrl = process.env.STAFFROOM_E2E_DRIVER ?? "http://127.0.0.1:4444";
export const WAIT = 20_000;

/** The WebDriver session of the app, once started. */
export let driver;
/** The main window's handle. */
export let mainWindow;

export function required(name) {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is not set: run the suite through tests/e2e/run`);
  return value;
}

/** Starts the app with `args` under tauri-driver. */
export async function startApp(args) {
  mkdirSync(shots, { recursive: true });
  // No browserName: WebKitGTK reports its own, and tauri-driver matches on tauri:options.
  const capabilities = new Capabilities();
  capabilities.set("tauri:options", { application: app, args });
  driver = await WebDriver.createSession(new Executor(new HttpClient(driverUrl)), capabilities);
  mainWindow = await driver.getWindowHandle();
}

/** Saves what the current window shows, in its theme and in the other one (`<name>-dark.png`,
 *  or `<name>-light.png` for a window already dark), then puts its theme back. */
export async function shot(name) {
  writeFileSync(join(shots, `${name}.png`), await driver.takeScreenshot(), "base64");
  await audit(name);
  const was = await driver.executeScript(`
    const root = document.documentElement;
    const was = root.dataset.theme ?? null;
    const dark = was === "dark" || (was !== "light" && matchMedia("(prefers-color-scheme: dark)").matches);
    root.dataset.theme = dark ? "light" : "dark";
    return { was, other: root.dataset.theme };`);
  writeFileSync(join(shots, `${name}-${was.other}.png`), await driver.takeScreenshot(), "base64");
  await audit(`${name}-${was.other}`);
  await driver.executeScript(
    "const root = document.documentElement; if (arguments[0] === null) delete root.dataset.theme; else root.dataset.theme = arguments[0];",
    was.was,
  );
}

/** XPath literal for any text (quotes included). */
export function literal(text) {
  if (!text.includes("'")) return `'${text}'`;
  return `concat('${text.split("'").join(`', "'", '`)}')`;
}

export function button(text, scope = "") {
  return By.xpath(`${scope}//button[normalize-space()=${literal(text)}]`);
}

/** The element once it is on screen. React may replace it while we look: then look again. */
export async function find(locator, timeout = WAIT) {
  return eventually(`on screen: ${locator}`, async () => {
    const [element] = await driver.findElements(locator);
    return element && (await element.isDisplayed()) ? element : false;
  }, timeout);
}

/** Clicks the element once it is on screen and enabled (found afresh if it was re-rendered). */
export async function click(locator) {
  return eventually(`clickable: ${locator}`, async () => {
    const element = await find(locator);
    if (!(await element.isEnabled())) return false;
    await element.click();
    return element;
  });
}

export async function type(locator, text) {
  const element = await find(locator);
  await element.clear();
  await element.sendKeys(text);
}

export async function textOf(locator) {
  return (await find(locator)).getText();
}

/** Waits until `check()` returns a truthy value (re-finding elements each time) and returns it. */
export async function eventually(what, check, timeout = WAIT) {
  let last;
  const value = await driver
    .wait(async () => {
      try {
        return await check();
      } catch (err) {
        last = err; // the element was re-rendered under us: look again
        return false;
      }
    }, timeout)
    .catch((err) => {
      throw new Error(`${what}: gave up after ${timeout} ms${last ? ` (last error: ${last.message})` : ""}`, { cause: err });
    });
  return value;
}

export async function goTo(area) {
  await click(By.xpath(`//nav[@aria-label='Main']//button[normalize-space()=${literal(area)}]`));
  await find(By.xpath(`//h1[contains(@class,'topbar-title')][normalize-space()=${literal(area)}]`));
}

/** Switches to the window that is not among `known`, once it has opened. */
export async function switchToNewWindow(known) {
  const handle = await eventually("a new window", async () => {
    const handles = await driver.getAllWindowHandles();
    return handles.find((h) => !known.includes(h));
  });
  await driver.switchTo().window(handle);
  return handle;
}

/** Closes the current editor window with its Close button, as a person would, and goes back to
 *  the main window once the editor's is gone. */
export async function closeEditor() {
  const editor = await driver.getWindowHandle();
  await click(button("Close", "//header[contains(@class,'editor-bar')]"));
  await eventually("the editor window closing", async () => !(await driver.getAllWindowHandles()).includes(editor));
  await driver.switchTo().window(mainWindow);
}


/** Answers the system's save dialog titled `title` (GTK's, under Xvfb with no window manager)
 *  as a person would: the dialog focused and the pointer over it, the file's whole path typed
 *  over the suggested name, Enter. A busy machine can drop the first keys, so it tries again
 *  while the dialog stays open; a dialog that never closes leaves a shot of the whole screen. */
export async function saveAs(title, path) {
  const { execFileSync } = await import("node:child_process");
  const xdotool = (...args) => execFileSync("xdotool", args, { encoding: "utf8", timeout: WAIT }).trim();
  const open = () => {
    try {
      return xdotool("search", "--onlyvisible", "--name", `^${title}$`).split("\n")[0] || null;
    } catch {
      return null; // xdotool finds none: it exits 1
    }
  };
  const id = await eventually(`the save dialog “${title}”`, async () => open() ?? false);
  for (let attempt = 0; attempt < 4 && open(); attempt++) {
    try {
      xdotool("windowfocus", "--sync", id);
    } catch {
      // Without a window manager focus may be refused; the pointer below gives it instead.
    }
    xdotool("mousemove", "--window", id, "40", "40");
    await new Promise((resolve) => setTimeout(resolve, 500));
    xdotool("key", "--clearmodifiers", "ctrl+a");
    xdotool("type", "--delay", "10", path);
    xdotool("key", "Return");
    const closed = await eventually("the save dialog closing", async () => !open(), 5_000).catch(() => false);
    if (closed) return;
  }
  if (open()) {
    execFileSync("import", ["-window", "root", join(shots, `failed-save-${title.replace(/\W+/g, "-")}.png`)]);
    throw new Error(`the save dialog “${title}” did not take the path ${path}`);
  }
}

/** axe-core (pinned in package.json), as accessibility audits run it. */
const axeSource = readFileSync(createRequire(import.meta.url).resolve("axe-core/axe.min.js"), "utf8");
/** Every screen's violations, by shot: what `axeReport` writes beside the screenshots. */
const findings = [];

/** Runs axe on what the current window shows (every shot, in both themes) and keeps its
 *  violations; the suite fails at its end on any serious or critical one (`seriousFindings`). */
export async function audit(name) {
  // Injected as a script of its own (the windows' content security policy allows no eval).
  if (!(await driver.executeScript("return Boolean(window.axe)"))) await driver.executeScript(axeSource);
  const found = await driver.executeAsyncScript(
    `const done = arguments[arguments.length - 1];
     window.axe
       .run(document, { resultTypes: ["violations"] })
       .then((result) => done(result.violations.map((v) => ({
         id: v.id, impact: v.impact, help: v.help,
         nodes: v.nodes.slice(0, 8).map((n) => ({ target: n.target.join(" "), summary: n.failureSummary })),
       }))))
       .catch((error) => done([{ id: "axe-error", impact: "critical", help: String(error), nodes: [] }]));`,
  );
  findings.push({ shot: name, violations: found });
}

/** Writes the report of every shot's violations to `<shots>/axe-<file>.json`; the serious and
 *  critical ones, each as "shot: rule (n nodes): first node". */
export function axeReport(file) {
  writeFileSync(join(shots, `axe-${file}.json`), JSON.stringify(findings, null, 2));
  return findings.flatMap(({ shot, violations }) =>
    violations
      .filter((v) => v.impact === "serious" || v.impact === "critical")
      .map((v) => `${shot}: ${v.id} (${v.nodes.length} nodes): ${v.nodes[0]?.target ?? ""} — ${v.help}`),
  );
}
