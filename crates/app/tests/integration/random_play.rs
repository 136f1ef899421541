//! Random play for property tests: a replayable generator, and a random action a role may take
//! now with parameters drawn from the choices its form offers.

use houserule_core::params::Choices;
use houserule_core::view::ActionForm;
use serde_json::{json, Map, Value};

/// A small deterministic generator (xorshift), so a failure can be replayed from its seed.
pub struct Dice(pub u64);

impl Dice {
    pub fn next(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        self.0 = x;
        x
    }
    pub fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
    pub fn pick<'a, T>(&mut self, list: &'a [T]) -> Option<&'a T> {
        (!list.is_empty()).then(|| &list[self.below(list.len())])
    }
    /// A word no rule would write on its own, so finding it is finding this value.
    pub fn word(&mut self) -> String {
        format!("zq{:06x}", self.next() & 0xff_ffff)
    }
}

pub const PLAYERS: &[&str] = &["ann", "bo"];

/// A value for one parameter, from the choices the form offers where there are any.
fn value_for(
    spec: &houserule_core::params::ParamSpec,
    choices: Option<&Choices>,
    picked: &Map<String, Value>,
    dice: &mut Dice,
) -> Option<Value> {
    use houserule_core::params::ParamType as T;
    if (spec.optional || spec.default.is_some()) && dice.below(3) == 0 {
        return None;
    }
    let from_choices = |dice: &mut Dice| -> Option<Value> {
        match choices? {
            Choices::Options { values } | Choices::Players { values } => dice.pick(values).map(|v| json!(v)),
            Choices::Entities { values } => dice.pick(values).map(|e| json!(e.id)),
            Choices::Traits { entity, by_entity } => {
                let owner = picked.get(entity).and_then(Value::as_str)?;
                dice.pick(by_entity.get(owner)?).map(|t| json!(t))
            }
        }
    };
    Some(match spec.ty {
        T::Int => {
            let (lo, hi) = (spec.min.unwrap_or(0), spec.max.unwrap_or(spec.min.unwrap_or(0) + 400));
            json!(lo + (dice.next() % ((hi - lo).max(0) as u64 + 1)) as i64)
        }
        T::Bool => json!(dice.below(2) == 0),
        T::Text => json!(dice.word()),
        // A player of the table, or someone new.
        T::Player => from_choices(dice).filter(|_| dice.below(2) == 0).unwrap_or_else(|| json!(dice.word())),
        T::Dice => json!(["2d6", "1d20", "4dF", "3d6cs>=4"][dice.below(4)]),
        T::Choice | T::Entity | T::Trait | T::Pool => from_choices(dice)?,
        T::List => {
            let item = spec.item()?;
            let n = dice.below(3);
            let mut items = vec![];
            for _ in 0..n {
                if let Some(v) = if matches!(item.ty, T::Text | T::Int | T::Bool | T::Dice) {
                    value_for(&item, None, picked, dice)
                } else {
                    from_choices(dice)
                } {
                    items.push(v);
                }
            }
            json!(items)
        }
        T::Map => {
            let item = spec.item()?;
            let mut m = Map::new();
            for _ in 0..dice.below(3) {
                if let Some(v) = value_for(&item, None, picked, dice) {
                    m.insert(dice.word(), v);
                }
            }
            Value::Object(m)
        }
        T::Record => {
            let mut m = Map::new();
            for (name, f) in &spec.fields {
                if let Some(v) = value_for(f, None, &m.clone(), dice) {
                    m.insert(name.clone(), v);
                }
            }
            Value::Object(m)
        }
    })
}

/// A random action this role may take, with parameters.
pub fn random_action(forms: &[ActionForm], dice: &mut Dice) -> Option<(String, Map<String, Value>)> {
    let form = dice.pick(forms)?;
    let mut params = Map::new();
    // Entities first: a trait parameter offers the traits of the entity picked for it.
    let mut order: Vec<&houserule_core::view::ParamForm> =
        form.params.iter().filter(|p| p.spec.ty == houserule_core::params::ParamType::Entity).collect();
    order.extend(form.params.iter().filter(|p| p.spec.ty != houserule_core::params::ParamType::Entity));
    for p in order {
        if let Some(v) = value_for(&p.spec, p.choices.as_ref(), &params, dice) {
            params.insert(p.name.clone(), v);
        }
        if p.name == "owner" || p.name == "player" {
            params.insert(p.name.clone(), json!(PLAYERS[dice.below(PLAYERS.len())]));
        }
    }
    Some((form.name.clone(), params))
}

/// 32 bytes of entropy from the generator, as a browser sends them.
pub fn entropy(dice: &mut Dice) -> String {
    format!("{:016x}{:016x}{:016x}{:016x}", dice.next(), dice.next(), dice.next(), dice.next())
}
