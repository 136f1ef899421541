// The UI is generic: every bundled ruleset gets a table and a form for each of its actions.
// Each ruleset is created on its own server; every action form is opened (every parameter
// type renders) with no page error. Two rulesets are played a little further: Savage Worlds'
// aces are highlighted in the log (and its bookkeeping stays off the board and the log), and Stones' hidden bag and GM-only bowl show only what
// each viewer may know.

import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { inviteLink, launchBrowser, openPage, startServer, until, pickPlayer } from "./support.mjs";

const RULESETS = ["Fudge Firefight!", "Fumbles", "Generic table", "RFI: Freelancers", "Savage Worlds (with house rules)", "Stones"];

async function createCampaign(browser, rulesetName, errors) {
  const server = await startServer();
  const { page } = await openPage(browser, server.url, errors);
  await page.getByLabel("GM secret").fill(server.secret);
  await page.getByRole("button", { name: "Join as GM" }).click();
  await page.getByRole("radio", { name: rulesetName, exact: true }).check();
  await page.getByRole("button", { name: "Create campaign" }).click();
  await page.getByRole("heading", { level: 1, name: rulesetName, exact: true }).waitFor();
  await page.getByRole("complementary", { name: "Actions" }).getByRole("button").first().waitFor();
  return { server, page };
}

describe("every bundled ruleset", { timeout: 300_000 }, () => {
  let browser;
  before(async () => {
    browser = await launchBrowser();
  });
  after(async () => {
    await browser?.close();
  });

  for (const name of RULESETS) {
    it(`${name}: the table renders and every action form opens`, async () => {
      const errors = [];
      const { server, page } = await createCampaign(browser, name, errors);
      try {
        const panel = page.getByRole("complementary", { name: "Actions" });
        const toggles = panel.locator("button.action-toggle");
        const count = await toggles.count();
        assert.ok(count > 0, "the GM has actions");
        for (let i = 0; i < count; i++) {
          const toggle = toggles.nth(i);
          const label = (await toggle.innerText()).trim();
          await toggle.click();
          const form = page.getByRole("form", { name: label, exact: true });
          await form.waitFor();
          assert.ok((await form.getByRole("button", { name: label, exact: true }).count()) === 1, `${label}: the form has its submit button`);
          await toggle.click();
        }
        assert.deepEqual(errors, [], "no page errors");
      } finally {
        await server.stop();
      }
    });
  }

  it("Savage Worlds: a map-of-choices form creates a character, and aces are highlighted in the log", async () => {
    const errors = [];
    const { server, page } = await createCampaign(browser, "Savage Worlds (with house rules)", errors);
    try {
      const panel = page.getByRole("complementary", { name: "Actions" });
      await panel.getByRole("button", { name: "Create a character", exact: true }).click();
      const create = page.getByRole("form", { name: "Create a character" });
      await create.getByLabel("Name", { exact: true }).fill("Ann");
      await pickPlayer(create, "Owner", "ann");
      await create.getByLabel("Attributes", { exact: true }).fill("agility:d8, strength:d6");
      await create.getByLabel("Skills", { exact: true }).fill("fighting:d4, notice:d8");
      await create.getByRole("button", { name: "Create a character", exact: true }).click();
      const card = page.getByRole("article", { name: "Ann", exact: true });
      await card.waitFor();
      assert.match(await card.innerText(), /Fighting\s*d4/, "traits show their die");

      const roll = panel.getByRole("button", { name: /trait roll/i }).first();
      const label = (await roll.innerText()).trim();
      await roll.click();
      const form = page.getByRole("form", { name: label, exact: true });
      await form.getByLabel("Trait", { exact: true }).fill("fighting");
      // A d4 with the d6 wild die, acing, against 4: both miss 3/4 · 3/6 of the time.
      const odds = form.getByRole("status", { name: "Chance of success" });
      await until("the trait roll shows its odds", async () => (await odds.count()) > 0 && /62\.5%/.test(await odds.innerText()));
      assert.match(await odds.innerText(), /Fighting \(d4 with the d6 wild die\) against 4/, "what the chance is of, in words");
      await form.getByLabel("Dice rolled by hand").fill("4, 4, 3, 2");
      await form.getByRole("button", { name: label, exact: true }).click();
      await form.getByRole("status").filter({ hasText: "Done" }).waitFor();
      const entry = page.getByRole("list", { name: "Log" }).getByRole("listitem").filter({ hasText: label }).first();
      const aces = entry.locator(".die.ace");
      await until("two aces are highlighted", async () => (await aces.count()) === 2);
      assert.match(await aces.first().getAttribute("aria-label"), /ace/, "an ace says so to screen readers");
      assert.equal(await entry.locator(".die.bonus").count(), 2, "the dice the aces added are marked");
      // The roll's context the rules keep for a later benny reroll is bookkeeping: never shown.
      assert.doesNotMatch(await page.locator(".board").innerText(), /Last roll/i, "the board shows no bookkeeping");
      assert.doesNotMatch(await entry.innerText(), /Last roll/i, "nor does the log");
      assert.deepEqual(errors, []);
    } finally {
      await server.stop();
    }
  });

  it("Stones: the hidden bag is only empty or not, the GM-only bowl is not shown to players", async () => {
    const errors = [];
    const { server, page } = await createCampaign(browser, "Stones", errors);
    try {
      const pools = page.getByRole("list", { name: "Table pools" });
      assert.match(await pools.getByRole("listitem", { name: "White bag" }).innerText(), /not empty/, "nobody counts the white bag");
      assert.match(await pools.getByRole("listitem", { name: "Black bowl" }).innerText(), /20/, "the GM counts the black bowl");

      const link = await inviteLink(page, "cy");
      const { page: player } = await openPage(browser, link, errors);
      const theirs = player.getByRole("list", { name: "Table pools" });
      await theirs.waitFor();
      assert.match(await theirs.getByRole("listitem", { name: "White bag" }).innerText(), /not empty/);
      const bowl = await theirs.getByRole("listitem", { name: "Black bowl" }).innerText();
      assert.match(bowl, /not shown/, "a player does not see the bowl's count");
      assert.doesNotMatch(bowl, /20/);
      assert.deepEqual(errors, []);
    } finally {
      await server.stop();
    }
  });
});
