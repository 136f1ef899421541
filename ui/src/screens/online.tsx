// The GM's Online screen (desktop app): the campaign played in a Matrix room. Link it to a room
// as the GM's account (the password logs in once and is kept nowhere), seat each player's
// account, and see whether the referee answers the room — it runs while the campaign is open,
// starts by itself when a linked campaign is opened, and can be stopped and started here. The
// referee's status comes from the store, which the engine tells whenever it changes.

import type { ComponentChildren } from "preact";
import { useState } from "preact/hooks";
import { useAction, type Action } from "../calls";
import type { Store, StatusValue } from "../store";
import { useStatus, useStore } from "../store";
import type { Online } from "../contract";
import { playerNames, time } from "../format";
import { ErrorBox } from "../ui/errors";

/** Runs a call that answers the referee's status (kept in the store), saying `done` after it;
 * whether it worked. */
type Run = (what: () => Promise<StatusValue<"online">>, done?: string) => Promise<boolean>;

export function OnlinePanel({ store }: { store: Store }) {
  const s = useStore(store);
  const online = useStatus(store, "online");
  const act = useAction(store);
  const [said, setSaid] = useState<string | null>(null);
  const [relinking, setRelinking] = useState(false);

  const run: Run = async (what, done) => {
    setSaid(null);
    const ok = (await act.run(() => store.changeStatus("online", what))) !== undefined;
    if (ok && done) setSaid(done);
    return ok;
  };

  if (online === undefined) return <p class="muted">Asking…</p>;
  return (
    <div class="online-panel">
      <h2 class="section-title">Online</h2>
      <p class="help">
        Play this campaign in a Matrix room, where your group already talks: players send <code>!hr help</code>,{" "}
        <code>!hr act …</code> or <code>!hr view</code> from any Matrix client, and this app answers as the table’s referee
        while the campaign is open. What only one player may see goes to them privately; what only you may see goes nowhere.
      </p>
      {online && !relinking ? (
        <Linked store={store} online={online} busy={act.busy} run={run} onRelink={() => setRelinking(true)} />
      ) : (
        <LinkForm
          linked={online}
          busy={act.busy}
          onLink={(how) => void run(() => store.call("online_link", how)).then((ok) => ok && setRelinking(false))}
          onCancel={online ? () => setRelinking(false) : undefined}
        />
      )}
      {online && !relinking && <SeatForm busy={act.busy} players={playerNames(s.gmView ?? s.view)} onSeat={seat(store, run)} />}
      <Said said={said} act={act} />
    </div>
  );
}

/** Seats an account as a player, and says so. */
function seat(store: Store, run: Run) {
  return (user: string, player: string) =>
    run(
      () => store.call("online_invite", { user, player }),
      `${user} plays as ${player}: invited to the room, with a direct room for what only they may see.`,
    );
}

/** What the last run said, or why it did not work. */
function Said({ said, act }: { said: string | null; act: Action<never> }) {
  return (
    <>
      {said && (
        <p class="help" role="status">
          {said}
        </p>
      )}
      {act.error && <ErrorBox error={act.error} title="That did not work" />}
    </>
  );
}

function Linked({ store, online, busy, run, onRelink }: { store: Store; online: Online; busy: boolean; run: Run; onRelink: () => void }) {
  return (
    <section class="card online-room" aria-labelledby="online-room-title">
      <h3 id="online-room-title">The room</h3>
      <RoomFacts online={online} />
      {online.problem && <p class="notice failure online-problem">{online.problem}</p>}
      <h4 id="seats-title">Seats</h4>
      <Seats online={online} />
      <div class="row-actions">
        {online.refereeing ? (
          <button type="button" disabled={busy} onClick={() => void run(async () => (await store.call("online_stop", {}), store.call("online", {})))}>
            Stop answering
          </button>
        ) : (
          <button type="button" class="primary" disabled={busy} onClick={() => void run(() => store.call("online_start", {}))}>
            Start answering
          </button>
        )}{" "}
        <button type="button" disabled={busy} onClick={onRelink}>
          Log in again or change room
        </button>
      </div>
    </section>
  );
}

function RoomFacts({ online }: { online: Online }) {
  return (
    <dl class="facts">
      <dt>Room</dt>
      <dd class="online-room-id">{online.room}</dd>
      <dt>Referee</dt>
      <dd>
        {online.user} on {online.homeserver}
      </dd>
      <dt>Answering</dt>
      <dd class="online-state" role="status">
        {online.refereeing ? `yes, since ${time(online.since ?? "")}` : "no: requests wait in the room"}
      </dd>
    </dl>
  );
}

