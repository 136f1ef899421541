// Readable for everyone (issue 36, point 6): axe-core, run inside the page, finds no serious or
// critical violation, and no landmark problem, on every screen — the join page, the GM's start,
// and on a campaign with a map picture, a token, an encounter, rolls of every sort (one undone)
// and a house rule: the table (its map, and on a narrow screen its Actions and Log panels), the
// Rules tab, the house-rule editor, Handouts, Players and Balance for the GM, and a player's table, Rules, Handouts,
// Actions and Log — each in light and dark, on a desktop (1280×800) and a phone (390×844). On a
// phone there is one navigation bar. Phone screenshots in dark go to target/screenshots/a11y-*.png.
//
// Run: npm --prefix ui run build, then in ui/:
// HOUSERULE_BIN=… node --test --test-concurrency=1 ../tests/browser/a11y.test.mjs

import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { createRequire } from "node:module";
import { readFileSync } from "node:fs";
import { gmCreates, inviteLink, launchBrowser, openAction, openHandouts, openPage, pickPlayer, png, screenshot, showHandout, startServer, submit, until, writeHandout, writeHouseRule } from "./support.mjs";

const require = createRequire(new URL("../../ui/package.json", import.meta.url));
const AXE = readFileSync(require.resolve("axe-core/axe.min.js"), "utf8");

const SIZES = { desktop: { width: 1280, height: 800 }, phone: { width: 390, height: 844 } };
const SCHEMES = ["light", "dark"];
/** How many of a violation's nodes a failure names (A11Y_NODES=100 names them all). */
const NODES = Number(process.env.A11Y_NODES ?? 3);

/**
 * What axe finds on the page now that fails us: every serious or critical violation, and every
 * landmark violation (`region`: content outside a landmark, and the `landmark-*` rules, which
 * axe rates moderate and tags best-practice — enabled here by name), as short lines.
 */
async function violations(page) {
  if (!(await page.evaluate(() => typeof window.axe !== "undefined"))) await page.evaluate(AXE); // through the debugger, as a tool does: the page itself allows no inline script
  return page.evaluate(async (shown) => {
    const landmark = (id) => id === "region" || id.startsWith("landmark-");
    const rules = {};
    for (const r of window.axe.getRules()) if (landmark(r.ruleId)) rules[r.ruleId] = { enabled: true };
    const r = await window.axe.run(document, { resultTypes: ["violations"], rules });
    return r.violations
      .filter((v) => v.impact === "serious" || v.impact === "critical" || landmark(v.id))
      .map((v) => {
        const nodes = v.nodes.slice(0, shown).map((n) => `${n.target.join(" ")}${n.any[0]?.message ? ` — ${n.any[0].message}` : ""}`);
        return `${v.id} (${v.impact}, ${v.nodes.length} nodes): ${v.help}\n      ${nodes.join("\n      ")}`;
      });
  }, NODES);
}

/**
 * The navigation bars a person sees: visible tab lists, nav landmarks and groups of pressed
 * buttons laid out as a bar (wider than half the screen, one short row), outermost only.
 */
async function navBars(page) {
  return page.evaluate(() =>
    [...document.querySelectorAll('[role="tablist"], nav, [role="navigation"], :not([role=toolbar]):has(> button[aria-pressed])')]
      .filter((e) => e.getClientRects().length > 0 && getComputedStyle(e).visibility !== "hidden")
      .filter((e) => {
        const r = e.getBoundingClientRect();
        return r.width > innerWidth / 2 && r.height < 72;
      })
      .filter((e, _, all) => !all.some((o) => o !== e && o.contains(e)))
      .map((e) => e.getAttribute("aria-label") ?? e.tagName),
  );
}

/** A PNG of `w`×`h` pixels in a few soft colours (a map picture). */
const mapPng = (w, h) => png(w, h, (x, y) => ((x >> 4) % 2 === (y >> 4) % 2 ? [190, 170, 130] : [120, 140, 110]));
/** A small PNG: a wax seal in two colours. */
const sealPng = (w, h) => png(w, h, (x, y) => ((x - w / 2) ** 2 + (y - h / 2) ** 2 < (w / 3) ** 2 ? [170, 20, 30] : [240, 230, 200]));

/**
 * Checks `screen` on `page` in every scheme and size: `open(page, size)` shows it (called again
 * after each change of size, as a narrow screen shows other panels). Returns the failures, each
 * naming the screen, the scheme and the size.
 */
