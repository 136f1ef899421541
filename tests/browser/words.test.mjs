// Words, not identifiers (issue 36, point 3): for every bundled ruleset, a campaign is brought
// through states a real game reaches (characters made, actions taken, some refused, a scene on
// the map, a house rule), served, and looked at as the GM and as a player: every tab, every action form with
// every choice of its pickers, each form sent as it stands (most are refused), the balance lab
// played. Everything a person can read — the text on screen, and the title, aria-label,
// placeholder and alt of what is shown — must be words: no snake_case, no ALL-CAPS code words
// (but for a short list of game terms), no camelCase, no `name(args)` and no raw records
// ("Key: value · Key: value · Key: value"). Code (the house-rule editor and source, `code`
// in a README) is the one place identifiers belong, and is not read. Every offence is printed
// with its ruleset, its screen and the text around it.
//
// Run: npm --prefix ui run build && cargo build -p houserule, then in ui/:
// node --test --test-concurrency=1 ../tests/browser/words.test.mjs

import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { houserule, inviteLink, repo, launchBrowser, openAction, openPage, startServer, until } from "./support.mjs";

/** ALL-CAPS words a GM writes: game terms and everyday abbreviations. */
const CAPS_ALLOWED = new Set(["GM", "GMS", "NPC", "NPCS", "HP", "PP", "XP", "OK", "RFI", "MAD", "CR", "QR", "PNG", "JPEG", "WEBP", "GIF", "SVG", "URL", "SMG"]);

/** What a person should not have to read, each with why. */
const RULES = [
  { why: "snake_case identifier", re: /\b[A-Za-z0-9]+(?:_[A-Za-z0-9]+)+\b/g },
  { why: "ALL-CAPS word", re: /\b[A-Z][A-Z]{2,}\b/g, keep: (w) => !CAPS_ALLOWED.has(w) },
  // Two small letters first: dice notation (4dF) is not code.
  { why: "camelCase identifier", re: /\b[a-z]{2,}(?:[A-Z][a-z0-9]*)+\b/g },
  { why: "code call", re: /\b[A-Za-z_][A-Za-z0-9_]*\((?!s\))[A-Za-z0-9_, ]*\)/g },
  // Three "Key: value" joined by " · ", one of them a bare count or flag: a record of bookkeeping
  // (a sheet of trait levels, "Shooting: Great · Reflexes: Good", is how a GM writes it).
  { why: "raw record", re: /(?:[A-Z][\w ]{0,24}: [^·:\n]{1,40} · ){2,}[A-Z][\w ]{0,24}: [^·:\n]{1,40}/g, keep: (w) => /: (?:-?\d+|yes|no|none|—)(?: ·|$)/.test(w) },
  { why: "nested record", re: /\b[A-Z][\w ]{0,24}: [A-Z][\w ]{0,30}: (?:yes|no|true|false)\b/g },
  { why: "raw value", re: /^(?:true|false|null|undefined|NaN)$|: (?:true|false|null|undefined|NaN)\b|\[object Object\]/g },
];

/** The offences in `text` (seen on `screen`), each with 50 characters either side. */
function offences(text, screen) {
  const found = [];
  for (const { why, re, keep } of RULES) {
    for (const m of text.matchAll(re)) {
      if (keep && !keep(m[0])) continue;
      const around = text.slice(Math.max(0, m.index - 50), m.index + m[0].length + 50).replace(/\s+/g, " ");
      found.push({ why, word: m[0], screen, around });
    }
  }
  return found;
}

/**
 * What a person can read in `scope` (a selector; the whole page by default): the text of every
 * shown element, and its title, aria-label, placeholder and alt. Code is left out.
 */
