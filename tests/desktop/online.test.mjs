// The GM plays a campaign in a Matrix room from the desktop app: the real app window (driven
// through WebKitWebDriver) links the Fumbles demo to a room on a throwaway Synapse from its
// Online screen and seats Ann's account; Ann, a matrix-nio client on that homeserver
// (tests/matrix/peer.py), acts by `!hr act` and gets the referee's answer; the GM's own post
// from the window reaches the room; stopped from the screen, the referee lets a request wait
// in the room and answers it once started again; the password is in no file; and when the app
// opens the campaign again, the referee starts by itself.
//
// Run under Xvfb (scripts/test does): xvfb-run -a node --test tests/desktop/online.test.mjs

import { test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync, spawn } from "node:child_process";
import { mkdtempSync, mkdirSync, readFileSync, readdirSync, rmSync, statSync } from "node:fs";
import { createInterface } from "node:readline";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { houseruleBin, repo, until } from "../browser/support.mjs";
import { startApp } from "./webdriver.mjs";

const step = (what) => console.log(`# ${new Date().toISOString().slice(11, 19)} ${what}`);

const desktopBin = resolve(repo, process.env.HOUSERULE_DESKTOP_BIN ?? "target/debug/houserule-desktop");
const shots = resolve(repo, process.env.HOUSERULE_SCREENSHOTS ?? join("target", "screenshots"));
const VERIFY_LINE = /houserule verify\b.*?--event (\d+) --hash ([0-9a-f]{64})/;

/** tests/matrix/peer.py: a Synapse with Ann on it, answering one JSON request per line. */
async function startPeer(dir) {
  execFileSync(join(repo, "tests/matrix/setup.sh"), { stdio: "inherit" });
  const proc = spawn(join(repo, "target/matrix-venv/bin/python"), [join(repo, "tests/matrix/peer.py"), dir, "gm", "ann"], {
    stdio: ["pipe", "pipe", "inherit"],
    env: { ...process.env, PYTHONDONTWRITEBYTECODE: "1" },
  });
  const lines = createInterface({ input: proc.stdout })[Symbol.asyncIterator]();
  const next = async () => {
    const { value, done } = await lines.next();
    if (done) throw new Error("the Matrix peer ended");
    return JSON.parse(value);
  };
  const hello = await next();
  return {
    ...hello,
    async ask(request) {
      proc.stdin.write(`${JSON.stringify(request)}\n`);
      const answer = await next();
      if (answer.error) throw new Error(`peer ${request.op}: ${answer.error}`);
      return answer;
    },
    stop: () =>
      new Promise((done) => {
        proc.once("exit", done);
        proc.stdin.end();
        setTimeout(() => proc.kill("SIGKILL"), 20_000).unref();
      }),
  };
}

/** Every file under `dir`. */
function filesUnder(dir) {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => join(e.parentPath ?? e.path, e.name));
}

