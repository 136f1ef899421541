// A map picture (issue 32, points 1 and 3), against `houserule serve` on the Generic table with
// the GM and one player (bo) in two browsers:
// 1. The GM imports a picture through the map's file picker: its left half red, its right half
//    green (the secret room). It becomes the scene's background; the scene is fogged, two cells
//    of the red half are revealed, and then it is shown.
// 2. bo's map shows a picture; every picture reply bo's browser received is decoded (in a
//    canvas) and holds no green pixel, and black where the fog is; no frame bo received names
//    the picture's digest; asking for the picture by its digest is refused.
// 3. An SVG is refused on import, naming the file, and nothing is added to the log.
//
// Run: npm --prefix ui run build, then in ui/:
// HOUSERULE_BIN=… node --test --test-concurrency=1 ../tests/browser/map_picture.test.mjs

import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { gmCreates, inviteLink, launchBrowser, openAction, openRecordedPage, pickPlayer, png, screenshot, startServer, submit, until } from "./support.mjs";

const map = (page) => page.getByRole("region", { name: "Map" });
const cell = (page, x, y) => map(page).locator(`polygon.cell[data-cell="${x},${y}"]`);


const RED = [200, 30, 30];
const GREEN = [30, 200, 30];
const cellar = png(400, 200, (x) => (x < 200 ? RED : GREEN));

/** Counts, in a picture given as a data: URL, the green, red and black pixels (decoded in a canvas). */
async function census(page, url) {
  return page.evaluate(async (src) => {
    const img = new Image();
    img.src = src;
    await img.decode();
    const c = document.createElement("canvas");
    [c.width, c.height] = [img.naturalWidth, img.naturalHeight];
    const g = c.getContext("2d");
    g.drawImage(img, 0, 0);
    const d = g.getImageData(0, 0, c.width, c.height).data;
    const n = { green: 0, red: 0, black: 0 };
    for (let i = 0; i < d.length; i += 4) {
      if (d[i] === 30 && d[i + 1] === 200 && d[i + 2] === 30) n.green++;
      else if (d[i] === 200 && d[i + 1] === 30 && d[i + 2] === 30) n.red++;
      else if (d[i] === 0 && d[i + 1] === 0 && d[i + 2] === 0) n.black++;
    }
    return n;
  }, url);
}

