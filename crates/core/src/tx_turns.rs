//! The turn tracker's operations on a transaction: starting and ending an encounter, seating
//! participants, ordering them, passing the turn, holding and acting at once.
//!
//! Each operation is a handful of [`Change`]s made through [`Tx::change`], so it is logged,
//! redacted seat by seat, undone and folded like any other change. Each refuses with the reason
//! and changes nothing when it does not fit (no encounter, a participant with no seat, one who
//! has already acted). The moments the rules hook (`turn_start`, `turn_end`, `round_end`) are
//! fired by the host API between these steps, so a hook sees the tracker as the step left it.

use crate::caps::items::MAX_SEAT_KEY;
use crate::table::Change;
use crate::turns::Seat;
use crate::tx::{Tx, TxError};

fn rule(msg: impl Into<String>) -> TxError {
    TxError::Rule(msg.into())
}

/// What finding the next participant came to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum NextUp {
    /// It is now this participant's turn.
    Turn(String),
    /// Everyone has acted (or holds): the round is over.
    RoundOver,
}

impl Tx {
    fn name_of(&self, id: &str) -> String {
        self.table.entities.get(id).map(|e| e.name.clone()).unwrap_or_else(|| id.to_string())
    }

    fn running(&self) -> Result<(), TxError> {
        if self.table.turns.active {
            Ok(())
        } else {
            Err(rule("there is no encounter: start one first"))
        }
    }

    fn seat_of(&self, id: &str) -> Result<Seat, TxError> {
        self.running()?;
        self.table
            .turns
            .seats
            .get(id)
            .cloned()
            .ok_or_else(|| rule(format!("{} has no place in the turn order", self.name_of(id))))
    }

    fn set_seat(&mut self, id: &str, seat: Seat) -> Result<(), TxError> {
        if self.table.turns.seats.get(id) == Some(&seat) {
            return Ok(());
        }
        self.change(Change::Seat { entity: id.to_string(), seat: Some(seat) })
    }

    /// Starts an encounter in round 1 with these participants, in this joining order.
    pub fn start_encounter(&mut self, ids: &[String]) -> Result<(), TxError> {
        if self.table.turns.active {
            return Err(rule("an encounter is already running: end it first"));
        }
        self.change(Change::Encounter { active: true, round: 1 })?;
        ids.iter().try_for_each(|id| self.join_turns(id, Vec::new()))
    }

    /// Gives an entity a place in the turn order, sorted by `key`.
    pub fn join_turns(&mut self, id: &str, key: Vec<i64>) -> Result<(), TxError> {
        self.running()?;
        self.entity(id)?;
        if self.table.turns.seats.contains_key(id) {
            return Err(rule(format!("{} already has a place in the turn order", self.name_of(id))));
        }
        check_key(&key)?;
        self.change(Change::Seat { entity: id.to_string(), seat: Some(Seat { key, ..Seat::default() }) })
    }

    /// Takes an entity out of the turn order; if it was their turn, it is no one's.
    pub fn leave_turns(&mut self, id: &str) -> Result<(), TxError> {
        self.seat_of(id)?;
        if self.table.turns.current.as_deref() == Some(id) {
            self.change(Change::Turn { entity: None })?;
        }
        self.change(Change::Seat { entity: id.to_string(), seat: None })
    }

    /// Sets what a participant's place sorts on (an initiative total, a card).
    pub fn set_initiative(&mut self, id: &str, key: Vec<i64>) -> Result<(), TxError> {
        check_key(&key)?;
        let seat = Seat { key, ..self.seat_of(id)? };
        self.set_seat(id, seat)
    }

    /// Puts the participants in this order: every one of them, each once.
    pub fn set_turn_order(&mut self, ids: &[String]) -> Result<(), TxError> {
        self.running()?;
        let seated = &self.table.turns.seats;
        let mut listed: Vec<&String> = ids.iter().collect();
        listed.sort();
        listed.dedup();
        if listed.len() != ids.len() || ids.len() != seated.len() || ids.iter().any(|id| !seated.contains_key(id)) {
            return Err(rule(format!(
                "an order names every participant once ({} of them); it named {}",
                seated.len(),
                ids.len()
            )));
        }
        let n = ids.len() as i64;
        for (i, id) in ids.iter().enumerate() {
            self.set_initiative(id, vec![n - i as i64])?;
        }
        Ok(())
    }

