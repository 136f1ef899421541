//! Dice rolls, and the after-roll hook.

use super::{opt_string, reg, visibility, Fallible, Handle};
use crate::dice::{Cmp, Roll, RollSource};
use crate::tx::RollOptions;
use crate::visibility::Visibility;
use rhai::{Dynamic, Engine, Map, NativeCallContext};

fn opt<T: Into<Dynamic>>(v: Option<T>) -> Dynamic {
    v.map(Into::into).unwrap_or(Dynamic::UNIT)
}

/// One die for scripts: every key present, so `d.exploded` is always a bool.
fn die_map(d: &crate::dice::Die) -> Dynamic {
    let mut m = Map::new();
    m.insert("sides".into(), d.sides.to_string().into());
    m.insert("face".into(), d.face.into());
    m.insert("kept".into(), d.kept.into());
    m.insert("exploded".into(), d.exploded.into());
    m.insert("bonus".into(), d.bonus.into());
    m.insert("success".into(), opt(d.success));
    m.insert("marks".into(), d.marks.iter().map(|s| Dynamic::from(s.clone())).collect::<rhai::Array>().into());
    m.into()
}

/// The script's view of a roll: `expr`, `label`, `total`, `successes` (or `()`), `faces` (kept
/// faces in order), `dice` (every die, each with all its flags), `terms` and `forced`.
pub fn roll_map(roll: &Roll) -> Dynamic {
    let terms: rhai::Array = roll
        .terms
        .iter()
        .map(|t| {
            let mut m = Map::new();
            m.insert("term".into(), t.term.clone().into());
            m.insert("value".into(), t.value.into());
            m.insert("successes".into(), opt(t.successes));
            m.insert("dice".into(), t.dice.iter().map(die_map).collect::<rhai::Array>().into());
            Dynamic::from(m)
        })
        .collect();
    let mut m = Map::new();
    m.insert("expr".into(), roll.expr.clone().into());
    m.insert("label".into(), opt(roll.label.clone()));
    m.insert("total".into(), roll.total.into());
    m.insert("successes".into(), opt(roll.successes));
    m.insert("faces".into(), roll.kept_faces().into_iter().map(Dynamic::from).collect::<rhai::Array>().into());
    m.insert("dice".into(), roll.dice().map(die_map).collect::<rhai::Array>().into());
    m.insert("terms".into(), terms.into());
    m.insert("forced".into(), (roll.source == RollSource::Forced).into());
    m.into()
}

fn options(h: &Handle, opts: &Map) -> Fallible<RollOptions> {
    let mut o = RollOptions::default();
    for (k, v) in opts {
        match k.as_str() {
            "label" => o.label = opt_string(v),
            "visibility" => o.visibility = visibility(&v.to_string())?,
            "owner" => {
                // A player name, or an entity whose owner may see the roll.
                let who = v.to_string();
                o.owner = Some(h.read(|tx| tx.table.entities.get(&who).and_then(|e| e.owner.clone())).unwrap_or(who));
            }
            "marks" => {
                let m = v
                    .clone()
                    .try_cast::<Map>()
                    .ok_or("marks is a map of mark name to condition, such as #{critical: \"<=1\"}")?;
                for (mark, cond) in m {
                    let c = Cmp::parse(&cond.to_string())
                        .ok_or_else(|| format!("mark '{mark}': '{cond}' is not a condition such as >=20"))?;
                    o.marks.push((mark.to_string(), c));
                }
            }
            "typed" => o.typed = v.as_bool().map_err(|_| "typed is true or false")?,
            other => {
                return Err(
                    format!("a roll has no option '{other}' (use label, visibility, owner, marks, typed)").into()
                )
            }
        }
    }
    if o.visibility == Visibility::Owner && o.owner.is_none() {
        return Err("an owner-only roll needs owner: the player or entity who may see it".into());
    }
    Ok(o)
}

fn roll_with(ctx: &NativeCallContext, h: &mut Handle, expr: &str, opts: RollOptions) -> Fallible<Dynamic> {
    let (roll, fire) = h.with(|tx| {
        let roll = tx.roll(expr, opts)?;
        let fire = !tx.in_after_roll;
        if fire {
            tx.in_after_roll = true;
        }
        Ok((roll, fire))
    })?;
    let map = roll_map(&roll);
    if fire {
        let result = match h.hooks.after_roll.clone() {
            Some(f) => ctx.call_fn::<Dynamic>(&f, (h.clone(), map.clone())).map(|_| ()),
            None => Ok(()),
        };
        h.with(|tx| {
            tx.in_after_roll = false;
            Ok(())
        })?;
        result?;
    }
    Ok(map)
}

pub(super) fn register(engine: &mut Engine) {
    reg!(
        engine,
        "roll",
        &["t: Table", "expr: String", "Map"],
        "Rolls a dice expression (2d6+1, 4dF, 1d8!, 4d6kh3, 7d6cs>=4 …) and records it. Returns #{expr, total, successes, faces, dice, terms, forced}.",
        |ctx: NativeCallContext, h: &mut Handle, expr: &str| -> Fallible<Dynamic> { roll_with(&ctx, h, expr, RollOptions::default()) },
    );
    reg!(
        engine,
        "roll",
        &["t: Table", "expr: String", "options: Map", "Map"],
        "Rolls with options: label, visibility (public, owner, gm, hidden), owner (player or entity), marks (#{critical: \"<=1\", complication: \">=20\"}) shown on the dice, typed (true when the expression was typed by a person: read it in the campaign's dice dialect; a ruleset's own expressions are always read in Houserule's).",
        |ctx: NativeCallContext, h: &mut Handle, expr: &str, opts: Map| -> Fallible<Dynamic> {
            let o = options(h, &opts)?;
            roll_with(&ctx, h, expr, o)
        },
    );
}
