// End-to-end under another locale: the sandbox app started with LANG=de_DE.UTF-8 (tests/e2e/run
// starts this file in a session of its own with that environment). Money, dates and numbers are
// written as a German desktop writes them; the screens are saved as `21-de-*`.

import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { By } from "selenium-webdriver";
import { axeReport, button, click, dataDir, driver, eventually, find, goTo, shot, startApp, textOf } from "./lib.mjs";

before(async () => {
  await startApp(["--sandbox", "--data-dir", `${dataDir}-de`]);
}, { timeout: 60_000 });

after(async () => {
  await driver?.quit();
});

test("under de_DE.UTF-8 the Overview writes money, counts and dates as German does", async () => {
  assert.match(await driver.executeScript("return navigator.language"), /^de\b/i, "WebKit takes the language from the locale");
  await click(button("Use demo account"));
  await click(button("Sign in"));
  const chart = By.css("svg.chart[role='img']");
  await eventually("the daily revenue chart with sales in it", async () => /in all/.test(await (await find(chart)).getAttribute("aria-label")));
  const net = By.xpath("//*[@role='group'][.//span[starts-with(normalize-space(),'Net revenue')]]//span[contains(@class,'figure-value')]");
  // Once the first sync has read the orders (the figures are 0 until then).
  await eventually("the net revenue of the orders synced", async () => /[1-9]/.test(await textOf(net)), 60_000);
  // "12.345,67 $": a point between thousands, a comma before the cents, the sign after.
  assert.match(await textOf(net), /^-?\d{1,3}(\.\d{3})*,\d{2}\s\$$/);
  // The chart's days as German writes them ("22. Nov.").
  assert.match(await textOf(By.css("svg.chart text.chart-label")), /^\d{1,2}\. \S+$/);
  await shot("21-de-overview");
});

test("under de_DE.UTF-8 an order's amounts and times are German too", async () => {
  await goTo("Orders");
  const first = By.css("table[aria-label='Orders'] tbody tr:first-child button.row-link");
  const label = await textOf(first);
  await click(first);
  const detail = By.css(`[aria-label='Order ${label}']`);
  await eventually("the order's amounts", async () => /Total/.test(await textOf(detail)));
  assert.match(await textOf(By.css(`[aria-label='Order ${label}'] dl.amounts`)), /Total\s*\d[\d.]*,\d{2}\s\$/);
  // Times as German writes them: 28.11.2026, 14:05:00.
  assert.match(await textOf(detail), /\d{1,2}\.\d{1,2}\.\d{4}/);
  await shot("21-de-order");
});

test("no screen of the German pass has a serious or critical axe violation", () => {
  const serious = axeReport("locale");
  assert.deepEqual(serious, [], `axe (report: tests/e2e/screenshots/axe-locale.json):\n${serious.join("\n")}`);
});
