// The log, newest first: every die face as a chip (successes, criticals, complications and
// aces highlighted; dropped dice struck; typed-in dice labelled "by hand"), the narration,
// public changes, and what the viewer may only know exists. Events the GM undid stay, struck
// through and marked voided; for the GM the latest action that can still be taken back has an
// Undo button.
//
// Table talk reads like a forum thread: a post shows its speaker, whom it is for and its
// formatted text; a post that carried an action shows the action's dice inside it, with the
// traits it rolled picked out in the text. An edit (a later entry naming the post it edits)
// is shown in place of the post, the earlier wording a click away. The log can be narrowed to
// posts, rolls, whispers or one character, searched, and it sets apart what is new since this
// person last looked ("Jump to unread"). Posts and actions copy out as forum posts.

import { useEffect, useMemo, useRef, useState } from "preact/hooks";
import type { ComponentChildren } from "preact";
import type { Post, Role } from "../contract";
import { useAction } from "../calls";
import { ErrorBox } from "../ui/errors";
import type { Change, LogEntry, LogItem, Manifest, ParamSpec, View } from "../contract";
import { fieldLabel, humanize, kindLabel, plural, roleName, show, time } from "../format";
import type { Store } from "../store";
import { audienceText, characterKinds, inlineTotals, isPrivate, postOf, PostText, rolledTraits, type Highlight } from "../talk";
import { RollView, Vis } from "./dice";

/** A log entry as shown: a post together with its edits (oldest first; the last is in force). */
interface Unit {
  entry: LogEntry;
  versions: LogEntry[];
}

/** Folds each edit into the post it edits, when that post is loaded. */
function units(log: LogEntry[]): Unit[] {
  const out: Unit[] = [];
  const bySeq = new Map<number, Unit>();
  for (const e of log) {
    const post = postOf(e);
    const edited = post?.edits != null ? bySeq.get(post.edits) : undefined;
    if (edited && e.actor === edited.entry.actor) {
      edited.versions.push(e);
      bySeq.set(e.seq, edited);
      continue;
    }
    const u = { entry: e, versions: [e] };
    out.push(u);
    bySeq.set(e.seq, u);
  }
  return out;
}

function latest(u: Unit): LogEntry {
  return u.versions[u.versions.length - 1];
}

type Filter = "all" | "posts" | "rolls" | "whispers" | `char:${string}`;

/** Whether a value (a parameter, a record of them) names entity `id`. */
function mentions(value: unknown, id: string): boolean {
  if (value === id) return true;
  if (Array.isArray(value)) return value.some((v) => mentions(v, id));
  if (value && typeof value === "object") return Object.values(value as Record<string, unknown>).some((v) => mentions(v, id));
  return false;
}

function involves(u: Unit, id: string): boolean {
  for (const e of u.versions) {
    for (const item of e.items) {
      if (item.type === "post" && item.post.character === id) return true;
      if (item.type === "param" && mentions(item.value, id)) return true;
      if (item.type === "change") {
        const c = item.change as Record<string, unknown>;
        if (c.id === id || c.entity === id || (typeof c.pool === "string" && c.pool.startsWith(`${id}.`))) return true;
        if (c.op === "create" && (c.entity as { id?: string })?.id === id) return true;
      }
    }
  }
  return false;
}

function passes(u: Unit, filter: Filter): boolean {
  const post = postOf(latest(u));
  switch (filter) {
    case "all":
      return true;
    case "posts":
      return post !== null;
    case "rolls":
      return u.entry.items.some((i) => i.type === "roll");
    case "whispers":
      return post !== null && isPrivate(post);
    default:
      return involves(u, filter.slice("char:".length));
  }
}

/** Everything of an entry a search can find: title, who, the post, narration, values, changes. */
function searchText(u: Unit, labels: Record<string, string>, view: View, manifest: Manifest | null): string {
  const e = u.entry;
  const parts: string[] = [entryTitle(e, labels, manifest), roleName(e.actor)];
  const post = postOf(latest(u));
  if (post) parts.push(post.text, post.character_name ?? "");
  for (const item of e.items) {
    if (item.type === "say") parts.push(item.text);
    else if (item.type === "param") parts.push(humanize(item.name), show(item.value, view));
    else if (item.type === "roll") parts.push(item.roll.label ?? "", item.roll.expr);
    else if (item.type === "change") parts.push(changeText(item.change, view, manifest) ?? "");
    else if (item.type === "result") parts.push(show(item.value, view));
  }
  return parts.join("\n").toLowerCase();
}

