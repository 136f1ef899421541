//! Dice rolls, and the after-roll hook.

use super::{opt_string, reg, to_dynamic, visibility, Fallible, Handle};
use crate::dice::{Cmp, Roll, RollSource};
use crate::tx::RollOptions;
use crate::visibility::Visibility;
use rhai::{Dynamic, Engine, Map, NativeCallContext};

/// One die for scripts: every key present, so `d.exploded` is always a bool.
fn die_json(d: &crate::dice::Die) -> serde_json::Value {
    serde_json::json!({
        "sides": d.sides.to_string(),
        "face": d.face,
        "kept": d.kept,
        "exploded": d.exploded,
        "bonus": d.bonus,
        "success": d.success,
        "marks": d.marks,
    })
}

/// The script's view of a roll: `expr`, `label`, `total`, `successes` (or `()`), `faces` (kept
/// faces in order), `dice` (every die, each with all its flags), `terms` and `forced`.
pub fn roll_map(roll: &Roll) -> Dynamic {
    let terms: Vec<serde_json::Value> = roll
        .terms
        .iter()
        .map(|t| serde_json::json!({ "term": t.term, "value": t.value, "successes": t.successes, "dice": t.dice.iter().map(die_json).collect::<Vec<_>>() }))
        .collect();
    let v = serde_json::json!({
        "expr": roll.expr,
        "label": roll.label,
        "total": roll.total,
        "successes": roll.successes,
        "faces": roll.kept_faces(),
        "dice": roll.dice().map(die_json).collect::<Vec<_>>(),
        "terms": terms,
        "forced": roll.source == RollSource::Forced,
    });
    to_dynamic(&v)
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
                let m = v.clone().try_cast::<Map>().ok_or("marks is a map of mark name to condition, such as #{critical: \"<=1\"}")?;
                for (mark, cond) in m {
                    let c = Cmp::parse(&cond.to_string()).ok_or_else(|| format!("mark '{mark}': '{cond}' is not a condition such as >=20"))?;
                    o.marks.push((mark.to_string(), c));
                }
            }
            other => return Err(format!("a roll has no option '{other}' (use label, visibility, owner, marks)").into()),
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
        "Rolls with options: label, visibility (public, owner, gm, hidden), owner (player or entity), marks (#{critical: \"<=1\", complication: \">=20\"}) shown on the dice.",
        |ctx: NativeCallContext, h: &mut Handle, expr: &str, opts: Map| -> Fallible<Dynamic> {
            let o = options(h, &opts)?;
            roll_with(&ctx, h, expr, o)
        },
    );
}
