// The loading, busy and error state a screen keeps around its calls to the engine, written once.
//
// `useCall` loads a value: it asks when the screen mounts and again whenever the method or its
// parameters change (null parameters: not now), keeps the last value while it asks again, and
// keeps the last ask's error until an ask succeeds. An answer overtaken by a newer ask, or that
// comes after the screen went away, is not kept.
//
// `useAction` is what a button starts: busy from the start of a run to its end (`running` says
// which run, for a screen with several buttons), the error cleared when a run starts and set to
// the engine's report when it fails. A run never rejects: a failed one resolves to undefined, so
// no failure goes unshown. Calls are typed by the contract's call map, as `store.call` is.

import { useEffect, useRef, useState } from "preact/hooks";
import type { Calls, ErrorReport, Method } from "./contract";
import type { Store } from "./store";
import { toReport } from "./transport";

/** A value loaded from one call. */
export interface Loaded<T> {
  /** The last answer (undefined until the first). */
  value: T | undefined;
  /** An ask is on its way. */
  loading: boolean;
  /** Why the last ask failed (null once one succeeds). */
  error: ErrorReport | null;
  /** Asks again now: the answer, or undefined when the ask failed. */
  reload: () => Promise<T | undefined>;
  /** Replaces the value with what another call answered. */
  set: (value: T) => void;
}

/** Loads `method` with `params` (null: not now) and keeps its answer. */
export function useCall<M extends Method>(store: Store, method: M, params: Calls[M]["params"] | null): Loaded<Calls[M]["result"]> {
  type T = Calls[M]["result"];
  const [value, setValue] = useState<T | undefined>(undefined);
  const [loading, setLoading] = useState(params !== null);
  const [error, setError] = useState<ErrorReport | null>(null);
  const latest = useRef(0);
  const asked = useRef(params);
  asked.current = params;
  const key = params === null ? null : JSON.stringify(params);

  async function reload(): Promise<T | undefined> {
    const params = asked.current;
    if (params === null) return undefined;
    const mine = ++latest.current;
    setLoading(true);
    try {
      const answer = await store.call(method, params);
      if (mine === latest.current) {
        setValue(answer);
        setError(null);
      }
      return answer;
    } catch (e) {
      if (mine === latest.current) setError(toReport(e));
      return undefined;
    } finally {
      if (mine === latest.current) setLoading(false);
    }
  }

  useEffect(() => {
    if (key === null) setLoading(false);
    else void reload();
    return () => void latest.current++;
  }, [store, method, key]);
  return { value, loading, error, reload, set: setValue };
}

/** What a screen's buttons run. `K` names the runs a screen tells apart ("save", "remove"). */
export interface Action<K extends string> {
  /** A run is on its way. */
  busy: boolean;
  /** Which run is on its way (null: none, or one not named). */
  running: K | null;
  /** Why the last run failed, or what `fail` was told. */
  error: ErrorReport | null;
  /** Runs `f` (as `what`): its result, or undefined when it failed (the error is kept). */
  run: <T>(f: () => Promise<T>, what?: K) => Promise<T | undefined>;
  /** Makes one call as a run. */
  call: <M extends Method>(method: M, params: Calls[M]["params"], what?: K) => Promise<Calls[M]["result"] | undefined>;
  /** Shows a problem found before anything was sent (null clears the error). */
  fail: (error: ErrorReport | null) => void;
}

/** Busy and error state for the calls a screen's buttons make. */
export function useAction<K extends string = never>(store: Store): Action<K> {
  const [runs, setRuns] = useState<{ what: K | null }[]>([]);
  const [error, setError] = useState<ErrorReport | null>(null);

  async function run<T>(f: () => Promise<T>, what?: K): Promise<T | undefined> {
    const mine = { what: what ?? null };
    setRuns((now) => [...now, mine]);
    setError(null);
    try {
      return await f();
    } catch (e) {
      setError(toReport(e));
      return undefined;
    } finally {
      setRuns((now) => now.filter((r) => r !== mine));
    }
  }

  const call = <M extends Method>(method: M, params: Calls[M]["params"], what?: K) => run(() => store.call(method, params), what);
  const running = runs.length ? runs[runs.length - 1].what : null;
  return { busy: runs.length > 0, running, error, run, call, fail: setError };
}
