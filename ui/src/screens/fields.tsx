// The widgets of an action form's parameters: one per parameter type (text, numbers, yes/no,
// choices, entities, traits, pools, records, lists and maps), with the choices the rules allow,
// what each starts as, and what each sends to the engine. A parameter that belongs to some
// choices only (`only_when`) is shown, checked and sent only while its condition holds, as the
// engine reads it (`applies`).

import { useEffect, useRef, useState } from "preact/hooks";
import type { Choices, ParamForm, ParamSpec as DeclaredSpec, ParamType, View } from "../contract";
import { names } from "../talk";
import { humanize } from "../format";

/** A parameter's spec, with the choices the table allows when the engine sent them. */
export type ParamSpec = DeclaredSpec & { choices?: Choices | null };

export type Raw = string | boolean | string[] | RawRecord | RawRecord[];
export interface RawRecord {
  [field: string]: Raw;
}

export function initial(spec: ParamSpec): Raw {
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

/** The value a choice or a yes/no decides with, as the engine reads it: what was picked, else
 * its default; none when it is left empty. */
function deciding(spec: ParamSpec, raw: Raw): string | boolean | null {
  const blank = raw === "" || raw === undefined || raw === null;
  const v = blank ? spec.default : raw;
  if (spec.type === "bool") return v === true || v === "true" ? true : v === false || v === "false" ? false : null;
  return typeof v === "string" && v.trim() !== "" ? v.trim() : null;
}

/** Whether the parameter `name` of `group` applies with the `values` beside it: it has no
 * condition, or the parameter its condition names applies and holds one of the values named
 * (choices read without capitals). The engine refuses a value for one that does not apply. */
export function applies(name: string, group: Record<string, ParamSpec>, values: RawRecord, seen: string[] = []): boolean {
  const cond = group[name]?.only_when;
  if (!cond) return true;
  const by = group[cond.param];
  if (!by || seen.includes(cond.param)) return true;
  if (!applies(cond.param, group, values, [...seen, name])) return false;
  const v = deciding(by, values[cond.param] ?? initial(by));
  return cond.is.some((x) => (typeof x === "string" && typeof v === "string" ? x.toLowerCase() === v.toLowerCase() : x === v));
}

/** An action's parameters by name, for `applies`. */
export function byName(params: (ParamSpec & { name: string })[]): Record<string, ParamSpec> {
  return Object.fromEntries(params.map((p) => [p.name, p]));
}

/** The item spec of a list or map (`of` may be a bare type name). */
export function itemSpec(spec: ParamSpec): ParamSpec {
  const of = spec.of;
  if (!of) return { type: "text" };
  if (typeof of === "string") return { type: of as ParamType, entity: spec.entity, kind: spec.kind, kinds: spec.kinds, category: spec.category, options: spec.options };
  return of;
}

/** Lists picked from a closed set (traits, entities, options) are checkboxes. */
export function closedList(spec: ParamSpec): boolean {
  const of = itemSpec(spec);
  return of.type === "trait" || of.type === "entity" || of.type === "choice";
}

export function entityOptions(spec: ParamSpec, view: View): { id: string; name: string }[] {
  if (spec.choices && spec.choices.from === "entities") return spec.choices.values;
  const kinds = spec.kinds && spec.kinds.length ? spec.kinds : spec.kind ? [spec.kind] : null;
  return Object.values(view.entities)
    .filter((e) => !kinds || kinds.includes(e.kind))
    .map((e) => ({ id: e.id, name: e.name }));
}

/** The players a `player` parameter offers: the table's, as the rules list them. */
export function playerOptions(spec: ParamSpec, view: View): string[] {
  if (spec.choices && spec.choices.from === "players") return spec.choices.values;
  return [...new Set(Object.values(view.entities).flatMap((e) => (e.owner ? [e.owner] : [])))].sort();
}

const NEW_PLAYER = "\u0000new";

/** A player parameter: one of the table's players, or someone new typed in (said so plainly,
 * so "Ann" for "ann" is not a silent new player). */
function PlayerPicker({
  known,
  raw,
  onChange,
  labelText,
  help,
  problem,
  common,
  optional,
}: {
  known: string[];
  raw: string;
  onChange: (v: Raw) => void;
  labelText: preact.JSX.Element;
  help: preact.JSX.Element | null;
  problem: preact.JSX.Element | null;
  common: { id: string; "aria-describedby"?: string; "aria-invalid"?: "true" };
  optional: boolean;
}) {
  const [typing, setTyping] = useState(raw !== "" && !known.includes(raw));
  // A form that starts afresh after sending clears the name: back to the list then, but not
  // when the GM has just picked "Someone new…" (which clears it too).
  const before = useRef(raw);
  const picked = useRef(false);
  useEffect(() => {
    if (raw === "" && before.current !== "" && !picked.current) setTyping(false);
    picked.current = false;
    before.current = raw;
  }, [raw]);
  const close = typing ? known.find((k) => k.toLowerCase() === raw.trim().toLowerCase() && k !== raw.trim()) : undefined;
  return (
    <div class="field player-field">
      {labelText}
      <select
        value={typing ? NEW_PLAYER : raw}
        onChange={(e) => {
          const v = e.currentTarget.value;
          picked.current = true;
          setTyping(v === NEW_PLAYER);
          onChange(v === NEW_PLAYER ? "" : v);
        }}
        {...common}
      >
        <option value="">{optional ? "—" : "Choose…"}</option>
        {known.map((k) => (
          <option key={k} value={k}>
            {k}
          </option>
        ))}
        <option value={NEW_PLAYER}>Someone new…</option>
      </select>
      {typing && (
        <>
          <input
            id={`${common.id}-new`}
            value={raw}
            placeholder="the new player's name"
            autoComplete="off"
            onInput={(e) => onChange(e.currentTarget.value)}
            aria-label="New player's name"
            aria-invalid={common["aria-invalid"]}
          />
          {close ? (
            <span class="field-error" role="status">
              {close} already plays here: pick {close} above, or this makes a new player “{raw.trim()}” who owns nothing yet.
            </span>
          ) : (
            raw.trim() && <span class="help">A new player: they join with a link you make for “{raw.trim()}”.</span>
          )}
        </>
      )}
      {help}
      {problem}
    </div>
  );
}

export function traitOptions(spec: ParamSpec, entityId: string, view: View): string[] {
  if (spec.choices && spec.choices.from === "traits") return spec.choices.by_entity[entityId] ?? [];
  const e = view.entities[entityId];
  if (!e) return [];
  return e.traits.filter((t) => !spec.category || t.category === spec.category).map((t) => t.name);
}

export function optionValues(spec: ParamSpec): string[] {
  if (spec.choices && spec.choices.from === "options") return spec.choices.values;
  return spec.options ?? [];
}

export function isEmpty(raw: Raw): boolean {
  if (raw === "" || raw === undefined || raw === null) return true;
  if (Array.isArray(raw)) return raw.length === 0;
  if (typeof raw === "object") return Object.values(raw).every(isEmpty);
  return false;
}

/** The value sent for one parameter as the user gave it (text, picked values, a record of
 * fields), or undefined to leave it out. The engine parses and checks it against the
 * parameter's type, and names the parameter when something is wrong. */
export function convert(spec: ParamSpec, raw: Raw): unknown {
  if (spec.type === "bool") return raw === "" ? undefined : raw === true || raw === "true";
  if (isEmpty(raw)) return undefined;
  if (spec.type === "record") {
    const out: Record<string, unknown> = {};
    for (const [k, f] of Object.entries(spec.fields ?? {})) {
      if (!applies(k, spec.fields ?? {}, raw as RawRecord)) continue;
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

/** Required: neither optional nor with a default (the engine says "is required" without it). */
export function isRequired(spec: ParamSpec | ParamForm): boolean {
  return !spec.optional && spec.default === undefined;
}

/** The label a field shows: the rules' own, or one made from the parameter's name. */
export function paramLabel(spec: ParamSpec | ParamForm, name: string): string {
  return spec.label || humanize(name);
}

/** Whether a required parameter is left empty as it would be sent (blank text counts). */
export function isMissing(spec: ParamSpec, raw: Raw): boolean {
  if (!isRequired(spec)) return false;
  const v = convert(spec, raw);
  return v === undefined || (typeof v === "string" && v.trim() === "");
}

/** Whether a parameter picks traits of the entity named by the parameter `owner` (so a new
 * owner makes its picks meaningless). */
export function picksTraitsOf(spec: ParamSpec, owner: string): boolean {
  if (spec.type === "trait") return spec.entity === owner;
  if (spec.type !== "list" || !closedList(spec)) return false;
  const of = itemSpec(spec);
  if (of.type !== "trait") return false;
  return ((spec.choices && spec.choices.from === "traits" ? spec.choices.entity : null) ?? of.entity ?? spec.entity) === owner;
}

/** The id of a parameter's input (or fieldset), for labels and for focusing it. */
export function inputId(path: string): string {
  return `f-${path}`.replace(/[^A-Za-z0-9_-]/g, "_");
}

export interface Ctx {
  view: View;
  /** The values next to this parameter (the form's, or the record's), for `entity` references. */
  siblings: RawRecord;
  /** The text of the post carrying the action: lists of traits offer only the traits it names. */
  narration?: string;
}

export function ParamField({
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
  const label = paramLabel(spec, name);
  const helpId = `${path}-help`;
  const errorId = `${path}-error`;
  const optional = !isRequired(spec);
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
  const id = inputId(path);
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
      <label for={id} class="field-label">
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
    id,
    "aria-describedby": [invalid ? errorId : null, helpText ? helpId : null].filter(Boolean).join(" ") || undefined,
    "aria-invalid": invalid ? ("true" as const) : undefined,
  };
  const problem = invalid ? (
    <span id={errorId} class="field-error">
      {invalid}
    </span>
  ) : null;

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
    case "player":
      return (
        <PlayerPicker known={playerOptions(spec, ctx.view)} raw={raw as string} onChange={onChange} labelText={labelText} help={help} problem={problem} common={common} optional={optional} />
      );
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
      {Object.entries(spec.fields ?? {})
        .filter(([k]) => applies(k, spec.fields ?? {}, raw))
        .map(([k, f]) => (
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
