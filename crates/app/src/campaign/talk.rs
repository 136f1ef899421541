//! Writing posts into a campaign's log ([`houserule_core::talk`]): a post on its own, an edit
//! of one by its author while the table has not moved on, and a post that carries an action
//! (its item is added to the action's event, after what the rules did, so it is committed with
//! the action or not at all).

use super::*;
use crate::chat::Bridged;
use crate::request::PostRequest;
use houserule_core::event::Body;
use houserule_core::talk::{Post, TalkError};

fn talk_error(e: TalkError) -> CampaignError {
    let param = match &e {
        TalkError::Text(_) => "text",
        TalkError::Audience(_) => "to",
        TalkError::Character(_) => "character",
        TalkError::Edit(_) => "post",
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
    pub fn post(&mut self, author: &Role, request: &PostRequest) -> Result<(LogEntry, Option<Role>), CampaignError> {
        self.catch_up()?;
        let (post, visibility, owner) = request.draft.post(author, &self.table).map_err(talk_error)?;
        self.commit_post(author, (post, visibility, owner), request.bridged.as_ref())
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
        let post = Post { text, edits: Some(seq), ..old };
        self.commit_post(author, (post, visibility, owner), None)
    }

    fn commit_post(
        &mut self,
        author: &Role,
        (post, visibility, owner): (Post, Visibility, Option<String>),
        bridged: Option<&Bridged>,
    ) -> Result<(LogEntry, Option<Role>), CampaignError> {
        let readers = readers(visibility, owner.as_deref());
        let mut tx = Tx::new(
            Table::clone(&self.table),
            self.rules.manifest.clone(),
            author.clone(),
            None,
            DiceSupply::Forced(Forced::new([])),
        )
        .with_caps(self.rules.limits.caps.clone());
        tx.post(post, visibility, owner)
            .map_err(|e| CampaignError::BadParam { param: "text".into(), message: e.to_string() })?;
        let staged = Staged { tx, result: Value::Null, log: vec![] };
        let (header, items) =
            self.commit(Append::new(EventKind::Post, Some(author.clone()), staged).bridged(bridged))?;
        Ok((view::log_entry(&header, &items, &hex::encode(self.head.1), author), readers))
    }
}
