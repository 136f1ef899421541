// Letting players in: on the desktop the GM starts and stops serving the table to browsers
// here; over `houserule serve` the GM sees the address it runs at. Either way: who is
// connected now, and removing someone (their join link ends, then their connections close).
// What is served comes from the store, which the engine tells as people come and go.

import { useState } from "preact/hooks";
import { useAction } from "../calls";
import type { Store } from "../store";
import type { Reach, Serving } from "../contract";
import { time } from "../format";
import { ErrorBox } from "../ui/errors";

/** The name a connection joined as, for people. */
function who(v: Serving["connected"][number]): string {
  if (!v.who) return "not joined yet";
  if (v.who === "gm") return "GM";
  return v.who.replace(/^player:/, "");
}

/** Opening a table served to this computer only to the network, or closing it again. */
function ReachSwitch({ store, serving }: { store: Store; serving: Serving }) {
  const act = useAction(store);
  const open = serving.reach === "network";
  const to: Reach = open ? "this_computer" : "network";
  return (
    <div class="reach-switch">
      {open ? (
        <p class="help">Players on your network can join now. Closing it again ends their connections; this computer stays in.</p>
      ) : (
        <p class="notice">Only browsers on this computer can reach it. Open it to your network to let in players elsewhere: nobody here is disconnected.</p>
      )}
      <button
        type="button"
        disabled={act.busy}
        onClick={() => void act.run(() => store.changeStatus("serving", () => store.call("host_reach", { reach: to })))}
      >
        {open ? "Close to other computers" : "Open to your network"}
      </button>
      {act.error && <ErrorBox error={act.error} title="The table's reach did not change" />}
    </div>
  );
}

export function Hosting({
  store,
  desktop,
  serving,
  onRemoved,
}: {
  store: Store;
  desktop: boolean;
  /** What is served now (none: not served). */
  serving: Serving | null;
  /** After a player was removed (their join link ended). */
  onRemoved: () => void;
}) {
  if (serving) return <Served store={store} serving={serving} onRemoved={onRemoved} />;
  return desktop ? <StartHosting store={store} /> : null;
}

function StartHosting({ store }: { store: Store }) {
  const [reach, setReach] = useState<Reach>("network");
  const act = useAction(store);
  return (
    <form
      class="card hosting"
      aria-labelledby="hosting-title"
      onSubmit={(e) => {
        e.preventDefault();
        void act.run(() => store.changeStatus("serving", () => store.call("host_start", { reach })));
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
      <button type="submit" class="primary" disabled={act.busy}>
        Start hosting
      </button>
      {act.error && <ErrorBox error={act.error} title="The table could not be served" />}
    </form>
  );
}

function Served({ store, serving, onRemoved }: { store: Store; serving: Serving; onRemoved: () => void }) {
  const act = useAction(store);
  const [said, setSaid] = useState<string | null>(null);
  const [confirming, setConfirming] = useState<string | null>(null);
  const remove = async (player: string) => {
    setSaid(null);
    const removed = await act.call("remove_player", { player });
    if (!removed) return;
    setConfirming(null);
    const n = removed.connections;
    setSaid(`${player} was removed: ${n} connection${n === 1 ? "" : "s"} closed, and their join link ended.`);
    onRemoved();
  };
  const stop = () => {
    setSaid(null);
    void act.run(() => store.changeStatus("serving", async () => (await store.call("host_stop", {}), null)));
  };
  return (
    <section class="card hosting" aria-labelledby="hosting-title">
      <h3 id="hosting-title">Hosting</h3>
      <Address serving={serving} />
      {serving.switchable && <ReachSwitch store={store} serving={serving} />}
      <h4 id="connected-title">Connected now</h4>
      <Connected serving={serving} busy={act.busy} confirming={confirming} onConfirm={setConfirming} />
      {confirming && <RemoveConfirm player={confirming} busy={act.busy} onRemove={() => void remove(confirming)} onCancel={() => setConfirming(null)} />}
      {said && (
        <p class="help" role="status">
          {said}
        </p>
      )}
      <p class="help">
        Serving since {time(serving.since)}; {serving.connected.filter((v) => v.who).length} joined.
      </p>
      {serving.stoppable ? (
        <button type="button" disabled={act.busy} onClick={stop}>
          Stop hosting
        </button>
      ) : (
        <p class="help">This table is served by <code>houserule serve</code>; stop it where it runs.</p>
      )}
      {act.error && <ErrorBox error={act.error} />}
    </section>
  );
}

/** Where players open the table, and what limits who can reach it. */
function Address({ serving }: { serving: Serving }) {
  return (
    <>
      <p>
        Your players open <a href={serving.url} target="_blank" rel="noreferrer" class="table-address">{serving.url}</a>{" "}
        with their own join link.
        {serving.also.length > 0 && <span class="help"> On this computer also {serving.also.join(", ")}.</span>}
      </p>
      {serving.reach === "this_computer" && !serving.switchable && <p class="notice">Only browsers on this computer can reach it.</p>}
      {serving.note && <p class="notice">{serving.note}</p>}
    </>
  );
}

/** Who is connected now, each player with a Remove button (unless being asked about). */
function Connected({
  serving,
  busy,
  confirming,
  onConfirm,
}: {
  serving: Serving;
  busy: boolean;
  confirming: string | null;
  onConfirm: (player: string) => void;
}) {
  if (serving.connected.length === 0) return <p class="muted">Nobody yet.</p>;
  return (
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
                <button type="button" disabled={busy} onClick={() => onConfirm(who(v))}>
                  Remove
                </button>
              )}
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

function RemoveConfirm({ player, busy, onRemove, onCancel }: { player: string; busy: boolean; onRemove: () => void; onCancel: () => void }) {
  return (
    <div class="card confirm" role="group" aria-label={`Remove ${player}`}>
      <p>
        Remove {player} from the table? Their join link ends and their browser is disconnected; make a new link to let
        them back.
      </p>
      <button type="button" class="danger" disabled={busy} onClick={onRemove}>
        Remove {player}
      </button>{" "}
      <button type="button" disabled={busy} onClick={onCancel}>
        Cancel
      </button>
    </div>
  );
}
