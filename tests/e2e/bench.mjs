// Desktop figures for docs/PERFORMANCE.md, measured on the real built app in WebKit under Xvfb:
//   - launch to an interactive login screen (first launch on an empty data dir, then warm ones);
//   - memory of the whole process tree (the app and its WebKit processes), idle on the login
//     screen and after browsing 1,000 products page by page;
//   - the editor on a 1 MB document: open to editable, and each keystroke's latency to paint;
//   - the same launch and idle figures in team mode: a desktop started with `--server URL` of a
//     `staffroom serve --sandbox` on loopback (no local sandbox, no simulators in the app).
// Run with `tests/e2e/run --bench`, which starts the app with a 1,000-product sandbox store.
// Prints figures; asserts nothing about them (timings belong to benchmarks, not tests).

import { spawn } from "node:child_process";
import { readFileSync, readdirSync } from "node:fs";
import { By, Capabilities, WebDriver, until } from "selenium-webdriver";
import { Executor, HttpClient } from "selenium-webdriver/http/index.js";

const app = process.env.STAFFROOM_E2E_APP;
const dataDir = process.env.STAFFROOM_E2E_DATA;
const driverUrl = process.env.STAFFROOM_E2E_DRIVER;
const LAUNCHES = Number(process.env.STAFFROOM_BENCH_LAUNCHES ?? 5);
const WAIT = 60_000;

/** The app as the embedded benchmark starts it: this computer, in the sandbox. */
const EMBEDDED = { dir: dataDir, args: ["--sandbox", "--data-dir", dataDir], ready: "//button[normalize-space()='Use demo account']" };

async function launch(mode = EMBEDDED) {
  const capabilities = new Capabilities();
  capabilities.set("tauri:options", { application: app, args: mode.args });
  const started = performance.now();
  const driver = await WebDriver.createSession(new Executor(new HttpClient(driverUrl)), capabilities);
  // Interactive: the button is on screen and enabled, so a click would do something.
  const ready = await driver.wait(until.elementLocated(By.xpath(mode.ready)), WAIT);
  await driver.wait(until.elementIsEnabled(ready), WAIT);
  return { driver, ms: performance.now() - started };
}

/** The app's process and every process below it (WebKit's web and network processes). */
function processTree(dir = dataDir) {
  const parents = new Map();
  const commands = new Map();
  for (const pid of readdirSync("/proc").filter((name) => /^\d+$/.test(name))) {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
      const ppid = stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1];
      parents.set(pid, ppid);
      commands.set(pid, readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0"));
    } catch {
      // the process ended while we looked
    }
  }
  const root = [...commands].find(([, argv]) => argv[0] === app && argv.includes(dir))?.[0];
  if (!root) throw new Error("the app's process was not found");
  const tree = [root];
  for (let i = 0; i < tree.length; i++) {
    for (const [pid, ppid] of parents) if (ppid === tree[i]) tree.push(pid);
  }
  return tree;
}

/** Waits until the app of the last session has exited: a launch while it is still closing would
 *  only focus it (the app is single-instance) and open no window of its own. */
async function closed(dir = dataDir) {
  for (let i = 0; i < 100; i++) {
    try {
      processTree(dir);
    } catch {
      return;
    }
    await sleep(100);
  }
  throw new Error("the app did not exit within 10 s of its session ending");
}

/** Sums of resident (RSS) and proportional (PSS: shared pages split between users) memory, MiB. */
function memory(dir = dataDir) {
  let rss = 0;
  let pss = 0;
  const parts = [];
  for (const pid of processTree(dir)) {
    const rollup = readFileSync(`/proc/${pid}/smaps_rollup`, "utf8");
    const processRss = Number(rollup.match(/^Rss:\s+(\d+)/m)[1]);
    const processPss = Number(rollup.match(/^Pss:\s+(\d+)/m)[1]);
    rss += processRss;
    pss += processPss;
    const name = readFileSync(`/proc/${pid}/comm`, "utf8").trim();
    parts.push(`${name} ${(processPss / 1024).toFixed(0)}`);
  }
  return { rss: (rss / 1024).toFixed(0), pss: (pss / 1024).toFixed(0), processes: `PSS by process, MiB: ${parts.join(", ")}` };
}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/** Launches to an interactive login screen: the first on an empty data dir, then warm ones. */
async function launches(mode, name) {
  const first = await launch(mode);
  await first.driver.quit();
  await closed(mode.dir);
  const warm = [];
  for (let i = 0; i < LAUNCHES; i++) {
    const run = await launch(mode);
    warm.push(run.ms);
    await run.driver.quit();
    await closed(mode.dir);
  }
  console.log(`${name}launch to interactive login: first launch (empty data dir) ${first.ms.toFixed(0)} ms; ` +
    `later launches median ${median(warm).toFixed(0)} ms (min ${Math.min(...warm).toFixed(0)}, max ${Math.max(...warm).toFixed(0)}, n=${warm.length})`);
}

