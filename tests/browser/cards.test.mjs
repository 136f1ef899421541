// Action cards in the turn tracker (issue 33): on Savage Worlds the GM deals action cards from
// the tracker; everyone sees the order the cards make and each fighter's card beside their name.
//
// Run: npm --prefix ui run build, then in ui/:
// HOUSERULE_BIN=… node --test --test-concurrency=1 ../tests/browser/cards.test.mjs

import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { gmCreates, inviteLink, launchBrowser, openAction, openPage, pickPlayer, startServer, submit, until } from "./support.mjs";

const tracker = (page) => page.getByRole("region", { name: "Turn order" });
const CARD = /^(Red|Black) Joker$|^(Ace|King|Queen|Jack|[2-9]|10) of (Spades|Hearts|Diamonds|Clubs)$/;

async function seats(page) {
  return tracker(page)
    .locator("li.seat")
    .evaluateAll((lis) => lis.map((li) => ({ name: li.querySelector(".seat-name").textContent, cards: [...li.querySelectorAll(".card-chip")].map((c) => c.textContent) })));
}

describe("action cards in the tracker", { timeout: 240_000 }, () => {
  let server;
  let browser;
  let gm;
  let ann;
  const errors = [];

  before(async () => {
    server = await startServer();
    browser = await launchBrowser();
    ({ page: gm } = await openPage(browser, server.url, errors));
    await gmCreates(gm, server, "Savage Worlds (with house rules)", "Cards");
    for (const [name, owner] of [["Hero", "ann"], ["Thug", null]]) {
      const form = await openAction(gm, "Create a character");
      if (owner) await pickPlayer(form, "Owner", owner);
      await form.getByLabel("Name", { exact: true }).fill(name);
      await submit(form, "Create a character");
    }
    ({ page: ann } = await openPage(browser, await inviteLink(gm, "ann"), errors));
    await ann.getByRole("article", { name: "Hero" }).waitFor();
  });

  after(async () => {
    await browser?.close();
    await server?.stop();
  });

  it("the GM deals from the tracker and everyone sees each fighter's card", async () => {
    await tracker(gm).getByRole("button", { name: "Deal action cards…" }).click();
    const form = gm.getByRole("form", { name: "Deal action cards", exact: true });
    await form.waitFor();
    for (const name of ["Hero", "Thug"]) await form.getByRole("checkbox", { name }).check();
    await submit(form, "Deal action cards");
    for (const page of [gm, ann]) {
      await until("the tracker shows both fighters", async () => (await seats(page)).length === 2);
      const shown = await seats(page);
      assert.deepEqual(shown.map((s) => s.name).sort(), ["Hero", "Thug"]);
      for (const s of shown) assert.ok(s.cards.length === 1 && CARD.test(s.cards[0]), `${s.name} holds one card: ${JSON.stringify(s.cards)}`);
    }
    assert.deepEqual(await seats(ann), await seats(gm), "the player sees the same cards as the GM (dealt face up)");
    assert.deepEqual(errors, []);
  });
});
