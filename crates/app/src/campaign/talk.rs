//! Writing posts into a campaign's log ([`houserule_core::talk`]): a post on its own, an edit
//! of one by its author while the table has not moved on, and a post that carries an action
//! (its item is added to the action's event, after what the rules did, so it is committed with
//! the action or not at all).

use super::*;
use crate::chat::Bridged;
use crate::request::PostRequest;
use houserule_core::event::Body;
use houserule_core::talk::{Post, TalkError};
use houserule_core::tx::{RollOptions, TxError};

fn talk_error(e: TalkError) -> CampaignError {
    let param = match &e {
        TalkError::Text(_) => "text",
        TalkError::Audience(_) => "to",
        TalkError::Character(_) => "character",
        TalkError::Edit(_) => "post",
        TalkError::Roll(_) => "text",
    };
    CampaignError::BadParam { param: param.into(), message: e.to_string() }
}

/// Who may read a post, as a role to tell (none: everyone).
fn readers(visibility: Visibility, owner: Option<&str>) -> Option<Role> {
    match (visibility, owner) {
        (Visibility::Public, _) => None,
        (Visibility::Owner, Some(p)) => Some(Role::Player(p.to_string())),
        _ => Some(Role::Gm),
    }
}

impl Campaign {
    /// Writes the post `request` asks for as `author` (a bridge's message and marks are written
    /// with it). Returns its log entry as the author sees it, and who may read it besides the
    /// GM (none: everyone).
    /// A post that rolls as it is written (`[[2d6+1]]`, `/r 1d20`) rolls from the campaign's
    /// seed mixed with the request's entropy, each roll read by the people who read the post
    /// and logged with it, so `verify` recomputes it like an action's.
    pub fn post(&mut self, author: &Role, request: &PostRequest) -> Result<(LogEntry, Option<Role>), CampaignError> {
        self.catch_up()?;
        let drafted = request.draft.post(author, &self.table).map_err(talk_error)?;
        let rolls = houserule_core::talk::inline_rolls(&drafted.0.text).map_err(talk_error)?;
        let dice = match rolls.is_empty() {
            true => DiceSupply::Forced(Forced::new([])),
            false => self.dice(None, request.entropy()).map_err(|e| CampaignError::Refused(e.to_string()))?,
        };
        self.commit_post(author, drafted, (&rolls, dice), request.bridged.as_ref())
    }

    /// Replaces the text of post `seq` by its author, while no action was taken since: a new
    /// post that says it edits `seq`, read by the same people; the original stays in the log.
    pub fn edit_post(
        &mut self,
        author: &Role,
        seq: u64,
        text: &str,
    ) -> Result<(LogEntry, Option<Role>), CampaignError> {
        self.catch_up()?;
        let refuse = |m: String| talk_error(TalkError::Edit(m));
        let row = self.store.event(seq)?.ok_or_else(|| refuse(format!("there is no event #{seq}")))?;
        let header = row.parse_header()?;
        if header.kind != EventKind::Post {
            // A post that carried an action narrated the roll it made: rewording it after the
            // dice fell would rewrite what was rolled for.
            return Err(refuse(format!(
                "event #{seq} is not a post on its own: a post that carried an action stays as it was rolled"
            )));
        }
        let items = row.parse_items()?;
        let found = items.iter().find_map(|i| match &i.body {
            Some(Body::Post { post }) => Some((post.clone(), i.visibility, i.owner.clone())),
            _ => None,
        });
        let Some((old, visibility, owner)) = found else { return Err(refuse(format!("event #{seq} is not a post"))) };
        if header.actor.as_ref() != Some(author) {
            return Err(refuse(format!("only its author may edit post #{seq}")));
        }
        let mut moved_on = None;
        self.store.each_header_from(seq + 1, |n, _, h, _| {
            if moved_on.is_none() && serde_json::from_str::<Header>(&h).is_ok_and(|h| h.kind == EventKind::Action) {
                moved_on = Some(n);
            }
            Ok(())
        })?;
        if let Some(n) = moved_on {
            return Err(refuse(format!("post #{seq} can no longer be edited: the table has moved on (action #{n})")));
        }
        let text = houserule_core::talk::checked_text(text).map_err(talk_error)?;
        let rolled = |t: &str| houserule_core::talk::inline_rolls(t).map(|r| !r.is_empty()).unwrap_or(true);
        if rolled(&old.text) || rolled(&text) {
            return Err(refuse(format!(
                "post #{seq} rolls dice as it is written, or its new wording would: a roll stays as it was rolled"
            )));
        }
        let post = Post { text, edits: Some(seq), ..old };
        self.commit_post(author, (post, visibility, owner), (&[], DiceSupply::Forced(Forced::new([]))), None)
    }

    fn commit_post(
        &mut self,
        author: &Role,
        (post, visibility, owner): (Post, Visibility, Option<String>),
        (rolls, dice): (&[(usize, String)], DiceSupply),
        bridged: Option<&Bridged>,
    ) -> Result<(LogEntry, Option<Role>), CampaignError> {
        let readers = readers(visibility, owner.as_deref());
        let mut tx = Tx::new(Table::clone(&self.table), self.rules.manifest.clone(), author.clone(), None, dice)
            .with_caps(self.rules.limits.caps.clone());
        let bad_text = |message: String| CampaignError::BadParam { param: "text".into(), message };
        tx.post(post, visibility, owner.clone()).map_err(|e| bad_text(e.to_string()))?;
        for (column, expr) in rolls {
            let options =
                RollOptions { label: Some(expr.clone()), visibility, owner: owner.clone(), marks: vec![], typed: true };
            tx.roll(expr, options).map_err(|e| match e {
                TxError::Dice(d) => bad_text(format!("the dice at column {}: {}", column + d.column - 1, d.message)),
                other => bad_text(format!("the dice at column {column}: {other}")),
            })?;
        }
        let staged = Staged { tx, result: Value::Null, log: vec![] };
        let (header, items) =
            self.commit(Append::new(EventKind::Post, Some(author.clone()), staged).bridged(bridged))?;
        Ok((view::log_entry(&header, &items, &hex::encode(self.head.1), author), readers))
    }
}
