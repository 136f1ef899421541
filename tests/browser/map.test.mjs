// The map (issue 32, points 2 and 3), against `houserule serve` on the Generic table with the GM
// and two players (bo plays Frody, cy plays Lia) in three browsers, and an NPC only the GM knows
// of (Skulker) standing on the map:
// 1. The GM makes a scene, places the three tokens and shows the scene; each player sees the
//    tokens they may see, and nothing of Skulker reaches their browsers (frames or screen).
// 2. bo picks Frody, the ruler reads the engine's length in the grid's unit, and a click moves
//    him: the GM's map shows him there. cy cannot pick Frody.
// 3. Fog: with the fog on, cy no longer sees Frody standing in the dark (bo still sees his own
//    token); once the GM reveals Frody's cell, cy sees him again.
// 4. bo drags Frody with the pointer onto a revealed cell; cy sees him move; the GM undoes the
//    move from the log and both players see him back where he stood.
//
// Run: npm --prefix ui run build, then in ui/:
// HOUSERULE_BIN=… node --test --test-concurrency=1 ../tests/browser/map.test.mjs

import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { gmCreates, inviteLink, launchBrowser, openAction, openPage, openRecordedPage, pickPlayer, screenshot, startServer, submit, until } from "./support.mjs";

const map = (page) => page.getByRole("region", { name: "Map" });
const cell = (page, x, y) => map(page).locator(`polygon.cell[data-cell="${x},${y}"]`);
const token = (page, name) => map(page).locator(`g.token[aria-label^="${name}"]`);

/** The tokens a page's map shows, by their labels. */
async function tokens(page) {
  if ((await map(page).count()) === 0) return [];
  return map(page).locator("g.token").evaluateAll((gs) => gs.map((g) => g.getAttribute("aria-label")));
}

async function character(gm, name, owner) {
  const form = await openAction(gm, "Create a character");
  await pickPlayer(form, "Owner", owner);
  await form.getByLabel("Name", { exact: true }).fill(name);
  await submit(form, "Create a character");
}

async function place(gm, name, x, y) {
  await map(gm).getByLabel("Place", { exact: true }).selectOption({ label: name });
  await cell(gm, x, y).click();
  await until(`${name} stands on the GM's map`, async () => (await token(gm, name).count()) === 1);
}