async function check(page, screen, open) {
  const found = [];
  for (const [size, viewport] of Object.entries(SIZES)) {
    for (const scheme of SCHEMES) {
      await page.setViewportSize(viewport);
      await page.emulateMedia({ colorScheme: scheme, reducedMotion: "reduce" });
      // The page lays itself out for the new size when its media queries report the change (in
      // the next rendering step) and the UI re-renders its bar: a click before then lands on a
      // button that is being turned into another one (the bar's buttons are reused by place).
      await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(() => setTimeout(r, 0)))));
      try {
        await open(page, size);
      } catch (e) {
        // What the screen showed instead, to find the cause from CI's output alone.
        await screenshot(page, `a11y-failed-${screen.replace(/\W+/g, "-").toLowerCase()}-${size}-${scheme}`);
        const shown = (await page.locator("body").innerText()).slice(0, 1500);
        throw new Error(`${screen} · ${scheme} · ${size} did not open: ${e.message}\nThe page showed:\n${shown}`);
      }
      await page.waitForTimeout(250);
      for (const v of await violations(page)) found.push(`${screen} · ${scheme} · ${size}: ${v}`);
      if (size === "phone") {
        const bars = await navBars(page);
        if (bars.length > 1) found.push(`${screen} · ${scheme} · ${size}: ${bars.length} navigation bars (${bars.join(", ")}), a phone shows one`);
        if (scheme === "dark") await screenshot(page, `a11y-${screen.replace(/\W+/g, "-").toLowerCase()}-phone-dark`);
      }
    }
  }
  await page.setViewportSize(SIZES.desktop);
  await page.emulateMedia({ colorScheme: "light" });
  return found;
}

/** Picks a tab of the header (on a narrow screen the table's panels are tabs of their own). */
const tab = (name) => async (page) => {
  await page.getByRole("tab", { name, exact: true }).click();
};

/** The table, with its panel `pane` shown where one panel shows at a time. */
const pane = (name) => async (page, size) => {
  await page.getByRole("tab", { name: size === "phone" ? name : "Table", exact: true }).click();
  if (name === "Table") await page.getByRole("region", { name: "Map" }).waitFor();
};

