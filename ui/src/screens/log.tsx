// The log, newest first: every die face as a chip (successes, criticals, complications and
// aces highlighted; dropped dice struck; typed-in dice labelled "by hand"), the narration,
// public changes, and what the viewer may only know exists. Events the GM undid stay, struck
// through and marked voided; for the GM the latest action that can still be taken back has an
// Undo button.

import { useState } from "preact/hooks";
import type { ErrorReport } from "../contract";
import { toReport } from "../transport";
import { ErrorBox } from "../ui/errors";
import type { Change, Die, LogEntry, LogItem, Manifest, Roll, View } from "../contract";
import { fieldLabel, humanize, kindLabel, roleName, show, time } from "../format";

export function LogPanel({
  log,
  view,
  manifest,
  labels,
  hasOlder,
  onOlder,
  onUndo,
}: {
  log: LogEntry[];
  view: View;
  manifest: Manifest | null;
  labels: Record<string, string>;
  hasOlder: boolean;
  onOlder: () => Promise<void>;
  /** The GM's: takes back the latest action not yet undone. */
  onUndo?: () => Promise<void>;
}) {
  const [loading, setLoading] = useState(false);
  const entries = [...log].reverse();
  const undoable = onUndo ? entries.find((e) => (e.kind === "action" || e.kind === "correction") && e.voided_by == null) : undefined;
  return (
    <div class="log-panel">
      <h2 class="section-title">Log</h2>
      <ol class="log" aria-label="Log" aria-live="polite" reversed>
        {entries.map((e) => (
          <LogEntryView key={e.seq} entry={e} view={view} manifest={manifest} labels={labels} onUndo={e === undoable ? onUndo : undefined} />
        ))}
      </ol>
      {hasOlder && (
        <button
          type="button"
          class="older"
          disabled={loading}
          onClick={async () => {
            setLoading(true);
            try {
              await onOlder();
            } finally {
              setLoading(false);
            }
          }}
        >
          {loading ? (
            <>
              <span class="spinner" /> Loading…
            </>
          ) : (
            "Show older entries"
          )}
        </button>
      )}
      {!hasOlder && log.length > 0 && <p class="muted small log-start">The start of the campaign.</p>}
    </div>
  );
}

function entryTitle(entry: LogEntry, labels: Record<string, string>, manifest: Manifest | null): string {
  switch (entry.kind) {
    case "created":
      return `Campaign created${manifest ? ` on ${manifest.name}` : ""}`;
    case "reload":
      return "Rules changed";
    case "reveal":
      return "Dice seed revealed";
    case "permission":
      return "Table permission changed";
    case "undo":
      return "Undone";
    case "correction":
      return "GM correction";
    default:
      return entry.action ? labels[entry.action] ?? humanize(entry.action) : "Action";
  }
}

function UndoButton({ entry, onUndo }: { entry: LogEntry; onUndo: () => Promise<void> }) {
  const [asking, setAsking] = useState(false);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<ErrorReport | null>(null);
  if (!asking)
    return (
      <button type="button" class="small undo" onClick={() => setAsking(true)}>
        Undo
      </button>
    );
  return (
    <span class="undo-confirm" role="group" aria-label={`Undo #${entry.seq}`}>
      <span>Take #{entry.seq} back? It stays in the log, voided.</span>
      <button
        type="button"
        class="small danger"
        disabled={busy}
        onClick={async () => {
          setBusy(true);
          setError(null);
          try {
            await onUndo();
            setAsking(false);
          } catch (e) {
            setError(toReport(e));
          } finally {
            setBusy(false);
          }
        }}
      >
        Yes, undo it
      </button>
      <button type="button" class="small" disabled={busy} onClick={() => setAsking(false)}>
        Keep it
      </button>
      {error && <ErrorBox error={error} />}
    </span>
  );
}

