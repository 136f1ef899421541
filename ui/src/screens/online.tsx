// The GM's Online screen (desktop app): the campaign played in a Matrix room. Link it to a room
// as the GM's account (the password logs in once and is kept nowhere), seat each player's
// account, and see whether the referee answers the room — it runs while the campaign is open,
// starts by itself when a linked campaign is opened, and can be stopped and started here.

import { useState } from "preact/hooks";
import { usePolled } from "../polling";
import type { Store } from "../store";
import { useStore } from "../store";
import { toReport } from "../transport";
import type { ErrorReport, Online } from "../contract";
import { playerNames, time } from "../format";
import { ErrorBox } from "../ui/errors";

export function OnlinePanel({ store }: { store: Store }) {
  const s = useStore(store);
  const [online, setOnline] = usePolled<Online | null>(() => store.call("online", {}));
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<ErrorReport | null>(null);
  const [said, setSaid] = useState<string | null>(null);
  const [relinking, setRelinking] = useState(false);

  async function run(what: () => Promise<Online | null>, done?: string) {
    setBusy(true);
    setError(null);
    setSaid(null);
    try {
      setOnline(await what());
      if (done) setSaid(done);
      return true;
    } catch (e) {
      setError(toReport(e));
      return false;
    } finally {
      setBusy(false);
    }
  }

  if (online === undefined) return <p class="muted">Asking…</p>;
  const players = playerNames(s.gmView ?? s.view);

  return (
    <div class="online-panel">
      <h2 class="section-title">Online</h2>
      <p class="help">
        Play this campaign in a Matrix room, where your group already talks: players send <code>!hr help</code>,{" "}
        <code>!hr act …</code> or <code>!hr view</code> from any Matrix client, and this app answers as the table’s referee
        while the campaign is open. What only one player may see goes to them privately; what only you may see goes nowhere.
      </p>
      {online && !relinking ? (
        <Linked store={store} online={online} busy={busy} run={run} onRelink={() => setRelinking(true)} />
      ) : (
        <LinkForm
          linked={online}
          busy={busy}
          onLink={(how) =>
            void run(() => store.call("online_link", how)).then((ok) => ok && setRelinking(false))
          }
          onCancel={online ? () => setRelinking(false) : undefined}
        />
      )}
      {online && !relinking && (
        <SeatForm
          busy={busy}
          players={players}
          onSeat={(user, player) =>
            run(() => store.call("online_invite", { user, player }), `${user} plays as ${player}: invited to the room, with a direct room for what only they may see.`)
          }
        />
      )}
      {said && (
        <p class="help" role="status">
          {said}
        </p>
      )}
      {error && <ErrorBox error={error} title="That did not work" />}
    </div>
  );
}

function Linked({
  store,
  online,
  busy,
  run,
  onRelink,
}: {
  store: Store;
  online: Online;
  busy: boolean;
  run: (what: () => Promise<Online | null>, done?: string) => Promise<boolean>;
  onRelink: () => void;
}) {
  return (
    <section class="card online-room" aria-labelledby="online-room-title">
      <h3 id="online-room-title">The room</h3>
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
      {online.problem && <p class="notice failure online-problem">{online.problem}</p>}
      <h4 id="seats-title">Seats</h4>
      {online.seats.length === 0 ? (
        <p class="muted">Nobody is seated yet: seat each player’s Matrix account below.</p>
      ) : (
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
      )}
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
      <div class="field">
        <label for="online-homeserver" class="field-label">
          Homeserver
        </label>
        <input id="online-homeserver" value={homeserver} placeholder="https://matrix.example.org" required onInput={(e) => setHomeserver(e.currentTarget.value)} />
      </div>
      <div class="field">
        <label for="online-user" class="field-label">
          Account
        </label>
        <input id="online-user" value={user} placeholder="@gm:example.org" required onInput={(e) => setUser(e.currentTarget.value)} />
      </div>
      <div class="field">
        <label for="online-password" class="field-label">
          Password
        </label>
        <input id="online-password" type="password" autocomplete="current-password" value={password} required onInput={(e) => setPassword(e.currentTarget.value)} />
      </div>
      <div class="field">
        <label for="online-room" class="field-label">
          Room (optional)
        </label>
        <input id="online-room" value={room} placeholder="!abc:example.org or #table:example.org" onInput={(e) => setRoom(e.currentTarget.value)} />
      </div>
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
      <div class="field inline">
        <label for="seat-user" class="field-label">
          Matrix account
        </label>
        <input id="seat-user" value={user} placeholder="@ann:example.org" required onInput={(e) => setUser(e.currentTarget.value)} />
      </div>
      <div class="field inline">
        <label for="seat-player" class="field-label">
          Plays as
        </label>
        <input id="seat-player" list="seat-players" value={player} required onInput={(e) => setPlayer(e.currentTarget.value)} />
        <datalist id="seat-players">
          {players.map((p) => (
            <option key={p} value={p} />
          ))}
        </datalist>
      </div>
      <button type="submit" disabled={busy}>
        Seat
      </button>
    </form>
  );
}
