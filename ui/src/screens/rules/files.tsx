// The list of rule files: the campaign's house rules, each with its functions and what each does
// (replaces, wraps, hooks, adds, or changes nothing), a new house rule, and the ruleset's own
// scripts (opened read-only).

import type { ErrorReport, HouseFunction, HouseRulesState, HouseRuleText } from "../../contract";
import type { Selected } from "./model";
import { effectWords } from "../rulebook";

/** What a house-rule function does, as its badge says it (and, in words, its title). */
function effectBadge(fn: HouseFunction): { label: string; className: string; title: string } {
  switch (fn.effect) {
    case "wraps":
      return { label: "wraps", className: "badge replaces", title: effectWords(fn) };
    case "replaces":
      return { label: fn.hook ? "hook" : "replaces", className: "badge replaces", title: effectWords(fn) };
    case "adds":
      return { label: fn.hook ? "hook" : "new", className: "badge new", title: effectWords(fn) };
    default:
      return { label: "unused", className: "badge spent", title: fn.warning ?? "Nothing calls this function" };
  }
}

export function RuleFiles({
  rules,
  loadError,
  selected,
  onSelect,
}: {
  rules: HouseRulesState | null;
  loadError: ErrorReport | null;
  selected: Selected;
  onSelect: (next: Selected) => void;
}) {
  const isOpen = (type: "house" | "ruleset", name: string) => (selected.type === type && selected.name === name ? "true" : undefined);
  return (
    <nav class="rules-files card" aria-label="Rule files">
      <h2 class="section-title">House rules</h2>
      {loadError && <p class="field-error">{loadError.message}</p>}
      {rules && rules.files.length === 0 && <p class="muted small">No house rules yet: the ruleset plays as written.</p>}
      <ul class="file-list">
        {rules?.files.map((f) => (
          <HouseFile key={f.name} file={f} current={isOpen("house", f.name)} onOpen={() => onSelect({ type: "house", name: f.name })} />
        ))}
      </ul>
      <button type="button" class="new-rule" aria-current={selected.type === "new" ? "true" : undefined} onClick={() => onSelect({ type: "new" })}>
        + New house rule
      </button>
      <h2 class="section-title">Ruleset scripts</h2>
      <p class="muted small">Read-only. Copy a function into a house rule to change it.</p>
      <ul class="file-list">
        {rules?.ruleset_files.map((f) => (
          <li key={f.name}>
            <button type="button" class="file" aria-current={isOpen("ruleset", f.name)} onClick={() => onSelect({ type: "ruleset", name: f.name })}>
              {f.name}
            </button>
          </li>
        ))}
      </ul>
    </nav>
  );
}

function HouseFile({ file, current, onOpen }: { file: HouseRuleText; current: "true" | undefined; onOpen: () => void }) {
  return (
    <li>
      <button type="button" class="file" aria-current={current} onClick={onOpen}>
        {file.name}
      </button>
      {file.functions.length > 0 && (
        <ul class="fn-list">
          {file.functions.map((fn) => {
            const badge = effectBadge(fn);
            return (
              <li key={`${fn.name}/${fn.arity}`} class="small">
                <code>
                  {fn.name}({fn.arity})
                </code>{" "}
                <span class={badge.className} title={badge.title}>
                  {badge.label}
                </span>
              </li>
            );
          })}
        </ul>
      )}
    </li>
  );
}
