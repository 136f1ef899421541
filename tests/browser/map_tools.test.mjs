// The map's tools (token pictures, the token menu, fog areas, zoom by touch), against
// `houserule serve` on the Generic table with the GM and one player (bo, who plays Frody, on a
// touch screen) in two browsers; an NPC the players know (Guard) and one only the GM knows
// (Skulker) stand on the map:
// 1. The GM gives Frody's token a picture (blue) and Skulker's, hidden, another (magenta). bo's
//    map shows Frody's picture cut to his circle, still named for screen readers; no frame bo
//    received names Skulker, his token's id or his picture's digest, and bo's own connection is
//    refused that picture when it asks by digest (and given Frody's). "No picture" takes a
//    token's own picture off.
// 2. The GM binds a free marker to Guard and makes Frody two cells across; bo's map shows both.
// 3. With the fog on, Guard stands in the dark for bo. An area drawn around him and cancelled
//    (by the button, and by Esc after drawing with the keyboard) sends nothing; one drawn with
//    clicks and revealed sends one fog operation with its corners in grid units, and bo sees
//    Guard. Another drawn with the keyboard cursor and revealed with Enter reveals its cells.
// 4. The GM's zoom buttons and Ctrl+wheel make the map larger; on bo's touch screen a pinch
//    (two fingers moving apart, sent as touches through CDP) doubles a cell's width and keeps the
//    point between the fingers in place, and Frody dragged with one finger afterwards lands on the
//    cell under the finger.
// axe finds nothing serious on the GM's map with the token menu open and with an area drawn.
// Screenshot: target/screenshots/map-tools-gm.png (pictures on tokens, an area being drawn).
//
// Run: npm --prefix ui run build, then in ui/:
// HOUSERULE_BIN=… node --test --test-concurrency=1 ../tests/browser/map_tools.test.mjs

import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { createRequire } from "node:module";
import { readFileSync } from "node:fs";
import { gmCreates, inviteLink, launchBrowser, openAction, openRecordedPage, pickPlayer, png, recordFrames, screenshot, startServer, submit, until } from "./support.mjs";

const require = createRequire(new URL("../../ui/package.json", import.meta.url));
const AXE = readFileSync(require.resolve("axe-core/axe.min.js"), "utf8");

const map = (page) => page.getByRole("region", { name: "Map" });
const cell = (page, x, y) => map(page).locator(`polygon.cell[data-cell="${x},${y}"]`);
const token = (page, name) => map(page).locator(`g.token[aria-label^="${name}"]`);
const menu = (page, name) => map(page).getByRole("group", { name: `Token ${name}`, exact: true });

const BLUE = [20, 60, 220];
const MAGENTA = [210, 20, 200];
const frodyPng = png(64, 64, () => BLUE);
const skulkerPng = png(48, 48, () => MAGENTA);

/** The tokens a page's map shows, by their labels. */
async function tokens(page) {
  if ((await map(page).count()) === 0) return [];
  return map(page).locator("g.token").evaluateAll((gs) => gs.map((g) => g.getAttribute("aria-label")));
}

/** The class of a cell on a page's map. */
const cellClass = async (page, x, y) => (await cell(page, x, y).getAttribute("class")) ?? "";

/**
 * The colour of the middle pixel of the picture a token shows, decoded in a canvas (null: no
 * picture). Read in one call that does not wait for the picture (it may go while it is asked).
 */
async function tokenColour(page, name) {
  return token(page, name)
    .locator("image.token-picture")
    .evaluateAll(async (images) => {
      if (images.length === 0) return null;
      const i = new Image();
      i.src = images[0].getAttribute("href");
      await i.decode();
      const c = document.createElement("canvas");
      [c.width, c.height] = [i.naturalWidth, i.naturalHeight];
      const g = c.getContext("2d");
      g.drawImage(i, 0, 0);
      return [...g.getImageData(c.width >> 1, c.height >> 1, 1, 1).data.slice(0, 3)];
    });
}

