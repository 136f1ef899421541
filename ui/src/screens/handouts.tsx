// The Handouts tab: journal entries the GM writes (a title, light Markdown, a picture) and reveals
// to everyone or to chosen players. What a screen shows is the view the engine made for this
// viewer: a player's holds only the handouts revealed to them, so nothing here hides anything.
// The GM writes, edits, reveals, takes back and removes; each is one `handout` call, undone like
// any action. The text is rendered as `ui/markdown.ts` makes such text safe; the picture comes
// from the engine by its digest, which it gives only to those who may read the handout.

import { useMemo, useState } from "preact/hooks";
import { useAction } from "../calls";
import type { HandoutOp, HandoutView } from "../contract";
import { playerNames } from "../format";
import { useStore, type Store } from "../store";
import { ErrorBox } from "../ui/errors";
import { markdown } from "../ui/markdown";
import { ACCEPTED, importPicture, usePicture } from "./pictures";
import "../styles/handouts.css";

export function HandoutsScreen({ store }: { store: Store }) {
  const s = useStore(store);
  const view = s.view;
  const gm = s.role === "gm" && s.viewAs === "gm";
  const handouts = view?.handouts ?? [];
  const players = playerNames(s.gmView ?? view);
  const [writing, setWriting] = useState(false);
  return (
    <main class="handouts" aria-label="Handouts">
      {gm && (
        <section class="card handout-new" aria-labelledby="handout-new-title">
          <h2 id="handout-new-title">Handouts</h2>
          <p class="muted small">
            A handout is yours alone until you show it: to everyone, or to the players you tick. Nothing of it reaches a player
            before that.
          </p>
          {writing ? (
            <HandoutForm store={store} onDone={() => setWriting(false)} />
          ) : (
            <button type="button" onClick={() => setWriting(true)}>
              New handout
            </button>
          )}
        </section>
      )}
      {!handouts.length && (
        <p class="muted handouts-none" role="status">
          {gm ? "No handout yet." : "The GM has shown you no handout yet."}
        </p>
      )}
      {handouts.map((h) => (
        <Handout key={h.id} store={store} handout={h} gm={gm} players={players} />
      ))}
    </main>
  );
}

function Handout({ store, handout: h, gm, players }: { store: Store; handout: HandoutView; gm: boolean; players: string[] }) {
  const [editing, setEditing] = useState(false);
  const picture = usePicture(store, h.picture);
  const html = useMemo(() => markdown.render(h.text), [h.text]);
  const titleId = `handout-${h.id}-title`;
  return (
    <article class="card handout" aria-labelledby={titleId}>
      <h2 id={titleId}>{h.title}</h2>
      {gm && <p class="muted small handout-readers">{readersWords(h)}</p>}
      {editing ? (
        <HandoutForm store={store} handout={h} onDone={() => setEditing(false)} />
      ) : (
        <>
          {picture && <img class="handout-picture" src={picture.url} width={picture.width} height={picture.height} alt={`The picture of the handout ${h.title}`} />}
          {h.text.trim() && <div class="markdown" dangerouslySetInnerHTML={{ __html: html }} />}
        </>
      )}
      {gm && !editing && <GmControls key={JSON.stringify([h.everyone, h.readers])} store={store} handout={h} players={players} onEdit={() => setEditing(true)} />}
    </article>
  );
}

function readersWords(h: HandoutView): string {
  if (h.everyone) return "Everyone reads it.";
  if (!h.readers.length) return "Nobody reads it yet.";
  return `Read by ${h.readers.join(", ")}.`;
}