describe("the map", { timeout: 240_000 }, () => {
  let server;
  let browser;
  let gm;
  const players = {};
  const errors = [];

  before(async () => {
    server = await startServer();
    browser = await launchBrowser();
    ({ page: gm } = await openPage(browser, server.url, errors));
    await gmCreates(gm, server, "Generic table", "Map");
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

  it("the GM makes a scene, places tokens and shows it; each player sees what they may", async () => {
    assert.equal(await map(players.bo.page).count(), 0, "no map for a player before a scene is shown");
    await map(gm).getByLabel("New scene", { exact: true }).fill("The Street");
    await map(gm).getByRole("button", { name: "Make scene" }).click();
    await until("the GM's map is drawn", async () => (await cell(gm, 0, 0).count()) === 1);
    await map(gm).getByRole("button", { name: "Place tokens" }).click();
    await place(gm, "Frody", 1, 1);
    await place(gm, "Lia", 2, 1);
    await place(gm, "Skulker", 6, 4);
    await map(gm).getByRole("button", { name: "Show to players" }).click();
    for (const p of ["bo", "cy"]) {
      const page = players[p].page;
      await until(`${p} sees the map with two tokens`, async () => (await tokens(page)).length === 2);
      assert.deepEqual(await tokens(page), ["Frody, column 2, row 2", "Lia, column 3, row 2"]);
    }
    assert.equal((await tokens(gm)).length, 3, "the GM sees Skulker too");
  });

  it("bo measures with the ruler and moves Frody; cy cannot pick him", async () => {
    const bo = players.bo.page;
    await map(gm).getByRole("button", { name: "Move", exact: true }).click();
    await token(bo, "Frody").click();
    await cell(bo, 4, 1).hover();
    // The Generic table's grid: one cell is 5 ft, every diagonal 1; three cells are 15 ft.
    await until("the ruler reads 15 ft", async () => /Frody: 15 ft to the cell picked/.test(await map(bo).innerText()));
    await cell(bo, 4, 1).click();
    await until("the GM sees Frody moved", async () => (await tokens(gm)).includes("Frody, column 5, row 2"));
    const cy = players.cy.page;
    await until("cy sees Frody moved", async () => (await tokens(cy)).includes("Frody, column 5, row 2"));
    await token(cy, "Frody").click();
    assert.equal(await map(cy).locator("g.token.selected").count(), 0, "cy cannot pick bo's token");
  });

  it("fog hides a token in the dark from others until the GM reveals its cell", async () => {
    await map(gm).getByRole("button", { name: "Fog off: cover the map" }).click();
    const cy = players.cy.page;
    await until("cy no longer sees Frody in the fog", async () => !(await tokens(cy)).some((t) => t.startsWith("Frody")));
    await until("cy's map is fogged", async () => (await map(cy).locator("polygon.cell.fogged").count()) > 0);
    assert.ok((await tokens(players.bo.page)).some((t) => t.startsWith("Frody")), "bo still sees his own token");
    await map(gm).getByRole("button", { name: "Reveal / cover" }).click();
    await token(gm, "Frody").click(); // the cell Frody stands on
    await until("cy sees Frody on the revealed cell", async () => (await tokens(cy)).includes("Frody, column 5, row 2"));
  });

  it("bo drags Frody to a revealed cell, cy sees it, and the GM's undo puts him back", async () => {
    await cell(gm, 5, 1).click(); // reveal the cell Frody is dragged to (the GM is revealing)
    const bo = players.bo.page;
    const from = await token(bo, "Frody").boundingBox();
    const to = await cell(bo, 5, 1).boundingBox();
    await bo.mouse.move(from.x + from.width / 2, from.y + from.height / 2);
    await bo.mouse.down();
    await bo.mouse.move(to.x + to.width / 2, to.y + to.height / 2, { steps: 5 });
    await until("the ruler reads 5 ft while dragging", async () => /Frody: 5 ft/.test(await map(bo).innerText()));
    await bo.mouse.up();
    const cy = players.cy.page;
    await until("cy sees Frody dragged", async () => (await tokens(cy)).includes("Frody, column 6, row 2"));
    await screenshot(gm, "scene");
    const gmLog = gm.getByRole("list", { name: "Log" });
    const seq = await gmLog.getByRole("listitem").first().getAttribute("data-seq");
    const moved = gm.locator(`.log-entry[data-seq="${seq}"]`);
    await moved.getByRole("button", { name: "Undo" }).click();
    await moved.getByRole("button", { name: "Yes, undo it" }).click();
    for (const page of [bo, cy]) {
      await until("Frody is back after the undo", async () => (await tokens(page)).includes("Frody, column 5, row 2"));
    }
  });

  it("nothing of the hidden NPC reaches a player's browser", async () => {
    const narrate = await openAction(gm, "Narrate");
    await narrate.getByLabel("Text", { exact: true }).fill("Rain on the cobbles.");
    await submit(narrate, "Narrate");
    const found = {};
    for (const p of ["bo", "cy"]) {
      const { page, frames } = players[p];
      await until(`${p} sees the narration`, async () => (await page.locator("body").innerText()).includes("Rain on the cobbles."));
      const leaks = frames.received.filter((f) => /skulker|\[6,4\]/i.test(f));
      const screen = /skulker/i.test(await page.locator("body").innerText());
      if (leaks.length || screen) found[p] = { frames: leaks.length, screen, first: leaks[0]?.slice(0, 300) };
    }
    assert.deepEqual(found, {}, "neither player received or sees anything of Skulker");
    assert.deepEqual(errors, []);
  });

  it("the map rings the token whose turn it is", async () => {
    const tracker = gm.getByRole("region", { name: "Turn order" });
    await tracker.getByRole("button", { name: "Start an encounter…" }).click();
    const form = gm.getByRole("form", { name: "Start an encounter", exact: true });
    await form.waitFor();
    for (const name of ["Frody", "Lia"]) await form.getByRole("checkbox", { name }).check();
    await form.getByLabel("Initiative dice", { exact: true }).fill("1d1");
    await submit(form, "Start an encounter");
    const cy = players.cy.page;
    await until("cy's map marks Frody's turn", async () => (await tokens(cy)).some((t) => t.startsWith("Frody (their turn)")));
    assert.ok(!(await tokens(cy)).some((t) => t.startsWith("Lia (their turn)")), "only the one whose turn it is");
  });
});
