// Browser tests of table talk against `houserule serve`: the GM and two players (ann, bo)
// play Fumbles in three browsers.
// 1. They exchange posts in and out of character, with light formatting (and markup that
//    must stay text); the GM whispers to ann and ann answers the GM only: bo's page never
//    receives either — every WebSocket frame it got is checked — and never shows them. A post
//    is edited by its author; the original wording stays a click away.
// 2. ann's post carries a challenge roll: the form under her text offers only the traits her
//    post names, the log shows the post with its dice inside, the rolled traits picked out in
//    the text; after that action the earlier posts can no longer be edited.
// 3. The log is narrowed to posts, rolls, whispers or one character, and searched.
// 4. A post copies out as a forum post (the clipboard, or the text selected when the browser
//    refuses the clipboard), and bo, coming back, sees what is new since he last looked.
// Screenshots: post-with-roll and whisper (target/screenshots/, or HOUSERULE_SCREENSHOTS).
//
// Run: npm --prefix ui run build && cargo build -p houserule, then in ui/:
// node --test --test-concurrency=1 ../tests/browser/talk.test.mjs

import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { inviteLink, launchBrowser, openPage, openRecordedPage, screenshot, startServer, until, openAction, submit, pickPlayer, gmCreates } from "./support.mjs";

const WHISPER = "Psst: the chieftain at the gate is your *long-lost brother*.";
const NOTE_TO_GM = "Then I will keep my Fireball for his guards.";

function postBox(page) {
  return page.getByRole("region", { name: "Write a post" });
}

function postText(page) {
  return postBox(page).getByRole("textbox", { name: /^(.+ says|Your post)$/ });
}

/** Writes a post through the post box: `as` picks the speaker, `to` the audience (by label). */
async function post(page, text, { as = null, to = null, button = "Post" } = {}) {
  const box = postBox(page);
  if (as) await box.getByLabel("Speak as").selectOption({ label: as });
  if (to) await box.getByLabel("To", { exact: true }).selectOption({ label: to });
  await postText(page).fill(text);
  await box.getByRole("button", { name: button, exact: true }).click();
  await until(`the post “${text.slice(0, 30)}…” is sent`, async () => {
    if (await box.getByRole("alert").count()) return `refused: ${await box.getByRole("alert").first().innerText()}`;
    return (await postText(page).inputValue()) === "" && (await box.getByRole("status").filter({ hasText: /Posted|Whispered|Sent|Noted/ }).count()) > 0;
  });
}

function log(page) {
  return page.getByRole("list", { name: "Log" });
}

/** The log entry (a top-level item of the log) holding `text`. */
function entry(page, text) {
  return log(page).locator(":scope > li.log-entry").filter({ hasText: text });
}

async function seen(page, text, what = `the log shows “${text}”`) {
  await until(what, async () => (await entry(page, text).count()) > 0);
  return entry(page, text).first();
}

/** Scrolls the log panel (it scrolls on its own) to the top of the entries, for a picture. */
async function showLog(page) {
  await page.getByLabel("Show", { exact: true }).evaluate((el) => {
    const col = el.closest(".col-log");
    col.scrollTop += el.getBoundingClientRect().top - col.getBoundingClientRect().top - 12;
  });
}

