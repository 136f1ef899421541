//! The turn tracker: encounters, the order, whose turn it is, holding and acting at once, ending
//! a turn without choosing the next (where the rules let a side choose), and the `turn_start`,
//! `turn_end` and `round_end` hooks fired as the turn passes.

use super::{reg, Fallible, Handle};
use crate::tx_turns::NextUp;
use rhai::{Array, Dynamic, Engine, Map, NativeCallContext, INT};

fn fire(ctx: &NativeCallContext, h: &Handle, hook: Option<String>, arg: Dynamic) -> Fallible<()> {
    match hook {
        Some(f) => ctx.call_fn::<Dynamic>(&f, (h.clone(), arg)).map(|_| ()),
        None => Ok(()),
    }
}

/// Ends the current turn (counting it as acted unless `acted` is false), then gives the turn to
/// the next participant in order, ending the round first if everyone has acted. Fires the
/// hooks between the steps. Returns nothing: whose turn it is may be a hidden NPC's, and what
/// a player's action returns is the player's to read, so a script asks `t.turn()` on purpose.
fn pass_turn(ctx: &NativeCallContext, h: &mut Handle, acted: bool) -> Fallible<()> {
    if let Some(id) = h.with(|tx| tx.finish_turn(acted))? {
        fire(ctx, h, h.hooks.turn_end.clone(), id.into())?;
    }
    start_next(ctx, h)
}

/// Gives the turn to the next participant, ending the round first if everyone has acted.
fn start_next(ctx: &NativeCallContext, h: &mut Handle) -> Fallible<()> {
    let mut next = h.with(|tx| tx.pick_next())?;
    if next == NextUp::RoundOver {
        let round = h.with(|tx| tx.next_round())? as INT;
        fire(ctx, h, h.hooks.round_end.clone(), round.into())?;
        // A round_end hook may have given someone the turn already.
        if h.read(|tx| tx.table.turns.current.is_some()) {
            return Ok(());
        }
        next = h.with(|tx| tx.pick_next())?;
    }
    match next {
        NextUp::Turn(id) => fire(ctx, h, h.hooks.turn_start.clone(), id.into()),
        NextUp::RoundOver => Ok(()),
    }
}

/// A sort key from a script: a number, or an array of numbers compared in turn.
fn key(value: Dynamic) -> Fallible<Vec<i64>> {
    if let Ok(n) = value.as_int() {
        return Ok(vec![n]);
    }
    match value.try_cast::<Array>() {
        Some(a) => a
            .into_iter()
            .map(|v| v.as_int().map_err(|_| "a place in the turn order sorts on whole numbers".into()))
            .collect(),
        None => Err("a place in the turn order sorts on a whole number or an array of them".into()),
    }
}

fn ids(list: Array) -> Vec<String> {
    list.into_iter().map(|v| v.to_string()).collect()
}

fn tracker(h: &Handle) -> Map {
    h.read(|tx| {
        let turns = &tx.table.turns;
        let order: Array = turns
            .order()
            .into_iter()
            .map(|(id, s)| {
                let mut m = Map::new();
                m.insert("id".into(), id.to_string().into());
                m.insert("key".into(), s.key.iter().map(|k| Dynamic::from(*k)).collect::<Array>().into());
                m.insert("acted".into(), s.acted.into());
                m.insert("held".into(), s.held.into());
                Dynamic::from(m)
            })
            .collect();
        let mut m = Map::new();
        m.insert("active".into(), turns.active.into());
        m.insert("round".into(), (turns.round as INT).into());
        m.insert("current".into(), turns.current.clone().unwrap_or_default().into());
        m.insert("order".into(), order.into());
        m
    })
}

pub(super) fn register(engine: &mut Engine) {
    register_reading(engine);
    register_order(engine);
    register_passing(engine);
}

fn register_reading(engine: &mut Engine) {
    reg!(
        engine,
        "turn",
        &["t: Table", "String"],
        "Whose turn it is: an entity id, or \"\" for no one's.",
        |h: &mut Handle| h.read(|tx| tx.table.turns.current.clone().unwrap_or_default())
    );
    reg!(
        engine,
        "turns",
        &["t: Table", "Map"],
        "The turn tracker: #{active, round, current, order: [#{id, key, acted, held}]} in turn order.",
        |h: &mut Handle| tracker(h)
    );
}

