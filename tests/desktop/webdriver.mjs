// Drives the real desktop app window through WebKitWebDriver (Debian's webkit2gtk-driver), the
// driver Tauri's own `tauri-driver` wraps on Linux. The app is started by the driver with
// TAURI_WEBVIEW_AUTOMATION=true, which lets WebKit accept the automation session; everything
// else is the app as a GM runs it. A few W3C WebDriver endpoints are all the tests need.

import { spawn } from "node:child_process";
import { createServer } from "node:net";

/** A free TCP port on loopback. */
async function freePort() {
  return await new Promise((resolve, reject) => {
    const s = createServer();
    s.once("error", reject);
    s.listen(0, "127.0.0.1", () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
}

/** Starts WebKitWebDriver, then the app at `binary` with `args` in a new session. */
export async function startApp({ binary, args = [], env = {} }) {
  const port = await freePort();
  const output = [];
  const driver = spawn(process.env.WEBKIT_WEBDRIVER ?? "WebKitWebDriver", [`--port=${port}`], {
    env: { ...process.env, ...env, TAURI_WEBVIEW_AUTOMATION: "true", WEBKIT_DISABLE_DMABUF_RENDERER: "1" },
    stdio: ["ignore", "pipe", "pipe"],
  });
  driver.stdout.on("data", (d) => output.push(String(d)));
  driver.stderr.on("data", (d) => output.push(String(d)));
  const base = `http://127.0.0.1:${port}`;
  const request = async (method, path, body) => {
    const r = await fetch(`${base}${path}`, {
      method,
      headers: { "content-type": "application/json" },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const json = await r.json();
    if (json.value && json.value.error) throw new Error(`WebDriver ${method} ${path}: ${json.value.error}: ${json.value.message}`);
    return json.value;
  };
  // The driver takes a moment to listen.
  for (let i = 0; ; i++) {
    try {
      await request("GET", "/status");
      break;
    } catch (e) {
      if (i > 100) throw new Error(`WebKitWebDriver did not start: ${e.message}\n${output.join("")}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  const session = await request("POST", "/session", {
    capabilities: { alwaysMatch: { "webkitgtk:browserOptions": { binary, args } } },
  });
  const s = `/session/${session.sessionId}`;
  const waitFor = async (what, locator) => {
    const end = Date.now() + 15_000;
    for (;;) {
      try {
        return await request("POST", `${s}/element`, locator);
      } catch (e) {
        if (!/no such element/.test(e.message)) throw e;
        if (Date.now() > end) throw new Error(`the app shows no ${what} within 15 s`);
        await new Promise((r) => setTimeout(r, 100));
      }
    }
  };
  const ELEMENT = "element-6066-11e4-a52e-4f735466cecf";
  return {
    output,
    title: () => request("GET", `${s}/title`),
    /** Runs `script` (a function body) in the page with `args`, returning its value. */
    run: (script, ...scriptArgs) => request("POST", `${s}/execute/sync`, { script, args: scriptArgs }),
    // Elements are WebDriver references (`{ELEMENT: id}`): pass them to `run` as they are.
    /** The first element matching `css` (waiting up to 15 s for it to appear). */
    find: (css) => waitFor(css, { using: "css selector", value: css }),
    /** The first `tag` element whose text is `text` (waiting as `find`). */
    findText: (tag, text) =>
      waitFor(`${tag} “${text}”`, { using: "xpath", value: `//${tag}[normalize-space(.)=${JSON.stringify(text)}]` }),
    click: (el) => request("POST", `${s}/element/${el[ELEMENT]}/click`, {}),
    type: (el, text) => request("POST", `${s}/element/${el[ELEMENT]}/value`, { text }),
    async quit() {
      try {
        await request("DELETE", s);
      } finally {
        driver.kill("SIGTERM");
      }
    },
  };
}
