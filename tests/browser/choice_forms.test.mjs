// Forms that fit the choice (issue 36, point 4), against `houserule serve`:
// 1. Fumbles' "Spend a Hero Point" shows Target, Attack, Defense and Trope only for the uses
//    that take them, and changes as the use changes; a field typed for one use and then hidden
//    by another is not sent (the engine would refuse it); after a submit the form starts fresh
//    with the result in view, and a refusal is in view too, with what was typed kept.
// 2. A new player who plays nothing yet is shown how to make a character first, and is offered
//    a character's actions only once they have one.
// 3. Savage Worlds' Attack shows its charge fields only for a charge, and the push direction
//    only for a charge that pushes.
//
// Run: npm --prefix ui run build, then in ui/:
// HOUSERULE_BIN=… node --test --test-concurrency=1 ../tests/browser/choice_forms.test.mjs

import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { gmCreates, inviteLink, launchBrowser, openAction, openPage, pickPlayer, screenshot, startServer, submit, until } from "./support.mjs";

/** The labels of the parameter fields a form shows now, in order (not its hand dice). */
async function fieldLabels(form) {
  return form
    .locator(".field-label")
    .evaluateAll((ls) => ls.filter((l) => l.offsetParent !== null && !l.closest(".dice-field")).map((l) => l.textContent.trim()));
}

/** Whether `locator` is wholly on screen: inside the window and inside the scrolling panel. */
async function inView(page, locator) {
  return locator.evaluate((el) => {
    const r = el.getBoundingClientRect();
    const panel = el.closest(".col-actions");
    const p = panel ? panel.getBoundingClientRect() : { top: 0, bottom: window.innerHeight };
    return r.height > 0 && r.top >= Math.max(0, p.top) - 1 && r.bottom <= Math.min(window.innerHeight, p.bottom) + 1;
  });
}

const HERO_FIELDS = {
  "": ["Character", "Use"],
  "Devils luck": ["Character", "Use"],
  "Invoke trope": ["Character", "Use", "Attack", "Defense", "Trope"],
  "Heroic recovery": ["Character", "Use", "Target"],
  "Nick of time": ["Character", "Use", "Target"],
};

