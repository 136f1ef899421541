//! What the process that holds a campaign and its sandbox worker say to each other.
//!
//! Each message is one frame: its length as four little-endian bytes, then that many bytes of
//! JSON. A frame longer than the reader allows is refused before any of it is read into
//! memory, so a worker cannot make its parent allocate more than [`MAX_REPLY`].

use houserule_core::action::Call;
use houserule_core::dice::DiceError;
use houserule_core::event::Item;
use houserule_core::plugin::{HouseRule, PluginError, PluginSource, RulesInfo};
use houserule_core::script_error::ScriptError;
use houserule_core::table::Table;
use houserule_core::tx::DiceSupply;
use houserule_core::{Limits, Role};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::io::{self, Read, Write};

use super::os::Wall;

/// The largest reply a worker may send.
pub const MAX_REPLY: usize = 16 * 1024 * 1024;
/// The largest request a worker reads (a whole table is sent when the worker has not got it).
pub const MAX_REQUEST: usize = 256 * 1024 * 1024;

/// Which table a request works on: a campaign (by a number the parent gives it) as of an event.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct TableId {
    pub campaign: u64,
    pub seq: u64,
}

impl TableId {
    /// The table after one more event.
    pub fn next(self) -> TableId {
        TableId { seq: self.seq + 1, ..self }
    }
}

/// The table a stage starts from: one the worker holds, or the whole table.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub enum Base {
    Known(TableId),
    Given(TableId, Box<Table>),
}

/// A request to the worker.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub enum Request {
    /// Compile and check these rules; they serve every later request.
    Load { ruleset: PluginSource, house: Vec<HouseRule>, limits: Box<Limits> },
    /// Run calls in a transaction over the base table; `action` with its validated parameters,
    /// or none for the setup hook of a new campaign.
    Stage {
        base: Base,
        role: Role,
        action: Option<(String, serde_json::Map<String, Value>)>,
        calls: Vec<Call>,
        dice: DiceSupply,
    },
    /// Run an action `runs` times from one table, run `i` with dice from `seed` at counter
    /// `(first + i) · stride`; results come back in batches.
    Simulate { simulation: Box<Simulation>, first: u64, runs: u64 },
    /// Play `runs` whole scenes from one table by the ruleset's lab policy (see
    /// [`super::lab`]), run `i` with dice from `seed` at counter `(first + i) · stride`;
    /// each run's outcome comes back in batches, as `Simulated`.
    Lab { table: Box<Table>, seed: [u8; 32], first: u64, runs: u64 },
    /// Report what the operating system enforces, by trying what it must refuse.
    Probe,
}

/// One action to play many times from one table, committing nothing: who takes it, its checked
/// parameters and the calls they make, and the seed every run's dice come from.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Simulation {
    pub table: Table,
    pub role: Role,
    pub action: String,
    pub params: serde_json::Map<String, Value>,
    pub calls: Vec<Call>,
    pub seed: [u8; 32],
}

/// Why a call into the scripts failed, as it crosses back.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub enum Failure {
    Script(ScriptError),
    Dice(DiceError),
    Other(String),
}

/// A reply from the worker.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub enum Reply {
    Loaded(RulesInfo),
    Invalid(PluginError),
    /// The transaction's items (parameters included), what the last call returned, and what
    /// the scripts printed.
    Staged {
        items: Vec<Item>,
        result: Value,
        log: Vec<String>,
    },
    Failed(Failure),
    /// The worker does not hold the base table: send it whole.
    NeedTable,
    /// Results of consecutive simulated runs; `done` when the last batch.
    Simulated {
        results: Vec<Value>,
        done: bool,
    },
    Probed(Probe),
}

/// What the worker found when it tried what it must not be able to do.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Probe {
    pub wall: Wall,
    /// Each attempt and what happened ("refused: …" or "allowed").
    pub attempts: Vec<(String, String)>,
}

/// Writes one frame.
pub fn write_frame<T: Serialize>(out: &mut impl Write, message: &T) -> io::Result<()> {
    let body = serde_json::to_vec(message).map_err(io::Error::other)?;
    let len = u32::try_from(body.len()).map_err(|_| io::Error::other("message too large"))?;
    out.write_all(&len.to_le_bytes())?;
    out.write_all(&body)?;
    out.flush()
}

/// A frame that could not be read.
#[derive(Debug)]
pub enum FrameError {
    /// The other side closed the pipe.
    Closed,
    /// The frame announced more than the reader accepts.
    TooLarge(usize),
    Io(io::Error),
    Malformed(serde_json::Error),
}

/// Reads one frame of at most `max` bytes.
pub fn read_frame<T: for<'de> Deserialize<'de>>(input: &mut impl Read, max: usize) -> Result<T, FrameError> {
    let mut len = [0u8; 4];
    match input.read_exact(&mut len) {
        Ok(()) => {}
        Err(e) if e.kind() == io::ErrorKind::UnexpectedEof => return Err(FrameError::Closed),
        Err(e) => return Err(FrameError::Io(e)),
    }
    let len = u32::from_le_bytes(len) as usize;
    if len > max {
        return Err(FrameError::TooLarge(len));
    }
    let mut body = vec![0u8; len];
    input.read_exact(&mut body).map_err(|e| {
        if e.kind() == io::ErrorKind::UnexpectedEof {
            FrameError::Closed
        } else {
            FrameError::Io(e)
        }
    })?;
    serde_json::from_slice(&body).map_err(FrameError::Malformed)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn frames_round_trip_and_oversized_ones_are_refused_unread() {
        let mut buf = Vec::new();
        write_frame(&mut buf, &Reply::NeedTable).unwrap();
        let back: Reply = read_frame(&mut buf.as_slice(), MAX_REPLY).unwrap();
        assert!(matches!(back, Reply::NeedTable));
        let mut huge = (u32::MAX).to_le_bytes().to_vec();
        huge.extend_from_slice(b"{}");
        assert!(
            matches!(read_frame::<Reply>(&mut huge.as_slice(), MAX_REPLY), Err(FrameError::TooLarge(_))),
            "the length is checked before reading"
        );
        assert!(matches!(read_frame::<Reply>(&mut [1u8, 0].as_slice(), MAX_REPLY), Err(FrameError::Closed)));
    }
}
