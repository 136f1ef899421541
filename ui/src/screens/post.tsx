// The post box: what to say, as whom (a character one plays, or out of character; the GM may
// speak for anyone) and to whom (everyone, the GM only, or — for the GM — a whisper to one
// player). A post can carry an action: its form sits under the text and one button posts and
// acts together, so the roll lands in the log inside the post. Once a post goes out the box
// is emptied and its audience is back to everyone: a whisper or a GM note is never carried
// into the next post.

import type { RefObject } from "preact";
import { useMemo, useRef, useState } from "preact/hooks";
import { useAction, useCall } from "../calls";
import type { Store } from "../store";
import type { ActionForm, EntityView, ErrorReport, PostDraft, View } from "../contract";
import { playerNames } from "../format";
import { characterKinds, speakers } from "../talk";
import { ErrorBox } from "../ui/errors";
import { ActionFormView } from "./actions";

const MAX_POST = 8000;

/** What the post button says for an audience, so a whisper never goes out by mistake. */
function sendLabel(to: string, gm: boolean): string {
  if (to === "gm") return gm ? "Save the note" : "Post to the GM";
  if (to.startsWith("player:")) return `Whisper to ${to.slice("player:".length)}`;
  return "Post";
}

export function PostBox({ store, view, actions, active }: { store: Store; view: View; actions: ActionForm[]; active: boolean }) {
  const actingAs = store.state.viewAs;
  const gm = actingAs === "gm";
  const area = useRef<HTMLTextAreaElement>(null);
  const box = useRef<HTMLDivElement>(null);
  const voice = useVoice(store, view, gm && active);
  const post = useDraft(store, area, () => voice.setTo("everyone"));
  const { act, text } = post;
  const attached = actions.find((a) => a.name === post.attach) ?? null;
  const draft: PostDraft = { text, ...(voice.character ? { character: voice.character } : {}), to: voice.audience };
  // Ctrl+Enter (⌘+Enter) sends, with the action when one is attached.
  const send = () => box.current?.querySelector<HTMLFormElement>("form.post-send, form.action-form")?.requestSubmit();
  return (
    <section class="post-box" aria-labelledby="post-box-title" ref={box}>
      <h3 id="post-box-title" class="visually-hidden">
        Write a post
      </h3>
      <div class="post-who">
        <SpeakAs gm={gm} view={view} voice={voice} bad={act.error?.param ?? null} />
        <PostTo gm={gm} voice={voice} bad={act.error?.param ?? null} />
      </div>
      <PostText view={view} character={voice.character} text={text} area={area} error={act.error} onText={post.edit} onSend={send} />
      <AttachAction actions={actions} attach={post.attach} onAttach={post.setAttach} />
      {attached ? (
        <div class="post-action">
          <ActionFormView
            key={`${attached.name}:${actingAs}`}
            store={store}
            action={attached}
            view={view}
            hidden={false}
            post={draft}
            idPrefix="post-"
            onActed={() => post.sent(`Posted with ${attached.label}.`)}
          />
        </div>
      ) : (
        <SendForm gm={gm} audience={voice.audience} busy={act.busy} error={act.error} onSubmit={(e) => void post.say(e, draft, sentNote(voice.audience, gm))} />
      )}
      <p class="help post-sent" role="status">
        {post.posted}
      </p>
    </section>
  );
}

/** The post being written, the action attached to it, and what became of the last one. */
function useDraft(store: Store, area: RefObject<HTMLTextAreaElement>, onSent: () => void) {
  const [text, setText] = useState("");
  const [attach, setAttach] = useState("");
  const [posted, setPosted] = useState<string | null>(null);
  const act = useAction(store);

  /** The post went out (`note` says so): the box is emptied for the next one, and `onSent`
   * puts its audience back to everyone (a whisper is never carried into the next post). */
  function sent(note: string) {
    setText("");
    onSent();
    act.fail(null);
    setPosted(note);
    setAttach("");
    area.current?.focus();
  }

  async function say(e: Event, draft: PostDraft, note: string) {
    e.preventDefault();
    act.fail(null);
    setPosted(null);
    if (!text.trim()) {
      act.fail({ code: "bad_param", param: "text", message: "Write something first." });
      area.current?.focus();
      return;
    }
    await act.run(async () => {
      await store.say(draft);
      sent(note);
    });
  }

  const edit = (t: string) => {
    setText(t);
    setPosted(null);
  };
  return { text, edit, attach, setAttach, posted, act, sent, say };
}