async function readable(page, scope = "body") {
  return page.evaluate((scope) => {
    const CODE = "pre, code, .cm-editor, textarea, script, style";
    const root = document.querySelector(scope);
    if (!root) return [];
    const shown = (el) => {
      const select = el.closest("select");
      return (select ?? el).checkVisibility({ visibilityProperty: true });
    };
    // The text as written (not as CSS capitalises it), code left out, words kept apart.
    const textOf = (el) => {
      const parts = [];
      const walk = document.createTreeWalker(el, NodeFilter.SHOW_TEXT);
      for (let n = walk.nextNode(); n; n = walk.nextNode()) if (!n.parentElement.closest(CODE)) parts.push(n.textContent);
      return parts.join(" ").replace(/\s+/g, " ").trim();
    };
    const out = new Set();
    for (const el of [root, ...root.querySelectorAll("*")]) {
      if (el.closest(CODE) || !shown(el)) continue;
      for (const a of ["title", "aria-label", "placeholder", "alt"]) {
        const v = el.getAttribute(a);
        if (v) out.add(v);
      }
      const own = [...el.childNodes].some((n) => n.nodeType === Node.TEXT_NODE && n.textContent.trim());
      if (own) out.add(el.tagName === "OPTION" ? el.textContent : textOf(el));
    }
    return [...out];
  }, scope);
}

/** Collects what `page` shows in `scope` under `screen` into `seen`. */
async function look(page, seen, screen, scope) {
  for (const text of await readable(page, scope)) seen.push(...offences(text, screen));
}

// ---- the stories: what each ruleset's table goes through before it is looked at -----------------

/**
 * Steps taken with the CLI before the table is served: `{ act, as, params, dice }`; a step may
 * be `refused`, or `maybe` refused (as the dice fall); a refusal is looked at in the browser, where
 * forms are sent as they stand.
 * `player` is who opens the table as a player; `houseRule` is a house rule written then.
 */
