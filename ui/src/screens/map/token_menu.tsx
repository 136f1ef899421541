// The GM's menu for the token they picked: its picture (a file the GM imports, or none), the
// entity it stands for (or none: a free marker), its size in cells, hidden or shown, and its
// removal (asked twice). Each change is one `token` scene operation — one logged GM action the
// log can undo — and a refusal (of the change, or of the picture's import) shows here. What a
// token may be is the engine's to check; this menu only asks.

import { useState } from "preact/hooks";
import type { SceneOp, TokenView, View } from "../../contract";
import type { Store } from "../../store";
import { useAction } from "../../calls";
import { ErrorBox } from "../../ui/errors";
import { humanize } from "../../format";
import { ACCEPTED, importPicture } from "../pictures";

/** The sizes offered, in cells across (a size set elsewhere is offered too). */
const SIZES = [1, 2, 3, 4];

type What = "picture" | "change" | "remove";
/** Sends one scene operation (made by `make`, which may first import a picture); true once done. */
type Send = (make: () => Promise<SceneOp> | SceneOp, what: What) => Promise<boolean>;

interface MenuProps {
  store: Store;
  view: View;
  token: TokenView;
  /** The token is gone from the map (it was removed). */
  onRemoved: () => void;
}

export function TokenMenu({ store, view, token, onRemoved }: MenuProps) {
  const act = useAction<What>(store);
  const send: Send = async (make, what) => {
    const done = await act.run(async () => {
      await store.call("scene", await make());
      await store.refresh("update");
      return true;
    }, what);
    return done === true;
  };
  const busy = act.busy;
  return (
    <div class="token-menu" role="group" aria-label={`Token ${token.name}`}>
      <span class="token-menu-title">{token.name}</span>
      <TokenPicture store={store} view={view} token={token} busy={busy} importing={act.running === "picture"} send={send} />
      <TokenBinding view={view} token={token} busy={busy} send={send} />
      <TokenSize token={token} busy={busy} send={send} />
      <button type="button" class="small" disabled={busy} onClick={() => void send(() => ({ op: "token", id: token.id, hidden: !token.hidden }), "change")}>
        {token.hidden ? `Show ${token.name}` : `Hide ${token.name}`}
      </button>
      <TokenRemoval
        token={token}
        busy={busy}
        remove={async () => {
          if (await send(() => ({ op: "remove_token", id: token.id }), "remove")) onRemoved();
        }}
      />
      {act.error && <ErrorBox error={act.error} />}
    </div>
  );
}

/** The entity's own portrait, which its tokens without a picture of their own show. */
function portraitOf(view: View, token: TokenView): string | null {
  const entity = token.entity ? view.entities[token.entity] : undefined;
  return entity?.portrait ?? null;
}

function TokenPicture({ store, view, token, busy, importing, send }: { store: Store; view: View; token: TokenView; busy: boolean; importing: boolean; send: Send }) {
  // A token shows its entity's portrait when it has none of its own: only its own is taken off.
  const own = !!token.image && token.image !== portraitOf(view, token);
  const choose = (file: File) => send(async () => ({ op: "token", id: token.id, image: (await importPicture(store, file)).digest }), "picture");
  return (
    <>
      <label class="button small file-button">
        {importing ? "Importing…" : own ? "Change picture" : "Picture…"}
        <input
          type="file"
          class="visually-hidden"
          accept={ACCEPTED}
          aria-label={`Choose a picture for ${token.name} (PNG, JPEG or WebP)`}
          disabled={busy}
          onChange={(e) => {
            const input = e.currentTarget;
            const file = input.files?.[0];
            input.value = "";
            if (file) void choose(file);
          }}
        />
      </label>
      {own && (
        <button type="button" class="small" disabled={busy} onClick={() => void send(() => ({ op: "token", id: token.id, image: null }), "picture")}>
          No picture
        </button>
      )}
    </>
  );
}

/** The entity the token stands for, picked by name from the viewer's entities, or none. */
function TokenBinding({ view, token, busy, send }: { view: View; token: TokenView; busy: boolean; send: Send }) {
  const entities = Object.values(view.entities).sort((a, b) => a.name.localeCompare(b.name) || a.id.localeCompare(b.id));
  return (
    <label class="field inline">
      <span class="field-label">Stands for</span>
      <select
        aria-label={`What ${token.name} stands for`}
        value={token.entity ?? ""}
        disabled={busy}
        onChange={(e) => {
          const entity = e.currentTarget.value || null;
          void send(() => ({ op: "token", id: token.id, entity }), "change");
        }}
      >
        <option value="">nothing: a free marker</option>
        {entities.map((e) => (
          <option key={e.id} value={e.id}>
            {e.name} ({humanize(e.kind)})
          </option>
        ))}
      </select>
    </label>
  );
}

/** The token's size in cells across. */
function TokenSize({ token, busy, send }: { token: TokenView; busy: boolean; send: Send }) {
  const sizes = SIZES.includes(token.size) ? SIZES : [...SIZES, token.size].sort((a, b) => a - b);
  return (
    <label class="field inline">
      <span class="field-label">Size</span>
      <select
        aria-label={`Size of ${token.name} in cells`}
        value={String(token.size)}
        disabled={busy}
        onChange={(e) => {
          const size = Number(e.currentTarget.value);
          void send(() => ({ op: "token", id: token.id, size }), "change");
        }}
      >
        {sizes.map((n) => (
          <option key={n} value={String(n)}>
            {n === 1 ? "1 cell across" : `${n} cells across`}
          </option>
        ))}
      </select>
    </label>
  );
}

/** Removing the token, asked once more before it is sent. */
function TokenRemoval({ token, busy, remove }: { token: TokenView; busy: boolean; remove: () => Promise<void> }) {
  const [asking, setAsking] = useState(false);
  if (!asking) {
    return (
      <button type="button" class="small danger" disabled={busy} onClick={() => setAsking(true)}>
        Remove {token.name}…
      </button>
    );
  }
  return (
    <span class="confirm" role="group" aria-label={`Remove ${token.name}?`}>
      <span>Take {token.name} off the map? The log's undo puts it back.</span>
      <button type="button" class="small danger" disabled={busy} onClick={() => void remove().finally(() => setAsking(false))}>
        Yes, remove it
      </button>
      <button type="button" class="small" disabled={busy} onClick={() => setAsking(false)}>
        Keep it
      </button>
    </span>
  );
}
