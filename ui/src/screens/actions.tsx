// Action forms generated from the engine's `actions`: one form per action, grouped by `group`,
// with a widget per parameter type and the choices the rules allow. Submitting calls `act`;
// refusals, bad parameters and script errors are shown beside the form.

import { useEffect, useMemo, useState } from "preact/hooks";
import { toReport } from "../transport";
import type { Store } from "../store";
import { mayTypeDice } from "../store";
import { CorrectionForm } from "./correct";
import type { ActionForm, Acted, Chance, Choices, ErrorReport, FormOdds, LogItem, ParamForm, ParamSpec as DeclaredSpec, ParamType, PostDraft, View } from "../contract";
import { names } from "../talk";

/** A parameter's spec, with the choices the table allows when the engine sent them. */
type ParamSpec = DeclaredSpec & { choices?: Choices | null };
import { humanize, show } from "../format";
import { ErrorBox } from "../ui/errors";

type Raw = string | boolean | string[] | RawRecord | RawRecord[];
interface RawRecord {
  [field: string]: Raw;
}

export function ActionsPanel({ store, actions, view, previewing }: { store: Store; actions: ActionForm[]; view: View; previewing: string | null }) {
  const [open, setOpen] = useState<string | null>(null);
  const [filter, setFilter] = useState("");
  const groups = useMemo(() => {
    const f = filter.trim().toLowerCase();
    const out = new Map<string, ActionForm[]>();
    for (const a of actions) {
      if (f && !a.label.toLowerCase().includes(f) && !a.name.toLowerCase().includes(f) && !(a.group ?? "").toLowerCase().includes(f)) continue;
      const g = a.group || "Actions";
      if (!out.has(g)) out.set(g, []);
      out.get(g)!.push(a);
    }
    return [...out.entries()];
  }, [actions, filter]);

  return (
    <div class="actions-panel">
      <h2 class="section-title">Actions{previewing && <span class="muted small"> as {previewing}</span>}</h2>
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
              <li key={a.name} class={`action ${open === a.name ? "open" : ""}`}>
                <button
                  type="button"
                  class="action-toggle"
                  aria-expanded={open === a.name}
                  aria-controls={`form-${a.name}`}
                  onClick={(e) => {
                    const opening = open !== a.name;
                    setOpen(opening ? a.name : null);
                    if (opening) {
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
                  {a.label}
                </button>
                {/* Kept mounted once opened so what was typed survives closing and live updates. */}
                <ActionFormView store={store} action={a} view={view} hidden={open !== a.name} />
              </li>
            ))}
          </ul>
        </section>
      ))}
      {store.state.role === "gm" && !previewing && Object.keys(view.entities).length > 0 && <CorrectionForm store={store} view={view} />}
    </div>
  );
}

function initial(spec: ParamSpec): Raw {
  const d = spec.default;
  switch (spec.type) {
    case "bool":
      if (typeof d === "boolean") return d;
      return spec.optional ? "" : false;
    case "record": {
      const r: RawRecord = {};
      for (const [k, f] of Object.entries(spec.fields ?? {})) r[k] = initial(f);
      return r;
    }
    case "list": {
      const of = itemSpec(spec);
      if (of.type === "record") return [];
      if (Array.isArray(d)) return closedList(spec) ? d.map(String) : d.map(String).join(", ");
      return closedList(spec) ? [] : "";
    }
    case "map":
      if (d && typeof d === "object") return Object.entries(d as Record<string, unknown>).map(([k, v]) => `${k}:${v}`).join(", ");
      return "";
    default:
      if (d !== undefined && d !== null) return String(d);
      return "";
  }
}

/** The item spec of a list or map (`of` may be a bare type name). */
function itemSpec(spec: ParamSpec): ParamSpec {
  const of = spec.of;
  if (!of) return { type: "text" };
  if (typeof of === "string") return { type: of as ParamType, entity: spec.entity, kind: spec.kind, kinds: spec.kinds, category: spec.category, options: spec.options };
  return of;
}

