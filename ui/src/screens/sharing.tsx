// Sharing from the desktop app: a full copy of the campaign (for another GM) or a player's copy
// (what they may not see is redacted; it still verifies), each saved where the GM picks. The
// play-by-post text of an event is on each log entry ("Copy as a post").

import { useState } from "preact/hooks";
import { useAction } from "../calls";
import type { Store } from "../store";
import type { ShareReport } from "../contract";
import { ErrorBox } from "../ui/errors";

export function ShareCard({ store, players, file }: { store: Store; players: string[]; file: string | null }) {
  const [player, setPlayer] = useState("");
  const act = useAction(store);
  const [done, setDone] = useState<ShareReport | null>(null);
  const base = (file ?? "campaign.houserule").replace(/^.*[\\/]/, "").replace(/\.houserule$/, "");

  async function save(forPlayer: string | null) {
    act.fail(null);
    setDone(null);
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
          Save a copy…
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