describe("forms that fit the choice", { timeout: 300_000 }, () => {
  let server;
  let browser;
  const errors = [];

  before(async () => {
    server = await startServer();
    browser = await launchBrowser();
  });

  after(async () => {
    await browser?.close();
    await server?.stop();
  });

  it("a Hero Point form shows the fields of the use picked, sends only those, starts fresh and shows what happened in view", async () => {
    const { page: gm } = await openPage(browser, server.url, errors);
    await gmCreates(gm, server, "Fumbles", "Choice forms");
    const create = await openAction(gm, "Create a character");
    await pickPlayer(create, "Owner", "ann");
    await create.getByLabel("Name", { exact: true }).fill("Gandolf");
    await create.getByLabel("Traits", { exact: true }).fill("Magic!, Fireball, Barrier");
    await submit(create, "Create a character");
    const start = await openAction(gm, "Start a challenge");
    await start.getByLabel("Name", { exact: true }).fill("Goblin barbecue");
    await start.getByLabel("CR", { exact: true }).fill("12");
    await submit(start, "Start a challenge");
    await gm.getByRole("article", { name: "Goblin barbecue" }).waitFor();

    const form = await openAction(gm, "Spend a Hero Point");
    const use = form.getByLabel("Use", { exact: true });
    assert.deepEqual(await fieldLabels(form), HERO_FIELDS[""], "no use picked: no field of a use");
    for (const [label, fields] of Object.entries(HERO_FIELDS).filter(([l]) => l)) {
      await use.selectOption({ label });
      assert.deepEqual(await fieldLabels(form), fields, `the fields of “${label}”`);
    }

    // A trope typed for Invoke Trope, then Devil's Own Luck picked: the trope is hidden and
    // not sent (the engine refuses a trope for Devil's Own Luck), and comes back with its use.
    await use.selectOption({ label: "Invoke trope" });
    await form.getByLabel("Trope", { exact: true }).fill("The wizard always arrives on time");
    await use.selectOption({ label: "Devils luck" });
    assert.equal(await form.getByLabel("Trope", { exact: true }).count(), 0);
    await screenshot(gm, "choice-form");
    await submit(form, "Spend a Hero Point");
    const done = form.getByRole("status").filter({ hasText: "Done" });
    assert.match(await done.innerText(), /Devil's Own Luck: Gandolf spends a Hero Point/);
    assert.ok(await inView(gm, done), "the result is in view after the submit");
    assert.ok(await inView(gm, form.getByRole("button", { name: "Spend a Hero Point", exact: true })), "beside the button");
    assert.equal(await use.inputValue(), "", "the form starts fresh: no use picked");
    assert.deepEqual(await fieldLabels(form), HERO_FIELDS[""], "and the fields of the last use are gone");

    // No Hero Point left: the refusal is in view, and what was typed stays to be fixed.
    await use.selectOption({ label: "Invoke trope" });
    assert.equal(await form.getByLabel("Trope", { exact: true }).inputValue(), "", "nothing carried over from before the submit");
    await form.getByLabel("Trope", { exact: true }).fill("Second wind");
    await form.getByRole("button", { name: "Spend a Hero Point", exact: true }).click();
    const refused = form.getByRole("alert").filter({ hasText: "no Hero Point to spend" });
    await refused.waitFor();
    assert.ok(await inView(gm, refused), "the refusal is in view");
    assert.equal(await done.count(), 0, "the refusal replaces the earlier result");
    assert.equal(await use.inputValue(), "invoke_trope");
    assert.equal(await form.getByLabel("Trope", { exact: true }).inputValue(), "Second wind");

    // The same on a phone, where the whole page scrolls: the result is on screen.
    await gm.setViewportSize({ width: 390, height: 844 });
    await gm.getByRole("tab", { name: "Actions", exact: true }).click();
    const boss = await openAction(gm, "Boss ability");
    const ability = boss.getByLabel("Ability", { exact: true });
    await ability.selectOption({ label: "Enrage" });
    assert.deepEqual((await fieldLabels(boss)).filter((l) => ["Target", "Trait", "Count", "Stat", "Flaw"].includes(l)), ["Stat"]);
    await ability.selectOption({ label: "Afflict" });
    assert.deepEqual((await fieldLabels(boss)).filter((l) => ["Target", "Trait", "Count", "Stat", "Flaw"].includes(l)), ["Target", "Trait"]);
    await boss.getByRole("button", { name: "Boss ability", exact: true }).click();
    const noBoss = boss.getByRole("alert");
    await noBoss.waitFor();
    assert.ok(await inView(gm, noBoss), `the refusal is on the phone's screen: ${await noBoss.innerText()}`);
    await gm.setViewportSize({ width: 1280, height: 800 });
    assert.deepEqual(errors, []);
  });

  it("a new player is shown how to make a character first, and gets a character's actions once they have one", async () => {
    const { page: gm } = await openPage(browser, server.url, errors);
    await gm.getByLabel("GM secret").fill(server.secret);
    await gm.getByRole("button", { name: "Join as GM" }).click();
    await gm.getByRole("heading", { name: "Choice forms", level: 1 }).waitFor();
    const link = await inviteLink(gm, "bo");
    const { page: bo } = await openPage(browser, link, errors);
    const panel = bo.getByRole("complementary", { name: "Actions" });
    const first = panel.getByRole("region", { name: "Make your character first" });
    await first.waitFor();
    assert.match(await first.innerText(), /no character here yet/);
    const toggles = () => panel.getByRole("button", { name: /./ }).filter({ has: bo.locator(".chevron") }).allInnerTexts();
    assert.ok(!(await toggles()).includes("Spend a Hero Point"), "no Hero Point to spend without a character");
    assert.ok(!(await toggles()).includes("Trait check"));
    const create = first.getByRole("form", { name: "Create a character" });
    assert.ok(await create.isVisible(), "the form to make one is open");
    await screenshot(bo, "first-character");
    await create.getByLabel("Name", { exact: true }).fill("Frody");
    await create.getByLabel("Traits", { exact: true }).fill("Sneaky, Brave");
    await create.getByRole("button", { name: "Create a character", exact: true }).click();
    await panel.getByRole("status").filter({ hasText: "Frody is yours" }).waitFor();
    assert.equal(await first.count(), 0, "the prompt is gone once the character is made");
    await until("a character's actions are offered", async () => (await toggles()).includes("Spend a Hero Point") || (await toggles()).join(", "));
    assert.ok((await toggles()).includes("Trait check"));
    assert.deepEqual(errors, []);
  });
});

describe("a Savage Worlds attack", { timeout: 180_000 }, () => {
  let server;
  let browser;
  const errors = [];

  before(async () => {
    server = await startServer();
    browser = await launchBrowser();
  });

  after(async () => {
    await browser?.close();
    await server?.stop();
  });

  it("shows the charge fields only for a charge, and the push direction only for a charge that pushes", async () => {
    const { page: gm } = await openPage(browser, server.url, errors);
    await gmCreates(gm, server, "Savage Worlds (with house rules)", "Charges");
    const form = await openAction(gm, "Attack");
    const charge = ["Run", "Charge bonus", "Direction", "Push distance"];
    const shown = async () => (await fieldLabels(form)).filter((l) => charge.includes(l));
    assert.deepEqual(await shown(), [], "no charge: none of its fields");
    await form.getByLabel("Charge", { exact: true }).check();
    assert.deepEqual(await shown(), ["Run", "Charge bonus"], "a charge: how far, and its bonus");
    await form.getByLabel("Charge bonus", { exact: true }).selectOption({ label: "Push pull" });
    assert.deepEqual(await shown(), charge, "a charge that pushes: where to, and how far");
    await form.getByLabel("Charge", { exact: true }).uncheck();
    assert.deepEqual(await shown(), [], "no charge again: its fields go, the push's with them");
    assert.deepEqual(errors, []);
  });
});