describe("a map picture", { timeout: 240_000 }, () => {
  let server;
  let browser;
  let gm;
  let gmFrames;
  let bo;
  const errors = [];

  before(async () => {
    server = await startServer();
    browser = await launchBrowser();
    ({ page: gm, frames: gmFrames } = await openRecordedPage(browser, server.url, errors));
    await gmCreates(gm, server, "Generic table", "Cellar");
    const form = await openAction(gm, "Create a character");
    await pickPlayer(form, "Owner", "bo");
    await form.getByLabel("Name", { exact: true }).fill("Frody");
    await submit(form, "Create a character");
    bo = await openRecordedPage(browser, await inviteLink(gm, "bo"), errors);
    await bo.page.getByRole("article", { name: "Frody" }).waitFor();
  });

  after(async () => {
    await browser?.close();
    await server?.stop();
  });

  it("the GM imports a map picture and shows the scene fogged but for two cells", async () => {
    await map(gm).getByLabel("New scene", { exact: true }).fill("The Cellar");
    await map(gm).getByRole("button", { name: "Make scene" }).click();
    await until("the GM's map is drawn", async () => (await cell(gm, 0, 0).count()) === 1);
    await map(gm).getByLabel("Import a map picture (PNG, JPEG or WebP)").setInputFiles({ name: "cellar.png", mimeType: "image/png", buffer: cellar });
    await until("the GM's map shows the picture", async () => (await map(gm).locator("image.scene-picture").count()) === 1);
    const href = await map(gm).locator("image.scene-picture").getAttribute("href");
    const whole = await census(gm, href);
    assert.equal(whole.green, 200 * 200, "the GM sees the whole picture");
    // The fog goes on before the players are shown the scene (shown unfogged, all of it is theirs).
    await map(gm).getByRole("button", { name: "Fog off: cover the map" }).click();
    await until("the fog is on", async () => (await map(gm).getByRole("button", { name: "Fog on: lift it" }).count()) === 1);
    await map(gm).getByRole("button", { name: "Reveal / cover" }).click();
    await cell(gm, 0, 0).click();
    await until("cell 0,0 is revealed", async () => !(await cell(gm, 0, 0).getAttribute("class")).includes("fogged"));
    await cell(gm, 1, 0).click();
    await until("cell 1,0 is revealed", async () => !(await cell(gm, 1, 0).getAttribute("class")).includes("fogged"));
    await map(gm).getByRole("button", { name: "Show to players" }).click();
  });

  it("bo's browser receives only the masked picture: no green pixel, no digest", async () => {
    const page = bo.page;
    await until("bo's map shows a picture", async () => (await map(page).locator("image.scene-picture").count()) === 1);
    // The revealed cells are what bo's latest picture shows; older replies had less revealed.
    await until("bo's picture shows both revealed cells", async () => {
      const href = await map(page).locator("image.scene-picture").getAttribute("href");
      return (await census(page, href)).red === 2 * 50 * 50;
    });
    await screenshot(gm, "map-picture-gm");
    await screenshot(page, "map-picture-player");
    const replies = bo.frames.received.map((f) => JSON.parse(f)).filter((m) => m.result && typeof m.result.data === "string" && m.result.mime);
    assert.ok(replies.length >= 1, "bo fetched at least one picture");
    for (const r of replies) {
      const n = await census(page, `data:${r.result.mime};base64,${r.result.data}`);
      assert.equal(n.green, 0, "no pixel of the secret room in any picture bo received");
      assert.ok(n.black >= 400 * 200 - 2 * 50 * 50, "everything fogged is black");
    }
    const imported = gmFrames.received.map((f) => JSON.parse(f)).find((m) => m.result?.picture && m.result?.digest);
    const digest = imported.result.digest;
    assert.ok(!bo.frames.received.some((f) => f.includes(digest)), "no frame bo received names the picture's digest");
    // bo's own connection (joined again with the hello bo's page sent) asks for it by digest.
    const hello = bo.frames.sent.find((f) => JSON.parse(f).method === "hello");
    const asked = await page.evaluate(
      async ([hello, key]) => {
        const ws = new WebSocket(`ws://${location.host}/ws`);
        await new Promise((r) => (ws.onopen = r));
        const reply = (id) => new Promise((r) => ws.addEventListener("message", (e) => { const m = JSON.parse(e.data); if (m.id === id) r(m); }));
        const joined = reply(JSON.parse(hello).id);
        ws.send(hello);
        await joined;
        const got = reply(9001);
        ws.send(JSON.stringify({ id: 9001, method: "picture", params: { key } }));
        const out = await got;
        ws.close();
        return [out];
      },
      [hello, digest],
    );
    for (const a of asked) assert.match(a.error?.message ?? "", /no picture you may see/, "a picture asked for by digest is refused");
    assert.deepEqual(errors, []);
  });

  it("an SVG is refused on import, naming the file, and nothing is logged", async () => {
    const before = await gm.getByRole("list", { name: "Log" }).getByRole("listitem").count();
    const svg = Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>');
    await map(gm).getByLabel("Import a map picture (PNG, JPEG or WebP)").setInputFiles({ name: "evil.svg", mimeType: "image/svg+xml", buffer: svg });
    await until("the refusal is shown", async () => /evil\.svg: not a PNG, JPEG or WebP/.test(await map(gm).innerText()));
    assert.equal(await gm.getByRole("list", { name: "Log" }).getByRole("listitem").count(), before);
  });
});