/** Whether the viewer sees the page: a hidden tab is not looking at the log. */
function usePageVisible(): boolean {
  const [visible, setVisible] = useState(() => typeof document === "undefined" || document.visibilityState === "visible");
  useEffect(() => {
    const update = () => setVisible(document.visibilityState === "visible");
    document.addEventListener("visibilitychange", update);
    return () => document.removeEventListener("visibilitychange", update);
  }, []);
  return visible;
}

/** What the log panel shows of the campaign's log. */
interface LogProps {
  store: Store;
  log: LogEntry[];
  view: View;
  manifest: Manifest | null;
  labels: Record<string, string>;
  hasOlder: boolean;
  onOlder: () => Promise<void>;
  /** The GM's: takes back the latest action not yet undone, or with `to` every action after event `to`. */
  onUndo?: (to?: number) => Promise<void>;
  /** Whose log this is (the role posts are written as). */
  me: Role;
  /** The log is on screen (its tab and pane are the ones showing). */
  shown: boolean;
  /** Entries after this event are new to this person (null: nothing set apart). */
  unreadAfter: number | null;
  /** The post box, above the entries. */
  children?: ComponentChildren;
}

export function LogPanel(props: LogProps) {
  const { store, log, view, manifest, labels, hasOlder, unreadAfter, children } = props;
  const [filter, setFilter] = useState<Filter>("all");
  const [query, setQuery] = useState("");
  const [jumped, setJumped] = useState(0);
  const all = useMemo(() => units(log), [log]);
  const q = query.trim().toLowerCase();
  const shownUnits = useMemo(
    () => all.filter((u) => passes(u, filter) && (!q || searchText(u, labels, view, manifest).includes(q))).reverse(),
    [all, filter, q, labels, view, manifest],
  );
  const narrowed = filter !== "all" || q !== "";
  const unread = useUnread(props, all);
  useReading(store, props.shown, log.length ? log[log.length - 1].seq : 0);
  const everything = () => {
    setFilter("all");
    setQuery("");
  };
  const jump = async () => {
    everything();
    if (unreadAfter !== null) await store.loadBackTo(unreadAfter + 1);
    setJumped((n) => n + 1);
  };

  return (
    <div class="log-panel">
      <h2 class="section-title">Log</h2>
      {children}
      <LogTools view={view} filter={filter} onFilter={setFilter} query={query} onQuery={setQuery}>
        {unread.count > 0 && (
          <button type="button" class="small jump-unread" onClick={jump}>
            Jump to unread <span class="count">{unread.missing ? `${unread.count}+` : unread.count} new</span>
          </button>
        )}
      </LogTools>
      {narrowed && <Narrowed shown={shownUnits.length} of={all.length} hasOlder={hasOlder} onEverything={everything} />}
      <LogList {...props} shownUnits={shownUnits} narrowed={narrowed} oldestUnread={unread.oldest} jumped={jumped} searchHit={q ? [{ text: query.trim(), cls: "search-hit" }] : []} />
      {hasOlder && <OlderButton store={store} onOlder={props.onOlder} />}
      {!hasOlder && log.length > 0 && !narrowed && <p class="muted small log-start">The start of the campaign.</p>}
    </div>
  );
}

/** What is new: entries after the mark, by someone else (one's own posts are not news); the
 * oldest of them, and whether some are older than the entries loaded. */
function useUnread({ store, log, me, unreadAfter, hasOlder }: LogProps, all: Unit[]) {
  const unread = store.ownView && unreadAfter !== null ? all.filter((u) => u.entry.seq > unreadAfter && u.entry.actor !== me) : [];
  const oldest = unread.length ? Math.min(...unread.map((u) => u.entry.seq)) : null;
  const missing = oldest !== null && hasOlder && log.length > 0 && log[0].seq > (unreadAfter ?? 0) + 1;
  return { count: unread.length, oldest, missing };
}

/** While the log is on screen, this person has read it up to the newest entry. Coming back to
 * it (the tab, the log pane) sets apart what arrived meanwhile. */
