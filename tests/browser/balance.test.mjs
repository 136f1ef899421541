// Browser test of the GM's Balance screen against `houserule serve`: the GM sets a Fumbles
// table (Gandolf alone against the goblin war band), adds a house rule (successes on 3+), and
// plays the balance lab from the table as it stands: both sides progress together, the lab can
// be stopped, the same seed gives the same figures, the house rule wins far more often, and the
// two histograms of turns are drawn over each other. Screenshot: balance-lab.
//
// Run: npm --prefix ui run build && cargo build -p houserule, then in ui/:
// node --test --test-concurrency=1 ../tests/browser/balance.test.mjs

import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { launchBrowser, openPage, screenshot, startServer, until, openAction, submit, pickPlayer, writeHouseRule } from "./support.mjs";

/** The figures the results table shows, row by row. */
async function figures(page) {
  return page.getByRole("table").first().innerText();
}

describe("the balance lab", { timeout: 300_000 }, () => {
  let browser, server, gm;
  const errors = [];
  before(async () => {
    browser = await launchBrowser();
    server = await startServer();
    ({ page: gm } = await openPage(browser, server.url, errors));
    await gm.getByLabel("GM secret").fill(server.secret);
    await gm.getByRole("button", { name: "Join as GM" }).click();
    await gm.getByRole("radio", { name: "Fumbles", exact: true }).check();
    await gm.getByRole("button", { name: "Create campaign" }).click();
    await gm.getByRole("heading", { level: 1, name: "Fumbles", exact: true }).waitFor();
  });
  after(async () => {
    await server?.stop();
    await browser?.close();
  });

  it("plays the table as it stands with and without the house rules, shows progress, stops, and draws both histograms", async () => {
    // With nothing on the table the lab says there is no scene to play.
    await gm.getByRole("tab", { name: "Balance" }).click();
    await gm.getByRole("button", { name: "Play", exact: true }).click();
    await gm.getByRole("alert").filter({ hasText: "no scene to play" }).waitFor();

    await gm.getByRole("tab", { name: "Table" }).click();
    const create = await openAction(gm, "Create a character");
    await create.getByLabel("Name", { exact: true }).fill("Gandolf");
    await pickPlayer(create, "Owner", "ann");
    await create
      .getByLabel("Traits", { exact: true })
      .fill("IQ of 180, Magic!, Barrier, Fireball, Levitate, Scorching Hellfire, pyromaniac, dead-pan snarker, wizard staff");
    await submit(create, "Create a character");
    const start = await openAction(gm, "Start a challenge");
    await start.getByLabel("Name", { exact: true }).fill("Goblin war band");
    await start.getByLabel("CR", { exact: true }).fill("6");
    await start.getByLabel("Toughness", { exact: true }).fill("2");
    await start.getByLabel("Smash", { exact: true }).fill("1");
    await submit(start, "Start a challenge");

    // The ruleset alone: one side, and a hint to add a house rule.
    await gm.getByRole("tab", { name: "Balance" }).click();
    await gm.getByRole("spinbutton", { name: "Runs on each side" }).fill("400");
    await gm.getByRole("button", { name: "Play again" }).click();
    await gm.getByRole("heading", { name: /^Done/ }).waitFor({ timeout: 60_000 });
    assert.match(await gm.getByRole("region", { name: /Done/ }).innerText(), /no house rules yet/);
    assert.equal(await gm.locator("progress").count(), 1);

    // A house rule: successes on 3+.
    const editorPanel = await writeHouseRule(gm, "three-up.rhai", "// Successes on 3+ at our table.\nfn success_face() { original() - 1 }\n");
    await editorPanel.getByRole("status").filter({ hasText: "Saved three-up.rhai" }).waitFor();

    // A long lab: it shows progress on both sides and stops when asked.
    await gm.getByRole("tab", { name: "Balance" }).click();
    await gm.getByRole("spinbutton", { name: "Runs on each side" }).fill("100000");
    await gm.getByRole("button", { name: "Play again" }).click();
    await gm.getByRole("heading", { name: /^Playing/ }).waitFor();
    assert.equal(await gm.locator("progress").count(), 2, "a progress bar per side");
    await until("both sides have played some runs", async () => {
      const values = await gm.locator("progress").evaluateAll((ps) => ps.map((p) => p.value));
      return values.every((v) => v > 0);
    }, 60_000);
    await gm.getByRole("button", { name: "Stop", exact: true }).click();
    await gm.getByRole("heading", { name: /^Stopped/ }).waitFor({ timeout: 30_000 });
    const [a, b] = await gm.locator("progress").evaluateAll((ps) => ps.map((p) => p.value));
    assert.ok(a === b && a < 100000, `both sides stop at the same round (${a}, ${b})`);

    // 2,000 runs: the figures, twice with the same seed.
    await gm.getByRole("spinbutton", { name: "Runs on each side" }).fill("2000");
    await gm.getByRole("spinbutton", { name: "Seed" }).fill("5");
    await gm.getByRole("button", { name: "Play again" }).click();
    await gm.getByRole("heading", { name: /^Done/ }).waitFor({ timeout: 120_000 });
    const first = await figures(gm);
    const rates = [...first.matchAll(/(\d+\.\d)%\s*\(95%/g)].map((m) => Number(m[1]));
    assert.equal(rates.length, 2, first);
    assert.ok(rates[0] < 10 && rates[1] > rates[0] + 10, `successes on 3+ win far more often: ${rates}`);
    const hist = gm.getByRole("img", { name: /Turns to finish: The ruleset alone and With three-up\.rhai/ });
    await hist.waitFor();
    assert.ok((await hist.locator(".series-0 rect").count()) > 2 && (await hist.locator(".series-1 rect").count()) > 2, "two histograms");
    await screenshot(gm, "balance-lab");
    // The heading still reads "Done" from the first run until the second starts playing.
    await gm.getByRole("button", { name: "Play again" }).click();
    await gm.getByRole("heading", { name: /^Playing/ }).waitFor();
    await gm.getByRole("heading", { name: /^Done/ }).waitFor({ timeout: 120_000 });
    assert.equal(await figures(gm), first, "the same seed gives the same figures");
    assert.deepEqual(errors, [], "no page errors");
  });
});