/** What the post box says once a post went out. */
function sentNote(audience: string, gm: boolean): string {
  if (audience === "everyone") return "Posted.";
  if (audience === "gm") return gm ? "Noted (only you see it)." : "Sent to the GM.";
  return `Whispered to ${audience.slice("player:".length)}.`;
}

/** Who may speak and be spoken to, and who is picked. */
function useVoice(store: Store, view: View, gmWriting: boolean) {
  const actingAs = store.state.viewAs;
  const gm = actingAs === "gm";
  // null: the default speaker (a player's only character; otherwise out of character).
  const [speaker, setSpeaker] = useState<string | null>(null);
  const [to, setTo] = useState("everyone");
  // The GM whispers to the players with a join link, and to those who own something.
  const invites = useCall(store, "invites", gmWriting && store.state.role === "gm" ? {} : null);
  const invited = (invites.value ?? []).map((i) => i.player);
  const mine = speakers(view, actingAs);
  const players = [...new Set([...playerNames(view), ...invited])].sort((a, b) => a.localeCompare(b));
  const chosen = speaker ?? (!gm && mine.length === 1 ? mine[0].id : "");
  const character = mine.some((e) => e.id === chosen) ? chosen : "";
  // Never turn a whisper into a public post behind the writer's back: a player picked stays listed.
  if (gm && to.startsWith("player:") && !players.includes(to.slice("player:".length))) players.push(to.slice("player:".length));
  return { character, audience: to, mine, players, setSpeaker, setTo };
}

/** Who says the post (`character`: an id, "" out of character) and to whom (`audience`). */
type VoiceState = ReturnType<typeof useVoice>;

function SpeakAs({ gm, view, voice, bad }: { gm: boolean; view: View; voice: VoiceState; bad: string | null }) {
  const kinds = characterKinds(view);
  const theirs = voice.mine.filter((e) => kinds.has(e.kind));
  const others = voice.mine.filter((e) => !kinds.has(e.kind));
  const options = (list: EntityView[]) =>
    list.map((e) => (
      <option key={e.id} value={e.id}>
        {e.name}
      </option>
    ));
  return (
    <div class="field">
      <label for="post-speaker" class="field-label">
        Speak as
      </label>
      <select id="post-speaker" value={voice.character} aria-invalid={bad === "character" ? "true" : undefined} onChange={(e) => voice.setSpeaker(e.currentTarget.value)}>
        <option value="">Out of character</option>
        {gm && others.length > 0 ? (
          <>
            <optgroup label="Characters">{options(theirs)}</optgroup>
            <optgroup label="Others on the table">{options(others)}</optgroup>
          </>
        ) : (
          options(voice.mine)
        )}
      </select>
    </div>
  );
}

function PostTo({ gm, voice, bad }: { gm: boolean; voice: VoiceState; bad: string | null }) {
  const audience = voice.audience;
  return (
    <div class="field">
      <label for="post-to" class="field-label">
        To
      </label>
      <select id="post-to" value={audience} aria-invalid={bad === "to" ? "true" : undefined} class={audience !== "everyone" ? "private" : undefined} onChange={(e) => voice.setTo(e.currentTarget.value)}>
        <option value="everyone">Everyone</option>
        <option value="gm">{gm ? "Only me (a GM note)" : "The GM only"}</option>
        {gm &&
          voice.players.map((p) => (
            <option key={p} value={`player:${p}`}>
              Whisper to {p}
            </option>
          ))}
      </select>
    </div>
  );
}

