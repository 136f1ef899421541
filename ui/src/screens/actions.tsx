// Action forms generated from the engine's `actions`: one form per action, grouped by `group`,
// with a widget per parameter type (./fields) and the choices the rules allow. A form shows only
// the fields its current choices need (a parameter's `only_when`), and sends only those.
// Submitting checks the required fields, then calls `act`; refusals, bad parameters and script
// errors are shown just above the submit button, where the eye is, and the form keeps what was
// typed. A form that is done starts fresh: every field back to its default, so no choice is
// carried into the next use of the same action. A player who plays nothing yet is shown the
// ruleset's way to make a character first.

import { useEffect, useMemo, useRef, useState } from "preact/hooks";
import { useAction } from "../calls";
import type { Store } from "../store";
import { mayTypeDice } from "../store";
import { CorrectionForm } from "./correct";
import type { ActionForm, Acted, Chance, FormOdds, LogItem, PostDraft, View } from "../contract";
import { names } from "../talk";
import { show } from "../format";
import { ErrorBox, ruleLabel, splitRule } from "../ui/errors";
import { OPEN_ACTION } from "./turns";
import { ParamField, applies, byName, convert, entityOptions, initial, inputId, isMissing, itemSpec, paramLabel, picksTraitsOf, type Ctx, type ParamSpec, type Raw, type RawRecord } from "./fields";

/** Whether the dice named are Fudge dice (faces +, - and blank). */
function fudgeDice(rolls: string): boolean {
  return /(^|[^a-z])\d*df\b|fudge/i.test(rolls);
}

/** The action that makes a character for a player: one any player may take that names who
 * will play what it makes (a `player` parameter). Every bundled ruleset's "Create a character". */
export function characterMaker(actions: ActionForm[]): ActionForm | undefined {
  return actions.find((a) => a.who.includes("player") && a.params.some((p) => p.type === "player"));
}

export function ActionsPanel({ store, actions, view, previewing }: { store: Store; actions: ActionForm[]; view: View; previewing: string | null }) {
  const [open, setOpen] = useState<string | null>(null);
  const [filter, setFilter] = useState("");
  // A player who plays nothing yet makes a character first: its form comes first, open.
  const viewer = store.state.viewAs;
  const me = viewer.startsWith("player:") ? viewer.slice("player:".length) : null;
  const mine = me ? Object.values(view.entities).filter((e) => e.owner === me) : [];
  const maker = me && mine.length === 0 ? characterMaker(actions) : undefined;
  const [makerOpen, setMakerOpen] = useState(true);
  // Said once the character is made, where the prompt was.
  const [made, setMade] = useState<string | null>(null);
  const prompted = useRef(false);
  useEffect(() => {
    if (maker) prompted.current = true;
    else if (prompted.current && mine.length > 0) {
      prompted.current = false;
      setMade(mine.map((e) => e.name).join(", "));
    }
  }, [maker, mine.length]);
  // The turn tracker's controls that need choices open their form here.
  useEffect(() => {
    const opened = (e: Event) => {
      const name = (e as CustomEvent<string>).detail;
      setFilter("");
      setOpen(name);
      requestAnimationFrame(() => document.querySelector(`[aria-controls="form-${name}"]`)?.scrollIntoView({ block: "nearest" }));
    };
    window.addEventListener(OPEN_ACTION, opened);
    return () => window.removeEventListener(OPEN_ACTION, opened);
  }, []);
  const groups = useMemo(() => {
    const f = filter.trim().toLowerCase();
    const out = new Map<string, ActionForm[]>();
    for (const a of actions) {
      if (a === maker) continue;
      if (f && !a.label.toLowerCase().includes(f) && !a.name.toLowerCase().includes(f) && !(a.group ?? "").toLowerCase().includes(f)) continue;
      const g = a.group || "Actions";
      if (!out.has(g)) out.set(g, []);
      out.get(g)!.push(a);
    }
    return [...out.entries()];
  }, [actions, filter, maker]);
  const toggle = (name: string) => setOpen((now) => (now === name ? null : name));

  return (
    <div class="actions-panel">
      <h2 class="section-title">Actions{previewing && <span class="muted small"> as {previewing}</span>}</h2>
      {maker && (
        <section class="action-group first-character" aria-label="Make your character first">
          <h3 class="group-title">Make your character first</h3>
          <p class="help">
            {previewing ?? "You"} {previewing ? "plays" : "play"} no character here yet. Make one below: what a character can do at this table appears once it is made.
          </p>
          <ul class="action-list">
            <ActionItem store={store} action={maker} view={view} open={makerOpen} onToggle={() => setMakerOpen((o) => !o)} />
          </ul>
        </section>
      )}
      {!maker && made && (
        <p class="notice success character-made" role="status">
          {made} {made.includes(",") ? "are" : "is"} yours: what {made.includes(",") ? "they" : "your character"} can do is below.
        </p>
      )}
      {actions.length > 8 && (
        <label class="field filter">
          <span class="visually-hidden">Find an action</span>
          <input type="search" placeholder="Find an action…" value={filter} onInput={(e) => setFilter(e.currentTarget.value)} />
        </label>
      )}
      {actions.length === 0 && <p class="muted">There is nothing you can do right now.</p>}
      {groups.map(([group, list]) => (
        <section key={group} class="action-group" aria-label={group}>
          <h3 class="group-title">{group}</h3>
          <ul class="action-list">
            {list.map((a) => (
              <ActionItem key={a.name} store={store} action={a} view={view} open={open === a.name} onToggle={() => toggle(a.name)} />
            ))}
          </ul>
        </section>
      ))}
      {store.state.role === "gm" && !previewing && Object.keys(view.entities).length > 0 && <CorrectionForm store={store} view={view} />}
    </div>
  );
}

