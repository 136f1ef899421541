//! What the rules say will happen, without anything being kept: a form's chance of success
//! before anything is rolled (the action's odds function runs in the sandbox worker over the
//! current table like the action would, after the same before_action hook, with no dice to roll, and nothing it does is committed
//! or built on: [`crate::rules::Rules::committed`] is never said), an action simulated many
//! times, one run of an action with dice given ([`Campaign::trial`], how a test checks a
//! form's chance against the rules themselves), and what the balance lab plays from
//! ([`crate::lab`]).

use super::*;
use crate::sandbox::Simulation;
use houserule_core::chance::{self, Chance};

/// The odds of an action as the form stands.
#[derive(Debug, Clone, Default, PartialEq, Serialize, JsonSchema)]
pub struct FormOdds {
    /// What is about to be rolled, each with its chance (none while the form is incomplete).
    pub lines: Vec<Chance>,
    /// Why the rules would refuse the action as it stands (their own words), if they would.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub refused: Option<String>,
}

impl Campaign {
    /// Runs an action `n` times from the current table with generated dice from `seed`,
    /// committing nothing; hands each batch of results to `each` as the worker sends them.
    pub fn simulate(
        &self,
        role: &Role,
        action: &str,
        raw: &Map<String, Value>,
        seed: u64,
        n: u64,
        each: impl FnMut(Vec<Value>),
    ) -> Result<(), ActError> {
        let manifest = &self.rules.manifest;
        let params = action::check(manifest, &self.table, role, action, raw)?;
        let calls = action::calls(manifest, action, &params)?;
        let simulation = Simulation {
            table: (*self.table).clone(),
            role: role.clone(),
            action: action.to_string(),
            params,
            calls,
            seed: seed_from_number(seed),
        };
        self.rules.simulate(&simulation, n, each)
    }

    /// Runs an action once from the current table with the dice given (forced faces, or a
    /// seed), committing nothing and building nothing on it: what it returned, said and rolled
    /// (each roll an item). Dice that do not fit what the action rolls are an error.
    pub fn trial(
        &self,
        role: &Role,
        action: &str,
        raw: &Map<String, Value>,
        dice: &DiceSupply,
    ) -> Result<crate::rules::StagedReply, ActError> {
        let manifest = self.rules.manifest.clone();
        let params = action::check(&manifest, &self.table, role, action, raw)?;
        let calls = action::calls(&manifest, action, &params)?;
        let id = TableId { campaign: self.token, seq: self.head.0 };
        self.rules.stage(id, &self.table, role, Some((action, &params)), &calls, dice)
    }

    /// The balance lab's side for this campaign: its rules in force (house rules too) and its
    /// table as it stands.
    pub fn lab_setup(&self) -> crate::lab::Setup {
        crate::lab::Setup {
            house_rules: self.rules.house.iter().map(|h| h.name.clone()).collect(),
            source: self.rules.source.clone(),
            house: self.rules.house.clone(),
            limits: self.rules.limits.clone(),
            table: Table::clone(&self.table),
        }
    }

    /// The balance lab's sides from the table as it stands: the ruleset alone, then with the
    /// campaign's house rules (when it has any).
    pub fn lab_setups(&self) -> Vec<crate::lab::Setup> {
        let with = self.lab_setup();
        let alone = crate::lab::Setup { house_rules: vec![], house: vec![], ..with.clone() };
        if with.house.is_empty() {
            vec![alone]
        } else {
            vec![alone, with]
        }
    }

    /// The chance of success of `action` with the parameters typed so far, as `role` would
    /// take it. Parameters not yet valid give no lines; an action without an odds function is
    /// an error.
    pub fn odds(&self, role: &Role, action: &str, raw: &Map<String, Value>) -> Result<FormOdds, ActError> {
        let manifest = self.rules.manifest.clone();
        let spec = action::spec(&manifest, action)?;
        let Some(function) = spec.odds.clone() else {
            return Err(ActError::Rejected(format!("the rules say no odds for '{action}'")));
        };
        let params = match action::check(&manifest, &self.table, role, action, raw) {
            Ok(p) => p,
            Err(ActError::Param(_)) => return Ok(FormOdds::default()),
            Err(e) => return Err(e),
        };
        // Called like the action: its before_action hook first (the rules that refuse many
        // actions at once), then the odds function in place of the action's.
        let mut calls = action::calls(&manifest, action, &params)?;
        calls.pop();
        calls.push(action::Call { function, args: vec![Value::Object(params.clone())] });
        let dice = DiceSupply::Forced(Forced::new(Vec::new()));
        let id = TableId { campaign: self.token, seq: self.head.0 };
        let reply = match self.rules.stage(id, &self.table, role, Some((action, &params)), &calls, &dice) {
            Ok(r) => r,
            Err(ActError::Refused(s)) => return Ok(FormOdds { lines: Vec::new(), refused: Some(s.message) }),
            Err(ActError::Dice(d)) => {
                return Err(ActError::Rejected(format!("an odds function must not roll dice ({d})")))
            }
            Err(e) => return Err(e),
        };
        let dialect = houserule_core::dice::Dialect::of_settings(&self.table.settings);
        let lines = chance::lines(&reply.result, dialect).map_err(|e| ActError::Rejected(e.to_string()))?;
        Ok(FormOdds { lines, refused: None })
    }
}