function useReading(store: Store, shown: boolean, newest: number) {
  const pageVisible = usePageVisible();
  const looking = shown && pageVisible && store.ownView;
  const wasLooking = useRef(false);
  useEffect(() => {
    if (looking && !wasLooking.current) store.lookingAgain();
    wasLooking.current = looking;
    if (looking && newest) store.seen(newest);
  }, [store, looking, newest]);
}

/** "Show" (everything, posts, rolls, whispers, one character) and the search box; `children`:
 * the jump to what is new. */
function LogTools({
  view,
  filter,
  onFilter,
  query,
  onQuery,
  children,
}: {
  view: View;
  filter: Filter;
  onFilter: (f: Filter) => void;
  query: string;
  onQuery: (q: string) => void;
  children: ComponentChildren;
}) {
  const characters = useMemo(() => {
    const kinds = characterKinds(view);
    const list = Object.values(view.entities).filter((e) => kinds.size === 0 || kinds.has(e.kind));
    return list.sort((a, b) => a.name.localeCompare(b.name));
  }, [view]);
  return (
    <div class="log-tools" role="search" aria-label="Find in the log">
      <div class="field inline log-filter">
        <label for="log-filter" class="field-label">
          Show
        </label>
        <select id="log-filter" value={filter} onChange={(e) => onFilter(e.currentTarget.value as Filter)}>
          <option value="all">Everything</option>
          <option value="posts">Posts</option>
          <option value="rolls">Rolls</option>
          <option value="whispers">Whispers and notes to the GM</option>
          {characters.length > 0 && (
            <optgroup label="One character">
              {characters.map((c) => (
                <option key={c.id} value={`char:${c.id}`}>
                  {c.name}
                </option>
              ))}
            </optgroup>
          )}
        </select>
      </div>
      <div class="field inline log-search">
        <label for="log-search" class="visually-hidden">
          Search the log
        </label>
        <input id="log-search" type="search" placeholder="Search the log…" value={query} onInput={(e) => onQuery(e.currentTarget.value)} />
      </div>
      {children}
    </div>
  );
}

function Narrowed({ shown, of, hasOlder, onEverything }: { shown: number; of: number; hasOlder: boolean; onEverything: () => void }) {
  return (
    <p class="muted small log-count" role="status">
      {shown === 0 ? "Nothing in the log matches." : `Showing ${plural(shown, "entry", "entries")} of ${of}`}
      {hasOlder ? " (older entries not loaded yet)" : ""}.{" "}
      <button type="button" class="linklike" onClick={onEverything}>
        Show everything
      </button>
    </p>
  );
}

/** The entries shown, newest first, with the "new since you last looked" divider under the
 * oldest new one (brought into view when the reader jumps to it). */
function LogList({
  store,
  log,
  view,
  manifest,
  labels,
  me,
  onUndo,
  shownUnits,
  narrowed,
  oldestUnread,
  jumped,
  searchHit,
}: LogProps & { shownUnits: Unit[]; narrowed: boolean; oldestUnread: number | null; jumped: number; searchHit: Highlight[] }) {
  const divider = useRef<HTMLLIElement>(null);
  useEffect(() => {
    if (!jumped || !divider.current) return;
    divider.current.scrollIntoView({ block: "center" });
    divider.current.focus({ preventScroll: true });
  }, [jumped]);
  const undoable = onUndo ? [...log].reverse().find((e) => (e.kind === "action" || e.kind === "correction") && e.voided_by == null) : undefined;
  const lastAction = [...log].reverse().find((e) => e.kind === "action")?.seq ?? 0;
  const dividerAfter = oldestUnread !== null ? [...shownUnits].reverse().find((u) => u.entry.seq >= oldestUnread)?.entry.seq ?? null : null;
  return (
    <ol class="log" aria-label="Log" aria-live={narrowed ? "off" : "polite"} reversed>
      {shownUnits.map((u) => {
        const item = (
          <LogEntryView
            key={u.entry.seq}
            store={store}
            unit={u}
            view={view}
            manifest={manifest}
            labels={labels}
            me={me}
            editable={u.entry.kind === "post" && u.entry.actor === me && lastAction < u.entry.seq}
            searchHit={searchHit}
            onUndo={u.entry === undoable || (undoable && takesBack(u.entry)) ? onUndo : undefined}
            newestUndoable={u.entry === undoable}
          />
        );
        if (u.entry.seq !== dividerAfter) return item;
        return [
          item,
          <li key="unread" ref={divider} class="unread-divider" role="separator" aria-label="New since you last looked" tabIndex={-1}>
            <span aria-hidden="true">▲</span> New since you last looked
          </li>,
        ];
      })}
    </ol>
  );
}

