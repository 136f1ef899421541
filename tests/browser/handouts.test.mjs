// Handouts (issue 32, point 6), against `houserule serve` on the Generic table with the GM and
// two players (ann, bo) in three browsers:
// 1. The GM writes a handout with a picture and Markdown (and a script tag and a javascript:
//    link, which must stay words). Neither player's browser receives anything of it — not its
//    title, text, id or picture's digest — and neither has a Handouts tab.
// 2. Shown to ann, ann's tab shows it: the Markdown rendered, the picture decoded, no script and
//    no javascript: link on the page; bo's browser still receives nothing of it, and bo asking
//    for the picture by its digest on his own connection is refused.
// 3. Shown to everyone, bo reads it too.
//
// Run: npm --prefix ui run build, then in ui/:
// HOUSERULE_BIN=… node --test --test-concurrency=1 ../tests/browser/handouts.test.mjs

import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import {
  gmCreates,
  inviteLink,
  launchBrowser,
  openAction,
  openHandouts,
  openRecordedPage,
  pickPlayer,
  png,
  screenshot,
  showHandout,
  startServer,
  submit,
  until,
  writeHandout,
} from "./support.mjs";

const TITLE = "The duke's letter Qx";
const TEXT = "Meet me at the *old mill* at zb midnight.\n\n- come alone\n- bring the seal\n\n<script>window.pwned = 1</script> [a trick](javascript:window.pwned=2)";
const SECRETS = ["duke's letter Qx", "zb midnight", "bring the seal"];

/** A small PNG: a wax seal in two colours. */
const sealPng = (w, h) => png(w, h, (x, y) => ((x - w / 2) ** 2 + (y - h / 2) ** 2 < (w / 3) ** 2 ? [170, 20, 30] : [240, 230, 200]));

describe("handouts", { timeout: 240_000 }, () => {
  let server;
  let browser;
  let gm;
  let gmFrames;
  let ann;
  let bo;
  let digest;
  let id;
  const errors = [];

  /** The GM narrates `text`; returns once `player` shows it in their log (their page has caught up). */
  async function barrier(player, text) {
    const form = await openAction(gm, "Narrate");
    await form.getByLabel("Text", { exact: true }).fill(text);
    await submit(form, "Narrate");
    await player.page.getByRole("list", { name: "Log" }).getByText(text).first().waitFor();
  }

  /** What of the handout `player`'s browser received, by name. */
  function leaked(player) {
    const all = player.frames.received.join("\n");
    return [...SECRETS, id, digest].filter((s) => s && all.includes(s));
  }

  before(async () => {
    server = await startServer();
    browser = await launchBrowser();
    ({ page: gm, frames: gmFrames } = await openRecordedPage(browser, server.url, errors));
    await gmCreates(gm, server, "Generic table", "Letters");
    for (const [owner, name] of [
      ["ann", "Annika"],
      ["bo", "Frody"],
    ]) {
      const form = await openAction(gm, "Create a character");
      await pickPlayer(form, "Owner", owner);
      await form.getByLabel("Name", { exact: true }).fill(name);
      await submit(form, "Create a character");
    }
    ann = await openRecordedPage(browser, await inviteLink(gm, "ann"), errors);
    await ann.page.getByRole("article", { name: "Annika" }).waitFor();
    bo = await openRecordedPage(browser, await inviteLink(gm, "bo"), errors);
    await bo.page.getByRole("article", { name: "Frody" }).waitFor();
  });

  after(async () => {
    await browser?.close();
    await server?.stop();
  });

  it("a handout the GM writes reaches no player", async () => {
    const card = await writeHandout(gm, { title: TITLE, text: TEXT, picture: { name: "seal.png", buffer: sealPng(120, 90) } });
    await card.getByText("Nobody reads it yet.", { exact: true }).waitFor();
    await card.locator("img.handout-picture").waitFor();
    // The words to look for elsewhere: the handout's id and its picture's digest, as the GM's page was told them.
    const told = gmFrames.received.join("\n");
    id = told.match(/"id":"(h-[0-9a-f]{10})"/)?.[1];
    digest = gmFrames.received.map((f) => JSON.parse(f)).find((m) => m.result?.picture && m.result?.digest)?.result.digest;
    assert.ok(id && digest, "the GM's page was told the handout's id and the picture's digest");
    await gm.getByRole("tab", { name: "Table" }).click();
    await barrier(ann, "All quiet at the inn.");
    await barrier(bo, "All quiet at the mill.");
    for (const p of [ann, bo]) {
      assert.deepEqual(leaked(p), [], "a player's browser received something of an unrevealed handout");
      assert.equal(await p.page.getByRole("tab", { name: /^Handouts/ }).count(), 0, "no Handouts tab for a player shown none");
    }
  });

  it("shown to ann, ann reads it and bo receives nothing of it", async () => {
    await showHandout(gm, TITLE, { players: ["ann"] });
    await gm.getByRole("tab", { name: "Table" }).click();
    const page = ann.page;
    await page.getByRole("tab", { name: "Handouts (1)" }).waitFor();
    await page.getByRole("list", { name: "Log" }).getByText(`The GM shows you the handout “${TITLE}”.`).waitFor();
    const card = (await openHandouts(page)).getByRole("article", { name: TITLE, exact: true });
    await card.locator("em", { hasText: "old mill" }).waitFor();
    assert.equal(await card.getByRole("listitem").count(), 2, "the Markdown list is a list");
    const img = card.locator("img.handout-picture");
    await until("ann's picture is decoded", async () => (await img.evaluate((i) => i.complete && i.naturalWidth)) === 120);
    assert.ok((await card.innerText()).includes("<script>"), "HTML in a handout shows as words");
    assert.equal(await page.evaluate(() => document.querySelectorAll("script:not([src])").length + (window.pwned ?? 0)), 0, "no script of the handout's runs");
    assert.equal(await card.locator('a[href^="javascript:"]').count(), 0, "no javascript: link");
    await screenshot(page, "handout-player");
    await barrier(bo, "The mill wheel turns.");
    assert.deepEqual(leaked(bo), [], "bo's browser received something of ann's handout");
    assert.equal(await bo.page.getByRole("tab", { name: /^Handouts/ }).count(), 0);
    // bo's own connection (joined again with the hello bo's page sent) asks for the picture by digest.
    const hello = bo.frames.sent.find((f) => JSON.parse(f).method === "hello");
    const asked = await bo.page.evaluate(
      async ([hello, key]) => {
        const ws = new WebSocket(`ws://${location.host}/ws`);
        await new Promise((r) => (ws.onopen = r));
        const reply = (n) => new Promise((r) => ws.addEventListener("message", (e) => { const m = JSON.parse(e.data); if (m.id === n) r(m); }));
        const joined = reply(JSON.parse(hello).id);
        ws.send(hello);
        await joined;
        const got = reply(9001);
        ws.send(JSON.stringify({ id: 9001, method: "picture", params: { key } }));
        const out = await got;
        ws.close();
        return out;
      },
      [hello, digest],
    );
    assert.match(asked.error?.message ?? "", /no picture you may see/, "bo asking for the picture by digest is refused");
  });

  it("shown to everyone, bo reads it too", async () => {
    await showHandout(gm, TITLE, { everyone: true });
    await screenshot(gm, "handout-gm");
    await gm.getByRole("tab", { name: "Table" }).click();
    await bo.page.getByRole("tab", { name: "Handouts (1)" }).waitFor();
    const card = (await openHandouts(bo.page)).getByRole("article", { name: TITLE, exact: true });
    await card.locator("em", { hasText: "old mill" }).waitFor();
    assert.deepEqual(errors, []);
  });
});
