// The house-rule editor as a hook: CodeMirror is loaded the first time the screen mounts (players
// never download it), and what the screen asked it to show before it loaded is shown once it
// has. The callbacks given are always the latest, so Ctrl+S saves what the screen holds now.

import { useEffect, useRef, useState } from "preact/hooks";
import type { RefObject } from "preact";
import type { Problem, RuleEditor } from "../../editor";
import { TEMPLATE } from "./model";

export interface EditorHandle {
  /** Where the editor goes. */
  host: RefObject<HTMLDivElement>;
  /** The editor has loaded. */
  ready: boolean;
  /** Shows `text` (read-only or not) with its problems marked. */
  show: (text: string, readOnly: boolean, problems: Problem[]) => void;
  showProblems: (problems: Problem[]) => void;
  goTo: (line: number, column: number) => void;
  /** The text in the editor (null before it has loaded). */
  text: () => string | null;
}

export function useRuleEditor(label: string, on: { onChange: (text: string) => void; onSave: () => void }): EditorHandle {
  const host = useRef<HTMLDivElement>(null);
  const editor = useRef<RuleEditor | null>(null);
  const [ready, setReady] = useState(false);
  const latest = useRef(on);
  latest.current = on;
  // What the editor should show once it has loaded (the file list may arrive first).
  const pending = useRef<{ text: string; readOnly: boolean; problems: Problem[] }>({ text: TEMPLATE, readOnly: false, problems: [] });

  useEffect(() => {
    let cancelled = false;
    void import("../../editor").then(({ createEditor }) => {
      if (cancelled || !host.current) return;
      editor.current = createEditor(host.current, {
        label,
        onChange: (t) => latest.current.onChange(t),
        onSave: () => latest.current.onSave(),
      });
      editor.current.setText(pending.current.text, pending.current.readOnly);
      editor.current.showProblems(pending.current.problems);
      setReady(true);
    });
    return () => {
      cancelled = true;
      editor.current?.destroy();
      editor.current = null;
    };
  }, []);

  return {
    host,
    ready,
    show(text, readOnly, problems) {
      pending.current = { text, readOnly, problems };
      editor.current?.setText(text, readOnly);
      editor.current?.showProblems(problems);
    },
    showProblems: (problems) => editor.current?.showProblems(problems),
    goTo: (line, column) => editor.current?.goTo(line, column),
    text: () => editor.current?.text() ?? null,
  };
}
