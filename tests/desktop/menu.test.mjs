// The desktop app's File menu, used as a GM uses it: keys pressed on the real window (xdotool,
// through the X server, as a keyboard would), the page watched through WebKitWebDriver. With
// the Fumbles demo open: Ctrl+W closes the campaign (the start screen shows, nothing is served);
// Alt+F opens the File menu (a screenshot of it is kept), Open Recent lists the demo and opening
// it from there brings the table back; Ctrl+N shows the start screen over the campaign, with a
// way back to it.
//
// Run under Xvfb (scripts/test does): xvfb-run -a node --test tests/desktop/menu.test.mjs

import { test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdtempSync, mkdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { houseruleBin, repo, until } from "../browser/support.mjs";
import { startApp } from "./webdriver.mjs";

const desktopBin = resolve(repo, process.env.HOUSERULE_DESKTOP_BIN ?? "target/debug/houserule-desktop");
const shots = resolve(repo, process.env.HOUSERULE_SCREENSHOTS ?? join("target", "screenshots"));
const DEMO = "Demo: the goblin barbecue";

/** Presses `keys` (xdotool's names, e.g. "ctrl+w") on the app's window, as a keyboard would. */
function press(window, ...keys) {
  execFileSync("xdotool", ["windowfocus", "--sync", window]);
  execFileSync("xdotool", ["key", "--clearmodifiers", "--delay", "120", ...keys]);
}

/** The X window of the app, found by its title. */
function windowOf(title) {
  return execFileSync("xdotool", ["search", "--sync", "--limit", "1", "--name", title], { encoding: "utf8" }).trim();
}

async function untilText(app, what, pattern, timeout = 20_000) {
  await until(what, async () => pattern.test(await app.run("return document.body.innerText")) || "not yet", timeout);
}

test("the File menu closes, reopens from Open Recent and starts anew over the campaign", { timeout: 120_000 }, async () => {
  const dir = mkdtempSync(join(tmpdir(), "houserule-menu-"));
  execFileSync(houseruleBin(), ["demo", dir, "--ruleset", "fumbles"], { stdio: "ignore" });
  const file = join(dir, "fumbles-demo.houserule");
  const app = await startApp({ binary: desktopBin, args: [file], env: { XDG_DATA_HOME: join(dir, "data") } });
  try {
    await until("the app shows the demo campaign", async () => (await app.title()).startsWith(DEMO) || "not yet", 60_000);
    const window = windowOf(DEMO);

    press(window, "ctrl+w");
    await untilText(app, "the start screen after Close campaign", /Open a campaign file/);
    assert.equal(await app.title(), "Houserule", "no campaign is open");

    press(window, "alt+f");
    mkdirSync(shots, { recursive: true });
    await new Promise((r) => setTimeout(r, 500));
    execFileSync("import", ["-window", "root", join(shots, "desktop-file-menu.png")]);
    press(window, "r", "Return");
    await until("the demo is open again from Open Recent", async () => (await app.title()).startsWith(DEMO) || "not yet", 30_000);

    press(windowOf(DEMO), "ctrl+n");
    const back = await app.findText("button", `Back to ${DEMO}`);
    await untilText(app, "the start screen over the campaign", /New campaign/);
    await app.click(back);
    await untilText(app, "the table again", /Challenge/);
    assert.ok((await app.title()).startsWith(DEMO));
  } finally {
    await app.quit();
    rmSync(dir, { recursive: true, force: true });
  }
});