const STORIES = [
  {
    id: "generic",
    name: "Generic table",
    player: "ann",
    steps: [
      { act: "create_character", params: { name: "Gandolf", owner: "ann", traits: ["Magic!", "Fireball", "Levitate"] } },
      { act: "create_character", params: { name: "Frody", owner: "bo", traits: ["Frying pan", "Halfling luck"] } },
      { act: "create_npc", params: { name: "Crunch", traits: ["Cleaver"], gm_notes: "Afraid of fire." } },
      { act: "add_trait", as: "player:ann", params: { character: "Gandolf", trait: "Wizardry", rating: 3 } },
      { act: "trait_roll", as: "player:ann", params: { character: "Gandolf", trait: "Wizardry", target: 12 } },
      { act: "roll", as: "player:bo", params: { expr: "2d6", label: "dodge the cleaver" } },
      { act: "spend_token", as: "player:bo", params: { character: "Frody", reason: "Halfling luck: roll again" } },
      { act: "create_pool", params: { name: "Doom", initial: 0, cap: 10, visibility: "gm" } },
      { act: "move_tokens", params: { from: "bank", to: "doom", n: 2 } },
      { act: "end_round" },
    ],
    houseRule: "generous-bank.rhai",
    attempts: [{ as: "player", action: "Spend a token", fill: {} }],
  },
  {
    id: "fumbles",
    name: "Fumbles",
    player: "ann",
    steps: [
      { act: "create_character", params: { name: "Gandolf", owner: "ann", achilles_heel: "exhausted quickly", stress_explosion: "really big Ego", traits: ["IQ of 180", "Magic!", "Barrier", "Fireball", "Levitate", "Scorching Hellfire", "pyromaniac", "dead-pan snarker", "wizard staff"] } },
      { act: "create_character", params: { name: "Frody", owner: "bo", achilles_heel: "second breakfast", stress_explosion: "panics", traits: ["agility", "halfling fortitude", "small size", "frying pan", "quick reflexes", "makes a mean curry"] } },
      { act: "spend_hero_point", as: "player:bo", params: { character: "frody", use: "nick_of_time", target: "Gandolf" }, refused: true },
      { act: "start_challenge", params: { name: "Goblin war band", cr: 6, toughness: 2, smash: 1 } },
      { act: "add_capstone", params: { challenge: "goblin_war_band", at: 3, note: "The goblin chieftain arrives on a war boar." } },
      { act: "challenge_roll", as: "player:ann", params: { character: "gandolf", attack: ["Fireball", "Scorching Hellfire", "pyromaniac", "dead-pan snarker"], defense: ["Levitate", "Magic!", "Barrier"] }, dice: "4,6,2,5,5,1,3" },
      { act: "spend_hero_point", as: "player:ann", params: { character: "gandolf", use: "devils_luck" } },
      { act: "challenge_roll", as: "player:bo", params: { character: "frody", attack: ["frying pan"], defense: ["agility", "small size", "quick reflexes", "halfling fortitude"] }, dice: "6,4,2,5,6" },
      { act: "end_turn" },
    ],
    houseRule: "three-up.rhai",
    attempts: [{ as: "player", action: "Spend a Hero Point", fill: { Character: "Gandolf", Use: "Devils luck" } }],
  },
  {
    id: "rfi-freelancers",
    name: "RFI: Freelancers",
    player: "ann",
    steps: [
      { act: "create_character", params: { name: "Rook", owner: "ann", attributes: { agility: 9, insight: 10 }, skills: { stealth: 4, tech: 3 } } },
      { act: "create_character", params: { name: "Vega", owner: "bo", attributes: { insight: 11 }, skills: { tech: 5 } } },
      { act: "create_npc", params: { name: "Guard", attributes: { insight: 9 }, skills: { watch: 3 } } },
      { act: "start_challenge", params: { name: "Crack the vault", kind: "basic", key_tests: [{ name: "Disable the alarm", difficulty: 2 }, { name: "Open the lock" }] } },
      { act: "attempt_key_test", as: "player:ann", params: { challenge: "crack_the_vault", test: "open the lock", character: "rook", attribute: "agility", skill: "stealth" }, dice: "3,15" },
      { act: "task", as: "player:ann", params: { character: "rook", attribute: "agility", skill: "stealth", difficulty: 2 }, dice: "5,18" },
      { act: "allow_success_at_cost", params: { character: "rook" } },
      { act: "start_scene", params: { name: "Shootout", action_scene: true } },
      { act: "start_turn_order", params: { characters: ["rook", "vega", "guard"] } },
      { act: "take_turn", as: "player:ann", params: { character: "rook" } },
      { act: "task", as: "player:ann", params: { character: "rook", attribute: "agility", skill: "stealth" }, dice: "3,4" },
    ],
    attempts: [
      { as: "player", action: "Spend Momentum", fill: { Character: "Rook" } },
      { as: "player", action: "Take a turn", fill: { Character: "Rook" } },
    ],
    houseRule: "cheap-dice.rhai",
  },
  {
    id: "savage-worlds",
    name: "Savage Worlds (with house rules)",
    player: "ann",
    steps: [
      { act: "create_character", params: { name: "Ann", owner: "ann", attributes: "agility:d8,strength:d8,vigor:d6,spirit:d6", skills: "fighting:d8,shooting:d6" } },
      { act: "create_character", params: { name: "Orc", wild_card: false, attributes: "strength:d8,vigor:d8", skills: "fighting:d6" } },
      { act: "create_character", params: { name: "Orc Two", wild_card: false, attributes: "strength:d8,vigor:d8", skills: "fighting:d6" } },
      { act: "next_turn", refused: true },
      { act: "deal_in", params: { characters: ["Ann", "Orc", "Orc Two"] } },
      { act: "attack", as: "player:ann", params: { attacker: "ann", defender: "orc", damage: "str+d6" } },
      { act: "attack", as: "player:ann", params: { attacker: "ann", defender: "orc_two", damage: "2d6+1" } },
      { act: "spend_benny", as: "player:ann", params: { character: "ann", use: "reroll" }, maybe: true },
      { act: "next_turn" },
    ],
    houseRule: "lucky-fumbles.rhai",
    attempts: [{ as: "player", action: "Spend a benny", fill: {} }],
  },
  {
    id: "stones",
    name: "Stones",
    player: "ann",
    steps: [
      { act: "create_character", params: { name: "Thelma", owner: "ann", gifts: ["Street Thief", "Sneaky"], skills: ["Eavesdrop", "Acrobatics", "Ambush"], problem: "Doesn't trust elves.", goal: "Steal the jade idol." } },
      { act: "create_character", params: { name: "Frank", owner: "bo", gifts: ["Love of Battle"], skills: ["Intimidation", "Running", "Feat of Strength"], problem: "We will succeed as a team, or not at all.", goal: "Take over this caravan." } },
      { act: "end_conflict", refused: true },
      { act: "start_conflict", params: { name: "Ambush on the road" } },
      { act: "gm_turn", params: { stones: 1 } },
      { act: "fumble", as: "player:bo", params: { character: "frank", problem: true } },
      { act: "add_turn_stones", params: { stones: 2 } },
      { act: "offer_loss", params: { stones: 3 } },
    ],
    houseRule: "steady-hands.rhai",
    attempts: [{ as: "player", action: "Pass the Ball", fill: {} }],
  },
  {
    id: "fudge-firefight",
    name: "Fudge Firefight!",
    player: "ann",
    steps: [
      { act: "create_character", params: { name: "Jack", owner: "ann", traits: { Shooting: "Great", Reflexes: "Good", Brawling: "Good", Swiftness: "Good" } } },
      { act: "create_character", params: { name: "Mook", traits: { Dodge: "Fair", Reflexes: "Fair" } } },
      { act: "create_character", params: { name: "Boss", major: true, traits: { Dodge: "Fair", Reflexes: "Great" } } },
      { act: "roll_initiative", params: { characters: ["Jack", "Mook", "Boss"] }, dice: "0,0,0,0,0,1,1,0,-1,-1,0,0" },
      { act: "attack", as: "player:ann", params: { attacker: "Jack", defender: "Mook", trait: "Shooting", weapon: "Pistol", actions_this_round: 3 }, dice: "0,0,0,0,-1,0,0,0" },
      { act: "attack", as: "player:ann", params: { attacker: "Jack", defender: "Boss", trait: "Shooting", weapon: "Pistol", cover: 2 }, dice: "1,0,0,0,0,0,0,0" },
      { act: "combat_round" },
    ],
    houseRule: "bullet-time.rhai",
    attempts: [{ as: "player", action: "Attack", fill: {} }],
  },
];

