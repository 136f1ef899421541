//! Who may see a value, and who is looking.
//!
//! Every value on the table carries a [`Visibility`]. A [`Role`] is the person asking — the GM
//! or a named player. [`Role::sees`] is the single rule the view, the log and every export use,
//! so no path can show a player something the rule would hide.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use std::fmt;

/// Who may see a value. Ordered from most to least open: combining two visibilities (an
/// owner-only field on a GM-only entity) takes the stricter one.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Visibility {
    /// Everyone at the table.
    #[default]
    Public,
    /// The GM and the player who owns the entity.
    Owner,
    /// The GM only.
    Gm,
    /// Nobody: a hidden pool answers only whether it is empty.
    Hidden,
}

impl Visibility {
    pub fn stricter(self, other: Visibility) -> Visibility {
        self.max(other)
    }

    pub fn parse(text: &str) -> Option<Visibility> {
        match text.trim().to_ascii_lowercase().as_str() {
            "public" => Some(Visibility::Public),
            "owner" => Some(Visibility::Owner),
            "gm" => Some(Visibility::Gm),
            "hidden" => Some(Visibility::Hidden),
            _ => None,
        }
    }
}

impl fmt::Display for Visibility {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Visibility::Public => "public",
            Visibility::Owner => "owner",
            Visibility::Gm => "gm",
            Visibility::Hidden => "hidden",
        })
    }
}

/// Names that mean a role or everyone, so no player may carry them (a player called `gm`
/// would read as the GM in every log line).
pub const RESERVED_NAMES: &[&str] = &["gm", "public", "owner", "hidden", "everyone", "all", "table", "nobody"];

/// The person acting or viewing: the GM, a player by name, or the public (anyone reading a
/// play-by-post thread: only public values).
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(into = "String", try_from = "String")]
pub enum Role {
    Gm,
    Player(String),
    Public,
}

crate::string_schema!(Role, "Role", "^(gm|public|player:.+)$", "gm, player:NAME, or public");

impl Role {
    /// Parses `gm`, `player:NAME` or `public`.
    pub fn parse(text: &str) -> Result<Role, RoleError> {
        Self::parse_text(text).map_err(RoleError)
    }

    fn parse_text(text: &str) -> Result<Role, String> {
        let t = text.trim();
        if t.eq_ignore_ascii_case("gm") {
            return Ok(Role::Gm);
        }
        if t.eq_ignore_ascii_case("public") {
            return Ok(Role::Public);
        }
        match t.split_once(':') {
            Some((kind, name)) if kind.eq_ignore_ascii_case("player") => {
                let name = name.trim();
                if name.is_empty() {
                    Err("a player needs a name: player:NAME".into())
                } else if name.len() > 64 {
                    Err("a player name may be at most 64 characters".into())
                } else if let Err(e) = crate::text::check(name, crate::text::Lines::One) {
                    Err(format!("a player name holds no control character: {e}"))
                } else if RESERVED_NAMES.iter().any(|r| name.eq_ignore_ascii_case(r)) {
                    Err(format!("'{name}' names a role, not a player: pick another name"))
                } else {
                    Ok(Role::Player(name.to_string()))
                }
            }
            _ => Err(format!("'{t}' is not a role: use gm, player:NAME or public")),
        }
    }

    pub fn is_gm(&self) -> bool {
        matches!(self, Role::Gm)
    }

    pub fn player(&self) -> Option<&str> {
        match self {
            Role::Player(name) => Some(name),
            _ => None,
        }
    }

    /// Whether this role may see a value of visibility `vis` that belongs to `owner`.
    pub fn sees(&self, vis: Visibility, owner: Option<&str>) -> bool {
        match (vis, self) {
            (Visibility::Public, _) => true,
            (Visibility::Hidden, _) => false,
            (_, Role::Gm) => true,
            (Visibility::Owner, Role::Player(name)) => owner.is_some_and(|o| o == name),
            (Visibility::Gm, Role::Player(_)) => false,
            (_, Role::Public) => false,
        }
    }
}

impl fmt::Display for Role {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Role::Gm => f.write_str("gm"),
            Role::Player(name) => write!(f, "player:{name}"),
            Role::Public => f.write_str("public"),
        }
    }
}

impl From<Role> for String {
    fn from(r: Role) -> String {
        r.to_string()
    }
}

/// Text that is not a role, and why.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct RoleError(pub String);

impl TryFrom<String> for Role {
    type Error = RoleError;
    fn try_from(s: String) -> Result<Role, RoleError> {
        Role::parse(&s)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_rule_of_who_sees_what() {
        let gm = Role::Gm;
        let ann = Role::Player("ann".into());
        let bob = Role::Player("bob".into());
        assert!(ann.sees(Visibility::Public, None));
        assert!(gm.sees(Visibility::Gm, None));
        assert!(!ann.sees(Visibility::Gm, Some("ann")), "a player never sees GM-only values, even their own");
        assert!(ann.sees(Visibility::Owner, Some("ann")));
        assert!(!bob.sees(Visibility::Owner, Some("ann")));
        assert!(gm.sees(Visibility::Owner, Some("ann")));
        assert!(!gm.sees(Visibility::Hidden, None), "hidden is hidden from the GM too");
        assert!(Role::Public.sees(Visibility::Public, None));
        assert!(!Role::Public.sees(Visibility::Owner, Some("")), "the public owns nothing");
        assert_eq!(Visibility::Owner.stricter(Visibility::Gm), Visibility::Gm);
    }

    #[test]
    fn roles_parse() {
        assert_eq!(Role::parse("GM").unwrap(), Role::Gm);
        assert_eq!(Role::parse("player:Ann Lee").unwrap(), Role::Player("Ann Lee".into()));
        assert!(Role::parse("player:").is_err());
        assert!(Role::parse("wizard").unwrap_err().to_string().contains("not a role"));
        for name in ["gm", "GM", "Public", "everyone"] {
            let e = Role::parse(&format!("player:{name}")).unwrap_err().to_string();
            assert!(e.contains("names a role"), "a player may not be called {name}: {e}");
        }
    }
}
