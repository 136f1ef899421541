// The GM's "Correct a value" form: set a field, a pool count or a trait on anything on the
// table, by hand, with a reason — for the slips undo is too coarse for. The engine checks it
// like any change (a pool's floor and cap, a known entity) and logs the reason beside it.

import { useState } from "preact/hooks";
import { useAction } from "../calls";
import type { Store } from "../store";
import type { View } from "../contract";
import { humanize } from "../format";
import { ErrorBox } from "../ui/errors";

type What = "field" | "pool" | "trait";

/** A typed value: a number, true/false, JSON, or else the text itself. */
function typed(text: string): unknown {
  const t = text.trim();
  try {
    return JSON.parse(t);
  } catch {
    return t;
  }
}

type Correction = Parameters<Store["correct"]>[0];

/** The correction the form describes. */
function correctionOf(entity: string, what: What, name: string, value: string, remove: boolean): Correction {
  if (what === "field") return { what: "field", entity, field: name.trim(), ...(value.trim() ? { value: typed(value) } : {}) };
  if (what === "pool") {
    const pool = name.startsWith("table:") ? name.slice("table:".length) : `${entity}.${name}`;
    return { what: "pool", pool, count: Number.parseInt(value, 10) };
  }
  const rating = value.trim() === "" ? null : Number.parseInt(value, 10);
  return { what: "trait", entity, name: name.trim(), remove, ...(rating !== null && !Number.isNaN(rating) ? { rating } : {}) };
}

/** The names offered for `what` on `entity` (a pool may also be the table's). */
function namesFor(view: View, entity: string, what: What): string[] {
  const e = view.entities[entity];
  if (what === "field") return Object.keys(e?.fields ?? {});
  if (what === "pool") return [...Object.keys(e?.pools ?? {}), ...Object.keys(view.pools).map((p) => `table:${p}`)];
  return (e?.traits ?? []).map((t) => t.name);
}

export function CorrectionForm({ store, view }: { store: Store; view: View }) {
  const [entity, setEntity] = useState(Object.values(view.entities)[0]?.id ?? "");
  const [what, setWhat] = useState<What>("field");
  const [name, setName] = useState("");
  const [value, setValue] = useState("");
  const [remove, setRemove] = useState(false);
  const [reason, setReason] = useState("");
  const act = useAction(store);
  const [done, setDone] = useState<string | null>(null);

  async function submit(ev: Event) {
    ev.preventDefault();
    setDone(null);
    const correction = correctionOf(entity, what, name, value, remove);
    await act.run(async () => {
      await store.correct(correction, reason);
      setDone(`Corrected ${humanize(name)}.`);
      setValue("");
      setReason("");
    });
  }

  return (
    <details class="corrections">
      <summary>Correct a value (GM)</summary>
      <form aria-label="Correct a value" onSubmit={submit} noValidate>
        <p class="help">For a slip undo is too coarse for. The change and your reason go in the log; a secret value's correction stays as secret.</p>
        <Target view={view} entity={entity} onEntity={setEntity} what={what} onWhat={setWhat} />
        <NewValue what={what} names={namesFor(view, entity, what)} name={name} onName={setName} value={value} onValue={setValue} remove={remove} onRemove={setRemove} />
        <div class="field">
          <label for="fix-reason" class="field-label">Reason</label>
          <input id="fix-reason" value={reason} maxLength={500} required onInput={(ev) => setReason(ev.currentTarget.value)} />
        </div>
        <button type="submit" class="primary" disabled={act.busy || !name.trim() || !reason.trim()}>
          Correct
        </button>
        {done && (
          <p class="help" role="status">
            {done}
          </p>
        )}
        {act.error && <ErrorBox error={act.error} />}
      </form>
    </details>
  );
}

/** What is corrected: on which entity, and whether a field, a pool or a trait. */
function Target({ view, entity, onEntity, what, onWhat }: { view: View; entity: string; onEntity: (id: string) => void; what: What; onWhat: (w: What) => void }) {
  return (
    <>
      <div class="field">
        <label for="fix-entity" class="field-label">On</label>
        <select id="fix-entity" value={entity} onChange={(ev) => onEntity(ev.currentTarget.value)}>
          {Object.values(view.entities).map((x) => (
            <option key={x.id} value={x.id}>
              {x.name}
            </option>
          ))}
        </select>
      </div>
      <fieldset class="field">
        <legend class="field-label">What</legend>
        {(["field", "pool", "trait"] as What[]).map((w) => (
          <label key={w} class="check">
            <input type="radio" name="fix-what" checked={what === w} onChange={() => onWhat(w)} /> {w}
          </label>
        ))}
      </fieldset>
    </>
  );
}

function NewValue({
  what,
  names,
  name,
  onName,
  value,
  onValue,
  remove,
  onRemove,
}: {
  what: What;
  names: string[];
  name: string;
  onName: (name: string) => void;
  value: string;
  onValue: (value: string) => void;
  remove: boolean;
  onRemove: (remove: boolean) => void;
}) {
  return (
    <>
      <div class="field">
        <label for="fix-name" class="field-label">
          {what === "field" ? "Field" : what === "pool" ? "Pool" : "Trait"}
        </label>
        <input id="fix-name" list="fix-names" value={name} onInput={(ev) => onName(ev.currentTarget.value)} />
        <datalist id="fix-names">
          {names.map((n) => (
            <option key={n} value={n} />
          ))}
        </datalist>
      </div>
      <div class="field">
        <label for="fix-value" class="field-label">
          {what === "field" ? "New value (empty removes it)" : what === "pool" ? "New count" : "Rating (optional)"}
        </label>
        <input id="fix-value" value={value} inputMode={what === "field" ? "text" : "numeric"} onInput={(ev) => onValue(ev.currentTarget.value)} />
      </div>
      {what === "trait" && (
        <label class="check">
          <input type="checkbox" checked={remove} onChange={(ev) => onRemove(ev.currentTarget.checked)} /> remove the trait
        </label>
      )}
    </>
  );
}
