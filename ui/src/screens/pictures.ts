// Pictures on the map: each is asked of the engine by key (the GM by its digest, a player by the
// map key of the scene shown to them, whose fogged areas the engine has already blacked out on
// the GM's machine) and shown from a data: URL; and the GM's import of a file the picker or a
// drop gave. Nothing here decides what a viewer may see: a key the engine refuses shows nothing.

import { useEffect, useState } from "preact/hooks";
import type { Imported } from "../contract";
import type { Store } from "../store";

export interface Shown {
  url: string;
  width: number;
  height: number;
}

/** Pictures already fetched, by key (a key changes whenever the picture or its fog does). */
const fetched = new Map<string, Shown>();
const KEPT = 12;

/** The picture under `key`, once fetched (null while it loads, or if the engine refuses it). */
export function usePicture(store: Store, key: string | null | undefined): Shown | null {
  const [shown, setShown] = useState<Shown | null>(key ? (fetched.get(key) ?? null) : null);
  useEffect(() => {
    if (!key) return setShown(null);
    const kept = fetched.get(key);
    if (kept) return setShown(kept);
    let live = true;
    store
      .call("picture", { key })
      .then((p) => {
        const s = { url: `data:${p.mime};base64,${p.data}`, width: p.width, height: p.height };
        fetched.set(key, s);
        if (fetched.size > KEPT) fetched.delete(fetched.keys().next().value as string);
        if (live) setShown(s);
      })
      .catch(() => live && setShown(null));
    return () => {
      live = false;
    };
  }, [key]);
  return shown;
}

/** The file types the import accepts (the engine checks the bytes, not the name). */
export const ACCEPTED = "image/png,image/jpeg,image/webp,.png,.jpg,.jpeg,.webp";

/** Reads a file the GM chose and imports it into the campaign. */
export async function importPicture(store: Store, file: File): Promise<Imported> {
  const data = await new Promise<string>((resolve, reject) => {
    const r = new FileReader();
    r.onload = () => resolve(String(r.result).replace(/^data:[^,]*,/, ""));
    r.onerror = () => reject(r.error ?? new Error(`${file.name} could not be read`));
    r.readAsDataURL(file);
  });
  return store.call("import_picture", { name: file.name, data });
}