describe("table talk: posts, whispers and the rolls inside them", { timeout: 300_000 }, () => {
  let server;
  let browser;
  let gm;
  let ann;
  let bo;
  let boContext;
  let boFrames;
  const errors = [];

  before(async () => {
    server = await startServer();
    browser = await launchBrowser();
  });

  after(async () => {
    await browser?.close();
    await server?.stop();
  });

  it("the GM and two players exchange posts and a whisper; the third party never receives the whisper", async () => {
    ({ page: gm } = await openPage(browser, server.url, errors));
    await gmCreates(gm, server, "Fumbles", "Goblin Hill");

    for (const [name, owner, traits] of [
      ["Gandolf", "ann", "Magic!, Fireball, Barrier, Levitate, Staff"],
      ["Bree", "bo", "Sword, Shield, Quick"],
    ]) {
      const form = await openAction(gm, "Create a character");
      await form.getByLabel("Name", { exact: true }).fill(name);
      await pickPlayer(form, "Owner", owner);
      await form.getByLabel("Traits", { exact: true }).fill(traits);
      await submit(form, "Create a character");
      await gm.getByRole("article", { name }).waitFor();
    }
    const start = await openAction(gm, "Start a challenge");
    await start.getByLabel("Name", { exact: true }).fill("Goblins");
    await start.getByLabel("CR", { exact: true }).fill("6");
    await start.getByLabel("Toughness", { exact: true }).fill("2");
    await start.getByLabel("Smash", { exact: true }).fill("1");
    await submit(start, "Start a challenge");
    await gm.getByRole("article", { name: "Goblins", exact: true }).waitFor();

    const annLink = await inviteLink(gm, "ann");
    const boLink = await inviteLink(gm, "bo");
    ({ page: ann } = await openPage(browser, annLink, errors));
    // bo's page has every WebSocket frame it receives recorded, from before it loads.
    ({ page: bo, context: boContext, frames: boFrames } = await openRecordedPage(browser, boLink, errors));
    await ann.getByRole("article", { name: "Gandolf" }).waitFor();
    await bo.getByRole("article", { name: "Bree" }).waitFor();

    // The GM speaks out of character to everyone, with bold.
    await post(gm, "Welcome to **Goblin Hill**.\nThe gate creaks open.");
    for (const page of [ann, bo]) {
      const welcome = await seen(page, "Welcome to");
      assert.equal(await welcome.locator("strong").innerText(), "Goblin Hill", "**bold** is bold");
      assert.match(await welcome.innerText(), /GM\s+out of character/, "the speaker is the GM, out of character");
    }

    // ann speaks as her only character (the default speaker), with a quote and italics.
    assert.equal(await postBox(ann).getByLabel("Speak as").locator("option:checked").innerText(), "Gandolf", "a player with one character speaks as it");
    const speakers = await postBox(ann).getByLabel("Speak as").locator("option").allInnerTexts();
    assert.deepEqual(speakers, ["Out of character", "Gandolf"], "a player may speak only as her own character");
    await post(ann, "> The old road is dark.\nGandolf *squints* at the gate.");
    for (const page of [gm, bo]) {
      const annPost = await seen(page, "squints");
      assert.match(await annPost.locator("header").innerText(), /Gandolf\s+ann/, "the character speaks, played by ann");
      assert.equal(await annPost.locator("blockquote").innerText(), "The old road is dark.", "> quotes");
      assert.equal(await annPost.locator("em").innerText(), "squints", "*italic* is italic");
    }

    // The GM whispers to ann; ann answers the GM only.
    const to = await postBox(gm).getByLabel("To", { exact: true }).locator("option").allInnerTexts();
    assert.deepEqual(to, ["Everyone", "Only me (a GM note)", "Whisper to ann", "Whisper to bo"], "the GM may whisper to each player");
    await post(gm, WHISPER, { to: "Whisper to ann", button: "Whisper to ann" });
    const whisper = await seen(ann, "long-lost brother", "ann receives the whisper");
    assert.match(await whisper.innerText(), /Whisper: ann and the GM/, "ann sees it is a whisper");
    assert.match(await (await seen(gm, "long-lost brother")).innerText(), /Whisper to ann/);
    assert.deepEqual(await postBox(ann).getByLabel("To", { exact: true }).locator("option").allInnerTexts(), ["Everyone", "The GM only"], "a player writes to everyone or to the GM");
    await post(ann, NOTE_TO_GM, { as: "Out of character", to: "The GM only", button: "Post to the GM" });
    assert.match(await (await seen(gm, "keep my Fireball", "the GM receives ann's note")).innerText(), /To the GM only/);
    await showLog(ann);
    await screenshot(ann, "whisper");

    // Markup typed into a post stays text on every screen: nothing is injected.
    const markup = `<img src="x" onerror="window.__pwned = 1"><b>not bold</b> **bold**`;
    await post(bo, markup, { as: "Out of character" });
    for (const page of [gm, ann]) {
      const shown = await seen(page, "not bold");
      assert.ok((await shown.innerText()).includes(`<img src="x" onerror="window.__pwned = 1"><b>not bold</b>`), "the tags show as typed");
      assert.equal(await shown.locator("img, b").count(), 0, "no element comes out of the text");
      assert.equal(await shown.locator("strong").innerText(), "bold", "the post's own formatting still works");
      assert.equal(await page.evaluate(() => window.__pwned), undefined, "no script ran");
    }

    // bo's page: once the next public post arrives, neither private post was ever received.
    // The post box is back to everyone after a private post (fresh.test.mjs proves it): said here anyway.
    await post(gm, "Roll for the gate.", { to: "Everyone" });
    await seen(bo, "Roll for the gate");
    assert.ok(boFrames.received.some((f) => f.includes("Roll for the gate")), "the recording holds what bo did receive");
    for (const secret of ["chieftain at the gate", "long-lost brother", "keep my Fireball"]) {
      assert.equal(boFrames.received.filter((f) => f.includes(secret)).length, 0, `no frame bo received holds “${secret}”`);
      assert.ok(!(await bo.locator("body").innerText()).includes(secret), `bo's screen does not show “${secret}”`);
    }

    // bo edits his own post while the table has not moved on; the original stays a click away.
    await post(bo, "Bree draws her blade.", { as: "Bree" });
    const seq = await (await seen(bo, "Bree draws her blade")).getAttribute("data-seq");
    const mine = log(bo).locator(`:scope > li[data-seq="${seq}"]`);
    await mine.getByRole("button", { name: /^Edit post/ }).click();
    const edit = mine.getByRole("form", { name: /^Edit post/ });
    await edit.getByRole("textbox").fill("Bree draws her *Sword* and raises her Shield.");
    await edit.getByRole("button", { name: "Save the edit" }).click();
    const edited = await seen(gm, "raises her Shield", "the GM sees the edit");
    assert.match(await edited.locator("header").innerText(), /edited/, "the post says it was edited");
    assert.equal(await entry(gm, "Bree draws").count(), 1, "the edit shows in place of the post, not as another post");
    await edited.getByText("Earlier wording").click();
    assert.match(await edited.locator(".earlier").innerText(), /Bree draws her blade\./, "the original wording is kept");
    assert.equal(await entry(ann, "Bree draws").getByRole("button", { name: /^Edit post/ }).count(), 0, "only the author may edit");
  });

  it("a Fumbles post carries a challenge roll: the traits offered are those the post names", async () => {
    // ann rolled these dice at her desk: the GM lets her type them in (the picture stays the same).
    await gm.getByRole("tab", { name: "Players" }).click();
    await gm.getByRole("row", { name: /ann/ }).getByLabel("may type in their own dice").check();
    await gm.getByRole("tab", { name: "Table" }).click();

    const box = postBox(ann);
    await box.getByLabel("Speak as").selectOption({ label: "Gandolf" });
    await box.getByLabel("To", { exact: true }).selectOption({ label: "Everyone" });
    await postText(ann).fill("Gandolf raises his staff.");
    await box.getByLabel("With an action").selectOption({ label: "Challenge roll" });
    const form = box.getByRole("form", { name: "Challenge roll with your post", exact: true });
    await form.waitFor();
    const attack = form.getByRole("group", { name: "Attack" });
    const offered = () => attack.getByRole("checkbox").evaluateAll((boxes) => boxes.map((b) => b.closest("label").textContent.trim()));
    assert.deepEqual(await offered(), ["Staff"], "only the trait the post names (in any case) is offered");

    await postText(ann).fill("Gandolf raises his *staff*, calls on **Magic!** and hurls a Fireball at the gate, a Barrier of light around him.");
    await until("the traits named are offered", async () => JSON.stringify(await offered()) === JSON.stringify(["Magic!", "Fireball", "Barrier", "Staff"]));
    assert.equal(await attack.getByLabel("Levitate").count(), 0, "a trait the post does not name is not offered");
    await attack.getByLabel("Fireball", { exact: true }).check();
    await attack.getByLabel("Magic!", { exact: true }).check();
    await form.getByRole("group", { name: "Defense" }).getByLabel("Barrier", { exact: true }).check();
    await form.getByRole("status", { name: "Chance of success" }).waitFor();
    await form.getByLabel("Dice rolled by hand").fill("6, 4, 2");
    await form.getByRole("button", { name: "Post with Challenge roll", exact: true }).click();
    await box.getByRole("status").filter({ hasText: "Posted with Challenge roll" }).waitFor();
    assert.equal(await postText(ann).inputValue(), "", "the post box is cleared");
    assert.equal(await box.getByRole("form", { name: "Challenge roll with your post" }).count(), 0, "and the action put away");

    for (const page of [ann, gm, bo]) {
      const rolled = await seen(page, "hurls a Fireball");
      assert.match(await rolled.locator("header").innerText(), /Gandolf\s+ann/);
      const roll = rolled.getByRole("region", { name: "Challenge roll" });
      await roll.getByRole("list", { name: /^Attack dice: / }).waitFor();
      assert.equal(await roll.getByRole("list", { name: /^Attack dice: / }).getAttribute("aria-label"), "Attack dice: 6, 4", "one die per attack trait");
      assert.equal(await roll.getByRole("list", { name: /^Defense dice: / }).getAttribute("aria-label"), "Defense dice: 2");
      await roll.getByText("by hand").first().waitFor();
      const marks = await rolled.locator(".post-text mark").allInnerTexts();
      assert.deepEqual(marks.sort(), ["Barrier", "Fireball", "Magic!"], "the traits rolled are picked out in the text");
    }
    await showLog(ann);
    await screenshot(ann, "post-with-roll");

    // The table moved on: bo's post can no longer be edited.
    await until("bo's Edit button is gone", async () => (await entry(bo, "raises her Shield").getByRole("button", { name: /^Edit post/ }).count()) === 0);
  });

  it("the log can be narrowed to posts, rolls, whispers or one character, and searched", async () => {
    const show = gm.getByLabel("Show", { exact: true });
    const entries = () => log(gm).locator(":scope > li.log-entry");
    const texts = async () => (await entries().allInnerTexts()).join("\n---\n");

    await show.selectOption({ label: "Posts" });
    await until("only posts show", async () => (await entries().count()) === (await log(gm).locator(":scope > li.has-post").count()));
    let all = await texts();
    for (const t of ["Welcome to", "squints", "not bold", "long-lost brother", "keep my Fireball", "hurls a Fireball", "raises her Shield"]) assert.ok(all.includes(t), `posts include “${t}”`);
    assert.ok(!all.includes("Start a challenge"), "actions without a post are left out");
    await gm.getByRole("status").filter({ hasText: /^Showing \d+ entries of \d+/ }).waitFor();

    await show.selectOption({ label: "Rolls" });
    await until("only rolls show", async () => (await entries().count()) === 1);
    assert.match(await texts(), /hurls a Fireball/);

    await show.selectOption({ label: "Whispers and notes to the GM" });
    await until("only private posts show", async () => (await entries().count()) === 2);
    all = await texts();
    assert.ok(all.includes("long-lost brother") && all.includes("keep my Fireball"));

    await show.selectOption({ label: "Bree" });
    await until("only Bree's entries show", async () => !(await texts()).includes("squints"));
    all = await texts();
    assert.ok(all.includes("raises her Shield"), "Bree's post");
    const created = entries().filter({ hasText: "Create a character" });
    assert.equal(await created.count(), 1, "one character created: Bree");
    assert.match(await created.innerText(), /Name\s+Bree/, "Bree's creation");
    for (const t of ["Welcome to", "hurls a Fireball"]) assert.ok(!all.includes(t), `not “${t}”`);

    await show.selectOption({ label: "Everything" });
    await gm.getByRole("searchbox", { name: "Search the log" }).fill("goblin hill");
    await until("the search finds the welcome post", async () => (await entries().count()) === 1);
    assert.equal(await entries().first().locator("mark.search-hit").innerText(), "Goblin Hill", "the match is picked out");
    await gm.getByRole("button", { name: "Show everything" }).click();
    await until("the whole log is back", async () => (await entries().count()) > 8);
  });

  it("a post copies out as a forum post, and bo sees what is new since he last looked", async () => {
    // ann's browser lets the page use the clipboard: Markdown lands there.
    await ann.context().grantPermissions(["clipboard-read", "clipboard-write"], { origin: new URL(server.url).origin });
    const rolled = entry(ann, "hurls a Fireball");
    await rolled.getByRole("button", { name: "Copy as forum post" }).click();
    await rolled.getByRole("button", { name: "Markdown", exact: true }).click();
    await rolled.getByRole("status").filter({ hasText: "Copied as Markdown" }).waitFor();
    const copied = await ann.evaluate(() => navigator.clipboard.readText());
    assert.match(copied, /\*\*Gandolf \(ann\)\*\*/, `the speaker in bold (${copied})`);
    assert.match(copied, /\*\*Magic!\*\*/, "the post's own Markdown");
    assert.match(copied, /houserule verify/, "the verify line");

    // bo's browser refuses the clipboard: the BBCode is shown selected, to copy by hand.
    await bo.evaluate(() => {
      navigator.clipboard.writeText = () => Promise.reject(new Error("denied"));
    });
    const welcome = entry(bo, "Welcome to");
    await welcome.getByRole("button", { name: "Copy as forum post" }).click();
    await welcome.getByRole("button", { name: "BBCode", exact: true }).click();
    const manual = welcome.getByRole("textbox", { name: /Forum post \(BBCode\)/ });
    await manual.waitFor();
    const text = await manual.inputValue();
    assert.match(text, /\[b\]Goblin Hill\[\/b\]/, `BBCode (${text})`);
    assert.deepEqual(await manual.evaluate((t) => [t.readOnly, t.selectionStart, t.selectionEnd, t.value.length]), [true, 0, text.length, text.length], "read-only, all selected");

    // bo has read everything (the server keeps his mark), then leaves.
    const newest = Number(await log(bo).locator(":scope > li.log-entry").first().getAttribute("data-seq"));
    await until("bo's page told the server how far he read", async () =>
      boFrames.sent.some((f) => {
        const m = JSON.parse(f);
        return m.method === "mark_read" && m.params.seq >= newest;
      }),
    );
    await bo.close();

    await post(gm, "The goblins regroup behind the gate.");
    await post(gm, "Drums in the deep.");

    // He comes back (his browser remembers his link): what is new is set apart.
    bo = await boContext.newPage();
    bo.on("pageerror", (e) => errors.push(`page error: ${e.message}`));
    await bo.goto(server.url);
    await seen(bo, "Drums in the deep");
    const jump = bo.getByRole("button", { name: /^Jump to unread/ });
    await jump.waitFor();
    assert.match(await jump.innerText(), /2 new/);
    const divider = bo.getByRole("separator", { name: "New since you last looked" });
    await divider.waitFor();
    const order = await log(bo).evaluate((ol) => [...ol.children].map((li) => (li.classList.contains("unread-divider") ? "DIVIDER" : li.textContent)));
    const at = order.indexOf("DIVIDER");
    assert.equal(at, 2, "the divider comes after the two new entries (newest first)");
    assert.ok(order[0].includes("Drums in the deep") && order[1].includes("goblins regroup"), "the new entries are above it");
    assert.ok(order[3].includes("Roll for the gate") || order.slice(3).some((t) => t.includes("Welcome to")), "what he had read is below it");
    await jump.click();
    await until("the divider has the focus", async () => await bo.evaluate(() => document.activeElement?.classList.contains("unread-divider") ?? false));
    assert.deepEqual(errors, [], "no page errors in any browser");
  });
});
