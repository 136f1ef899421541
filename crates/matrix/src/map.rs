//! The map in the room: `!hr map` sends the shown scene as a picture, `!hr move TOKEN CELL …`
//! moves a token.
//!
//! Guarantees:
//! - *Who sees what*: the room is sent the scene drawn as the public sees it (the engine's
//!   `scene_picture`: every fogged area black, no token a player may not see, the legend naming
//!   only what is drawn); a seated player whose own drawing shows more (a token of theirs the
//!   others do not see) gets theirs in their direct room only. The GM's own view goes nowhere.
//! - *Moves are the table's*: a move is the same `move` call the screen makes — who may move
//!   what, the path's limits and the ruleset's `move` hook decide, and a refusal is the rule's
//!   reason. It is committed with its message's id and the `answered` mark in one transaction,
//!   so after a crash it is neither lost nor taken twice, and its post is the answer.
//! - *Names as the sender sees them*: TOKEN is a token's id or the name the sender's view gives
//!   it, looked up only among the tokens the sender may see, so a hidden token is, to a player,
//!   no token at all (the same refusal as a name nobody has). Cells are counted from 1, as the
//!   picture's legend counts them.

use crate::messages::{Answer, Notice, Picture};
use crate::referee::Referee;
use crate::MatrixError;
use base64::Engine;
use houserule_app::calls::{As, Call, Caller, MoveToken, SceneDrawing};
use houserule_core::scene::grid::Cell;
use houserule_core::view::View;
use houserule_core::Role;

/// What a map's caption says after its legend.
const HOW_TO_MOVE: &str = "Move a token: !hr move NAME COLUMN,ROW (cells counted from 1, as above).";

impl Referee {
    /// The shown scene drawn for the room, and for the sender privately when theirs differs.
    pub(crate) fn map(&self, caller: &Caller, id: &str, direct: Option<&str>) -> Result<Answer, MatrixError> {
        let public_role = As { role: Some("public".into()) };
        let public: Option<SceneDrawing> = self.app.ask(&self.public(), Call::ScenePicture(public_role))?;
        let Some(public) = public else {
            let text = "No map is shown to the players yet: the GM shows a scene first.".to_string();
            return Ok(Answer::Room(Notice::text(text, Some(id))));
        };
        let own: Option<SceneDrawing> = match (&caller.role, direct) {
            (Role::Player(_), Some(_)) => self.app.ask(caller, Call::ScenePicture(As::default()))?,
            _ => None,
        };
        let private = own.filter(|o| o.data != public.data || o.legend != public.legend);
        let note = if private.is_some() { "\n(What only you may see is in your direct room with me.)" } else { "" };
        let room = picture(&public, &format!("Map: {}, as the table sees it", public.scene), note, Some(id))?;
        let private = match (private, direct) {
            (Some(own), Some(direct)) => {
                let mine = picture(&own, &format!("Map: {}, as you may see it", own.scene), "", None)?;
                Some((direct.to_string(), Picture { caption: mine.caption.private(), ..mine }))
            }
            _ => None,
        };
        Ok(Answer::Pictures(room, private))
    }

    /// Moves a token as the sender: none when the move is committed (its post, sent later, is
    /// the answer); else the refusal.
    pub(crate) fn move_token(
        &self,
        caller: &Caller,
        token: &str,
        cells: &[(i32, i32)],
        id: &str,
    ) -> Result<Option<Answer>, MatrixError> {
        let refused = |why: &str| Ok(Some(Answer::Room(Notice::refusal(why, id))));
        let view: View = match self.app.ask(caller, Call::View(As::default())) {
            Ok(v) => v,
            Err(e) => return refused(&e.message),
        };
        let found = match find_token(&view, token) {
            Ok(found) => found,
            Err(why) => return refused(&why),
        };
        let (token_id, at) = found;
        // The path starts where the token stands (said again or not), each cell once in a row.
        let mut path = vec![at];
        path.extend(cells.iter().map(|&(column, row)| Cell(column - 1, row - 1)));
        path.dedup();
        if path.len() < 2 {
            return refused(&format!("{token} stands at column {}, row {} already", at.0 + 1, at.1 + 1));
        }
        let request = MoveToken { token: token_id, path, entropy: None, bridged: Some(self.bridged(id)) };
        match self.app.call(caller, Call::Move(request)) {
            Ok(_) => Ok(None),
            Err(e) => refused(&e.message),
        }
    }
}

/// A drawing as a picture for the room: its caption the title, the legend and how to move.
fn picture(d: &SceneDrawing, title: &str, note: &str, reply_to: Option<&str>) -> Result<Picture, MatrixError> {
    let png = base64::engine::general_purpose::STANDARD
        .decode(&d.data)
        .map_err(|e| MatrixError::Internal(format!("the scene's drawing is not base64: {e}")))?;
    let legend = if d.legend.is_empty() { "No token you may see.".to_string() } else { d.legend.join("\n") };
    let caption = format!("{title}{note}\n{legend}\n{HOW_TO_MOVE}");
    let mut caption = Notice::text(caption, reply_to);
    caption.houserule = serde_json::json!({ "map": d.scene, "legend": d.legend });
    Ok(Picture { png, file_name: file_name(&d.scene), width: d.width, height: d.height, caption })
}

/// A file name for a scene's picture: its name in lower-case letters, digits and dashes.
fn file_name(scene: &str) -> String {
    let mut name = String::new();
    for c in scene.chars().flat_map(char::to_lowercase) {
        if c.is_alphanumeric() {
            name.push(c);
        } else if !name.is_empty() && !name.ends_with('-') {
            name.push('-');
        }
    }
    let name = name.trim_end_matches('-');
    format!("{}.png", if name.is_empty() { "map" } else { name })
}

/// The token `wanted` names among those the viewer sees (the shown scene's first): by its id,
/// else by its name (any case); answers its id and cell, or why none (or several) match.
fn find_token(view: &View, wanted: &str) -> Result<(String, Cell), String> {
    let mut scenes: Vec<_> = view.scenes.iter().collect();
    scenes.sort_by_key(|s| !s.shown);
    let tokens: Vec<_> = scenes.iter().flat_map(|s| s.tokens.iter()).collect();
    if let Some(t) = tokens.iter().find(|t| t.id == wanted) {
        return Ok((t.id.clone(), t.cell));
    }
    let named: Vec<_> = tokens.iter().filter(|t| t.name.trim().eq_ignore_ascii_case(wanted.trim())).collect();
    match named.as_slice() {
        [one] => Ok((one.id.clone(), one.cell)),
        [] => Err(format!("there is no token '{wanted}' on a map you see ('!hr map' shows them)")),
        several => {
            let ids: Vec<&str> = several.iter().map(|t| t.id.as_str()).collect();
            Err(format!("several tokens are called '{wanted}': name one by its id ({})", ids.join(", ")))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn file_names_are_plain() {
        assert_eq!(file_name("The Yard"), "the-yard.png");
        assert_eq!(file_name("  Crypt #2 (lower) "), "crypt-2-lower.png");
        assert_eq!(file_name("<>"), "map.png");
    }
}
