// The GM's house rules: the campaign's house-rule files (edit, create, remove) and the
// ruleset's own scripts (read-only, with their functions to copy into a house rule). Saving
// hot-reloads the rules; a broken rule shows its diagnostics at file:line:col while the table
// keeps playing with the previous rules.

import { useEffect, useRef, useState } from "preact/hooks";
import { toReport } from "../transport";
import type { Store } from "../store";
import type { Diagnostic, ErrorReport, HouseFunction, HouseRulesState, ReloadReport } from "../contract";
import type { Problem, RuleEditor } from "../editor";
import { Diagnostics } from "../ui/errors";

type Selected = { type: "house"; name: string } | { type: "ruleset"; name: string } | { type: "new" };

const TEMPLATE = `// A house rule. A function here replaces the ruleset's function with the same
// name and number of parameters, and can call the one it replaces as original(…):
//   fn exploit_weakness_cost() { original() - 2 }
// The ruleset's README lists the moments you can hook (on_turn_start …): define one
// here to act then. Pick a ruleset script on the left to see its functions.

`;

interface Acted {
  kind: "saved" | "removed" | "unchanged";
  report: ReloadReport | null;
  name: string;
  /** The saved file's functions that change nothing (a misspelt name, most likely). */
  warnings: HouseFunction[];
}

/** What a house-rule function does, as its badge says it. */
function effectBadge(fn: HouseFunction): { label: string; className: string; title: string } {
  const hook = fn.hook ? ` (hook ${fn.hook})` : "";
  switch (fn.effect) {
    case "wraps":
      return { label: "wraps", className: "badge replaces", title: `Replaces the ruleset's ${fn.name} and calls it as original(…)${hook}` };
    case "replaces":
      return { label: fn.hook ? "hook" : "replaces", className: "badge replaces", title: `Replaces the ruleset's ${fn.name}${hook}` };
    case "adds":
      return { label: fn.hook ? "hook" : "new", className: "badge new", title: `A new function that the rules call${hook}` };
    default:
      return { label: "unused", className: "badge spent", title: fn.warning ?? "Nothing calls this function" };
  }
}

/** The warnings of one house-rule file, as the editor marks them. */
function warningsOf(r: HouseRulesState | null, name: string): HouseFunction[] {
  return (r?.files.find((f) => f.name === name)?.functions ?? []).filter((fn) => !!fn.warning);
}

function asProblems(warnings: HouseFunction[]): Problem[] {
  return warnings.map((fn) => ({ line: fn.line, column: fn.column, message: fn.warning ?? "", severity: "warning" }));
}