/** "Show older entries": a page more, with why it failed if it did. */
function OlderButton({ store, onOlder }: { store: Store; onOlder: () => Promise<void> }) {
  const older = useAction(store);
  return (
    <>
      <button type="button" class="older" disabled={older.busy} onClick={() => void older.run(onOlder)}>
        {older.busy ? (
          <>
            <span class="spinner" /> Loading…
          </>
        ) : (
          "Show older entries"
        )}
      </button>
      {older.error && <ErrorBox error={older.error} />}
    </>
  );
}

function entryTitle(entry: LogEntry, labels: Record<string, string>, manifest: Manifest | null): string {
  switch (entry.kind) {
    case "created":
      return `Campaign created${manifest ? ` on ${manifest.name}` : ""}`;
    case "reload":
      return "Rules changed";
    case "reveal":
      return "Dice seed revealed";
    case "permission":
      return "Table permission changed";
    case "undo":
      return "Undone";
    case "correction":
      return "GM correction";
    case "post":
      return "Post";
    default:
      if (entry.kind === "action" && entry.action && SCENE_TITLES[entry.action]) return SCENE_TITLES[entry.action];
      return entry.action ? labels[entry.action] ?? humanize(entry.action) : "Action";
  }
}

/** Whether the GM may take this entry back (with everything after it). */
function takesBack(entry: LogEntry): boolean {
  return (entry.kind === "action" || entry.kind === "correction") && entry.voided_by == null;
}

/** "Undo" on the latest action; "Undo from here" on an earlier one takes it and everything after it back. */
/** The GM's map work, as the log names it. */
const SCENE_TITLES: Record<string, string> = {
  scene_create: "New scene",
  scene_update: "Scene changed",
  scene_remove: "Scene removed",
  scene_show: "Scene shown",
  token_place: "Token placed",
  token_update: "Token changed",
  fog: "Fog changed",
  move: "Move",
};

function UndoButton({ store, entry, latest, onUndo }: { store: Store; entry: LogEntry; latest: boolean; onUndo: (to?: number) => Promise<void> }) {
  const [asking, setAsking] = useState(false);
  const act = useAction(store);
  if (!asking)
    return (
      <button type="button" class="small undo" onClick={() => setAsking(true)}>
        {latest ? "Undo" : "Undo from here"}
      </button>
    );
  return (
    <span class="undo-confirm" role="group" aria-label={`Undo #${entry.seq}`}>
      <span>
        {latest ? `Take #${entry.seq} back? It stays in the log, voided.` : `Take #${entry.seq} and every action after it back? They stay in the log, voided.`}
      </span>
      <button
        type="button"
        class="small danger"
        disabled={act.busy}
        onClick={() =>
          void act.run(async () => {
            await (latest ? onUndo() : onUndo(entry.seq - 1));
            setAsking(false);
          })
        }
      >
        Yes, undo it
      </button>
      <button type="button" class="small" disabled={act.busy} onClick={() => setAsking(false)}>
        Keep it
      </button>
      {act.error && <ErrorBox error={act.error} />}
    </span>
  );
}

/** Copies text to the clipboard; false when the browser refuses. */
async function toClipboard(text: string): Promise<boolean> {
  try {
    if (!navigator.clipboard) return false;
    await navigator.clipboard.writeText(text);
    return true;
  } catch {
    return false;
  }
}

/** "Copy as forum post": the entry as the engine writes it for a forum, in Markdown or BBCode.
 * When the browser refuses the clipboard, the text is shown selected, ready to copy by hand. */
