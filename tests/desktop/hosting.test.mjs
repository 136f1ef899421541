// The GM hosts the table from the desktop app: the real app window (driven through
// WebKitWebDriver) opens the Fumbles demo, starts hosting on the Players panel and makes Bo's
// join link; Bo opens it in Chromium and takes a trait check; the GM's window sees Bo connected
// and the roll in its log; the GM removes a second player, then stops hosting, and Bo's page
// says so while the port stops answering.
//
// Run under Xvfb (scripts/test does): xvfb-run -a node --test tests/desktop/hosting.test.mjs

import { test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdtempSync, mkdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { houseruleBin, launchBrowser, openAction, openPage, repo, screenshot, submit, until } from "../browser/support.mjs";
import { startApp } from "./webdriver.mjs";

const step = (what) => console.log(`# ${new Date().toISOString().slice(11, 19)} ${what}`);

const desktopBin = resolve(repo, process.env.HOUSERULE_DESKTOP_BIN ?? "target/debug/houserule-desktop");
const shots = resolve(repo, process.env.HOUSERULE_SCREENSHOTS ?? join("target", "screenshots"));

/** Who the app lists as connected now. */
const connected = (app) => app.run("return [...document.querySelectorAll('tr[data-connection] th')].map(th => th.textContent)");

/** Waits until the app's page text matches `pattern`. */
async function untilText(app, what, pattern, timeout = 20_000) {
  await until(what, async () => pattern.test(await app.run("return document.body.innerText")) || "not yet", timeout);
}

test("the GM hosts from the app, a player joins by the invite and acts, the GM removes and stops", { timeout: 120_000 }, async () => {
  const dir = mkdtempSync(join(tmpdir(), "houserule-hosting-"));
  execFileSync(houseruleBin(), ["demo", dir, "--ruleset", "fumbles"], { stdio: "ignore" });
  const file = join(dir, "fumbles-demo.houserule");
  const app = await startApp({ binary: desktopBin, args: [file], env: { XDG_DATA_HOME: join(dir, "data") } });
  const browser = await launchBrowser();
  const errors = [];
  try {
    await until("the app shows the demo campaign", async () => (await app.title()).startsWith("Demo: the goblin barbecue") || "not yet", 60_000);

    step("the app shows the demo");
    // Players → Start hosting (for the network, the default).
    await app.click(await app.findText("button", "Players"));
    await app.click(await app.findText("button", "Start hosting"));
    const address = await app.find(".table-address");
    await until("the app shows where it serves", async () => /^http:\/\/[\d.]+:\d+\/$/.test(await app.run("return arguments[0].textContent", address)) || "not yet");
    const url = await app.run("return arguments[0].textContent", address);

    // A join link for Bo, built on that address.
    const makeLink = async (player) => {
      const name = await app.find("#invite-name");
      await app.type(name, player);
      await app.click(await app.findText("button", "Make a join link"));
      const box = await app.find(`input[aria-label="Join link for ${player}"]`);
      const link = await app.run("return arguments[0].value", box);
      await app.click(await app.findText("button", "Done"));
      return link;
    };
    const link = await makeLink("bo");
    assert.ok(link.startsWith(`${url}#join=`), `the link is on the served address: ${link}`);

    step(`hosting at ${url}; bo's link made`);
    // Bo joins in a browser and takes a trait check with Frody.
    const { page: bo } = await openPage(browser, link, errors);
    await bo.getByRole("list", { name: "Log" }).waitFor();
    const check = await openAction(bo, "Trait check");
    await check.getByRole("group", { name: "Traits" }).getByLabel("agility", { exact: true }).check();
    await submit(check, "Trait check");

    step("bo took a trait check");
    // The GM's window: Bo is listed as connected; the roll is in the log.
    await until("the app lists bo as connected", async () => (await connected(app)).includes("bo") || (await connected(app)));
    await app.click(await app.findText("button", "Table"));
    await untilText(app, "the GM's log shows Bo's trait check", /Trait check[\s\S]*Frody|Frody[\s\S]*Trait check/);
    await app.click(await app.findText("button", "Players"));

    step("the GM sees bo and the roll");
    // A second player joins, and the GM removes them: their page says so and stays out.
    const annLink = await makeLink("ann");
    const { page: ann } = await openPage(browser, annLink, errors);
    await ann.getByRole("list", { name: "Log" }).waitFor();
    await until("the app lists ann as connected", async () => (await connected(app)).includes("ann") || (await connected(app)));
    await app.run(
      "const row = [...document.querySelectorAll('tr[data-connection]')].find(r => r.querySelector('th').textContent === 'ann'); row.querySelector('button').click();",
    );
    await app.click(await app.findText("button", "Remove ann"));
    await ann.getByText("The GM removed you from the table").waitFor();
    await untilText(app, "the app says ann was removed", /ann was removed: 1 connection closed/);
    await until("ann is no longer listed", async () => !(await connected(app)).includes("ann") || (await connected(app)));
    const links = () => app.run("return [...document.querySelectorAll('tr[data-player]')].map(r => r.innerText.replace(/\\s+/g, ' '))");
    await until("ann has no join link any more", async () => (await links()).some((r) => /^ann none\b/.test(r)) || (await links()));
    await new Promise((r) => setTimeout(r, 1500));
    assert.equal(await ann.getByText("The GM removed you from the table").count(), 1, "ann's page does not reconnect");

    step("ann removed");
    mkdirSync(shots, { recursive: true });
    // The screen as the GM sees it (WebKitWebDriver's own screenshot does not answer for a Tauri window).
    execFileSync("import", ["-window", "root", join(shots, "desktop-hosting.png")]);

    step("screenshot taken");
    // Stop hosting: Bo's page says the GM stopped, and nothing answers at the address.
    await app.click(await app.findText("button", "Stop hosting"));
    step("stop clicked");
    await bo.getByText("The GM stopped hosting the table").waitFor();
    step("bo's page says so");
    await until("the address stops answering", async () => {
      try {
        await fetch(url, { signal: AbortSignal.timeout(1000) });
        return "still answers";
      } catch {
        return true;
      }
    });
    await untilText(app, "the app offers to host again", /Let players in/);
    step("hosting stopped");
    await screenshot(bo, "hosting-stopped-player");
    assert.deepEqual(errors.filter((e) => !/WebSocket|ERR_CONNECTION_REFUSED|Failed to load resource/.test(e)), []);
  } finally {
    await browser.close();
    await app.quit();
    rmSync(dir, { recursive: true, force: true });
  }
});