/** How a token's picture is cut: the circle its clip path holds and the picture's own box. */
async function clipOf(page, name) {
  return token(page, name)
    .locator("image.token-picture")
    .evaluate((img) => {
      const id = /^url\(#(.+)\)$/.exec(img.getAttribute("clip-path") ?? "")?.[1];
      const clip = id ? document.getElementById(id) : null;
      const circle = clip?.tagName === "clipPath" ? clip.querySelector("circle") : null;
      const ring = img.parentElement.querySelector("circle.token-ring");
      const box = img.getBBox();
      return {
        circle: circle && { cx: +circle.getAttribute("cx"), cy: +circle.getAttribute("cy"), r: +circle.getAttribute("r") },
        ring: ring && { cx: +ring.getAttribute("cx"), cy: +ring.getAttribute("cy"), r: +ring.getAttribute("r") },
        box: { x: box.x, y: box.y, width: box.width, height: box.height },
      };
    });
}

/** What axe finds serious or critical on the page now, as short lines. */
async function violations(page) {
  if (!(await page.evaluate(() => typeof window.axe !== "undefined"))) await page.evaluate(AXE);
  return page.evaluate(async () => {
    const r = await window.axe.run(document, { resultTypes: ["violations"] });
    return r.violations.filter((v) => v.impact === "serious" || v.impact === "critical").map((v) => `${v.id}: ${v.help} — ${v.nodes.map((n) => n.target.join(" ")).join(", ")}`);
  });
}

/** The fog operations with a polygon the GM's page sent so far. */
const polygonsSent = (frames) =>
  frames.sent
    .map((f) => JSON.parse(f))
    .filter((m) => m.method === "scene" && m.params?.op === "fog" && m.params.polygon)
    .map((m) => m.params.polygon);

/**
 * A point on screen at the grid point (x, y) in grid units of a page's square map, nudged inward by
 * `dx`, `dy` pixels: through the SVG's own screen matrix and a cell's width in user units (a cell's
 * box on screen also holds its outline's stroke, so it is a little wider than the cell).
 */
async function gridPoint(page, [x, y], [dx, dy] = [0, 0]) {
  return map(page)
    .locator("svg.scene-svg")
    .evaluate(
      (svg, [x, y, dx, dy]) => {
        const corners = svg.querySelector('polygon.cell[data-cell="0,0"]').points;
        const px = corners.getItem(1).x - corners.getItem(0).x;
        const at = new DOMPoint(x * px, y * px).matrixTransform(svg.getScreenCTM());
        return [at.x + dx, at.y + dy];
      },
      [x, y, dx, dy],
    );
}

/** The middle of an element's box on screen. */
async function middle(locator) {
  const b = await locator.boundingBox();
  return [b.x + b.width / 2, b.y + b.height / 2];
}

describe("the map's tools", { timeout: 300_000 }, () => {
  let server;
  let browser;
  let gm;
  let gmFrames;
  const bo = { frames: { received: [], sent: [] } };
  const errors = [];
  const digests = {};

  before(async () => {
    server = await startServer();
    browser = await launchBrowser();
    ({ page: gm, frames: gmFrames } = await openRecordedPage(browser, server.url, errors));
    await gmCreates(gm, server, "Generic table", "Tools");
    const form = await openAction(gm, "Create a character");
    await pickPlayer(form, "Owner", "bo");
    await form.getByLabel("Name", { exact: true }).fill("Frody");
    await submit(form, "Create a character");
    for (const [name, hidden] of [
      ["Guard", false],
      ["Skulker", true],
    ]) {
      const npc = await openAction(gm, "Create an NPC");
      await npc.getByLabel("Name", { exact: true }).fill(name);
      if (hidden) await npc.getByLabel("Hidden", { exact: true }).selectOption("true");
      await submit(npc, "Create an NPC");
    }
    // bo plays on a touch screen: a page that takes touches, every frame it gets recorded.
    const link = await inviteLink(gm, "bo");
    bo.context = await browser.newContext({ viewport: { width: 1280, height: 800 }, deviceScaleFactor: 1, hasTouch: true, reducedMotion: "reduce" });
    bo.page = await bo.context.newPage();
    recordFrames(bo.page, bo.frames);
    bo.page.setDefaultTimeout(15_000);
    bo.page.on("pageerror", (e) => errors.push(`page error: ${e.message}`));
    bo.page.on("console", (m) => m.type() === "error" && errors.push(`console error: ${m.text()}`));
    await bo.page.goto(link);
    await bo.page.getByRole("article", { name: "Frody" }).waitFor();

    // The scene: Frody at (1,1), a free marker at (3,3), Skulker at (6,4); shown to the players.
    await map(gm).getByLabel("New scene", { exact: true }).fill("The Yard");
    await map(gm).getByRole("button", { name: "Make scene" }).click();
    await until("the GM's map is drawn", async () => (await cell(gm, 0, 0).count()) === 1);
    await map(gm).getByRole("button", { name: "Place tokens" }).click();
    for (const [label, x, y] of [
      ["Frody", 1, 1],
      ["a marker", 3, 3],
      ["Skulker", 6, 4],
    ]) {
      const before = (await tokens(gm)).length;
      await map(gm).getByLabel("Place", { exact: true }).selectOption({ label });
      await cell(gm, x, y).click();
      await until(`${label} stands on the GM's map`, async () => (await tokens(gm)).length === before + 1);
    }
    await map(gm).getByRole("button", { name: "Show to players" }).click();
    await until("bo sees Frody and the marker", async () => (await tokens(bo.page)).join("|") === "Frody, column 2, row 2|Marker, column 4, row 4");
    await map(gm).getByRole("button", { name: "Move", exact: true }).click();
  });

  after(async () => {
    await browser?.close();
    await server?.stop();
  });

  it("token pictures: bo sees Frody's, and nothing of hidden Skulker's reaches him", async () => {
    await token(gm, "Frody").click();
    await menu(gm, "Frody").getByLabel("Choose a picture for Frody (PNG, JPEG or WebP)").setInputFiles({ name: "frody.png", mimeType: "image/png", buffer: frodyPng });
    await until("the GM's Frody shows his picture", async () => JSON.stringify(await tokenColour(gm, "Frody")) === JSON.stringify(BLUE));
    await token(gm, "Skulker").click();
    await menu(gm, "Skulker").getByRole("button", { name: "Hide Skulker" }).click();
    await menu(gm, "Skulker").getByRole("button", { name: "Show Skulker" }).waitFor();
    await menu(gm, "Skulker").getByLabel("Choose a picture for Skulker (PNG, JPEG or WebP)").setInputFiles({ name: "lurker.png", mimeType: "image/png", buffer: skulkerPng });
    await until("the GM's Skulker shows his picture", async () => JSON.stringify(await tokenColour(gm, "Skulker")) === JSON.stringify(MAGENTA));
    const failures = await violations(gm);
    assert.deepEqual(failures, [], "axe finds nothing serious with the token menu open");
    await screenshot(gm, "map-tools-menu");

    const imported = gmFrames.received.map((f) => JSON.parse(f)).filter((m) => m.result?.digest && m.result?.picture);
    for (const m of imported) digests[m.result.picture.name] = m.result.digest;
    assert.ok(digests["frody.png"] && digests["lurker.png"], `both pictures were imported: ${JSON.stringify(digests)}`);

    const page = bo.page;
    await until("bo's Frody shows the blue picture", async () => JSON.stringify(await tokenColour(page, "Frody")) === JSON.stringify(BLUE));
    const cut = await clipOf(page, "Frody");
    assert.ok(cut.circle, `Frody's picture is clipped by a circle: ${JSON.stringify(cut)}`);
    assert.deepEqual(cut.circle, cut.ring, "the clip is the token's own circle");
    assert.deepEqual(cut.box, { x: cut.circle.cx - cut.circle.r, y: cut.circle.cy - cut.circle.r, width: 2 * cut.circle.r, height: 2 * cut.circle.r }, "the picture fills the circle's square");
    assert.equal(await map(page).getByRole("button", { name: "Frody, column 2, row 2", exact: true }).count(), 1, "the token keeps its name for screen readers");

    // A later narration, so every frame about the pictures has come before it.
    const narrate = await openAction(gm, "Narrate");
    await narrate.getByLabel("Text", { exact: true }).fill("Someone watches from the dark.");
    await submit(narrate, "Narrate");
    await until("bo sees the narration", async () => (await page.locator("body").innerText()).includes("Someone watches from the dark."));
    const skulkerId = await token(gm, "Skulker").getAttribute("data-token");
    const leaks = bo.frames.received.filter((f) => /skulker|lurker/i.test(f) || f.includes(`"${skulkerId}"`) || f.includes(digests["lurker.png"]));
    assert.deepEqual(leaks.map((f) => f.slice(0, 300)), [], "no frame bo received names Skulker, his token or his picture");
    assert.ok(bo.frames.received.some((f) => f.includes(digests["frody.png"])), "bo was told Frody's picture");
    assert.ok(!/skulker/i.test(await page.locator("body").innerText()), "bo's screen shows nothing of Skulker");

    // bo's own connection (joined again with the hello bo's page sent) asks for both by digest.
    const hello = bo.frames.sent.find((f) => JSON.parse(f).method === "hello");
    const [visible, hidden] = await page.evaluate(
      async ([hello, keys]) => {
        const ws = new WebSocket(`ws://${location.host}/ws`);
        await new Promise((r) => (ws.onopen = r));
        const reply = (id) => new Promise((r) => ws.addEventListener("message", (e) => { const m = JSON.parse(e.data); if (m.id === id) r(m); }));
        const joined = reply(JSON.parse(hello).id);
        ws.send(hello);
        await joined;
        const out = [];
        for (const [i, key] of keys.entries()) {
          const got = reply(9001 + i);
          ws.send(JSON.stringify({ id: 9001 + i, method: "picture", params: { key } }));
          out.push(await got);
        }
        ws.close();
        return out;
      },
      [hello, [digests["frody.png"], digests["lurker.png"]]],
    );
    assert.ok(typeof visible.result?.data === "string", `bo may fetch Frody's picture: ${JSON.stringify(visible).slice(0, 200)}`);
    assert.match(hidden.error?.message ?? "", /no picture you may see/, "Skulker's picture asked for by digest is refused");

    // "No picture" takes Skulker's own picture off.
    await token(gm, "Skulker").click();
    await menu(gm, "Skulker").getByRole("button", { name: "No picture" }).click();
    await until("the GM's Skulker shows initials again", async () => (await tokenColour(gm, "Skulker")) === null && (await token(gm, "Skulker").locator("text").textContent()) === "S");
    assert.deepEqual(errors, []);
  });

  it("the token menu binds a free marker to Guard and makes Frody two cells across", async () => {
    await token(gm, "Marker").click();
    const binding = menu(gm, "Marker").getByLabel("What Marker stands for");
    const guard = await binding.locator("option").evaluateAll((os) => os.find((o) => o.textContent.startsWith("Guard"))?.value);
    await binding.selectOption(guard);
    await until("the GM's marker is Guard", async () => (await tokens(gm)).includes("Guard, column 4, row 4"));
    await until("bo's marker is Guard", async () => (await tokens(bo.page)).includes("Guard, column 4, row 4"));

    await token(gm, "Frody").click();
    await menu(gm, "Frody").getByLabel("Size of Frody in cells").selectOption("2");
    await until("bo's Frody is two cells across", async () => (await tokens(bo.page)).includes("Frody, 2 cells across, column 2, row 2"));
    const one = await cell(bo.page, 0, 0).boundingBox();
    const ring = await token(bo.page, "Frody").locator("circle.token-ring").boundingBox();
    assert.ok(ring.width > 1.7 * one.width && ring.width <= 2 * one.width, `Frody's circle (${ring.width}px) spans two cells (${one.width}px each)`);
    // The keyboard reaches a token the viewer may move.
    await token(gm, "Frody").focus();
    assert.equal(await gm.evaluate(() => document.activeElement?.getAttribute("data-token")), "frody", "Frody's token takes the keyboard's focus");
    await token(gm, "Frody").press("Escape");
  });

  it("an area drawn around Guard reveals him to bo; a cancelled one reveals nothing", async () => {
    await map(gm).getByRole("button", { name: "Fog off: cover the map" }).click();
    const page = bo.page;
    await until("bo no longer sees Guard in the fog", async () => !(await tokens(page)).some((t) => t.startsWith("Guard")));
    await map(gm).getByRole("button", { name: "Reveal / cover" }).click();
    const corners = [
      [3, 3],
      [5, 3],
      [5, 5],
      [3, 5],
    ];
    const inward = [
      [3, 3],
      [-3, 3],
      [-3, -3],
      [3, -3],
    ];
    const drawAround = async () => {
      await map(gm).getByRole("button", { name: "Draw an area" }).click();
      for (const [i, c] of corners.entries()) {
        const [x, y] = await gridPoint(gm, c, inward[i]);
        await gm.mouse.click(x, y);
      }
      await until("the outline has four corners", async () => (await map(gm).locator(".fog-draft-corner").count()) === 4);
    };

    // Drawn, then cancelled with the button: nothing sent, nothing revealed.
    await drawAround();
    assert.equal(await map(gm).locator("polygon.fog-draft-shape").count(), 1, "the outline closes once it has three corners");
    await map(gm).getByRole("group", { name: "Area to reveal" }).getByRole("button", { name: "Cancel" }).click();
    await map(gm).getByRole("button", { name: "Draw an area" }).waitFor();
    assert.equal(await map(gm).locator(".fog-draft").count(), 0, "the outline is gone");

    // Drawn with the keyboard cursor (from its start at (1,1)), then dropped with Esc.
    await map(gm).getByRole("button", { name: "Draw an area" }).click();
    await until("the hint names the keys", async () => /Space to add one/.test(await map(gm).locator(".scene-help").innerText()));
    assert.ok(await map(gm).locator("svg.scene-svg").evaluate((svg) => document.activeElement === svg), "the map has the keyboard as soon as the hint shows");
    for (const key of ["Space", "ArrowRight", "ArrowRight", "Space", "ArrowDown", "ArrowDown", "Space"]) await gm.keyboard.press(key);
    await until("the keyboard drew three corners", async () => (await map(gm).locator(".fog-draft-corner").count()) === 3);
    await gm.keyboard.press("Escape");
    await map(gm).getByRole("button", { name: "Draw an area" }).waitFor();
    assert.deepEqual(polygonsSent(gmFrames), [], "a cancelled area sends nothing");
    assert.match(await cellClass(gm, 3, 3), /fogged-gm/, "Guard's cell is still fogged on the GM's map");
    assert.ok(!(await tokens(page)).some((t) => t.startsWith("Guard")), "bo still does not see Guard");

    // Drawn with clicks and revealed: one fog operation, its corners in grid units.
    await drawAround();
    assert.deepEqual(await violations(gm), [], "axe finds nothing serious while an area is drawn");
    await screenshot(gm, "map-tools-gm");
    await map(gm).getByRole("button", { name: "Reveal this area" }).click();
    await map(gm).getByRole("button", { name: "Draw an area" }).waitFor();
    assert.deepEqual(polygonsSent(gmFrames), [corners], "one fog operation with the area's corners in grid units");
    await until("bo sees Guard in the revealed area", async () => (await tokens(page)).includes("Guard, column 4, row 4"));
    for (const [x, y] of [
      [3, 3],
      [4, 4],
    ]) {
      assert.doesNotMatch(await cellClass(gm, x, y), /fogged/, `cell ${x},${y} looks revealed on the GM's map`);
      assert.doesNotMatch(await cellClass(page, x, y), /fogged/, `cell ${x},${y} is open on bo's map`);
    }
    assert.match(await cellClass(gm, 5, 5), /fogged-gm/, "a cell outside the area stays shaded for the GM");
    assert.match(await cellClass(page, 5, 5), /fogged/, "and dark for bo");
    assert.equal(await map(gm).locator(".fog-revealed polygon").count(), 1, "the GM's map outlines the revealed area");

    // Drawn with the keyboard cursor and revealed with Enter: the cells (4,1) to (5,2).
    await map(gm).getByRole("button", { name: "Draw an area" }).click();
    const keys = ["ArrowRight", "ArrowRight", "ArrowRight", "ArrowRight", "ArrowRight", "ArrowRight", "Space", "Shift+ArrowRight", "Shift+ArrowRight", "Space", "Shift+ArrowDown", "Shift+ArrowDown", "Space", "Shift+ArrowLeft", "Shift+ArrowLeft", "Space", "Enter"];
    for (const key of keys) await gm.keyboard.press(key);
    await until("the keyboard's area is sent", async () => polygonsSent(gmFrames).length === 2);
    assert.deepEqual(polygonsSent(gmFrames)[1], [[4, 1], [6, 1], [6, 3], [4, 3]], "the keyboard's corners, in grid units");
    await until("cell 5,2 is open on bo's map", async () => !(await cellClass(page, 5, 2)).includes("fogged"));
    assert.deepEqual(errors, []);
  });

  it("zoom: buttons and Ctrl+wheel for the GM; on bo's touch screen a pinch, and a drag after it", async () => {
    const width = async (page) => (await cell(page, 0, 0).boundingBox()).width;
    await map(gm).getByRole("button", { name: "Move", exact: true }).click();
    const gm0 = await width(gm);
    await map(gm).getByRole("button", { name: "Zoom in" }).click();
    await until("the GM's zoom in makes cells 1.25 times wider", async () => Math.abs((await width(gm)) / gm0 - 1.25) < 0.01);
    const [wx, wy] = await middle(cell(gm, 2, 2));
    await gm.mouse.move(wx, wy);
    await gm.keyboard.down("Control");
    await gm.mouse.wheel(0, -200);
    await gm.keyboard.up("Control");
    await until("Ctrl+wheel zooms the GM's map in further", async () => (await width(gm)) > gm0 * 1.3);

    const page = bo.page;
    const w0 = await width(page);
    const box = await map(page).locator(".scene-scroll").boundingBox();
    const [cx, cy] = [box.x + 150, box.y + 150];
    const origin0 = await cell(page, 0, 0).boundingBox();
    const under0 = [(cx - origin0.x) / w0, (cy - origin0.y) / w0]; // in cells
    const cdp = await bo.context.newCDPSession(page);
    const touch = (type, points) => cdp.send("Input.dispatchTouchEvent", { type, touchPoints: points.map(([x, y], id) => ({ x, y, id })) });
    await touch("touchStart", [
      [cx - 50, cy],
      [cx + 50, cy],
    ]);
    for (let step = 1; step <= 10; step++) {
      const d = 50 + 5 * step;
      await touch("touchMove", [
        [cx - d, cy],
        [cx + d, cy],
      ]);
    }
    await touch("touchEnd", []);
    await until("the pinch doubled a cell's width", async () => Math.abs((await width(page)) / w0 - 2) < 0.02);
    const w1 = await width(page);
    const origin1 = await cell(page, 0, 0).boundingBox();
    const under1 = [(cx - origin1.x) / w1, (cy - origin1.y) / w1];
    assert.ok(Math.hypot(under1[0] - under0[0], under1[1] - under0[1]) < 0.05, `the point between the fingers stays put: ${under0} → ${under1}`);
    assert.match(await page.locator(".scene-zoom").innerText(), /200%/, "the zoom reads 200%");

    // Frody dragged with one finger from his circle to cell (4,1): the move lands there.
    await map(page).locator(".scene-scroll").evaluate((s) => s.scrollTo(0, 0));
    const from = await middle(token(page, "Frody").locator("circle.token-ring"));
    const to = await middle(cell(page, 4, 1));
    const hit = await page.evaluate(([x, y]) => document.elementFromPoint(x, y)?.getAttribute("data-cell"), to);
    assert.equal(hit, "4,1", "the finger ends over cell 4,1");
    await touch("touchStart", [from]);
    for (let step = 1; step <= 8; step++) await touch("touchMove", [[from[0] + ((to[0] - from[0]) * step) / 8, from[1] + ((to[1] - from[1]) * step) / 8]]);
    await touch("touchEnd", []);
    await until("Frody stands on cell 4,1 for bo and the GM", async () => {
      const want = "Frody, 2 cells across, column 5, row 2";
      return (await tokens(page)).includes(want) && (await tokens(gm)).includes(want);
    });
    assert.deepEqual(errors, []);
  });
});