describe("axe finds nothing serious, on every screen, light and dark, desktop and phone", { timeout: 600_000 }, () => {
  let server;
  let browser;
  let gm;
  let player;
  const errors = [];
  const failures = [];

  before(async () => {
    server = await startServer();
    browser = await launchBrowser();
  });

  after(async () => {
    await browser?.close();
    await server?.stop();
  });

  it("the join page and the GM's start", async () => {
    // The join page as a player sees it from a link that does not work: the forms and why.
    const { page: stranger } = await openPage(browser, `${server.url}#join=0123456789abcdef`, errors);
    await stranger.getByRole("alert").filter({ hasText: "Could not join" }).waitFor();
    failures.push(...(await check(stranger, "join", async (p) => p.getByLabel("Your join link").waitFor())));
    ({ page: gm } = await openPage(browser, server.url, errors));
    await gm.getByLabel("GM secret").fill(server.secret);
    await gm.getByRole("button", { name: "Join as GM" }).click();
    await gm.getByRole("radio", { name: "Generic table", exact: true }).check();
    failures.push(...(await check(gm, "start", async (p) => p.getByLabel("Campaign name").waitFor())));
    await gm.getByLabel("Campaign name").fill("Access");
    await gm.getByRole("button", { name: "Create campaign" }).click();
    await gm.getByRole("heading", { name: "Access", level: 1, exact: true }).waitFor();
  });

  it("the GM's screens and a player's, with a map picture, a token, the tracker and a house rule", async () => {
    const form = await openAction(gm, "Create a character");
    await pickPlayer(form, "Owner", "bo");
    await form.getByLabel("Name", { exact: true }).fill("Frody");
    await submit(form, "Create a character");
    const map = gm.getByRole("region", { name: "Map" });
    await map.getByLabel("New scene", { exact: true }).fill("The Street");
    await map.getByRole("button", { name: "Make scene" }).click();
    await map.locator('polygon.cell[data-cell="0,0"]').waitFor();
    await map.getByLabel("Import a map picture (PNG, JPEG or WebP)").setInputFiles({ name: "street.png", mimeType: "image/png", buffer: mapPng(320, 192) });
    await until("the map shows the picture", async () => (await map.locator("image.scene-picture").count()) === 1);
    await map.getByRole("button", { name: "Place tokens" }).click();
    await map.getByLabel("Place", { exact: true }).selectOption({ label: "Frody" });
    await map.locator('polygon.cell[data-cell="1,1"]').click();
    await map.getByRole("button", { name: "Show to players" }).click();
    // An encounter running, Frody's turn.
    await gm.getByRole("region", { name: "Turn order" }).getByRole("button", { name: "Start an encounter…" }).click();
    const encounter = gm.getByRole("form", { name: "Start an encounter", exact: true });
    await encounter.getByRole("checkbox", { name: "Frody" }).check();
    await encounter.getByLabel("Initiative dice", { exact: true }).fill("1d1");
    await submit(encounter, "Start an encounter");
    // Rolls of every sort in the log (kept, dropped, aces, successes), one of them undone.
    for (const expr of ["4d6kh3", "6d6!", "7d6cs>=4", "3d6cs>=4+2", "2d20kl1", "4dF+1"]) {
      const roll = await openAction(gm, "Roll dice");
      await roll.getByLabel("Dice", { exact: true }).fill(expr);
      await submit(roll, "Roll dice");
    }
    // A count with arithmetic around it shows the total it makes, and the successes in it.
    const counted = gm.locator(".roll").filter({ has: gm.locator("code.roll-expr", { hasText: "3d6cs>=4+2" }) }).first();
    const shown = (await counted.locator(".roll-total").innerText()).trim();
    const [, total, successes] = shown.match(/^= (\d+) \((\d+) success(?:es)?\)$/) ?? [];
    assert.ok(total !== undefined && Number(total) === Number(successes) + 2, `3d6cs>=4+2 shows its total and its successes: "${shown}"`);
    const last = gm.getByRole("list", { name: "Log" }).getByRole("listitem").first();
    await last.getByRole("button", { name: "Undo" }).click();
    await last.getByRole("button", { name: "Yes, undo it" }).click();
    await gm.locator(".log-entry.voided").first().waitFor();
    const editor = await writeHouseRule(gm, "kind_dice.rhai", '// Kinder dice for everyone.\nfn kinder(n) {\n    let best = n + 1;\n    best\n}\n');
    await editor.getByRole("status").filter({ hasText: "Saved kind_dice.rhai" }).waitFor();
    await writeHandout(gm, { title: "A letter", text: "Meet me at the *mill*.\n\n- come alone", picture: { name: "seal.png", buffer: sealPng(96, 64) } });
    await showHandout(gm, "A letter", { players: ["bo"] });
    await gm.getByRole("tab", { name: "Table" }).click();
    ({ page: player } = await openPage(browser, await inviteLink(gm, "bo"), errors));
    await player.getByRole("region", { name: "Map" }).waitFor();

    failures.push(...(await check(gm, "GM table", pane("Table"))));
    failures.push(...(await check(gm, "GM actions", pane("Actions"))));
    failures.push(...(await check(gm, "GM log", pane("Log"))));
    failures.push(...(await check(gm, "GM rules", tab("Rules"))));
    failures.push(
      ...(await check(gm, "GM house rules", async (p) => {
        await tab("House rules")(p);
        await p.getByRole("textbox", { name: "House rule text" }).waitFor();
      })),
    );
    failures.push(...(await check(gm, "GM handouts", (p) => openHandouts(p))));
    failures.push(...(await check(gm, "GM players", tab("Players"))));
    failures.push(...(await check(gm, "GM balance", tab("Balance"))));
    failures.push(...(await check(player, "player table", pane("Table"))));
    failures.push(...(await check(player, "player actions", pane("Actions"))));
    failures.push(...(await check(player, "player log", pane("Log"))));
    failures.push(...(await check(player, "player rules", tab("Rules"))));
    failures.push(
      ...(await check(player, "player handouts", async (p) => {
        await (await openHandouts(p)).getByRole("article", { name: "A letter" }).waitFor();
      })),
    );
  });

  it("has no serious violation, no landmark problem and one navigation bar on a phone", () => {
    assert.equal(failures.length, 0, `${failures.length} failures:\n  ${failures.join("\n  ")}`);
    assert.deepEqual(errors, []);
  });
});