/** The GM's form for a new handout or one to change: title, text, picture. */
function HandoutForm({ store, handout, onDone }: { store: Store; handout?: HandoutView; onDone: () => void }) {
  const [title, setTitle] = useState(handout?.title ?? "");
  const [text, setText] = useState(handout?.text ?? "");
  const [picture, setPicture] = useState<string | null>(handout?.picture ?? null);
  const [pictureName, setPictureName] = useState<string | null>(handout?.picture ? "the handout's picture" : null);
  const act = useAction<"save" | "picture">(store);
  const save = async (e: Event) => {
    e.preventDefault();
    const op: HandoutOp = { op: "write", id: handout?.id ?? null, title, text, picture };
    if (await act.call("handout", op, "save")) onDone();
  };
  const choose = async (file: File | undefined) => {
    if (!file) return;
    const imported = await act.run(() => importPicture(store, file), "picture");
    if (imported) {
      setPicture(imported.digest);
      setPictureName(file.name);
    }
  };
  return (
    <form class="handout-form" onSubmit={(e) => void save(e)}>
      <label class="field">
        <span class="field-label">Title</span>
        <input type="text" value={title} required maxLength={200} onInput={(e) => setTitle(e.currentTarget.value)} />
      </label>
      <label class="field">
        <span class="field-label">Text (Markdown: *emphasis*, lists, headings, links)</span>
        <textarea rows={8} value={text} onInput={(e) => setText(e.currentTarget.value)} />
      </label>
      <div class="handout-picture-field">
        <label class="field">
          <span class="field-label">Picture (PNG, JPEG or WebP)</span>
          <input type="file" accept={ACCEPTED} disabled={act.busy} onChange={(e) => void choose(e.currentTarget.files?.[0])} />
        </label>
        {picture && (
          <p class="small">
            {act.running === "picture" ? "Importing…" : `With ${pictureName ?? "a picture"}.`}{" "}
            <button type="button" class="linklike" onClick={() => setPicture(null)}>
              No picture
            </button>
          </p>
        )}
      </div>
      {act.error && <ErrorBox error={act.error} title={act.running === "picture" ? "The picture was not imported" : "The handout was not saved"} />}
      <div class="handout-buttons">
        <button type="submit" class="primary" disabled={act.busy}>
          {handout ? "Save the handout" : "Write the handout"}
        </button>
        <button type="button" disabled={act.busy} onClick={onDone}>
          Cancel
        </button>
      </div>
    </form>
  );
}

/** Who reads it (everyone, or the players ticked), and the GM's edit and remove. */
function GmControls({ store, handout: h, players, onEdit }: { store: Store; handout: HandoutView; players: string[]; onEdit: () => void }) {
  const [everyone, setEveryone] = useState(h.everyone);
  const [readers, setReaders] = useState<string[]>(h.readers);
  const [other, setOther] = useState("");
  const act = useAction<"reveal" | "remove">(store);
  const names = [...new Set([...players, ...h.readers, ...readers])].sort();
  const tick = (p: string, on: boolean) => setReaders((now) => (on ? [...now, p] : now.filter((r) => r !== p)));
  const reveal = (e: Event) => {
    e.preventDefault();
    const named = other.trim() ? [...readers, other.trim()] : readers;
    void act.call("handout", { op: "reveal", id: h.id, everyone, players: [...new Set(named)] }, "reveal").then((ok) => ok && setOther(""));
  };
  const remove = () => {
    if (confirm(`Remove the handout “${h.title}”? Those who read it no longer will (undo brings it back).`)) {
      void act.call("handout", { op: "remove", id: h.id }, "remove");
    }
  };
  const legendId = `handout-${h.id}-who`;
  return (
    <form class="handout-controls" onSubmit={reveal}>
      <fieldset aria-labelledby={legendId}>
        <legend id={legendId}>Who reads it</legend>
        <label class="field check">
          <input type="checkbox" checked={everyone} onChange={(e) => setEveryone(e.currentTarget.checked)} /> Everyone
        </label>
        {names.map((p) => (
          <label class="field check" key={p}>
            <input type="checkbox" checked={everyone || readers.includes(p)} disabled={everyone} onChange={(e) => tick(p, e.currentTarget.checked)} /> {p}
          </label>
        ))}
        <label class="field inline">
          <span class="field-label">Another player</span>
          <input type="text" value={other} disabled={everyone} onInput={(e) => setOther(e.currentTarget.value)} />
        </label>
      </fieldset>
      {act.error && <ErrorBox error={act.error} title={act.running === "remove" ? "The handout was not removed" : "Who reads it did not change"} />}
      <div class="handout-buttons">
        <button type="submit" class="primary" disabled={act.busy}>
          Save who reads it
        </button>
        <button type="button" disabled={act.busy} onClick={onEdit}>
          Edit
        </button>
        <button type="button" class="danger" disabled={act.busy} onClick={remove}>
          Remove
        </button>
      </div>
    </form>
  );
}
