// Words for the screen: labels from the manifest, or readable names made from identifiers.

import type { EntityView, Manifest, Role, View } from "./contract";

/** `successes_needed` → "Successes needed"; `cr` → "CR". */
export function humanize(id: string): string {
  // Short names without a vowel are abbreviations: cr → CR, cp → CP, hp → HP.
  if (/^[b-df-hj-np-tv-z]{2,3}$/.test(id)) return id.toUpperCase();
  const words = id.replace(/[_-]+/g, " ").replace(/([a-z])([A-Z])/g, "$1 $2").trim();
  return words ? words[0].toUpperCase() + words.slice(1) : id;
}

export function kindLabel(manifest: Manifest | null, kind: string): string {
  return manifest?.kinds?.[kind]?.label || humanize(kind);
}

export function fieldLabel(manifest: Manifest | null, kind: string, field: string): string {
  return manifest?.kinds?.[kind]?.fields?.[field]?.label || humanize(field);
}

/** "gm" → "GM", "player:ann" → "ann". */
export function roleName(role: Role | null | undefined): string {
  if (!role) return "—";
  if (role === "gm") return "GM";
  if (role === "public") return "everyone";
  return role.startsWith("player:") ? role.slice("player:".length) : role;
}

/** The names of the players who own something on the table, for the view switch. */
export function playerNames(view: View | null): string[] {
  if (!view) return [];
  const names = new Set<string>();
  for (const e of Object.values(view.entities)) if (e.owner) names.add(e.owner);
  return [...names].sort((a, b) => a.localeCompare(b));
}

/** An entity's display name when `value` is one of the table's entity ids. */
export function entityName(view: View | null, value: unknown): string | null {
  if (typeof value !== "string" || !view) return null;
  return view.entities[value]?.name ?? null;
}

/** A short, readable rendering of any value. */
export function show(value: unknown, view: View | null = null): string {
  if (value === null || value === undefined) return "—";
  if (typeof value === "boolean") return value ? "yes" : "no";
  if (typeof value === "string") return entityName(view, value) ?? value;
  if (typeof value === "number") return String(value);
  if (Array.isArray(value)) return value.length ? value.map((v) => show(v, view)).join(", ") : "none";
  if (typeof value === "object") {
    const parts = Object.entries(value as Record<string, unknown>).map(([k, v]) => `${humanize(k)}: ${show(v, view)}`);
    return parts.length ? parts.join(" · ") : "—";
  }
  return String(value);
}

/** Whether the table keeps its own turn or round count, as the ruleset sees it: a number named
 * `turn` or `round` on an entity, or in a table variable (alone or in a record). Where it does,
 * the engine's round counter (rounds ended, which can differ by one or more) is left out. */
export function ownCounter(view: View): boolean {
  const counter = (fields: Record<string, unknown>) => ["turn", "round"].some((k) => typeof fields[k] === "number");
  if (Object.values(view.entities).some((e) => counter(e.fields))) return true;
  if (counter(view.vars)) return true;
  return Object.values(view.vars).some((v) => v !== null && typeof v === "object" && !Array.isArray(v) && counter(v as Record<string, unknown>));
}

/** A numeric field with a start or maximum beside it: `cr` with `cr_start`, `x` with `x_max`. */
export interface Track {
  field: string;
  value: number;
  max: number;
  companions: string[];
}

export function tracks(entity: EntityView): Track[] {
  const out: Track[] = [];
  const f = entity.fields;
  for (const [name, value] of Object.entries(f)) {
    if (typeof value !== "number" || name.endsWith("_start") || name.endsWith("_max")) continue;
    const start = f[`${name}_start`];
    const max = f[`${name}_max`];
    const companions: string[] = [];
    let top: number | null = null;
    if (typeof max === "number") {
      top = max;
      companions.push(`${name}_max`);
    }
    if (typeof start === "number") {
      top = top === null ? start : Math.max(top, start);
      companions.push(`${name}_start`);
    }
    if (top === null) continue;
    out.push({ field: name, value, max: Math.max(top, value, 1), companions });
  }
  return out;
}

export function plural(n: number, one: string, many = `${one}s`): string {
  return `${n} ${n === 1 ? one : many}`;
}

export function time(at: string): string {
  const d = new Date(at);
  if (Number.isNaN(d.getTime())) return at;
  return d.toLocaleTimeString([], { hour: "2-digit", minute: "2-digit" });
}

/** A label in the plural, for section headings: "Character" → "Characters", "Boss" → "Bosses". */
export function pluralLabel(label: string): string {
  if (/(s|x|z|ch|sh)$/i.test(label)) return `${label}es`;
  if (/[^aeiou]y$/i.test(label)) return `${label.slice(0, -1)}ies`;
  return `${label}s`;
}
