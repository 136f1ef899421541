// The session as the UI holds it: who we are, the campaign, and what the engine last showed
// this viewer (view, action forms, log). Screens read it and call its methods; it refetches when
// the engine says something happened, coalescing bursts of events into one refetch.
//
// The GM's statuses (the table served to browsers, the campaign's Matrix referee) are asked once,
// when a screen first needs one (`useStatus`), and then kept by the engine's `hosting` and
// `online` events, which it publishes whenever they change: no screen asks again and again. An
// answer is kept only if no event about it came while it was on its way (the event is as new),
// and both are asked again when a lost link comes back (events may have been missed meanwhile).

import { useEffect, useState } from "preact/hooks";
import { CallError, createTransport, toReport, type LinkState, type MenuChoice, type Transport } from "./transport";
import type {
  Calls,
  Method,
  ActionForm,
  AppEvent,
  CampaignInfo,
  Diagnostic,
  ErrorReport,
  LogEntry,
  Manifest,
  Acted,
  ReloadReport,
  Role,
  View,
  FormOdds,
  PostDraft,
  Online,
  Serving,
} from "./contract";

const LOG_PAGE = 100;

export interface State {
  link: LinkState;
  host: "server" | "desktop";
  /** Set once joined (desktop: at start). */
  role: Role | null;
  file: string | null;
  campaign: CampaignInfo | null;
  manifest: Manifest | null;
  /** Whose view is shown: the GM may preview a player's. */
  viewAs: Role;
  view: View | null;
  /** The GM's own view (for the player names of the view switch). */
  gmView: View | null;
  actions: ActionForm[];
  /** Oldest first. */
  log: LogEntry[];
  hasOlder: boolean;
  loading: boolean;
  /** The last refetch failed (kept so the screen can say so). */
  loadError: ErrorReport | null;
  /** The last edited rules that did not load (GM): the previous rules keep running. */
  reloadProblems: Diagnostic[] | null;
  /** The campaign file went away under the table (deleted, moved or replaced): why; nothing
   * more is kept until it is opened again. */
  fileGone: string | null;
  lastReload: ReloadReport | null;
  /** Bumped on each refresh so forms can notice new choices. */
  revision: number;
  /** The "new since you last looked" mark: entries after this event are new to this person
   * (null: nothing to set apart, as on a first visit). */
  unreadAfter: number | null;
  /** The table served to browsers (the GM's; null: not served). Undefined until a screen needs it. */
  serving: Serving | null | undefined;
  /** The campaign's room and referee online (the GM's; null: not linked). Undefined until needed. */
  online: Online | null | undefined;
  /** The GM chose New, Open or a recent file in the desktop's File menu: the start screen is
   * shown (over the campaign in play, if any) and, for "open" or a path, opens a file. */
  starting: Starting | null;
}

/** What the start screen was asked for from the File menu: to be shown, to ask for a file to
 * open, or to open a recent one. */
export type Starting = "new" | "open" | { path: string };

/** A status the engine pushes to the GM as it changes. */
export type Status = "serving" | "online";
/** What a status is once known. */
export type StatusValue<S extends Status> = Exclude<State[S], undefined>;

type Listener = (s: State) => void;

export class Store {
  readonly transport: Transport;
  state: State;
  private listeners = new Set<Listener>();
  private refreshing: Promise<void> | null = null;
  private again: "none" | "update" | "full" = "none";
  private generation = 0;
  /** The latest event a refresh was already asked for. */
  private refreshedTo = 0;
  /** How far this person has been seen reading the log (what `mark_read` was last told). */
  private readTo = 0;
  private readTimer: ReturnType<typeof setTimeout> | null = null;
  /** How many events told of each status: an answer that comes after one of them is dropped. */
  private heard: Record<Status, number> = { serving: 0, online: 0 };
  private asking: Record<Status, boolean> = { serving: false, online: false };
  /** The statuses a screen has needed (asked again when the link comes back). */
  private wanted = new Set<Status>();

  constructor(transport: Transport = createTransport()) {
    this.transport = transport;
    this.state = {
      link: "connecting",
      host: transport.host,
      role: null,
      file: null,
      campaign: null,
      manifest: null,
      viewAs: "gm",
      view: null,
      gmView: null,
      actions: [],
      log: [],
      hasOlder: false,
      loading: false,
      loadError: null,
      reloadProblems: null,
      fileGone: null,
      lastReload: null,
      revision: 0,
      unreadAfter: null,
      serving: undefined,
      online: undefined,
      starting: null,
    };
    transport.onEvent((e) => this.onEvent(e));
    transport.onMenu((choice) => this.menu(choice));
    transport.onLink((link) => {
      const was = this.state.link;
      this.set({ link });
      const back = link === "open" && (was === "lost" || was === "stopped" || was === "closed");
      if (back && this.state.role && this.state.campaign) void this.refresh("full");
      if (back) this.askAgain();
    });
  }

