// Forms that never carry a stale choice (issue 35, point 8), against `houserule serve` on the
// Generic table with the GM and one player (ann) in two browsers:
// 1. An action form starts fresh after a successful submit (every field back to its default,
//    the "Done" still shown), and keeps what was typed when the engine refuses it.
// 2. The post box goes back to "Everyone" after a whisper and after a GM note.
// 3. A GM-only pool on ann's own character shows nothing of itself to ann: its name is in no
//    WebSocket frame her page received and nowhere on her screen.
//
// Run: npm --prefix ui run build, then in ui/:
// HOUSERULE_BIN=… node --test --test-concurrency=1 ../tests/browser/fresh.test.mjs

import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { gmCreates, inviteLink, launchBrowser, openAction, openPage, openRecordedPage, pickPlayer, startServer, submit, until } from "./support.mjs";

/** The name of the GM-only pool: a word found nowhere else in the campaign. */
const SECRET_POOL = "Doomclock";

function postBox(page) {
  return page.getByRole("region", { name: "Write a post" });
}

/** What each field of the "Create a pool" form holds now. */
async function poolFields(form) {
  return {
    name: await form.getByLabel("Name", { exact: true }).inputValue(),
    entity: await form.getByLabel("Entity", { exact: true }).inputValue(),
    initial: await form.getByLabel("Initial", { exact: true }).inputValue(),
    visibility: await form.getByLabel("Visibility", { exact: true }).inputValue(),
  };
}

async function fillPool(form, { name, entity, initial, visibility }) {
  await form.getByLabel("Name", { exact: true }).fill(name);
  await form.getByLabel("Entity", { exact: true }).selectOption({ label: entity });
  await form.getByLabel("Initial", { exact: true }).fill(initial);
  await form.getByLabel("Visibility", { exact: true }).selectOption(visibility);
}

describe("forms that never carry a stale choice", { timeout: 240_000 }, () => {
  let server;
  let browser;
  let gm;
  let ann;
  let annFrames;
  const errors = [];

  before(async () => {
    server = await startServer();
    browser = await launchBrowser();
    ({ page: gm } = await openPage(browser, server.url, errors));
    await gmCreates(gm, server, "Generic table", "Fresh forms");
    const create = await openAction(gm, "Create a character");
    await pickPlayer(create, "Owner", "ann");
    await create.getByLabel("Name", { exact: true }).fill("Gandolf");
    await submit(create, "Create a character");
    const link = await inviteLink(gm, "ann");
    ({ page: ann, frames: annFrames } = await openRecordedPage(browser, link, errors));
    await ann.getByRole("article", { name: "Gandolf" }).waitFor();
  });

  after(async () => {
    await browser?.close();
    await server?.stop();
  });

  it("an action form starts fresh after it is done, and keeps what was typed when it is refused", async () => {
    const form = await openAction(gm, "Create a pool");
    const defaults = await poolFields(form);
    assert.deepEqual(defaults, { name: "", entity: "", initial: "0", visibility: "public" }, "the form opens on its defaults");

    await fillPool(form, { name: SECRET_POOL, entity: "Gandolf", initial: "3", visibility: "gm" });
    await submit(form, "Create a pool");
    assert.deepEqual(await poolFields(form), defaults, "after a pool is made, nothing of it is left in the form");
    assert.match(await form.getByRole("status").filter({ hasText: "Done" }).innerText(), new RegExp(`A new pool: ${SECRET_POOL}`), "the result stays shown");

    // The same pool again is refused: what the GM typed stays, to be fixed.
    const typed = { name: SECRET_POOL, entity: "Gandolf", initial: "5", visibility: "gm" };
    await fillPool(form, typed);
    await form.getByRole("button", { name: "Create a pool", exact: true }).click();
    await form.getByRole("alert").filter({ hasText: `already a pool called ${SECRET_POOL}` }).waitFor();
    const kept = await poolFields(form);
    assert.deepEqual({ ...kept, entity: kept.entity !== "" }, { ...typed, entity: true }, "a refused form keeps every field");
    assert.equal(await form.getByLabel("Entity", { exact: true }).locator("option:checked").innerText(), "Gandolf");
    assert.equal(await form.getByRole("status").filter({ hasText: "Done" }).count(), 0, "the refusal replaces the earlier result");
    assert.deepEqual(errors.filter((e) => !e.includes("already a pool")), []);
  });

  it("the post box goes back to Everyone after a whisper and after a GM note", async () => {
    const box = postBox(gm);
    const to = box.getByLabel("To", { exact: true });
    const text = box.getByRole("textbox", { name: /^(.+ says|Your post)$/ });
    for (const [audience, note] of [
      ["Whisper to ann", "Whispered to ann."],
      ["Only me (a GM note)", "Noted (only you see it)."],
    ]) {
      await to.selectOption({ label: audience });
      await text.fill(`For ${audience}: the gate is a trap.`);
      await box.locator("form.post-send").getByRole("button").click();
      await box.getByRole("status").filter({ hasText: note }).waitFor();
      assert.equal(await text.inputValue(), "", `the text is gone after “${audience}”`);
      assert.equal(await to.inputValue(), "everyone", `the post box is back to Everyone after “${audience}”`);
      assert.equal(await box.locator("form.post-send").getByRole("button").innerText(), "Post");
    }
  });

  it("a GM-only pool on a player's character shows nothing of itself to that player", async () => {
    // A public pool made after the secret one: once ann sees it, she has had every later frame.
    const form = await openAction(gm, "Create a pool");
    await fillPool(form, { name: "Luck", entity: "Gandolf", initial: "2", visibility: "public" });
    await submit(form, "Create a pool");
    await until("ann sees the public pool", async () => (await ann.getByRole("article", { name: "Gandolf" }).innerText()).includes("Luck"));
    assert.ok(annFrames.received.some((f) => f.includes("Luck")), "the recording holds what ann did receive");

    const secret = new RegExp(SECRET_POOL, "i");
    const leaks = annFrames.received.filter((f) => secret.test(f));
    assert.deepEqual(
      leaks.map((f) => f.slice(Math.max(0, f.search(secret) - 300), f.search(secret) + 200)),
      [],
      `no frame ann received names the GM-only pool (${leaks.length} do)`,
    );
    assert.doesNotMatch(await ann.locator("body").innerText(), secret, "ann's screen does not name it");
  });
});
