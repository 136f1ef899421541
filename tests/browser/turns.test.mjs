// The turn tracker (issue 33, point 4), against `houserule serve` on the Generic table with the
// GM and two players (bo plays Frody, cy plays Lia) in three browsers, and an NPC only the GM
// knows of (Skulker) in the encounter:
// 1. The GM starts an encounter from the tracker; everyone sees the order, the round and whose
//    turn it is; a player gets Next and Hold only while the turn is their character's.
// 2. Turns pass from player to player and, through the hidden NPC's turn, into round 2.
// 3. The GM may show the hidden NPC to players as "someone" (its place and its turn, no name),
//    and take that back.
// 4. The hidden NPC's name and id never reach a player's browser: no WebSocket frame either
//    player's page received holds them, and neither screen shows them.
//
// Run: npm --prefix ui run build, then in ui/:
// HOUSERULE_BIN=… node --test --test-concurrency=1 ../tests/browser/turns.test.mjs

import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { gmCreates, inviteLink, launchBrowser, openAction, openPage, openRecordedPage, pickPlayer, startServer, submit, until } from "./support.mjs";

function tracker(page) {
  return page.getByRole("region", { name: "Turn order" });
}

/** The names in a page's tracker, in order, and whose turn it shows. */
async function order(page) {
  const seats = tracker(page).locator("li.seat");
  const names = await seats.locator(".seat-name").allInnerTexts();
  const now = await tracker(page).locator('li.seat[aria-current="true"] .seat-name').allInnerTexts();
  return { names, now: now[0] ?? null };
}

async function character(gm, name, owner) {
  const form = await openAction(gm, "Create a character");
  await pickPlayer(form, "Owner", owner);
  await form.getByLabel("Name", { exact: true }).fill(name);
  await submit(form, "Create a character");
}