  subscribe(l: Listener): () => void {
    this.listeners.add(l);
    return () => this.listeners.delete(l);
  }

  set(patch: Partial<State>) {
    this.state = { ...this.state, ...patch };
    for (const l of this.listeners) l(this.state);
  }

  get isGm(): boolean {
    return this.state.role === "gm";
  }

  /** Parameters that make a call look (and act) as the chosen viewer. */
  private asParam(): { as?: string } {
    return this.isGm && this.state.viewAs !== "gm" ? { as: this.state.viewAs } : {};
  }

  call<M extends Method>(method: M, params: Calls[M]["params"]): Promise<Calls[M]["result"]> {
    return this.transport.call(method, params);
  }

  /** Joins: browser with `{invite}` (a player's join link) or `{secret}` (the GM), desktop with `{}`. */
  async join(params: Record<string, unknown>): Promise<void> {
    const hello = await this.call("hello", params);
    this.set({ role: hello.role, file: hello.file ?? null, host: hello.local ? "desktop" : "server", viewAs: hello.role });
    if (hello.campaign) await this.opened(hello.campaign, hello.last_read ?? null);
  }

  /** A campaign is open (created, opened, or already playing when we joined); `lastRead` is
   * how far this person had read its log before. */
  async opened(campaign: CampaignInfo, lastRead: number | null = null): Promise<void> {
    this.refreshedTo = 0;
    this.readTo = lastRead ?? 0;
    this.set({
      unreadAfter: lastRead,
      campaign,
      manifest: null,
      view: null,
      gmView: null,
      actions: [],
      log: [],
      viewAs: this.state.role ?? "gm",
      reloadProblems: null,
      fileGone: null,
      lastReload: null,
      starting: null,
    });
    await this.loadManifest();
    await this.refresh("full");
  }

  /** A choice made in the desktop's File menu, answered with the calls the page's buttons make. */
  menu(choice: MenuChoice) {
    if (choice.item === "close") {
      void this.call("close", {}).catch((e) => this.set({ loadError: toReport(e) }));
      return;
    }
    this.set({ starting: choice.item === "open_recent" ? { path: choice.path } : choice.item });
  }

  /** The campaign in play was closed: back to the start. */
  private closed() {
    this.refreshedTo = 0;
    this.set({
      campaign: null,
      file: null,
      manifest: null,
      view: null,
      gmView: null,
      actions: [],
      log: [],
      hasOlder: false,
      reloadProblems: null,
      fileGone: null,
      lastReload: null,
      loadError: null,
      unreadAfter: null,
      serving: undefined,
      online: undefined,
      starting: null,
    });
  }

  private async loadManifest() {
    try {
      const manifest = await this.call("manifest", {});
      this.set({ manifest });
    } catch (e) {
      this.set({ loadError: toReport(e) });
    }
  }

  /** Refetches the view, the forms and the log. "update" fetches only new log entries. */
  refresh(kind: "update" | "full" = "update"): Promise<void> {
    if (this.refreshing) {
      if (kind === "full" || this.again === "none") this.again = kind;
      return this.refreshing;
    }
    this.refreshing = this.doRefresh(kind).finally(() => {
      this.refreshing = null;
      const next = this.again;
      this.again = "none";
      if (next !== "none") void this.refresh(next);
    });
    return this.refreshing;
  }

  private async doRefresh(kind: "update" | "full") {
    if (!this.state.campaign) return;
    const gen = ++this.generation;
    const as = this.asParam();
    const last = this.state.log.length ? this.state.log[this.state.log.length - 1].seq : 0;
    const full = kind === "full" || last === 0;
    this.set({ loading: true });
    try {
      // One call brings the view, the forms and the new log entries, all as of one event.
      const [now, gmView] = await Promise.all([
        this.call("table", full ? { ...as, limit: LOG_PAGE } : { ...as, from: last + 1, limit: 2000 }),
        this.isGm && "as" in as ? this.call("view", {}) : Promise.resolve(null),
      ]);
      if (gen !== this.generation) return;
      const { view, actions, log } = now;
      let merged: LogEntry[];
      let hasOlder = this.state.hasOlder;
      if (full) {
        merged = log;
        hasOlder = log.length > 0 && log[0].seq > 1;
      } else {
        merged = this.state.log.concat(log.filter((e) => e.seq > last));
      }
      this.set({
        view,
        actions,
        log: merged,
        hasOlder,
        gmView: gmView ?? (this.isGm && !("as" in as) ? view : this.state.gmView),
        campaign: view.campaign,
        loading: false,
        loadError: null,
        revision: this.state.revision + 1,
      });
    } catch (e) {
      if (gen !== this.generation) return;
      this.set({ loading: false, loadError: toReport(e) });
    }
  }