// ---- the test --------------------------------------------------------------------------------------

/** Makes the campaign of `story` at `file`: `houserule new`, then its steps. */
function play(story, file) {
  const made = houserule(["new", file, "--ruleset", story.id, "--name", story.name, "--seed", "7"]);
  if (!made.ok) throw new Error(`houserule new ${story.id}: ${made.err}`);
  for (const step of story.steps) {
    const args = ["act", file, step.act, "--as", step.as ?? "gm"];
    for (const [k, v] of Object.entries(step.params ?? {})) args.push("--param", `${k}=${typeof v === "object" ? JSON.stringify(v) : v}`);
    if (step.dice) args.push(`--dice=${step.dice}`);
    const r = houserule(args);
    if (!r.ok && !step.refused && !step.maybe) throw new Error(`${story.id}: ${step.act} was refused: ${r.err}`);
    if (r.ok && step.refused) throw new Error(`${story.id}: ${step.act} was meant to be refused`);
  }
  // A scene on the map with everyone on it, half under fog.
  const view = JSON.parse(houserule(["view", file, "--json"]).out);
  const people = Object.entries(view.entities).filter(([, e]) => ["character", "npc"].includes(e.kind));
  const ops = [{ op: "create", id: "road", name: "The road" }, ...people.map(([id], i) => ({ op: "place", scene: "road", id, entity: id, cell: [i, 1] })), { op: "show", id: "road" }, { op: "fog", scene: "road", on: true, reveal: people.map((_, i) => [i, 1]) }];
  for (const op of ops) {
    const r = houserule(["scene", file, "--op", JSON.stringify(op)]);
    if (!r.ok) throw new Error(`${story.id}: scene ${op.op}: ${r.err}`);
  }
  if (story.houseRule) {
    // One of the ruleset's own test house rules (Fumbles' is written here: it ships none).
    const fs = process.getBuiltinModule("node:fs");
    const dir = `${file}.house-rules`;
    fs.mkdirSync(dir);
    const own = `${repo}/plugins/${story.id}/tests/house-rules/${story.houseRule}`;
    const text = fs.existsSync(own) ? fs.readFileSync(own, "utf8") : "// Successes on 3+ at our table.\nfn success_face() { original() - 1 }\n";
    fs.writeFileSync(`${dir}/${story.houseRule}`, text);
    const r = houserule(["house-rules", "import", file, dir]);
    if (!r.ok) throw new Error(`${story.id}: the house rule was refused: ${r.err}`);
  }
}

