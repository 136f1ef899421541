// The map above the table: the scene as the viewer may see it (a player gets the scene shown to
// the players, only the tokens they may see, and the fog's revealed cells and areas; the engine
// leaves the rest out), drawn on a square or pointy-top hex grid. This part holds the GM's scene
// bar (making scenes, the map picture, showing a scene to the players); the board in `map/`
// draws the scene and takes what the viewer does on it: picking, measuring and moving tokens,
// zooming (buttons, Ctrl+wheel, pinch), and the GM's token menu, placing and fog tools. Where a
// token stands and what it may do are the engine's; this screen only draws and asks.

import { useState } from "preact/hooks";
import type { SceneOp, View } from "../contract";
import type { Store } from "../store";
import { useAction } from "../calls";
import { ErrorBox } from "../ui/errors";
import { toReport } from "../transport";
import { ACCEPTED, importPicture } from "./pictures";
import { freshId, SceneBoard } from "./map/board";

export function SceneMap({ store, view, me }: { store: Store; view: View; me: string | null }) {
  const gm = me === null;
  const scenes = view.scenes ?? [];
  const [picked, setPicked] = useState<string | null>(null);
  const scene = scenes.find((s) => s.id === picked) ?? scenes.find((s) => s.shown) ?? scenes[0];
  const run = useAction<string>(store);
  const [newName, setNewName] = useState("");

  const op = async (o: SceneOp) => {
    const done = await run.call("scene", o, o.op);
    if (done !== undefined) await store.refresh("update");
    return done;
  };
  const [importing, setImporting] = useState(false);
  const usePictureFile = async (file: File | undefined) => {
    if (!file || !scene) return;
    setImporting(true);
    run.fail(null);
    try {
      const got = await importPicture(store, file);
      const background = { digest: got.digest, width: got.picture.width, height: got.picture.height };
      await op({ op: "update", id: scene.id, background });
    } catch (e) {
      run.fail(toReport(e));
    } finally {
      setImporting(false);
    }
  };
  const create = async () => {
    const name = newName.trim();
    if (!name) return run.fail({ code: "bad_param", message: "A scene needs a name.", param: "name" });
    const id = freshId(name, new Set(scenes.map((s) => s.id)));
    if ((await op({ op: "create", id, name })) !== undefined) {
      setPicked(id);
      setNewName("");
    }
  };

  if (!scene && !gm) return null;
  return (
    <section class="scene-map card" aria-label="Map">
      <h2 class="section-title">
        Map{scene && <span class="muted small"> · {scene.name}</span>}
        {scene && gm && (scene.shown ? <span class="badge">shown to players</span> : <span class="badge muted">players do not see it</span>)}
      </h2>
      {gm && (
        <div class="scene-bar">
          {scenes.length > 0 && (
            <label class="field inline">
              <span class="field-label">Scene</span>
              <select aria-label="Scene" value={scene?.id} onChange={(e) => setPicked(e.currentTarget.value)}>
                {scenes.map((s) => (
                  <option key={s.id} value={s.id}>
                    {s.name}
                    {s.shown ? " (shown)" : ""}
                  </option>
                ))}
              </select>
            </label>
          )}
          <form
            class="inline-form"
            onSubmit={(e) => {
              e.preventDefault();
              void create();
            }}
          >
            <label class="field inline">
              <span class="field-label">New scene</span>
              <input value={newName} placeholder="Name" maxLength={80} onInput={(e) => setNewName(e.currentTarget.value)} />
            </label>
            <button type="submit" class="small" disabled={run.busy}>
              Make scene
            </button>
          </form>
          {scene && (
            <label class="button small file-button">
              {importing ? "Importing…" : scene.background ? "Change map picture" : "Map picture…"}
              <input
                type="file"
                class="visually-hidden"
                accept={ACCEPTED}
                aria-label="Import a map picture (PNG, JPEG or WebP)"
                disabled={importing}
                onChange={(e) => {
                  void usePictureFile(e.currentTarget.files?.[0]);
                  e.currentTarget.value = "";
                }}
              />
            </label>
          )}
          {scene && (
            <button type="button" class="small" disabled={run.busy} onClick={() => void op({ op: "show", id: scene.shown ? null : scene.id })}>
              {scene.shown ? "Hide from players" : "Show to players"}
            </button>
          )}
        </div>
      )}
      {run.error && <ErrorBox error={run.error} />}
      {scene ? (
        <SceneBoard key={scene.id} store={store} view={view} scene={scene} me={me} op={op} busy={run.busy} onError={run.fail} onPicture={gm ? usePictureFile : undefined} />
      ) : (
        <p class="muted">No scene yet: make one, then place tokens on it.</p>
      )}
    </section>
  );
}
