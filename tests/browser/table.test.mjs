// Browser end-to-end tests of the table UI against `houserule serve`:
// 1. the GM creates a Fumbles campaign, adds characters and a challenge through the action
//    forms, plays a challenge turn with dice typed in, and sees the CR drop and the dice;
// 2. a player joins in a second browser with the join link the GM made for her (copy link /
//    QR code), is remembered by her browser, sees all of it live and none of the GM-only
//    values, cannot act as another player by any message, cannot be reached from a page of
//    another origin, and may type in her own dice only once the GM allows it; the GM's list of
//    who is connected shows her as she comes, pushed by the server and never asked for again,
//    and her page is told nothing of hosting;
// 3. a house rule with a syntax error shows its file, line and column in the editor while
//    the table keeps working; then the rule is fixed and removed;
// 4. the GM undoes a roll: both browsers show it voided, the file verifies, and the next roll
//    does not reuse the voided roll's dice.
// Screenshots of the main screens go to target/screenshots/ (docs/screenshots/ with HOUSERULE_SCREENSHOTS=docs/screenshots).
//
// Run: npm --prefix ui run test:browser (after npm --prefix ui run build); HOUSERULE_BIN
// picks the binary (default: target/debug/houserule).

import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import {
  houseruleBin,
  inviteLink,
  launchBrowser,
  openRecordedPage,
  screenshot,
  startServer,
  until,
  openAction,
  submit,
  pickPlayer,
  writeHouseRule,
} from "./support.mjs";

const CAPSTONE_NOTE = "The chieftain arrives";

/** Scrolls the actions panel so an open form shows from its top (for the screenshots). */
async function showForm(page, label) {
  await page.getByRole("button", { name: label, exact: true, expanded: true }).evaluate((button) => {
    const panel = button.closest(".col-actions");
    if (panel) panel.scrollTop += button.getBoundingClientRect().top - panel.getBoundingClientRect().top - 8;
  });
}

function meter(page, entityName, label) {
  return page.getByRole("article", { name: entityName, exact: true }).getByRole("meter", { name: label });
}

async function meterValue(page, entityName, label) {
  return meter(page, entityName, label).getAttribute("aria-valuenow");
}

/** How many calls of `method` a page sent over its WebSocket. */
function calls(frames, method) {
  return frames.sent.filter((f) => JSON.parse(f).method === method).length;
}

/** How many events of `type` a page was pushed over its WebSocket. */
function events(frames, type) {
  return frames.received.filter((f) => JSON.parse(f).event?.type === type).length;
}

