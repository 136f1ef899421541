// Browser only: join the table with the link the GM made for you, or as the GM with the
// secret the server printed. A link opened once is remembered by this browser (for this
// table's address), so coming back needs nothing; the token is then taken off the address bar.

import { useEffect, useState } from "preact/hooks";
import { useAction } from "../calls";
import { toReport } from "../transport";
import type { Store } from "../store";
import { ErrorBox } from "../ui/errors";

/** A player's join link token: kept until it stops working. */
const INVITE = "houserule.invite";
/** The GM's secret: kept for this tab only (it changes when the server restarts). */
const GM_SECRET = "houserule.gm";

/** The token in a pasted link (`…#join=TOKEN`) or a bare token. */
function tokenFrom(text: string): string {
  const t = text.trim();
  const m = /[#&?]join=([0-9a-fA-F]+)/.exec(t);
  return m ? m[1] : t;
}

/** Reads `#join=` / `#gm=` from the address once, remembers it, and clears the address bar. */
function takeFromAddress(): void {
  const hash = new URLSearchParams(location.hash.replace(/^#/, ""));
  const join = hash.get("join");
  const gm = hash.get("gm");
  if (join) localStorage.setItem(INVITE, join);
  if (gm) sessionStorage.setItem(GM_SECRET, gm);
  if (join || gm) history.replaceState(null, "", location.pathname + location.search);
}

/** A link that was replaced or revoked, or a secret from an earlier run, is forgotten. */
function forget(hello: { invite?: string; secret?: string }, e: unknown) {
  const report = toReport(e);
  if (report.code === "forbidden" && !report.message.includes("too many")) {
    if (hello.invite) localStorage.removeItem(INVITE);
    if (hello.secret) sessionStorage.removeItem(GM_SECRET);
  }
}

type Joining = "player" | "gm" | "auto";

export function JoinScreen({ store }: { store: Store }) {
  const act = useAction<Joining>(store);
  const join = (who: "player" | "gm", hello: { invite?: string; secret?: string }, auto = false) =>
    act.run(async () => {
      try {
        await store.join(hello);
      } catch (e) {
        forget(hello, e);
        throw e;
      }
      if (hello.invite) localStorage.setItem(INVITE, hello.invite);
      if (hello.secret) sessionStorage.setItem(GM_SECRET, hello.secret);
    }, auto ? "auto" : who);

  // A link in the address, or one remembered from before, joins at once.
  useEffect(() => {
    takeFromAddress();
    const gm = sessionStorage.getItem(GM_SECRET);
    const invite = localStorage.getItem(INVITE);
    if (gm) void join("gm", { secret: gm }, true);
    else if (invite) void join("player", { invite }, true);
  }, []);

  if (act.running === "auto") {
    return (
      <main class="center-screen">
        <p class="muted" role="status">
          <span class="spinner" /> Joining the table…
        </p>
      </main>
    );
  }
  return (
    <main class="center-screen">
      <div class="join">
        <header class="join-head">
          <h1 class="brand">Houserule</h1>
          <p class="muted">A table whose rules you can change mid-game.</p>
        </header>
        <div class="join-forms">
          <PlayerJoin busy={act.running} onJoin={(invite) => void join("player", { invite })} />
          <GmJoin busy={act.running} onJoin={(secret) => void join("gm", { secret })} />
        </div>
        {act.error && <ErrorBox error={act.error} title="Could not join" />}
      </div>
    </main>
  );
}

function PlayerJoin({ busy, onJoin }: { busy: Joining | null; onJoin: (invite: string) => void }) {
  const [link, setLink] = useState("");
  return (
    <form
      class="card"
      aria-labelledby="join-player"
      onSubmit={(e) => {
        e.preventDefault();
        const invite = tokenFrom(link);
        if (invite) onJoin(invite);
      }}
    >
      <h2 id="join-player">Join as a player</h2>
      <div class="field">
        <label for="join-link" class="field-label">Your join link</label>
        <input
          id="join-link"
          aria-describedby="join-link-help"
          name="link"
          autoComplete="off"
          spellcheck={false}
          value={link}
          required
          onInput={(e) => setLink(e.currentTarget.value)}
        />
        <span id="join-link-help" class="help">
          Open the link your GM sent you, or paste it here. This browser remembers it.
        </span>
      </div>
      <button type="submit" class="primary" disabled={busy !== null || !link.trim()}>
        {busy === "player" ? <><span class="spinner" /> Joining…</> : "Join the table"}
      </button>
    </form>
  );
}

function GmJoin({ busy, onJoin }: { busy: Joining | null; onJoin: (secret: string) => void }) {
  const [secret, setSecret] = useState("");
  return (
    <form
      class="card"
      aria-labelledby="join-gm"
      onSubmit={(e) => {
        e.preventDefault();
        if (secret.trim()) onJoin(secret.trim());
      }}
    >
      <h2 id="join-gm">Join as the GM</h2>
      <div class="field">
        <label for="join-secret" class="field-label">GM secret</label>
        <input
          id="join-secret"
          aria-describedby="join-secret-help"
          name="secret"
          type="password"
          autoComplete="off"
          value={secret}
          required
          onInput={(e) => setSecret(e.currentTarget.value)}
        />
        <span id="join-secret-help" class="help">
          Printed by <code>houserule serve</code> when it started (or open the GM link it printed).
        </span>
      </div>
      <button type="submit" class="primary" disabled={busy !== null || !secret.trim()}>
        {busy === "gm" ? <><span class="spinner" /> Joining…</> : "Join as GM"}
      </button>
    </form>
  );
}