function PostText({
  view,
  character,
  text,
  area,
  error,
  onText,
  onSend,
}: {
  view: View;
  character: string;
  text: string;
  area: RefObject<HTMLTextAreaElement>;
  error: ErrorReport | null;
  onText: (text: string) => void;
  onSend: () => void;
}) {
  const speakerName = (id: string) => view.entities[id]?.name ?? id;
  const bad = error?.param === "text" || error?.param === "post";
  return (
    <div class="field post-text-field">
      <label for="post-text" class="field-label">
        {character ? `${speakerName(character)} says` : "Your post"}
      </label>
      <textarea
        id="post-text"
        ref={area}
        rows={3}
        value={text}
        maxLength={MAX_POST}
        placeholder={character ? `What does ${speakerName(character)} do or say?` : "Table talk, out of character…"}
        aria-describedby="post-text-help"
        aria-invalid={bad ? "true" : undefined}
        onInput={(e) => onText(e.currentTarget.value)}
        onKeyDown={(e) => {
          if (e.key === "Enter" && (e.ctrlKey || e.metaKey)) {
            e.preventDefault();
            onSend();
          }
        }}
      />
      <span id="post-text-help" class="help">
        **bold**, *italic*, &gt; quote · [[2d6+1]] or /r 1d20 rolls · Ctrl+Enter sends
        {text.length > MAX_POST - 500 && ` ${MAX_POST - text.length} characters left.`}
      </span>
      {bad && error && <span class="field-error">{error.message}</span>}
    </div>
  );
}

/** "With an action": the actions by group; the one picked is taken with the post. */
function AttachAction({ actions, attach, onAttach }: { actions: ActionForm[]; attach: string; onAttach: (name: string) => void }) {
  const groups = useMemo(() => {
    const out = new Map<string, ActionForm[]>();
    for (const a of actions) {
      const g = a.group || "Actions";
      if (!out.has(g)) out.set(g, []);
      out.get(g)!.push(a);
    }
    return [...out.entries()];
  }, [actions]);
  const attached = actions.some((a) => a.name === attach);
  return (
    <>
      <div class="field inline post-attach">
        <label for="post-attach" class="field-label">
          With an action
        </label>
        <select id="post-attach" value={attach} onChange={(e) => onAttach(e.currentTarget.value)} aria-describedby={attached ? "post-attach-help" : undefined}>
          <option value="">None: just the post</option>
          {groups.map(([g, list]) => (
            <optgroup key={g} label={g}>
              {list.map((a) => (
                <option key={a.name} value={a.name}>
                  {a.label}
                </option>
              ))}
            </optgroup>
          ))}
        </select>
      </div>
      {attached && (
        <p id="post-attach-help" class="help post-attach-help">
          Taken with the post: its dice show inside it in the log.
        </p>
      )}
    </>
  );
}

/** The post's own button (when no action is attached), saying who will see it. */
function SendForm({ gm, audience, busy, error, onSubmit }: { gm: boolean; audience: string; busy: boolean; error: ErrorReport | null; onSubmit: (e: Event) => void }) {
  return (
    <form class="post-send" onSubmit={onSubmit} noValidate>
      <div class="form-actions">
        <button type="submit" class="primary" disabled={busy} aria-busy={busy}>
          {busy ? (
            <>
              <span class="spinner" /> Sending…
            </>
          ) : (
            sendLabel(audience, gm)
          )}
        </button>
        {audience !== "everyone" && (
          <span class="help private-note">
            {audience === "gm" ? (gm ? "Only you will see it." : "Only you and the GM will see it.") : `Only ${audience.slice("player:".length)} and you will see it.`}
          </span>
        )}
      </div>
      {error && error.param !== "text" && <ErrorBox error={error} />}
    </form>
  );
}
