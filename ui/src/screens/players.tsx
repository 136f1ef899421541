// The GM's Players screen: serving the table (hosting.tsx: start and stop on the desktop, who is
// connected, removing someone), who may join it (a join link per player, shown once as a link
// and a QR code, revocable) and whose dice may be typed in by hand.

import { useEffect, useRef, useState } from "preact/hooks";
import type { ComponentChildren } from "preact";
import qrcode from "qrcode-generator";
import { useAction, useCall, type Action } from "../calls";
import type { Store } from "../store";
import { useStatus, useStore } from "../store";
import type { Invite, NewInvite, Serving } from "../contract";
import { playerNames, time } from "../format";
import { ErrorBox } from "../ui/errors";
import { Hosting } from "./hosting";
import { ShareCard, VerifyCard } from "./sharing";

/** Whether a table served to this computer only was opened to the network while it runs. */
function opened(serving: Serving | null): boolean {
  return !!serving && serving.switchable && serving.reach === "network";
}

/** The link a player opens: the table's address with the token after `#join=` (on the
 * desktop, the address it is served at; none while it is not served; in a browser, the page's
 * own address unless the table was opened to the network since). */
function linkFor(token: string, desktop: boolean, serving: Serving | null): string | null {
  const at = (url: string) => `${url.replace(/\/$/, "")}/#join=${token}`;
  if (!desktop) return at(opened(serving) ? serving!.url : location.origin);
  return serving ? at(serving.url) : null;
}

/** Whether the link reaches only this computer. */
function localOnly(desktop: boolean, serving: Serving | null): boolean {
  if (desktop || serving?.switchable) return serving?.reach === "this_computer";
  return /^(127\.|localhost$|\[::1\]$)/.test(location.hostname);
}

/** A QR code of `text`, drawn as SVG squares (no images, no scripts). */
function QrCode({ text, label }: { text: string; label: string }) {
  const qr = qrcode(0, "M");
  qr.addData(text);
  qr.make();
  const n = qr.getModuleCount();
  const cells: preact.JSX.Element[] = [];
  for (let r = 0; r < n; r++) for (let c = 0; c < n; c++) if (qr.isDark(r, c)) cells.push(<rect key={`${r}-${c}`} x={c} y={r} width={1} height={1} />);
  return (
    <svg class="qr" viewBox={`-2 -2 ${n + 4} ${n + 4}`} role="img" aria-label={label} shape-rendering="crispEdges">
      <rect x={-2} y={-2} width={n + 4} height={n + 4} fill="#fff" />
      <g fill="#000">{cells}</g>
    </svg>
  );
}

/** Copies text: the clipboard API where the page may use it, else the selection. */
async function copy(text: string, input: HTMLInputElement | null): Promise<boolean> {
  try {
    if (navigator.clipboard && window.isSecureContext) {
      await navigator.clipboard.writeText(text);
      return true;
    }
  } catch {
    // fall through to the selection
  }
  if (!input) return false;
  input.select();
  return document.execCommand("copy");
}

function NewLink({
  made,
  desktop,
  serving,
  onDone,
}: {
  made: NewInvite;
  desktop: boolean;
  serving: Serving | null;
  onDone: () => void;
}) {
  const link = linkFor(made.token, desktop, serving);
  return (
    <section class="card new-link" aria-labelledby="new-link-title">
      <h3 id="new-link-title">Join link for {made.player}</h3>
      {link ? (
        <LinkToSend player={made.player} link={link} localOnly={localOnly(desktop, serving)} desktop={desktop} />
      ) : (
        <p>
          Start hosting above and make the link again, or serve the table with <code>houserule serve</code> and send{" "}
          {made.player} the address it prints followed by <code class="token">#join={made.token}</code>
        </p>
      )}
      <p class="help">
        This link is shown only now and works until you revoke it or make a new one for {made.player}. Whoever has it
        plays as {made.player}, so send it to them alone.
      </p>
      <button type="button" onClick={onDone}>
        Done
      </button>
    </section>
  );
}

