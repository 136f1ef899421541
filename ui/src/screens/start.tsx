// The GM's start: create a campaign on a bundled ruleset with its settings; on the desktop
// also open a campaign file or a recent one. The desktop's File menu shows it over the campaign
// in play (New, Open, Open Recent), with a way back to that campaign.

import type { ComponentChildren } from "preact";
import { useEffect, useMemo, useState } from "preact/hooks";
import { useAction, useCall } from "../calls";
import { useStore, type Store } from "../store";
import type { ErrorReport, RulesetChoice, SettingSpec } from "../contract";
import { ErrorBox } from "../ui/errors";
import { humanize } from "../format";

export function StartScreen({ store }: { store: Store }) {
  const desktop = store.transport.host === "desktop";
  const rulesets = useCall(store, "rulesets", {});
  const recent = useCall(store, "recent", desktop ? {} : null);
  const act = useAction<"create" | "open">(store);
  const [chosen, setChosen] = useState<string | null>(null);
  const [name, setName] = useState("");
  const [settings, setSettings] = useState<Record<string, unknown>>({});
  const list = rulesets.value ?? null;
  const ruleset = useMemo(() => list?.find((r) => r.id === chosen) ?? null, [list, chosen]);
  const error = act.error ?? rulesets.error;
  const s = useStore(store);

  function pick(r: RulesetChoice) {
    setChosen(r.id);
    setSettings(defaults(r));
    act.fail(null);
  }
  useEffect(() => {
    if (list?.length === 1) pick(list[0]);
  }, [list]);

  const create = (r: RulesetChoice) =>
    act.run(async () => {
      let path: string | null = null;
      if (desktop) {
        path = await store.transport.chooseNewCampaignPath(`${slug(name || r.name)}.houserule`);
        if (!path) return;
      }
      const changed: Record<string, unknown> = {};
      for (const [k, spec] of Object.entries(r.settings)) if (settings[k] !== spec.default) changed[k] = settings[k];
      await store.create(r.id, changed, name.trim() || r.name, path);
    }, "create");

  async function open(path: string | null) {
    act.fail(null);
    const file = path ?? (await store.transport.chooseCampaignFile());
    if (file) await act.run(() => store.open(file), "open");
  }

  // Open or Open Recent in the File menu: the file is asked for (or named) once.
  useEffect(() => {
    const asked = s.starting;
    if (asked !== "open" && (asked === null || typeof asked !== "object")) return;
    store.set({ starting: "new" });
    void open(asked === "open" ? null : asked.path);
  }, [s.starting]);

  return (
    <main class="start">
      <header class="start-head">
        <h1 class="brand">Houserule</h1>
        {s.campaign && s.starting && (
          <button type="button" onClick={() => store.set({ starting: null })}>
            Back to {s.campaign.name || "the campaign"}
          </button>
        )}
        <p class="muted">
          {desktop ? "Open a campaign, or start a new one on a bundled ruleset." : `Start the campaign this server plays${store.state.file ? ` (${store.state.file})` : ""}.`}
        </p>
      </header>
      {desktop && <OpenCampaign busy={act.busy} opening={act.running === "open"} recent={recent.value ?? []} onOpen={(p) => void open(p)} />}
      <NewCampaign rulesets={list} ruleset={ruleset} onPick={pick} error={error} onCreate={() => ruleset && void create(ruleset)}>
        {ruleset && (
          <CampaignDetails ruleset={ruleset} name={name} onName={setName} desktop={desktop} creating={act.running === "create"} busy={act.busy} error={error}>
            <Settings ruleset={ruleset} settings={settings} onChange={setSettings} />
          </CampaignDetails>
        )}
      </NewCampaign>
    </main>
  );
}

/** The desktop's "Open a campaign": a file, or one opened recently. */
function OpenCampaign({ busy, opening, recent, onOpen }: { busy: boolean; opening: boolean; recent: string[]; onOpen: (path: string | null) => void }) {
  return (
    <section class="card" aria-labelledby="open-title">
      <h2 id="open-title">Open a campaign</h2>
      <button type="button" onClick={() => onOpen(null)} disabled={busy}>
        {opening ? <><span class="spinner" /> Opening…</> : "Open a campaign file…"}
      </button>
      {recent.length > 0 && (
        <>
          <h3>Recent</h3>
          <ul class="recent">
            {recent.map((p) => (
              <li key={p}>
                <button type="button" class="linklike" disabled={busy} onClick={() => onOpen(p)} title={p}>
                  {basename(p)}
                </button>{" "}
                <span class="muted small">{p}</span>
              </li>
            ))}
          </ul>
        </>
      )}
    </section>
  );
}