/** One action of the list: its name as a button that opens its form beneath. */
function ActionItem({ store, action, view, open, onToggle }: { store: Store; action: ActionForm; view: View; open: boolean; onToggle: () => void }) {
  return (
    <li class={`action ${open ? "open" : ""}`}>
      <button
        type="button"
        class="action-toggle"
        aria-expanded={open}
        aria-controls={`form-${action.name}`}
        onClick={(e) => {
          onToggle();
          if (!open) {
            const button = e.currentTarget;
            // Bring the opened form up in its own scrolling panel (not the page).
            requestAnimationFrame(() => {
              const panel = button.closest(".col-actions");
              if (panel && panel.scrollHeight > panel.clientHeight) {
                panel.scrollTop += button.getBoundingClientRect().top - panel.getBoundingClientRect().top - 8;
              }
            });
          }
        }}
      >
        <span class="chevron" aria-hidden="true" />
        {action.label}
      </button>
      {/* Kept mounted once opened so what was typed survives closing and live updates. */}
      <ActionFormView store={store} action={action} view={view} hidden={!open} />
    </li>
  );
}

function initialValues(action: ActionForm): RawRecord {
  const values: RawRecord = {};
  for (const p of action.params) values[p.name] = initial(p);
  return values;
}

/** What the form shows and sends: an unpicked required entity with one possible choice (a
 * player's only character, the one challenge in play) is that choice. */
function effective(action: ActionForm, values: RawRecord, view: View): RawRecord {
  const out = { ...values };
  for (const p of action.params) {
    if (p.type === "entity" && !p.optional && (out[p.name] ?? "") === "") {
      const opts = entityOptions(p, view);
      if (opts.length === 1) out[p.name] = opts[0].id;
    }
  }
  return out;
}


/** A post carries the action: a list of traits keeps only the traits the post names (the
 * narrate-to-roll rule), however deep in records it sits. */
