// The GM's Balance screen: the balance lab plays the scene on the table now (a Fumbles
// challenge, a firefight …) many times by the ruleset's own policy, under the ruleset alone and
// with this campaign's house rules, side by side: win rate with its 95% interval, the turns it
// took drawn as two histograms over each other, and what was spent. It runs in the background
// (the table plays on), shows its progress, and can be stopped; the same seed gives the same
// answer. Runs the policy never brought to an end are cut off at the turn cap and counted as
// not won; the screen warns of them, since they say nothing about winning.

import { useEffect, useState } from "preact/hooks";
import { useAction, useCall } from "../calls";
import type { Store } from "../store";
import type { LabProgress, LabSide, Summary } from "../contract";
import { ErrorBox, ruleLabel, splitRule } from "../ui/errors";

const POLL_MS = 250;

function percent(x: number, digits = 1): string {
  return `${(x * 100).toFixed(digits)}%`;
}

function sideName(s: LabSide): string {
  return s.house_rules.length === 0 ? "The ruleset alone" : `With ${s.house_rules.join(", ")}`;
}

/** Words for an outcome's key: `hero_points_spent` → "hero points spent"; a short word
 * without a vowel is an abbreviation: `cr_left` → "CR left", `gm_bennies_spent` → "GM bennies spent". */
function keyName(key: string): string {
  return key
    .split("_")
    .map((w) => (/^[b-df-hj-np-tv-z]{2,3}$/.test(w) ? w.toUpperCase() : w))
    .join(" ");
}

type Hist = { name: string; counts: Map<number, number>; runs: number };

/** Two (or one) histograms of `turns` drawn over each other, as shares of each side's runs. */
function Histograms({ sides }: { sides: Hist[] }) {
  const values = new Set<number>();
  for (const s of sides) for (const v of s.counts.keys()) values.add(v);
  if (values.size === 0) return null;
  const lo = Math.min(...values);
  const hi = Math.max(...values);
  const xs: number[] = [];
  for (let v = lo; v <= hi; v++) xs.push(v);
  const share = (s: Hist, v: number) => (s.runs ? (s.counts.get(v) ?? 0) / s.runs : 0);
  const top = Math.max(0.01, ...sides.flatMap((s) => xs.map((v) => share(s, v))));
  const W = 560, H = 300, left = 44, bottom = 28, top_pad = 10;
  const plotW = W - left - 8, plotH = H - bottom - top_pad;
  const step = plotW / xs.length;
  const barW = Math.max(2, step * 0.8);
  const y = (f: number) => top_pad + plotH - (f / top) * plotH;
  const ticks = [0, top / 2, top];
  const labelEvery = Math.ceil(xs.length / 16);
  return (
    <figure class="lab-hist">
      <svg viewBox={`0 0 ${W} ${H}`} role="img" aria-label={`Turns to finish: ${sides.map((s) => s.name).join(" and ")}, drawn over each other`}>
        {ticks.map((t) => (
          <g key={t}>
            <line x1={left} x2={W - 8} y1={y(t)} y2={y(t)} class="grid" />
            <text x={left - 6} y={y(t) + 4} text-anchor="end" class="tick">
              {Math.round(t * 100)}%
            </text>
          </g>
        ))}
        {sides.map((s, i) => (
          <g key={s.name} class={`series series-${i}`}>
            {xs.map((v, j) => {
              const f = share(s, v);
              return f > 0 ? (
                <rect key={v} x={left + j * step + (step - barW) / 2} width={barW} y={y(f)} height={top_pad + plotH - y(f)}>
                  <title>{`${s.name}: ${v} turns in ${percent(f)} of runs`}</title>
                </rect>
              ) : null;
            })}
          </g>
        ))}
        {xs.map((v, j) =>
          j % labelEvery === 0 ? (
            <text key={v} x={left + j * step + step / 2} y={H - 10} text-anchor="middle" class="tick">
              {v}
            </text>
          ) : null,
        )}
      </svg>
      <figcaption>
        Turns to finish, as a share of each side's runs.{" "}
        {sides.map((s, i) => (
          <span key={s.name} class={`legend legend-${i}`}>
            <span class="swatch" aria-hidden="true" /> {s.name}
          </span>
        ))}
      </figcaption>
    </figure>
  );
}

function histOf(side: LabSide): Hist {
  const turns: Summary | undefined = side.outcomes.turns;
  const counts = new Map<number, number>();
  if (turns?.kind === "number") for (const [v, n] of turns.histogram) counts.set(v, n);
  return { name: sideName(side), counts, runs: side.runs };
}

/** The outcomes other than `won` and `turns`, each side's mean or rate in a column. */
function OutcomeTable({ sides }: { sides: LabSide[] }) {
  const keys: string[] = [];
  for (const s of sides) for (const k of Object.keys(s.outcomes)) if (k !== "won" && !keys.includes(k)) keys.push(k);
  const cell = (s: Summary | undefined) =>
    !s ? "—" : s.kind === "number" ? s.mean.toFixed(2) : s.kind === "flag" ? percent(s.rate) : s.counts.map(([v, n]) => `${v} ×${n}`).join(", ");
  return (
    <table class="lab-table">
      <thead>
        <tr>
          <th scope="col">Over {sides[0]?.runs ?? 0} runs</th>
          {sides.map((s) => (
            <th key={sideName(s)} scope="col">
              {sideName(s)}
            </th>
          ))}
        </tr>
      </thead>
      <tbody>
        <tr class="won-row">
          <th scope="row">Won</th>
          {sides.map((s) => (
            <td key={sideName(s)}>
              <strong>{percent(s.win_rate)}</strong>{" "}
              <span class="muted">
                (95%: {percent(s.win_interval[0])}–{percent(s.win_interval[1])})
              </span>
            </td>
          ))}
        </tr>
        {keys.map((k) => (
          <tr key={k}>
            <th scope="row">{k === "turns" ? "turns (mean)" : keyName(k)}</th>
            {sides.map((s) => (
              <td key={sideName(s)}>{cell(s.outcomes[k])}</td>
            ))}
          </tr>
        ))}
      </tbody>
    </table>
  );
}

