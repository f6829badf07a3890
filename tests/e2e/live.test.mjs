// End-to-end, going live (SPEC section 13): the real built app, fresh and in real mode, pointed at
// both providers' simulators served alone (`staffroom sandbox-providers`, through the provider
// endpoint variables), as a new admin meets a real store: the first-admin form, then the set-up
// (a refused key, the key, the store picked and synced, the receiver switched on and the webhook
// registered through the provider's API, Google's OAuth client), a checkout paid that turns the
// order paid through that webhook; then the provider stops delivering and Connections says so.
// Every step is saved as a PNG, light and dark.
//
// Run by tests/e2e/run in a session of its own, whose environment points the app at the
// simulators (STAFFROOM_E2E_PROVIDERS: their address; STAFFROOM_E2E_PROVIDERS_ENV: what they
// printed, with the simulated credentials).

import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { By } from "selenium-webdriver";
import { button, click, dataDir, driver, eventually, find, goTo, literal, required, shot, startApp, textOf, type } from "./lib.mjs";

const providers = required("STAFFROOM_E2E_PROVIDERS");
/** What `staffroom sandbox-providers` printed: NAME=value lines. */
const printed = Object.fromEntries(
  readFileSync(required("STAFFROOM_E2E_PROVIDERS_ENV"), "utf8")
    .split("\n")
    .filter((line) => /^STAFFROOM_[A-Z_]+=/.test(line))
    .map((line) => [line.slice(0, line.indexOf("=")), line.slice(line.indexOf("=") + 1)]),
);
const ADMIN = { name: "Avery Admin", email: "avery@example.com", password: "seven unrelated words make a passphrase" };

before(async () => {
  await startApp(["--data-dir", `${dataDir}-live`]);
}, { timeout: 60_000 });

after(async () => {
  await driver?.quit();
});

const step = (title) => By.xpath(`//div[contains(@class,'step-card')]/h3[normalize-space()=${literal(title)}]`);

test("a fresh real-mode app goes from the first admin through the set-up to a synced store with a webhook", async () => {
  await find(By.css("form[aria-label='Create the first admin']"));
  await type(By.id("name"), ADMIN.name);
  await type(By.id("email"), ADMIN.email);
  await type(By.id("password"), ADMIN.password);
  await shot("live-01-first-admin");
  await click(button("Create admin and sign in"));

  // The set-up comes next, at its first step.
  await find(step("1. Your Lemon Squeezy store"));
  await shot("live-02-setup-key");

  // A key Lemon Squeezy refuses: said on the field, nothing kept.
  await type(By.id("api-key"), "not-a-real-key");
  await click(button("Check the key"));
  const refused = await textOf(By.css("form[aria-label='Lemon Squeezy key'] .field-error"));
  assert.match(refused, /Lemon Squeezy refused this key/);
  await shot("live-03-key-refused");

  // The simulated account's key: who it is, test mode, its stores; the store picked.
  await type(By.id("api-key"), printed.STAFFROOM_LEMONSQUEEZY_API_KEY);
  await click(button("Check the key"));
  await find(By.xpath("//*[@role='status'][contains(., 'Sandbox Owner')][contains(., 'Test mode')]"));
  await click(By.xpath("//label[contains(., 'Staffroom Sandbox Store')]/input[@type='radio']"));
  await shot("live-04-store-picked");
  await click(button("Connect this store"));
  await find(By.xpath("//*[contains(., 'Synced: its products, orders and subscriptions are here now.')]"), 90_000);
  await shot("live-05-store-connected");

  // Webhooks: this computer's receiver on, and registered at Lemon Squeezy.
  await click(button("Next: webhooks"));
  await find(step("2. Where webhooks arrive"));
  await click(button("Switch the receiver on"));
  const local = await textOf(By.xpath("//*[contains(@class,'callout')]//code"));
  assert.match(local, /^http:\/\/127\.0\.0\.1:\d+\/api\/payments\/webhooks$/);
  // The tunnel, here, is the receiver's own address.
  await type(By.id("webhook-address"), local.replace("/api/payments/webhooks", ""));
  await shot("live-06-webhook-address");
  await click(button("Register the webhook"));
  const registered = await textOf(By.xpath("//*[@role='status'][contains(., 'Webhook #')]"));
  assert.match(registered, /sends 15 kinds of event/);
  await shot("live-07-webhook-registered");

  // Google: where to make the client, then its id and secret kept.
  await click(button("Next: Google"));
  await find(step("3. Google, for documents"));
  await shot("live-08-google-client");
  await type(By.id("client-id"), printed.STAFFROOM_GOOGLE_CLIENT_ID);
  await type(By.id("client-secret"), printed.STAFFROOM_GOOGLE_CLIENT_SECRET);
  await click(button("Save the client"));
  await find(button("Sign in with Google"));
  await shot("live-09-google-sign-in");
  await click(button("Later"));
  await find(step("4. Your staff"));
  await shot("live-10-staff");
  await click(button("Finish"));

  // The Overview tells the admin what is left (Google's sign-in).
  const alert = await textOf(By.css("[aria-labelledby='connection-alert-title']"));
  assert.match(alert, /not signed in to Google/);
  await shot("live-11-overview-alert");
});