function CopyForum({ store, seq }: { store: Store; seq: number }) {
  const [open, setOpen] = useState(false);
  const act = useAction(store);
  const [note, setNote] = useState<string | null>(null);
  const [manual, setManual] = useState<{ text: string; format: string } | null>(null);
  const id = `forum-${seq}`;

  async function copy(format: "markdown" | "bbcode") {
    setNote(null);
    setManual(null);
    const name = format === "markdown" ? "Markdown" : "BBCode";
    await act.run(async () => {
      const text = await store.forumPost(seq, format);
      if (await toClipboard(text)) {
        setNote(`Copied as ${name}: paste it into the forum.`);
        setOpen(false);
      } else {
        setManual({ text, format: name });
      }
    });
  }

  return (
    <div class="forum-copy">
      <button type="button" class="small linklike" aria-expanded={open} aria-controls={id} onClick={() => setOpen(!open)}>
        Copy as forum post
      </button>
      {open && (
        <span id={id} class="forum-formats" role="group" aria-label={`Forum post of #${seq}`}>
          <button type="button" class="small" disabled={act.busy} onClick={() => void copy("markdown")}>
            Markdown
          </button>
          <button type="button" class="small" disabled={act.busy} onClick={() => void copy("bbcode")}>
            BBCode
          </button>
        </span>
      )}
      <span class="help forum-note" role="status">
        {note}
      </span>
      {manual && <ManualCopy manual={manual} onClose={() => setManual(null)} />}
      {act.error && <ErrorBox error={act.error} />}
    </div>
  );
}

/** The forum post shown selected, for when the browser refuses the clipboard. */
function ManualCopy({ manual, onClose }: { manual: { text: string; format: string }; onClose: () => void }) {
  const box = useRef<HTMLTextAreaElement>(null);
  useEffect(() => {
    box.current?.focus();
    box.current?.select();
  }, [manual]);
  return (
    <div class="forum-manual">
      <label class="field">
        <span class="field-label">Forum post ({manual.format}): the clipboard is not available, copy it from here</span>
        <textarea ref={box} readOnly rows={6} value={manual.text} onFocus={(e) => e.currentTarget.select()} />
      </label>
      <button type="button" class="small" onClick={onClose}>
        Close
      </button>
    </div>
  );
}

/** Edits one's own post in place: the new wording is a new entry; the original stays. */
function EditPost({ store, seq, text, onClose }: { store: Store; seq: number; text: string; onClose: () => void }) {
  const [draft, setDraft] = useState(text);
  const act = useAction(store);
  const id = `edit-${seq}`;
  return (
    <form
      class="post-edit"
      aria-label={`Edit post #${seq}`}
      noValidate
      onSubmit={(e) => {
        e.preventDefault();
        void act.run(async () => {
          await store.editPost(seq, draft);
          onClose();
        });
      }}
    >
      <label for={id} class="visually-hidden">
        New text of the post
      </label>
      <textarea id={id} rows={4} value={draft} maxLength={8000} onInput={(e) => setDraft(e.currentTarget.value)} ref={(el) => el?.focus()} />
      <div class="form-actions">
        <button type="submit" class="small primary" disabled={act.busy || !draft.trim() || draft === text}>
          Save the edit
        </button>
        <button type="button" class="small" disabled={act.busy} onClick={onClose}>
          Cancel
        </button>
      </div>
      {act.error && <ErrorBox error={act.error} />}
    </form>
  );
}

/** Who speaks in a post: the character (and who plays it), or the person out of character. */
function Speaker({ post, actor }: { post: Post; actor: Role | null | undefined }) {
  if (post.character_name)
    return (
      <span class="log-title speaker">
        {post.character_name} <span class="played-by">{roleName(actor)}</span>
      </span>
    );
  return (
    <span class="log-title speaker">
      {roleName(actor)} <span class="ooc">out of character</span>
    </span>
  );
}

interface EntryProps {
  store: Store;
  unit: Unit;
  view: View;
  manifest: Manifest | null;
  labels: Record<string, string>;
  me: Role;
  editable: boolean;
  searchHit: Highlight[];
  onUndo?: (to?: number) => Promise<void>;
  /** The entry is the latest one the GM may undo. */
  newestUndoable?: boolean;
}

