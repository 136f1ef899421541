// Dice in a post (issue 36, point 2), against `houserule serve` on Fumbles with the GM and one
// player (ann): ann rolls `[[1d100]]` for a random table in a post; both screens show the total
// in the text and the die below it; `houserule verify` on the served file recomputes the roll
// from the seed; a roll to the GM alone reaches nobody else; a broken expression is refused
// with the column it is at, and nothing is posted. Screenshot: inline-roll (target/screenshots/,
// or HOUSERULE_SCREENSHOTS).
//
// Run: npm --prefix ui run build, then in ui/:
// HOUSERULE_BIN=… node --test --test-concurrency=1 ../tests/browser/inline.test.mjs

import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { gmCreates, houseruleBin, inviteLink, launchBrowser, openPage, openRecordedPage, screenshot, startServer, until } from "./support.mjs";

function postBox(page) {
  return page.getByRole("region", { name: "Write a post" });
}

async function post(page, text, audience = null) {
  const box = postBox(page);
  if (audience) await box.getByLabel("To", { exact: true }).selectOption({ label: audience });
  await box.getByRole("textbox", { name: /^(.+ says|Your post)$/ }).fill(text);
  await box.locator("form.post-send").getByRole("button").click();
}

/** The verify report of the served file, as JSON. */
function verify(file) {
  return JSON.parse(execFileSync(houseruleBin(), ["verify", file, "--json"], { encoding: "utf8" }));
}

describe("dice rolled in a post", { timeout: 180_000 }, () => {
  let server;
  let browser;
  let gm;
  let ann;
  let gmFrames;
  const errors = [];

  before(async () => {
    server = await startServer();
    browser = await launchBrowser();
    ({ page: gm, frames: gmFrames } = await openRecordedPage(browser, server.url, errors));
    await gmCreates(gm, server, "Fumbles", "Random tables");
    ({ page: ann } = await openPage(browser, await inviteLink(gm, "ann"), errors));
    await postBox(ann).waitFor();
  });

  after(async () => {
    await browser?.close();
    await server?.stop();
  });

  it("a player's [[1d100]] is rolled, shown to everyone in the text and below it, and verify recomputes it", async () => {
    const before = verify(server.file).rolls_recomputed;
    await post(ann, "The wandering table says [[1d100]].");
    const rolled = /1d100 → (\d+)/;
    for (const [who, page] of [["ann", ann], ["the GM", gm]]) {
      const entry = page.locator("li.log-entry.kind-post").filter({ hasText: "The wandering table says" });
      await until(`${who} sees the roll in the post`, async () => rolled.test(await entry.innerText()));
      const total = Number(rolled.exec(await entry.innerText())[1]);
      assert.ok(total >= 1 && total <= 100, `${who} sees a d100's total: ${total}`);
      await entry.getByRole("group", { name: "Dice rolled in the post" }).or(entry.locator(".inline-rolls")).first().waitFor();
    }
    await ann.locator("li.log-entry.kind-post").filter({ hasText: "The wandering table says" }).scrollIntoViewIfNeeded();
    await screenshot(ann, "inline-roll");
    const report = verify(server.file);
    assert.equal(report.ok, true, JSON.stringify(report.checks));
    assert.equal(report.rolls_recomputed, before + 1, "verify recomputes the post's roll from the seed");
  });

  it("a roll to the GM alone is not sent to anyone else, and a broken one is refused at its column", async () => {
    const cy = await openRecordedPage(browser, await inviteLink(gm, "cy"), errors);
    await postBox(cy.page).waitFor();
    await post(ann, "/r 1d20+7", "The GM only");
    await until("the GM sees ann's roll", async () => /1d20\+7/.test(await gm.locator(".col-log").innerText()));
    await post(ann, "Everyone: the door creaks.");
    await until("cy sees the later post", async () => (await cy.page.locator(".col-log").innerText()).includes("the door creaks"));
    assert.ok(!cy.frames.received.some((f) => f.includes("1d20+7")), "cy's browser never received the GM's roll");

    await post(ann, "I try [[2d6+]] now");
    const alert = postBox(ann).locator(".field-error");
    await until("ann is told what is wrong and where", async () => /dice at column \d+/.test(await alert.innerText()));
    assert.equal(await postBox(ann).getByRole("textbox", { name: /^(.+ says|Your post)$/ }).inputValue(), "I try [[2d6+]] now", "what she typed stays");
    assert.ok(!gmFrames.received.some((f) => f.includes("I try [[2d6+]]")), "nothing was posted");
    assert.deepEqual(errors, []);
  });
});