// STAFFROOM_BENCH_ONLY=editor: the editor's figures alone (signed in, then section 2's editor).
if (process.env.STAFFROOM_BENCH_ONLY === "editor") {
  const { driver } = await launch();
  try {
    await driver.findElement(By.xpath("//button[normalize-space()='Use demo account']")).click();
    await driver.findElement(By.xpath("//button[normalize-space()='Sign in']")).click();
    await driver.wait(until.elementLocated(By.xpath("//nav[@aria-label='Main']")), WAIT);
    await editorFigures(driver);
  } finally {
    await driver.quit();
  }
  process.exit(0);
}

// 1. Launch to an interactive login screen.
await launches(EMBEDDED, "");

// 2. Memory idle on the login screen, then after browsing every page of 1,000 products.
const { driver } = await launch();
try {
  await sleep(5_000);
  const idle = memory();
  console.log(`memory idle at login: RSS ${idle.rss} MiB, PSS ${idle.pss} MiB (${idle.processes})`);

  await driver.findElement(By.xpath("//button[normalize-space()='Use demo account']")).click();
  await driver.findElement(By.xpath("//button[normalize-space()='Sign in']")).click();
  await driver.wait(until.elementLocated(By.xpath("//nav[@aria-label='Main']//button[normalize-space()='Products']")), WAIT).click();
  const pager = By.xpath("//nav[@aria-label='Pages']/span");
  const label = await driver.wait(until.elementLocated(pager), WAIT).getText();
  const [, pages, total] = label.match(/of (\d+) · (\d+) products/);
  const started = performance.now();
  for (let page = 2; page <= Number(pages); page++) {
    await driver.findElement(By.xpath("//nav[@aria-label='Pages']/button[normalize-space()='Next']")).click();
    await driver.wait(until.elementLocated(By.xpath(`//nav[@aria-label='Pages']/span[starts-with(normalize-space(),'Page ${page} of')]`)), WAIT);
    // Open one product per page too: the detail and its order form.
    await driver.findElement(By.css("table[aria-label='Products'] tbody tr:first-child button.row-link")).click();
  }
  const perPage = (performance.now() - started) / (Number(pages) - 1);
  await sleep(5_000);
  const browsed = memory();
  console.log(`browsed ${total} products on ${pages} pages (${perPage.toFixed(0)} ms per page, detail opened on each)`);
  console.log(`memory after browsing: RSS ${browsed.rss} MiB, PSS ${browsed.pss} MiB (${browsed.processes})`);
  await editorFigures(driver);
} finally {
  await driver.quit();
}

/** The editor on a 1 MB document (the sandbox's large handbook: 5,000 paragraphs with lists and
 *  tables): from the click on Edit to an editable surface holding its last paragraph, then the
 *  latency of each keystroke typed in its middle, from the key event to the next paint, measured
 *  inside the page with the Performance API. */