function LogEntryView({
  entry,
  view,
  manifest,
  labels,
  onUndo,
}: {
  entry: LogEntry;
  view: View;
  manifest: Manifest | null;
  labels: Record<string, string>;
  onUndo?: () => Promise<void>;
}) {
  const params = entry.items.filter((i): i is Extract<LogItem, { type: "param" }> => i.type === "param" && i.value !== null && i.value !== undefined);
  const changes = entry.items.filter((i): i is Extract<LogItem, { type: "change" }> => i.type === "change");
  const body = entry.items.filter((i) => i.type !== "param" && i.type !== "change" && i.type !== "hidden");
  const hidden = entry.items.filter((i): i is Extract<LogItem, { type: "hidden" }> => i.type === "hidden");
  return (
    <li class={`log-entry kind-${entry.kind}${entry.voided_by != null ? " voided" : ""}`} data-seq={entry.seq}>
      <header class="log-head">
        <span class="log-title">{entryTitle(entry, labels, manifest)}</span>
        {entry.voided_by != null && <span class="voided-badge">voided: undone by #{entry.voided_by}</span>}
        <span class="log-meta">
          {entry.actor && <span class="actor">{roleName(entry.actor)}</span>}
          <time dateTime={entry.at} title={`#${entry.seq} · ${entry.at}`}>
            {time(entry.at)}
          </time>
        </span>
      </header>
      {params.length > 0 && (
        <p class="log-params">
          {params.map((p, i) => (
            <span key={i} class="param">
              <span class="param-name">{humanize(p.name)}</span> {show(p.value, view)}
              {p.visibility !== "public" && <Vis v={p.visibility} />}
            </span>
          ))}
        </p>
      )}
      {body.map((item, i) => {
        if (item.type === "roll") return <RollView key={i} roll={item.roll} secret={item.visibility} />;
        if (item.type === "say")
          return (
            <p key={i} class="narration">
              {item.text}
              {item.visibility !== "public" && <Vis v={item.visibility} />}
            </p>
          );
        if (item.type === "result") return <ResultView key={i} value={item.value} view={view} />;
        return null;
      })}
      {hidden.length > 0 && (
        <p class="hidden-items">
          {hidden.map((h, i) => (
            <span key={i} class="hidden-item" title="Something you may not see">
              <span aria-hidden="true">🔒</span> {(h as { hidden: string }).hidden}
            </span>
          ))}
        </p>
      )}
      {changes.length > 0 && <Changes changes={changes.map((c) => c.change)} view={view} manifest={manifest} />}
      {onUndo && <UndoButton entry={entry} onUndo={onUndo} />}
    </li>
  );
}

function Vis({ v }: { v: string }) {
  return <span class="secret-badge">{v === "gm" ? "GM only" : v === "owner" ? "owner and GM" : v}</span>;
}

function ResultView({ value, view }: { value: unknown; view: View }) {
  if (value === null || value === undefined) return null;
  if (typeof value === "object" && !Array.isArray(value) && Object.keys(value as object).length === 0) return null;
  return (
    <p class="result">
      <span class="muted">Result:</span> {show(value, view)}
    </p>
  );
}

const MARKS = ["critical", "complication", "ace"];

function dieFace(d: Die): string {
  if (d.sides === "dF") return d.face > 0 ? "+" : d.face < 0 ? "−" : "0";
  return String(d.face);
}

function dieDescription(d: Die): string {
  const parts = [`${d.sides} ${dieFace(d)}`];
  if (d.success === true) parts.push("success");
  for (const m of d.marks ?? []) parts.push(m);
  if (d.kept === false) parts.push("dropped");
  if (d.exploded) parts.push("exploded");
  if (d.bonus) parts.push("bonus die");
  return parts.join(", ");
}

export function DieChip({ die }: { die: Die }) {
  const cls = ["die", `die-${die.sides.replace("%", "pct")}`];
  if (die.success === true) cls.push("success");
  if (die.success === false) cls.push("failure");
  if (die.kept === false) cls.push("dropped");
  if (die.exploded) cls.push("exploded");
  if (die.bonus) cls.push("bonus");
  for (const m of die.marks ?? []) cls.push(MARKS.includes(m) ? m : "marked");
  return (
    <li class={cls.join(" ")} title={dieDescription(die)} aria-label={dieDescription(die)}>
      {die.kept === false ? <s>{dieFace(die)}</s> : dieFace(die)}
    </li>
  );
}

function RollView({ roll, secret }: { roll: Roll; secret: string }) {
  const forced = roll.source === "forced";
  const allDice = roll.terms.flatMap((t) => t.dice ?? []);
  const marks = [...new Set(allDice.flatMap((d) => d.marks ?? []))];
  const constant = roll.terms.filter((t) => !t.dice || t.dice.length === 0);
  return (
    <div class={`roll ${forced ? "forced" : ""}`}>
      <div class="roll-head">
        <span class="roll-label">{roll.label ? humanize(roll.label) : "Roll"}</span>
        <code class="roll-expr">{roll.expr}</code>
        {forced && (
          <span class="by-hand" title="Faces typed in, not rolled by Houserule">
            by hand
          </span>
        )}
        {secret !== "public" && <Vis v={secret} />}
      </div>
      <div class="roll-body">
        <ul class="dice" aria-label={`${roll.label ? humanize(roll.label) : "Roll"} dice: ${allDice.map(dieFace).join(", ")}`}>
          {allDice.map((d, i) => (
            <DieChip key={i} die={d} />
          ))}
        </ul>
        {constant.map((t, i) => (
          <span key={i} class="roll-constant">
            {t.term}
          </span>
        ))}
        <span class="roll-total">
          {roll.successes !== null && roll.successes !== undefined ? (
            <>
              <strong>{roll.successes}</strong> {roll.successes === 1 ? "success" : "successes"}
            </>
          ) : (
            <>
              = <strong>{roll.total}</strong>
            </>
          )}
        </span>
        {marks.map((m) => (
          <span key={m} class={`mark-note ${m}`}>
            {humanize(m)}
          </span>
        ))}
      </div>
    </div>
  );
}

function changeText(c: Change, view: View, manifest: Manifest | null): string | null {
  const name = (id: unknown) => (typeof id === "string" ? view.entities[id]?.name ?? id : String(id));
  const kindOf = (id: unknown) => (typeof id === "string" ? view.entities[id]?.kind : undefined);
  switch (c.op) {
    case "create": {
      const e = c.entity as { name: string; kind: string; owner?: string | null };
      return `${e.name} (${kindLabel(manifest, e.kind)}) is on the table${e.owner ? `, played by ${e.owner}` : ""}`;
    }
    case "remove":
      return `${name(c.id)} leaves the table`;
    case "rename":
      return `${name(c.id)} is now called ${c.name}`;
    case "set_owner":
      return `${name(c.id)} is now played by ${c.owner ?? "the GM"}`;
    case "set_visibility":
      return `${name(c.id)} is now ${c.visibility === "public" ? "seen by everyone" : `seen by: ${c.visibility}`}`;
    case "field": {
      const kind = kindOf(c.entity);
      const label = kind ? fieldLabel(manifest, kind, c.field as string) : humanize(c.field as string);
      return "value" in c && c.value !== undefined ? `${name(c.entity)} · ${label}: ${show(c.value, view)}` : `${name(c.entity)} · ${label} cleared`;
    }
    case "trait": {
      const t = c.trait as { name: string; rating?: number | null; state?: string; uses?: number };
      const bits = [t.rating !== null && t.rating !== undefined ? `rating ${t.rating}` : null, t.state && t.state !== "active" ? t.state : null, t.uses ? `used ${t.uses}×` : null].filter(Boolean);
      return `${name(c.entity)} · trait ${t.name}${bits.length ? ` (${bits.join(", ")})` : ""}`;
    }
    case "remove_trait":
      return `${name(c.entity)} loses trait ${c.name}`;
    case "pool": {
      const total = (m: unknown) => Object.values((m ?? {}) as Record<string, number>).reduce((a, b) => a + b, 0);
      const ref = String(c.pool);
      const [owner, pool] = ref.includes(".") ? ref.split(".", 2) : [null, ref];
      const label = owner ? `${name(owner)} · ${humanize(pool)}` : view.pools[pool]?.label ?? humanize(pool);
      return `${label}: ${total(c.before)} → ${total(c.after)}`;
    }
    case "define_pool":
      return `Pool ${c.pool} set up`;
    case "remove_pool":
      return `Pool ${c.pool} removed`;
    case "typed_dice":
      return c.allowed ? `${c.player} may type in their own dice` : `${c.player} rolls with the table's dice`;
    case "var":
      return `${humanize(c.name as string)}: ${show(c.value, view)}`;
    case "round":
      return `Round ${c.round}`;
    case "setting":
      return `Setting ${humanize(c.key as string)}: ${show(c.value, view)}`;
    default:
      return null;
  }
}

function Changes({ changes, view, manifest }: { changes: Change[]; view: View; manifest: Manifest | null }) {
  const lines = changes.map((c) => changeText(c, view, manifest)).filter((l): l is string => Boolean(l));
  if (!lines.length) return null;
  const list = (
    <ul class="changes">
      {lines.map((l, i) => (
        <li key={i}>{l}</li>
      ))}
    </ul>
  );
  if (lines.length <= 3) return list;
  return (
    <details class="changes-more">
      <summary>{lines.length} changes</summary>
      {list}
    </details>
  );
}
