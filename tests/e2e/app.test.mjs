// End-to-end: the real built app, in sandbox mode, in a real WebKit window under Xvfb, driven
// through tauri-driver and WebKitWebDriver. One staff member's day, in order: sign in, products,
// an order paid on the sandbox checkout page, subscriptions, a document edited in its own window,
// sharing, the admin screens, sign out. Every screen is saved as a PNG in $STAFFROOM_E2E_SHOTS.
//
// Run by tests/e2e/run, which builds the app and starts Xvfb, D-Bus and tauri-driver.

import { after, before, beforeEach, test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { By, Key } from "selenium-webdriver";
import {
  button,
  click,
  closeEditor,
  dataDir,
  driver,
  eventually,
  find,
  goTo,
  literal,
  axeReport,
  mainWindow,
  saveAs,
  shot,
  startApp,
  switchToNewWindow,
  textOf,
  type,
} from "./lib.mjs";

before(async () => {
  await startApp(["--sandbox", "--data-dir", dataDir]);
}, { timeout: 60_000 });

// Each test starts from the main window, even when the one before failed inside an editor.
beforeEach(async () => {
  await driver.switchTo().window(mainWindow);
});

after(async () => {
  await driver?.quit();
});

// ---- the suite -------------------------------------------------------------------------------

let order; // { id, checkoutUrl }
let documentName;
const typed = " Checked end to end ✓ ";
const emoji = "🎉";
const addition = typed + emoji;

test("the sandbox login screen shows the demo account, and signing in opens the app", async () => {
  const demo = await find(By.css("[aria-label='Sandbox demo account']"));
  assert.match(await demo.getText(), /demo@staffroom\.test/);
  await shot("01-login");

  // A wrong password is refused with a readable message, and nothing else happens.
  await type(By.id("email"), "demo@staffroom.test");
  await type(By.id("password"), "not the password");
  await click(button("Sign in"));
  assert.match(await textOf(By.css("form[aria-label='Sign in'] [role='alert']")), /\S/);

  await click(button("Use demo account"));
  await click(button("Sign in"));
  await find(By.xpath("//h2[starts-with(normalize-space(),'Welcome')]"));
  // The store's money, from its history once the first sync has read it.
  const chart = By.css("svg.chart[role='img']");
  await eventually("the daily revenue chart with sales in it", async () => /in all/.test(await (await find(chart)).getAttribute("aria-label")));
  assert.match(await textOf(By.css("[aria-labelledby='money-title']")), /Net revenue/);
  await shot("02-overview");
});

test("products are listed and paged, and an order is created from one", async () => {
  await goTo("Products");
  const table = By.css("table[aria-label='Products'] tbody tr");
  await find(table);
  const firstPage = await textOf(By.css("table[aria-label='Products'] tbody"));
  await click(button("Next", "//nav[@aria-label='Pages']"));
  await find(By.xpath("//nav[@aria-label='Pages']/span[starts-with(normalize-space(),'Page 2 of')]"));
  await eventually("page 2's rows", async () => (await textOf(By.css("table[aria-label='Products'] tbody"))) !== firstPage);
  await shot("03-products-page-2");
  await click(button("Previous", "//nav[@aria-label='Pages']"));
  await find(By.xpath("//nav[@aria-label='Pages']/span[starts-with(normalize-space(),'Page 1 of')]"));

  // A published product, its variants and the order form.
  await click(By.css("#status-filter option[value='published']"));
  await eventually("the published filter", async () => (await driver.findElements(By.css(".status-draft"))).length === 0);
  await click(By.css("table[aria-label='Products'] tbody tr:first-child button.row-link"));
  await find(By.css("form[aria-label='Create order']"));

  // A bad email is named in place; a good one creates the checkout.
  await type(By.id("order-email"), "not an email");
  await click(button("Create order", "//form[@aria-label='Create order']"));
  await find(By.css(".field-error"));
  await type(By.id("order-email"), "e2e.buyer@example.com");
  await type(By.id("order-name"), "E2E Buyer");
  await click(button("Create order", "//form[@aria-label='Create order']"));
  const created = await find(By.css("[aria-label='Order created']"));
  const summary = await created.getText();
  const checkoutUrl = await created.findElement(By.css("code")).getText();
  const id = summary.match(/Order (\S+)/)?.[1];
  assert.ok(id, summary);
  assert.match(checkoutUrl, /^http:\/\/127\.0\.0\.1:\d+\/checkout\//);
  order = { id, checkoutUrl };
  await shot("04-order-created");
});

test("the order turns paid on screen, without a reload, when the sandbox checkout is paid", async () => {
  await goTo("Orders");
  const row = By.css(`tr[data-id='${order.id}']`);
  await find(row);
  assert.match(await textOf(By.css(`tr[data-id='${order.id}'] .status`)), /pending/);
  await click(By.css(`tr[data-id='${order.id}'] button.row-link`));
  await find(By.css(`[aria-label='Order ${order.id}']`));
  await shot("05-orders-pending");

  // A mark on the page's window object survives only if nothing reloads.
  await driver.executeScript("window.__e2eMark = 'still here'");

  // The buyer pays in their own browser: the checkout page, then its Pay form.
  const page = await fetch(order.checkoutUrl);
  assert.equal(page.status, 200);
  assert.match(await page.text(), /id="pay"/);
  // The Pay form posts to the page's own path (the checkout URL carries a signature query).
  const payUrl = new URL(order.checkoutUrl);
  payUrl.search = "";
  payUrl.pathname += "/pay";
  const paid = await fetch(payUrl, { method: "POST", redirect: "manual" });
  assert.ok(paid.status < 400, `paying answered ${paid.status}`);

  await eventually("the order row turning paid", async () => /paid/.test(await textOf(By.css(`tr[data-id='${order.id}'] .status`))));
  await eventually("the event history", async () => /order_created/.test(await textOf(By.css(`[aria-label='Order ${order.id}']`))));
  assert.equal(await driver.executeScript("return window.__e2eMark"), "still here", "the page reloaded");
  await shot("06-orders-paid");

  // The admin refunds part of it, after confirming; Lemon Squeezy's order_refunded follows.
  const detail = `//*[@aria-label=${literal(`Order ${order.id}`)}]`;
  await click(button("Refund…", detail));
  await find(By.css("[role='alertdialog'][aria-label='Refund']"));
  await type(By.css("[role='alertdialog'] input.refund-part"), "5");
  await shot("06b-order-refund-confirm");
  await click(button("Refund", "//*[@role='alertdialog']"));
  await eventually("the refund shown", async () => /Refunded \$\s?5\.00/.test(await textOf(By.xpath(detail))));
  await eventually("order_refunded in the history", async () => /order_refunded/.test(await textOf(By.xpath(detail))));
  await shot("06c-order-refunded");
});

test("the whole store's orders are there, searched and filtered, with their items and amounts", async () => {
  await goTo("Orders");
  await click(By.css("#order-status option[value='partial_refund']"));
  const storeRow = By.xpath("//table[@aria-label='Orders']//tr[@data-id][.//*[normalize-space()='storefront']]");
  await eventually("a storefront order that was partly refunded", async () => (await driver.findElements(storeRow)).length > 0);
  const first = await find(storeRow);
  const label = await first.getAttribute("data-id");
  assert.match(label, /^#\d+$/, "a storefront order goes by its receipt number");
  assert.match(await first.getText(), /partly refunded/);
  await click(By.xpath(`//tr[@data-id=${literal(label)}]//button[contains(@class,'row-link')]`));
  const detail = By.css(`[aria-label='Order ${label}']`);
  await eventually("the order's amounts", async () => /Subtotal[\s\S]*Total[\s\S]*Refunded/.test(await textOf(detail)));
  await shot("06d-orders-whole-store");
  // The filter is in the address: another screen, then Back, and the list is as it was; the
  // sidebar opens it unfiltered.
  assert.match(await driver.executeScript("return location.search"), /orders\.status=partial_refund/);
  await goTo("Customers");
  await driver.navigate().back();
  await find(By.xpath("//h1[contains(@class,'topbar-title')][normalize-space()='Orders']"));
  await eventually("the filter back", async () => (await (await find(By.id("order-status"))).getAttribute("value")) === "partial_refund");
  await find(By.xpath(`//tr[@data-id=${literal(label)}]`));
  await type(By.css("input[aria-label='Search orders']"), "no-such-buyer@nowhere.test");
  await eventually("nothing matching", async () => /No orders match/.test(await textOf(By.css("[aria-labelledby='orders-title']"))));
  await click(button("Clear"));
  await find(By.css(`tr[data-id='${order.id}']`));
});

test("the refunded orders are exported through the save dialog, and the file holds every one of them", async () => {
  await goTo("Orders");
  await click(By.css("#order-status option[value='refunded']"));
  const rows = By.xpath("//table[@aria-label='Orders']//tr[@data-id]");
  await eventually("refunded orders", async () => (await driver.findElements(rows)).length > 0);
  const shown = await textOf(By.css("[aria-labelledby='orders-title']"));
  const total = Number((shown.match(/· (\d+) orders/) ?? [])[1] ?? NaN);
  const file = join(dataDir, "..", "refunded orders.csv");
  await click(button("Export CSV"));
  await saveAs("Export CSV", file);
  const saved = await textOf(By.css("[data-testid='export-outcome']"));
  assert.match(saved, /^Saved [\d,]+ orders to /, saved);
  const text = readFileSync(file, "utf8");
  assert.ok(text.startsWith("\ufefforderNumber,reference,createdAt,status,providerStatus,customerName"), text.slice(0, 120));
  const lines = text.split("\r\n").filter(Boolean);
  assert.ok(lines.slice(1).every((line) => line.includes(",refunded,")), "only refunded orders");
  assert.equal(lines.length - 1, total, "every refunded order, past the screen's pages");
  await shot("06g-orders-exported");
  await click(By.css("#order-status option[value='']"));
});

test("a subscription is cancelled and resumed, each after a confirmation", async () => {
  await goTo("Subscriptions");
  await click(By.css("#sub-status option[value='active']"));
  const target = await find(By.xpath("//table[@aria-label='Subscriptions']//tr[@data-id][.//button[normalize-space()='Cancel']]"));
  const id = await target.getAttribute("data-id");
  await click(By.css("#sub-status option[value='']"));
  const row = `//tr[@data-id=${literal(id)}]`;

  await click(button("Cancel", row));
  await find(By.css("[role='alertdialog']"));
  await shot("07-subscription-confirm");
  await click(button("Cancel subscription", "//*[@role='alertdialog']"));
  await find(button("Resume", row));
  assert.match(await textOf(By.xpath(row)), /Cancelled/);
  await shot("08-subscription-cancelled");

  await click(button("Resume", row));
  await click(button("Resume subscription", "//*[@role='alertdialog']"));
  await find(button("Cancel", row));
  assert.doesNotMatch(await textOf(By.xpath(row)), /Cancelled/);
});

test("a subscription whose payment failed stands out, and its update-payment link is at hand", async () => {
  await goTo("Subscriptions");
  await click(By.css("#sub-status option[value='past_due']"));
  const failed = By.xpath("//table[@aria-label='Subscriptions']//tr[@data-id][.//*[normalize-space()='Past due']]");
  await eventually("past-due subscriptions only", async () => {
    const rows = await driver.findElements(By.xpath("//table[@aria-label='Subscriptions']//tr[@data-id]"));
    return rows.length > 0 && rows.length === (await driver.findElements(failed)).length;
  });
  await click(By.xpath("(//table[@aria-label='Subscriptions']//tr[@data-id])[1]//button[contains(@class,'row-link')]"));
  await find(button("Copy update-payment link"));
  assert.match(await textOf(By.css("aside.detail")), /The last payment failed/);
  await shot("08b-subscription-past-due");
  await click(By.css("#sub-status option[value='']"));
});

test("from the palette: a storefront order found by e-mail, its customer, a partial refund, and the Overview's net revenue drops", async () => {
  await goTo("Overview");
  const netRevenue = By.xpath("//*[@role='group'][.//span[starts-with(normalize-space(),'Net revenue')]]//span[contains(@class,'figure-value')]");
  await eventually("the net revenue", async () => !/…/.test(await textOf(netRevenue)));
  const before = await textOf(netRevenue);

  // A recent storefront order, paid and not refunded: its buyer's e-mail.
  await goTo("Orders");
  await click(By.css("#order-status option[value='paid']"));
  const candidate = By.xpath("//table[@aria-label='Orders']//tr[@data-id][.//*[normalize-space()='storefront']][not(.//*[contains(normalize-space(),'refunded')])]");
  await eventually("a storefront order not refunded", async () => (await driver.findElements(candidate)).length > 0);
  const row = await find(candidate);
  const label = await row.getAttribute("data-id");
  const email = await (await row.findElement(By.css("td:nth-child(2) .muted"))).getText();
  await click(By.css("#order-status option[value='']"));

  // Ctrl+K, the e-mail, Enter: the customer's page.
  await driver.actions().keyDown(Key.CONTROL).sendKeys("k").keyUp(Key.CONTROL).perform();
  const box = By.css("[role='dialog'][aria-label='Search everywhere'] input[role='combobox']");
  await type(box, email);
  await eventually("the buyer and the order in the palette", async () => {
    const text = await textOf(By.css("#palette-results"));
    return text.includes("Customer") && text.includes(label);
  });
  await shot("06g-palette");
  await (await find(box)).sendKeys(Key.ENTER);
  await eventually("the customer's page", async () => /Lifetime revenue/.test(await textOf(By.css("section.content"))));

  // Their order, refunded in part.
  await click(By.xpath(`//table[@aria-label="Customer's orders"]//button[normalize-space()=${literal(label)}]`));
  const detail = `//*[@aria-label=${literal(`Order ${label}`)}]`;
  await click(button("Refund…", detail));
  await type(By.css("[role='alertdialog'] input.refund-part"), "1,00");
  await click(button("Refund", "//*[@role='alertdialog']"));
  await eventually("the refund shown", async () => /Refunded/.test(await textOf(By.xpath(detail))));

  await goTo("Overview");
  await eventually("the net revenue a dollar lower", async () => {
    const now = await textOf(netRevenue);
    return now !== before && !/…/.test(now);
  });
});

test("with the keyboard alone: the palette finds a customer, part of their order is refunded, and the Overview's net revenue drops", async () => {
  // Every press of a mouse button or pointer from here on is counted: there must be none.
  await driver.executeScript(`
    window.__presses = 0;
    for (const type of ["pointerdown", "mousedown", "contextmenu"]) addEventListener(type, () => { window.__presses += 1; }, true);`);
  const keys = (...sequence) => driver.actions().sendKeys(...sequence).perform();
  const focused = (check) => driver.executeScript(`const element = document.activeElement; return Boolean(element && (${check}));`);
  // Tab, as a person would, until focus is on what `check` (a script over `element`) describes.
  const tabTo = async (what, check, most = 80) => {
    for (let n = 0; n < most; n++) {
      if (await focused(check)) return;
      await keys(Key.TAB);
    }
    throw new Error(`Tab never reached ${what}`);
  };
  // Ctrl+K, `text`, and Enter once the palette's first choice is `first`.
  const palette = async (text, first) => {
    await driver.actions().keyDown(Key.CONTROL).sendKeys("k").keyUp(Key.CONTROL).perform();
    await find(By.css("[role='dialog'][aria-label='Search everywhere'] input[role='combobox']"));
    assert.ok(await focused("element.getAttribute('role') === 'combobox'"), "the palette's box has the caret");
    await keys(text);
    await eventually(`“${first}” first in the palette`, async () =>
      (await textOf(By.css("#palette-results [role='option'][aria-selected='true']"))).includes(first));
    await keys(Key.ENTER);
  };

  await palette("Overview", "Overview");
  await find(By.xpath("//h1[contains(@class,'topbar-title')][normalize-space()='Overview']"));
  const netRevenue = By.xpath("//*[@role='group'][.//span[starts-with(normalize-space(),'Net revenue')]]//span[contains(@class,'figure-value')]");
  await eventually("the net revenue", async () => !/…/.test(await textOf(netRevenue)));
  const before = await textOf(netRevenue);

  // A storefront order, paid and not refunded, read off the Orders screen: its number and e-mail.
  await palette("Orders", "Orders");
  const candidate = By.xpath("//table[@aria-label='Orders']//tr[@data-id][.//*[normalize-space()='storefront']][.//span[contains(@class,'status')][normalize-space()='paid']][not(.//*[contains(normalize-space(),'refunded')])]");
  const row = await find(candidate);
  const label = await row.getAttribute("data-id");
  const email = await (await row.findElement(By.css("td:nth-child(2) .muted"))).getText();

  // The customer, by e-mail; on their page, Tab to the order, Enter: its panel takes focus.
  await palette(email, email);
  await eventually("the customer's page", async () => /Lifetime revenue/.test(await textOf(By.css("section.content"))));
  await tabTo(`the order ${label}`, `element.closest('table[aria-label^="Customer"]') && element.textContent.trim() === ${JSON.stringify(label)}`);
  await keys(Key.ENTER);
  await eventually("the order's panel focused", async () => focused(`element.getAttribute("aria-label") === ${JSON.stringify(`Order ${label}`)}`));

  // Tab to Refund…, where the focus ring shows; Enter, the amount, Enter.
  await tabTo("Refund…", `element.textContent === "Refund…" && element.closest("aside")`, 20);
  assert.ok(await focused(`getComputedStyle(element).outlineStyle !== "none"`), "a focus ring on the focused button");
  await shot("06k-keyboard-refund-focus");
  await keys(Key.ENTER);
  await eventually("the amount's caret", async () => focused(`element.classList.contains("refund-part")`));
  await keys("1,00");
  await eventually("the amount in the question", async () => /Refund \$1\.00 to /.test(await textOf(By.css("[role='alertdialog']"))));
  await keys(Key.ENTER);
  const detail = By.xpath(`//*[@aria-label=${literal(`Order ${label}`)}]`);
  await eventually("the refund shown", async () => /Refunded/.test(await textOf(detail)));
  await eventually("focus back on the panel's Refund… button", async () => focused(`element.textContent === "Refund…"`));

  await palette("Overview", "Overview");
  await eventually("the net revenue a dollar lower", async () => {
    const now = await textOf(netRevenue);
    return now !== before && !/…/.test(now);
  });
  assert.equal(await driver.executeScript("return window.__presses"), 0, "no mouse or pointer press");
});

test("a renewal is refunded in part from its customer's page, and its subscription shows the refund", async () => {
  await goTo("Subscriptions");
  await click(By.css("#sub-status option[value='active']"));
  const subscriptions = By.xpath("//table[@aria-label='Subscriptions']//tr[@data-id]");
  await eventually("live subscriptions", async () => (await driver.findElements(subscriptions)).length > 0);
  // A subscription with a paid renewal (a yearly plan has had none yet): its invoices say so.
  const paidRenewal = "//tr[@data-id][contains(normalize-space(.),'Renewal')][.//*[normalize-space()='Paid']]";
  let found = false;
  for (let n = 1; n <= 10 && !found; n++) {
    const row = await find(By.xpath(`(//table[@aria-label='Subscriptions']//tr[@data-id])[${n}]`));
    const aside = `//aside[@aria-label=${literal(`Subscription ${await row.getAttribute("data-id")}`)}]`;
    await click(By.xpath(`(//table[@aria-label='Subscriptions']//tr[@data-id])[${n}]//button[contains(@class,'row-link')]`));
    await find(By.xpath(`${aside}//table[@aria-label="Subscription's invoices"] | ${aside}//*[normalize-space()='No invoices yet.']`));
    found = (await driver.findElements(By.xpath(`${aside}//table[@aria-label="Subscription's invoices"]${paidRenewal}`))).length > 0;
  }
  assert.ok(found, "a live subscription with a paid renewal");
  await shot("08c-subscription-invoices");
  await click(By.xpath("//aside[contains(@class,'detail')]//a[contains(@href,'customers')]"));
  await eventually("the customer's page", async () => /Lifetime revenue/.test(await textOf(By.css("section.content"))));

  const invoices = `//table[@aria-label="Customer's invoices"]`;
  const renewal = await find(By.xpath(`(${invoices}${paidRenewal})[1]`));
  const id = await renewal.getAttribute("data-id");
  const row = `${invoices}//tr[@data-id=${literal(id)}]`;
  await click(By.xpath(`${row}//button[starts-with(@aria-label,'Refund the invoice')]`));
  await type(By.css("[role='alertdialog'] input.refund-part"), "2,50");
  await eventually("the amount in the question", async () => /Refund .*2[.,]50 to /.test(await textOf(By.css("[role='alertdialog']"))));
  await shot("06h-customer-invoice-refund");
  await click(button("Refund", "//*[@role='alertdialog']"));
  await eventually("the renewal partly refunded", async () => {
    const text = await textOf(By.xpath(row));
    return /Partly refunded/.test(text) && /2[.,]50 refunded/.test(text);
  });
  await shot("06i-customer-invoices");
});

test("a licence key is found by its customer's e-mail, shown whole with its machines, and disabled", async () => {
  await goTo("Licence keys");
  await click(By.css("#key-status option[value='active']"));
  const rows = By.xpath("//table[@aria-label='Licence keys']//tr[@data-id]");
  await eventually("active keys only", async () => {
    const all = await driver.findElements(rows);
    const active = await driver.findElements(By.xpath("//table[@aria-label='Licence keys']//tr[@data-id][.//*[normalize-space()='Active']]"));
    return all.length > 0 && all.length === active.length;
  });
  const first = await find(By.xpath("(//table[@aria-label='Licence keys']//tr[@data-id])[1]"));
  const id = await first.getAttribute("data-id");
  const email = await textOf(By.xpath(`//tr[@data-id=${literal(id)}]/td[2]/div[contains(@class,'muted')]`));
  await type(By.css("input[aria-label='Search licence keys']"), email);
  const row = `//table[@aria-label='Licence keys']//tr[@data-id=${literal(id)}]`;
  await eventually("that customer's keys alone", async () => {
    const shown = await driver.findElements(rows);
    const theirs = await driver.findElements(By.xpath(`//table[@aria-label='Licence keys']//tr[@data-id][.//*[normalize-space()=${literal(email)}]]`));
    return shown.length > 0 && shown.length === theirs.length && (await driver.findElements(By.xpath(row))).length === 1;
  });
  // Every status again: a key disabled below stays in the list.
  await click(By.css("#key-status option[value='']"));
  await click(By.xpath(`${row}//button[starts-with(@aria-label,'Key and machines')]`));
  await eventually("the whole key and its machines", async () => /since/.test(await textOf(By.css("[aria-label='The whole key']"))));
  await shot("09a-licence-key-whole");
  await click(By.xpath(`${row}//button[starts-with(@aria-label,'Disable')]`));
  await click(By.xpath(`${row}//*[@role='group']//button[normalize-space()='Disable']`));
  await eventually("the key disabled", async () => /Disabled/.test(await textOf(By.xpath(row))) && /Enable/.test(await textOf(By.xpath(row))));
  await shot("09b-licence-key-disabled");
});

test("a discount is made, a checkout paid with its code, and the order shows the discount", async () => {
  await goTo("Discounts");
  await find(By.xpath("//table[@aria-label='Discounts']//tr[@data-id]"));
  await click(button("New discount"));
  const form = "//form[@aria-label='New discount']";
  await type(By.id("discount-name"), "E2E autumn");
  await type(By.id("discount-code"), "launch10");
  await type(By.id("discount-amount"), "20");
  await click(button("Create discount", form));
  // A code already in use is refused on its field.
  await eventually("the code refused", async () => /already the code of/.test(await textOf(By.xpath(form))));
  await shot("09c-discount-code-in-use");
  await driver.findElement(By.id("discount-code")).clear();
  await type(By.id("discount-code"), "autumn20");
  await click(button("Create discount", form));
  const row = "//table[@aria-label='Discounts']//tr[@data-id][.//code[normalize-space()='AUTUMN20']]";
  await eventually("the new discount listed", async () => (await driver.findElements(By.xpath(row))).length === 1);
  assert.match(await textOf(By.xpath(row)), /20 %/);

  // An order of the first published product, with the code, paid at the sandbox checkout.
  await goTo("Products");
  await click(By.css("#status-filter option[value='published']"));
  await eventually("the published filter", async () => (await driver.findElements(By.css(".status-draft"))).length === 0);
  await click(By.css("table[aria-label='Products'] tbody tr:first-child button.row-link"));
  await find(By.css("form[aria-label='Create order']"));
  await type(By.id("order-email"), "e2e.discount@example.com");
  await type(By.id("order-discount"), "autumn20");
  await click(button("Create order", "//form[@aria-label='Create order']"));
  const created = await find(By.css("[aria-label='Order created']"));
  const id = (await created.getText()).match(/Order (\S+)/)?.[1];
  const checkoutUrl = await created.findElement(By.css("code")).getText();
  const page = await (await fetch(checkoutUrl)).text();
  assert.match(page, /Discount AUTUMN20/, "the checkout shows the discount");
  const payUrl = new URL(checkoutUrl);
  payUrl.search = "";
  payUrl.pathname += "/pay";
  assert.ok((await fetch(payUrl, { method: "POST", redirect: "manual" })).status < 400);

  await goTo("Orders");
  await click(By.css(`tr[data-id='${id}'] button.row-link`));
  const detail = By.css(`[aria-label='Order ${id}']`);
  await eventually("the paid order with its discount", async () => /paid/.test(await textOf(detail)) && /Discount/.test(await textOf(detail)));
  await shot("09d-order-with-discount");

  // Sync now, from the palette: the discount then shows the order that used it.
  await goTo("Discounts");
  await driver.actions().keyDown(Key.CONTROL).sendKeys("k").keyUp(Key.CONTROL).perform();
  await type(By.css("[role='dialog'][aria-label='Search everywhere'] input[role='combobox']"), "Sync now" + Key.ENTER);
  await click(By.xpath(`${row}//button`));
  await eventually("the redemption after the sync", async () =>
    /e2e\.discount@example\.com/.test(await textOf(By.xpath("//section[@aria-labelledby='discounts-title']"))));
  await shot("09e-discount-redemptions");
});

/** The desktop's notifications so far, as the session's notification server (the run's
 *  python-dbusmock `notification_daemon`) recorded them, in order: its ids count from 1, one per
 *  notification. Each is the text gdbus prints of the call (its quoting varies with the text). */
function notificationsShown() {
  const calls = execFileSync("gdbus", ["call", "--session", "-d", "org.freedesktop.Notifications", "-o", "/org/freedesktop/Notifications",
    "-m", "org.freedesktop.DBus.Mock.GetMethodCalls", "Notify"], { encoding: "utf8" });
  // ([(uint64 time, [<'app'>, …]), (time, [<'app'>, …])],): one "(time, [" per call.
  return calls.split(/\((?:uint64 )?\d+, \[/).slice(1);
}

test("a renewal that fails is told by a desktop notification, and clicking it opens the subscription", async () => {
  await goTo("Overview");
  // The sandbox's Lemon Squeezy declines the next renewal of one of the store's subscriptions.
  const sandbox = new URL(order.checkoutUrl).origin;
  const failed = await (await fetch(`${sandbox}/__sandbox/renewal-failed`, { method: "POST", headers: { "content-type": "application/json" }, body: "{}" })).json();
  assert.ok(failed.subscriptionId, JSON.stringify(failed));
  let id = 0;
  await eventually("the payment-failed notification", async () => {
    id = notificationsShown().findIndex((call) => call.includes("'Subscription payment failed'")) + 1;
    return id > 0;
  });
  assert.match(notificationsShown()[id - 1], /\['default', ''\]/, "the notification can be clicked");
  // An earlier test paid an order: it was told too.
  assert.ok(notificationsShown().some((call) => call.includes("'Order paid: ")), notificationsShown().join("\n"));
  await shot("09f-before-notification-click");
  // The click: the notification server says its default action was invoked.
  execFileSync("gdbus", ["call", "--session", "-d", "org.freedesktop.Notifications", "-o", "/org/freedesktop/Notifications",
    "-m", "org.freedesktop.DBus.Mock.EmitSignal", "org.freedesktop.Notifications", "ActionInvoked", "us", `[<uint32 ${id}>, <"default">]`]);
  const panel = By.css(`[aria-label='Subscription ${failed.subscriptionId}']`);
  await eventually("the subscription opened", async () => /past due|Payment due|failed/i.test(await textOf(panel)));
  await shot("09g-notification-opened-subscription");
});

test("a customer is found by e-mail and opens with their orders, subscriptions and revenue", async () => {
  await goTo("Customers");
  const rows = By.xpath("//table[@aria-label='Customers']//tr[@data-id]");
  await eventually("the store's customers", async () => (await driver.findElements(rows)).length > 0);
  await shot("06e-customers");
  const email = (await textOf(By.xpath("(//table[@aria-label='Customers']//tr[@data-id])[1]//div[contains(@class,'muted')]"))).split(" · ")[0];
  await type(By.css("input[aria-label='Search customers']"), email.toUpperCase());
  await eventually("that customer alone", async () => (await driver.findElements(rows)).length === 1);
  await click(By.xpath("//table[@aria-label='Customers']//button[contains(@class,'row-link')]"));
  await eventually("the customer's page", async () => /Lifetime revenue/.test(await textOf(By.css("section.content"))));
  assert.ok((await textOf(By.css("section.content"))).includes(email));
  await find(button("Copy portal link"));
  await shot("06f-customer");
  // The back button returns to the list.
  await driver.navigate().back();
  await find(By.css("input[aria-label='Search customers']"));
});

test("a document opens in its own editor window, and text with an emoji is saved and read back", async () => {
  await goTo("Documents");
  const edit = await find(By.css("table[aria-label='Documents'] tbody tr:first-child button[aria-label^='Edit ']"));
  documentName = (await edit.getAttribute("aria-label")).replace(/^Edit /, "");
  const documentRow = By.xpath(`//table[@aria-label='Documents']//tr[.//button[@aria-label=${literal(`Edit ${documentName}`)}]]`);
  const rowBefore = await textOf(documentRow);
  await shot("09-documents");
  await edit.click();

  await switchToNewWindow([mainWindow]);
  await find(By.css("main.editor"));
  // One editing surface: click into the first paragraph, type at its end.
  const page = await find(By.css("div.page[role='textbox']"));
  const paragraph = await find(By.css("div.page .para"));
  const before = await paragraph.getText();
  await paragraph.click();
  // Typed key by key; the emoji arrives as an emoji picker or input method delivers it, one
  // inserted text (WebKitWebDriver's key events cannot carry characters outside the BMP).
  await page.sendKeys(Key.END, typed);
  await driver.executeScript("document.execCommand('insertText', false, arguments[0])", emoji);
  // The emoji in bold, from the toolbar: select it (two UTF-16 units) and press B.
  await page.sendKeys(Key.chord(Key.SHIFT, Key.ARROW_LEFT));
  await click(By.css("div[role='toolbar'] button[aria-label='Bold']"));
  assert.equal(await (await find(By.css("div[role='toolbar'] button[aria-label='Bold']"))).getAttribute("aria-pressed"), "true");
  await find(By.xpath(`//div[contains(@class,'page')]//strong[contains(., ${literal(emoji)})]`));
  await find(By.xpath("//*[@role='status'][normalize-space()='Unsaved changes']"));
  await shot("10-editor-unsaved");
  await click(button("Save"));
  await find(By.xpath("//*[@role='status'][normalize-space()='All changes saved']"));
  await shot("11-editor-saved");

  // Close the window, open the document again: the text is read back from Google (the simulator).
  await closeEditor();
  await click(By.css(`button[aria-label=${literal(`Edit ${documentName}`)}]`));
  await switchToNewWindow([mainWindow]);
  const reread = By.css("div.page .para");
  let seen;
  await eventually("the saved text", async () => (seen = await textOf(reread)) === before + addition).catch((err) => {
    throw new Error(`${err.message}; the paragraph reads ${JSON.stringify(seen)}, expected ${JSON.stringify(before + addition)}`);
  });
  // The bold emoji came back from Google as bold, and the table is where it was.
  await find(By.xpath(`//div[contains(@class,'page')]//strong[contains(., ${literal(emoji)})]`));
  assert.ok(await (await find(By.css("div.page table"))).isDisplayed());
  // A window just opened in the background can be captured before it paints what is already
  // in its page (the table was found displayed above, yet missing from the picture): let it paint.
  await driver.sleep(500);
  await shot("12-editor-reopened");
  await closeEditor();
  // The main window heard of the save: the row shows the new modified time, without a reload.
  await eventually("the list's new modified time", async () => (await textOf(documentRow)) !== rowBefore);
});

test("the document is shared with a colleague", async () => {
  await click(By.css(`button[aria-label=${literal(`Share ${documentName}`)}]`));
  const form = `//form[@aria-label=${literal(`Share ${documentName}`)}]`;
  await find(By.xpath(form));
  await type(By.xpath(`${form}//input[@type='email']`), "colleague@example.com");
  await click(button("Share", form));
  await find(By.xpath(`${form}//*[@role='status']`));
  await shot("13-document-shared");
  await click(button("Done", form));
});

test("a document holding more than text opens as it is, and one shared to view only opens read-only", async () => {
  await goTo("Documents");
  const folder = (id) => click(By.css(`#folder-filter option[value='${id}']`));
  await folder("fld_operations");
  await click(By.css(`button[aria-label=${literal("Edit Quarterly plan 1")}]`));
  await switchToNewWindow([mainWindow]);
  await find(By.css("main.editor"));
  // A soft line break (Shift+Enter in Google Docs) is a line inside its paragraph; paragraphs
  // holding a suggestion, an image or an anchored object are shown as they are, saying why.
  const soft = await find(By.xpath("//*[contains(concat(' ', @class, ' '), ' para ')][contains(., 'announce on Wednesday')]"));
  assert.match(await soft.getText(), /Ship on Tuesday\s*\n\s*announce on Wednesday/);
  await find(By.xpath("//p[@aria-label='Read-only paragraph'][contains(., 'Pending suggestion')]//ins"));
  await find(By.xpath("//span[contains(@class,'object-placeholder')][contains(., 'Team photo')]"));
  await find(By.xpath("//span[contains(@class,'object-placeholder')][contains(., 'Floor plan')]"));
  await shot("13a-editor-rich-document");
  // Its checklist is a list: a new item after the last, nested with Tab, saved and read back.
  const item = (text, marker) =>
    By.xpath(`//*[contains(concat(' ', @class, ' '), ' li ')][@data-marker=${literal(marker)}][contains(., ${literal(text)})]`);
  await click(item("Order the coffee", "●"));
  await (await find(By.css("div.page[role='textbox']"))).sendKeys(Key.END, Key.ENTER, "Print the badges", Key.TAB);
  await find(item("Print the badges", "○"));
  assert.equal(await (await find(By.css("div[role='toolbar'] button[aria-label='Bulleted list']"))).getAttribute("aria-pressed"), "true");
  await shot("13c-editor-list");
  await click(button("Save"));
  await find(By.xpath("//*[@role='status'][normalize-space()='All changes saved']"));
  await closeEditor();
  await click(By.css(`button[aria-label=${literal("Edit Quarterly plan 1")}]`));
  await switchToNewWindow([mainWindow]);
  await find(item("Print the badges", "○"));
  await find(item("Book the venue", "●"));
  // The rest of the document is untouched.
  await find(By.xpath("//span[contains(@class,'object-placeholder')][contains(., 'Floor plan')]"));
  await closeEditor();

  await folder("fld_support");
  // A document shared to view only is opened, not edited.
  await click(By.css(`button[aria-label=${literal("Open Pricing review 6 (view only)")}]`));
  await switchToNewWindow([mainWindow]);
  await find(By.xpath("//*[@role='status'][contains(., 'view access only')]"));
  assert.equal((await driver.findElements(button("Save"))).length, 0, "nothing to save in a read-only document");
  await shot("13b-editor-view-only");
  await closeEditor();
  await folder("");
  // Found by a word of its name, as Drive finds it.
  await type(By.css("input[aria-label='Search documents by name']"), "pricing");
  await eventually("only the pricing reviews", async () => {
    const names = await driver.findElements(By.css("table[aria-label='Documents'] tbody td:first-child"));
    const texts = await Promise.all(names.map((n) => n.getText()));
    return texts.length > 0 && texts.every((t) => /^Pricing review/.test(t));
  });
  await shot("13d-documents-search");
  // Emptied as a person would (a WebDriver clear does not tell the page).
  await (await find(By.css("input[aria-label='Search documents by name']"))).sendKeys(Key.chord(Key.CONTROL, "a"), Key.BACK_SPACE);
  await eventually("every document again", async () => {
    const names = await driver.findElements(By.css("table[aria-label='Documents'] tbody td:first-child"));
    const texts = await Promise.all(names.map((n) => n.getText()));
    return texts.some((t) => !/^Pricing review/.test(t));
  });
});

/** The Google simulator's address, as Settings names it. */
async function googleSimulator() {
  await goTo("Settings");
  const simulators = await textOf(By.css("[aria-label='Simulators']"));
  const google = simulators.match(/Google at (http:\/\/127\.0\.0\.1:\d+)/)?.[1];
  assert.ok(google, simulators);
  return google;
}

/** Opens a document found by its name in its editor window. */
async function openForEditing(name) {
  await goTo("Documents");
  await type(By.css("input[aria-label='Search documents by name']"), name);
  await click(By.css(`button[aria-label=${literal(`Edit ${name}`)}]`));
  await switchToNewWindow([mainWindow]);
  return find(By.css("div.page[role='textbox']"));
}

const para = (text) =>
  By.xpath(`//div[contains(@class,'page')]//*[contains(concat(' ', @class, ' '), ' para ')][contains(., ${literal(text)})]`);
const cellsOfLastRow = By.xpath("//div[contains(@class,'page')]//table//tr[last()]/td");

/** The paragraph holding `text`, centred. */
const centred = (text) =>
  By.xpath(`//div[contains(@class,'page')]//*[contains(concat(' ', @class, ' '), ' para ')][contains(@style, 'text-align: center')][contains(., ${literal(text)})]`);

test("bold, a link, centring, a list and a table row, made with the keyboard, are saved and read back, in the app and in Google's copy", async () => {
  const google = await googleSimulator();
  const id = "doc005sbxA1b2C3d4E5f6G7h8";
  const page = await openForEditing("Supplier notes 5");
  // The first `n` characters of the paragraph holding the caret, selected as a person would.
  const selectFromStart = async (n) => {
    await page.sendKeys(Key.HOME);
    await driver.actions().keyDown(Key.SHIFT).sendKeys(...Array(n).fill(Key.ARROW_RIGHT)).keyUp(Key.SHIFT).perform();
  };
  // "Next" in bold with Ctrl+B.
  await click(para("Next steps"));
  await selectFromStart(4);
  await page.sendKeys(Key.chord(Key.CONTROL, "b"));
  await find(By.xpath("//div[contains(@class,'page')]//strong[normalize-space()='Next']"));
  // Its heading centred with Ctrl+Shift+E, as in Google Docs; the toolbar's menu says so.
  await page.sendKeys(Key.chord(Key.CONTROL, Key.SHIFT, "e"));
  await find(centred("Next steps"));
  await click(By.css("div[role='toolbar'] button[aria-label='Alignment: Centre align']"));
  await find(By.xpath("//div[@role='menu']//*[@role='menuitemradio'][@aria-checked='true'][contains(., 'Centre align')]"));
  await shot("13e-editor-alignment-menu");
  await driver.actions().sendKeys(Key.ESCAPE).perform();
  await eventually("the menu closed", async () => (await driver.findElements(By.css("div[role='menu']"))).length === 0);
  // "Reply" linked with Ctrl+K.
  await click(para("Reply in the thread"));
  await selectFromStart(5);
  await page.sendKeys(Key.chord(Key.CONTROL, "k"));
  await (await find(By.css("#link-url"))).sendKeys("example.com/replies", Key.ENTER);
  await find(By.xpath("//div[contains(@class,'page')]//a[@href='https://example.com/replies'][normalize-space()='Reply']"));
  // Two paragraphs made a bulleted list with Ctrl+Shift+8.
  await click(para("The café order"));
  await driver.actions().keyDown(Key.SHIFT).click(await find(para("Escalate anything"))).keyUp(Key.SHIFT).perform();
  await page.sendKeys(Key.chord(Key.CONTROL, Key.SHIFT, "8"));
  const bullets = By.css("div.page .li-bullet");
  await eventually("two bulleted items", async () => (await driver.findElements(bullets)).length === 2);
  // A row added below the last, and typed in: Tab goes from cell to cell.
  await click(By.xpath("//div[contains(@class,'page')]//td[normalize-space()='250']"));
  await click(By.css("div[role='toolbar'] button[aria-label='Insert row below']"));
  await page.sendKeys(Key.TAB, "Tea", Key.TAB, "5");
  await eventually("the new row's text", async () => (await Promise.all((await driver.findElements(cellsOfLastRow)).map((c) => c.getText()))).join("|") === "Tea|5");
  await shot("13e-editor-toolbar-list-table");
  // Saved with Ctrl+S.
  await page.sendKeys(Key.chord(Key.CONTROL, "s"));
  await find(By.xpath("//*[@role='status'][normalize-space()='All changes saved']"));
  // Undo after the save takes the typing back, redo brings it again; nothing is lost.
  await page.sendKeys(Key.chord(Key.CONTROL, "z"));
  await find(By.xpath("//*[@role='status'][normalize-space()='Unsaved changes']"));
  await eventually("the typing undone", async () => !(await textOf(cellsOfLastRow)).includes("5"));
  await page.sendKeys(Key.chord(Key.CONTROL, Key.SHIFT, "z"));
  await eventually("the typing redone", async () => (await Promise.all((await driver.findElements(cellsOfLastRow)).map((c) => c.getText()))).join("|") === "Tea|5");
  await page.sendKeys(Key.chord(Key.CONTROL, "s"));
  await find(By.xpath("//*[@role='status'][normalize-space()='All changes saved']"));
  await closeEditor();

  // Opened again: all of it came back from Google.
  await openForEditing("Supplier notes 5");
  await find(By.xpath("//div[contains(@class,'page')]//strong[normalize-space()='Next']"));
  await find(centred("Next steps"));
  await find(By.xpath("//div[contains(@class,'page')]//a[@href='https://example.com/replies'][normalize-space()='Reply']"));
  await eventually("two bulleted items", async () => (await driver.findElements(bullets)).length === 2);
  assert.equal((await Promise.all((await driver.findElements(cellsOfLastRow)).map((c) => c.getText()))).join("|"), "Tea|5");
  await closeEditor();
  // And Google's own copy (the simulator's, read over HTTP) holds them as Docs does.
  const copy = await (await fetch(`${google}/__sandbox/documents/${id}`)).json();
  const content = copy.body.content;
  const runs = content.flatMap((e) => e.paragraph?.elements ?? []).map((e) => e.textRun).filter(Boolean);
  assert.ok(runs.some((r) => r.content === "Next" && r.textStyle?.bold), JSON.stringify(runs));
  assert.ok(runs.some((r) => r.content === "Reply" && r.textStyle?.link?.url === "https://example.com/replies"), JSON.stringify(runs));
  const heading = content.find((e) => e.paragraph?.elements.some((x) => x.textRun?.content.startsWith("Next")));
  assert.equal(heading.paragraph.paragraphStyle.alignment, "CENTER", JSON.stringify(heading));
  assert.equal(content.filter((e) => e.paragraph?.bullet).length, 2);
  const rows = content.find((e) => e.table).table.tableRows;
  const text = (cell) => cell.content.map((e) => e.paragraph.elements.map((x) => x.textRun?.content ?? "").join("")).join("");
  assert.deepEqual(rows[rows.length - 1].tableCells.map(text), ["Tea\n", "5\n"]);
});

test("an item added with Enter to a nested list keeps Google's list: its id and every level's glyph, and runs keep their looks", async () => {
  const google = await googleSimulator();
  const id = "doc004sbxA1b2C3d4E5f6G7h8";
  const before = await (await fetch(`${google}/__sandbox/documents/${id}`)).json();
  const page = await openForEditing("Onboarding guide 4");
  // The list is drawn as the document says: numbers, then the circle chosen by hand, then roman.
  await find(By.xpath("//div[contains(@class,'page')]//*[@data-marker='○'][contains(., 'Accounts')]"));
  // Looks the editor does not edit, shown as Google holds them: a raised mark, a red word.
  const raised = await find(By.xpath("//div[contains(@class,'page')]//span[contains(@class,'look')][normalize-space()='1']"));
  assert.equal(await driver.executeScript("return getComputedStyle(arguments[0]).verticalAlign", raised), "super");
  const red = await find(By.xpath("//div[contains(@class,'page')]//span[contains(@class,'look')][normalize-space()='security notes']"));
  assert.equal(await driver.executeScript("return getComputedStyle(arguments[0]).color", red), "rgb(204, 0, 0)");
  await click(para("E-mail and calendar"));
  await page.sendKeys(Key.END, Key.ENTER, "Payroll and expenses");
  await shot("13g-editor-nested-list-item");
  await page.sendKeys(Key.chord(Key.CONTROL, "s"));
  await find(By.xpath("//*[@role='status'][normalize-space()='All changes saved']"));
  await closeEditor();
  // Google's copy: the new item is in the same list at the same level, and the list is the one
  // it was, glyphs and all; no list was made anew.
  const after = await (await fetch(`${google}/__sandbox/documents/${id}`)).json();
  assert.deepEqual(Object.keys(after.lists), Object.keys(before.lists));
  assert.deepEqual(after.lists, before.lists);
  const items = after.body.content.filter((e) => e.paragraph?.bullet);
  assert.equal(items.length, 9);
  assert.ok(items.every((e) => e.paragraph.bullet.listId === "kix.sbxonboard1"), JSON.stringify(items.map((e) => e.paragraph.bullet)));
  const textOfItem = (e) => e.paragraph.elements.map((x) => x.textRun?.content ?? "").join("");
  assert.deepEqual(items.map((e) => [textOfItem(e), e.paragraph.bullet.nestingLevel ?? 0]).slice(2, 5), [
    ["E-mail and calendar\n", 2],
    ["Payroll and expenses\n", 2],
    ["Lemon Squeezy (support role)\n", 2],
  ]);
});

test("a title without an alignment of its own is centred as the document's Title style says", async () => {
  await openForEditing("Launch checklist 2");
  const title = await find(By.css("div.page .para-TITLE"));
  assert.ok(!((await title.getAttribute("style")) ?? "").includes("text-align"), "no alignment of its own");
  assert.equal(await driver.executeScript("return getComputedStyle(arguments[0]).textAlign", title), "center");
  await click(By.css("div.page .para-TITLE"));
  await find(By.css("div[role='toolbar'] button[aria-label='Alignment: Centre align']"));
  await shot("13h-editor-centred-title-style");
  await closeEditor();
});

test("a document of several tabs opens on its first; another tab is chosen, edited and saved into that tab of Google's copy", async () => {
  const google = await googleSimulator();
  const id = "doc009sbxA1b2C3d4E5f6G7h8";
  await openForEditing("Meeting notes 9");
  const bar = By.css("nav[aria-label='Tabs of this document']");
  assert.match(await textOf(bar), /Tab 1[\s\S]*Decisions[\s\S]*Action items/);
  await find(para("Meeting notes 9"));
  await click(button("Decisions", "//nav[@aria-label='Tabs of this document']"));
  await find(By.xpath("//nav[@aria-label='Tabs of this document']//button[@aria-current='page'][normalize-space()='Decisions']"));
  // The tab's own page, made afresh.
  await click(para("Refunds within 30 days"));
  const tabPage = await find(By.css("div.page[role='textbox']"));
  await tabPage.sendKeys(Key.END, " (agreed)");
  await shot("13i-editor-tabs");
  await tabPage.sendKeys(Key.chord(Key.CONTROL, "s"));
  await find(By.xpath("//*[@role='status'][normalize-space()='All changes saved']"));
  await closeEditor();
  // Google's copy: the words are in the Decisions tab, and the first tab does not have them.
  const copy = await (await fetch(`${google}/__sandbox/documents/${id}?includeTabsContent=true`)).json();
  const text = (tab) => tab.documentTab.body.content.flatMap((e) => e.paragraph?.elements ?? []).map((x) => x.textRun?.content ?? "").join("");
  const decisions = copy.tabs.find((t) => t.tabProperties.title === "Decisions");
  assert.ok(text(decisions).includes("Refunds within 30 days stay free of questions. (agreed)"), text(decisions));
  assert.ok(!text(copy.tabs[0]).includes("(agreed)"), "the first tab is as it was");
});

test("a cell changed here and by a collaborator at once is a conflict shown side by side, and mine can win", async () => {
  const google = await googleSimulator();
  const id = "doc007sbxA1b2C3d4E5f6G7h8";
  const page = await openForEditing("Release notes 7");
  await click(By.xpath("//div[contains(@class,'page')]//td[normalize-space()='Units']"));
  await page.sendKeys(Key.END, " (boxes)");
  // Meanwhile a collaborator renames the same column in Google Docs.
  const copy = await (await fetch(`${google}/__sandbox/documents/${id}`)).json();
  const units = copy.body.content.find((e) => e.table).table.tableRows[0].tableCells[1].content[0].endIndex - 1;
  const edit = await fetch(`${google}/__sandbox/documents/${id}`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ requests: [{ insertText: { location: { index: units }, text: " sold" } }] }),
  });
  assert.equal(edit.status, 200, await edit.text());
  await page.sendKeys(Key.chord(Key.CONTROL, "s"));
  const conflict = await find(By.css("section[aria-label='Conflict']"));
  assert.match(await conflict.getText(), /Units sold/);
  assert.match(await conflict.getText(), /Units \(boxes\)/);
  await shot("13f-editor-conflict");
  await click(button("Use mine", "//section[@aria-label='Conflict']"));
  // The editor starts again from the chosen blocks: a new editing surface.
  await (await find(By.css("div.page[role='textbox']"))).sendKeys(Key.chord(Key.CONTROL, "s"));
  await find(By.xpath("//*[@role='status'][normalize-space()='All changes saved']"));
  await closeEditor();
  const saved = await (await fetch(`${google}/__sandbox/documents/${id}`)).json();
  const header = saved.body.content.find((e) => e.table).table.tableRows[0].tableCells[1].content[0].paragraph.elements;
  assert.equal(header.map((e) => e.textRun.content).join(""), "Units (boxes)\n");
  // The list shows every document again (emptied as a person would).
  await goTo("Documents");
  await (await find(By.css("input[aria-label='Search documents by name']"))).sendKeys(Key.chord(Key.CONTROL, "a"), Key.BACK_SPACE);
});

test("a welcome letter is made from a customer's page, opens in the editor filled in, and downloads as a PDF", async () => {
  await goTo("Customers");
  await click(By.xpath("(//table[@aria-label='Customers']//button[contains(@class,'row-link')])[1]"));
  const name = await textOf(By.css("#customer-title"));
  await click(button("New document from template"));
  await click(By.xpath("//select[@id='template-choice']/option[normalize-space()='Welcome letter']"));
  await eventually("the template's placeholders", async () => /\{\{customer\.name\}\}/.test(await textOf(By.css("form[aria-label='New document from template']"))));
  await shot("06h-from-template");
  const known = await driver.getAllWindowHandles();
  await click(button("Make and open"));
  await switchToNewWindow(known);
  const page = By.css(".editor [contenteditable='true']");
  await eventually("the letter, filled in", async () => (await textOf(page)).includes(name) && !(await textOf(page)).includes("{{"));
  assert.equal(await textOf(By.css(".editor-bar h1")), `Welcome letter — ${name}`);
  await shot("13j-editor-from-template");
  const file = join(dataDir, "..", "welcome.pdf");
  await click(button("Download PDF", "//header[contains(@class,'editor-bar')]"));
  await saveAs("Download", file);
  await find(By.xpath(`//*[@role='status'][starts-with(normalize-space(), 'Saved to ')]`));
  const pdf = readFileSync(file, "latin1");
  assert.ok(pdf.startsWith("%PDF-"), "a PDF");
  assert.ok(pdf.includes(name), `the PDF's text holds ${name}`);
  await closeEditor();
});

test("the admin screens show the day's work", async () => {
  await goTo("Webhooks");
  await eventually("the order's webhooks in the feed", async () => /order_created/.test(await textOf(By.css("section.content"))));
  // A forged delivery to this app's receiver: refused, stored nowhere, and summed up here.
  const receiver = (await textOf(By.css("[aria-label='Receiver'] code"))).trim();
  const forged = await fetch(receiver, { method: "POST", headers: { "content-type": "application/json", "x-signature": "00" }, body: "{}" });
  assert.equal(forged.status, 401);
  const refused = await find(By.css("[aria-label='Refused deliveries']"));
  assert.match(await refused.getText(), /1 delivery refused: bad signature/);
  await shot("14-webhooks");
  await goTo("Users & audit");
  await find(By.css("table"));
  await shot("15-users-audit");
  // The log in words: the refunds made above, by the demo admin, with their amounts.
  const log = await find(By.css("table[aria-label='Audit log']"));
  await eventually("a refund in words", async () => /Demo Admin refunded \$\s?\d/.test(await log.getText()));
  await driver.executeScript("arguments[0].scrollIntoView({block: 'center'})", log);
  await shot("15b-audit-in-words");
  await goTo("Settings");
  await find(By.xpath("//h2[normalize-space()='Settings']"));
  // Sync now: the button waits for the sync, then the last-sync table shows it.
  const lastSyncs = By.css("table[aria-label='Last syncs'] tbody");
  const before = await textOf(lastSyncs);
  await click(button("Sync now"));
  await eventually("the sync's new time", async () => (await textOf(lastSyncs)) !== before);
  await find(button("Sync now"));
  await shot("16-settings");
});

test("at 640 px wide, as at 200 % zoom, the Overview and every list reflow: nothing scrolls the page sideways", async () => {
  const rect = await driver.manage().window().getRect();
  await driver.manage().window().setRect({ width: 640, height: rect.height });
  try {
    await eventually("the narrow window", async () => (await driver.executeScript("return window.innerWidth")) <= 660);
    for (const area of ["Overview", "Products", "Orders", "Customers", "Subscriptions", "Licence keys", "Discounts", "Documents"]) {
      await goTo(area);
      await eventually(`${area} with nothing wider than the window`, async () =>
        driver.executeScript("return document.documentElement.scrollWidth <= window.innerWidth + 1"));
      await shot(`20-reflow-${area.toLowerCase().replace(/\W+/g, "-")}`);
    }
  } finally {
    await driver.manage().window().setRect(rect);
  }
});

test("with Google out of reach, the documents read before stay listed, marked stale", async () => {
  // Settings names the sandbox's simulators; the Google one takes faults over HTTP.
  await goTo("Settings");
  const simulators = await textOf(By.css("[aria-label='Simulators']"));
  const google = simulators.match(/Google at (http:\/\/127\.0\.0\.1:\d+)/)?.[1];
  assert.ok(google, simulators);
  const setFaults = (faults) =>
    fetch(`${google}/__sandbox/faults`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(faults) });
  const banner = By.xpath("//*[@role='status'][contains(., 'Google cannot be reached')]");
  assert.equal((await setFaults({ errorRate: 1 })).status, 200);
  try {
    await goTo("Documents");
    // The list read before stays on screen while the client retries, with a word that it waits.
    await find(By.xpath("//*[@aria-live='polite'][normalize-space()='Waiting for Google…']"));
    await shot("17-documents-waiting");
    // The client gives up within its 30-second budget (Google's backoff between retries).
    await find(banner, 45_000);
    await find(By.css(`button[aria-label=${literal(`Edit ${documentName}`)}]`));
    await shot("18-documents-offline");
  } finally {
    await setFaults({});
  }
  await click(button("Try again"));
  await eventually("the banner to go once Google answers", async () => (await driver.findElements(banner)).length === 0);
});

test("the dark theme applies at once and is remembered", async () => {
  await goTo("Subscriptions");
  await find(By.css("table[aria-label='Subscriptions'] tbody tr"));
  await click(By.css("header.topbar select[aria-label='Theme'] option[value='dark']"));
  await eventually("the dark palette", async () =>
    (await driver.executeScript("return document.documentElement.dataset.theme")) === "dark");
  await shot("19-dark-theme");
  await goTo("Overview");
  assert.equal(await driver.executeScript("return document.documentElement.dataset.theme"), "dark");
  await find(By.css("svg.chart[role='img']"));
  await shot("19b-overview-dark");
  await click(By.css("header.topbar select[aria-label='Theme'] option[value='system']"));
});

test("signing out returns to the login screen", async () => {
  await click(button("Sign out"));
  await find(By.css("form[aria-label='Sign in']"));
  await shot("20-signed-out");
});

test("no screen, dialog or editor window the suite saw has a serious or critical axe violation, in either theme", () => {
  const serious = axeReport("app");
  assert.deepEqual(serious, [], `axe (report: tests/e2e/screenshots/axe-app.json):\n${serious.join("\n")}`);
});
