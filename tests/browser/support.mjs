// Shared pieces of the browser tests: the server (`houserule serve` on a fresh temporary
// campaign, with the UI just built), Debian's Chromium through playwright-core (never a
// downloaded browser), waiting helpers and screenshots.

import { spawn, spawnSync } from "node:child_process";
import { createRequire } from "node:module";
import { existsSync, mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { createInterface } from "node:readline";
import { crc32, deflateSync } from "node:zlib";

const here = dirname(fileURLToPath(import.meta.url));
export const repo = resolve(here, "../..");

// playwright-core is a dev dependency of ui/ (tests/browser has no node_modules of its own).
const require = createRequire(join(repo, "ui", "package.json"));
const { chromium } = require("playwright-core");

/** The binary under test: HOUSERULE_BIN, or the repo's debug build. */
export function houseruleBin() {
  const bin = process.env.HOUSERULE_BIN ? resolve(process.env.HOUSERULE_BIN) : resolve(here, "../../target/debug/houserule");
  if (!existsSync(bin)) throw new Error(`houserule binary not found at ${bin}: build it (cargo build) or set HOUSERULE_BIN`);
  return bin;
}

/** The UI just built; the server is always pointed at it with --ui. */
export function uiDist() {
  const dist = join(repo, "ui", "dist");
  if (!existsSync(join(dist, "index.html"))) throw new Error(`${dist}/index.html is missing: run \`npm run build\` in ui/ first`);
  return dist;
}

/** The environment the CLI and the server run in: the repo's plugins unless told otherwise. */
function cliEnv() {
  return { ...process.env, HOUSERULE_PLUGINS: process.env.HOUSERULE_PLUGINS ?? join(repo, "plugins") };
}

/**
 * Runs the houserule CLI with `args` and answers `{ ok, out, err }` (a refused action is not
 * ok; its refusal is in `err`).
 */
export function houserule(args) {
  const r = spawnSync(houseruleBin(), args, { env: cliEnv(), encoding: "utf8" });
  return { ok: r.status === 0, out: r.stdout, err: r.stderr };
}

/**
 * Starts `houserule serve` on a campaign file that does not exist yet (the GM creates it in
 * the browser), or, with `prepare(file)`, on the campaign `prepare` made there first (with
 * `houserule new` and `houserule act`, say). Resolves once the server printed its address.
 */
export async function startServer({ secret = "table-secret-for-the-browser-tests", prepare = null } = {}) {
  const dir = mkdtempSync(join(tmpdir(), "houserule-browser-"));
  const file = join(dir, "table.houserule");
  if (prepare) await prepare(file);
  const env = cliEnv();
  const child = spawn(houseruleBin(), ["serve", file, "--port", "0", "--gm-secret", secret, "--ui", uiDist()], {
    env,
    stdio: ["ignore", "pipe", "pipe"],
  });
  const output = [];
  child.stderr.on("data", (d) => output.push(String(d)));
  const url = await new Promise((resolveUrl, reject) => {
    const timer = setTimeout(() => reject(new Error(`houserule serve printed no address in 20 s:\n${output.join("")}`)), 20_000);
    const lines = createInterface({ input: child.stdout });
    lines.on("line", (line) => {
      output.push(`${line}\n`);
      const m = /Houserule is serving .* at (http:\/\/\S+?)\/?$/.exec(line);
      if (m) {
        clearTimeout(timer);
        resolveUrl(`${m[1]}/`);
      }
    });
    child.on("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`houserule serve exited with ${code}:\n${output.join("")}`));
    });
  });
  return {
    url,
    file,
    secret,
    output,
    async stop() {
      if (child.exitCode === null) {
        child.kill("SIGTERM");
        await new Promise((r) => {
          const t = setTimeout(() => {
            child.kill("SIGKILL");
            r();
          }, 3000);
          child.once("exit", () => {
            clearTimeout(t);
            r();
          });
        });
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

export const CHROMIUM_FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update", "--no-first-run"];

export async function launchBrowser() {
  const executablePath = process.env.CHROMIUM ?? "/usr/bin/chromium";
  if (!existsSync(executablePath)) throw new Error(`Chromium not found at ${executablePath} (apt-get install chromium, or set CHROMIUM)`);
  return chromium.launch({ executablePath, args: CHROMIUM_FLAGS, headless: true });
}

/** A browser context with its own page, at the screenshot size, that fails on page errors. */
export async function openPage(browser, url, errors) {
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 }, deviceScaleFactor: 1, reducedMotion: "reduce" });
  const page = await context.newPage();
  page.setDefaultTimeout(15_000);
  page.on("pageerror", (e) => errors.push(`page error: ${e.message}`));
  page.on("console", (m) => {
    if (m.type() === "error") errors.push(`console error: ${m.text()}`);
  });
  await page.goto(url);
  return { context, page };
}

/**
 * The GM makes a join link for `player` on the Players screen and returns it (then goes back
 * to the table). `shot` names a screenshot of the link and its QR code.
 */
export async function inviteLink(gm, player, shot = null) {
  await gm.getByRole("tab", { name: "Players" }).click();
  await gm.getByLabel("Player name").fill(player);
  await gm.getByRole("button", { name: "Make a join link" }).click();
  const box = gm.getByRole("textbox", { name: `Join link for ${player}` });
  // A player who owns nothing yet is a new player: the GM confirms.
  const asked = gm.getByRole("group", { name: "New player?" });
  await box.or(asked).first().waitFor();
  if (await asked.isVisible()) await asked.getByRole("button", { name: "Yes, a new player" }).click();
  await box.waitFor();
  const link = await box.inputValue();
  await gm.getByRole("img", { name: `QR code of the join link for ${player}` }).waitFor();
  if (shot) await screenshot(gm, shot);
  await gm.getByRole("button", { name: "Done" }).click();
  await gm.getByRole("tab", { name: "Table" }).click();
  return link;
}

/** Polls `probe` until it returns true; fails with `what` and the last value seen. */
export async function until(what, probe, timeout = 15_000) {
  const end = Date.now() + timeout;
  let last;
  for (;;) {
    try {
      last = await probe();
      if (last === true) return;
    } catch (e) {
      last = e;
    }
    if (Date.now() > end) throw new Error(`timed out waiting until ${what} (last: ${last instanceof Error ? last.message : JSON.stringify(last)})`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

// target/screenshots by default; HOUSERULE_SCREENSHOTS=docs/screenshots refreshes the committed ones.
const shots = resolve(repo, process.env.HOUSERULE_SCREENSHOTS ?? join("target", "screenshots"));

/** Saves a 1280×800 screenshot of the page as NAME.png in the screenshots folder. */
export async function screenshot(page, name) {
  mkdirSync(shots, { recursive: true });
  // Let bars and spinners settle so the pictures are stable.
  await page.evaluate(() => document.fonts?.ready);
  await page.waitForTimeout(300);
  await page.screenshot({ path: join(shots, `${name}.png`), animations: "disabled", caret: "hide" });
}

/**
 * As `openPage`, with every WebSocket frame the page receives and sends recorded from before
 * it loads: `frames.received` and `frames.sent` hold the payloads as text, in order.
 */
export async function openRecordedPage(browser, url, errors) {
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 }, deviceScaleFactor: 1, reducedMotion: "reduce" });
  const frames = { received: [], sent: [] };
  const page = await context.newPage();
  recordFrames(page, frames);
  page.setDefaultTimeout(15_000);
  page.on("pageerror", (e) => errors.push(`page error: ${e.message}`));
  page.on("console", (m) => {
    if (m.type() === "error") errors.push(`console error: ${m.text()}`);
  });
  await page.goto(url);
  return { context, page, frames };
}

/** Records the WebSocket frames `page` receives and sends into `frames` (attach before it loads). */
export function recordFrames(page, frames) {
  const text = (payload) => (typeof payload === "string" ? payload : Buffer.from(payload).toString("utf8"));
  page.on("websocket", (ws) => {
    ws.on("framereceived", (f) => frames.received.push(text(f.payload)));
    ws.on("framesent", (f) => frames.sent.push(text(f.payload)));
  });
}

/** Opens an action's form in the actions panel and returns it. */
export async function openAction(page, label) {
  const panel = page.getByRole("complementary", { name: "Actions" });
  const toggle = panel.getByRole("button", { name: label, exact: true }).first();
  await toggle.waitFor();
  if ((await toggle.getAttribute("aria-expanded")) !== "true") await toggle.click();
  const form = page.getByRole("form", { name: label, exact: true });
  await form.waitFor();
  return form;
}

/** Submits a form and waits until it reports success (or fails with what it showed). */
export async function submit(form, label) {
  await form.getByRole("button", { name: label, exact: true }).click();
  await until(`“${label}” is done`, async () => {
    if (await form.getByRole("alert").count()) return `refused: ${await form.getByRole("alert").first().innerText()}`;
    return (await form.getByRole("status").filter({ hasText: "Done" }).count()) > 0;
  });
}

/**
 * Picks `name` in a player picker labelled `label` (a `player` parameter): the name if the table
 * knows it, else "Someone new…" and the name typed in.
 */
export async function pickPlayer(form, label, name) {
  const picker = form.getByLabel(label, { exact: true });
  const known = await picker.locator("option").evaluateAll((os, n) => os.some((o) => o.value === n), name);
  if (known) return picker.selectOption(name);
  await picker.selectOption({ label: "Someone new…" });
  await form.getByLabel("New player's name").fill(name);
}

/** The GM joins `server` with its secret and creates a campaign on `ruleset` named `name`. */
export async function gmCreates(gm, server, ruleset, name) {
  await gm.getByLabel("GM secret").fill(server.secret);
  await gm.getByRole("button", { name: "Join as GM" }).click();
  await gm.getByRole("radio", { name: ruleset, exact: true }).check();
  await gm.getByLabel("Campaign name").fill(name);
  await gm.getByRole("button", { name: "Create campaign" }).click();
  await gm.getByRole("heading", { name, level: 1, exact: true }).waitFor();
}

/**
 * The GM writes a new house rule `file` with `text` in the editor and saves it; returns the
 * editor's region (its status or alert says how the save went).
 */
export async function writeHouseRule(gm, file, text) {
  await gm.getByRole("tab", { name: "House rules" }).click();
  const editorPanel = gm.getByRole("region", { name: "House rule editor" });
  await gm.getByRole("button", { name: "+ New house rule" }).click();
  await editorPanel.getByLabel("File name").fill(file);
  const box = gm.getByRole("textbox", { name: "House rule text" });
  await box.waitFor();
  await box.click();
  await gm.keyboard.press("ControlOrMeta+a");
  await gm.keyboard.insertText(text);
  await editorPanel.getByRole("button", { name: "Save and reload" }).click();
  return editorPanel;
}

/** The GM's Handouts tab (its name carries how many handouts there are). */
export async function openHandouts(page) {
  await page.getByRole("tab", { name: /^Handouts/ }).click();
  return page.getByRole("main", { name: "Handouts" });
}

/**
 * The GM writes a handout on the Handouts tab (with a picture: `{name, buffer}` of a PNG) and
 * returns its card once it shows.
 */
export async function writeHandout(gm, { title, text, picture = null }) {
  const screen = await openHandouts(gm);
  await screen.getByRole("button", { name: "New handout" }).click();
  await screen.getByLabel("Title", { exact: true }).fill(title);
  await screen.getByLabel(/^Text/).fill(text);
  if (picture) {
    await screen.getByLabel(/^Picture/).setInputFiles({ name: picture.name, mimeType: "image/png", buffer: picture.buffer });
    await screen.getByText(`With ${picture.name}.`).waitFor();
  }
  await screen.getByRole("button", { name: "Write the handout" }).click();
  const card = screen.getByRole("article", { name: title, exact: true });
  await card.waitFor();
  return card;
}

/** The GM shows the handout titled `title` to the players named (or, with `everyone`, to all). */
export async function showHandout(gm, title, { players = [], everyone = false }) {
  const card = (await openHandouts(gm)).getByRole("article", { name: title, exact: true });
  const who = card.getByRole("group", { name: "Who reads it" });
  if (everyone) await who.getByRole("checkbox", { name: "Everyone", exact: true }).check();
  for (const p of players) {
    const box = who.getByRole("checkbox", { name: p, exact: true });
    if (await box.count()) await box.check();
    else await who.getByLabel("Another player").fill(p);
  }
  await card.getByRole("button", { name: "Save who reads it" }).click();
  const said = everyone ? "Everyone reads it." : `Read by ${[...players].sort().join(", ")}.`;
  await card.getByText(said, { exact: true }).waitFor();
  return card;
}

/** A PNG of `w`×`h` pixels, each coloured by `colour(x, y)` ([r, g, b]): a real file the app
 * decodes, made here so the tests carry no binary fixtures. */
export function png(w, h, colour) {
  const rows = Buffer.alloc((w * 3 + 1) * h);
  for (let y = 0; y < h; y++) {
    for (let x = 0; x < w; x++) rows.set(colour(x, y), y * (w * 3 + 1) + 1 + x * 3);
  }
  const chunk = (type, data) => {
    const body = Buffer.concat([Buffer.from(type), data]);
    const out = Buffer.alloc(8 + data.length + 4);
    out.writeUInt32BE(data.length, 0);
    body.copy(out, 4);
    out.writeUInt32BE(crc32(body) >>> 0, 8 + data.length);
    return out;
  };
  const head = Buffer.alloc(13);
  head.writeUInt32BE(w, 0);
  head.writeUInt32BE(h, 4);
  head.set([8, 2, 0, 0, 0], 8);
  return Buffer.concat([Buffer.from([137, 80, 78, 71, 13, 10, 26, 10]), chunk("IHDR", head), chunk("IDAT", deflateSync(rows)), chunk("IEND", Buffer.alloc(0))]);
}