describe("the table in two browsers", { timeout: 240_000 }, () => {
  let server;
  let browser;
  let gm;
  let gmFrames;
  let ann;
  let annFrames;
  const errors = [];

  before(async () => {
    server = await startServer();
    browser = await launchBrowser();
  });

  after(async () => {
    await browser?.close();
    await server?.stop();
  });

  it("the GM creates a Fumbles campaign, adds characters and a challenge, plays a turn and sees the CR drop and the dice", async () => {
    ({ page: gm, frames: gmFrames } = await openRecordedPage(browser, server.url, errors));

    await gm.getByLabel("GM secret").fill(server.secret);
    await gm.getByRole("button", { name: "Join as GM" }).click();

    // Start: a ruleset and its typed settings.
    await gm.getByRole("radio", { name: "Fumbles" }).check();
    await gm.getByLabel("Campaign name").fill("Goblin night");
    const mad = gm.getByLabel("Maximum Available Dice (MAD)");
    assert.equal(await mad.inputValue(), "7", "the MAD setting starts at the ruleset's default");
    assert.equal(await gm.getByLabel("Achilles' Heels", { exact: true }).isChecked(), true, "a bool setting is a checkbox at its default");
    await screenshot(gm, "start");
    await gm.getByRole("button", { name: "Create campaign" }).click();
    await gm.getByRole("heading", { name: "Goblin night", level: 1 }).waitFor();

    // Required fields are checked before anything is sent, by the labels the form shows.
    const empty = await openAction(gm, "Create a character");
    await empty.getByRole("button", { name: "Create a character", exact: true }).click();
    await empty.getByRole("alert").filter({ hasText: "Fill in Name and Traits." }).waitFor();
    const nameField = empty.getByLabel("Name", { exact: true });
    assert.equal(await nameField.getAttribute("aria-invalid"), "true", "the empty required Name is marked");
    assert.equal(await empty.getByLabel("Traits", { exact: true }).getAttribute("aria-invalid"), "true", "the empty required Traits is marked");
    assert.equal(await empty.getByLabel("Owner", { exact: true }).getAttribute("aria-invalid"), null, "an optional field is not");
    assert.equal(await empty.locator(".field-error").filter({ hasText: "Fill in Name" }).count(), 1, "the field says what to do, by its label");
    await until("the first empty field has the focus", async () => nameField.evaluate((el) => el === document.activeElement));
    assert.ok(!(await empty.innerText()).includes("is required"), "no engine message with a parameter's internal name");
    assert.equal(await gm.getByRole("list", { name: "Log" }).getByRole("listitem").filter({ hasText: "Create a character" }).count(), 0, "nothing was sent");

    // Two characters through the generated form: text, owner, a comma-separated list.
    for (const [name, owner, traits] of [
      ["Gandolf", "ann", "Magic!, Fireball, Barrier, Levitate, Staff"],
      ["Bree", "bo", "Sword, Shield, Quick"],
    ]) {
      const form = await openAction(gm, "Create a character");
      await form.getByLabel("Name", { exact: true }).fill(name);
      await pickPlayer(form, "Owner", owner);
      await form.getByLabel("Traits", { exact: true }).fill(traits);
      await submit(form, "Create a character");
      const card = gm.getByRole("article", { name });
      await card.waitFor();
      assert.match(await card.innerText(), new RegExp(`played by ${owner}`), `${name}'s card names the owner`);
      for (const t of traits.split(", ")) assert.ok((await card.innerText()).includes(t), `${name}'s card shows the trait ${t}`);
      assert.equal(await form.getByLabel("Name", { exact: true }).inputValue(), "", "a form that creates something starts afresh");
      assert.equal(await form.getByLabel("Name", { exact: true }).getAttribute("aria-invalid"), null, "and nothing is marked once filled in");
    }
    assert.match(await gm.getByRole("article", { name: "Gandolf" }).getByRole("listitem", { name: "Hero Points" }).innerText(), /1\s*\/\s*1/, "the Hero Point pool shows count and cap");

    // A challenge: CR 6, Toughness 2, Smash 1 (ints with min/max).
    const start = await openAction(gm, "Start a challenge");
    await start.getByLabel("Name", { exact: true }).fill("Goblins");
    await start.getByLabel("CR", { exact: true }).fill("6");
    await start.getByLabel("Toughness", { exact: true }).fill("2");
    await start.getByLabel("Smash", { exact: true }).fill("1");
    await submit(start, "Start a challenge");
    await meter(gm, "Goblins", "CR").waitFor();
    assert.equal(await meterValue(gm, "Goblins", "CR"), "6", "the challenge starts at CR 6");
    assert.equal(await meter(gm, "Goblins", "CR").getAttribute("aria-valuemax"), "6", "the bar's maximum is the starting CR");

    // A capstone with a GM-only note (a secret parameter, a GM-only field).
    const cap = await openAction(gm, "Add a capstone");
    assert.equal(await cap.getByLabel("Challenge", { exact: true }).inputValue(), "goblins", "the only challenge in play is picked");
    await cap.getByLabel("At", { exact: true }).fill("3");
    await cap.getByLabel("Note", { exact: true }).fill(CAPSTONE_NOTE);
    await submit(cap, "Add a capstone");
    await gm.getByRole("article", { name: "Goblins at 3" }).waitFor();
    assert.ok((await gm.getByRole("main", { name: "Table" }).innerText()).includes(CAPSTONE_NOTE), "the GM sees the capstone's note");

    // The player joins now, in a second browser, with the link the GM made for her.
    const link = await inviteLink(gm, "ann", "invite");
    assert.match(link, /^http:\/\/127\.0\.0\.1:\d+\/#join=[0-9a-f]{40}$/, `a link to this table with a 160-bit token: ${link}`);
    // The GM watches who is connected as she joins: the server pushes the list, nobody asks again.
    await gm.getByRole("tab", { name: "Players" }).click();
    const connected = gm.getByRole("table", { name: "Connected now" });
    await connected.getByRole("rowheader", { name: "GM", exact: true }).waitFor();
    await gm.evaluate(() => {
      window.__sameDocument = true;
    });
    const toldBefore = events(gmFrames, "hosting");
    ({ page: ann, frames: annFrames } = await openRecordedPage(browser, link, errors));
    await ann.getByRole("article", { name: "Gandolf" }).waitFor();
    await connected.getByRole("rowheader", { name: "ann", exact: true }).waitFor();
    // Longer than the 2 s the screen used to ask again in: at most the one ask a first look needs.
    await gm.waitForTimeout(2500);
    assert.ok(calls(gmFrames, "hosting") <= 1, `the GM's page asked for the hosting status at most once (${calls(gmFrames, "hosting")} times)`);
    assert.equal(await gm.evaluate(() => window.__sameDocument), true, "the GM's page was never reloaded");
    assert.ok(events(gmFrames, "hosting") > toldBefore, "the GM's page was told that ann came");
    await gm.getByRole("tab", { name: "Table" }).click();
    assert.equal(new URL(ann.url()).hash, "", "the token is taken off the address bar");
    // Her browser remembers the link: the table's plain address joins her again.
    await ann.goto(server.url);
    await ann.getByRole("article", { name: "Gandolf" }).waitFor();
    assert.equal(await ann.getByLabel("You are").innerText(), "ann", "she is ann again without the link");
    assert.equal(await meterValue(ann, "Goblins", "CR"), "6");
    await ann.evaluate(() => {
      window.__sameDocument = true;
    });

    // The challenge turn: ann's character, attack and defense traits picked, dice typed in.
    const roll = await openAction(gm, "Challenge roll");
    await roll.getByLabel("Character", { exact: true }).selectOption({ label: "Gandolf" });
    const attack = roll.getByRole("group", { name: "Attack" });
    for (const t of ["Fireball", "Magic!", "Levitate"]) await attack.getByLabel(t, { exact: true }).check();
    for (const t of ["Barrier", "Staff"]) await roll.getByRole("group", { name: "Defense" }).getByLabel(t, { exact: true }).check();
    assert.equal(await attack.getByLabel("Sword").count(), 0, "only Gandolf's own traits are offered");
    // Before anything is rolled the form says the chance of what the rules decide: 3d6 at 4+
    // must beat Toughness 2 (three successes) to lower the CR, 2d6 must beat Smash 1 (two) to hold.
    const odds = roll.getByRole("status", { name: "Chance of success" });
    await until("the form shows its odds", async () => /12\.5%[\s\S]*25\.0%/.test((await odds.count()) ? await odds.innerText() : ""));
    assert.match(await odds.innerText(), /attack, 3d6 against Toughness 2: lowers the CR of Goblins/, "each line says what it is the chance of");
    await odds.evaluate((box) => {
      // The form's lower half, odds and button, in its own scrolling panel (not the page).
      const panel = box.closest(".col-actions");
      if (panel) panel.scrollTop += box.getBoundingClientRect().top - panel.getBoundingClientRect().top - 320;
    });
    await screenshot(gm, "roll-odds");
    await roll.getByLabel("Dice rolled by hand").fill("6, 6, 5, 4, 5");
    await submit(roll, "Challenge roll");

    await until("the CR bar drops to 5", async () => (await meterValue(gm, "Goblins", "CR")) === "5");
    const entry = gm.getByRole("list", { name: "Log" }).getByRole("listitem").filter({ hasText: "Challenge roll" }).first();
    await entry.getByRole("list", { name: "Attack dice: 6, 6, 5" }).waitFor();
    await entry.getByRole("list", { name: "Defense dice: 4, 5" }).waitFor();
    assert.equal(await entry.locator(".die.success").count(), 5, "every die of 4+ is highlighted as a success");
    assert.equal(await entry.getByText("by hand").count(), 2, "both rolls are labelled as dice rolled by hand");
    assert.match(await entry.innerText(), /Goblins CR 6 → 5/, "the narration tells the CR drop");
    // The form starts fresh once the roll is made: no choice is carried into the next one.
    assert.equal(await roll.getByLabel("Character", { exact: true }).inputValue(), "", "no character stays picked");
    assert.equal(await roll.locator("input[type=checkbox]:checked").count(), 0, "no trait stays picked");
    assert.equal(await roll.getByLabel("Dice rolled by hand").inputValue(), "", "the dice rolled by hand are cleared");
    await showForm(gm, "Challenge roll");
    await screenshot(gm, "gm-table");

    // On a phone the header is compact: no brand or ruleset tag, the name cut short, the tabs
    // scrolling sideways, all in under a fifth of the screen.
    await gm.setViewportSize({ width: 390, height: 844 });
    const header = gm.locator("header.topbar");
    await until("the header is compact", async () => (await header.boundingBox()).height < 844 * 0.2 || `${(await header.boundingBox()).height}px`);
    assert.equal(await header.locator(".small-brand").isVisible(), false, "no brand on a phone");
    assert.equal(await header.locator(".ruleset-tag").isVisible(), false, "no ruleset tag on a phone");
    assert.equal(await header.getByRole("heading", { level: 1 }).evaluate((h) => getComputedStyle(h).textOverflow), "ellipsis", "a long campaign name is cut short");
    assert.equal(await header.getByRole("tablist").evaluate((t) => getComputedStyle(t).overflowX), "auto", "the tabs scroll sideways");
    assert.ok((await header.getByLabel("View as").boundingBox()).width <= 160, "the view switch is small");
    await screenshot(gm, "narrow-header");
    await gm.setViewportSize({ width: 1280, height: 800 });
  });

  it("a player sees the GM's actions live and none of the GM-only values or controls", async () => {
    // Live: the roll arrived without a reload.
    await until("ann sees the CR drop to 5", async () => (await meterValue(ann, "Goblins", "CR")) === "5");
    assert.equal(await ann.evaluate(() => window.__sameDocument), true, "the player's page was never reloaded");
    assert.equal(calls(annFrames, "hosting") + calls(annFrames, "online"), 0, "a player's page never asks for the GM's statuses");
    assert.equal(events(annFrames, "hosting") + events(annFrames, "online"), 0, "nor is it told of them");
    const annLog = ann.getByRole("list", { name: "Log" });
    await annLog.getByRole("list", { name: "Attack dice: 6, 6, 5" }).waitFor();

    // GM-only: the capstone's note, the house rules, the view switch, GM actions.
    const everything = await ann.locator("body").innerText();
    assert.ok(!everything.includes(CAPSTONE_NOTE), "the capstone's GM-only note is nowhere on the player's page");
    await ann.getByRole("article", { name: "Goblins at 3" }).waitFor();
    assert.equal(await ann.getByRole("tab", { name: "House rules" }).count(), 0, "no house-rule editor for a player");
    assert.equal(await ann.getByLabel("View as").count(), 0, "no view switch for a player");
    const annActions = ann.getByRole("complementary", { name: "Actions" });
    assert.equal(await annActions.getByRole("button", { name: "End the turn", exact: true }).count(), 0, "GM-only actions are not offered");
    assert.equal(await annActions.getByRole("button", { name: "Start a challenge", exact: true }).count(), 0);
    const annRoll = await openAction(ann, "Challenge roll");
    const characters = await annRoll.getByLabel("Character", { exact: true }).locator("option").allInnerTexts();
    assert.deepEqual(characters.filter((c) => c !== "Choose…"), ["Gandolf"], "ann may roll only for her own character");

    // A rule refusal shows next to the form with the rule's name.
    await annRoll.getByRole("group", { name: "Attack" }).getByLabel("Fireball", { exact: true }).check();
    await annRoll.getByRole("button", { name: "Challenge roll", exact: true }).click();
    const refusal = annRoll.getByRole("alert");
    await refusal.waitFor();
    assert.match(await refusal.innerText(), /Turns: Gandolf/, "the refusal names its rule, as a person writes it");
    // The form said so before she clicked: the rules' refusal shows where the odds would.
    assert.match(await annRoll.getByRole("status", { name: "Chance of success" }).innerText(), /Turns: Gandolf/, "the odds say why it would be refused");
    // Houserule rolls for her: no dice field until the GM lets her type in her own.
    assert.equal(await annRoll.getByLabel("Dice rolled by hand").count(), 0, "no dice by hand for a player by default");
    await showForm(ann, "Challenge roll");
    await screenshot(ann, "player-view");

    // No message makes her someone else: her own socket, her own token, every trick refused.
    const tricks = await ann.evaluate(async () => {
      const socket = new WebSocket(`ws://${location.host}/ws`);
      await new Promise((ok, fail) => {
        socket.onopen = ok;
        socket.onerror = fail;
      });
      let id = 0;
      const call = (method, params) =>
        new Promise((ok) => {
          const mine = ++id;
          const listen = (m) => {
            const v = JSON.parse(m.data);
            if (v.id !== mine) return;
            socket.removeEventListener("message", listen);
            ok(v.error ? `refused:${v.error.code}` : v.result);
          };
          socket.addEventListener("message", listen);
          socket.send(JSON.stringify({ id: mine, method, params }));
        });
      const entropy = "ab".repeat(32);
      const out = {};
      out.byName = await call("hello", { name: "bo" });
      out.guess = await call("hello", { invite: "0".repeat(40) });
      const joined = await call("hello", { invite: localStorage.getItem("houserule.invite") });
      out.joined = joined.role;
      out.rehello = await call("hello", { secret: "table-secret-for-the-browser-tests" });
      out.viewBo = await call("view", { as: "player:bo" });
      out.actBo = await call("act", { as: "player:bo", action: "trait_check", params: {}, entropy });
      out.actGm = await call("act", { as: "gm", action: "end_turn", params: {}, entropy });
      out.invite = await call("invite", { player: "bo" });
      out.allow = await call("allow_typed_dice", { player: "ann", allowed: true });
      out.typed = await call("act", { action: "challenge_roll", params: { character: "gandolf", attack: ["Magic!"], defense: [] }, dice: [6], entropy });
      out.still = (await call("hello", {})).role;
      socket.close();
      return out;
    });
    assert.deepEqual(tricks, {
      byName: "refused:bad_request",
      guess: "refused:forbidden",
      joined: "player:ann",
      rehello: "refused:forbidden",
      viewBo: "refused:forbidden",
      actBo: "refused:forbidden",
      actGm: "refused:forbidden",
      invite: "refused:forbidden",
      allow: "refused:forbidden",
      typed: "refused:forbidden",
      still: "player:ann",
    });

    // A page of another origin (the same server under another name) cannot open the socket.
    const foreign = await ann.context().newPage();
    await foreign.goto(server.url.replace("127.0.0.1", "localhost"));
    const opened = await foreign.evaluate(
      (target) =>
        new Promise((done) => {
          const s = new WebSocket(target);
          s.onopen = () => done("opened");
          s.onerror = () => done("refused");
        }),
      server.url.replace("http://", "ws://") + "ws",
    );
    assert.equal(opened, "refused", "a foreign Origin is refused");
    await foreign.close();

    // The GM lets ann type in her dice (a public event); her form grows the field.
    await gm.getByRole("tab", { name: "Players" }).click();
    await gm.getByRole("row", { name: /ann/ }).getByLabel("may type in their own dice").check();
    await gm.getByRole("tab", { name: "Table" }).click();
    await annRoll.getByLabel("Dice rolled by hand").waitFor();
    await until("ann's log shows the permission", async () => (await annLog.getByRole("listitem").filter({ hasText: "Table permission changed" }).count()) > 0);

    // The GM previews ann's view: the note goes away there too.
    await gm.getByLabel("View as").selectOption({ label: "ann" });
    await gm.getByRole("status").filter({ hasText: "as ann sees it" }).waitFor();
    await until("the GM's preview drops the GM-only note", async () => !(await gm.getByRole("main", { name: "Table" }).innerText()).includes(CAPSTONE_NOTE));
    await gm.getByLabel("View as").selectOption({ label: "GM (everything)" });
    await until("the GM's own view is back", async () => (await gm.getByRole("main", { name: "Table" }).innerText()).includes(CAPSTONE_NOTE));

    // Another GM action arrives live: the turn ends and the challenge moves to turn 2.
    const endTurn = await openAction(gm, "End the turn");
    await submit(endTurn, "End the turn");
    await until("ann sees turn 2", async () => /Turn\s+2/.test(await ann.getByRole("article", { name: "Goblins", exact: true }).innerText()));
    // The challenge counts its own turns, and the tracker's round is that count: no "Round 1"
    // beside "Turn 2" on either board.
    for (const page of [gm, ann]) {
      await until("the tracker follows the challenge to round 2", async () => /round 2\b/i.test(await page.getByRole("main", { name: "Table" }).innerText()));
      const rounds = [...(await page.getByRole("main", { name: "Table" }).innerText()).matchAll(/\brounds?\s+(\d+)/gi)].map((m) => m[1]);
      assert.deepEqual([...new Set(rounds)], ["2"], "no round count that contradicts the challenge's turn");
    }
    await ann.getByRole("list", { name: "Log" }).getByRole("listitem").filter({ hasText: "End the turn" }).first().waitFor();

    // ann rolls for herself this turn, with dice she rolled by hand (the GM allowed it).
    await annRoll.getByRole("group", { name: "Attack" }).getByLabel("Magic!", { exact: true }).check();
    await annRoll.getByRole("group", { name: "Defense" }).getByLabel("Barrier", { exact: true }).check();
    await annRoll.getByLabel("Dice rolled by hand").fill("5, 2, 3");
    await submit(annRoll, "Challenge roll");
    const annEntry = annLog.getByRole("listitem").filter({ hasText: "Challenge roll" }).first();
    await until("ann's own roll is marked by hand", async () => (await annEntry.getByText("by hand").count()) > 0);
    await until("the GM sees ann's roll", async () => (await gm.getByRole("list", { name: "Log" }).getByRole("listitem").filter({ hasText: "ann" }).filter({ hasText: "Challenge roll" }).count()) > 0);
    await gm.getByRole("button", { name: "End the turn", exact: true, expanded: true }).click();
    await screenshot(gm, "log-dice");
  });

  it("a house rule with a syntax error shows its file, line and column while the table keeps working", async () => {
    const editorPanel = await writeHouseRule(gm, "boss-costs.rhai", "// Afflictions cost nothing at our table.\nfn afflict_cost() {\n  0 +\n}\n");
    const text = gm.getByRole("textbox", { name: "House rule text" });

    const problem = editorPanel.getByRole("alert");
    await problem.waitFor();
    const shown = await problem.innerText();
    assert.match(shown, /boss-costs\.rhai:4:1/, `the error shows file:line:col (got: ${shown})`);
    assert.match(shown, /previous rules/, "the GM is told the previous rules keep running");
    await until("a lint marker sits on line 4", async () => (await gm.locator(".cm-lintRange-error").count()) > 0);
    assert.ok((await gm.locator(".cm-gutter-lint .cm-lint-marker-error").count()) > 0, "the gutter marks the line");
    await screenshot(gm, "house-rule-error");

    // The table keeps working with the previous rules.
    await gm.getByRole("tab", { name: "Table" }).click();
    const check = await openAction(gm, "Trait check");
    await check.getByLabel("Character", { exact: true }).selectOption({ label: "Bree" });
    await check.getByRole("group", { name: "Traits" }).getByLabel("Sword", { exact: true }).check();
    await check.getByLabel("Dice rolled by hand").fill("5");
    await submit(check, "Trait check");
    await gm.getByRole("list", { name: "Log" }).getByRole("listitem").filter({ hasText: "Trait check" }).first().waitFor();
    await until("ann sees the trait check live", async () => (await ann.getByRole("list", { name: "Log" }).getByRole("listitem").filter({ hasText: "Trait check" }).count()) > 0);

    // Fix the rule: it loads, and the reload report says what changed.
    await gm.getByRole("tab", { name: "House rules" }).click();
    await text.click();
    await gm.keyboard.press("ControlOrMeta+a");
    await gm.keyboard.insertText("// Afflictions cost nothing at our table.\nfn afflict_cost() { 0 }\n");
    await editorPanel.getByRole("button", { name: "Save and reload" }).click();
    const saved = editorPanel.getByRole("status").filter({ hasText: "Saved boss-costs.rhai" });
    await saved.waitFor();
    assert.match(await saved.innerText(), /house\/boss-costs\.rhai \(added\)/);
    assert.equal(await gm.locator(".cm-lintRange-error").count(), 0, "the markers are gone");
    const files = gm.getByRole("navigation", { name: "Rule files" });
    await until("the file list shows the function it replaces", async () => /afflict_cost\(0\)\s*replaces/i.test(await files.innerText()));
    await until("ann's log tells the rules changed", async () => (await ann.getByRole("list", { name: "Log" }).getByRole("listitem").filter({ hasText: "Rules changed" }).count()) > 0);

    // Remove it again.
    await editorPanel.getByRole("button", { name: "Remove", exact: true }).click();
    await editorPanel.getByRole("button", { name: "Yes, remove it" }).click();
    await editorPanel.getByRole("status").filter({ hasText: "Removed boss-costs.rhai" }).waitFor();
    assert.ok(!(await files.innerText()).includes("boss-costs.rhai"), "the file is gone from the list");

  });

  it("the GM undoes a roll: both browsers show it voided, the file verifies, and the dice are not rolled again", async () => {
    await gm.getByRole("tab", { name: "Table" }).click();
    const check = await openAction(gm, "Trait check");
    await check.getByLabel("Character", { exact: true }).selectOption({ label: "Bree" });
    for (const t of ["Sword", "Shield", "Quick"]) await check.getByRole("group", { name: "Traits" }).getByLabel(t, { exact: true }).check();
    const gmLog = gm.getByRole("list", { name: "Log" });
    const newest = () => gmLog.getByRole("listitem").first().getAttribute("data-seq");
    const last = await newest();
    await submit(check, "Trait check");
    await until("the roll is in the GM's log", async () => (await newest()) !== last);
    const seq = await newest();
    const rolled = gm.locator(`.log-entry[data-seq="${seq}"]`);
    await rolled.getByRole("button", { name: "Undo" }).click();
    await rolled.getByRole("button", { name: "Yes, undo it" }).click();
    const voided = (page) => page.locator(`.log-entry[data-seq="${seq}"]`);
    await until("the GM's log shows the roll voided", async () => (await voided(gm).getAttribute("class")).includes("voided"));
    assert.match(await voided(gm).innerText(), /voided: undone by #\d+/);
    await until("ann's log shows it voided too", async () => ((await voided(ann).getAttribute("class")) ?? "").includes("voided"));
    await ann.getByRole("list", { name: "Log" }).getByRole("listitem").filter({ hasText: "Undone" }).first().waitFor();
    await screenshot(gm, "undo");

    // The form started fresh after the roll: Bree is picked again.
    await check.getByLabel("Character", { exact: true }).selectOption({ label: "Bree" });
    for (const t of ["Sword", "Shield", "Quick"]) await check.getByRole("group", { name: "Traits" }).getByLabel(t, { exact: true }).check();
    await submit(check, "Trait check");
    const log = JSON.parse(execFileSync(houseruleBin(), ["log", server.file, "--json"], { encoding: "utf8" }));
    const counters = (e) => e.items.filter((i) => i.type === "roll" && i.roll.source.generated).map((i) => i.roll.source.generated.counter);
    const undone = log.find((e) => String(e.seq) === seq);
    const again = log.filter((e) => e.action === "trait_check").at(-1);
    assert.ok(undone.voided_by, "the file marks the roll voided");
    assert.ok(Math.min(...counters(again)) > Math.max(...counters(undone)), "the next roll takes new dice, never the voided ones");
    execFileSync(houseruleBin(), ["verify", server.file], { encoding: "utf8" });

    // A slip undo is too coarse for: the GM corrects Bree's Hero Points by hand, with a reason.
    const fix = gm.getByRole("form", { name: "Correct a value" });
    await gm.getByText("Correct a value (GM)").click();
    await fix.getByLabel("On", { exact: true }).selectOption({ label: "Bree" });
    await fix.getByLabel("pool", { exact: true }).check();
    await fix.getByLabel("Pool", { exact: true }).fill("hero");
    await fix.getByLabel("New count").fill("0");
    await fix.getByLabel("Reason").fill("Bree spent it last session");
    await fix.getByRole("button", { name: "Correct" }).click();
    await fix.getByRole("status").filter({ hasText: "Corrected" }).waitFor();
    await until("ann sees the correction and its reason", async () => (await ann.getByRole("list", { name: "Log" }).getByRole("listitem").filter({ hasText: "Bree spent it last session" }).count()) > 0);
    assert.match(await gm.getByRole("article", { name: "Bree" }).getByRole("listitem", { name: "Hero Points" }).innerText(), /0\s*\/\s*1/);

    assert.deepEqual(errors, [], "no page errors in either browser");
  });
});