async function editorFigures(driver) {
  await driver.findElement(By.xpath("//nav[@aria-label='Main']//button[normalize-space()='Documents']")).click();
  const search = await driver.wait(until.elementLocated(By.css("input[aria-label='Search documents by name']")), WAIT);
  await search.sendKeys("handbook");
  const edit = await driver.wait(until.elementLocated(By.css("button[aria-label='Edit Staff handbook (large)']")), WAIT);
  const main = await driver.getWindowHandle();
  const clicked = performance.now();
  await edit.click();
  let editor;
  while (!(editor = (await driver.getAllWindowHandles()).find((h) => h !== main))) await sleep(10);
  await driver.switchTo().window(editor);
  await driver.wait(until.elementLocated(By.css("div.page[contenteditable='true']")), WAIT);
  await driver.wait(until.elementLocated(By.xpath("//div[@role='textbox']/div[last()]/*[last()][contains(., 'End of the handbook')]")), WAIT);
  const openMs = performance.now() - clicked;
  const marks = await driver.executeScript("return Object.fromEntries(performance.getEntriesByType('mark').map((m) => [m.name, m.startTime]))");
  const stats = await driver.executeScript("const p = document.querySelector('div.page'); return [p.querySelectorAll(':scope > .chunk > *').length, p.querySelectorAll('table').length, p.querySelectorAll('.li').length]");
  const span = (from, to) => (marks[to] - marks[from]).toFixed(0);
  console.log(`editor: a 1 MB document (${stats[0]} blocks, ${stats[1]} tables, ${stats[2]} list items) editable ${openMs.toFixed(0)} ms after the click on Edit; ` +
    `in its window: page started → asked ${marks["editor:asked"].toFixed(0)} ms, asked → arrived (the core) ${span("editor:asked", "editor:arrived")} ms, arrived → editable (the page) ${span("editor:arrived", "editor:editable")} ms`);

  // Typing in its middle: each key's event time to the frame after it is painted (a timer after
  // the next animation frame runs once that frame is drawn). The same figure for a bare text field
  // in the same window is the floor: the wait for the next frame, which no editor can shorten.
  await driver.executeScript(`
    window.paintedAfterKeys = (element, name) => element.addEventListener("keydown", (event) => {
      const start = event.timeStamp;
      requestAnimationFrame(() => setTimeout(() => performance.measure(name, { start, end: performance.now() }), 0));
    }, true);
    const field = document.createElement("input");
    field.id = "bench-floor";
    document.body.prepend(field);
    window.paintedAfterKeys(field, "floor");`);
  const field = await driver.findElement(By.id("bench-floor"));
  for (let i = 0; i < 50; i++) {
    await field.sendKeys("x");
    await sleep(30);
  }
  await driver.executeScript("document.getElementById('bench-floor').remove()");
  const middle = await driver.findElement(By.xpath("(//div[@role='textbox']/div[@class='chunk']/p[contains(@class,'para')])[1200]"));
  await driver.executeScript("arguments[0].scrollIntoView({block: 'center'})", middle);
  await middle.click();
  const page = await driver.findElement(By.css("div.page[role='textbox']"));
  await driver.executeScript(`window.paintedAfterKeys(document.querySelector("div.page"), "keystroke")`);
  for (let i = 0; i < 100; i++) {
    await page.sendKeys(i % 10 === 9 ? " " : "x");
    await sleep(30);
  }
  await sleep(500);
  const figures = async (name) => {
    const sorted = (await driver.executeScript(`return performance.getEntriesByName('${name}').map((m) => m.duration)`)).sort((a, b) => a - b);
    const at = (q) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))].toFixed(1);
    return `p50 ${at(0.5)} ms, p95 ${at(0.95)} ms, max ${at(1)} ms (n=${sorted.length})`;
  };
  // WebKit's own cost for this much editable text: the same keys typed into a bare contenteditable
  // holding a copy of the page (no editor behind it), the editor's page hidden meanwhile.
  await driver.executeScript(`
    const page = document.querySelector("div.page");
    const bare = page.cloneNode(true);
    bare.id = "bench-bare";
    bare.removeAttribute("role");
    page.style.display = "none";
    page.after(bare);
    window.paintedAfterKeys(bare, "bare");
    const paragraph = bare.querySelectorAll(":scope > .chunk > p")[1200];
    const caret = document.createRange();
    caret.setStart(paragraph.firstChild, 0);
    bare.focus();
    getSelection().removeAllRanges();
    getSelection().addRange(caret);`);
  const bare = await driver.findElement(By.id("bench-bare"));
  for (let i = 0; i < 50; i++) {
    await bare.sendKeys(i % 10 === 9 ? " " : "x");
    await sleep(30);
  }
  await driver.executeScript("document.getElementById('bench-bare').remove(); document.querySelector('div.page').style.display = ''");
  console.log(`editor: typing in it, keystroke to painted: ${await figures("keystroke")}; for comparison, the same keys in a bare text field ` +
    `in that window: ${await figures("floor")}; in a bare contenteditable holding a copy of the document (WebKit alone): ${await figures("bare")}`);
  await driver.close();
  await driver.switchTo().window(main);
}

// 3. Team mode: the same figures for a desktop that signs in to a team server.
const server = spawn(process.env.STAFFROOM_E2E_SERVER_BIN, ["serve", "--sandbox", "--addr", "127.0.0.1:0", "--data-dir", `${dataDir}-server`], {
  env: { ...process.env, STAFFROOM_SECRET_STORE: "memory" },
  stdio: ["ignore", "pipe", "ignore"],
});
try {
  const url = await new Promise((resolve, reject) => {
    let out = "";
    server.stdout.on("data", (chunk) => {
      out += chunk;
      const found = out.match(/listening on (http:\/\/\S+)/)?.[1];
      if (found) resolve(found);
    });
    server.on("exit", (code) => reject(new Error(`staffroom serve exited (${code}): ${out}`)));
  });
  const teamDir = `${dataDir}-team`;
  const TEAM = { dir: teamDir, args: ["--data-dir", teamDir, "--server", url], ready: "//button[normalize-space()='Sign in']" };
  await launches(TEAM, "team mode: ");
  const { driver } = await launch(TEAM);
  try {
    await sleep(5_000);
    const idle = memory(teamDir);
    console.log(`team mode: memory idle at login: RSS ${idle.rss} MiB, PSS ${idle.pss} MiB (${idle.processes})`);
    await driver.findElement(By.id("email")).sendKeys("demo@staffroom.test");
    await driver.findElement(By.id("password")).sendKeys("sandbox-demo-passphrase");
    await driver.findElement(By.xpath("//button[normalize-space()='Sign in']")).click();
    await driver.wait(until.elementLocated(By.xpath("//h2[starts-with(normalize-space(),'Welcome')]")), WAIT);
    await sleep(5_000);
    const signedIn = memory(teamDir);
    console.log(`team mode: memory idle signed in (overview, live events connected): RSS ${signedIn.rss} MiB, PSS ${signedIn.pss} MiB (${signedIn.processes})`);
  } finally {
    await driver.quit();
  }
} finally {
  server.kill("SIGTERM");
}
