// Desktop figures for docs/PERFORMANCE.md, measured on the real built app in WebKit under Xvfb:
//   - launch to an interactive login screen (first launch on an empty data dir, then warm ones);
//   - memory of the whole process tree (the app and its WebKit processes), idle on the login
//     screen and after browsing 1,000 products page by page.
// Run with `tests/e2e/run --bench`, which starts the app with a 1,000-product sandbox store.
// Prints figures; asserts nothing about them (timings belong to benchmarks, not tests).

import { readFileSync, readdirSync } from "node:fs";
import { By, Capabilities, WebDriver, until } from "selenium-webdriver";
import { Executor, HttpClient } from "selenium-webdriver/http/index.js";

const app = process.env.STAFFROOM_E2E_APP;
const dataDir = process.env.STAFFROOM_E2E_DATA;
const driverUrl = process.env.STAFFROOM_E2E_DRIVER;
const LAUNCHES = Number(process.env.STAFFROOM_BENCH_LAUNCHES ?? 5);
const WAIT = 60_000;

async function launch() {
  const capabilities = new Capabilities();
  capabilities.set("tauri:options", { application: app, args: ["--sandbox", "--data-dir", dataDir] });
  const started = performance.now();
  const driver = await WebDriver.createSession(new Executor(new HttpClient(driverUrl)), capabilities);
  // Interactive: the demo button is on screen and enabled, so a click would do something.
  const demo = await driver.wait(until.elementLocated(By.xpath("//button[normalize-space()='Use demo account']")), WAIT);
  await driver.wait(until.elementIsEnabled(demo), WAIT);
  return { driver, ms: performance.now() - started };
}

/** The app's process and every process below it (WebKit's web and network processes). */
function processTree() {
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
  const root = [...commands].find(([, argv]) => argv[0] === app && argv.includes(dataDir))?.[0];
  if (!root) throw new Error("the app's process was not found");
  const tree = [root];
  for (let i = 0; i < tree.length; i++) {
    for (const [pid, ppid] of parents) if (ppid === tree[i]) tree.push(pid);
  }
  return tree;
}

/** Waits until the app of the last session has exited: a launch while it is still closing would
 *  only focus it (the app is single-instance) and open no window of its own. */
async function closed() {
  for (let i = 0; i < 100; i++) {
    try {
      processTree();
    } catch {
      return;
    }
    await sleep(100);
  }
  throw new Error("the app did not exit within 10 s of its session ending");
}

/** Sums of resident (RSS) and proportional (PSS: shared pages split between users) memory, MiB. */
function memory() {
  let rss = 0;
  let pss = 0;
  const parts = [];
  for (const pid of processTree()) {
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

// 1. Launch to an interactive login screen.
const first = await launch();
await first.driver.quit();
await closed();
const warm = [];
for (let i = 0; i < LAUNCHES; i++) {
  const run = await launch();
  warm.push(run.ms);
  await run.driver.quit();
  await closed();
}
console.log(`launch to interactive login: first launch (empty data dir) ${first.ms.toFixed(0)} ms; ` +
  `later launches median ${median(warm).toFixed(0)} ms (min ${Math.min(...warm).toFixed(0)}, max ${Math.max(...warm).toFixed(0)}, n=${warm.length})`);

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
} finally {
  await driver.quit();
}
