//! Join links: how a player proves over the network which player they are.
//!
//! The GM makes one link per player. Its token is 160 random bits from the operating system,
//! shown once and never stored: the campaign file keeps only its SHA-256 (in the `secrets`
//! table, which no shared copy carries), so neither the file nor a backup of it lets anyone
//! join. A new link for a player replaces the old one; revoking one ends it. Redeeming a token
//! compares digests in constant time and names the player it was made for — nothing a client
//! says about itself is believed.
//!
//! A link row carries a MAC with this machine's key ([`crate::checked::machine_key`]) over the
//! campaign, the player, the digest and when it was made: a row this machine did not write —
//! planted in the file by whoever had it, or copied from another player's link — seats nobody.
//! The GM still sees such a row, marked as not made here, to revoke it or make a new link.

use crate::store::{Store, StoreError};
use hmac::{Hmac, Mac};
use houserule_core::Role;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

/// Random bytes in a token (160 bits).
const TOKEN_BYTES: usize = 20;
/// Where invites live in the `secrets` table.
const PREFIX: &str = "invite:";

/// A link just made: the only time its token is seen.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct NewInvite {
    pub player: String,
    /// Goes after `#join=` in the table's address.
    pub token: String,
}

/// A link as the GM sees it later: who it is for, and when it was made and last used.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Invite {
    pub player: String,
    pub created: String,
    #[serde(default)]
    pub last_used: Option<String>,
    /// Whether this machine made the link. A link it did not make (planted in the file, or
    /// made elsewhere) lets nobody in: the GM makes a new one.
    pub made_here: bool,
}

/// What the file keeps of a link.
#[derive(Debug, Serialize, Deserialize)]
struct Stored {
    digest: String,
    created: String,
    #[serde(default)]
    last_used: Option<String>,
    /// This machine's MAC over the campaign, the player, the digest and `created`.
    #[serde(default)]
    mac: Option<String>,
}

impl Stored {
    /// Whether this machine wrote the row for `player` of `campaign`.
    fn made_here(&self, campaign: &str, player: &str) -> bool {
        let (Some(key), Some(given)) = (crate::checked::machine_key(), self.mac.as_deref()) else { return false };
        let given = hex::decode(given).unwrap_or_default();
        mac(key, campaign, player, &self.digest, &self.created).verify_slice(&given).is_ok()
    }
}

/// The MAC of a link row, each part length-prefixed so no two rows run together.
fn mac(key: &[u8; 32], campaign: &str, player: &str, digest: &str, created: &str) -> Hmac<Sha256> {
    let mut m = <Hmac<Sha256> as Mac>::new_from_slice(key).expect("HMAC takes any key length");
    m.update(b"houserule invite v1\0");
    for part in [campaign, player, digest, created] {
        m.update(&(part.len() as u64).to_be_bytes());
        m.update(part.as_bytes());
    }
    m
}

fn campaign_id(store: &Store) -> Result<String, StoreError> {
    Ok(store.meta("campaign_id")?.unwrap_or_default())
}

/// Why a link could not be made or used.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum InviteError {
    #[error("{0}")]
    Name(String),
    #[error("{0}")]
    Store(#[from] StoreError),
}

fn digest(token: &str) -> String {
    hex::encode(Sha256::digest(format!("houserule-invite-v1\0{}", token.trim()).as_bytes()))
}