/** The refusal that stopped the lab, its rule named as the forms name it ("Assistance: …"). */
function RefusedMove({ message }: { message: string }) {
  const { rule, text } = splitRule(message);
  return (
    <p>
      {rule && <span class="rule-name">{ruleLabel(rule)}:</span>} {text}
    </p>
  );
}

/** A warning when runs were cut off unfinished at the turn cap, side by side. */
function UnfinishedWarning({ lab }: { lab: LabProgress }) {
  const cut = lab.sides.filter((s) => s.unfinished > 0);
  if (cut.length === 0) return null;
  return (
    <div class="notice refused" role="alert">
      <strong class="notice-title">Some runs never finished.</strong>
      {cut.map((s) => (
        <p key={sideName(s)}>
          {sideName(s)}: {s.unfinished} of {s.runs} runs ({percent(s.unfinished / Math.max(1, s.runs))}) were still
          going after {lab.turn_cap} turns and were cut off. They count as not won, so the win rate says less than it
          seems: the lab's policy does not bring this scene to an end.
        </p>
      ))}
    </div>
  );
}

export function BalanceLab({ store }: { store: Store }) {
  const lab = useCall(store, "lab", {});
  const act = useAction(store);
  const progress = lab.value ?? null;
  const state = progress?.state;
  const running = state?.state === "running";
  const error = act.error ?? lab.error;

  // The last lab (it may still be running), then every POLL_MS while one runs.
  useEffect(() => {
    if (!running) return;
    const timer = window.setTimeout(() => void lab.reload(), POLL_MS);
    return () => window.clearTimeout(timer);
  }, [lab.value]);

  const start = async (times: number, seed: number) => {
    const started = await act.call("lab_start", { times, seed });
    if (started) lab.set(started);
  };
  const stop = async () => {
    const stopped = await act.call("lab_stop", {});
    if (stopped !== undefined) lab.set(stopped);
  };

  return (
    <div class="balance-panel">
      <h2 class="section-title">Balance lab</h2>
      <p class="help">
        Plays the scene on the table now — as it stands — many times by the ruleset's own policy, under the ruleset
        alone and with this campaign's house rules, and compares them. Nothing is kept and the table plays on. The same
        seed gives the same answer.
      </p>
      <LabForm again={progress !== null} busy={act.busy} running={running} onStart={(t, s) => void start(t, s)} onStop={() => void stop()} />
      {error && <ErrorBox error={error} title="The lab could not start" />}
      {state?.state === "failed" && (
        <div class="notice failure" role="alert">
          <strong class="notice-title">The lab stopped: the rules refused a move.</strong>
          <RefusedMove message={state.message} />
        </div>
      )}
      {progress && state?.state !== "failed" && <LabResults lab={progress} running={running} />}
    </div>
  );
}

function LabForm({
  again,
  busy,
  running,
  onStart,
  onStop,
}: {
  again: boolean;
  busy: boolean;
  running: boolean;
  onStart: (times: number, seed: number) => void;
  onStop: () => void;
}) {
  const [times, setTimes] = useState("1000");
  const [seed, setSeed] = useState("1");
  return (
    <form
      class="card lab-form"
      onSubmit={(e) => {
        e.preventDefault();
        onStart(Number(times), Number(seed));
      }}
      aria-label="Start the balance lab"
    >
      <label class="field inline">
        <span class="field-label">Runs on each side</span>
        <input type="number" min={1} max={100000} value={times} onInput={(e) => setTimes(e.currentTarget.value)} required />
      </label>
      <label class="field inline">
        <span class="field-label">Seed</span>
        <input type="number" min={0} value={seed} onInput={(e) => setSeed(e.currentTarget.value)} required />
      </label>
      <button type="submit" class="primary" disabled={busy || running}>
        {again ? "Play again" : "Play"}
      </button>
      {running && (
        <button type="button" onClick={onStop}>
          Stop
        </button>
      )}
    </form>
  );
}

function LabResults({ lab, running }: { lab: LabProgress; running: boolean }) {
  const state = lab.state;
  return (
    <section class="card lab-results" aria-labelledby="lab-results-title" aria-busy={running}>
      <h3 id="lab-results-title">
        {running ? "Playing…" : state.state === "stopped" ? "Stopped" : "Done"}{" "}
        <span class="muted">
          from the table at event {lab.from_event}, seed {lab.seed}
        </span>
      </h3>
      <div class="lab-progress">
        {lab.sides.map((s) => (
          <label key={sideName(s)} class="lab-progress-row">
            <span>{sideName(s)}</span>
            <progress max={lab.times} value={s.runs} />
            <span class="muted" role="status">
              {s.runs} of {lab.times} runs
            </span>
          </label>
        ))}
      </div>
      <UnfinishedWarning lab={lab} />
      {lab.sides.length === 1 && (
        <p class="help">This campaign has no house rules yet: add one on the House rules screen to compare.</p>
      )}
      {lab.sides[0].runs > 0 && (
        <div class="lab-figures">
          <OutcomeTable sides={lab.sides} />
          <Histograms sides={lab.sides.map(histOf)} />
        </div>
      )}
    </section>
  );
}
