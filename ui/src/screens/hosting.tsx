// Letting players in: on the desktop the GM starts and stops serving the table to browsers
// here; over `houserule serve` the GM sees the address it runs at. Either way: who is
// connected now, and removing someone (their join link ends, then their connections close).

import { useState } from "preact/hooks";
import { usePolled } from "../polling";
import type { Store } from "../store";
import { toReport } from "../transport";
import type { ErrorReport, Reach, Serving } from "../contract";
import { time } from "../format";
import { ErrorBox } from "../ui/errors";

/** The serving status, asked for now and every few seconds while mounted (none: not served). */
export function useServing(store: Store): [Serving | null, (s: Serving | null) => void, () => Promise<void>] {
  const [serving, setServing, refresh] = usePolled<Serving | null>(() => store.call("hosting", {}));
  return [serving ?? null, setServing, refresh];
}

/** The name a connection joined as, for people. */
function who(v: Serving["connected"][number]): string {
  if (!v.who) return "not joined yet";
  if (v.who === "gm") return "GM";
  return v.who.replace(/^player:/, "");
}

export function Hosting({
  store,
  desktop,
  serving,
  onChange,
  onRemoved,
}: {
  store: Store;
  desktop: boolean;
  serving: Serving | null;
  onChange: (s: Serving | null) => void;
  /** After a player was removed (their join link ended). */
  onRemoved: () => void;
}) {
  const [reach, setReach] = useState<Reach>("network");
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<ErrorReport | null>(null);
  const [said, setSaid] = useState<string | null>(null);
  const [confirming, setConfirming] = useState<string | null>(null);

  async function run(f: () => Promise<void>) {
    setBusy(true);
    setError(null);
    setSaid(null);
    try {
      await f();
    } catch (e) {
      setError(toReport(e));
    } finally {
      setBusy(false);
    }
  }

  if (!serving && !desktop) return null;

  if (!serving) {
    return (
      <form
        class="card hosting"
        aria-labelledby="hosting-title"
        onSubmit={(e) => {
          e.preventDefault();
          void run(async () => onChange(await store.call("host_start", { reach })));
        }}
      >
        <h3 id="hosting-title">Let players in</h3>
        <p class="help">
          Serve this table to your players’ browsers. They join with the link you make for each of them below; this
          window plays on as usual.
        </p>
        <fieldset class="reach">
          <legend class="visually-hidden">Who can reach the table</legend>
          <label class="check">
            <input type="radio" name="reach" checked={reach === "network"} onChange={() => setReach("network")} /> Players
            on other computers (your network)
          </label>
          <label class="check">
            <input type="radio" name="reach" checked={reach === "this_computer"} onChange={() => setReach("this_computer")} />{" "}
            This computer only
          </label>
        </fieldset>
        <button type="submit" class="primary" disabled={busy}>
          Start hosting
        </button>
        {error && <ErrorBox error={error} title="The table could not be served" />}
      </form>
    );
  }

  const remove = (player: string) =>
    run(async () => {
      const removed = await store.call("remove_player", { player });
      setConfirming(null);
      const n = removed.connections;
      setSaid(`${player} was removed: ${n} connection${n === 1 ? "" : "s"} closed, and their join link ended.`);
      onChange(await store.call("hosting", {}));
      onRemoved();
    });
  const players = serving.connected.filter((v) => v.who);
  return (
    <section class="card hosting" aria-labelledby="hosting-title">
      <h3 id="hosting-title">Hosting</h3>
      <p>
        Your players open <a href={serving.url} target="_blank" rel="noreferrer" class="table-address">{serving.url}</a>{" "}
        with their own join link.
        {serving.also.length > 0 && <span class="help"> On this computer also {serving.also.join(", ")}.</span>}
      </p>
      {serving.reach === "this_computer" && (
        <p class="notice">Only browsers on this computer can reach it. To let in players elsewhere, stop and start again for your network.</p>
      )}
      {serving.note && <p class="notice">{serving.note}</p>}
      <h4 id="connected-title">Connected now</h4>
      {serving.connected.length === 0 ? (
        <p class="muted">Nobody yet.</p>
      ) : (
        <table class="players-table connected-table" aria-labelledby="connected-title">
          <thead>
            <tr>
              <th scope="col">Who</th>
              <th scope="col">From</th>
              <th scope="col">Since</th>
              <th scope="col">
                <span class="visually-hidden">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {serving.connected.map((v) => (
              <tr key={v.id} data-connection={v.id}>
                <th scope="row">{who(v)}</th>
                <td>{v.from}</td>
                <td>{time(v.since)}</td>
                <td class="row-actions">
                  {v.who?.startsWith("player:") && confirming !== who(v) && (
                    <button type="button" disabled={busy} onClick={() => setConfirming(who(v))}>
                      Remove
                    </button>
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {confirming && (
        <div class="card confirm" role="group" aria-label={`Remove ${confirming}`}>
          <p>
            Remove {confirming} from the table? Their join link ends and their browser is disconnected; make a new link to let
            them back.
          </p>
          <button type="button" class="danger" disabled={busy} onClick={() => void remove(confirming)}>
            Remove {confirming}
          </button>{" "}
          <button type="button" disabled={busy} onClick={() => setConfirming(null)}>
            Cancel
          </button>
        </div>
      )}
      {said && (
        <p class="help" role="status">
          {said}
        </p>
      )}
      <p class="help">
        Serving since {time(serving.since)}; {players.length} joined.
      </p>
      {serving.stoppable ? (
        <button
          type="button"
          disabled={busy}
          onClick={() =>
            void run(async () => {
              await store.call("host_stop", {});
              onChange(null);
            })
          }
        >
          Stop hosting
        </button>
      ) : (
        <p class="help">This table is served by <code>houserule serve</code>; stop it where it runs.</p>
      )}
      {error && <ErrorBox error={error} />}
    </section>
  );
}