/** The "New campaign" form: the rulesets to pick from, then (`children`) the one picked. */
function NewCampaign({
  rulesets,
  ruleset,
  onPick,
  error,
  onCreate,
  children,
}: {
  rulesets: RulesetChoice[] | null;
  ruleset: RulesetChoice | null;
  onPick: (r: RulesetChoice) => void;
  error: ErrorReport | null;
  onCreate: () => void;
  children: ComponentChildren;
}) {
  return (
    <form
      class="card create"
      aria-labelledby="create-title"
      onSubmit={(e) => {
        e.preventDefault();
        onCreate();
      }}
    >
      <h2 id="create-title">New campaign</h2>
      {!rulesets && !error && (
        <p class="muted" role="status">
          <span class="spinner" /> Loading the rulesets…
        </p>
      )}
      <div class="create-grid">
        {rulesets && <RulesetChoices rulesets={rulesets} chosen={ruleset?.id ?? null} onPick={onPick} />}
        <div class="create-details">
          {!ruleset && rulesets && <p class="muted pick-hint">Pick a ruleset to see its settings.</p>}
          {children}
          {!ruleset && error && <ErrorBox error={error} title="Could not start the campaign" />}
        </div>
      </div>
    </form>
  );
}
function RulesetChoices({ rulesets, chosen, onPick }: { rulesets: RulesetChoice[]; chosen: string | null; onPick: (r: RulesetChoice) => void }) {
  return (
    <fieldset class="rulesets">
      <legend>Ruleset</legend>
      {rulesets.map((r) => (
        <label key={r.id} class={`ruleset-choice ${chosen === r.id ? "chosen" : ""}`}>
          <input type="radio" name="ruleset" value={r.id} checked={chosen === r.id} onChange={() => onPick(r)} aria-label={r.name} />
          <span class="ruleset-name">
            {r.name} <span class="muted small">v{r.version}</span>
          </span>
          <span class="ruleset-desc">{r.description}</span>
        </label>
      ))}
    </fieldset>
  );
}

/** The campaign's name and the Create button (then `children`: the ruleset's settings). */
function CampaignDetails({
  ruleset,
  name,
  onName,
  desktop,
  creating,
  busy,
  error,
  children,
}: {
  ruleset: RulesetChoice;
  name: string;
  onName: (name: string) => void;
  desktop: boolean;
  creating: boolean;
  busy: boolean;
  error: ErrorReport | null;
  children: ComponentChildren;
}) {
  return (
    <>
      <div class="name-row">
        <div class="field">
          <label for="campaign-name" class="field-label">
            Campaign name
          </label>
          <input id="campaign-name" value={name} maxLength={120} placeholder={`e.g. ${ruleset.name} on Tuesdays`} onInput={(e) => onName(e.currentTarget.value)} />
        </div>
        <button type="submit" class="primary" disabled={busy}>
          {creating ? (
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
      {children}
    </>
  );
}

function Settings({ ruleset, settings, onChange }: { ruleset: RulesetChoice; settings: Record<string, unknown>; onChange: (s: Record<string, unknown>) => void }) {
  return (
    <fieldset class="settings">
      <legend>
        Settings of {ruleset.name}{" "}
        <button type="button" class="small linklike" onClick={() => onChange(defaults(ruleset))}>
          Reset to defaults
        </button>
      </legend>
      {Object.keys(ruleset.settings).length === 0 && <p class="muted">This ruleset has no settings.</p>}
      <div class="settings-grid">
        {Object.entries(ruleset.settings).map(([key, spec]) => (
          <SettingField key={key} id={key} spec={spec} value={settings[key]} onChange={(v) => onChange({ ...settings, [key]: v })} />
        ))}
      </div>
    </fieldset>
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

/** One setting of a ruleset: its label, its input by type, and its help with the default. */
function SettingField({ id, spec, value, onChange }: { id: string; spec: SettingSpec; value: unknown; onChange: (v: unknown) => void }) {
  const inputId = `setting-${id}`;
  const helpId = `${inputId}-help`;
  const bool = spec.type === "bool";
  const label = (
    <label for={inputId} class="field-label">
      {spec.label || humanize(id)}
    </label>
  );
  const input = <SettingInput id={inputId} helpId={helpId} spec={spec} value={value} onChange={onChange} />;
  return (
    <div class={`field ${bool ? "check " : ""}${value !== spec.default ? "changed" : ""}`}>
      {bool ? input : label}
      {bool ? label : input}
      <span id={helpId} class="help">
        {spec.help}
        {spec.help ? " " : ""}
        <span class="default">Default: {bool ? (spec.default ? "on" : "off") : String(spec.default)}</span>
      </span>
    </div>
  );
}

function SettingInput({ id, helpId, spec, value, onChange }: { id: string; helpId: string; spec: SettingSpec; value: unknown; onChange: (v: unknown) => void }) {
  if (spec.type === "bool") {
    return <input id={id} aria-describedby={helpId} type="checkbox" checked={Boolean(value)} onChange={(e) => onChange(e.currentTarget.checked)} />;
  }
  if (spec.type === "choice") {
    return (
      <select id={id} aria-describedby={helpId} value={String(value ?? "")} onChange={(e) => onChange(e.currentTarget.value)}>
        {(spec.options ?? []).map((o) => (
          <option key={o} value={o}>
            {humanize(o)}
          </option>
        ))}
      </select>
    );
  }
  if (spec.type === "int") {
    return (
      <input
        id={id}
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
    );
  }
  return <input id={id} aria-describedby={helpId} value={String(value ?? "")} onInput={(e) => onChange(e.currentTarget.value)} />;
}
