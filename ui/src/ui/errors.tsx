// One way to show the engine's errors: a refusal names its rule; a script error shows its
// file:line:col; a broken rule lists its diagnostics.

import type { Diagnostic, ErrorReport } from "../contract";

/** "refused: TURNS: Gandolf has already rolled" → { rule: "TURNS", text: "Gandolf has already rolled" }. */
export function splitRule(message: string): { rule: string | null; text: string } {
  const m = message.replace(/^refused:\s*/, "");
  const match = /^([A-Z][A-Z0-9 '!?&/-]*[A-Z0-9!?'])\s*:\s*([\s\S]*)$/.exec(m);
  return match ? { rule: match[1], text: match[2] } : { rule: null, text: m };
}

/** A rule's name as a person writes it: "TARGET NUMBER" → "Target number", "MAD" → "Mad". */
export function ruleLabel(rule: string): string {
  return rule.charAt(0) + rule.slice(1).toLowerCase();
}

export function place(file: string, line?: number | null, column?: number | null): string {
  return `${file}${line ? `:${line}` : ""}${line && column ? `:${column}` : ""}`;
}

export function Diagnostics({ items, onPick }: { items: Diagnostic[]; onPick?: (d: Diagnostic) => void }) {
  return (
    <ul class="diagnostics" aria-label="Problems">
      {items.map((d, i) => (
        <li key={i}>
          {onPick ? (
            <button type="button" class="linklike" onClick={() => onPick(d)}>
              <code class="where">{place(d.file, d.line, d.column)}</code>
            </button>
          ) : (
            <code class="where">{place(d.file, d.line, d.column)}</code>
          )}{" "}
          <span>{d.message}</span>
        </li>
      ))}
    </ul>
  );
}

export function ErrorBox({ error, title }: { error: ErrorReport; title?: string }) {
  if (error.code === "refused") {
    const { rule, text } = splitRule(error.script?.kind === "refused" ? error.script.message : error.message);
    return (
      <div class="notice refused" role="alert">
        <strong class="notice-title">{title ?? "The rules say no"}</strong>
        <p>
          {rule && <span class="rule-name">{ruleLabel(rule)}:</span>} {text}
        </p>
      </div>
    );
  }
  if (error.code === "script_error" && error.script) {
    const s = error.script;
    return (
      <div class="notice failure" role="alert">
        <strong class="notice-title">{title ?? "The rules script failed"}</strong>
        <p>
          <code class="where">{place(s.file, s.line, s.column)}</code> {s.message}
        </p>
        {s.trace && s.trace.length > 0 && <p class="muted small">in {s.trace.join(" → ")}</p>}
      </div>
    );
  }
  if (error.diagnostics && error.diagnostics.length) {
    return (
      <div class="notice failure" role="alert">
        <strong class="notice-title">{title ?? "These rules do not load"}</strong>
        <Diagnostics items={error.diagnostics} />
      </div>
    );
  }
  const { rule, text } = splitRule(error.message);
  return (
    <div class={`notice ${error.code === "bad_param" ? "refused" : "failure"}`} role="alert">
      {title && <strong class="notice-title">{title}</strong>}
      <p>
        {rule && <span class="rule-name">{ruleLabel(rule)}:</span>} {text}
      </p>
    </div>
  );
}
