//! What a front end asks the campaign to write: an action ([`ActRequest`]) or a post
//! ([`PostRequest`]), each built once where the request arrives — the desktop window, a browser's
//! WebSocket, a Matrix message, the command line — and passed by reference down to the commit.
//!
//! Guarantees: a request read from the wire can never carry a bridge's message or marks (those
//! fields are not read from JSON: only a bridge in this process sets them, with
//! [`ActRequest::bridged`]); dice typed by hand are read in one place ([`Dice::faces`]), so every
//! front end refuses the same typing with the same column.

use crate::chat::Bridged;
use houserule_core::dice::{DiceError, Entropy, Forced};
use houserule_core::talk::PostDraft;
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Map, Value};

/// Dice rolled by hand: a list of faces, or the faces as typed ("4, 6, +, -").
#[derive(Debug, Clone, PartialEq, Deserialize, JsonSchema)]
#[serde(untagged)]
pub enum Dice {
    Faces(Vec<i64>),
    Typed(String),
}

impl Dice {
    /// The faces, in order; none when nothing was typed.
    pub fn faces(&self) -> Result<Option<Vec<i64>>, DiceError> {
        match self {
            Dice::Faces(f) => Ok(Some(f.clone())),
            Dice::Typed(t) if t.trim().is_empty() => Ok(None),
            Dice::Typed(t) => Forced::parse_list(t).map(Some),
        }
    }
}

/// An action: its parameters as the user typed them (text, or JSON for lists and records),
/// dice rolled by hand, the acting side's entropy, and a post that carries it.
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
pub struct ActRequest {
    /// Whose action (the GM may act as a player: `player:NAME`); none: the caller's own.
    #[serde(default, rename = "as")]
    pub role: Option<String>,
    pub action: String,
    #[serde(default)]
    pub params: Map<String, Value>,
    #[serde(default)]
    pub dice: Option<Dice>,
    /// 32 fresh random bytes from the acting side's own device, mixed into every roll of the
    /// action, so the holder of the seed cannot foresee it (players' browsers must send it).
    #[serde(default)]
    pub entropy: Option<Entropy>,
    /// A post that carries the action (its text, speaker and audience), logged with it.
    #[serde(default)]
    pub post: Option<PostDraft>,
    /// The chat message a bridge took the action from, and the bridge's marks (never read
    /// from JSON).
    #[serde(skip)]
    #[schemars(skip)]
    pub bridged: Option<Bridged>,
}

impl ActRequest {
    /// An action with these parameters, nothing else (the table's own dice, no entropy).
    pub fn new(action: &str, params: &Map<String, Value>) -> ActRequest {
        ActRequest { action: action.to_string(), params: params.clone(), ..ActRequest::default() }
    }

    /// With dice given in advance (typed in by hand, or a test's); none: the table rolls.
    pub fn with_dice(mut self, faces: Option<Vec<i64>>) -> ActRequest {
        self.dice = faces.map(Dice::Faces);
        self
    }

    /// With the acting side's fresh bytes mixed into the rolls.
    pub fn with_entropy(mut self, entropy: Option<Entropy>) -> ActRequest {
        self.entropy = entropy;
        self
    }

    /// With a post that carries the action.
    pub fn with_post(mut self, post: PostDraft) -> ActRequest {
        self.post = Some(post);
        self
    }

    /// As taken by a bridge from a chat message, with the bridge's marks.
    pub fn bridged(mut self, bridged: Bridged) -> ActRequest {
        self.bridged = Some(bridged);
        self
    }

    /// The entropy the rolls mix in: the acting side's, else the chat message's.
    pub fn entropy(&self) -> Option<Entropy> {
        self.entropy.or_else(|| self.bridged.as_ref().map(|b| b.message.entropy()))
    }
}

/// A post to write, as the caller (the GM may write as `as`, a player).
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
pub struct PostRequest {
    #[serde(default, rename = "as")]
    pub role: Option<String>,
    #[serde(flatten)]
    pub draft: PostDraft,
    /// Fresh random bytes from the writer's device, mixed into the dice the post rolls as it is
    /// written (`[[2d6]]`, `/r 1d20`), as an action's are.
    #[serde(default)]
    pub entropy: Option<Entropy>,
    /// The chat message a bridge took the post from, and its marks (never read from JSON).
    #[serde(skip)]
    #[schemars(skip)]
    pub bridged: Option<Bridged>,
}

impl PostRequest {
    /// A post of this draft, as the caller.
    pub fn new(draft: PostDraft) -> PostRequest {
        PostRequest { draft, ..PostRequest::default() }
    }

    /// The entropy the post's rolls mix in: the writer's, else the chat message's.
    pub fn entropy(&self) -> Option<Entropy> {
        self.entropy.or_else(|| self.bridged.as_ref().map(|b| b.message.entropy()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_request_from_the_wire_never_carries_a_bridges_message() {
        let wire = json!({
            "action": "roll",
            "bridged": {"message": {"via": "matrix", "room": "!r", "event": "$e"}, "marks": [["bridge.x", "1"]]},
        });
        let req: ActRequest = serde_json::from_value(wire).unwrap();
        assert!(req.bridged.is_none(), "a browser cannot say which chat message its action answers");
        let post: PostRequest =
            serde_json::from_value(json!({"text": "hi", "bridged": {"marks": []}})).unwrap_or_default();
        assert!(post.bridged.is_none());
    }

    #[test]
    fn typed_dice_read_as_faces_and_an_empty_typing_as_none() {
        assert_eq!(Dice::Typed("4, 6, +".into()).faces().unwrap(), Some(vec![4, 6, 1]));
        assert_eq!(Dice::Typed("  ".into()).faces().unwrap(), None);
        assert_eq!(Dice::Typed("4, x".into()).faces().unwrap_err().column, 4);
    }
}
