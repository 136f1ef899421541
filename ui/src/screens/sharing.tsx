// Sharing from the desktop app: a full copy of the campaign (for another GM) or a player's copy
// (what they may not see is redacted; it still verifies), each saved where the GM picks. The
// play-by-post text of an event is on each log entry ("Copy as a post").

import { useState } from "preact/hooks";
import type { Store } from "../store";
import { toReport } from "../transport";
import type { ErrorReport, ShareReport } from "../contract";
import { ErrorBox } from "../ui/errors";

export function ShareCard({ store, players, file }: { store: Store; players: string[]; file: string | null }) {
  const [player, setPlayer] = useState("");
  const [busy, setBusy] = useState(false);
  const [done, setDone] = useState<ShareReport | null>(null);
  const [error, setError] = useState<ErrorReport | null>(null);
  const base = (file ?? "campaign.houserule").replace(/^.*[\\/]/, "").replace(/\.houserule$/, "");

  async function save(forPlayer: string | null) {
    setError(null);
    setDone(null);
    const path = await store.transport.chooseNewCampaignPath(forPlayer ? `${base}-for-${forPlayer}.houserule` : `${base}-copy.houserule`);
    if (!path) return;
    setBusy(true);
    try {
      setDone(await store.call("share_copy", { path, player: forPlayer }));
    } catch (e) {
      setError(toReport(e));
    } finally {
      setBusy(false);
    }
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
        <button type="button" disabled={busy} onClick={() => void save(player || null)}>
          Save a copy…
        </button>
      </div>
      {done && (
        <p class="help" role="status">
          Saved {done.path} ({done.events} events{done.redacted_items ? `, ${done.redacted_items} items left out` : ""}).
        </p>
      )}
      {error && <ErrorBox error={error} />}
    </section>
  );
}
