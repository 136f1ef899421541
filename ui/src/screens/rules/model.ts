// What the house-rules screen works with: which file is open, what the last save or removal
// did, and the plain functions between the engine's answers and the editor's markers.

import type { Diagnostic, HouseFunction, HouseRulesState, ReloadReport } from "../../contract";
import type { Problem } from "../../editor";

/** The file open in the editor: a house rule, a ruleset script (read-only), or a new one. */
export type Selected = { type: "house"; name: string } | { type: "ruleset"; name: string } | { type: "new" };

/** What the last save or removal did. */
export interface Outcome {
  kind: "saved" | "removed" | "unchanged";
  report: ReloadReport | null;
  name: string;
  /** The saved file's functions that change nothing (a misspelt name, most likely). */
  warnings: HouseFunction[];
}

/** A new house rule starts from this. */
export const TEMPLATE = `// A house rule. A function here replaces the ruleset's function with the same
// name and number of parameters, and can call the one it replaces as original(…):
//   fn exploit_weakness_cost() { original() - 2 }
// The ruleset's README lists the moments you can hook (on_turn_start …): define one
// here to act then. Pick a ruleset script on the left to see its functions.

`;

/** The warnings of one house-rule file, as the editor marks them. */
export function warningsOf(r: HouseRulesState | null, name: string): HouseFunction[] {
  return (r?.files.find((f) => f.name === name)?.functions ?? []).filter((fn) => !!fn.warning);
}

export function asProblems(warnings: HouseFunction[]): Problem[] {
  return warnings.map((fn) => ({ line: fn.line, column: fn.column, message: fn.warning ?? "", severity: "warning" }));
}

/** Whether a diagnostic is about the house-rule file `name`. */
export function sameFile(d: Diagnostic, name: string): boolean {
  return d.file === name || d.file.endsWith(`/${name}`);
}

/** A house-rule file name no file has yet. */
export function freshName(r: HouseRulesState | null): string {
  const taken = new Set(r?.files.map((f) => f.name) ?? []);
  if (!taken.has("house-rule.rhai")) return "house-rule.rhai";
  let i = 2;
  while (taken.has(`house-rule-${i}.rhai`)) i++;
  return `house-rule-${i}.rhai`;
}

/** The file a typed name saves to (`.rhai` added when missing). */
export function fileNameOf(name: string): string {
  const n = name.trim();
  return n && !n.endsWith(".rhai") ? `${n}.rhai` : n;
}

/** What `next` opens in the editor: its text, whether it is read-only, the name to show. */
export function opened(next: Selected, r: HouseRulesState | null, initialText?: string): { body: string; readOnly: boolean; name: string | null } {
  if (next.type === "house") return { body: r?.files.find((f) => f.name === next.name)?.text ?? "", readOnly: false, name: next.name };
  if (next.type === "ruleset") return { body: r?.ruleset_files.find((f) => f.name === next.name)?.text ?? "", readOnly: true, name: null };
  return { body: initialText ?? TEMPLATE, readOnly: false, name: freshName(r) };
}