function LogEntryView({ store, unit, view, manifest, labels, me, editable, searchHit, onUndo, newestUndoable }: EntryProps) {
  const [editing, setEditing] = useState(false);
  const entry = unit.entry;
  const now = latest(unit);
  const post = postOf(now);
  const title = entryTitle(entry, labels, manifest);
  const audience = post ? audienceText(post, entry.actor, me) : null;
  const traits: Highlight[] = rolledTraits(entry, manifest).map((t) => ({ text: t.name, cls: `trait-mark trait-${t.param}`, title: `${humanize(t.param)} trait` }));
  const details = <EntryDetails entry={entry} view={view} manifest={manifest} />;
  // The dice a post rolled as it was written (`[[1d100]]`, `/r 1d20`), shown in its text and below it.
  const inline = entry.kind === "post" ? entry.items.filter((i) => i.type === "roll") : [];
  const shown = post ? inlineTotals(post.text, inline.map((i) => (i.type === "roll" ? i.roll.total : 0))) : null;
  const cls = ["log-entry", `kind-${entry.kind}`];
  if (entry.voided_by != null) cls.push("voided");
  if (post) cls.push("has-post");
  if (post && isPrivate(post)) cls.push("private");

  return (
    <li class={cls.join(" ")} data-seq={entry.seq}>
      <EntryHead unit={unit} title={title} />
      {audience && (
        <p class="audience">
          <span class="secret-badge whisper-badge">{audience}</span>
        </p>
      )}
      {post &&
        (editing ? (
          <EditPost store={store} seq={entry.seq} text={post.text} onClose={() => setEditing(false)} />
        ) : (
          <PostText text={shown!.text} highlights={[...shown!.marks, ...traits, ...searchHit]} />
        ))}
      {inline.length > 0 && (
        <div class="inline-rolls" aria-label="Dice rolled in the post">
          {inline.map((item, i) => (
            <BodyItem key={i} item={item} view={view} />
          ))}
        </div>
      )}
      {unit.versions.length > 1 && !editing && <EarlierWordings unit={unit} />}
      {entry.kind === "post" ? null : post ? (
        <section class="embedded-action" aria-label={title}>
          <h4 class="embedded-title">{title}</h4>
          {details}
        </section>
      ) : (
        details
      )}
      {(post || entry.kind === "action" || onUndo || editable) && (
        <footer class="log-foot">
          {editable && !editing && (
            <button type="button" class="small linklike" onClick={() => setEditing(true)} aria-label={`Edit post #${entry.seq}`}>
              Edit
            </button>
          )}
          {(post || entry.kind === "action") && <CopyForum store={store} seq={now.seq} />}
          {onUndo && <UndoButton store={store} entry={entry} latest={newestUndoable ?? true} onUndo={onUndo} />}
        </footer>
      )}
    </li>
  );
}

