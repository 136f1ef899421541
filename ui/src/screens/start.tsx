// The GM's start: create a campaign on a bundled ruleset with its settings; on the desktop
// also open a campaign file or a recent one.

import { useEffect, useMemo, useState } from "preact/hooks";
import { toReport } from "../transport";
import type { Store } from "../store";
import type { ErrorReport, RulesetChoice, SettingSpec } from "../contract";
import { ErrorBox } from "../ui/errors";
import { humanize } from "../format";

export function StartScreen({ store }: { store: Store }) {
  const desktop = store.transport.host === "desktop";
  const [rulesets, setRulesets] = useState<RulesetChoice[] | null>(null);
  const [error, setError] = useState<ErrorReport | null>(null);
  const [chosen, setChosen] = useState<string | null>(null);
  const [name, setName] = useState("");
  const [settings, setSettings] = useState<Record<string, unknown>>({});
  const [busy, setBusy] = useState<"create" | "open" | null>(null);
  const [recent, setRecent] = useState<string[]>([]);

  useEffect(() => {
    store
      .call("rulesets", {})
      .then((list) => {
        setRulesets(list);
        if (list.length === 1) pick(list[0]);
      })
      .catch((e) => setError(toReport(e)));
    if (desktop) store.call("recent", {}).then(setRecent).catch(() => setRecent([]));
  }, []);

  const ruleset = useMemo(() => rulesets?.find((r) => r.id === chosen) ?? null, [rulesets, chosen]);

  function pick(r: RulesetChoice) {
    setChosen(r.id);
    setSettings(defaults(r));
    setError(null);
  }

  async function create(e: Event) {
    e.preventDefault();
    if (!ruleset) return;
    setBusy("create");
    setError(null);
    try {
      let path: string | null = null;
      if (desktop) {
        path = await store.transport.chooseNewCampaignPath(`${slug(name || ruleset.name)}.houserule`);
        if (!path) {
          setBusy(null);
          return;
        }
      }
      const changed: Record<string, unknown> = {};
      for (const [k, spec] of Object.entries(ruleset.settings)) if (settings[k] !== spec.default) changed[k] = settings[k];
      await store.create(ruleset.id, changed, name.trim() || ruleset.name, path);
    } catch (err) {
      setError(toReport(err));
      setBusy(null);
    }
  }

  async function open(path: string | null) {
    setError(null);
    const file = path ?? (await store.transport.chooseCampaignFile());
    if (!file) return;
    setBusy("open");
    try {
      await store.open(file);
    } catch (err) {
      setError(toReport(err));
      setBusy(null);
    }
  }

  return (
    <main class="start">
      <header class="start-head">
        <h1 class="brand">Houserule</h1>
        <p class="muted">
          {desktop ? "Open a campaign, or start a new one on a bundled ruleset." : `Start the campaign this server plays${store.state.file ? ` (${store.state.file})` : ""}.`}
        </p>
      </header>

      {desktop && (
        <section class="card" aria-labelledby="open-title">
          <h2 id="open-title">Open a campaign</h2>
          <button type="button" onClick={() => void open(null)} disabled={busy !== null}>
            {busy === "open" ? <><span class="spinner" /> Opening…</> : "Open a campaign file…"}
          </button>
          {recent.length > 0 && (
            <>
              <h3>Recent</h3>
              <ul class="recent">
                {recent.map((p) => (
                  <li key={p}>
                    <button type="button" class="linklike" disabled={busy !== null} onClick={() => void open(p)} title={p}>
                      {basename(p)}
                    </button>{" "}
                    <span class="muted small">{p}</span>
                  </li>
                ))}
              </ul>
            </>
          )}
        </section>
      )}

      <form class="card create" aria-labelledby="create-title" onSubmit={create}>
        <h2 id="create-title">New campaign</h2>
        {!rulesets && !error && (
          <p class="muted" role="status">
            <span class="spinner" /> Loading the rulesets…
          </p>
        )}
        <div class="create-grid">
          {rulesets && (
            <fieldset class="rulesets">
              <legend>Ruleset</legend>
              {rulesets.map((r) => (
                <label key={r.id} class={`ruleset-choice ${chosen === r.id ? "chosen" : ""}`}>
                  <input type="radio" name="ruleset" value={r.id} checked={chosen === r.id} onChange={() => pick(r)} aria-label={r.name} />
                  <span class="ruleset-name">
                    {r.name} <span class="muted small">v{r.version}</span>
                  </span>
                  <span class="ruleset-desc">{r.description}</span>
                </label>
              ))}
            </fieldset>
          )}

          <div class="create-details">
            {!ruleset && rulesets && <p class="muted pick-hint">Pick a ruleset to see its settings.</p>}
            {ruleset && (
              <>
                <div class="name-row">
                  <div class="field">
                    <label for="campaign-name" class="field-label">
                      Campaign name
                    </label>
                    <input id="campaign-name" value={name} maxLength={120} placeholder={`e.g. ${ruleset.name} on Tuesdays`} onInput={(e) => setName(e.currentTarget.value)} />
                  </div>
                  <button type="submit" class="primary" disabled={busy !== null}>
                    {busy === "create" ? (
                      <>
                        <span class="spinner" /> Creating…
                      </>
                    ) : desktop ? (
                      "Create campaign…"
                    ) : (
                      "Create campaign"
                    )}
                  </button>
                </div>
                {error && <ErrorBox error={error} title="Could not start the campaign" />}
                <fieldset class="settings">
                  <legend>
                    Settings of {ruleset.name}{" "}
                    <button type="button" class="small linklike" onClick={() => setSettings(defaults(ruleset))}>
                      Reset to defaults
                    </button>
                  </legend>
                  {Object.keys(ruleset.settings).length === 0 && <p class="muted">This ruleset has no settings.</p>}
                  <div class="settings-grid">
                    {Object.entries(ruleset.settings).map(([key, spec]) => (
                      <SettingField key={key} id={key} spec={spec} value={settings[key]} onChange={(v) => setSettings({ ...settings, [key]: v })} />
                    ))}
                  </div>
                </fieldset>
              </>
            )}
            {!ruleset && error && <ErrorBox error={error} title="Could not start the campaign" />}
          </div>
        </div>
      </form>
    </main>
  );
}

