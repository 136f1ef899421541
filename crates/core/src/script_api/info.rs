//! Who is acting, settings, rounds, narration and refusals.

use super::{reg, to_dynamic, visibility, Fallible, Handle};
use crate::visibility::{Role, Visibility};
use rhai::{Array, Dynamic, Engine, Map, NativeCallContext, INT};

pub(super) fn register(engine: &mut Engine) {
    reg!(engine, "actor", &["t: Table", "String"], "Who is acting: \"gm\" or \"player:NAME\".", |h: &mut Handle| h
        .read(|tx| tx.role.to_string()));
    reg!(engine, "is_gm", &["t: Table", "bool"], "Whether the GM is acting.", |h: &mut Handle| h
        .read(|tx| tx.role.is_gm()));
    reg!(
        engine,
        "player",
        &["t: Table", "String"],
        "The acting player's name, or \"\" for the GM.",
        |h: &mut Handle| { h.read(|tx| tx.role.player().unwrap_or("").to_string()) }
    );
    reg!(
        engine,
        "action",
        &["t: Table", "String"],
        "The name of the action being taken (\"\" in setup).",
        |h: &mut Handle| { h.read(|tx| tx.action.clone().unwrap_or_default()) }
    );
    reg!(
        engine,
        "setting",
        &["t: Table", "key: String", "?"],
        "The value of a ruleset setting; unknown keys are an error.",
        |h: &mut Handle, key: &str| -> Fallible<Dynamic> { h.with(|tx| tx.setting(key)).map(|v| to_dynamic(&v)) }
    );
    reg!(
        engine,
        "nearest",
        &["t: Table", "name: String", "names: Array", "Array"],
        "The names among `names` nearest a name typed by hand, nearest first, for \"did you mean …?\" \
         (at most 3; empty when none is near or the name is one of them, ignoring case).",
        |_h: &mut Handle, name: &str, names: Array| -> Array {
            let names: Vec<String> = names.iter().map(|n| n.to_string()).collect();
            let near = crate::names::nearest(name, names.iter().map(String::as_str));
            near.into_iter().map(|n| Dynamic::from(n.to_string())).collect()
        }
    );
    reg!(engine, "settings", &["t: Table", "Map"], "All settings in force.", |h: &mut Handle| -> Map {
        h.read(|tx| tx.table.settings.iter().map(|(k, v)| (k.as_str().into(), to_dynamic(v))).collect())
    });
    reg!(engine, "round", &["t: Table", "int"], "Rounds ended so far.", |h: &mut Handle| h
        .read(|tx| tx.table.round as INT));
    reg!(
        engine,
        "end_round",
        &["t: Table", "int"],
        "Ends the round: advances the round counter and calls the round_end hook. Returns the new round.",
        |ctx: NativeCallContext, h: &mut Handle| -> Fallible<INT> {
            let round = h.with(|tx| tx.end_round())? as INT;
            if let Some(f) = h.hooks.round_end.clone() {
                let _: Dynamic = ctx.call_fn(&f, (h.clone(), round))?;
            }
            Ok(round)
        },
    );
    reg!(
        engine,
        "say",
        &["t: Table", "text: String"],
        "Adds a line of narration everyone sees.",
        |h: &mut Handle, text: &str| -> Fallible<()> { h.with(|tx| tx.say(text, Visibility::Public, None)) }
    );
    reg!(
        engine,
        "say",
        &["t: Table", "text: String", "visibility: String"],
        "Adds a line of narration with a visibility: \"public\" or \"gm\".",
        |h: &mut Handle, text: &str, vis: &str| -> Fallible<()> {
            let v = visibility(vis)?;
            if v == Visibility::Owner {
                return Err("narration for one player uses t.tell(player_or_entity, text)".into());
            }
            h.with(|tx| tx.say(text, v, None))
        },
    );
    reg!(
        engine,
        "tell",
        &["t: Table", "who: String", "text: String"],
        "Narration only the GM and one player see. `who` is a player name or an entity whose owner is told.",
        |h: &mut Handle, who: &str, text: &str| -> Fallible<()> {
            let player = h.read(|tx| {
                tx.table.entities.get(who).map(|e| e.owner.clone()).unwrap_or_else(|| Some(who.to_string()))
            });
            let Some(player) = player else {
                return Err(format!("'{who}' has no owner to tell").into());
            };
            Role::parse(&format!("player:{player}"))
                .map_err(|e| -> Box<rhai::EvalAltResult> { e.to_string().into() })?;
            h.with(|tx| tx.say(text, Visibility::Owner, Some(player)))
        },
    );
    reg!(
        engine,
        "refuse",
        &["t: Table", "message: String"],
        "Refuses the action with a message that names the rule; nothing the action did is kept.",
        |_h: &mut Handle, message: &str| -> Fallible<()> { Err(message.to_string().into()) },
    );
}