describe("the turn tracker", { timeout: 240_000 }, () => {
  let server;
  let browser;
  let gm;
  const players = {};
  const errors = [];

  before(async () => {
    server = await startServer();
    browser = await launchBrowser();
    ({ page: gm } = await openPage(browser, server.url, errors));
    await gmCreates(gm, server, "Generic table", "Turns");
    await character(gm, "Frody", "bo");
    await character(gm, "Lia", "cy");
    const npc = await openAction(gm, "Create an NPC");
    await npc.getByLabel("Name", { exact: true }).fill("Skulker");
    await npc.getByLabel("Hidden", { exact: true }).selectOption("true");
    await submit(npc, "Create an NPC");
    for (const p of ["bo", "cy"]) {
      const link = await inviteLink(gm, p);
      players[p] = await openRecordedPage(browser, link, errors);
      await players[p].page.getByRole("article", { name: p === "bo" ? "Frody" : "Lia" }).waitFor();
    }
  });

  after(async () => {
    await browser?.close();
    await server?.stop();
  });

  it("the GM starts an encounter from the tracker and everyone sees the order they may see", async () => {
    assert.equal(await tracker(players.bo.page).count(), 0, "no tracker for a player while nothing runs");
    await tracker(gm).getByRole("button", { name: "Start an encounter…" }).click();
    const form = gm.getByRole("form", { name: "Start an encounter", exact: true });
    await form.waitFor();
    for (const name of ["Frody", "Lia", "Skulker"]) await form.getByRole("checkbox", { name }).check();
    // One face: everyone ties, so the order is the order picked.
    await form.getByLabel("Initiative dice", { exact: true }).fill("1d1");
    await submit(form, "Start an encounter");

    await until("the GM's tracker shows round 1", async () => /round 1/i.test(await tracker(gm).innerText()));
    assert.deepEqual(await order(gm), { names: ["Frody", "Lia", "Skulker"], now: "Frody" });
    for (const p of ["bo", "cy"]) {
      const page = players[p].page;
      await until(`${p} sees the tracker`, async () => (await tracker(page).count()) > 0);
      assert.deepEqual(await order(page), { names: ["Frody", "Lia"], now: "Frody" }, `${p} sees the two characters`);
    }
    const controls = async (p) => tracker(players[p].page).getByRole("button").allInnerTexts();
    assert.deepEqual(await controls("bo"), ["Next turn", "Hold the turn"], "bo has the turn: Next and Hold");
    assert.deepEqual(await controls("cy"), [], "cy waits: no controls");
  });

  it("turns pass from player to player, through the hidden NPC's turn, into round 2", async () => {
    await tracker(players.bo.page).getByRole("button", { name: "Next turn" }).click();
    await until("cy sees Lia's turn", async () => (await order(players.cy.page)).now === "Lia");
    await tracker(players.cy.page).getByRole("button", { name: "Next turn" }).click();

    // Skulker's turn: the GM sees it; the players see nobody's turn they can see.
    await until("the GM sees Skulker's turn", async () => (await order(gm)).now === "Skulker");
    for (const p of ["bo", "cy"]) {
      const page = players[p].page;
      await until(`${p} sees no current turn`, async () => (await order(page)).now === null);
      assert.match(await tracker(page).innerText(), /nobody's turn you can see/);
      assert.deepEqual(await tracker(page).getByRole("button").allInnerTexts(), [], `${p} cannot pass Skulker's turn`);
    }
    await tracker(gm).getByRole("button", { name: "Next turn" }).click();
    await until("bo sees round 2, Frody first", async () => {
      const text = await tracker(players.bo.page).innerText();
      return /round 2/i.test(text) && (await order(players.bo.page)).now === "Frody";
    });
  });

  it("the GM may show the hidden NPC to players as someone, and nothing more of it", async () => {
    const choice = tracker(gm).getByRole("checkbox", { name: "Players see hidden participants as “someone”" });
    await choice.check();
    for (const p of ["bo", "cy"]) {
      const page = players[p].page;
      await until(`${p} sees someone in the order`, async () => (await order(page)).names.length === 3);
      assert.deepEqual(await order(page), { names: ["Frody", "Lia", "Someone"], now: "Frody" }, `${p} sees someone third`);
    }
    await tracker(players.bo.page).getByRole("button", { name: "Next turn" }).click();
    await until("cy sees Lia's turn", async () => (await order(players.cy.page)).now === "Lia");
    await tracker(players.cy.page).getByRole("button", { name: "Next turn" }).click();
    for (const p of ["bo", "cy"]) {
      const page = players[p].page;
      await until(`${p} sees someone's turn`, async () => (await order(page)).now === "Someone");
      assert.match(await tracker(page).innerText(), /someone else's turn/);
      assert.deepEqual(await tracker(page).getByRole("button").allInnerTexts(), [], `${p} cannot pass someone's turn`);
    }
    await choice.uncheck();
    await until("bo's order leaves someone out again", async () => (await order(players.bo.page)).names.length === 2);
    assert.match(await tracker(players.bo.page).innerText(), /nobody's turn you can see/);
    await tracker(gm).getByRole("button", { name: "Next turn" }).click();
    await until("bo sees round 3, Frody first", async () => /round 3/i.test(await tracker(players.bo.page).innerText()));
  });

  it("the hidden NPC reaches no player's browser, by any frame or on screen", async () => {
    // A public line after everything: once both players see it, they have had every earlier frame.
    const narrate = await openAction(gm, "Narrate");
    await narrate.getByLabel("Text", { exact: true }).fill("The lamps gutter.");
    await submit(narrate, "Narrate");
    const found = {};
    for (const p of ["bo", "cy"]) {
      const { page, frames } = players[p];
      await until(`${p} sees the narration`, async () => (await page.locator("body").innerText()).includes("The lamps gutter."));
      const leaks = frames.received.filter((f) => /skulker/i.test(f));
      const screen = /skulker/i.test(await page.locator("body").innerText());
      if (leaks.length || screen) found[p] = { frames: leaks.length, screen, first: leaks[0]?.slice(0, 300) };
    }
    assert.deepEqual(found, {}, "neither player received or sees anything of Skulker");
    assert.ok((await order(gm)).names.includes("Skulker"), "the GM still sees Skulker in the order");
    assert.deepEqual(errors, []);
  });
});