  /** Older log entries, a page at a time (read by sequence number: the cost is the page). */
  async loadOlder(): Promise<void> {
    const log = this.state.log;
    if (!log.length) return;
    const first = log[0].seq;
    const older = await this.call("log", { ...this.asParam(), before: first, limit: LOG_PAGE });
    const before = older.filter((e) => e.seq < first);
    this.set({ log: before.concat(this.state.log), hasOlder: before.length > 0 && before[0].seq > 1 });
  }

  async setViewAs(role: Role): Promise<void> {
    if (!this.isGm || role === this.state.viewAs) return;
    this.set({ viewAs: role, log: [], hasOlder: false });
    await this.refresh("full");
  }

  /** Takes an action; parameters and dice go as typed (`dice`: "4, 6, +"), the engine parses them.
   * Every action carries 32 fresh random bytes from this device, mixed into its rolls, so the
   * holder of the campaign's seed cannot know them in advance (docs/dice.md). */
  async act(action: string, params: Record<string, unknown>, dice: string | null, post: PostDraft | null = null): Promise<Acted> {
    const outcome = await this.call("act", {
      ...this.asParam(),
      action,
      params,
      entropy: freshEntropy(),
      ...(dice ? { dice } : {}),
      ...(post ? { post } : {}),
    });
    // This refresh covers the action's own `committed` event, which arrives with the reply.
    this.refreshedTo = Math.max(this.refreshedTo, outcome.event.seq);
    void this.refresh("update");
    return outcome;
  }

  /** Writes a post (as the viewer shown: the GM previewing a player writes as that player). */
  async say(draft: PostDraft): Promise<LogEntry> {
    const entry = await this.call("say", { ...this.asParam(), ...draft, entropy: freshEntropy() });
    this.refreshedTo = Math.max(this.refreshedTo, entry.seq);
    void this.refresh("update");
    return entry;
  }

  /** Replaces the text of one's own post `seq` (a new entry; the original stays). */
  async editPost(seq: number, text: string): Promise<LogEntry> {
    const entry = await this.call("edit_post", { ...this.asParam(), seq, text });
    this.refreshedTo = Math.max(this.refreshedTo, entry.seq);
    void this.refresh("update");
    return entry;
  }

  /** Log entry `seq` as a forum post (`markdown` or `bbcode`), as this person sees it. */
  forumPost(seq: number, format: "markdown" | "bbcode"): Promise<string> {
    return this.call("forum_post", { seq, format });
  }

  /** Whether the log shown is this person's own (not the GM's preview of a player's). */
  get ownView(): boolean {
    return this.state.viewAs === this.state.role;
  }

  /** This person has the log in front of them up to `seq`: the server keeps the mark (told
   * after a short pause, so a burst of entries is one call). */
  seen(seq: number) {
    if (!this.ownView || seq <= this.readTo) return;
    this.readTo = seq;
    if (this.readTimer) return;
    this.readTimer = setTimeout(() => {
      this.readTimer = null;
      this.call("mark_read", { seq: this.readTo }).catch(() => {
        // Not kept this time: the next entry seen tries again.
      });
    }, 800);
  }

  /** This person looks at the log again (the page or the log pane shown again): what came
   * since they last looked is set apart. */
  lookingAgain() {
    if (!this.ownView) return;
    const log = this.state.log;
    const latest = log.length ? log[log.length - 1].seq : 0;
    if (this.readTo > 0 && latest > this.readTo) this.set({ unreadAfter: this.readTo });
  }

  /** Loads older entries until event `seq` is in (for "Jump to unread"). */
  async loadBackTo(seq: number): Promise<void> {
    for (let guard = 0; guard < 50; guard++) {
      const log = this.state.log;
      if (!log.length || log[0].seq <= seq || !this.state.hasOlder) return;
      const first = log[0].seq;
      const older = await this.call("log", { ...this.asParam(), from: seq, before: first, limit: 2000 });
      const before = older.filter((e) => e.seq < first);
      if (!before.length) {
        this.set({ hasOlder: seq > 1 });
        return;
      }
      this.set({ log: before.concat(this.state.log), hasOlder: before[0].seq > 1 });
    }
  }

  /** The chance of success of an action as its form stands (nothing is rolled or kept). */
  odds(action: string, params: Record<string, unknown>): Promise<FormOdds> {
    return this.call("odds", { ...this.asParam(), action, params });
  }

  /** Takes back the latest action (the GM's); the log keeps it, voided. */
  async undo(to?: number): Promise<void> {
    await this.call("undo", to == null ? {} : { to });
    await this.refresh("full");
  }

