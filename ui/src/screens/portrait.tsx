// An entity's portrait on its card: the picture the engine gives the viewer for the entity (a
// player gets it only while they may see the entity; nothing here decides that), and, for the
// GM, choosing a picture file for it or taking it off. Each change is one logged GM action the
// log can undo; the same portrait shows on the entity's tokens that have no picture of their own.

import type { EntityView } from "../contract";
import type { Store } from "../store";
import { useAction } from "../calls";
import { ErrorBox } from "../ui/errors";
import { toReport } from "../transport";
import { ACCEPTED, importPicture, usePicture } from "./pictures";

export function Portrait({ store, entity, gm }: { store: Store; entity: EntityView; gm: boolean }) {
  const shown = usePicture(store, entity.portrait);
  const run = useAction(store);
  const set = async (picture: string | null) => {
    const done = await run.call("scene", { op: "portrait", entity: entity.id, picture });
    if (done !== undefined) await store.refresh("update");
  };
  const choose = async (file: File | undefined) => {
    if (!file) return;
    run.fail(null);
    try {
      const got = await importPicture(store, file);
      await set(got.digest);
    } catch (e) {
      run.fail(toReport(e));
    }
  };
  if (!entity.portrait && !gm) return null;
  return (
    <div class="portrait">
      {shown && <img class="portrait-picture" src={shown.url} alt={`${entity.name}'s portrait`} width={72} height={72} />}
      {gm && (
        <div class="portrait-tools">
          <label class="button small file-button">
            {run.busy ? "Saving…" : entity.portrait ? "Change portrait" : "Portrait…"}
            <input
              type="file"
              class="visually-hidden"
              accept={ACCEPTED}
              aria-label={`Choose a portrait for ${entity.name} (PNG, JPEG or WebP)`}
              disabled={run.busy}
              onChange={(e) => {
                const input = e.currentTarget;
                void choose(input.files?.[0]).finally(() => (input.value = ""));
              }}
            />
          </label>
          {entity.portrait && (
            <button type="button" class="small" disabled={run.busy} onClick={() => void set(null)}>
              No portrait
            </button>
          )}
        </div>
      )}
      {run.error && <ErrorBox error={run.error} />}
    </div>
  );
}