/** The link itself: to copy, and as a QR code. */
function LinkToSend({ player, link, localOnly, desktop }: { player: string; link: string; localOnly: boolean; desktop: boolean }) {
  const [copied, setCopied] = useState<boolean | null>(null);
  const input = useRef<HTMLInputElement>(null);
  return (
    <>
      <div class="link-row">
        <input
          ref={input}
          class="link-text"
          readOnly
          value={link}
          aria-label={`Join link for ${player}`}
          onFocus={(e) => e.currentTarget.select()}
        />
        <button type="button" class="primary" onClick={async () => setCopied(await copy(link, input.current))}>
          Copy link
        </button>
      </div>
      {copied === true && <p class="help" role="status">Copied. Send it to {player} only.</p>}
      {copied === false && <p class="help" role="status">Select the link and copy it yourself.</p>}
      {localOnly && <LocalOnlyNotice desktop={desktop} />}
      <QrCode text={link} label={`QR code of the join link for ${player}`} />
    </>
  );
}

function LocalOnlyNotice({ desktop }: { desktop: boolean }) {
  return (
    <p class="notice">
      This link points at this computer only.{" "}
      {desktop ? (
        <>For players on other machines, open the table to your network under Hosting above and make the link again.</>
      ) : (
        <>
          For players on other machines, start the server with <code>--host 0.0.0.0</code>, open the table at this
          computer's network address (e.g. http://192.168.1.20:PORT/) and make the link there.
        </>
      )}
    </p>
  );
}

export function PlayersPanel({ store }: { store: Store }) {
  const s = useStore(store);
  const act = useAction(store);
  const invites = useCall(store, "invites", {});
  const [made, setMade] = useState<NewInvite | null>(null);
  const [name, setName] = useState("");
  // A name nobody plays under yet is a new player: asked, so "Ann" for "ann" is not a quiet mistake.
  const [asking, setAsking] = useState<string | null>(null);
  const view = s.gmView ?? s.view;
  const typed = view?.typed_dice ?? [];
  const desktop = s.host === "desktop";
  const serving = useStatus(store, "serving") ?? null;
  const list = invites.value ?? [];
  const names = [...new Set([...playerNames(view), ...list.map((i) => i.player), ...typed])].sort((a, b) => a.localeCompare(b));
  const busy = act.busy || invites.loading;
  const error = act.error ?? invites.error;

  async function invite(player: string) {
    setAsking(null);
    const link = await act.call("invite", { player });
    if (!link) return;
    setMade(link);
    setName("");
    await invites.reload();
  }
  const revoke = async (player: string) => {
    if ((await act.call("revoke_invite", { player })) !== undefined) await invites.reload();
  };
  const ask = (player: string) => (names.includes(player) ? void invite(player) : setAsking(player));

  return (
    <div class="players-panel">
      <h2 class="section-title">Players</h2>
      <p class="help">
        Each player joins with a link of their own. Nobody can act as a player without that player's link; you can end a link
        at any time.
      </p>
      <Hosting store={store} desktop={desktop} serving={serving} onRemoved={() => void invites.reload()} />
      {made && <NewLink made={made} desktop={desktop} serving={serving} onDone={() => setMade(null)} />}
      <InviteForm name={name} onName={setName} busy={busy} onAsk={ask}>
        {asking && <NewPlayerQuestion asking={asking} names={names} onPick={(p) => void invite(p)} onCancel={() => setAsking(null)} />}
      </InviteForm>
      {error && <ErrorBox error={error} />}
      {names.length > 0 && <PlayersTable names={names} invites={list} typed={typed} act={act} busy={busy} invite={invite} revoke={revoke} />}
      <ShareCard store={store} players={names} file={s.file} desktop={desktop} />
      <VerifyCard store={store} />
    </div>
  );
}