test("the GM links a room from the app's Online screen, seats Ann, and the app referees while the campaign is open", { timeout: 240_000 }, async () => {
  const dir = mkdtempSync(join(tmpdir(), "houserule-online-"));
  execFileSync(houseruleBin(), ["demo", dir, "--ruleset", "fumbles"], { stdio: "ignore" });
  const file = join(dir, "fumbles-demo.houserule");
  const env = { XDG_DATA_HOME: join(dir, "data"), HOUSERULE_CONFIG_DIR: join(dir, "config") };
  const peer = await startPeer(join(dir, "synapse"));
  const gm = peer.users.gm;
  const annId = peer.users.ann.id;
  step(`Synapse at ${peer.url}`);
  let app = await startApp({ binary: desktopBin, args: [file], env });
  const text = () => app.run("return document.body.innerText");
  const untilText = (what, pattern, timeout = 30_000) =>
    until(what, async () => pattern.test(await text()) || "not yet", timeout);
  const field = async (css, value) => app.type(await app.find(css), value);
  const state = () => app.run("const e = document.querySelector('.online-state'); return e ? e.textContent : ''");
  try {
    await until("the app shows the demo campaign", async () => (await app.title()).startsWith("Demo: the goblin barbecue") || "not yet", 60_000);

    // Online → link a room as the GM's account.
    await app.click(await app.findText("button", "Online"));
    await field("#online-homeserver", peer.url);
    await field("#online-user", gm.id);
    await field("#online-password", gm.password);
    await app.click(await app.findText("button", "Link"));
    const roomEl = await app.find(".online-room-id");
    const room = await app.run("return arguments[0].textContent", roomEl);
    assert.match(room, /^!/, `the screen shows the room's id: ${room}`);
    await until("the referee answers", async () => /^yes/.test(await state()) || (await state()));
    step(`linked to ${room}`);

    // Seat Ann's account as ann; she accepts the invites.
    await field("#seat-user", annId);
    await field("#seat-player", "ann");
    await app.click(await app.findText("button", "Seat"));
    await app.find('tr[data-seat="ann"]');
    await untilText("the screen says ann is seated", new RegExp(`${annId.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")} plays as ann`));
    await peer.ask({ op: "joined", as: "ann", room });
    step("ann seated and in the room");

    // Ann acts from her Matrix client; the referee answers in the room with the verify line.
    const sent = await peer.ask({ op: "send", as: "ann", room, text: "!hr act trait_check character=gandolf traits=Fireball,Levitate" });
    const { message: reply } = await peer.ask({ op: "reply", as: "ann", to: sent.event_id, from: gm.id, timeout: 30 });
    assert.ok(reply, "the referee answered ann's trait check");
    assert.equal(reply.room_id, room);
    assert.match(reply.body, VERIFY_LINE, `the answer has a verify line: ${reply.body}`);
    assert.equal(reply.content.msgtype, "m.notice");
    const seq = reply.content.houserule?.seq;
    assert.ok(Number.isInteger(seq), `the answer names its event: ${JSON.stringify(reply.content.houserule)}`);
    // The GM's window shows the roll.
    await app.click(await app.findText("button", "Table"));
    await untilText("the window's log shows ann's trait check", /Trait check[\s\S]*Gandolf|Gandolf[\s\S]*Trait check/);
    step(`ann's trait check is event ${seq}, in the room and the window`);

    // The GM posts from the window: it is posted in the room.
    const words = `The chieftain sniffs the air (${Date.now()})`;
    await field("#post-text", words);
    await app.click(await app.find("form.post-send button[type=submit]"));
    const { message: posted } = await peer.ask({ op: "seq", as: "ann", room, from: gm.id, seq: seq + 1, timeout: 30 });
    assert.ok(posted.body.includes(words), `the room has the GM's post: ${posted.body}`);
    step("the GM's post from the window reached the room");

    // Stopped from the screen, the referee lets a request wait; started again, it answers it.
    await app.click(await app.findText("button", "Online"));
    await app.click(await app.findText("button", "Stop answering"));
    await until("the screen says it stopped", async () => /^no/.test(await state()) || (await state()));
    const waiting = await peer.ask({ op: "send", as: "ann", room, text: "!hr actions" });
    const early = await peer.ask({ op: "reply", as: "ann", to: waiting.event_id, from: gm.id, timeout: 4 });
    assert.ok(early.timeout, `a stopped referee answered: ${JSON.stringify(early.message)}`);
    await app.click(await app.findText("button", "Start answering"));
    const late = await peer.ask({ op: "reply", as: "ann", to: waiting.event_id, from: gm.id, timeout: 30 });
    assert.match(late.message.body, /trait_check/, "the waiting request was answered after the start");
    step("stop and start from the screen");

    mkdirSync(shots, { recursive: true });
    execFileSync("import", ["-window", "root", join(shots, "desktop-online.png")]);
    await app.quit();
    app = null;

    // The password is in no file the app or the referee wrote; the session is the GM's alone.
    for (const f of [file, ...filesUnder(join(dir, "data")), ...filesUnder(join(dir, "config"))]) {
      assert.ok(!readFileSync(f).includes(gm.password), `${f} holds the GM's password`);
    }
    const sessions = filesUnder(join(dir, "config", "matrix")).filter((f) => f.endsWith(".json"));
    assert.equal(sessions.length, 1, `one kept session: ${sessions}`);
    assert.equal(statSync(sessions[0]).mode & 0o077, 0, "the session file is readable by the GM alone");
    assert.ok(!readFileSync(file).includes(JSON.parse(readFileSync(sessions[0], "utf8")).tokens?.access_token ?? "no token"), "the campaign file holds the access token");
    step("no password in any file");

    // Opened again, the linked campaign's referee starts by itself.
    app = await startApp({ binary: desktopBin, args: [file], env });
    await until("the app shows the demo campaign again", async () => (await app.title()).startsWith("Demo: the goblin barbecue") || "not yet", 60_000);
    const again = await peer.ask({ op: "send", as: "ann", room, text: "!hr help" });
    const help = await peer.ask({ op: "reply", as: "ann", to: again.event_id, from: gm.id, timeout: 30 });
    assert.match(help.message?.body ?? "", /!hr act/, "the reopened campaign's referee answered");
    await app.click(await app.findText("button", "Online"));
    await until("the screen says it answers", async () => /^yes/.test(await state()) || (await state()));
    step("the referee started with the campaign");
  } finally {
    if (app) await app.quit();
    await peer.stop();
    rmSync(dir, { recursive: true, force: true });
  }
});
