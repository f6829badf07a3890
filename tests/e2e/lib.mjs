// What both end-to-end files share: the WebDriver session of the real app under tauri-driver,
// and the helpers that find, click and type as a person would, waiting for React to settle.

import { mkdirSync, writeFileSync } from "node:fs";
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
  const was = await driver.executeScript(`
    const root = document.documentElement;
    const was = root.dataset.theme ?? null;
    const dark = was === "dark" || (was !== "light" && matchMedia("(prefers-color-scheme: dark)").matches);
    root.dataset.theme = dark ? "light" : "dark";
    return { was, other: root.dataset.theme };`);
  writeFileSync(join(shots, `${name}-${was.other}.png`), await driver.takeScreenshot(), "base64");
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
  await find(By.xpath(`//div[contains(@class,'topbar-title')][normalize-space()=${literal(area)}]`));
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
 *  as a person would: the pointer over it, the file's whole path typed over the suggested name,
 *  Enter. Returns the name the dialog suggested. */
export async function saveAs(title, path) {
  const { execFileSync } = await import("node:child_process");
  const xdotool = (...args) => execFileSync("xdotool", args, { encoding: "utf8", timeout: WAIT }).trim();
  const id = await eventually(`the save dialog “${title}”`, async () => {
    try {
      return xdotool("search", "--onlyvisible", "--name", `^${title}$`).split("\n")[0] || false;
    } catch {
      return false; // not open yet
    }
  });
  // Without a window manager, keys go to the window under the pointer.
  xdotool("mousemove", "--window", id, "40", "40");
  await new Promise((resolve) => setTimeout(resolve, 300));
  xdotool("key", "--clearmodifiers", "ctrl+a");
  xdotool("type", "--delay", "5", path);
  xdotool("key", "Return");
  await eventually("the save dialog closing", async () => {
    try {
      return xdotool("search", "--onlyvisible", "--name", `^${title}$`) === "";
    } catch {
      return true; // xdotool finds none: it exits 1
    }
  });
}
