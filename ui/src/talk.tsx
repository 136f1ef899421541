// Table talk on screen: a post's light Markdown (**bold**, *italic* or _italic_, `> quote`
// lines, line breaks and blank-line paragraphs) turned into Preact elements by a small
// tokenizer. Nothing typed is ever handed to the browser as HTML: every piece of text ends up
// as a text node, so a post cannot inject markup into anyone else's screen. The inline rules
// follow the engine's forum export (crates/core/src/post.rs), so the screen and a copied forum
// post agree on what is bold and what is italic.

import type { ComponentChildren } from "preact";
import type { EntityView, LogEntry, LogItem, Manifest, Post, Role, View } from "./contract";
import { roleName } from "./format";

/** A piece of text to pick out wherever it appears (case-insensitively). */
export interface Highlight {
  text: string;
  /** The class of its <mark>. */
  cls: string;
  /** What the mark means, for a tooltip and screen readers. */
  title?: string;
}

type Span = { t: "text"; text: string } | { t: "b" | "i"; children: Span[] };

/** `**bold**` and `*italic*`/`_italic_` spans of one line. A mark that is not closed stays as
 * typed, and an empty pair (`**`) is plain text. */
export function inlineSpans(line: string): Span[] {
  const out: Span[] = [];
  let plain = "";
  let i = 0;
  const flush = () => {
    if (plain) out.push({ t: "text", text: plain });
    plain = "";
  };
  while (i < line.length) {
    const c = line[i];
    const mark = c === "*" && line[i + 1] === "*" ? "**" : c === "*" || c === "_" ? c : null;
    if (!mark) {
      plain += c;
      i += 1;
      continue;
    }
    const start = i + mark.length;
    const end = line.indexOf(mark, start);
    if (end > start) {
      flush();
      const inner = line.slice(start, end);
      // Bold may hold italics; italics are taken as they are.
      out.push(mark === "**" ? { t: "b", children: inlineSpans(inner) } : { t: "i", children: [{ t: "text", text: inner }] });
      i = end + mark.length;
    } else {
      plain += mark;
      i += mark.length;
    }
  }
  flush();
  return out;
}

export type Block = { t: "p"; lines: string[] } | { t: "quote"; lines: string[] };

/** Paragraphs (separated by blank lines; single line breaks kept) and `>` quotes. */
export function blocks(text: string): Block[] {
  const out: Block[] = [];
  let current: Block | null = null;
  for (const raw of text.replace(/\r/g, "").split("\n")) {
    const quoted = /^\s*>/.test(raw);
    const line = quoted ? raw.replace(/^\s*>\s?/, "") : raw;
    if (!quoted && line.trim() === "") {
      current = null;
      continue;
    }
    const kind = quoted ? "quote" : "p";
    const block: Block = current && current.t === kind ? current : { t: kind, lines: [] };
    if (block !== current) out.push(block);
    block.lines.push(line);
    current = block;
  }
  return out;
}

/** Splits `text` at every occurrence of the highlights (the longest wins where they overlap). */
export function marked(text: string, highlights: Highlight[]): ComponentChildren[] {
  const terms = highlights.filter((h) => h.text.trim() !== "").sort((a, b) => b.text.length - a.text.length);
  if (!terms.length) return [text];
  const lower = text.toLowerCase();
  const out: ComponentChildren[] = [];
  let plain = "";
  let i = 0;
  while (i < text.length) {
    const hit = terms.find((h) => lower.startsWith(h.text.toLowerCase(), i));
    if (!hit) {
      plain += text[i];
      i += 1;
      continue;
    }
    if (plain) out.push(plain);
    plain = "";
    const piece = text.slice(i, i + hit.text.length);
    out.push(
      <mark key={`${i}`} class={hit.cls} title={hit.title}>
        {piece}
      </mark>,
    );
    i += hit.text.length;
  }
  if (plain) out.push(plain);
  return out;
}

function renderSpans(spans: Span[], highlights: Highlight[]): ComponentChildren[] {
  return spans.map((s, i) => {
    if (s.t === "text") return marked(s.text, highlights);
    const inner = renderSpans(s.children, highlights);
    return s.t === "b" ? <strong key={i}>{inner}</strong> : <em key={i}>{inner}</em>;
  });
}

