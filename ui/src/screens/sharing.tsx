// Sharing and checking the campaign: a full copy (for another GM) or a player's copy (what they
// may not see is redacted; it still verifies) — saved where the GM picks in the desktop app,
// downloaded in a browser — and every check `houserule verify` makes, with what each found. The
// play-by-post text of an event is on each log entry ("Copy as a post").

import { useState } from "preact/hooks";
import { useAction } from "../calls";
import type { Store } from "../store";
import type { Download, ShareReport, VerifyReport } from "../contract";
import { ErrorBox } from "../ui/errors";

/** Saves a downloaded copy through the browser's own download. */
function saveDownload(d: Download): void {
  const bytes = Uint8Array.from(atob(d.data), (c) => c.charCodeAt(0));
  const url = URL.createObjectURL(new Blob([bytes], { type: "application/vnd.sqlite3" }));
  const a = document.createElement("a");
  a.href = url;
  a.download = d.name;
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 60_000);
}

export function ShareCard({ store, players, file, desktop }: { store: Store; players: string[]; file: string | null; desktop: boolean }) {
  const [player, setPlayer] = useState("");
  const act = useAction(store);
  const [done, setDone] = useState<ShareReport | null>(null);
  const base = (file ?? "campaign.houserule").replace(/^.*[\\/]/, "").replace(/\.houserule$/, "");

  async function save(forPlayer: string | null) {
    act.fail(null);
    setDone(null);
    if (!desktop) {
      const d = await act.call("share_download", { player: forPlayer });
      if (d) {
        saveDownload(d);
        setDone({ ...d.report, path: d.name });
      }
      return;
    }
    const path = await store.transport.chooseNewCampaignPath(forPlayer ? `${base}-for-${forPlayer}.houserule` : `${base}-copy.houserule`);
    if (!path) return;
    const report = await act.call("share_copy", { path, player: forPlayer });
    if (report) setDone(report);
  }

  return (
    <section class="card share-card" aria-labelledby="share-title">
      <h3 id="share-title">Share the campaign</h3>
      <p class="help">
        A copy is one file to send by mail or chat. A player’s copy holds only what they may see (the rest is left out but
        still verifies); a full copy is for another GM and carries the dice seed.
      </p>
      <div class="share-row">
        <label for="share-player" class="field-label">
          Copy for
        </label>
        <select id="share-player" value={player} onChange={(e) => setPlayer(e.currentTarget.value)}>
          <option value="">everything (another GM)</option>
          {players.map((p) => (
            <option key={p} value={p}>
              {p} (a player’s copy)
            </option>
          ))}
        </select>
        <button type="button" disabled={act.busy} onClick={() => void save(player || null)}>
          {desktop ? "Save a copy…" : "Download a copy"}
        </button>
      </div>
      {done && (
        <p class="help" role="status">
          Saved {done.path} ({done.events} events{done.redacted_items ? `, ${done.redacted_items} items left out` : ""}).
        </p>
      )}
      {act.error && <ErrorBox error={act.error} />}
    </section>
  );
}

/** Every check `houserule verify` makes of the campaign in play, and what each found. */
export function VerifyCard({ store }: { store: Store }) {
  const act = useAction(store);
  const [report, setReport] = useState<VerifyReport | null>(null);
  async function check() {
    setReport(null);
    const r = await act.call("verify", {});
    if (r) setReport(r);
  }
  return (
    <section class="card verify-card" aria-labelledby="verify-title">
      <h3 id="verify-title">Check the campaign</h3>
      <p class="help">Recomputes every event's hash and roll from the file, and checks the rules and pictures it carries are the ones the log committed to.</p>
      <button type="button" disabled={act.busy} onClick={() => void check()}>
        {act.busy ? "Checking…" : "Check the campaign"}
      </button>
      {report && (
        <div role="status">
          <p class={report.ok ? "ok" : "problem"}>
            {report.ok ? `The file is sound: ${report.events} events checked.` : "The file does not check out."}
          </p>
          <ul class="verify-checks">
            {report.checks.map((c) => (
              <li key={c.name} class={c.ok ? "ok" : "problem"}>
                <strong>{c.ok ? "✓" : "✗"} {c.name}</strong>: {c.detail}
              </li>
            ))}
          </ul>
        </div>
      )}
      {act.error && <ErrorBox error={act.error} />}
    </section>
  );
}