function defaults(r: RulesetChoice): Record<string, unknown> {
  return Object.fromEntries(Object.entries(r.settings).map(([k, s]) => [k, s.default]));
}

function slug(s: string): string {
  return s.toLowerCase().replace(/[^a-z0-9]+/g, "-").replace(/^-|-$/g, "") || "campaign";
}

function basename(p: string): string {
  return p.split(/[\\/]/).pop() || p;
}

function SettingField({ id, spec, value, onChange }: { id: string; spec: SettingSpec; value: unknown; onChange: (v: unknown) => void }) {
  const label = spec.label || humanize(id);
  const changed = value !== spec.default;
  const inputId = `setting-${id}`;
  const helpId = `${inputId}-help`;
  const help = (
    <span id={helpId} class="help">
      {spec.help}
      {spec.help ? " " : ""}
      <span class="default">Default: {spec.type === "bool" ? (spec.default ? "on" : "off") : String(spec.default)}</span>
    </span>
  );
  const labelEl = (
    <label for={inputId} class="field-label">
      {label}
    </label>
  );
  if (spec.type === "bool") {
    return (
      <div class={`field check ${changed ? "changed" : ""}`}>
        <input id={inputId} aria-describedby={helpId} type="checkbox" checked={Boolean(value)} onChange={(e) => onChange(e.currentTarget.checked)} />
        {labelEl}
        {help}
      </div>
    );
  }
  if (spec.type === "choice") {
    return (
      <div class={`field ${changed ? "changed" : ""}`}>
        {labelEl}
        <select id={inputId} aria-describedby={helpId} value={String(value ?? "")} onChange={(e) => onChange(e.currentTarget.value)}>
          {(spec.options ?? []).map((o) => (
            <option key={o} value={o}>
              {humanize(o)}
            </option>
          ))}
        </select>
        {help}
      </div>
    );
  }
  if (spec.type === "int") {
    return (
      <div class={`field ${changed ? "changed" : ""}`}>
        {labelEl}
        <input
          id={inputId}
          aria-describedby={helpId}
          type="number"
          step={1}
          min={spec.min ?? undefined}
          max={spec.max ?? undefined}
          value={value === undefined || value === null ? "" : String(value)}
          onInput={(e) => {
            const n = e.currentTarget.valueAsNumber;
            onChange(Number.isFinite(n) ? Math.trunc(n) : spec.default);
          }}
        />
        {help}
      </div>
    );
  }
  return (
    <div class={`field ${changed ? "changed" : ""}`}>
      {labelEl}
      <input id={inputId} aria-describedby={helpId} value={String(value ?? "")} onInput={(e) => onChange(e.currentTarget.value)} />
      {help}
    </div>
  );
}
