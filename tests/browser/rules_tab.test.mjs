// The Rules tab (issue 36, point 1), against `houserule serve` on Fumbles with the GM and one
// player (ann): while ann is connected the GM adds a house rule; ann opens Rules and reads what
// it does (in words), its source and that the last change added it, and the ruleset's README.
// A house rule the GM keeps secret from its first save never reaches ann's browser: not its
// name, its source nor what it does, in any WebSocket frame or on screen. The README is the
// ruleset author's and untrusted: the copy of Fumbles served here carries hostile HTML and a
// javascript: link in its README, and neither becomes markup or a link in the page.
//
// Run: npm --prefix ui run build, then in ui/:
// HOUSERULE_BIN=… node --test --test-concurrency=1 ../tests/browser/rules_tab.test.mjs

import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { delimiter, join } from "node:path";
import { gmCreates, inviteLink, launchBrowser, openPage, openRecordedPage, repo, screenshot, startServer, until } from "./support.mjs";

const PUBLIC_RULE = "louder-hero-points.rhai";
const PUBLIC_TEXT = `// Our table says Hero Points out loud.\nfn hero_points_text(n) { original(n) + " (out loud)" }\n`;
const SECRET_RULE = "dragon-twist.rhai";
const SECRET_MARK = "THE-DRAGON-IS-HIS-MOTHER";
const SECRET_TEXT = `// ${SECRET_MARK}\nfn reward_text(reward, amount) { original(reward, amount) }\n`;

/** A copy of Fumbles whose README carries hostile HTML and a javascript: link. */
function hostileFumbles() {
  const dir = mkdtempSync(join(tmpdir(), "houserule-plugins-"));
  cpSync(join(repo, "plugins", "fumbles"), join(dir, "fumbles"), { recursive: true });
  const readme = join(dir, "fumbles", "README.md");
  writeFileSync(
    readme,
    `${readFileSync(readme, "utf8")}\n\n## Hostile part\n\n<img src=x onerror="window.pwned=1"><script>window.pwned=2</script>\n\n[click me](javascript:window.pwned=3)\n`,
  );
  return dir;
}

/** The GM writes a new house rule in the editor, kept secret from its first save or not. */
async function addHouseRule(gm, file, text, secret) {
  await gm.getByRole("tab", { name: "House rules" }).click();
  const editor = gm.getByRole("region", { name: "House rule editor" });
  await gm.getByRole("button", { name: "+ New house rule" }).click();
  await editor.getByLabel("File name").fill(file);
  if (secret) await editor.getByLabel("Keep it secret from players").check();
  const box = gm.getByRole("textbox", { name: "House rule text" });
  await box.click();
  await gm.keyboard.press("ControlOrMeta+a");
  await gm.keyboard.insertText(text);
  await editor.getByRole("button", { name: "Save and reload" }).click();
  await editor.getByRole("status").filter({ hasText: `Saved ${file}` }).waitFor();
}

describe("the Rules tab", { timeout: 180_000 }, () => {
  let server;
  let browser;
  let gm;
  let ann;
  let annFrames;
  let plugins;
  const errors = [];

  before(async () => {
    plugins = hostileFumbles();
    const was = process.env.HOUSERULE_PLUGINS;
    process.env.HOUSERULE_PLUGINS = [plugins, join(repo, "plugins")].join(delimiter);
    try {
      server = await startServer();
    } finally {
      if (was === undefined) delete process.env.HOUSERULE_PLUGINS;
      else process.env.HOUSERULE_PLUGINS = was;
    }
    browser = await launchBrowser();
    ({ page: gm } = await openPage(browser, server.url, errors));
    await gmCreates(gm, server, "Fumbles", "Rules night");
    ({ page: ann, frames: annFrames } = await openRecordedPage(browser, await inviteLink(gm, "ann"), errors));
    await ann.getByRole("tab", { name: "Rules", exact: true }).waitFor();
  });

  after(async () => {
    await browser?.close();
    await server?.stop();
    if (plugins) rmSync(plugins, { recursive: true, force: true });
  });

  it("a player reads a house rule the GM just added: what it does, its source, and that it is new", async () => {
    await ann.getByRole("tab", { name: "Rules", exact: true }).click();
    const rules = ann.getByRole("main", { name: "Rules" });
    await rules.getByText("This table plays the ruleset as written").waitFor();

    await addHouseRule(gm, PUBLIC_RULE, PUBLIC_TEXT, false);

    const rule = rules.getByRole("article", { name: new RegExp(PUBLIC_RULE.replace(".", "\\.")) });
    await rule.waitFor();
    const shown = await rule.innerText();
    assert.match(shown, /Changes the ruleset's “hero points text”, building on the ruleset's own/, shown);
    assert.match(shown, /new in the last change/i, shown);
    await rule.getByText("Its source (read-only)").click();
    assert.match(await rule.locator("pre").innerText(), /Our table says Hero Points out loud/);
    const change = rules.getByRole("region", { name: "The last change of the rules" });
    assert.match(await change.innerText(), new RegExp(`The house rule ${PUBLIC_RULE.replace(".", "\\.")} was added`));

    const readme = rules.getByRole("region", { name: /Fumbles/ });
    await readme.getByRole("heading", { name: "The rules as implemented" }).waitFor();
    await screenshot(ann, "rules-tab");
  });

  it("the ruleset's README shows its HTML as text and keeps no javascript: link", async () => {
    const readme = ann.getByRole("main", { name: "Rules" }).locator(".markdown");
    await readme.getByText("Hostile part").waitFor();
    assert.equal(await readme.locator("img, script").count(), 0, "no element of the README's own HTML is in the page");
    assert.match(await readme.innerText(), /<img src=x onerror=/, "the HTML shows as text");
    assert.equal(await readme.locator('a[href^="javascript"]').count(), 0, "the javascript: link is not a link");
    assert.equal(await ann.evaluate(() => window.pwned), undefined, "nothing of the README ran");
  });

  it("a house rule the GM keeps secret never reaches the player's browser", async () => {
    const from = annFrames.received.length;
    await addHouseRule(gm, SECRET_RULE, SECRET_TEXT, true);
    // The GM's own book marks it; the player's log tells only that a secret rule changed.
    await gm.getByRole("tab", { name: "Rules", exact: true }).click();
    const gmRule = gm.getByRole("article", { name: new RegExp(SECRET_RULE.replace(".", "\\.")) });
    await gmRule.getByText("secret: only you see it").waitFor();
    await ann.getByRole("tab", { name: "Table" }).click();
    await until("ann's log tells a secret rule changed", async () => (await ann.getByRole("list", { name: "Log" }).innerText()).includes("keep secret"));
    await ann.getByRole("tab", { name: "Rules", exact: true }).click();
    const rules = ann.getByRole("main", { name: "Rules" });
    await until("ann's book is read again after the change", async () => (await annFrames.received.slice(from).some((f) => f.includes('"house"'))) === true);
    await rules.getByRole("article", { name: new RegExp(PUBLIC_RULE.replace(".", "\\.")) }).waitFor();

    const leaks = annFrames.received.filter((f) => f.includes("dragon-twist") || f.includes(SECRET_MARK));
    assert.deepEqual(leaks.map((f) => f.slice(0, 300)), [], "no frame ann received names the secret rule or carries its source");
    assert.ok(annFrames.received.length > from, "ann's browser was told of the change");
    const screen = await ann.locator("body").innerText();
    assert.ok(!screen.includes("dragon-twist") && !screen.includes(SECRET_MARK), "ann's screen shows nothing of it");
    assert.deepEqual(errors, []);
  });
});
