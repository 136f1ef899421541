// The house-rule editor: CodeMirror 6 with JavaScript highlighting (close enough for Rhai) and
// lint markers at the line and column of each diagnostic (errors, and warnings such as a
// house-rule function that nothing calls). Loaded only when the GM opens the
// house rules, so players never download it.

import { EditorView, basicSetup } from "codemirror";
import { EditorState, Compartment } from "@codemirror/state";
import { javascript } from "@codemirror/lang-javascript";
import { lintGutter, setDiagnostics, type Diagnostic as LintDiagnostic } from "@codemirror/lint";
import { keymap } from "@codemirror/view";

export interface Problem {
  line?: number | null;
  column?: number | null;
  message: string;
  /** An error stops the rules loading; a warning (a function nothing calls) does not. */
  severity?: "error" | "warning";
}

export interface RuleEditor {
  setText(text: string, readOnly: boolean): void;
  text(): string;
  showProblems(problems: Problem[]): void;
  goTo(line: number, column: number): void;
  destroy(): void;
}

export function createEditor(parent: HTMLElement, opts: { label: string; onChange: (text: string) => void; onSave: () => void }): RuleEditor {
  const readOnly = new Compartment();
  let applying = false;
  const view = new EditorView({
    parent,
    state: EditorState.create({
      doc: "",
      extensions: [
        basicSetup,
        javascript(),
        lintGutter(),
        readOnly.of([EditorState.readOnly.of(false), EditorView.editable.of(true)]),
        keymap.of([
          {
            key: "Mod-s",
            preventDefault: true,
            run: () => {
              opts.onSave();
              return true;
            },
          },
        ]),
        EditorView.updateListener.of((u) => {
          if (u.docChanged && !applying) opts.onChange(u.state.doc.toString());
        }),
        EditorView.contentAttributes.of({ "aria-label": opts.label }),
      ],
    }),
  });

  function position(line?: number | null, column?: number | null): number {
    const doc = view.state.doc;
    const l = Math.min(Math.max(1, line || 1), doc.lines);
    const info = doc.line(l);
    return Math.min(info.to, info.from + Math.max(0, (column || 1) - 1));
  }

  return {
    setText(text, ro) {
      applying = true;
      view.dispatch({
        changes: { from: 0, to: view.state.doc.length, insert: text },
        effects: readOnly.reconfigure([EditorState.readOnly.of(ro), EditorView.editable.of(!ro)]),
      });
      applying = false;
      view.dispatch(setDiagnostics(view.state, []));
    },
    text() {
      return view.state.doc.toString();
    },
    showProblems(problems) {
      const diags: LintDiagnostic[] = problems.map((p) => {
        const from = position(p.line, p.column);
        const lineEnd = view.state.doc.lineAt(from).to;
        // Mark from the column to the end of the word (at least one character when there is one).
        let to = from;
        const rest = view.state.doc.sliceString(from, lineEnd);
        const word = /^\w+/.exec(rest);
        to = from + (word ? word[0].length : rest.length ? 1 : 0);
        return { from, to, severity: p.severity ?? "error", message: p.message, source: p.line ? `line ${p.line}${p.column ? `, column ${p.column}` : ""}` : undefined };
      });
      view.dispatch(setDiagnostics(view.state, diags));
    },
    goTo(line, column) {
      const pos = position(line, column);
      view.dispatch({ selection: { anchor: pos }, scrollIntoView: true });
      view.focus();
    },
    destroy() {
      view.destroy();
    },
  };
}