    /// Ends the current participant's turn: they have acted this round (unless `acted` is false,
    /// as when they hold). Returns whose turn it was.
    pub fn finish_turn(&mut self, acted: bool) -> Result<Option<String>, TxError> {
        self.running()?;
        let Some(id) = self.table.turns.current.clone() else { return Ok(None) };
        self.change(Change::Turn { entity: None })?;
        if acted {
            self.mark_acted(&id)?;
        }
        Ok(Some(id))
    }

    /// Makes it the turn of the first participant in order who has not acted and does not hold.
    pub fn pick_next(&mut self) -> Result<NextUp, TxError> {
        self.running()?;
        match self.table.turns.next_up().map(str::to_string) {
            Some(id) => {
                self.change(Change::Turn { entity: Some(id.clone()) })?;
                Ok(NextUp::Turn(id))
            }
            None => Ok(NextUp::RoundOver),
        }
    }

    /// Whether the round is over: an encounter runs, no one has the turn, and every participant
    /// has acted or holds their turn.
    pub fn round_over(&self) -> bool {
        let turns = &self.table.turns;
        turns.active && turns.current.is_none() && turns.next_up().is_none()
    }

    /// Starts the next round of the encounter: nobody has acted yet (a held turn stays held),
    /// and the table's round counter advances. Returns the table's new round counter.
    pub fn next_round(&mut self) -> Result<u64, TxError> {
        self.running()?;
        if let Some(id) = self.table.turns.current.clone() {
            return Err(rule(format!("it is still {}'s turn: end it before the round", self.name_of(&id))));
        }
        let round = self.table.turns.round + 1;
        self.change(Change::Encounter { active: true, round })?;
        let acted: Vec<(String, Seat)> =
            self.table.turns.seats.iter().filter(|(_, s)| s.acted).map(|(id, s)| (id.clone(), s.clone())).collect();
        for (id, seat) in acted {
            self.set_seat(&id, Seat { acted: false, ..seat })?;
        }
        self.end_round()
    }

    /// Counts a participant as having acted this round (one who assisted, say).
    pub fn mark_acted(&mut self, id: &str) -> Result<(), TxError> {
        let seat = self.seat_of(id)?;
        self.set_seat(id, Seat { acted: true, ..seat })
    }

    /// A participant holds their turn. Returns whether it was their turn (which then ends).
    pub fn hold_turn(&mut self, id: &str) -> Result<bool, TxError> {
        let seat = self.seat_of(id)?;
        if seat.acted {
            return Err(rule(format!("{} has already acted this round and has no turn to hold", self.name_of(id))));
        }
        let current = self.table.turns.current.as_deref() == Some(id);
        if current {
            self.finish_turn(false)?;
        }
        self.set_seat(id, Seat { held: true, ..seat })?;
        Ok(current)
    }

    /// A participant who has not acted this round acts now (a held turn taken, an interruption):
    /// it becomes their turn; whoever's turn it was goes on when theirs ends.
    pub fn act_now(&mut self, id: &str) -> Result<(), TxError> {
        let seat = self.seat_of(id)?;
        if seat.acted {
            return Err(rule(format!("{} has already acted this round", self.name_of(id))));
        }
        self.set_seat(id, Seat { held: false, ..seat })?;
        self.change(Change::Turn { entity: Some(id.to_string()) })
    }

    /// Ends the encounter: no one's turn, no participants, no round.
    pub fn end_encounter(&mut self) -> Result<(), TxError> {
        self.running()?;
        if self.table.turns.current.is_some() {
            self.change(Change::Turn { entity: None })?;
        }
        let ids: Vec<String> = self.table.turns.seats.keys().cloned().collect();
        for id in ids {
            self.change(Change::Seat { entity: id, seat: None })?;
        }
        self.change(Change::Encounter { active: false, round: 0 })
    }
}

fn check_key(key: &[i64]) -> Result<(), TxError> {
    if key.len() > MAX_SEAT_KEY {
        return Err(rule(format!("a place in the turn order sorts on at most {MAX_SEAT_KEY} numbers")));
    }
    Ok(())
}

#[cfg(test)]
#[path = "tx_turns_tests.rs"]
mod tests;
