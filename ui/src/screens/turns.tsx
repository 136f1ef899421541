// The turn tracker beside the table: the order as the viewer may see it (the engine leaves out
// anyone the viewer may not see, and their turn while it lasts, or shows them as "someone" where
// the GM chose so: the GM's checkbox here), whose turn it is, the round,
// and the ruleset's turn controls — the actions its manifest marks with `turn` — as buttons:
// every control for the GM, Next and Hold for a player while the turn is their character's.
// A control whose action needs choices (starting an encounter names who takes part) opens its
// form in the Actions panel instead of acting at once.

import type { ActionForm, TurnControl, View } from "../contract";
import type { Store } from "../store";
import { useAction } from "../calls";
import { useState } from "preact/hooks";
import { ErrorBox } from "../ui/errors";

/** Asks the Actions panel to open an action's form (and a narrow screen to show that panel). */
export const OPEN_ACTION = "houserule:open-action";

export function openAction(name: string) {
  window.dispatchEvent(new CustomEvent<string>(OPEN_ACTION, { detail: name }));
}

const BUTTONS: { control: TurnControl; player: boolean }[] = [
  { control: "next", player: true },
  { control: "hold", player: true },
  { control: "round", player: false },
  { control: "end", player: false },
];

/** Whether the action can be taken without choosing anything. */
function needsNothing(a: ActionForm): boolean {
  return a.params.every((p) => p.optional || p.default !== undefined);
}

export function TurnTracker({ store, view, actions, me }: { store: Store; view: View; actions: ActionForm[]; me: string | null }) {
  const run = useAction<TurnControl>(store);
  const turns = view.turns ?? { active: false, round: 0, order: [] };
  const control = (c: TurnControl) => actions.find((a) => a.turn === c);
  const start = control("start");
  const gm = me === null;
  if (!turns.active && !(gm && start)) return null;
  const current = turns.current ? view.entities[turns.current] : undefined;
  const mine = !gm && !!current && current.owner === me;
  const take = (a: ActionForm) => {
    if (!needsNothing(a)) return openAction(a.name);
    void run.run(() => store.act(a.name, {}, null), a.turn ?? undefined);
  };
  const shown = BUTTONS.map((b) => ({ ...b, action: control(b.control) })).filter(
    (b) => b.action && (gm || (b.player && mine)),
  );

  return (
    <section class="turn-tracker card" aria-label="Turn order">
      <h2 class="section-title">
        Turn order{turns.active && <span class="muted small"> · round {turns.round}</span>}
      </h2>
      {turns.active ? (
        <ol class="turn-order">
          {turns.order.map((s, i) => {
            const e = s.someone ? undefined : view.entities[s.id];
            const now = s.now === true || (!s.someone && s.id === turns.current);
            return (
              <li key={s.someone ? `someone-${i}` : s.id} class={`seat ${now ? "now" : ""} ${s.acted ? "acted" : ""}`} aria-current={now ? "true" : undefined}>
                <span class="seat-name">{e?.name ?? "Someone"}</span>
                {e?.owner && <span class="muted small"> ({e.owner})</span>}
                {!s.someone && <SeatCards view={view} holder={s.id} />}
                {now && <span class="seat-state"> — their turn</span>}
                {!now && s.held && <span class="seat-state"> — holding</span>}
                {!now && !s.held && s.acted && <span class="seat-state muted"> — acted</span>}
              </li>
            );
          })}
        </ol>
      ) : (
        <p class="muted">No encounter is running.</p>
      )}
      {turns.active && !current && turns.someone_now && <p class="muted small">It is someone else's turn.</p>}
      {turns.active && !current && !turns.someone_now && <p class="muted small">It is nobody's turn you can see.</p>}
      {gm && <SomeoneChoice store={store} shown={turns.someone_shown === true} />}
      <div class="turn-controls">
        {!turns.active && start && (
          <button type="button" onClick={() => take(start)}>
            {start.label}…
          </button>
        )}
        {turns.active &&
          shown.map(({ control: c, action }) => (
            <button key={c} type="button" class={c === "next" ? "primary" : ""} disabled={run.busy} onClick={() => take(action!)}>
              {run.running === c ? `${action!.label}…` : action!.label}
            </button>
          ))}
      </div>
      {run.error && <ErrorBox error={run.error} />}
    </section>
  );
}

/** The GM's choice of what players see of someone in the order they may not see. */
function SomeoneChoice({ store, shown }: { store: Store; shown: boolean }) {
  const act = useAction(store);
  // The box shows the choice just made while it is sent, and what the table holds after.
  const [asked, setAsked] = useState<boolean | null>(null);
  return (
    <label class="check small">
      <input
        type="checkbox"
        checked={act.busy && asked !== null ? asked : shown}
        disabled={act.busy}
        onChange={(e) => {
          const want = e.currentTarget.checked;
          setAsked(want);
          void act.run(async () => {
            await store.call("someone_in_turns", { shown: want });
            await store.refresh("update");
          });
        }}
      />{" "}
      Players see hidden participants as “someone”
      {act.error && <ErrorBox error={act.error} />}
    </label>
  );
}

/** The cards a participant holds (an action card in Savage Worlds), as the viewer may see them:
 * face-up cards by name, face-down ones counted. */
function SeatCards({ view, holder }: { view: View; holder: string }) {
  const hands = (view.decks ?? []).flatMap((d) => d.hands.filter((h) => h.holder === holder));
  const up = hands.flatMap((h) => [...h.up, ...h.down]);
  const hidden = hands.reduce((n, h) => n + h.down_count - h.down.length, 0);
  if (up.length === 0 && hidden === 0) return null;
  return (
    <span class="seat-cards">
      {up.map((c) => (
        <span key={c} class="card-chip">
          {c}
        </span>
      ))}
      {hidden > 0 && <span class="card-chip face-down">{hidden === 1 ? "a card face down" : `${hidden} cards face down`}</span>}
    </span>
  );
}