fn register_order(engine: &mut Engine) {
    reg!(
        engine,
        "start_encounter",
        &["t: Table", "ids: Array", "()"],
        "Starts an encounter in round 1 with these entities in the turn order (refused while one runs). No one's turn yet: call t.advance_turn().",
        |h: &mut Handle, list: Array| -> Fallible<()> { h.with(|tx| tx.start_encounter(&ids(list))) }
    );
    reg!(
        engine,
        "end_encounter",
        &["t: Table", "()"],
        "Ends the encounter: no participants, no one's turn, no round.",
        |h: &mut Handle| -> Fallible<()> { h.with(|tx| tx.end_encounter()) }
    );
    reg!(
        engine,
        "join_turns",
        &["t: Table", "id: String", "key: ?", "()"],
        "Gives an entity a place in the running encounter's order, sorted by key (a number, or an array of numbers compared in turn; highest first).",
        |h: &mut Handle, id: &str, k: Dynamic| -> Fallible<()> {
            let k = key(k)?;
            h.with(|tx| tx.join_turns(id, k))
        }
    );
    reg!(
        engine,
        "leave_turns",
        &["t: Table", "id: String", "()"],
        "Takes an entity out of the turn order; if it was their turn, it is no one's.",
        |h: &mut Handle, id: &str| -> Fallible<()> { h.with(|tx| tx.leave_turns(id)) }
    );
    reg!(
        engine,
        "set_initiative",
        &["t: Table", "id: String", "key: ?", "()"],
        "Sets what a participant's place sorts on: a number, or an array of numbers compared in turn (a card's rank, then its suit); highest acts first, ties in joining order.",
        |h: &mut Handle, id: &str, k: Dynamic| -> Fallible<()> {
            let k = key(k)?;
            h.with(|tx| tx.set_initiative(id, k))
        }
    );
    reg!(
        engine,
        "set_turn_order",
        &["t: Table", "ids: Array", "()"],
        "Puts every participant in this order (each named once).",
        |h: &mut Handle, list: Array| -> Fallible<()> { h.with(|tx| tx.set_turn_order(&ids(list))) }
    );
    reg!(
        engine,
        "mark_acted",
        &["t: Table", "id: String", "()"],
        "Counts a participant as having acted this round (one who assisted, say): the tracker passes them over.",
        |h: &mut Handle, id: &str| -> Fallible<()> { h.with(|tx| tx.mark_acted(id)) }
    );
}

fn register_passing(engine: &mut Engine) {
    reg!(
        engine,
        "advance_turn",
        &["t: Table", "()"],
        "Ends the current turn (calls turn_end) and gives the turn to the first participant in order who has not acted and does not hold (calls turn_start); when everyone has, ends the round first (nobody has acted, the round counter advances, calls round_end). Returns nothing, so a player's action cannot hand back a hidden NPC's id by accident: read t.turn().",
        |ctx: NativeCallContext, h: &mut Handle| -> Fallible<()> { pass_turn(&ctx, h, true) }
    );
    reg!(
        engine,
        "close_turn",
        &["t: Table", "()"],
        "Ends the current turn (calls turn_end) and gives the turn to no one, for rules where a side or a player chooses who acts next (t.act_now gives it); when everyone has then acted or holds, the round ends (nobody has acted, the round counter advances, calls round_end) and still no one has the turn.",
        |ctx: NativeCallContext, h: &mut Handle| -> Fallible<()> {
            if let Some(id) = h.with(|tx| tx.finish_turn(true))? {
                fire(&ctx, h, h.hooks.turn_end.clone(), id.into())?;
            }
            if h.read(|tx| tx.round_over()) {
                let round = h.with(|tx| tx.next_round())? as INT;
                fire(&ctx, h, h.hooks.round_end.clone(), round.into())?;
            }
            Ok(())
        }
    );
    reg!(
        engine,
        "new_round",
        &["t: Table", "()"],
        "Ends the round of the encounter now: the current turn ends (calls turn_end), nobody has acted, the round counter advances (calls round_end), and the first participant in order who does not hold takes the turn (calls turn_start).",
        |ctx: NativeCallContext, h: &mut Handle| -> Fallible<()> {
            if let Some(id) = h.with(|tx| tx.finish_turn(true))? {
                fire(&ctx, h, h.hooks.turn_end.clone(), id.into())?;
            }
            let round = h.with(|tx| tx.next_round())? as INT;
            fire(&ctx, h, h.hooks.round_end.clone(), round.into())?;
            if h.read(|tx| tx.table.turns.current.is_some()) {
                return Ok(());
            }
            start_next(&ctx, h)
        }
    );
    reg!(
        engine,
        "hold_turn",
        &["t: Table", "id: String", "()"],
        "A participant who has not acted this round holds their turn, to act later with t.act_now. On their own turn, the turn passes on as with t.advance_turn.",
        |ctx: NativeCallContext, h: &mut Handle, id: &str| -> Fallible<()> {
            if h.with(|tx| tx.hold_turn(id))? {
                fire(&ctx, h, h.hooks.turn_end.clone(), id.to_string().into())?;
                return start_next(&ctx, h);
            }
            Ok(())
        }
    );
    reg!(
        engine,
        "act_now",
        &["t: Table", "id: String", "()"],
        "A participant who has not acted this round acts now (takes a held turn, interrupts): it becomes their turn (calls turn_start); the interrupted turn goes on when theirs ends.",
        |ctx: NativeCallContext, h: &mut Handle, id: &str| -> Fallible<()> {
            h.with(|tx| tx.act_now(id))?;
            fire(&ctx, h, h.hooks.turn_start.clone(), id.to_string().into())
        }
    );
}
