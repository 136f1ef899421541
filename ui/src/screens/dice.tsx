// How a roll shows in the log: each die face as a chip (successes, criticals, complications
// and aces highlighted; dropped dice struck; bonus dice marked), dice typed in labelled "by
// hand", and the total or the count of successes (both, when arithmetic is around the count).

import type { Die, Roll } from "../contract";
import { humanize } from "../format";

const MARKS = ["critical", "complication", "ace"];

function dieFace(d: Die): string {
  if (d.sides === "dF") return d.face > 0 ? "+" : d.face < 0 ? "−" : "0";
  return String(d.face);
}

function dieDescription(d: Die): string {
  const parts = [`${d.sides} ${dieFace(d)}`];
  if (d.success === true) parts.push("success");
  for (const m of d.marks ?? []) parts.push(m);
  if (d.kept === false) parts.push("dropped");
  if (d.exploded) parts.push("exploded");
  if (d.bonus) parts.push("bonus die");
  return parts.join(", ");
}

export function DieChip({ die }: { die: Die }) {
  const cls = ["die", `die-${die.sides.replace("%", "pct")}`];
  if (die.success === true) cls.push("success");
  if (die.success === false) cls.push("failure");
  if (die.kept === false) cls.push("dropped");
  if (die.exploded) cls.push("exploded");
  if (die.bonus) cls.push("bonus");
  for (const m of die.marks ?? []) cls.push(MARKS.includes(m) ? m : "marked");
  return (
    <li class={cls.join(" ")} title={dieDescription(die)} aria-label={dieDescription(die)}>
      {die.kept === false ? <s>{dieFace(die)}</s> : dieFace(die)}
    </li>
  );
}

export function RollView({ roll, secret }: { roll: Roll; secret: string }) {
  const forced = roll.source === "forced";
  const allDice = roll.terms.flatMap((t) => t.dice ?? []);
  const marks = [...new Set(allDice.flatMap((d) => d.marks ?? []))];
  const constant = roll.terms.filter((t) => !t.dice || t.dice.length === 0);
  return (
    <div class={`roll ${forced ? "forced" : ""}`}>
      <div class="roll-head">
        <span class="roll-label">{roll.label ? humanize(roll.label) : "Roll"}</span>
        <code class="roll-expr">{roll.expr}</code>
        {forced && (
          <span class="by-hand" title="Faces typed in, not rolled by Houserule">
            by hand
          </span>
        )}
        {secret !== "public" && <Vis v={secret} />}
      </div>
      <div class="roll-body">
        <ul class="dice" aria-label={`${roll.label ? humanize(roll.label) : "Roll"} dice: ${allDice.map(dieFace).join(", ")}`}>
          {allDice.map((d, i) => (
            <DieChip key={i} die={d} />
          ))}
        </ul>
        {constant.map((t, i) => (
          <span key={i} class="roll-constant">
            {t.term}
          </span>
        ))}
        <span class="roll-total">
          {roll.successes !== null && roll.successes !== undefined ? (
            roll.total === roll.successes ? (
              <>
                <strong>{roll.successes}</strong> {roll.successes === 1 ? "success" : "successes"}
              </>
            ) : (
              // Arithmetic around a count (3d6cs>=4+2): the total counts, the successes say why.
              <>
                = <strong>{roll.total}</strong> ({roll.successes} {roll.successes === 1 ? "success" : "successes"})
              </>
            )
          ) : (
            <>
              = <strong>{roll.total}</strong>
            </>
          )}
        </span>
        {marks.map((m) => (
          <span key={m} class={`mark-note ${m}`}>
            {humanize(m)}
          </span>
        ))}
      </div>
    </div>
  );
}


/** A badge saying who may see a value. */
export function Vis({ v }: { v: string }) {
  return <span class="secret-badge">{v === "gm" ? "GM only" : v === "owner" ? "owner and GM" : v}</span>;
}
