// The table as the viewer sees it: entities as cards grouped by kind (with tracks as bars),
// traits, pools, and the table's own pools and variables. Generic over every ruleset: labels
// come from the manifest, and anything the ruleset did not declare is tucked away. A card shows
// the entity's portrait, which the GM sets there.

import type { EntityView, Manifest, PoolView, Trait, View } from "../contract";
import { fieldLabel, humanize, kindLabel, ownCounter, pluralLabel, show, tracks, type Track } from "../format";
import type { Store } from "../store";
import { Portrait } from "./portrait";

export function Board({ store, view, manifest, gm }: { store: Store; view: View; manifest: Manifest | null; gm: boolean }) {
  const entities = Object.values(view.entities);
  const declared = Object.keys(manifest?.kinds ?? {});
  const kinds = [...new Set([...declared, ...entities.map((e) => e.kind)])].filter((k) => entities.some((e) => e.kind === k));
  // Kinds with tracks (challenges, objectives) are what the table is playing against: first.
  const tracked = (k: string) => entities.some((e) => e.kind === k && tracks(e).length > 0);
  kinds.sort((a, b) => Number(tracked(b)) - Number(tracked(a)));
  const tablePools = Object.entries(view.pools);
  // The ruleset's own bookkeeping is never shown (`bookkeeping = true` in its manifest).
  const varSpecs = manifest?.vars ?? {};
  const vars = Object.entries(view.vars).filter(([k, v]) => v !== null && v !== undefined && !varSpecs[k]?.bookkeeping);
  // The engine counts rounds ended (`end_round`); a ruleset that shows its own turn or round
  // (Fumbles' challenge "Turn 2" after one round ended) is the count players go by, so the
  // engine's is shown only when nothing on the table counts for itself.
  const rounds = ownCounter(view) ? 0 : view.round;

  return (
    <div class="board">
      {(tablePools.length > 0 || vars.length > 0 || rounds > 0) && (
        <section class="table-state card" aria-label="At the table">
          <h2 class="section-title">At the table</h2>
          {rounds > 0 && (
            <p class="round" title="Rounds the table has ended">
              Rounds played: <strong>{rounds}</strong>
            </p>
          )}
          {tablePools.length > 0 && (
            <ul class="pools" aria-label="Table pools">
              {tablePools.map(([id, p]) => (
                <PoolChip key={id} id={id} pool={p} />
              ))}
            </ul>
          )}
          {vars.length > 0 && (
            <dl class="fields vars" aria-label="Table variables">
              {vars.map(([k, v]) => (
                <div key={k} class="field-row">
                  <dt title={varSpecs[k]?.help ?? undefined}>{varSpecs[k]?.label ?? humanize(k)}</dt>
                  <dd>{show(v, view)}</dd>
                </div>
              ))}
            </dl>
          )}
        </section>
      )}
      {entities.length === 0 && (
        <section class="card empty-table">
          <h2 class="section-title">The table is empty</h2>
          <p class="muted">Nothing is in play yet. Actions such as creating a character put things on the table.</p>
        </section>
      )}
      {kinds.map((kind) => {
        const list = entities.filter((e) => e.kind === kind);
        const label = list.length === 1 ? kindLabel(manifest, kind) : pluralLabel(kindLabel(manifest, kind));
        return (
          <section key={kind} class={`kind-section ${tracked(kind) ? "tracked" : ""}`} aria-label={label}>
            <h2 class="section-title">
              {label} <span class="count">{list.length}</span>
            </h2>
            <div class="cards">
              {list.map((e) => (
                <EntityCard key={e.id} store={store} entity={e} view={view} manifest={manifest} gm={gm} />
              ))}
            </div>
          </section>
        );
      })}
    </div>
  );
}

