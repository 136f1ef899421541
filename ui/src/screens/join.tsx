// Browser only: join the table by name, or as the GM with the secret the server printed.

import { useEffect, useState } from "preact/hooks";
import { toReport } from "../transport";
import type { Store } from "../store";
import type { ErrorReport } from "../contract";
import { ErrorBox } from "../ui/errors";

const REMEMBER = "houserule.join";

export function JoinScreen({ store }: { store: Store }) {
  const [name, setName] = useState("");
  const [secret, setSecret] = useState("");
  const [busy, setBusy] = useState<"player" | "gm" | null>(null);
  const [error, setError] = useState<ErrorReport | null>(null);

  async function join(who: "player" | "gm", hello: Record<string, string>) {
    setBusy(who);
    setError(null);
    try {
      await store.join(hello);
      sessionStorage.setItem(REMEMBER, JSON.stringify(hello));
    } catch (e) {
      setError(toReport(e));
      setBusy(null);
    }
  }

  // A reload of the page joins again as the same person.
  useEffect(() => {
    const saved = sessionStorage.getItem(REMEMBER);
    if (!saved) return;
    try {
      const hello = JSON.parse(saved);
      void join(hello.secret ? "gm" : "player", hello);
    } catch {
      sessionStorage.removeItem(REMEMBER);
    }
  }, []);

  return (
    <main class="center-screen">
      <div class="join">
        <header class="join-head">
          <h1 class="brand">Houserule</h1>
          <p class="muted">A table whose rules you can change mid-game.</p>
        </header>
        <div class="join-forms">
          <form
            class="card"
            aria-labelledby="join-player"
            onSubmit={(e) => {
              e.preventDefault();
              if (name.trim()) void join("player", { name: name.trim() });
            }}
          >
            <h2 id="join-player">Join as a player</h2>
            <div class="field">
              <label for="join-name" class="field-label">Your name</label>
              <input
                id="join-name"
                aria-describedby="join-name-help"
                name="name"
                autoComplete="nickname"
                value={name}
                maxLength={60}
                required
                onInput={(e) => setName(e.currentTarget.value)}
              />
              <span id="join-name-help" class="help">The name your GM gave your character's owner, e.g. “ann”.</span>
            </div>
            <button type="submit" class="primary" disabled={busy !== null || !name.trim()}>
              {busy === "player" ? <><span class="spinner" /> Joining…</> : "Join the table"}
            </button>
          </form>
          <form
            class="card"
            aria-labelledby="join-gm"
            onSubmit={(e) => {
              e.preventDefault();
              if (secret) void join("gm", { secret });
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
                Printed by <code>houserule serve</code> when it started.
              </span>
            </div>
            <button type="submit" class="primary" disabled={busy !== null || !secret}>
              {busy === "gm" ? <><span class="spinner" /> Joining…</> : "Join as GM"}
            </button>
          </form>
        </div>
        {error && <ErrorBox error={error} title="Could not join" />}
      </div>
    </main>
  );
}
