// The GM in a browser can do what the desktop GM can (issue 36, point 5), against `houserule
// serve`: take every action from an earlier entry on back ("Undo from here"), download a full
// copy and a player's copy of the campaign (each a file `houserule verify` calls sound, the
// player's holding none of the GM's secrets), check the campaign, reading what each check
// found, and open a table served to this computer only to the network without a restart (a
// player on the network address joins by her link; closed again, her page is told).
//
// Run: npm --prefix ui run build, then in ui/:
// HOUSERULE_BIN=… node --test --test-concurrency=1 ../tests/browser/gm_browser.test.mjs

import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { gmCreates, houseruleBin, inviteLink, launchBrowser, openAction, openPage, startServer, submit, until } from "./support.mjs";

function verify(file) {
  try {
    return JSON.parse(execFileSync(houseruleBin(), ["verify", file, "--json"], { encoding: "utf8" }));
  } catch (e) {
    return JSON.parse(e.stdout);
  }
}

async function createNpc(gm, name, notes) {
  const form = await openAction(gm, "Create an NPC");
  await form.getByLabel("Name", { exact: true }).fill(name);
  if (notes) await form.getByLabel(/notes/i).first().fill(notes);
  await submit(form, "Create an NPC");
}

describe("the GM in a browser", { timeout: 180_000 }, () => {
  let server;
  let browser;
  let gm;
  const errors = [];
  const downloads = mkdtempSync(join(tmpdir(), "houserule-downloads-"));

  before(async () => {
    server = await startServer();
    browser = await launchBrowser();
    ({ page: gm } = await openPage(browser, server.url, errors));
    await gmCreates(gm, server, "Generic table", "In the browser");
    await inviteLink(gm, "ann");
    await gm.getByRole("tab", { name: "Table", exact: true }).click();
    await createNpc(gm, "Goblin", "zq-the-goblin-is-a-spy");
    await createNpc(gm, "Orc");
    await createNpc(gm, "Troll");
  });

  after(async () => {
    await browser?.close();
    await server?.stop();
  });

  it("takes every action from an earlier entry on back", async () => {
    const log = gm.getByRole("list", { name: "Log" });
    const orc = log.locator("li.log-entry").filter({ hasText: "Orc" }).first();
    await orc.getByRole("button", { name: "Undo from here" }).click();
    await orc.getByRole("button", { name: "Yes, undo it" }).click();
    await until("Orc and Troll are voided", async () => (await log.locator(".voided-badge").count()) === 2);
    const board = gm.locator(".board");
    await until("the board has only the Goblin", async () => {
      const text = await board.innerText();
      return text.includes("Goblin") && !text.includes("Orc") && !text.includes("Troll");
    });
    assert.ok(verify(server.file).ok, "the served file verifies after the undo");
  });

  it("downloads a full copy and a player's copy that verify, and the player's holds no secret", async () => {
    await gm.getByRole("tab", { name: "Players", exact: true }).click();
    const card = gm.getByRole("region", { name: "Share the campaign" });
    const saved = {};
    for (const [label, key] of [["everything (another GM)", "full"], ["ann (a player’s copy)", "ann"]]) {
      await card.getByLabel("Copy for").selectOption({ label });
      const [download] = await Promise.all([gm.waitForEvent("download"), card.getByRole("button", { name: "Download a copy" }).click()]);
      saved[key] = join(downloads, download.suggestedFilename());
      await download.saveAs(saved[key]);
      await card.getByRole("status").waitFor();
    }
    assert.match(saved.ann, /-for-ann\.houserule$/);
    for (const file of Object.values(saved)) assert.ok(verify(file).ok, `${file} verifies: ${JSON.stringify(verify(file).checks)}`);
    assert.ok(readFileSync(saved.full).includes("zq-the-goblin-is-a-spy"), "the full copy holds the GM's notes");
    assert.ok(!readFileSync(saved.ann).includes("zq-the-goblin-is-a-spy"), "ann's copy holds none of the GM's notes");
  });

  it("opens the table to the network and closes it again, with nobody here disconnected", async () => {
    await gm.getByRole("tab", { name: "Players", exact: true }).click();
    const hosting = gm.getByRole("region", { name: "Hosting" });
    await hosting.getByText("Only browsers on this computer can reach it.").waitFor();
    await hosting.getByRole("button", { name: "Open to your network" }).click();
    await hosting.getByRole("button", { name: "Close to other computers" }).waitFor();
    const address = await hosting.locator(".table-address").textContent();
    assert.match(address, /^http:\/\/(\d+\.){3}\d+:\d+\/$/, `a network address: ${address}`);
    assert.ok(!address.startsWith("http://127."), `not this computer's own address: ${address}`);

    const link = await inviteLink(gm, "bo");
    assert.ok(link.startsWith(`${address}#join=`), `bo's link is on the network address: ${link}`);
    // bo's page keeps trying to join once the table is closed (for when it opens again): the
    // browser logs each refused try, and nothing else may go wrong there.
    const boErrors = [];
    const { page: bo } = await openPage(browser, link, boErrors);
    await bo.getByText("You joined as").or(bo.locator(".board")).first().waitFor();

    await gm.getByRole("tab", { name: "Players", exact: true }).click();
    await hosting.getByRole("button", { name: "Close to other computers" }).click();
    await hosting.getByRole("button", { name: "Open to your network" }).waitFor();
    await bo.getByRole("alert").filter({ hasText: "The GM closed the table to other computers" }).waitFor();
    await gm.getByRole("tab", { name: "Table", exact: true }).click();
    await gm.locator(".board").getByRole("heading", { name: "Goblin" }).waitFor();
    await bo.context().close();
    assert.deepEqual(boErrors.filter((e) => !/WebSocket connection to .* failed: .*ERR_CONNECTION_REFUSED/.test(e)), [], "bo's page: no error but the refused tries");
  });

  it("checks the campaign and says what each check found", async () => {
    await gm.getByRole("tab", { name: "Players", exact: true }).click();
    const card = gm.getByRole("region", { name: "Check the campaign" });
    await card.getByRole("button", { name: "Check the campaign" }).click();
    const status = card.getByRole("status");
    await status.waitFor();
    const text = await status.innerText();
    assert.match(text, /The file is sound: \d+ events checked/);
    for (const check of ["chain", "dice", "rules"]) assert.ok(text.includes(check), `${check} is listed: ${text}`);
    assert.deepEqual(errors, [], "no page errors");
  });
});