function Seats({ online }: { online: Online }) {
  if (online.seats.length === 0) return <p class="muted">Nobody is seated yet: seat each player’s Matrix account below.</p>;
  return (
    <table class="players-table seats-table" aria-labelledby="seats-title">
      <thead>
        <tr>
          <th scope="col">Player</th>
          <th scope="col">Matrix account</th>
        </tr>
      </thead>
      <tbody>
        {online.seats.map((seat) => (
          <tr key={seat.user} data-seat={seat.player}>
            <th scope="row">{seat.player}</th>
            <td>{seat.user}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

function LinkForm({
  linked,
  busy,
  onLink,
  onCancel,
}: {
  linked: Online | null;
  busy: boolean;
  onLink: (how: { homeserver: string; user: string; password: string; room: string | null }) => void;
  onCancel?: () => void;
}) {
  const [homeserver, setHomeserver] = useState(linked?.homeserver ?? "");
  const [user, setUser] = useState(linked?.user ?? "");
  const [password, setPassword] = useState("");
  const [room, setRoom] = useState(linked?.room ?? "");
  return (
    <form
      class="card online-link"
      aria-labelledby="online-link-title"
      onSubmit={(e) => {
        e.preventDefault();
        onLink({ homeserver: homeserver.trim(), user: user.trim(), password, room: room.trim() || null });
        setPassword("");
      }}
    >
      <h3 id="online-link-title">Link a room</h3>
      <p class="help">
        Log in with the Matrix account the referee speaks as (yours, or one made for the table). The password is used once;
        the session is kept in your own settings folder, never in the campaign file. Leave the room empty to have a new
        private room made; it must not be encrypted.
      </p>
      <TextField id="online-homeserver" label="Homeserver" value={homeserver} onValue={setHomeserver} placeholder="https://matrix.example.org" required />
      <TextField id="online-user" label="Account" value={user} onValue={setUser} placeholder="@gm:example.org" required />
      <TextField id="online-password" label="Password" value={password} onValue={setPassword} type="password" autocomplete="current-password" required />
      <TextField id="online-room" label="Room (optional)" value={room} onValue={setRoom} placeholder="!abc:example.org or #table:example.org" />
      <button type="submit" class="primary" disabled={busy}>
        {busy ? "Linking…" : "Link"}
      </button>{" "}
      {onCancel && (
        <button type="button" disabled={busy} onClick={onCancel}>
          Cancel
        </button>
      )}
    </form>
  );
}

function SeatForm({
  busy,
  players,
  onSeat,
}: {
  busy: boolean;
  players: string[];
  onSeat: (user: string, player: string) => Promise<boolean>;
}) {
  const [user, setUser] = useState("");
  const [player, setPlayer] = useState("");
  return (
    <form
      class="card online-seat"
      aria-labelledby="online-seat-title"
      onSubmit={(e) => {
        e.preventDefault();
        void onSeat(user.trim(), player.trim()).then((ok) => {
          if (ok) {
            setUser("");
            setPlayer("");
          }
        });
      }}
    >
      <h3 id="online-seat-title">Seat a player</h3>
      <p class="help">Only this account can act as the player: the homeserver says who sent each message.</p>
      <TextField id="seat-user" label="Matrix account" inline value={user} onValue={setUser} placeholder="@ann:example.org" required />
      <TextField id="seat-player" label="Plays as" inline value={player} onValue={setPlayer} list="seat-players" required>
        <datalist id="seat-players">
          {players.map((p) => (
            <option key={p} value={p} />
          ))}
        </datalist>
      </TextField>
      <button type="submit" disabled={busy}>
        Seat
      </button>
    </form>
  );
}

/** A labelled text box, as every box of these forms is laid out (`children` follow the box). */
function TextField({
  id,
  label,
  inline,
  value,
  onValue,
  children,
  ...input
}: {
  id: string;
  label: string;
  inline?: boolean;
  value: string;
  onValue: (value: string) => void;
  placeholder?: string;
  type?: string;
  autocomplete?: string;
  required?: boolean;
  list?: string;
  children?: ComponentChildren;
}) {
  return (
    <div class={inline ? "field inline" : "field"}>
      <label for={id} class="field-label">
        {label}
      </label>
      <input id={id} value={value} {...input} onInput={(e) => onValue(e.currentTarget.value)} />
      {children}
    </div>
  );
}
