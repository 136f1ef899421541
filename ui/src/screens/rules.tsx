// The GM's house rules: the campaign's house-rule files (edit, create, remove) and the
// ruleset's own scripts (read-only, with their functions to copy into a house rule). Saving
// hot-reloads the rules; a broken rule shows its diagnostics at file:line:col while the table
// keeps playing with the previous rules. The screen composes its parts (./rules/): the file
// list, the toolbar, the editor, a script's functions and the save's status; its state is
// ./rules/editing.ts.

import type { Store } from "../store";
import { useEditing } from "./rules/editing";
import { RuleFiles } from "./rules/files";
import { ScriptFunctions } from "./rules/functions";
import { sameFile } from "./rules/model";
import { EditorStatus } from "./rules/status";
import { EditorToolbar } from "./rules/toolbar";

export function HouseRules({ store }: { store: Store }) {
  const e = useEditing(store);
  const { selected, editor } = e;
  const script = selected.type === "ruleset" ? e.rules?.ruleset_files.find((f) => f.name === selected.name) : undefined;
  return (
    <div class="rules-screen">
      <RuleFiles rules={e.rules} loadError={e.loadError} selected={selected} onSelect={(next) => e.select(next)} />
      <section class="rules-editor card" aria-label="House rule editor">
        <EditorToolbar
          selected={selected}
          name={e.name}
          onName={e.setName}
          canSave={!!e.fileName && editor.ready}
          running={e.act.running}
          confirmRemove={e.confirmRemove}
          onConfirmRemove={e.setConfirmRemove}
          onSave={() => void e.save()}
          onRemove={() => void e.remove()}
          secret={e.secret}
          onSecret={(v) => void e.setSecret(v)}
        />
        {e.dirty && selected.type !== "ruleset" && <p class="muted small unsaved">Unsaved changes (Ctrl+S saves).</p>}
        <div class="editor-host" ref={editor.host}>
          {!editor.ready && (
            <p class="muted" role="status">
              <span class="spinner" /> Loading the editor…
            </p>
          )}
        </div>
        {script && <ScriptFunctions file={script} onGoTo={(line) => editor.goTo(line, 1)} onCopy={e.copyToHouseRule} />}
        <EditorStatus
          error={e.act.error}
          fileName={e.fileName}
          outcome={e.outcome}
          onPick={(d) => sameFile(d, e.fileName) && d.line && editor.goTo(d.line, d.column ?? 1)}
          onGoTo={editor.goTo}
        />
      </section>
    </div>
  );
}
