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

export function CorrectionForm({ store, view }: { store: Store; view: View }) {
  const entities = Object.values(view.entities);
  const [entity, setEntity] = useState(entities[0]?.id ?? "");
  const [what, setWhat] = useState<What>("field");
  const [name, setName] = useState("");
  const [value, setValue] = useState("");
  const [remove, setRemove] = useState(false);
  const [reason, setReason] = useState("");
  const act = useAction(store);
  const [done, setDone] = useState<string | null>(null);
  const e = view.entities[entity];
  const names =
    what === "field" ? Object.keys(e?.fields ?? {}) : what === "pool" ? [...Object.keys(e?.pools ?? {}), ...Object.keys(view.pools).map((p) => `table:${p}`)] : (e?.traits ?? []).map((t) => t.name);

  async function submit(ev: Event) {
    ev.preventDefault();
    setDone(null);
    let correction: Parameters<Store["correct"]>[0];
    if (what === "field") correction = { what: "field", entity, field: name.trim(), ...(value.trim() ? { value: typed(value) } : {}) };
    else if (what === "pool") {
      const pool = name.startsWith("table:") ? name.slice("table:".length) : `${entity}.${name}`;
      correction = { what: "pool", pool, count: Number.parseInt(value, 10) };
    } else {
      const rating = value.trim() === "" ? null : Number.parseInt(value, 10);
      correction = { what: "trait", entity, name: name.trim(), remove, ...(rating !== null && !Number.isNaN(rating) ? { rating } : {}) };
    }
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
        <div class="field">
          <label for="fix-entity" class="field-label">On</label>
          <select id="fix-entity" value={entity} onChange={(ev) => setEntity(ev.currentTarget.value)}>
            {entities.map((x) => (
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
              <input type="radio" name="fix-what" checked={what === w} onChange={() => setWhat(w)} /> {w}
            </label>
          ))}
        </fieldset>
        <div class="field">
          <label for="fix-name" class="field-label">
            {what === "field" ? "Field" : what === "pool" ? "Pool" : "Trait"}
          </label>
          <input id="fix-name" list="fix-names" value={name} onInput={(ev) => setName(ev.currentTarget.value)} />
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
          <input id="fix-value" value={value} inputMode={what === "field" ? "text" : "numeric"} onInput={(ev) => setValue(ev.currentTarget.value)} />
        </div>
        {what === "trait" && (
          <label class="check">
            <input type="checkbox" checked={remove} onChange={(ev) => setRemove(ev.currentTarget.checked)} /> remove the trait
          </label>
        )}
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
