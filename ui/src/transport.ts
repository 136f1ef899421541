// The one place that knows how the UI reaches the engine.
//
// Desktop (Tauri, detected by `window.__TAURI_INTERNALS__`): `invoke(method, { params })`, events
// from `listen("houserule-event")`, file dialogs from the dialog plugin.
// Browser (`houserule serve`): a WebSocket to `/ws` on the same host speaking
// `{id, method, params}` → `{id, result}` | `{id, error}`, with `{event}` pushed at any time.
// The method names, results and errors are the same either way (docs/ui-contract.md).

import type { AppEvent, Calls, ErrorReport, Method } from "./contract";

/** A failed call: always carries the engine's error shape. */
export class CallError extends Error {
  readonly report: ErrorReport;
  constructor(report: ErrorReport) {
    super(report.message);
    this.report = report;
  }
}

/** "removed": the GM removed this player (no reconnecting); "stopped": the GM stopped hosting
 * (the page keeps trying, for when hosting starts again); "closed": the GM closed the table to
 * other computers (the page keeps trying, for when it is opened again). */
export type LinkState = "connecting" | "open" | "lost" | "removed" | "stopped" | "closed";

/** The close codes the server gives a reason with. */
const CLOSED_BY_GM: Record<number, LinkState> = { 4001: "removed", 4002: "stopped", 4003: "closed" };

/** A choice made in the desktop's File menu (`src-tauri/src/menu.rs`, `MenuChoice`): the page
 * answers it with the calls its own buttons make. */
export type MenuChoice = { item: "new" } | { item: "open" } | { item: "open_recent"; path: string } | { item: "close" };

export interface Transport {
  readonly host: "desktop" | "server";
  /** Makes one of the app layer's calls (`contract.ts`, generated from its one list). */
  call<M extends Method>(method: M, params: Calls[M]["params"]): Promise<Calls[M]["result"]>;
  /** Pushed events; returns a function that stops listening. */
  onEvent(listener: (event: AppEvent) => void): () => void;
  /** The link to the server (always "open" on the desktop). After "lost" → "open" the
   * connection has joined again with the same hello, and the caller should refetch. */
  onLink(listener: (state: LinkState) => void): () => void;
  /** Desktop only: choices made in the window's File menu (a browser has none). */
  onMenu(listener: (choice: MenuChoice) => void): () => void;
  /** Desktop only: ask for a campaign file to open. */
  chooseCampaignFile(): Promise<string | null>;
  /** Desktop only: ask where to save a new campaign. */
  chooseNewCampaignPath(suggested: string): Promise<string | null>;
}

/** Turns whatever a call rejected with into the engine's error shape. */
export function toReport(e: unknown): ErrorReport {
  if (e instanceof CallError) return e.report;
  if (e && typeof e === "object" && "code" in e && "message" in e) return e as ErrorReport;
  if (typeof e === "string") {
    try {
      const parsed = JSON.parse(e);
      if (parsed && typeof parsed === "object" && "code" in parsed) return parsed as ErrorReport;
    } catch {
      /* a plain message */
    }
    return { code: "internal", message: e };
  }
  return { code: "internal", message: e instanceof Error ? e.message : String(e) };
}

export function isDesktop(): boolean {
  return typeof window !== "undefined" && "__TAURI_INTERNALS__" in window;
}

export function createTransport(): Transport {
  return isDesktop() ? new DesktopTransport() : new SocketTransport(socketUrl());
}

function socketUrl(): string {
  const { protocol, host } = window.location;
  return `${protocol === "https:" ? "wss" : "ws"}://${host}/ws`;
}

const CAMPAIGN_FILTER = [{ name: "Houserule campaign", extensions: ["houserule"] }];

class DesktopTransport implements Transport {
  readonly host = "desktop" as const;
  private listeners = new Set<(event: AppEvent) => void>();
  private listening: Promise<unknown> | null = null;

  async call<M extends Method>(method: M, params: Calls[M]["params"]): Promise<Calls[M]["result"]> {
    const { invoke } = await import("@tauri-apps/api/core");
    try {
      return await invoke<Calls[M]["result"]>(method, { params });
    } catch (e) {
      throw new CallError(toReport(e));
    }
  }

  onEvent(listener: (event: AppEvent) => void): () => void {
    this.listeners.add(listener);
    if (!this.listening) {
      this.listening = import("@tauri-apps/api/event").then(({ listen }) =>
        listen<AppEvent>("houserule-event", (e) => {
          for (const l of this.listeners) l(e.payload);
        }),
      );
    }
    return () => this.listeners.delete(listener);
  }

  onLink(listener: (state: LinkState) => void): () => void {
    listener("open");
    return () => {};
  }

