// A ruleset script's functions, listed under the editor: each one jumps to its line, or is
// copied into a new house rule to change it. The functions are found in the script's text.

import type { HouseRuleText } from "../../contract";

export function ScriptFunctions({ file, onGoTo, onCopy }: { file: HouseRuleText; onGoTo: (line: number) => void; onCopy: (text: string) => void }) {
  const functions = functionsOf(file.text);
  if (functions.length === 0) return null;
  return (
    <details class="functions" open>
      <summary>Functions in {file.name}</summary>
      <ul>
        {functions.map((f) => (
          <li key={`${f.name}-${f.line}`}>
            <button type="button" class="linklike" onClick={() => onGoTo(f.line)}>
              <code>
                {f.name}({f.params})
              </code>
            </button>{" "}
            <span class="muted small">line {f.line}</span>{" "}
            <button type="button" class="small" onClick={() => onCopy(f.text)}>
              Copy into a new house rule
            </button>
          </li>
        ))}
      </ul>
    </details>
  );
}

interface FnInfo {
  name: string;
  params: string;
  line: number;
  text: string;
}

/** The functions a script defines, with their text (to copy into a house rule). */
export function functionsOf(text: string): FnInfo[] {
  const out: FnInfo[] = [];
  const re = /^[ \t]*(?:private[ \t]+)?fn[ \t]+([A-Za-z_]\w*)[ \t]*\(([^)]*)\)/gm;
  let m: RegExpExecArray | null;
  while ((m = re.exec(text))) {
    const start = m.index + (m[0].length - m[0].trimStart().length);
    const open = text.indexOf("{", m.index + m[0].length);
    const end = open >= 0 ? blockEnd(text, open) : text.length;
    const line = text.slice(0, start).split("\n").length;
    out.push({ name: m[1], params: m[2].trim(), line, text: text.slice(start, end) });
  }
  return out;
}

/** Just past the `}` that closes the block opened at `open` (strings and `//` comments
 * skipped), or the end of the text. */
function blockEnd(text: string, open: number): number {
  let depth = 0;
  for (let i = open; i < text.length; i++) {
    const ch = text[i];
    if (ch === '"') {
      i++;
      while (i < text.length && text[i] !== '"') i += text[i] === "\\" ? 2 : 1;
    } else if (ch === "/" && text[i + 1] === "/") {
      while (i < text.length && text[i] !== "\n") i++;
    } else if (ch === "{") depth++;
    else if (ch === "}" && --depth === 0) return i + 1;
  }
  return text.length;
}
