//! docs/dice.md's table of every form says what the parser and the roller do: each row's
//! example, in each dialect, is rolled on the faces it gives and must come to the total it
//! states, and each "refused" must be refused with the words it quotes. The table also names
//! every modifier the parser reads, so a new one cannot go undocumented.

use houserule_core::dice::term::MODIFIERS;
use houserule_core::dice::{parse_in, roll, Dialect, Forced, RollSource};

const DOC: &str = include_str!("../../../docs/dice.md");
const HEADER: &str = "| you type | Houserule (default) | Roll20 dialect |";

/// One row of the table: the form, and what each dialect reads it as.
struct Row {
    line: usize,
    form: String,
    readings: [String; 2],
}

/// What a cell says.
#[derive(Debug, PartialEq)]
enum Reading {
    /// The form is an error, whose message holds each of these.
    Refused(Vec<String>),
    /// These faces, in order, give this total.
    Rolls { faces: String, total: i64 },
}

/// The rows of the table under [`HEADER`].
fn rows(doc: &str) -> Vec<Row> {
    let lines: Vec<&str> = doc.lines().collect();
    let start = lines.iter().position(|l| l.trim() == HEADER).expect("docs/dice.md has the table of every form");
    lines[start + 2..]
        .iter()
        .enumerate()
        .take_while(|(_, l)| l.starts_with('|'))
        .map(|(i, l)| {
            let line = start + 3 + i;
            let cells: Vec<&str> = l.trim().trim_matches('|').split('|').map(str::trim).collect();
            let [form, houserule, roll20] = cells[..] else {
                panic!("docs/dice.md line {line}: a row has three cells, not {}: {l}", cells.len())
            };
            let form = code_spans(form)
                .into_iter()
                .next()
                .unwrap_or_else(|| panic!("docs/dice.md line {line}: the form is written as code: {form}"));
            Row { line, form, readings: [houserule.to_string(), roll20.to_string()] }
        })
        .collect()
}

/// The `code` spans of a cell, in order.
fn code_spans(cell: &str) -> Vec<String> {
    cell.split('`').skip(1).step_by(2).map(str::to_string).collect()
}

/// Reads a cell: `refused: "words" …`, or a description ending in `` `faces` → total ``.
fn reading(cell: &str) -> Result<Reading, String> {
    if cell.starts_with("refused") {
        let quoted: Vec<String> = cell.split('"').skip(1).step_by(2).map(str::to_string).collect();
        return if quoted.is_empty() {
            Err("a refusal quotes its message".into())
        } else {
            Ok(Reading::Refused(quoted))
        };
    }
    let (before, after) = cell.rsplit_once('→').ok_or("a reading ends in `faces` → total")?;
    let total = after.trim().replace('\u{2212}', "-");
    let total = total.parse::<i64>().map_err(|_| format!("'{total}' is not a total"))?;
    let faces = code_spans(before).pop().ok_or("the faces before → are written as code")?;
    Ok(Reading::Rolls { faces, total })
}

/// What `form` does in `dialect` against what the table says; `None` when they agree.
fn disagreement(form: &str, dialect: Dialect, said: &Reading) -> Option<String> {
    let parsed = parse_in(form, dialect);
    match (said, parsed) {
        (Reading::Refused(words), Err(e)) => {
            let missing: Vec<&String> = words.iter().filter(|w| !e.message.contains(w.as_str())).collect();
            (!missing.is_empty()).then(|| format!("refused, but the message does not say {missing:?}: {e}"))
        }
        (Reading::Refused(_), Ok(_)) => Some("said to be refused, but it parses".into()),
        (Reading::Rolls { .. }, Err(e)) => Some(format!("said to roll, but it is refused: {e}")),
        (Reading::Rolls { faces, total }, Ok(expr)) => {
            let list = match Forced::parse_list(faces) {
                Ok(list) => list,
                Err(e) => return Some(format!("the faces `{faces}` do not read: {e}")),
            };
            let mut forced = Forced::new(list);
            let rolled = roll(&expr, &mut forced, RollSource::Forced).and_then(|r| forced.finish().map(|_| r));
            match rolled {
                Ok(r) if r.total == *total => None,
                Ok(r) => Some(format!("on {faces} it totals {}, not {total}: {}", r.total, r.summary())),
                Err(e) => Some(format!("the faces {faces} do not fit the roll: {e}")),
            }
        }
    }
}

/// Every way the table and the code disagree, one line each.
fn disagreements(doc: &str) -> Vec<String> {
    let mut out = Vec::new();
    for row in rows(doc) {
        for (dialect, cell) in [Dialect::Houserule, Dialect::Roll20].into_iter().zip(&row.readings) {
            let problem = match reading(cell) {
                Ok(said) => disagreement(&row.form, dialect, &said),
                Err(e) => Some(format!("the cell does not read ({e}): {cell}")),
            };
            if let Some(p) = problem {
                out.push(format!("docs/dice.md line {}: `{}` in the {dialect} dialect: {p}", row.line, row.form));
            }
        }
    }
    out
}

#[test]
fn every_form_in_the_table_reads_as_the_table_says() {
    let rows = rows(DOC);
    assert!(rows.len() >= 60, "the table lists every form, not {}", rows.len());
    let wrong = disagreements(DOC);
    assert!(wrong.is_empty(), "docs/dice.md and the dice disagree:\n{}", wrong.join("\n"));
}

#[test]
fn a_wrong_row_is_caught() {
    let planted = DOC.replace(
        "| `4d6kh3` | keep the highest 3: `2,5,1,5` → 12 |",
        "| `4d6kh3` | keep the highest 3: `2,5,1,5` → 13 |",
    );
    assert_ne!(planted, DOC, "the row to plant a mistake in is in the table");
    let wrong = disagreements(&planted);
    assert_eq!(wrong.len(), 1, "{wrong:?}");
    assert!(
        wrong[0].contains("`4d6kh3` in the houserule dialect") && wrong[0].contains("totals 12, not 13"),
        "{wrong:?}"
    );
}

#[test]
fn the_table_names_every_modifier() {
    let forms: Vec<String> = rows(DOC).into_iter().map(|r| r.form).collect();
    for m in MODIFIERS {
        let shown = forms.iter().any(|f| f.split_once('d').is_some_and(|(_, rest)| rest.contains(m)));
        assert!(shown, "docs/dice.md's table has no row with the modifier '{m}'");
    }
}

#[test]
fn cells_read_as_refusals_or_rolls() {
    assert_eq!(
        reading("count them: `8,9` → 2"),
        Ok(Reading::Rolls { faces: "8,9".into(), total: 2 }),
        "the last code span before the arrow is the faces"
    );
    assert_eq!(reading("refused: \"a\" and \"b\""), Ok(Reading::Refused(vec!["a".into(), "b".into()])));
    assert!(reading("refused").is_err(), "a refusal without its words says nothing to check");
    assert!(reading("count them: 8,9 → 2").is_err(), "faces must be code");
}
