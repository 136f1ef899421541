// A value asked of the engine now and every few seconds while a screen shows it (who is connected
// to the served table, whether the Matrix referee answers): a failed ask keeps the last value and
// the next one tries again, since a status is not worth an error box.

import { useEffect, useState } from "preact/hooks";

/** How often a polled value is asked again while mounted. */
export const REFRESH_MS = 2000;

/** `ask()` now and every REFRESH_MS while mounted: [value (undefined until the first answer),
 * set it, ask again now]. */
export function usePolled<T>(ask: () => Promise<T>): [T | undefined, (v: T) => void, () => Promise<void>] {
  const [value, setValue] = useState<T | undefined>(undefined);
  const refresh = async () => {
    try {
      setValue(await ask());
    } catch {
      // The next refresh tries again.
    }
  };
  useEffect(() => {
    void refresh();
    const timer = window.setInterval(() => void refresh(), REFRESH_MS);
    return () => window.clearInterval(timer);
  }, []);
  return [value, setValue, refresh];
}