/** A player's name and "Make a join link" (`children`: the question about a new name). */
function InviteForm({
  name,
  onName,
  busy,
  onAsk,
  children,
}: {
  name: string;
  onName: (name: string) => void;
  busy: boolean;
  onAsk: (player: string) => void;
  children: ComponentChildren;
}) {
  return (
    <form
      class="card invite-form"
      aria-labelledby="invite-title"
      onSubmit={(e) => {
        e.preventDefault();
        if (name.trim()) onAsk(name.trim());
      }}
    >
      <h3 id="invite-title">Invite a player</h3>
      <div class="field inline">
        <label for="invite-name" class="field-label">
          Player name
        </label>
        <input
          id="invite-name"
          value={name}
          maxLength={64}
          autoComplete="off"
          aria-describedby="invite-name-help"
          onInput={(e) => onName(e.currentTarget.value)}
        />
        <button type="submit" class="primary" disabled={busy || !name.trim()}>
          Make a join link
        </button>
      </div>
      <span id="invite-name-help" class="help">
        The name their characters are owned by, e.g. “ann”.
      </span>
      {children}
    </form>
  );
}

function NewPlayerQuestion({ asking, names, onPick, onCancel }: { asking: string; names: string[]; onPick: (player: string) => void; onCancel: () => void }) {
  const near = names.find((n) => n.toLowerCase() === asking.toLowerCase());
  return (
    <div class="confirm" role="group" aria-label="New player?">
      <p>
        Nobody plays as “{asking}” at this table yet{near ? <> — did you mean <strong>{near}</strong>? Names are exact</> : null}. Make a
        link for a new player “{asking}”, who owns nothing yet?
      </p>
      {near && (
        <button type="button" class="primary" onClick={() => onPick(near)}>
          Link for {near}
        </button>
      )}{" "}
      <button type="button" class={near ? "" : "primary"} onClick={() => onPick(asking)}>
        Yes, a new player
      </button>{" "}
      <button type="button" onClick={onCancel}>
        Cancel
      </button>
    </div>
  );
}

interface RowActions {
  act: Action<never>;
  busy: boolean;
  invite: (player: string) => Promise<void>;
  revoke: (player: string) => Promise<void>;
}

/** Every player: their join link, whether they may type in their dice, and the link's buttons. */
function PlayersTable({ names, invites, typed, ...actions }: { names: string[]; invites: Invite[]; typed: string[] } & RowActions) {
  // A box just ticked shows ticked until the table says so (or the call fails).
  const [pending, setPending] = useState<Record<string, boolean>>({});
  useEffect(() => {
    setPending((old) => Object.fromEntries(Object.entries(old).filter(([p, want]) => typed.includes(p) !== want)));
  }, [typed.join(",")]);
  const allow = (player: string, allowed: boolean) => {
    setPending((old) => ({ ...old, [player]: allowed }));
    void actions.act.call("allow_typed_dice", { player, allowed }).then((done) => {
      if (done === undefined) setPending(({ [player]: _, ...rest }) => rest);
    });
  };
  return (
    <table class="players-table">
      <thead>
        <tr>
          <th scope="col">Player</th>
          <th scope="col">Join link</th>
          <th scope="col">Dice by hand</th>
          <th scope="col">
            <span class="visually-hidden">Link actions</span>
          </th>
        </tr>
      </thead>
      <tbody>
        {names.map((p) => (
          <PlayerRow key={p} player={p} inv={invites.find((i) => i.player === p)} typed={pending[p] ?? typed.includes(p)} onAllow={allow} {...actions} />
        ))}
      </tbody>
    </table>
  );
}

function PlayerRow({
  player,
  inv,
  typed,
  onAllow,
  busy,
  invite,
  revoke,
}: { player: string; inv: Invite | undefined; typed: boolean; onAllow: (player: string, allowed: boolean) => void } & RowActions) {
  return (
    <tr data-player={player}>
      <th scope="row">{player}</th>
      <td>
        {inv ? (
          <span>
            made {time(inv.created)}
            {inv.last_used ? `, last used ${time(inv.last_used)}` : ", not used yet"}
          </span>
        ) : (
          <span class="muted">none</span>
        )}
      </td>
      <td>
        <label class="check">
          <input type="checkbox" checked={typed} disabled={busy} onChange={(e) => onAllow(player, e.currentTarget.checked)} />{" "}
          may type in their own dice
        </label>
      </td>
      <td class="row-actions">
        <button type="button" disabled={busy} onClick={() => void invite(player)}>
          {inv ? "New link" : "Make link"}
        </button>
        {inv && (
          <button type="button" disabled={busy} onClick={() => void revoke(player)}>
            Revoke
          </button>
        )}
      </td>
    </tr>
  );
}