function onlyNarrated(spec: ParamSpec, raw: Raw, text: string): Raw {
  if (spec.type === "list" && Array.isArray(raw)) {
    const of = itemSpec(spec);
    if (of.type === "trait") return (raw as string[]).filter((t) => names(text, t));
    if (of.type === "record") return (raw as RawRecord[]).map((r) => onlyNarrated(of, r, text) as RawRecord);
    return raw;
  }
  if (spec.type === "record" && raw && typeof raw === "object" && !Array.isArray(raw)) {
    const out: RawRecord = { ...(raw as RawRecord) };
    for (const [k, f] of Object.entries(spec.fields ?? {})) if (k in out) out[k] = onlyNarrated(f, out[k], text);
    return out;
  }
  return raw;
}

/** "A", "A and B", "A, B and C". */
function listed(items: string[]): string {
  return items.length > 1 ? `${items.slice(0, -1).join(", ")} and ${items[items.length - 1]}` : items.join("");
}

function sayLines(outcome: Acted): string[] {
  return outcome.event.items.filter((i): i is Extract<LogItem, { type: "say" }> => i.type === "say").map((i) => i.text);
}

/** One action's form. Under a post box (`post` given) it takes the action with the post: the
 * submit button says so, and lists of traits offer only the traits the post names. */