test("a checkout paid at the provider turns the order paid through the registered webhook", async () => {
  await goTo("Products");
  await click(By.css("#status-filter option[value='published']"));
  await click(By.css("table[aria-label='Products'] tbody tr:first-child button.row-link"));
  await type(By.id("order-email"), "first.live.buyer@example.com");
  await click(button("Create order", "//form[@aria-label='Create order']"));
  const created = await find(By.css("[aria-label='Order created']"));
  const id = (await created.getText()).match(/Order (\S+)/)?.[1];
  const checkoutUrl = await created.findElement(By.css("code")).getText();
  await pay(checkoutUrl);
  await goTo("Orders");
  await eventually("the order turning paid", async () => /paid/.test(await textOf(By.css(`tr[data-id='${id}'] .status`))));
  await shot("live-12-order-paid");
});

test("when the provider's deliveries stop arriving, Connections says when it last sent one", async () => {
  const faults = await fetch(`${providers}/lemonsqueezy/__sandbox/faults`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ lostDeliveries: true }),
  });
  assert.equal(faults.status, 200);
  // Later than the last delivery that arrived, by more than the clocks' slack.
  await new Promise((resolve) => setTimeout(resolve, 6_000));
  await goTo("Products");
  await click(By.css("table[aria-label='Products'] tbody tr:first-child button.row-link"));
  await type(By.id("order-email"), "lost.live.buyer@example.com");
  await click(button("Create order", "//form[@aria-label='Create order']"));
  const created = await find(By.css("[aria-label='Order created']"));
  await pay(await created.findElement(By.css("code")).getText());
  await new Promise((resolve) => setTimeout(resolve, 6_000));

  await goTo("Settings");
  const problems = By.css("ul[aria-label='Lemon Squeezy problems']");
  const sentence = await eventually("the silent webhook's problem", async () => {
    const [list] = await driver.findElements(problems);
    const text = list ? await list.getText() : "";
    if (/none has arrived here since/.test(text)) return text;
    await click(button("Check again"));
    return false;
  }, 30_000);
  assert.match(sentence, /Lemon Squeezy sent a webhook at .* but none has arrived here since .*: check that http:\/\/127\.0\.0\.1:\d+\/api\/payments\/webhooks reaches this server/);
  await shot("live-13-connections-problem");
  await goTo("Overview");
  assert.match(await textOf(By.css("[aria-labelledby='connection-alert-title']")), /none has arrived here since/);
  await shot("live-14-overview-problem");
});

/** The buyer pays on the simulated checkout page, as app.test.mjs's buyer does. */
async function pay(checkoutUrl) {
  const payUrl = new URL(checkoutUrl);
  payUrl.search = "";
  payUrl.pathname += "/pay";
  const paid = await fetch(payUrl, { method: "POST", redirect: "manual" });
  assert.ok(paid.status < 400, `paying answered ${paid.status}`);
}