  onMenu(listener: (choice: MenuChoice) => void): () => void {
    let stop: (() => void) | null = null;
    let stopped = false;
    void import("@tauri-apps/api/event").then(({ listen }) =>
      listen<MenuChoice>("houserule-menu", (e) => listener(e.payload)).then((un) => (stopped ? un() : (stop = un))),
    );
    return () => {
      stopped = true;
      stop?.();
    };
  }

  async chooseCampaignFile(): Promise<string | null> {
    const { open } = await import("@tauri-apps/plugin-dialog");
    const picked = await open({ multiple: false, directory: false, filters: CAMPAIGN_FILTER, title: "Open a campaign" });
    return typeof picked === "string" ? picked : null;
  }

  async chooseNewCampaignPath(suggested: string): Promise<string | null> {
    const { save } = await import("@tauri-apps/plugin-dialog");
    const path = await save({ defaultPath: suggested, filters: CAMPAIGN_FILTER, title: "Save the new campaign as" });
    if (!path) return null;
    return path.endsWith(".houserule") ? path : `${path}.houserule`;
  }
}

interface Pending {
  resolve: (v: unknown) => void;
  reject: (e: unknown) => void;
}

class SocketTransport implements Transport {
  readonly host = "server" as const;
  private socket: WebSocket | null = null;
  private nextId = 1;
  private pending = new Map<number, Pending>();
  private queue: string[] = [];
  private events = new Set<(event: AppEvent) => void>();
  private links = new Set<(state: LinkState) => void>();
  private state: LinkState = "connecting";
  /** The hello that joined, re-sent when the link comes back. */
  private hello: Calls["hello"]["params"] | null = null;
  private retry = 0;

  constructor(private url: string) {
    this.connect();
  }

  private setState(state: LinkState) {
    this.state = state;
    for (const l of this.links) l(state);
  }

  private connect() {
    const socket = new WebSocket(this.url);
    this.socket = socket;
    socket.onopen = () => {
      this.retry = 0;
      if (this.hello) {
        // Join again before anything queued: the role belongs to the connection.
        const id = this.nextId++;
        this.pending.set(id, {
          resolve: () => this.setState("open"),
          reject: () => this.setState("lost"),
        });
        socket.send(JSON.stringify({ id, method: "hello", params: this.hello }));
      } else {
        this.setState("open");
      }
      for (const msg of this.queue.splice(0)) socket.send(msg);
    };
    socket.onmessage = (m) => this.receive(String(m.data));
    socket.onclose = (e) => {
      if (this.socket !== socket) return;
      for (const p of this.pending.values()) p.reject(new CallError({ code: "disconnected", message: "the connection to the table was lost" }));
      this.pending.clear();
      const why = CLOSED_BY_GM[e.code];
      // A failed reconnect after the GM stopped hosting (or closed the network) still says so.
      const kept = this.state === "stopped" || this.state === "closed" ? this.state : "lost";
      this.setState(why ?? kept);
      if (why === "removed") return;
      const wait = Math.min(5000, 300 * 2 ** this.retry++);
      window.setTimeout(() => this.connect(), wait);
    };
  }

  private receive(text: string) {
    let msg: { id?: number; result?: unknown; error?: ErrorReport; event?: AppEvent };
    try {
      msg = JSON.parse(text);
    } catch {
      return;
    }
    if (msg.event) {
      for (const l of this.events) l(msg.event);
      return;
    }
    const p = msg.id !== undefined ? this.pending.get(msg.id) : undefined;
    if (!p || msg.id === undefined) return;
    this.pending.delete(msg.id);
    if (msg.error) p.reject(new CallError(msg.error));
    else p.resolve(msg.result);
  }

  call<M extends Method>(method: M, params: Calls[M]["params"]): Promise<Calls[M]["result"]> {
    const id = this.nextId++;
    const msg = JSON.stringify({ id, method, params });
    return new Promise<Calls[M]["result"]>((resolve, reject) => {
      this.pending.set(id, {
        resolve: (v) => {
          if (method === "hello") this.hello = params as Calls["hello"]["params"];
          resolve(v as Calls[M]["result"]);
        },
        reject,
      });
      if (this.socket && this.socket.readyState === WebSocket.OPEN) this.socket.send(msg);
      else this.queue.push(msg);
    });
  }

  onEvent(listener: (event: AppEvent) => void): () => void {
    this.events.add(listener);
    return () => this.events.delete(listener);
  }

  onLink(listener: (state: LinkState) => void): () => void {
    this.links.add(listener);
    listener(this.state);
    return () => this.links.delete(listener);
  }

  onMenu(): () => void {
    return () => {};
  }

  async chooseCampaignFile(): Promise<string | null> {
    return null;
  }

  async chooseNewCampaignPath(): Promise<string | null> {
    return null;
  }
}