  /** Sets a value by hand, with the GM's reason. */
  async correct(correction: Calls["correct"]["params"]["correction"], reason: string): Promise<void> {
    await this.call("correct", { correction, reason });
    await this.refresh("update");
  }

  async create(ruleset: string, settings: Record<string, unknown>, name: string, path: string | null): Promise<void> {
    const info = await this.call("create", { ruleset, settings, name, ...(path ? { path } : {}) });
    if (path) this.set({ file: path });
    await this.opened(info);
  }

  async open(path: string): Promise<void> {
    const info = await this.call("open", { path });
    this.set({ file: path });
    await this.opened(info);
  }

  /** Rules changed: labels may have too. */
  private async reloaded(report: ReloadReport | null) {
    this.set({ lastReload: report, reloadProblems: null });
    await this.loadManifest();
    await this.refresh("update");
  }

  noteReload(report: ReloadReport | null) {
    void this.reloaded(report);
  }

  dismissProblems() {
    this.set({ reloadProblems: null });
  }

  /** A screen shows `status`: asked now unless it is known or being asked; events keep it. */
  need(status: Status): void {
    this.wanted.add(status);
    if (this.state[status] !== undefined || this.asking[status]) return;
    void this.ask(status);
  }

  /** Makes a call that changes `status` and answers it as it is now (`host_start`, `online_link`
   * …), and keeps that answer unless an event told of the status while it was on its way.
   * Rejects as the call does. */
  async changeStatus<S extends Status>(status: S, call: () => Promise<StatusValue<S>>): Promise<StatusValue<S>> {
    const heard = this.heard[status];
    const value = await call();
    if (this.heard[status] === heard) this.setStatus(status, value);
    return value;
  }

  private async ask(status: Status): Promise<void> {
    this.asking[status] = true;
    try {
      await this.changeStatus(status, () => (status === "serving" ? this.call("hosting", {}) : this.call("online", {})));
    } catch {
      // Not worth an error box: the next screen that needs it, or the link coming back, asks again.
    } finally {
      this.asking[status] = false;
    }
  }

  /** After the link came back: the statuses screens needed are asked again. */
  private askAgain() {
    for (const status of this.wanted) if (!this.asking[status]) void this.ask(status);
  }

  private setStatus(status: Status, value: StatusValue<Status>) {
    this.set(status === "serving" ? { serving: value as Serving | null } : { online: value as Online | null });
  }

  private heardStatus(status: Status, value: StatusValue<Status>) {
    this.heard[status]++;
    this.setStatus(status, value);
  }

  private onEvent(e: AppEvent) {
    if (e.type === "hosting") return this.heardStatus("serving", e.serving ?? null);
    if (e.type === "online") return this.heardStatus("online", e.online ?? null);
    if (e.type === "closed") return this.closed();
    if (e.type === "opened") {
      if (!this.state.role) return;
      if (this.state.campaign?.id !== e.campaign.id) void this.opened(e.campaign);
      return;
    }
    if (e.type !== "session" || !this.state.campaign) return;
    const ev = e.event;
    switch (ev.type) {
      case "committed":
        // An undo marks earlier entries voided: the whole log is read again. Our own action
        // already asked for what it changed.
        if (ev.action === "undo") void this.refresh("full");
        else if (ev.seq > this.refreshedTo) void this.refresh("update");
        break;
      case "reloaded":
        void this.reloaded(ev.report);
        break;
      case "written":
        // Another program wrote to the file: its events may have changed the rules too.
        void this.loadManifest().then(() => this.refresh("update"));
        break;
      case "file_gone":
        this.set({ fileGone: ev.message });
        break;
      case "reload_failed":
        this.set({ reloadProblems: ev.problems });
        break;
      default:
        break;
    }
  }
}

/** 32 random bytes from the browser's cryptographic source, as 64 hex digits. */
export function freshEntropy(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(32));
  return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}

/** Whether the person at this screen may type in dice for the viewer they act as. */
export function mayTypeDice(state: State): boolean {
  if (state.role === "gm" || state.host === "desktop") return true;
  const me = state.role?.startsWith("player:") ? state.role.slice("player:".length) : null;
  return !!me && (state.view?.typed_dice ?? []).includes(me);
}

export function useStore(store: Store): State {
  const [state, setState] = useState(store.state);
  useEffect(() => {
    setState(store.state);
    return store.subscribe(setState);
  }, [store]);
  return state;
}

/** A status the GM's screen shows: asked once when first needed, then kept by the engine's
 * events (undefined until the first answer). */
export function useStatus<S extends Status>(store: Store, status: S): State[S] {
  const state = useStore(store);
  useEffect(() => store.need(status), [store, status]);
  return state[status];
}

export { CallError };
