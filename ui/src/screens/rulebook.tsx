// The Rules tab, for everyone: the ruleset's README, each house rule in force with what it does
// and its source (read-only), and what the last change of the rules changed. A player's book
// comes from the engine without the house rules the GM keeps secret; the GM's marks them and
// lets the GM keep one secret or share it again.
//
// The README is the ruleset author's Markdown, and a ruleset is untrusted: it is rendered as
// `ui/markdown.ts` makes such text safe (HTML off, only safe links, no pictures fetched).

import { useEffect, useMemo } from "preact/hooks";
import { useAction, useCall } from "../calls";
import type { HouseFunction, HouseRulePage, RuleBook, RuleFileChange } from "../contract";
import { useStore, type Store } from "../store";
import { ErrorBox } from "../ui/errors";
import { markdown } from "../ui/markdown";
import "../styles/rulebook.css";

/** A function or hook name in words ("count_successes" → "count successes"). */
export function words(name: string): string {
  return name.replace(/[_*]+/g, " ").trim();
}

export function RuleBookScreen({ store }: { store: Store }) {
  const s = useStore(store);
  const book = useCall(store, "rule_book", {});
  // New rules are in force: read the book again.
  useEffect(() => {
    if (s.lastReload) void book.reload();
  }, [s.lastReload]);
  const b = book.value;
  return (
    <main class="rulebook" aria-label="Rules">
      {book.error && <ErrorBox error={book.error} title="Could not read the rules" />}
      {!b && !book.error && (
        <p class="muted" role="status">
          <span class="spinner" /> Reading the rules…
        </p>
      )}
      {b && (
        <>
          <LastChange book={b} />
          <HouseRulesRead store={store} book={b} gm={s.role === "gm"} onChanged={() => void book.reload()} />
          <Readme book={b} />
        </>
      )}
    </main>
  );
}

function LastChange({ book }: { book: RuleBook }) {
  const last = book.last_reload;
  if (!last) return null;
  return (
    <section class="card rule-change" aria-labelledby="last-change-title">
      <h2 id="last-change-title">The last change of the rules</h2>
      <p class="muted small">
        Event {last.seq}, {new Date(last.at).toLocaleString()}
      </p>
      {last.changes.length ? (
        <ul>
          {last.changes.map((c) => (
            <li key={`${c.layer}/${c.file}`}>{changeWords(c)}</li>
          ))}
        </ul>
      ) : (
        <p>The GM changed a house rule they keep to themselves.</p>
      )}
    </section>
  );
}

function changeWords(c: RuleFileChange): string {
  const what = c.layer === "house" ? `The house rule ${c.file}` : `The ruleset's file ${c.file}`;
  return `${what} was ${c.how}.`;
}

function HouseRulesRead({ store, book, gm, onChanged }: { store: Store; book: RuleBook; gm: boolean; onChanged: () => void }) {
  const changed = new Map((book.last_reload?.changes ?? []).filter((c) => c.layer === "house").map((c) => [c.file, c.how]));
  return (
    <section class="card" aria-labelledby="house-read-title">
      <h2 id="house-read-title">House rules</h2>
      {book.house.length === 0 ? (
        <p class="muted">This table plays the ruleset as written: no house rules.</p>
      ) : (
        book.house.map((h) => <HouseRuleRead key={h.name} store={store} rule={h} gm={gm} how={changed.get(h.name)} onChanged={onChanged} />)
      )}
    </section>
  );
}

function HouseRuleRead({ store, rule, gm, how, onChanged }: { store: Store; rule: HouseRulePage; gm: boolean; how?: string; onChanged: () => void }) {
  const act = useAction(store);
  const id = `house-rule-${rule.name.replace(/[^A-Za-z0-9-]/g, "-")}`;
  return (
    <article class="house-rule-read" aria-labelledby={id}>
      <h3 id={id}>
        {rule.name}
        {how && <span class="badge">{how === "added" ? "new in the last change" : "changed in the last change"}</span>}
        {rule.secret && <span class="badge">secret: only you see it</span>}
      </h3>
      {gm && (
        <label class="field inline">
          <input
            type="checkbox"
            checked={rule.secret}
            disabled={act.busy}
            onChange={(e) => {
              const secret = e.currentTarget.checked;
              void act.run(async () => {
                await store.call("house_rule_secret", { name: rule.name, secret });
                onChanged();
              });
            }}
          />{" "}
          Keep it secret: players are not told of it
        </label>
      )}
      {act.error && <ErrorBox error={act.error} />}
      <p class="muted small">What it does:</p>
      {rule.functions.length ? (
        <ul class="rule-effects">
          {rule.functions.map((f) => (
            <li key={`${f.name}/${f.arity}`}>{effectWords(f)}</li>
          ))}
        </ul>
      ) : (
        <p>It defines nothing the rules use.</p>
      )}
      <details>
        <summary>Its source (read-only)</summary>
        <pre class="rule-source">
          <code>{rule.text}</code>
        </pre>
      </details>
    </article>
  );
}

/** What one function of a house rule does, in words. */
export function effectWords(f: HouseFunction): string {
  const name = `“${words(f.name)}”`;
  const hook = f.hook ? ` It runs at the moment “${words(f.hook)}”.` : "";
  switch (f.effect) {
    case "wraps":
      return `Changes the ruleset's ${name}, building on the ruleset's own.${hook}`;
    case "replaces":
      return `Replaces the ruleset's ${name} with its own.${hook}`;
    case "adds":
      return `Adds ${name}, which the rules use.${hook}`;
    default:
      return `Defines ${name}, which nothing uses: it changes nothing.`;
  }
}

function Readme({ book }: { book: RuleBook }) {
  const html = useMemo(() => (book.readme ? markdown.render(book.readme) : null), [book.readme]);
  return (
    <section class="card readme" aria-labelledby="readme-title">
      <h2 id="readme-title">
        {book.ruleset.name} <span class="muted">v{book.ruleset.version}</span>
      </h2>
      {html ? (
        // markdown-it with HTML off: the README's own HTML is escaped, links are checked.
        <div class="markdown" dangerouslySetInnerHTML={{ __html: html }} />
      ) : (
        <p class="muted">This computer does not have the ruleset's own description; the house rules above are all the table adds to it.</p>
      )}
    </section>
  );
}