/** Lists picked from a closed set (traits, entities, options) are checkboxes. */
function closedList(spec: ParamSpec): boolean {
  const of = itemSpec(spec);
  return of.type === "trait" || of.type === "entity" || of.type === "choice";
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

function entityOptions(spec: ParamSpec, view: View): { id: string; name: string }[] {
  if (spec.choices && spec.choices.from === "entities") return spec.choices.values;
  const kinds = spec.kinds && spec.kinds.length ? spec.kinds : spec.kind ? [spec.kind] : null;
  return Object.values(view.entities)
    .filter((e) => !kinds || kinds.includes(e.kind))
    .map((e) => ({ id: e.id, name: e.name }));
}

function traitOptions(spec: ParamSpec, entityId: string, view: View): string[] {
  if (spec.choices && spec.choices.from === "traits") return spec.choices.by_entity[entityId] ?? [];
  const e = view.entities[entityId];
  if (!e) return [];
  return e.traits.filter((t) => !spec.category || t.category === spec.category).map((t) => t.name);
}

function optionValues(spec: ParamSpec): string[] {
  if (spec.choices && spec.choices.from === "options") return spec.choices.values;
  return spec.options ?? [];
}

function isEmpty(raw: Raw): boolean {
  if (raw === "" || raw === undefined || raw === null) return true;
  if (Array.isArray(raw)) return raw.length === 0;
  if (typeof raw === "object") return Object.values(raw).every(isEmpty);
  return false;
}

/** The value sent for one parameter as the user gave it (text, picked values, a record of
 * fields), or undefined to leave it out. The engine parses and checks it against the
 * parameter's type, and names the parameter when something is wrong. */
function convert(spec: ParamSpec, raw: Raw): unknown {
  if (spec.type === "bool") return raw === "" ? undefined : raw === true || raw === "true";
  if (isEmpty(raw)) return undefined;
  if (spec.type === "record") {
    const out: Record<string, unknown> = {};
    for (const [k, f] of Object.entries(spec.fields ?? {})) {
      const v = convert(f, (raw as RawRecord)[k] ?? initial(f));
      if (v !== undefined) out[k] = v;
    }
    return out;
  }
  if (spec.type === "list" && Array.isArray(raw)) {
    const of = itemSpec(spec);
    return of.type === "record" ? (raw as RawRecord[]).map((r) => convert(of, r) ?? {}) : raw;
  }
  return typeof raw === "string" && spec.type !== "text" ? raw.trim() : raw;
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
  const [raw, setValues] = useState<RawRecord>(() => initialValues(action));
  let values = effective(action, raw, view);
  if (post) {
    const text = post.text;
    values = Object.fromEntries(action.params.map((p) => [p.name, onlyNarrated(p, values[p.name] ?? initial(p), text)]));
  }
  const [dice, setDice] = useState("");
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<ErrorReport | null>(null);
  const [done, setDone] = useState<Acted | null>(null);
  const [touched, setTouched] = useState(false);
  const formId = `${idPrefix}form-${action.name}`;
  const titleId = `${formId}-title`;

  if (hidden && !touched) return null;

  const badParam = error?.param ? error.param.split(/[.[]/)[0] : null;

  function sent(): Record<string, unknown> {
    const params: Record<string, unknown> = {};
    for (const p of action.params) {
      const v = convert(p, values[p.name] ?? initial(p));
      if (v !== undefined) params[p.name] = v;
    }
    return params;
  }

  async function submit(e: Event) {
    e.preventDefault();
    setError(null);
    setDone(null);
    if (post && !post.text.trim()) {
      setError({ code: "bad_param", param: "post", message: "Write the post first: it goes into the log with the action." });
      return;
    }
    const params = sent();
    setBusy(true);
    try {
      const outcome = await store.act(action.name, params, dice.trim() || null, post ?? null);
      setDone(outcome);
      onActed?.(outcome);
      // Start afresh, but keep who/what was picked: the next roll is usually for the same one.
      const next = initialValues(action);
      for (const p of action.params) if (p.type === "entity") next[p.name] = values[p.name];
      setValues(next);
      setDice("");
    } catch (err) {
      setError(toReport(err));
    } finally {
      setBusy(false);
    }
  }

  const ctx: Ctx = { view, siblings: values, narration: post ? post.text : undefined };
  return (
    <form id={formId} class="action-form" aria-labelledby={titleId} hidden={hidden} onSubmit={submit} noValidate>
      <span id={titleId} class="visually-hidden">
        {post ? `${action.label} with your post` : action.label}
      </span>
      {action.help && <p class="help action-help">{action.help}</p>}
      {action.params.map((p) => (
        <ParamField
          key={p.name}
          spec={p}
          name={p.name}
          path={`${idPrefix}${action.name}-${p.name}`}
          raw={values[p.name] ?? initial(p)}
          onChange={(v) => {
            setTouched(true);
            setValues((old) => ({ ...old, [p.name]: v }));
          }}
          ctx={ctx}
          invalid={badParam === p.name ? error?.message ?? null : null}
        />
      ))}
      {mayTypeDice(store.state) ? (
      <div class="field dice-field">
        <label for={`${formId}-dice`} class="field-label">
          Dice rolled by hand <span class="muted small">(optional)</span>
        </label>
        <input
          id={`${formId}-dice`}
          value={dice}
          inputMode="text"
          spellcheck={false}
          placeholder="e.g. 6, 4, 1 — Fudge: +, -, 0"
          aria-describedby={`${formId}-dice-help`}
          aria-invalid={badParam === "dice" ? "true" : undefined}
          onInput={(e) => {
            setTouched(true);
            setDice(e.currentTarget.value);
          }}
        />
        <span id={`${formId}-dice-help`} class="help">
          Leave empty to let Houserule roll. Faces are used in order and marked “by hand” in the log.
        </span>
      </div>
      ) : (
        <p class="help dice-note">Houserule rolls your dice. The GM can let you type in dice you roll by hand.</p>
      )}
      {action.odds && !hidden && <OddsLine store={store} action={action.name} params={sent()} view={view} />}
      <div class="form-actions">
        <button type="submit" class="primary" disabled={busy} aria-busy={busy}>
          {busy ? (
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
      {error && <ErrorBox error={error} />}
      {done && (
        <div class="notice success" role="status">
          <strong class="notice-title">Done</strong>
          {sayLines(done).map((l, i) => (
            <p key={i} class="narration">
              {l}
            </p>
          ))}
          {done.result !== null && done.result !== undefined && typeof done.result === "object" && Object.keys(done.result as object).length > 0 && (
            <p class="muted small">{show(done.result, view)}</p>
          )}
        </div>
      )}
    </form>
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
      {odds.refused && <p class="odds-refused">{odds.refused}</p>}
    </div>
  );
}

interface Ctx {
  view: View;
  /** The values next to this parameter (the form's, or the record's), for `entity` references. */
  siblings: RawRecord;
  /** The text of the post carrying the action: lists of traits offer only the traits it names. */
  narration?: string;
}

function ParamField({
  spec,
  name,
  path,
  raw,
  onChange,
  ctx,
  invalid,
}: {
  spec: ParamSpec | ParamForm;
  name: string;
  path: string;
  raw: Raw;
  onChange: (v: Raw) => void;
  ctx: Ctx;
  invalid: string | null;
}) {
  const label = spec.label || humanize(name);
  const helpId = `${path}-help`;
  const optional = spec.optional || spec.default !== undefined;
  const listOfText = (spec.type === "list" && !closedList(spec) && itemSpec(spec).type !== "record") || spec.type === "map";
  const helpText = [
    spec.help,
    spec.secret ? "Secret: only you and the GM see it." : null,
    listOfText && spec.help ? (spec.type === "map" ? "Pairs like name:value, separated by commas." : "Separate items with commas.") : null,
  ]
    .filter((x): x is string => Boolean(x))
    .map((x) => (/[.!?)]$/.test(x) ? x : `${x}.`))
    .join(" ");
  const help = helpText ? (
    <span id={helpId} class="help">
      {helpText}
    </span>
  ) : null;
  const inputId = `f-${path}`.replace(/[^A-Za-z0-9_-]/g, "_");
  const marks = (
    <>
      {!optional && (
        <span class="required" aria-hidden="true" title="required">
          *
        </span>
      )}
      {spec.secret && <span class="secret-badge">secret</span>}
    </>
  );
  const labelText = (
    <span class="label-line">
      <label for={inputId} class="field-label">
        {label}
      </label>
      {marks}
    </span>
  );
  const legendText = (
    <span class="label-line">
      <span class="field-label">{label}</span>
      {marks}
    </span>
  );
  const common = {
    id: inputId,
    "aria-describedby": helpText ? helpId : undefined,
    "aria-invalid": invalid ? ("true" as const) : undefined,
  };
  const problem = invalid ? <span class="field-error">{invalid}</span> : null;

  switch (spec.type) {
    case "bool":
      if (raw === "" || (spec.optional && typeof raw === "string")) {
        return (
          <div class="field">
            {labelText}
            <select value={String(raw)} onChange={(e) => onChange(e.currentTarget.value)} {...common}>
              <option value="">—</option>
              <option value="true">yes</option>
              <option value="false">no</option>
            </select>
            {help}
            {problem}
          </div>
        );
      }
      return (
        <div class="field check">
          <input type="checkbox" checked={raw === true} onChange={(e) => onChange(e.currentTarget.checked)} {...common} />
          {labelText}
          {help}
          {problem}
        </div>
      );
    case "int":
      return (
        <div class="field">
          {labelText}
          <input
            type="number"
            step={1}
            min={spec.min ?? undefined}
            max={spec.max ?? undefined}
            value={raw as string}
            placeholder={spec.min !== null && spec.min !== undefined && spec.max !== null && spec.max !== undefined ? `${spec.min}–${spec.max}` : undefined}
            onInput={(e) => onChange(e.currentTarget.value)}
            {...common}
          />
          {help}
          {problem}
        </div>
      );
    case "choice": {
      const opts = optionValues(spec);
      return (
        <div class="field">
          {labelText}
          <select value={raw as string} onChange={(e) => onChange(e.currentTarget.value)} {...common}>
            {(optional || raw === "") && <option value="">{optional ? "—" : "Choose…"}</option>}
            {opts.map((o) => (
              <option key={o} value={o}>
                {humanize(o)}
              </option>
            ))}
          </select>
          {help}
          {problem}
        </div>
      );
    }
    case "entity": {
      const opts = entityOptions(spec, ctx.view);
      return (
        <div class="field">
          {labelText}
          <select value={raw as string} onChange={(e) => onChange(e.currentTarget.value)} {...common}>
            <option value="">{optional ? "—" : opts.length ? "Choose…" : "Nothing to choose yet"}</option>
            {opts.map((o) => (
              <option key={o.id} value={o.id}>
                {o.name}
              </option>
            ))}
            {raw && !opts.some((o) => o.id === raw) && <option value={raw as string}>{raw as string}</option>}
          </select>
          {help}
          {problem}
        </div>
      );
    }
    case "trait": {
      const owner = spec.entity ? (ctx.siblings[spec.entity] as string) : "";
      const opts = owner ? traitOptions(spec, owner, ctx.view) : [];
      return (
        <div class="field">
          {labelText}
          <select value={raw as string} disabled={!owner} onChange={(e) => onChange(e.currentTarget.value)} {...common}>
            <option value="">{!owner ? `Choose the ${humanize(spec.entity ?? "entity").toLowerCase()} first` : optional ? "—" : "Choose…"}</option>
            {opts.map((o) => (
              <option key={o} value={o}>
                {o}
              </option>
            ))}
          </select>
          {help}
          {problem}
        </div>
      );
    }
    case "pool": {
      const pools = [...Object.keys(ctx.view.pools), ...Object.values(ctx.view.entities).flatMap((e) => Object.keys(e.pools).map((p) => `${e.id}.${p}`))];
      const listId = `${path}-pools`;
      return (
        <div class="field">
          {labelText}
          <input value={raw as string} list={listId} onInput={(e) => onChange(e.currentTarget.value)} placeholder="pool or entity.pool" {...common} />
          <datalist id={listId}>
            {pools.map((p) => (
              <option key={p} value={p} />
            ))}
          </datalist>
          {help}
          {problem}
        </div>
      );
    }
    case "record":
      return (
        <fieldset class="record" {...common}>
          <legend>{legendText}</legend>
          {help}
          <RecordFields spec={spec} path={path} raw={raw as RawRecord} onChange={onChange} ctx={ctx} />
          {problem}
        </fieldset>
      );
    case "list":
      return <ListField spec={spec} label={labelText} legend={legendText} help={help} path={path} raw={raw} onChange={onChange} ctx={ctx} common={common} problem={problem} />;
    case "map":
      return (
        <div class="field">
          {labelText}
          <input value={raw as string} placeholder="name:value, name:value" onInput={(e) => onChange(e.currentTarget.value)} {...common} />
          {help}
          {!help && <span class="help">Pairs like name:value, separated by commas.</span>}
          {problem}
        </div>
      );
    default:
      return (
        <div class="field">
          {labelText}
          {spec.type === "text" && (spec.max_len ?? 0) > 200 ? (
            <textarea value={raw as string} maxLength={spec.max_len ?? undefined} rows={3} onInput={(e) => onChange(e.currentTarget.value)} {...common} />
          ) : (
            <input
              value={raw as string}
              maxLength={spec.max_len ?? undefined}
              placeholder={spec.type === "dice" ? "e.g. 2d6+1" : undefined}
              spellcheck={spec.type !== "dice"}
              onInput={(e) => onChange(e.currentTarget.value)}
              {...common}
            />
          )}
          {help}
          {problem}
        </div>
      );
  }
}

function RecordFields({ spec, path, raw, onChange, ctx }: { spec: ParamSpec; path: string; raw: RawRecord; onChange: (v: Raw) => void; ctx: Ctx }) {
  const inner: Ctx = { view: ctx.view, siblings: { ...ctx.siblings, ...raw }, narration: ctx.narration };
  return (
    <div class="record-fields">
      {Object.entries(spec.fields ?? {}).map(([k, f]) => (
        <ParamField key={k} spec={f} name={k} path={`${path}-${k}`} raw={raw[k] ?? initial(f)} onChange={(v) => onChange({ ...raw, [k]: v })} ctx={inner} invalid={null} />
      ))}
    </div>
  );
}

function ListField({
  spec,
  label,
  legend,
  help,
  path,
  raw,
  onChange,
  ctx,
  common,
  problem,
}: {
  spec: ParamSpec;
  label: preact.JSX.Element;
  legend: preact.JSX.Element;
  help: preact.JSX.Element | null;
  path: string;
  raw: Raw;
  onChange: (v: Raw) => void;
  ctx: Ctx;
  common: Record<string, string | undefined>;
  problem: preact.JSX.Element | null;
}) {
  const of = itemSpec(spec);
  const max = spec.max_items ?? null;

  if (of.type === "record") {
    const rows = raw as RawRecord[];
    return (
      <fieldset class="list-records" {...common}>
        <legend>{legend}</legend>
        {help}
        {rows.map((r, i) => (
          <div key={i} class="list-record">
            <RecordFields spec={of} path={`${path}-${i}`} raw={r} onChange={(v) => onChange(rows.map((x, j) => (j === i ? (v as RawRecord) : x)))} ctx={ctx} />
            <button type="button" class="small" onClick={() => onChange(rows.filter((_, j) => j !== i))}>
              Remove {i + 1}
            </button>
          </div>
        ))}
        <button type="button" class="small" disabled={max !== null && rows.length >= max} onClick={() => onChange([...rows, initial(of) as RawRecord])}>
          Add one
        </button>
        {problem}
      </fieldset>
    );
  }

  if (closedList(spec)) {
    const picked = raw as string[];
    let opts: { value: string; label: string }[] = [];
    let empty = "Nothing to choose yet";
    let narrated = false;
    if (of.type === "trait") {
      const ownerParam = (spec.choices && spec.choices.from === "traits" ? spec.choices.entity : null) ?? of.entity ?? spec.entity;
      const owner = ownerParam ? (ctx.siblings[ownerParam] as string) : "";
      opts = owner ? traitOptions(spec.choices ? spec : of, owner, ctx.view).map((t) => ({ value: t, label: t })) : [];
      if (!owner) empty = `Choose the ${humanize(ownerParam ?? "entity").toLowerCase()} first`;
      if (owner && ctx.narration !== undefined) {
        const narration = ctx.narration;
        opts = opts.filter((o) => names(narration, o.value));
        if (!opts.length) empty = `Name one of ${ctx.view.entities[owner]?.name ?? "their"}'s traits in your post to roll it.`;
        narrated = true;
      }
    } else if (of.type === "entity") {
      opts = entityOptions(spec.choices ? spec : of, ctx.view).map((e) => ({ value: e.id, label: e.name }));
    } else {
      opts = optionValues(spec.choices ? spec : of).map((o) => ({ value: o, label: humanize(o) }));
    }
    const toggle = (v: string, on: boolean) => onChange(on ? [...picked.filter((x) => x !== v), v] : picked.filter((x) => x !== v));
    return (
      <fieldset class="multi" {...common}>
        <legend>{legend}</legend>
        {opts.length === 0 ? (
          <p class="muted small">{empty}</p>
        ) : (
          <div class="chips">
            {opts.map((o) => (
              <label key={o.value} class={`chip-check ${picked.includes(o.value) ? "on" : ""}`}>
                <input type="checkbox" checked={picked.includes(o.value)} onChange={(e) => toggle(o.value, e.currentTarget.checked)} />
                {o.label}
              </label>
            ))}
          </div>
        )}
        {narrated && opts.length > 0 && <span class="help">The traits your post names.</span>}
        {help}
        {problem}
      </fieldset>
    );
  }

  return (
    <div class="field">
      {label}
      <input value={raw as string} placeholder="comma-separated" onInput={(e) => onChange(e.currentTarget.value)} {...common} />
      {help}
      {!help && <span class="help">Separate items with commas.</span>}
      {problem}
    </div>
  );
}
