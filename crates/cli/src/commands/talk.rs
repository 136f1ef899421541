//! `say`: a post into a campaign's log from the command line — in or out of character, to
//! everyone, to the GM, or a whisper between the GM and one player.

use super::campaign::open;
use super::{role, Outcome};
use crate::output;
use houserule_app::request::PostRequest;
use houserule_core::talk::PostDraft;
use std::path::Path;

pub fn say(json: bool, file: &Path, who: &str, character: Option<&str>, to: Option<&str>, text: &str) -> Outcome {
    let mut c = open(file)?;
    let draft =
        PostDraft { text: text.to_string(), character: character.map(str::to_string), to: to.map(str::to_string) };
    let (entry, _) = c.post(&role(who)?, &PostRequest::new(draft))?;
    if json {
        output::json(&entry);
    } else {
        crate::output::entry(&entry);
    }
    Ok(true)
}