/** Opens a tab and looks at it. */
async function visitTab(page, seen, who, name) {
  const tab = page.getByRole("tab", { name, exact: true });
  if (!(await tab.count())) return false;
  await tab.click();
  await page.waitForTimeout(300);
  await look(page, seen, `${who} · ${name} tab`);
  return true;
}

/**
 * Every action form `page` offers: opened, every option of each picker chosen in turn, then
 * sent as it stands (a refusal, or what it did, is looked at too).
 */
async function everyForm(page, seen, who) {
  const panel = page.getByRole("complementary", { name: "Actions" });
  const labels = [...new Set((await panel.locator("button.action-toggle").allInnerTexts()).map((t) => t.trim()))];
  for (const label of labels) {
    const toggle = panel.locator("button.action-toggle").filter({ hasText: new RegExp(`^\\s*${label.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}\\s*$`) }).first();
    if (!(await toggle.count())) continue;
    if ((await toggle.getAttribute("aria-expanded")) !== "true") await toggle.click();
    const form = page.getByRole("form", { name: label, exact: true });
    await form.waitFor();
    const screen = `${who} · form “${label}”`;
    await look(page, seen, screen, `form[aria-label="${label.replace(/"/g, '\\"')}"]`);
    // Each picker's every option in turn (a choice may show other fields, or hide pickers).
    const pickers = form.locator("select");
    const count = await pickers.count();
    for (let i = 0; i < count; i++) {
      const picker = pickers.nth(i);
      if (!(await picker.isVisible()) || (await picker.isDisabled())) continue;
      const name = (await picker.getAttribute("aria-label")) ?? (await picker.evaluate((el) => el.labels?.[0]?.innerText ?? "a picker"));
      const values = (await picker.locator("option").evaluateAll((os) => os.map((o) => o.value))).slice(0, 20);
      const first = await picker.inputValue();
      for (const v of values) {
        const picked = await picker.selectOption(v, { timeout: 2000 }).catch(() => null);
        if (!picked) break;
        await look(page, seen, `${screen}, ${name.trim()}: ${v || "nothing"}`, `form[aria-label="${label.replace(/"/g, '\\"')}"]`);
      }
      await picker.selectOption(first, { timeout: 2000 }).catch(() => {});
    }
    // Sent as it stands: mostly refused, and what it says is read.
    const send = form.getByRole("button", { name: label, exact: true });
    if (await send.isEnabled()) {
      await send.click();
      await until(`“${label}” answers`, async () => (await form.getByRole("alert").count()) > 0 || (await form.getByRole("status").count()) > 0, 10_000).catch(() => {});
      await look(page, seen, `${screen}, sent as it stands`, `form[aria-label="${label.replace(/"/g, '\\"')}"]`);
    }
    if ((await toggle.getAttribute("aria-expanded")) === "true") await toggle.click();
  }
  return labels.length;
}

/** Fills `fill` ({ label: value }) into `form`: a picker by its option's text, a box by typing. */
async function fillIn(form, fill) {
  for (const [label, value] of Object.entries(fill)) {
    const field = form.getByLabel(label, { exact: true }).first();
    if ((await field.evaluate((el) => el.tagName)) === "SELECT") await field.selectOption({ label: value });
    else await field.fill(String(value));
  }
}

/** The story's attempts `who` makes in the browser (most are refused); what each says is read. */
async function attempts(page, seen, story, who, as) {
  for (const a of story.attempts.filter((a) => a.as === as)) {
    const form = await openAction(page, a.action);
    await fillIn(form, a.fill);
    await form.getByRole("button", { name: a.action, exact: true }).click();
    await until(`“${a.action}” answers`, async () => (await form.getByRole("alert").count()) > 0 || (await form.getByRole("status").filter({ hasText: "Done" }).count()) > 0);
    await look(page, seen, `${who} · “${a.action}” tried`, `form[aria-label="${a.action}"]`);
    await look(page, seen, `${who} · the table after “${a.action}” was tried`);
  }
}