function EntityCard({ store, entity, view, manifest, gm }: { store: Store; entity: EntityView; view: View; manifest: Manifest | null; gm: boolean }) {
  const kindSpec = manifest?.kinds?.[entity.kind];
  const declared = kindSpec?.fields ?? {};
  const trackList = tracks(entity);
  const inTracks = new Set(trackList.flatMap((t) => [t.field, ...t.companions]));
  const shown: [string, unknown][] = [];
  const flags: string[] = [];
  const tucked: [string, unknown][] = [];
  const order = [...Object.keys(declared), ...Object.keys(entity.fields).filter((k) => !(k in declared))];
  for (const name of order) {
    if (!(name in entity.fields) || inTracks.has(name) || declared[name]?.bookkeeping) continue;
    const value = entity.fields[name];
    if (value === null || value === undefined) continue;
    if (!(name in declared)) tucked.push([name, value]);
    else if (typeof value === "boolean") (value ? flags.push(name) : tucked.push([name, value]));
    else if (typeof value === "object" && !Array.isArray(value)) tucked.push([name, value]);
    else shown.push([name, value]);
  }
  // A GM-only pool the viewer may not count shows nothing of itself, not even its name.
  const uncounted = (p: PoolView) => p.count === null || p.count === undefined;
  const pools = Object.entries(entity.pools).filter(([, p]) => !(p.visibility === "gm" && uncounted(p)));
  const headingId = `entity-${entity.id}`;
  const hidden = (name: string) => declared[name]?.visibility === "gm" || declared[name]?.visibility === "owner";

  return (
    <article class={`entity card kind-${entity.kind}`} aria-labelledby={headingId} data-entity={entity.id}>
      <header class="entity-head">
        <h3 id={headingId}>{entity.name}</h3>
        {entity.owner && <span class="owner" title="Played by">played by {entity.owner}</span>}
      </header>
      <Portrait store={store} entity={entity} gm={gm} />
      {trackList.map((t) => (
        <TrackBar key={t.field} track={t} label={fieldLabel(manifest, entity.kind, t.field)} />
      ))}
      {flags.length > 0 && (
        <ul class="flags" aria-label="Conditions">
          {flags.map((f) => (
            <li key={f} class="flag">
              {fieldLabel(manifest, entity.kind, f)}
            </li>
          ))}
        </ul>
      )}
      {shown.length > 0 && (
        <dl class="fields">
          {shown.map(([name, value]) => (
            <div key={name} class="field-row" title={declared[name]?.help ?? undefined}>
              <dt>
                {fieldLabel(manifest, entity.kind, name)}
                {hidden(name) && <Secret visibility={declared[name]!.visibility!} />}
              </dt>
              <dd>{show(value, view)}</dd>
            </div>
          ))}
        </dl>
      )}
      {pools.length > 0 && (
        <ul class="pools" aria-label={`${entity.name}'s pools`}>
          {pools.map(([id, p]) => (
            <PoolChip key={id} id={id} pool={p} />
          ))}
        </ul>
      )}
      {entity.traits.length > 0 && <Traits traits={entity.traits} owner={entity.name} />}
      {tucked.length > 0 && (
        <details class="tucked">
          <summary>More ({tucked.length})</summary>
          <dl class="fields small">
            {tucked.map(([name, value]) => (
              <div key={name} class="field-row">
                <dt>
                  {fieldLabel(manifest, entity.kind, name)}
                  {hidden(name) && <Secret visibility={declared[name]!.visibility!} />}
                </dt>
                <dd>
                  {value && typeof value === "object" && !Array.isArray(value) ? (
                    <dl class="nested">
                      {Object.entries(value as Record<string, unknown>).map(([k, v]) => (
                        <div key={k} class="field-row">
                          <dt>{humanize(k)}</dt>
                          <dd>{show(v, view)}</dd>
                        </div>
                      ))}
                    </dl>
                  ) : (
                    show(value, view)
                  )}
                </dd>
              </div>
            ))}
          </dl>
        </details>
      )}
    </article>
  );
}

function Secret({ visibility }: { visibility: string }) {
  const text = visibility === "gm" ? "GM only" : visibility === "owner" ? "owner and GM" : visibility;
  return (
    <span class="secret-badge" title={`Seen by: ${text}`}>
      {text}
    </span>
  );
}