/// Equal in time that does not depend on where two digests differ.
fn same(a: &str, b: &str) -> bool {
    a.len() == b.len() && a.bytes().zip(b.bytes()).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

/// A player name fit for a link (not empty, not a role such as `gm`).
pub fn player_name(name: &str) -> Result<String, InviteError> {
    match Role::parse(&format!("player:{}", name.trim())) {
        Ok(Role::Player(p)) => Ok(p),
        Ok(_) => Err(InviteError::Name(format!("'{name}' is not a player name"))),
        Err(e) => Err(InviteError::Name(e.to_string())),
    }
}

/// Makes a link for `player`, replacing any older one.
pub fn create(store: &Store, player: &str, now: &str) -> Result<NewInvite, InviteError> {
    let player = player_name(player)?;
    let mut bytes = [0u8; TOKEN_BYTES];
    getrandom::getrandom(&mut bytes).expect("the operating system's random source");
    let token = hex::encode(bytes);
    let key = crate::checked::machine_key().ok_or_else(|| StoreError::Open {
        path: crate::checked::config_dir().map(|d| d.display().to_string()).unwrap_or_default(),
        message: "there is no configuration folder to keep this machine's key in, so no join link can be made here"
            .into(),
    })?;
    let (campaign, digest, created) = (campaign_id(store)?, digest(&token), now.to_string());
    let mac = hex::encode(mac(key, &campaign, &player, &digest, &created).finalize().into_bytes());
    let stored = Stored { digest, created, last_used: None, mac: Some(mac) };
    store.set_secret(&format!("{PREFIX}{player}"), &serde_json::to_string(&stored).expect("invites serialise"))?;
    Ok(NewInvite { player, token })
}

/// Every player with a link, by name, each marked whether this machine made it.
pub fn list(store: &Store) -> Result<Vec<Invite>, InviteError> {
    let campaign = campaign_id(store)?;
    Ok(stored(store)?
        .into_iter()
        .map(|(player, s)| {
            let made_here = s.made_here(&campaign, &player);
            Invite { player, created: s.created, last_used: s.last_used, made_here }
        })
        .collect())
}

fn stored(store: &Store) -> Result<Vec<(String, Stored)>, StoreError> {
    let mut out = vec![];
    for (key, value) in store.secrets_with_prefix(PREFIX)? {
        let player = key[PREFIX.len()..].to_string();
        let s: Stored = serde_json::from_str(&value)
            .map_err(|e| StoreError::Corrupt(format!("the join link for {player} is damaged: {e}")))?;
        out.push((player, s));
    }
    Ok(out)
}

/// Ends `player`'s link; whether there was one.
pub fn revoke(store: &Store, player: &str) -> Result<bool, InviteError> {
    let player = player_name(player)?;
    Ok(store.remove_secret(&format!("{PREFIX}{player}"))?)
}

/// The player a token was made for, if it is a live link (and notes its use).
pub fn redeem(store: &Store, token: &str, now: &str) -> Result<Option<String>, InviteError> {
    let wanted = digest(token);
    let campaign = campaign_id(store)?;
    let mut found = None;
    // Every link made here is compared, so the time taken does not say which one matched.
    for (player, s) in stored(store)?.into_iter().filter(|(p, s)| s.made_here(&campaign, p)) {
        if same(&s.digest, &wanted) {
            found = Some((player, s));
        }
    }
    let Some((player, mut s)) = found else { return Ok(None) };
    s.last_used = Some(now.to_string());
    store.set_secret(&format!("{PREFIX}{player}"), &serde_json::to_string(&s).expect("invites serialise"))?;
    Ok(Some(player))
}

/// Removes every link from a copy of the file (a copy is not the GM's table to join).
pub fn forget_all(store: &Store) -> Result<(), StoreError> {
    for (key, _) in store.secrets_with_prefix(PREFIX)? {
        store.remove_secret(&key)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_link_names_its_player_until_it_is_replaced_or_revoked() {
        let store = Store::in_memory().unwrap();
        let ann = create(&store, "ann", "t1").unwrap();
        assert_eq!(ann.token.len(), TOKEN_BYTES * 2, "160 bits, as hex");
        let bo = create(&store, "bo", "t1").unwrap();
        assert_eq!(redeem(&store, &ann.token, "t2").unwrap().as_deref(), Some("ann"));
        assert_eq!(redeem(&store, &bo.token, "t2").unwrap().as_deref(), Some("bo"));
        assert_eq!(redeem(&store, "0000", "t2").unwrap(), None);
        let mut wrong = ann.token.clone();
        wrong.replace_range(0..1, if wrong.starts_with('0') { "1" } else { "0" });
        assert_eq!(redeem(&store, &wrong, "t2").unwrap(), None, "one digit off is no link");
        let again = create(&store, "ann", "t3").unwrap();
        assert_eq!(redeem(&store, &ann.token, "t4").unwrap(), None, "a new link replaces the old one");
        assert_eq!(redeem(&store, &again.token, "t4").unwrap().as_deref(), Some("ann"));
        assert!(revoke(&store, "ann").unwrap());
        assert_eq!(redeem(&store, &again.token, "t5").unwrap(), None, "a revoked link lets nobody in");
        let listed = list(&store).unwrap();
        assert_eq!(
            listed,
            vec![Invite { player: "bo".into(), created: "t1".into(), last_used: Some("t2".into()), made_here: true }]
        );
    }

    #[test]
    fn the_file_keeps_no_token() {
        let store = Store::in_memory().unwrap();
        let ann = create(&store, "ann", "t1").unwrap();
        let all: Vec<String> =
            store.secrets_with_prefix("").unwrap().into_iter().map(|(k, v)| format!("{k}{v}")).collect();
        assert!(!all.concat().contains(&ann.token), "only a digest is stored");
    }

    #[test]
    fn a_row_this_machine_did_not_write_seats_nobody() {
        let store = Store::in_memory().unwrap();
        let ann = create(&store, "ann", "t1").unwrap();
        let row = store.secret("invite:ann").unwrap().unwrap();
        for (player, value) in
            [("eve", row.clone()), ("mal", row.replace("\"mac\"", "\"was\"")), ("ann", row.replace("t1", "t0"))]
        {
            store.set_secret(&format!("invite:{player}"), &value).unwrap();
            let seated = redeem(&store, &ann.token, "t2").unwrap();
            match player {
                "ann" => assert_eq!(seated, None, "ann's row, changed, seats nobody"),
                _ => assert_ne!(seated.as_deref(), Some(player), "{player}: {value}"),
            }
            let listed = list(&store).unwrap();
            assert!(!listed.iter().find(|i| i.player == player).unwrap().made_here, "{player}");
            store.set_secret("invite:ann", &row).unwrap();
            if player != "ann" {
                store.remove_secret(&format!("invite:{player}")).unwrap();
            }
        }
    }

    #[test]
    fn roles_are_not_players() {
        let store = Store::in_memory().unwrap();
        for name in ["gm", "GM", "public", "", "  "] {
            assert!(create(&store, name, "t").is_err(), "no link for '{name}'");
        }
    }
}
