//! Where each person last read the log up to, so a long play-by-post game can show what is new
//! since they last looked. Kept in the campaign file's `secrets` table (no shared copy carries
//! it: it is the GM's file's own bookkeeping, not part of the game), one mark per viewer, and a
//! mark only ever moves forward.

use crate::store::{Store, StoreError};
use houserule_core::Role;

const PREFIX: &str = "read:";

fn key(role: &Role) -> String {
    format!("{PREFIX}{role}")
}

/// The last event `role` has read up to, if they have looked at all.
pub fn last_read(store: &Store, role: &Role) -> Result<Option<u64>, StoreError> {
    Ok(store.secret(&key(role))?.and_then(|v| v.parse().ok()))
}

/// Notes that `role` has read up to event `seq` (at most `head`); returns the mark now kept.
pub fn mark(store: &Store, role: &Role, seq: u64, head: u64) -> Result<u64, StoreError> {
    let seq = seq.min(head);
    let kept = last_read(store, role)?.unwrap_or(0);
    if seq > kept {
        store.set_secret(&key(role), &seq.to_string())?;
        return Ok(seq);
    }
    Ok(kept)
}

/// Removes every mark from a copy of the file.
pub fn forget_all(store: &Store) -> Result<(), StoreError> {
    for (k, _) in store.secrets_with_prefix(PREFIX)? {
        store.remove_secret(&k)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_mark_moves_forward_only_and_never_past_the_head() {
        let store = Store::in_memory().unwrap();
        let ann = Role::Player("ann".into());
        assert_eq!(last_read(&store, &ann).unwrap(), None);
        assert_eq!(mark(&store, &ann, 7, 10).unwrap(), 7);
        assert_eq!(mark(&store, &ann, 3, 10).unwrap(), 7, "reading an old page does not move it back");
        assert_eq!(mark(&store, &ann, 99, 10).unwrap(), 10, "not past the last event");
        assert_eq!(last_read(&store, &Role::Gm).unwrap(), None, "each viewer has their own");
        forget_all(&store).unwrap();
        assert_eq!(last_read(&store, &ann).unwrap(), None);
    }
}