/** Plays the balance lab a little and looks at what it says (or why it cannot). */
async function balance(page, seen) {
  if (!(await page.getByRole("tab", { name: "Balance", exact: true }).count())) return;
  await page.getByRole("tab", { name: "Balance", exact: true }).click();
  const runs = page.getByRole("spinbutton", { name: "Runs on each side" });
  if (await runs.count()) await runs.fill("200");
  const play = page.getByRole("button", { name: /^Play( again)?$/ }).first();
  if (await play.count()) {
    await play.click();
    await page
      .getByRole("heading", { name: /^(Done|Stopped)/ })
      .or(page.getByRole("alert"))
      .first()
      .waitFor({ timeout: 60_000 })
      .catch(() => {});
  }
  await look(page, seen, "GM · Balance tab, after playing");
}

/** The whole look at one ruleset's table: the GM's, then a player's. */
async function lookAtTable(browser, story, errors) {
  const seen = [];
  const server = await startServer({ prepare: (file) => play(story, file) });
  try {
    const { page: gm } = await openPage(browser, server.url, errors);
    await gm.getByLabel("GM secret").fill(server.secret);
    await gm.getByRole("button", { name: "Join as GM" }).click();
    await gm.getByRole("heading", { name: story.name, level: 1, exact: true }).waitFor();
    await gm.getByRole("list", { name: "Log" }).getByRole("listitem").first().waitFor();
    await look(gm, seen, "GM · table");
    for (const tab of ["Rules", "House rules", "Players"]) await visitTab(gm, seen, "GM", tab);
    await balance(gm, seen);
    await gm.getByRole("tab", { name: "Table", exact: true }).click();
    await attempts(gm, seen, story, "GM", "gm");
    const forms = await everyForm(gm, seen, "GM");
    assert.ok(forms > 0, `${story.name}: the GM has actions`);
    await look(gm, seen, "GM · table, after every form was sent");

    const link = await inviteLink(gm, story.player);
    const { page: player } = await openPage(browser, link, errors);
    await player.getByRole("list", { name: "Log" }).getByRole("listitem").first().waitFor();
    await look(player, seen, `player ${story.player} · table`);
    await visitTab(player, seen, `player ${story.player}`, "Rules");
    await player.getByRole("tab", { name: "Table", exact: true }).click();
    await attempts(player, seen, story, `player ${story.player}`, "player");
    await everyForm(player, seen, `player ${story.player}`);
    await look(player, seen, `player ${story.player} · table, after every form was sent`);
  } finally {
    await server.stop();
  }
  return seen;
}

/** One line per distinct offence: the word, why, where, and the text around it. */
function report(name, seen) {
  const lines = new Map();
  for (const o of seen) {
    const key = `${o.word}\u0000${o.around}`;
    if (!lines.has(key)) lines.set(key, `${name} · ${o.screen}: ${o.why} “${o.word}” in “…${o.around}…”`);
  }
  return [...lines.values()];
}

describe("words, not identifiers", { timeout: 900_000 }, () => {
  let browser;
  before(async () => {
    browser = await launchBrowser();
  });
  after(async () => {
    await browser?.close();
  });

  it("the checker finds what it is meant to find, and lets words be", () => {
    const found = (t) => offences(t, "here").map((o) => o.word);
    assert.deepEqual(found("Use devils_luck"), ["devils_luck"]);
    assert.deepEqual(found("TURN ORDER: Rook is not up"), ["TURN", "ORDER"]);
    assert.deepEqual(found("its rules define no lab_turn(t)"), ["lab_turn", "lab_turn(t)"]);
    assert.deepEqual(found("offerLoss"), ["offerLoss"]);
    assert.equal(found("Open task: Character: Vance · Momentum: 0 · Outcome: success · Saved: 0").length, 1);
    assert.deepEqual(found("Conflict: Loss unsettled: no"), ["Conflict: Loss unsettled: no"]);
    assert.deepEqual(found("The GM gives Ann 2 XP; the NPC rolls 2d6+1 (MAD 4). Hero(s) win, d6s · 3 HP"), []);
  });

  for (const story of STORIES) {
    it(`${story.name}: the GM and a player read words, never identifiers`, async () => {
      const errors = [];
      const seen = await lookAtTable(browser, story, errors);
      const lines = report(story.name, seen);
      if (lines.length) console.log(lines.join("\n"));
      assert.deepEqual(lines, [], `${lines.length} identifiers shown`);
      assert.deepEqual(errors, [], "no page errors");
    });
  }
});