function TrackBar({ track, label }: { track: Track; label: string }) {
  const pct = Math.max(0, Math.min(100, (track.value / track.max) * 100));
  const tone = pct <= 25 ? "low" : pct <= 60 ? "mid" : "high";
  return (
    <div class="track">
      <div class="track-label">
        <span>{label}</span>
        <span class="track-value">
          <strong>{track.value}</strong> / {track.max}
        </span>
      </div>
      <div
        class={`bar ${tone}`}
        role="meter"
        aria-label={label}
        aria-valuemin={0}
        aria-valuemax={track.max}
        aria-valuenow={track.value}
        aria-valuetext={`${track.value} of ${track.max}`}
      >
        <div class="bar-fill" style={{ width: `${pct}%` }} />
      </div>
    </div>
  );
}

export function PoolChip({ id, pool }: { id: string; pool: PoolView }) {
  const label = pool.label || humanize(id);
  let body;
  if (pool.count === null || pool.count === undefined) {
    if (pool.empty === true || pool.empty === false) body = <span class="pool-hidden">{pool.empty ? "empty" : "not empty"}</span>;
    else body = <span class="pool-hidden">not shown</span>;
  } else if (pool.counts && Object.keys(pool.counts).length > 1) {
    body = (
      <span class="pool-kinds">
        {Object.entries(pool.counts).map(([k, n]) => (
          <span key={k} class="pool-kind">
            {humanize(k)} <strong>{n}</strong>
          </span>
        ))}
        <span class="muted"> = {pool.count}</span>
        {pool.cap !== null && pool.cap !== undefined && <span class="muted"> / {pool.cap}</span>}
      </span>
    );
  } else {
    const cap = pool.cap;
    body = (
      <span class="pool-count">
        {cap !== null && cap !== undefined && cap > 0 && cap <= 12 && (
          <span class="pips" aria-hidden="true">
            {Array.from({ length: cap }, (_, i) => (
              <span key={i} class={`pip ${i < (pool.count ?? 0) ? "on" : ""}`} />
            ))}
          </span>
        )}
        <strong>{pool.count}</strong>
        {cap !== null && cap !== undefined && <span class="muted"> / {cap}</span>}
      </span>
    );
  }
  const visibility = pool.visibility !== "public" ? <span class="secret-badge">{pool.visibility === "gm" ? "GM only" : pool.visibility === "owner" ? "owner and GM" : "hidden"}</span> : null;
  return (
    <li class="pool" aria-label={label}>
      <span class="pool-label">
        {label}
        {visibility}
      </span>{" "}
      {body}
    </li>
  );
}

function Traits({ traits, owner }: { traits: Trait[]; owner: string }) {
  const categories = [...new Set(traits.map((t) => t.category ?? ""))];
  const grouped = categories.length > 1;
  return (
    <div class="traits" aria-label={`${owner}'s traits`}>
      {categories.map((c) => (
        <div key={c} class="trait-group">
          {grouped && <h4 class="trait-category">{c ? humanize(c) : "Other"}</h4>}
          <ul class="trait-list">
            {traits
              .filter((t) => (t.category ?? "") === c)
              .map((t) => (
                <TraitChip key={t.name} trait={t} />
              ))}
          </ul>
        </div>
      ))}
    </div>
  );
}

function TraitChip({ trait }: { trait: Trait }) {
  const state = trait.state ?? "active";
  const note = trait.note && trait.note !== String(trait.rating ?? "") ? trait.note : null;
  return (
    <li class={`trait ${state}`} title={[trait.category ? humanize(trait.category) : "", trait.tags?.join(", ") ?? ""].filter(Boolean).join(" · ") || undefined}>
      <span class="trait-name">{trait.name}</span>
      {note ? <span class="trait-rating">{note}</span> : trait.rating !== null && trait.rating !== undefined && <span class="trait-rating">{trait.rating}</span>}
      {state !== "active" && <span class={`badge ${state}`}>{state}</span>}
      {(trait.uses ?? 0) > 0 && (
        <span class="uses" title="Times used">
          ×{trait.uses}
        </span>
      )}
      {trait.visibility && trait.visibility !== "public" && <span class="secret-badge">{trait.visibility === "gm" ? "GM only" : "owner and GM"}</span>}
      {trait.tags && trait.tags.length > 0 && <span class="tags">{trait.tags.join(", ")}</span>}
    </li>
  );
}
