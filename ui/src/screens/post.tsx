// The post box: what to say, as whom (a character one plays, or out of character; the GM may
// speak for anyone) and to whom (everyone, the GM only, or — for the GM — a whisper to one
// player). A post can carry an action: its form sits under the text and one button posts and
// acts together, so the roll lands in the log inside the post.

import { useMemo, useRef, useState } from "preact/hooks";
import { useAction, useCall } from "../calls";
import type { Store } from "../store";
import type { ActionForm, View } from "../contract";
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
  const [text, setText] = useState("");
  // null: the default speaker (a player's only character; otherwise out of character).
  const [speaker, setSpeaker] = useState<string | null>(null);
  const [to, setTo] = useState("everyone");
  const [attach, setAttach] = useState("");
  const act = useAction(store);
  const error = act.error;
  const [posted, setPosted] = useState<string | null>(null);
  const area = useRef<HTMLTextAreaElement>(null);
  const box = useRef<HTMLDivElement>(null);

  // The GM whispers to the players with a join link, and to those who own something.
  const invites = useCall(store, "invites", gm && active && store.state.role === "gm" ? {} : null);
  const invited = (invites.value ?? []).map((i) => i.player);

  const mine = speakers(view, actingAs);
  const kinds = characterKinds(view);
  const players = [...new Set([...playerNames(view), ...invited])].sort((a, b) => a.localeCompare(b));
  const chosen = speaker ?? (!gm && mine.length === 1 ? mine[0].id : "");
  const character = mine.some((e) => e.id === chosen) ? chosen : "";
  // Never turn a whisper into a public post behind the writer's back: a player picked stays listed.
  const audience = to;
  if (gm && to.startsWith("player:") && !players.includes(to.slice("player:".length))) players.push(to.slice("player:".length));
  const attached = actions.find((a) => a.name === attach) ?? null;
  const draft = { text, ...(character ? { character } : {}), to: audience };
  const bad = error?.param ?? null;

  const groups = useMemo(() => {
    const out = new Map<string, ActionForm[]>();
    for (const a of actions) {
      const g = a.group || "Actions";
      if (!out.has(g)) out.set(g, []);
      out.get(g)!.push(a);
    }
    return [...out.entries()];
  }, [actions]);

  function afterPost(what: string) {
    setText("");
    act.fail(null);
    setPosted(what);
    setAttach("");
    area.current?.focus();
  }

  async function say(e: Event) {
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
      afterPost(audience === "everyone" ? "Posted." : audience === "gm" ? (gm ? "Noted (only you see it)." : "Sent to the GM.") : `Whispered to ${audience.slice("player:".length)}.`);
    });
  }

  const speakerName = (id: string) => view.entities[id]?.name ?? id;
  const theirs = mine.filter((e) => kinds.has(e.kind));
  const others = mine.filter((e) => !kinds.has(e.kind));

  return (
    <section class="post-box" aria-labelledby="post-box-title" ref={box}>
      <h3 id="post-box-title" class="visually-hidden">
        Write a post
      </h3>
      <div class="post-who">
        <div class="field">
          <label for="post-speaker" class="field-label">
            Speak as
          </label>
          <select id="post-speaker" value={character} aria-invalid={bad === "character" ? "true" : undefined} onChange={(e) => setSpeaker(e.currentTarget.value)}>
            <option value="">Out of character</option>
            {gm && others.length > 0 ? (
              <>
                <optgroup label="Characters">
                  {theirs.map((e) => (
                    <option key={e.id} value={e.id}>
                      {e.name}
                    </option>
                  ))}
                </optgroup>
                <optgroup label="Others on the table">
                  {others.map((e) => (
                    <option key={e.id} value={e.id}>
                      {e.name}
                    </option>
                  ))}
                </optgroup>
              </>
            ) : (
              mine.map((e) => (
                <option key={e.id} value={e.id}>
                  {e.name}
                </option>
              ))
            )}
          </select>
        </div>
        <div class="field">
          <label for="post-to" class="field-label">
            To
          </label>
          <select id="post-to" value={audience} aria-invalid={bad === "to" ? "true" : undefined} class={audience !== "everyone" ? "private" : undefined} onChange={(e) => setTo(e.currentTarget.value)}>
            <option value="everyone">Everyone</option>
            <option value="gm">{gm ? "Only me (a GM note)" : "The GM only"}</option>
            {gm &&
              players.map((p) => (
                <option key={p} value={`player:${p}`}>
                  Whisper to {p}
                </option>
              ))}
          </select>
        </div>
      </div>
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
          aria-invalid={bad === "text" || bad === "post" ? "true" : undefined}
          onInput={(e) => {
            setText(e.currentTarget.value);
            setPosted(null);
          }}
          onKeyDown={(e) => {
            // Ctrl+Enter (⌘+Enter) sends, with the action when one is attached.
            if (e.key === "Enter" && (e.ctrlKey || e.metaKey)) {
              e.preventDefault();
              box.current?.querySelector<HTMLFormElement>("form.post-send, form.action-form")?.requestSubmit();
            }
          }}
        />
        <span id="post-text-help" class="help">
          **bold**, *italic*, &gt; quote · Ctrl+Enter sends
          {text.length > MAX_POST - 500 && ` ${MAX_POST - text.length} characters left.`}
        </span>
        {(bad === "text" || bad === "post") && error && <span class="field-error">{error.message}</span>}
      </div>
      <div class="field inline post-attach">
        <label for="post-attach" class="field-label">
          With an action
        </label>
        <select id="post-attach" value={attach} onChange={(e) => setAttach(e.currentTarget.value)} aria-describedby={attached ? "post-attach-help" : undefined}>
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
            onActed={() => afterPost(`Posted with ${attached.label}.`)}
          />
        </div>
      ) : (
        <form class="post-send" onSubmit={say} noValidate>
          <div class="form-actions">
            <button type="submit" class="primary" disabled={act.busy} aria-busy={act.busy}>
              {act.busy ? (
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
          {error && bad !== "text" && <ErrorBox error={error} />}
        </form>
      )}
      <p class="help post-sent" role="status">
        {posted}
      </p>
    </section>
  );
}
