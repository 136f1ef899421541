// Above the editor: the file's name (typed for a new house rule, fixed once saved, a read-only
// badge for a ruleset script), whether players may read it, "Save and reload", and "Remove" with
// its confirmation. Every button waits while a save or a removal runs.

import type { Selected } from "./model";

export function EditorToolbar({
  selected,
  name,
  onName,
  canSave,
  running,
  confirmRemove,
  onConfirmRemove,
  onSave,
  onRemove,
  secret,
  onSecret,
}: {
  selected: Selected;
  name: string;
  onName: (name: string) => void;
  /** The name is there and the editor has loaded. */
  canSave: boolean;
  running: "save" | "remove" | null;
  confirmRemove: boolean;
  onConfirmRemove: (asking: boolean) => void;
  onSave: () => void;
  onRemove: () => void;
  /** Players are told nothing of this house rule. */
  secret: boolean;
  onSecret: (secret: boolean) => void;
}) {
  return (
    <div class="editor-toolbar">
      {selected.type === "ruleset" ? (
        <p class="editor-name">
          <strong>{selected.name}</strong> <span class="badge">read-only</span>
        </p>
      ) : (
        <label class="field inline">
          <span class="field-label">File name</span>
          <input value={name} disabled={selected.type === "house"} onInput={(e) => onName(e.currentTarget.value)} spellcheck={false} />
        </label>
      )}
      {selected.type !== "ruleset" && (
        <label class="field inline secret-rule">
          <input type="checkbox" checked={secret} disabled={running !== null} onChange={(e) => onSecret(e.currentTarget.checked)} /> Keep it secret
          from players
        </label>
      )}
      <div class="toolbar-buttons">
        {selected.type !== "ruleset" && (
          <button type="button" class="primary" onClick={onSave} disabled={running !== null || !canSave} aria-busy={running === "save"}>
            {running === "save" ? <Working text="Saving and reloading…" /> : "Save and reload"}
          </button>
        )}
        {selected.type === "house" && (
          <RemoveButton name={selected.name} running={running} asking={confirmRemove} onAsk={onConfirmRemove} onRemove={onRemove} />
        )}
      </div>
    </div>
  );
}

function RemoveButton({
  name,
  running,
  asking,
  onAsk,
  onRemove,
}: {
  name: string;
  running: "save" | "remove" | null;
  asking: boolean;
  onAsk: (asking: boolean) => void;
  onRemove: () => void;
}) {
  if (!asking) {
    return (
      <button type="button" onClick={() => onAsk(true)} disabled={running !== null}>
        Remove
      </button>
    );
  }
  return (
    <span class="confirm">
      Remove {name}?{" "}
      <button type="button" class="danger" onClick={onRemove} disabled={running !== null}>
        {running === "remove" ? <Working text="Removing…" /> : "Yes, remove it"}
      </button>{" "}
      <button type="button" onClick={() => onAsk(false)}>
        Keep it
      </button>
    </span>
  );
}

function Working({ text }: { text: string }) {
  return (
    <>
      <span class="spinner" /> {text}
    </>
  );
}
