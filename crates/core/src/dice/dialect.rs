//! Dice dialects: how to read the few forms that Roll20 and Foundry VTT spell alike but mean
//! differently.
//!
//! Houserule's own dialect (the default) reads every such form the way Foundry VTT does; the
//! Roll20 dialect reads them the way Roll20 does: `cs`/`cf` mark critical ranges instead of
//! counting, `r` rerolls until the condition fails instead of once, and `>N`/`<N` include N
//! wherever they stand. Forms only one VTT has are read alike in both, and the default dialect
//! refuses `>N`/`<N` after a form only Roll20 spells (`10d10>8`), where the two readings of the
//! comparison would part. A campaign picks its dialect with the [`SETTING`] setting (every
//! ruleset has it: the manifest adds it), and each roll records the dialect it was read in, so
//! `verify` reads it again the same way. `docs/dice.md` lists every form with its reading in
//! each dialect, and a test rolls every row of that table.

use indexmap::IndexMap;
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// The campaign setting that picks the dialect (`houserule` or `roll20`).
pub const SETTING: &str = "dice_dialect";

/// How the forms the two big VTTs disagree on are read.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Dialect {
    /// Houserule's own: conflicts read as Foundry VTT reads them (`cs` counts successes, `r`
    /// rerolls once).
    #[default]
    Houserule,
    /// Roll20's: `cs`/`cf` mark critical ranges, `r` rerolls until the condition fails, and a
    /// bare comparison after the dice (`10d10>=8`) counts successes, `f<3` failures.
    Roll20,
}

impl Dialect {
    /// Every dialect, for help texts and settings.
    pub const ALL: [Dialect; 2] = [Dialect::Houserule, Dialect::Roll20];

    pub fn name(self) -> &'static str {
        match self {
            Dialect::Houserule => "houserule",
            Dialect::Roll20 => "roll20",
        }
    }

    /// Reads a dialect's name, ignoring case.
    pub fn from_name(name: &str) -> Option<Dialect> {
        Dialect::ALL.into_iter().find(|d| d.name().eq_ignore_ascii_case(name.trim()))
    }

    /// The dialect a table's settings pick (the default when the setting is absent, as in
    /// campaigns made before it existed).
    pub fn of_settings(settings: &IndexMap<String, Value>) -> Dialect {
        settings.get(SETTING).and_then(Value::as_str).and_then(Dialect::from_name).unwrap_or_default()
    }

    pub fn is_default(&self) -> bool {
        *self == Dialect::Houserule
    }
}

impl std::fmt::Display for Dialect {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_table_without_the_setting_reads_the_default_dialect() {
        assert_eq!(Dialect::of_settings(&IndexMap::new()), Dialect::Houserule);
        let mut s = IndexMap::new();
        s.insert(SETTING.to_string(), Value::String("Roll20".into()));
        assert_eq!(Dialect::of_settings(&s), Dialect::Roll20, "names are read ignoring case");
        assert_eq!(Dialect::from_name("foundry"), None, "an unknown dialect is not read as one");
    }
}