function renderLines(lines: string[], highlights: Highlight[]): ComponentChildren[] {
  const out: ComponentChildren[] = [];
  lines.forEach((line, i) => {
    if (i > 0) out.push(<br key={`br${i}`} />);
    out.push(...renderSpans(inlineSpans(line), highlights));
  });
  return out;
}

/** A post's text, formatted, with some words picked out. */
export function PostText({ text, highlights = [], id }: { text: string; highlights?: Highlight[]; id?: string }) {
  return (
    <div class="post-text" id={id}>
      {blocks(text).map((b, i) =>
        b.t === "quote" ? <blockquote key={i}>{renderLines(b.lines, highlights)}</blockquote> : <p key={i}>{renderLines(b.lines, highlights)}</p>,
      )}
    </div>
  );
}

/**
 * A post's text with each inline roll (`[[2d6+1]]`) shown with what it rolled ("2d6+1 → 9"),
 * in the order the engine rolled them, and highlights that pick those results out.
 */
export function inlineTotals(text: string, totals: number[]): { text: string; marks: Highlight[] } {
  const marks: Highlight[] = [];
  let k = 0;
  const shown = text.replace(/\[\[([^\]]*)\]\]/g, (whole, expr: string) => {
    if (k >= totals.length) return whole;
    const piece = `${expr.trim()} → ${totals[k++]}`;
    marks.push({ text: piece, cls: "inline-roll", title: "Rolled as the post was written" });
    return piece;
  });
  return { text: shown, marks };
}

// ---------------------------------------------------------------- posts in log entries

export type PostItem = Extract<LogItem, { type: "post" }>;

/** The post an entry carries (a post of its own, or the one an action came with). */
export function postOf(entry: LogEntry): Post | null {
  const item = entry.items.find((i): i is PostItem => i.type === "post");
  return item ? item.post : null;
}

/** Whether a post is only for some people: to the GM, or a whisper with one player. */
export function isPrivate(post: Post): boolean {
  return post.to !== "everyone";
}

/** Who a post is for, in words as `viewer` reads them, or null for everyone. */
export function audienceText(post: Post, author: Role | null | undefined, viewer: Role): string | null {
  if (post.to === "everyone") return null;
  if (post.to === "gm") return author === "gm" ? "GM note" : "To the GM only";
  if (post.to.startsWith("player:")) {
    const who = post.to.slice("player:".length);
    if (viewer !== "gm") return `Whisper: ${who} and the GM`;
    return author === "gm" ? `Whisper to ${who}` : `Whisper from ${who}`;
  }
  return post.to;
}

/** Does `text` name `name` (case-insensitively)? The narrate-to-roll rule: the traits a post
 * names are the traits its roll may use. */
export function names(text: string, name: string): boolean {
  return name.trim() !== "" && text.toLowerCase().includes(name.toLowerCase());
}

/** The names of an action's parameters that are lists of traits (from the manifest). */
export function traitListParams(manifest: Manifest | null, action: string | null | undefined): string[] {
  if (!manifest || !action) return [];
  const params = manifest.actions?.[action]?.params ?? {};
  return Object.entries(params)
    .filter(([, spec]) => spec.type === "list" && (spec.of === "trait" || (typeof spec.of === "object" && spec.of?.type === "trait")))
    .map(([name]) => name);
}

/** The traits an action entry rolled (its list-of-trait parameters), to pick out in its post. */
export function rolledTraits(entry: LogEntry, manifest: Manifest | null): { name: string; param: string }[] {
  const lists = traitListParams(manifest, entry.action);
  const out: { name: string; param: string }[] = [];
  for (const item of entry.items) {
    if (item.type !== "param" || !lists.includes(item.name) || !Array.isArray(item.value)) continue;
    for (const v of item.value) if (typeof v === "string") out.push({ name: v, param: item.name });
  }
  return out;
}

/** The entities a viewer may speak as: a player's own; for the GM, everyone's. */
export function speakers(view: View, actingAs: Role): EntityView[] {
  const all = Object.values(view.entities).sort((a, b) => a.name.localeCompare(b.name));
  if (actingAs === "gm") return all;
  const me = roleName(actingAs);
  return all.filter((e) => e.owner === me);
}

/** The kinds of entity players play (any kind with an owned entity): the table's characters. */
export function characterKinds(view: View): Set<string> {
  return new Set(Object.values(view.entities).filter((e) => e.owner).map((e) => e.kind));
}