export function ActionFormView({
  store,
  action,
  view,
  hidden,
  post,
  idPrefix = "",
  onActed,
}: {
  store: Store;
  action: ActionForm;
  view: View;
  hidden: boolean;
  post?: PostDraft | null;
  /** Keeps ids apart from the same action's form in the actions panel. */
  idPrefix?: string;
  onActed?: (outcome: Acted) => void;
}) {
  const paramPath = (name: string) => `${idPrefix}${action.name}-${name}`;
  const form = useActionForm(store, action, view, post ?? null, paramPath, onActed);
  const { values, act, missing } = form;
  const formId = `${idPrefix}form-${action.name}`;
  const titleId = `${formId}-title`;
  // What became of the submit is shown just above the button, and brought into view with it.
  const outcome = useRef<HTMLDivElement>(null);
  useEffect(() => {
    if (form.done || act.error || missing.length) outcome.current?.scrollIntoView?.({ block: "nearest" });
  }, [form.done, act.error, form.tries]);
  if (hidden && !form.touched) return null;

  const badParam = act.error?.param ? act.error.param.split(/[.[]/)[0] : null;
  const invalid = (p: ParamSpec & { name: string }) =>
    missing.includes(p.name) ? `Fill in ${paramLabel(p, p.name)}` : badParam === p.name ? (act.error?.message ?? "").replace(/^parameter '[^']+': /, "") || null : null;
  const ctx: Ctx = { view, siblings: values, narration: post ? post.text : undefined };
  return (
    <form id={formId} class="action-form" aria-labelledby={titleId} hidden={hidden} onSubmit={form.submit} noValidate>
      <span id={titleId} class="visually-hidden">
        {post ? `${action.label} with your post` : action.label}
      </span>
      {action.help && <p class="help action-help">{action.help}</p>}
      {form.shown.map((p) => (
        <ParamField key={`${form.generation}:${p.name}`} spec={p} name={p.name} path={paramPath(p.name)} raw={values[p.name] ?? initial(p)} onChange={(v) => form.change(p, v)} ctx={ctx} invalid={invalid(p)} />
      ))}
      {action.rolls &&
        (mayTypeDice(store.state) ? (
          <DiceField formId={formId} rolls={action.rolls} dice={form.dice} bad={badParam === "dice"} onDice={form.typeDice} />
        ) : (
          <p class="help dice-note">Houserule rolls {action.rolls} for you. The GM can let you type in dice you roll by hand.</p>
        ))}
      {action.odds && !hidden && <OddsLine store={store} action={action.name} params={form.sent()} view={view} />}
      <div ref={outcome} class="form-outcome">
        {missing.length > 0 && (
          <p class="notice refused" role="alert">
            Fill in {listed(form.shown.filter((p) => missing.includes(p.name)).map((p) => paramLabel(p, p.name)))}.
          </p>
        )}
        {act.error && <ErrorBox error={act.error} />}
        {form.done && <ActedNotice done={form.done} view={view} />}
        <div class="form-actions">
          <button type="submit" class="primary" disabled={act.busy} aria-busy={act.busy}>
            {act.busy ? (
              <>
                <span class="spinner" /> Working…
              </>
            ) : post ? (
              `Post with ${action.label}`
            ) : (
              action.label
            )}
          </button>
        </div>
      </div>
    </form>
  );
}

/** An action form's values and taking the action: required fields are checked here, by the
 * labels the form shows; the engine checks the rest. */
function useActionForm(
  store: Store,
  action: ActionForm,
  view: View,
  post: PostDraft | null,
  paramPath: (name: string) => string,
  onActed?: (outcome: Acted) => void,
) {
  const [raw, setValues] = useState<RawRecord>(() => initialValues(action));
  let values = effective(action, raw, view);
  if (post) values = Object.fromEntries(action.params.map((p) => [p.name, onlyNarrated(p, values[p.name] ?? initial(p), post.text)]));
  const [dice, setDice] = useState("");
  const act = useAction(store);
  const [done, setDone] = useState<Acted | null>(null);
  const [touched, setTouched] = useState(false);
  /** The required parameters found empty at the last submit (until each is filled in). */
  const [missing, setMissing] = useState<string[]>([]);
  /** Counts the fresh starts: the fields are keyed by it. */
  const [generation, setGeneration] = useState(0);
  /** Counts the submits, so each brings its outcome into view. */
  const [tries, setTries] = useState(0);
  /** The fields the choices made so far call for (the engine refuses the others). */
  const group = useMemo(() => byName(action.params), [action.params]);
  const shown = action.params.filter((p) => applies(p.name, group, values));

  function sent(): Record<string, unknown> {
    const params: Record<string, unknown> = {};
    for (const p of shown) {
      const v = convert(p, values[p.name] ?? initial(p));
      if (v !== undefined) params[p.name] = v;
    }
    return params;
  }

  async function submit(e: Event) {
    e.preventDefault();
    act.fail(null);
    setDone(null);
    setTries((t) => t + 1);
    if (post && !post.text.trim()) {
      act.fail({ code: "bad_param", param: "post", message: "Write the post first: it goes into the log with the action." });
      return;
    }
    const empty = shown.filter((p) => isMissing(p, values[p.name] ?? initial(p))).map((p) => p.name);
    setMissing(empty);
    if (empty.length) return focusFirst(paramPath(empty[0]));
    const params = sent();
    await act.run(async () => {
      const outcome = await store.act(action.name, params, dice.trim() || null, post);
      setDone(outcome);
      onActed?.(outcome);
      // Done: the form starts fresh, so no choice made for this action is carried into the next
      // (a GM-only pool on last time's character). A refusal never gets here: what was typed
      // stays to be fixed. A new generation remounts the fields, clearing their own state too.
      setValues(initialValues(action));
      setDice("");
      setGeneration((g) => g + 1);
    });
  }

  function change(p: ParamSpec & { name: string }, v: Raw) {
    setTouched(true);
    setMissing((old) => (old.includes(p.name) ? old.filter((n) => n !== p.name) : old));
    // Another owner: the traits picked for the previous one no longer apply.
    const stale = p.type === "entity" && v !== values[p.name] ? action.params.filter((q) => picksTraitsOf(q, p.name)) : [];
    setValues((old) => {
      const next = { ...old, [p.name]: v };
      for (const q of stale) next[q.name] = initial(q);
      return next;
    });
  }

  const typeDice = (d: string) => {
    setTouched(true);
    setDice(d);
  };
  return { values, shown, dice, act, done, touched, missing, generation, tries, sent, submit, change, typeDice };
}

/** Brings the first empty required field into view, focused (after the form has re-rendered). */
function focusFirst(path: string) {
  const first = document.getElementById(inputId(path));
  requestAnimationFrame(() => {
    const target = first?.matches("input, select, textarea") ? first : first?.querySelector<HTMLElement>("input, select, textarea, button");
    if (target) target.focus();
    else first?.scrollIntoView({ block: "nearest" });
  });
}

function DiceField({ formId, rolls, dice, bad, onDice }: { formId: string; rolls: string; dice: string; bad: boolean; onDice: (dice: string) => void }) {
  return (
    <div class="field dice-field">
      <label for={`${formId}-dice`} class="field-label">
        Dice rolled by hand <span class="muted small">({rolls}; optional)</span>
      </label>
      <input
        id={`${formId}-dice`}
        value={dice}
        inputMode="text"
        spellcheck={false}
        placeholder={fudgeDice(rolls) ? "e.g. +, -, 0, +" : "e.g. 6, 4, 1"}
        aria-describedby={`${formId}-dice-help`}
        aria-invalid={bad ? "true" : undefined}
        onInput={(e) => onDice(e.currentTarget.value)}
      />
      <span id={`${formId}-dice-help`} class="help">
        Leave empty to let Houserule roll. Faces are used in order and marked “by hand” in the log.
      </span>
    </div>
  );
}

/** "Done", with what the rules said and what the action answered. */
function ActedNotice({ done, view }: { done: Acted; view: View }) {
  const result = done.result;
  return (
    <div class="notice success" role="status">
      <strong class="notice-title">Done</strong>
      {sayLines(done).map((l, i) => (
        <p key={i} class="narration">
          {l}
        </p>
      ))}
      {result !== null && result !== undefined && typeof result === "object" && Object.keys(result as object).length > 0 && (
        <p class="muted small">{show(result, view)}</p>
      )}
    </div>
  );
}

/** A chance as people say it: "81.3%", with two places near 0 and 100. */
export function percent(p: number): string {
  const x = p * 100;
  if (x === 0 || x === 100) return `${x}%`;
  return `${x.toFixed(x < 1 || x > 99 ? 2 : 1)}%`;
}

function chanceText(l: Chance): string {
  if (l.chance === undefined || l.chance === null) return l.mean !== undefined && l.mean !== null ? `average ${l.mean.toFixed(1)}` : "";
  const p = percent(l.chance);
  return l.method === "simulation" ? `≈ ${p}` : p;
}

/** The form's chance of success as it stands, asked again (after a pause in typing) whenever
 * the parameters or the table change. Nothing is rolled or kept by asking. */
function OddsLine({ store, action, params, view }: { store: Store; action: string; params: Record<string, unknown>; view: View }) {
  const key = JSON.stringify(params);
  const [odds, setOdds] = useState<FormOdds | null>(null);
  useEffect(() => {
    let live = true;
    const timer = setTimeout(() => {
      store.odds(action, JSON.parse(key)).then(
        (o) => live && setOdds(o),
        () => live && setOdds(null),
      );
    }, 250);
    return () => {
      live = false;
      clearTimeout(timer);
    };
  }, [store, action, key, view]);
  if (!odds || (odds.lines.length === 0 && !odds.refused)) return null;
  return (
    <div class="odds" role="status" aria-live="polite" aria-label="Chance of success">
      <span class="odds-title">Chance</span>
      <ul class="odds-lines">
        {odds.lines.map((l, i) => (
          <li key={i}>
            <strong class="odds-chance">{chanceText(l)}</strong> <span class="odds-label">{l.label}</span>
            {l.expr && <code class="odds-expr">{l.target !== undefined && l.target !== null ? `${l.expr} ≥ ${l.target}` : l.expr}</code>}
            {l.interval && (
              <span class="muted small">
                {" "}
                (simulated; 95%: {percent(l.interval[0])}–{percent(l.interval[1])})
              </span>
            )}
          </li>
        ))}
      </ul>
      {odds.refused && <OddsRefused message={odds.refused} />}
    </div>
  );
}

/** Why the rules would refuse the form as filled: the rule named as a person writes it. */
function OddsRefused({ message }: { message: string }) {
  const { rule, text } = splitRule(message);
  return (
    <p class="odds-refused">
      {rule && <span class="rule-name">{ruleLabel(rule)}:</span>} {text}
    </p>
  );
}