/** Who wrote the entry (or what it is), whether it was voided or edited, and when. */
function EntryHead({ unit, title }: { unit: Unit; title: string }) {
  const entry = unit.entry;
  const now = latest(unit);
  const post = postOf(now);
  return (
    <header class="log-head">
      {post ? <Speaker post={post} actor={entry.actor} /> : <span class="log-title">{title}</span>}
      {entry.voided_by != null && <span class="voided-badge">voided: undone by #{entry.voided_by}</span>}
      <span class="log-meta">
        {!post && entry.actor && <span class="actor">{roleName(entry.actor)}</span>}
        {unit.versions.length > 1 && (
          <span class="edited" title={`Edited in #${now.seq}`}>
            edited
          </span>
        )}
        <time dateTime={entry.at} title={`#${entry.seq} · ${entry.at}`}>
          {time(entry.at)}
        </time>
      </span>
    </header>
  );
}

function EarlierWordings({ unit }: { unit: Unit }) {
  return (
    <details class="earlier">
      <summary>Earlier {unit.versions.length === 2 ? "wording" : `wordings (${unit.versions.length - 1})`}</summary>
      {unit.versions.slice(0, -1).map((v) => {
        const p = postOf(v);
        return p ? (
          <div key={v.seq} class="earlier-version">
            <span class="muted small">
              #{v.seq} · {time(v.at)}
            </span>
            <PostText text={p.text} />
          </div>
        ) : null;
      })}
    </details>
  );
}

/** What an action did: its parameters, rolls, narration and result, what the viewer may not
 * see, and the changes to the table. */
function EntryDetails({ entry, view, manifest }: { entry: LogEntry; view: View; manifest: Manifest | null }) {
  const params = entry.items.filter((i): i is Extract<LogItem, { type: "param" }> => i.type === "param" && i.value !== null && i.value !== undefined);
  const changes = entry.items.filter((i): i is Extract<LogItem, { type: "change" }> => i.type === "change");
  // What the action returned is for scripts and tests: where the rules said what happened in
  // words, or rolled dice the log shows, that is what the table reads, not the result.
  const told = entry.items.some((i) => i.type === "say" || i.type === "roll");
  const body = entry.items.filter((i) => i.type !== "param" && i.type !== "change" && i.type !== "hidden" && i.type !== "post" && !(told && i.type === "result"));
  const hidden = entry.items.filter((i): i is Extract<LogItem, { type: "hidden" }> => i.type === "hidden");
  return (
    <>
      {params.length > 0 && (
        <p class="log-params">
          {params.map((p, i) => (
            <span key={i} class="param">
              <span class="param-name">{paramSpec(manifest, entry, p.name)?.label || humanize(p.name)}</span> {paramValue(p.value, paramSpec(manifest, entry, p.name), view)}
              {p.visibility !== "public" && <Vis v={p.visibility} />}
            </span>
          ))}
        </p>
      )}
      {body.map((item, i) => <BodyItem key={i} item={item} view={view} />)}
      {hidden.length > 0 && (
        <p class="hidden-items">
          {hidden.map((h, i) => (
            <span key={i} class="hidden-item" title="Something you may not see">
              <span aria-hidden="true">🔒</span> {(h as { hidden: string }).hidden}
            </span>
          ))}
        </p>
      )}
      {changes.length > 0 && <Changes changes={changes.map((c) => c.change)} view={view} manifest={manifest} />}
    </>
  );
}

/** The declared parameter `name` of the entry's action, if the manifest has it. */
function paramSpec(manifest: Manifest | null, entry: LogEntry, name: string): ParamSpec | undefined {
  return entry.action ? manifest?.actions?.[entry.action]?.params?.[name] : undefined;
}

/** A parameter's value in words: a choice among options as its form offers it ("Devils luck",
 * not `devils_luck`), anything else as the table shows values. */
function paramValue(value: unknown, spec: ParamSpec | undefined, view: View): string {
  const item = spec?.of && typeof spec.of === "object" ? spec.of : undefined;
  if (typeof value === "string" && spec?.options?.includes(value)) return humanize(value);
  if (Array.isArray(value) && value.some((v) => v !== null && typeof v === "object")) return value.map((v) => paramValue(v, item, view)).join("; ");
  if (Array.isArray(value) && item?.options) return value.map((v) => (typeof v === "string" && item.options!.includes(v) ? humanize(v) : show(v, view))).join(", ");
  if (value !== null && typeof value === "object" && !Array.isArray(value)) return recordWords(value as Record<string, unknown>, spec?.fields, view);
  return show(value, view);
}

/** A record given as a parameter, as a person writes it: its name first, then what was given
 * ("Disable the alarm (difficulty 2)"); fields left empty are not mentioned. */
function recordWords(value: Record<string, unknown>, fields: Record<string, ParamSpec> | undefined, view: View): string {
  const given = Object.entries(value).filter(([, v]) => v !== null && v !== undefined && v !== false && v !== "" && !(Array.isArray(v) && v.length === 0));
  const rest = given
    .filter(([k]) => k !== "name")
    .map(([k, v]) => `${(fields?.[k]?.label || humanize(k)).toLowerCase()}${v === true ? "" : ` ${paramValue(v, fields?.[k], view)}`}`);
  const name = given.find(([k]) => k === "name");
  if (!name) return rest.join(", ") || "—";
  return rest.length ? `${show(name[1], view)} (${rest.join(", ")})` : show(name[1], view);
}

/** A roll, a line of narration or the action's result. */
function BodyItem({ item, view }: { item: LogItem; view: View }) {
  if (item.type === "roll") return <RollView roll={item.roll} secret={item.visibility} />;
  if (item.type === "say")
    return (
      <p class="narration">
        {item.text}
        {item.visibility !== "public" && <Vis v={item.visibility} />}
      </p>
    );
  if (item.type === "result") return <ResultView value={item.value} view={view} />;
  return null;
}

function ResultView({ value, view }: { value: unknown; view: View }) {
  if (value === null || value === undefined) return null;
  if (typeof value === "object" && !Array.isArray(value) && Object.keys(value as object).length === 0) return null;
  return (
    <p class="result">
      <span class="muted">Result:</span> {show(value, view)}
    </p>
  );
}

function changeText(c: Change, view: View, manifest: Manifest | null): string | null {
  const name = (id: unknown) => (typeof id === "string" ? view.entities[id]?.name ?? id : String(id));
  const kindOf = (id: unknown) => (typeof id === "string" ? view.entities[id]?.kind : undefined);
  switch (c.op) {
    case "create": {
      const e = c.entity as { name: string; kind: string; owner?: string | null };
      return `${e.name} (${kindLabel(manifest, e.kind)}) is on the table${e.owner ? `, played by ${e.owner}` : ""}`;
    }
    case "remove":
      return `${name(c.id)} leaves the table`;
    case "rename":
      return `${name(c.id)} is now called ${c.name}`;
    case "set_owner":
      return `${name(c.id)} is now played by ${c.owner ?? "the GM"}`;
    case "set_visibility":
      return `${name(c.id)} is now ${c.visibility === "public" ? "seen by everyone" : `seen by: ${c.visibility}`}`;
    case "field": {
      const kind = kindOf(c.entity);
      // The rules' own bookkeeping is never shown.
      if (kind && manifest?.kinds?.[kind]?.fields?.[c.field as string]?.bookkeeping) return null;
      const label = kind ? fieldLabel(manifest, kind, c.field as string) : humanize(c.field as string);
      return "value" in c && c.value !== undefined ? `${name(c.entity)} · ${label}: ${show(c.value, view)}` : `${name(c.entity)} · ${label} cleared`;
    }
    case "trait": {
      const t = c.trait as { name: string; rating?: number | null; state?: string; uses?: number };
      const bits = [t.rating !== null && t.rating !== undefined ? `rating ${t.rating}` : null, t.state && t.state !== "active" ? t.state : null, t.uses ? `used ${t.uses}×` : null].filter(Boolean);
      return `${name(c.entity)} · trait ${t.name}${bits.length ? ` (${bits.join(", ")})` : ""}`;
    }
    case "remove_trait":
      return `${name(c.entity)} loses trait ${c.name}`;
    case "pool": {
      const total = (m: unknown) => Object.values((m ?? {}) as Record<string, number>).reduce((a, b) => a + b, 0);
      const ref = String(c.pool);
      const [owner, pool] = ref.includes(".") ? ref.split(".", 2) : [null, ref];
      const label = owner ? `${name(owner)} · ${humanize(pool)}` : view.pools[pool]?.label ?? humanize(pool);
      return `${label}: ${total(c.before)} → ${total(c.after)}`;
    }
    case "define_pool":
      return `Pool ${c.pool} set up`;
    case "remove_pool":
      return `Pool ${c.pool} removed`;
    case "typed_dice":
      return c.allowed ? `${c.player} may type in their own dice` : `${c.player} rolls with the table's dice`;
    case "var": {
      const spec = manifest?.vars?.[c.name as string];
      if (spec?.bookkeeping) return null;
      return `${spec?.label ?? humanize(c.name as string)}: ${show(c.value, view)}`;
    }
    case "round":
      // The engine counts rounds ended: `round` is how many have ended now.
      return `Round ${c.round} ended`;
    case "setting":
      return `Setting ${humanize(c.key as string)}: ${show(c.value, view)}`;
    default:
      return null;
  }
}

function Changes({ changes, view, manifest }: { changes: Change[]; view: View; manifest: Manifest | null }) {
  const lines = changes.map((c) => changeText(c, view, manifest)).filter((l): l is string => Boolean(l));
  if (!lines.length) return null;
  const list = (
    <ul class="changes">
      {lines.map((l, i) => (
        <li key={i}>{l}</li>
      ))}
    </ul>
  );
  if (lines.length <= 3) return list;
  return (
    <details class="changes-more">
      <summary>{lines.length} changes</summary>
      {list}
    </details>
  );
}