export function HouseRules({ store }: { store: Store }) {
  const [rules, setRules] = useState<HouseRulesState | null>(null);
  const [loadError, setLoadError] = useState<ErrorReport | null>(null);
  const [selected, setSelected] = useState<Selected>({ type: "new" });
  const [name, setName] = useState("house-rule.rhai");
  const [dirty, setDirty] = useState(false);
  const [busy, setBusy] = useState<"save" | "remove" | null>(null);
  const [confirmRemove, setConfirmRemove] = useState(false);
  const [error, setError] = useState<ErrorReport | null>(null);
  const [outcome, setOutcome] = useState<Acted | null>(null);
  const [editorReady, setEditorReady] = useState(false);
  const [text, setText] = useState(TEMPLATE);
  const host = useRef<HTMLDivElement>(null);
  const editor = useRef<RuleEditor | null>(null);
  const saveRef = useRef<() => void>(() => {});
  // What the editor should show once it has loaded (the file list may arrive first).
  const pending = useRef<{ text: string; readOnly: boolean; problems: Problem[] }>({ text: TEMPLATE, readOnly: false, problems: [] });

  async function load(): Promise<HouseRulesState | null> {
    try {
      const r = await store.call("house_rules", {});
      setRules(r);
      setLoadError(null);
      return r;
    } catch (e) {
      setLoadError(toReport(e));
      return null;
    }
  }

  useEffect(() => {
    let cancelled = false;
    void load().then((r) => {
      if (!cancelled && r && r.files.length) select({ type: "house", name: r.files[0].name }, r);
    });
    import("../editor").then(({ createEditor }) => {
      if (cancelled || !host.current) return;
      editor.current = createEditor(host.current, {
        label: "House rule text",
        onChange: (t) => {
          setText(t);
          setDirty(true);
        },
        onSave: () => saveRef.current(),
      });
      editor.current.setText(pending.current.text, pending.current.readOnly);
      editor.current.showProblems(pending.current.problems);
      setEditorReady(true);
    });
    return () => {
      cancelled = true;
      editor.current?.destroy();
      editor.current = null;
    };
  }, []);

  function select(next: Selected, r: HouseRulesState | null = rules, initialText?: string) {
    setSelected(next);
    setError(null);
    setOutcome(null);
    setConfirmRemove(false);
    let body = TEMPLATE;
    let readOnly = false;
    if (next.type === "house") {
      body = r?.files.find((f) => f.name === next.name)?.text ?? "";
      setName(next.name);
    } else if (next.type === "ruleset") {
      body = r?.ruleset_files.find((f) => f.name === next.name)?.text ?? "";
      readOnly = true;
    } else {
      body = initialText ?? TEMPLATE;
      setName(freshName(r));
    }
    const problems = next.type === "house" ? asProblems(warningsOf(r, next.name)) : [];
    setText(body);
    pending.current = { text: body, readOnly, problems };
    editor.current?.setText(body, readOnly);
    editor.current?.showProblems(problems);
    setDirty(false);
  }

  function freshName(r: HouseRulesState | null): string {
    const taken = new Set(r?.files.map((f) => f.name) ?? []);
    if (!taken.has("house-rule.rhai")) return "house-rule.rhai";
    let i = 2;
    while (taken.has(`house-rule-${i}.rhai`)) i++;
    return `house-rule-${i}.rhai`;
  }

  const fileName = (() => {
    const n = name.trim();
    return n && !n.endsWith(".rhai") ? `${n}.rhai` : n;
  })();

  async function save() {
    if (selected.type === "ruleset" || !fileName || busy) return;
    const body = editor.current?.text() ?? text;
    setBusy("save");
    setError(null);
    setOutcome(null);
    try {
      const report = await store.call("save_house_rule", { name: fileName, text: body });
      setDirty(false);
      if (report) store.noteReload(report);
      const warnings = warningsOf(await load(), fileName);
      setOutcome({ kind: report ? "saved" : "unchanged", report, name: fileName, warnings });
      editor.current?.showProblems(asProblems(warnings));
      setSelected({ type: "house", name: fileName });
      setName(fileName);
    } catch (e) {
      const rep = toReport(e);
      setError(rep);
      const mine = (rep.diagnostics ?? []).filter((d) => sameFile(d, fileName));
      editor.current?.showProblems(mine.length ? mine : []);
    } finally {
      setBusy(null);
    }
  }
  saveRef.current = () => void save();

  async function remove() {
    if (selected.type !== "house") return;
    setBusy("remove");
    setError(null);
    setOutcome(null);
    try {
      const report = await store.call("remove_house_rule", { name: selected.name });
      if (report) store.noteReload(report);
      const r = await load();
      select({ type: "new" }, r);
      setOutcome({ kind: "removed", report, name: selected.name, warnings: [] });
    } catch (e) {
      setError(toReport(e));
    } finally {
      setBusy(null);
      setConfirmRemove(false);
    }
  }

  function copyToHouseRule(fnText: string) {
    select({ type: "new" }, rules, `${TEMPLATE}${fnText}\n`);
    setDirty(true);
  }

  const readOnly = selected.type === "ruleset";
  const current = selected.type === "ruleset" ? rules?.ruleset_files.find((f) => f.name === selected.name) : null;
  const functions = current ? functionsOf(current.text) : [];

  return (
    <div class="rules-screen">
      <nav class="rules-files card" aria-label="Rule files">
        <h2 class="section-title">House rules</h2>
        {loadError && <p class="field-error">{loadError.message}</p>}
        {rules && rules.files.length === 0 && <p class="muted small">No house rules yet: the ruleset plays as written.</p>}
        <ul class="file-list">
          {rules?.files.map((f) => (
            <li key={f.name}>
              <button type="button" class="file" aria-current={selected.type === "house" && selected.name === f.name ? "true" : undefined} onClick={() => select({ type: "house", name: f.name })}>
                {f.name}
              </button>
              {f.functions.length > 0 && (
                <ul class="fn-list">
                  {f.functions.map((fn) => {
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
          ))}
        </ul>
        <button type="button" class="new-rule" aria-current={selected.type === "new" ? "true" : undefined} onClick={() => select({ type: "new" })}>
          + New house rule
        </button>
        <h2 class="section-title">Ruleset scripts</h2>
        <p class="muted small">Read-only. Copy a function into a house rule to change it.</p>
        <ul class="file-list">
          {rules?.ruleset_files.map((f) => (
            <li key={f.name}>
              <button type="button" class="file" aria-current={selected.type === "ruleset" && selected.name === f.name ? "true" : undefined} onClick={() => select({ type: "ruleset", name: f.name })}>
                {f.name}
              </button>
            </li>
          ))}
        </ul>
      </nav>

      <section class="rules-editor card" aria-label="House rule editor">
        <div class="editor-toolbar">
          {readOnly ? (
            <p class="editor-name">
              <strong>{selected.type === "ruleset" ? selected.name : ""}</strong> <span class="badge">read-only</span>
            </p>
          ) : (
            <label class="field inline">
              <span class="field-label">File name</span>
              <input value={name} disabled={selected.type === "house"} onInput={(e) => setName(e.currentTarget.value)} spellcheck={false} />
            </label>
          )}
          <div class="toolbar-buttons">
            {!readOnly && (
              <button type="button" class="primary" onClick={() => void save()} disabled={busy !== null || !fileName || !editorReady} aria-busy={busy === "save"}>
                {busy === "save" ? (
                  <>
                    <span class="spinner" /> Saving and reloading…
                  </>
                ) : (
                  "Save and reload"
                )}
              </button>
            )}
            {selected.type === "house" &&
              (confirmRemove ? (
                <span class="confirm">
                  Remove {selected.name}?{" "}
                  <button type="button" class="danger" onClick={() => void remove()} disabled={busy !== null}>
                    {busy === "remove" ? (
                      <>
                        <span class="spinner" /> Removing…
                      </>
                    ) : (
                      "Yes, remove it"
                    )}
                  </button>{" "}
                  <button type="button" onClick={() => setConfirmRemove(false)}>
                    Keep it
                  </button>
                </span>
              ) : (
                <button type="button" onClick={() => setConfirmRemove(true)} disabled={busy !== null}>
                  Remove
                </button>
              ))}
          </div>
        </div>
        {dirty && !readOnly && <p class="muted small unsaved">Unsaved changes (Ctrl+S saves).</p>}
        <div class="editor-host" ref={host}>
          {!editorReady && (
            <p class="muted" role="status">
              <span class="spinner" /> Loading the editor…
            </p>
          )}
        </div>
        {functions.length > 0 && (
          <details class="functions" open>
            <summary>Functions in {current?.name}</summary>
            <ul>
              {functions.map((f) => (
                <li key={`${f.name}-${f.line}`}>
                  <button type="button" class="linklike" onClick={() => editor.current?.goTo(f.line, 1)}>
                    <code>
                      {f.name}({f.params})
                    </code>
                  </button>{" "}
                  <span class="muted small">line {f.line}</span>{" "}
                  <button type="button" class="small" onClick={() => copyToHouseRule(f.text)}>
                    Copy into a new house rule
                  </button>
                </li>
              ))}
            </ul>
          </details>
        )}
        <div class="editor-status" aria-live="polite">
          {error && (
            <div class="notice failure" role="alert">
              <strong class="notice-title">{error.code === "invalid_house_rule" ? `${fileName} does not load` : "Not saved"}</strong>
              {error.diagnostics && error.diagnostics.length ? (
                <Diagnostics items={error.diagnostics} onPick={(d: Diagnostic) => sameFile(d, fileName) && d.line && editor.current?.goTo(d.line, d.column ?? 1)} />
              ) : (
                <p>{error.message}</p>
              )}
              <p class="small">The table keeps playing with the previous rules.</p>
            </div>
          )}
          {outcome && (
            <div class="notice success" role="status">
              {outcome.kind === "unchanged" ? (
                <p>Nothing changed: {outcome.name} already says that.</p>
              ) : (
                <>
                  <strong class="notice-title">{outcome.kind === "removed" ? `Removed ${outcome.name}` : `Saved ${outcome.name}`}: the new rules are in force</strong>
                  {outcome.report && (
                    <ul class="changed">
                      {outcome.report.changed.map((c) => (
                        <li key={c}>
                          <code>{c}</code>
                        </li>
                      ))}
                      {Object.entries(outcome.report.settings).map(([k, v]) => (
                        <li key={k}>
                          setting <code>{k}</code> is now <code>{JSON.stringify(v)}</code>
                        </li>
                      ))}
                    </ul>
                  )}
                  {outcome.report && <p class="muted small">Reload #{outcome.report.seq} · rules digest {outcome.report.digest.slice(0, 12)}</p>}
                </>
              )}
            </div>
          )}
          {outcome && outcome.warnings.length > 0 && (
            <div class="notice refused" role="status">
              <strong class="notice-title">Loaded, but {outcome.warnings.length === 1 ? "one function changes" : `${outcome.warnings.length} functions change`} nothing</strong>
              <ul class="changed">
                {outcome.warnings.map((w) => (
                  <li key={`${w.name}/${w.arity}`}>
                    <button type="button" class="linklike" onClick={() => editor.current?.goTo(w.line, w.column)}>
                      {w.file}:{w.line}:{w.column}
                    </button>{" "}
                    {w.warning}
                  </li>
                ))}
              </ul>
            </div>
          )}
        </div>
      </section>
    </div>
  );
}

function sameFile(d: Diagnostic, name: string): boolean {
  return d.file === name || d.file.endsWith(`/${name}`);
}

interface FnInfo {
  name: string;
  params: string;
  line: number;
  text: string;
}

/** The functions a script defines, with their text (to copy into a house rule). */
export function functionsOf(text: string): FnInfo[] {
  const out: FnInfo[] = [];
  const re = /^[ \t]*(?:private[ \t]+)?fn[ \t]+([A-Za-z_]\w*)[ \t]*\(([^)]*)\)/gm;
  let m: RegExpExecArray | null;
  while ((m = re.exec(text))) {
    const start = m.index + (m[0].length - m[0].trimStart().length);
    const open = text.indexOf("{", m.index + m[0].length);
    let end = text.length;
    if (open >= 0) {
      let depth = 0;
      for (let i = open; i < text.length; i++) {
        const ch = text[i];
        if (ch === '"') {
          i++;
          while (i < text.length && text[i] !== '"') i += text[i] === "\\" ? 2 : 1;
        } else if (ch === "/" && text[i + 1] === "/") {
          while (i < text.length && text[i] !== "\n") i++;
        } else if (ch === "{") depth++;
        else if (ch === "}" && --depth === 0) {
          end = i + 1;
          break;
        }
      }
    }
    const line = text.slice(0, start).split("\n").length;
    out.push({ name: m[1], params: m[2].trim(), line, text: text.slice(start, end) });
  }
  return out;
}
