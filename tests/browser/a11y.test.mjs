// Readable for everyone (issue 36, point 6): axe-core, run inside the page, finds no serious or
// critical violation on the GM's screens (table with a map and the turn tracker, house rules,
// players, balance) nor on a player's table.
//
// Run: npm --prefix ui run build, then in ui/:
// HOUSERULE_BIN=… node --test --test-concurrency=1 ../tests/browser/a11y.test.mjs

import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { createRequire } from "node:module";
import { readFileSync } from "node:fs";
import { gmCreates, inviteLink, launchBrowser, openAction, openPage, pickPlayer, startServer, submit } from "./support.mjs";

const require = createRequire(new URL("../../ui/package.json", import.meta.url));
const AXE = readFileSync(require.resolve("axe-core/axe.min.js"), "utf8");

/** The serious and critical violations axe finds on the page now, as short lines. */
async function violations(page) {
  if (!(await page.evaluate(() => typeof window.axe !== "undefined"))) await page.evaluate(AXE); // through the debugger, as a tool does: the page itself allows no inline script
  const found = await page.evaluate(async () => {
    const r = await window.axe.run(document, { resultTypes: ["violations"] });
    return r.violations
      .filter((v) => v.impact === "serious" || v.impact === "critical")
      .map((v) => `${v.id} (${v.impact}): ${v.nodes.slice(0, 3).map((n) => n.target.join(" ")).join(" | ")}`);
  });
  return found;
}

describe("axe finds nothing serious", { timeout: 240_000 }, () => {
  let server;
  let browser;
  let gm;
  let player;
  const errors = [];

  before(async () => {
    server = await startServer();
    browser = await launchBrowser();
    ({ page: gm } = await openPage(browser, server.url, errors));
    await gmCreates(gm, server, "Generic table", "Access");
    const form = await openAction(gm, "Create a character");
    await pickPlayer(form, "Owner", "bo");
    await form.getByLabel("Name", { exact: true }).fill("Frody");
    await submit(form, "Create a character");
    const map = gm.getByRole("region", { name: "Map" });
    await map.getByLabel("New scene", { exact: true }).fill("The Street");
    await map.getByRole("button", { name: "Make scene" }).click();
    await map.locator('polygon.cell[data-cell="0,0"]').waitFor();
    await map.getByRole("button", { name: "Place tokens" }).click();
    await map.getByLabel("Place", { exact: true }).selectOption({ label: "Frody" });
    await map.locator('polygon.cell[data-cell="1,1"]').click();
    await map.getByRole("button", { name: "Show to players" }).click();
    ({ page: player } = await openPage(browser, await inviteLink(gm, "bo"), errors));
    await player.getByRole("region", { name: "Map" }).waitFor();
  });

  after(async () => {
    await browser?.close();
    await server?.stop();
  });

  it("on each of the GM's screens and on a player's table", async () => {
    const found = {};
    for (const tab of ["Table", "House rules", "Players", "Balance"]) {
      await gm.getByRole("tab", { name: tab }).click();
      await gm.waitForTimeout(300);
      const v = await violations(gm);
      if (v.length) found[`GM ${tab}`] = v;
    }
    const v = await violations(player);
    if (v.length) found["player table"] = v;
    assert.deepEqual(found, {}, "serious or critical accessibility violations");
    assert.deepEqual(errors, []);
  });
});
