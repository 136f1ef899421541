// The house-rule editor: CodeMirror 6 with JavaScript highlighting (close enough for Rhai) and
// lint markers at the line and column of each diagnostic (errors, and warnings such as a
// house-rule function that nothing calls). Loaded only when the GM opens the
// house rules, so players never download it. Its colours are the page's own (CSS variables), so
// it reads the same as the rest of the screen in light and in dark, at 4.5:1 or better.

import { EditorView, basicSetup } from "codemirror";
import { EditorState, Compartment } from "@codemirror/state";
import { javascript } from "@codemirror/lang-javascript";
import { lintGutter, setDiagnostics, type Diagnostic as LintDiagnostic } from "@codemirror/lint";
import { keymap } from "@codemirror/view";
import { HighlightStyle, syntaxHighlighting } from "@codemirror/language";
import { tags } from "@lezer/highlight";

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

/** The editor's frame, gutters, selection and tooltips in the page's colours. */
const theme = EditorView.theme({
  "&": { color: "var(--ink)", backgroundColor: "var(--panel)" },
  ".cm-content": { caretColor: "var(--ink)" },
  ".cm-cursor, .cm-dropCursor": { borderLeftColor: "var(--ink)" },
  "&.cm-focused > .cm-scroller > .cm-selectionLayer .cm-selectionBackground, .cm-selectionBackground, .cm-content ::selection": {
    backgroundColor: "var(--accent-soft)",
  },
  ".cm-activeLine": { backgroundColor: "var(--panel-2)" },
  ".cm-gutters": { backgroundColor: "var(--panel-2)", color: "var(--ink-2)", borderRight: "1px solid var(--line)" },
  ".cm-activeLineGutter": { backgroundColor: "var(--line)", color: "var(--ink)" },
  ".cm-foldPlaceholder": { backgroundColor: "var(--panel-2)", color: "var(--ink-2)", borderColor: "var(--line-2)" },
  "&.cm-focused .cm-matchingBracket": { backgroundColor: "var(--accent-soft)", color: "var(--ink)" },
  "&.cm-focused .cm-nonmatchingBracket": { backgroundColor: "var(--complication-soft)", color: "var(--ink)" },
  ".cm-searchMatch": { backgroundColor: "var(--warn-soft)", outline: "1px solid var(--critical)" },
  ".cm-selectionMatch": { backgroundColor: "var(--accent-soft)" },
  ".cm-tooltip": { backgroundColor: "var(--panel)", color: "var(--ink)", border: "1px solid var(--line-2)" },
  ".cm-tooltip-autocomplete ul li[aria-selected]": { backgroundColor: "var(--accent)", color: "var(--accent-ink)" },
  ".cm-panels": { backgroundColor: "var(--panel-2)", color: "var(--ink)" },
  ".cm-panels input, .cm-panels button": { color: "var(--ink)" },
});

/** Rhai (read as JavaScript) coloured with the palette's text colours. */
const highlight = HighlightStyle.define([
  { tag: tags.comment, color: "var(--ink-2)", fontStyle: "italic" },
  { tag: [tags.keyword, tags.controlKeyword, tags.moduleKeyword, tags.definitionKeyword, tags.operatorKeyword], color: "var(--secret)", fontWeight: "600" },
  { tag: [tags.string, tags.special(tags.string), tags.regexp], color: "var(--success)" },
  { tag: [tags.number, tags.bool, tags.null, tags.atom], color: "var(--ace)" },
  { tag: [tags.function(tags.variableName), tags.function(tags.propertyName), tags.definition(tags.variableName)], color: "var(--accent)" },
  { tag: [tags.propertyName, tags.typeName, tags.className], color: "var(--complication)" },
  { tag: tags.invalid, color: "var(--complication)", textDecoration: "underline wavy" },
]);

export function createEditor(parent: HTMLElement, opts: { label: string; onChange: (text: string) => void; onSave: () => void }): RuleEditor {
  const readOnly = new Compartment();
  let applying = false;
  const view = new EditorView({
    parent,
    state: EditorState.create({
      doc: "",
      extensions: [
        basicSetup,
        theme,
        syntaxHighlighting(highlight),
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
