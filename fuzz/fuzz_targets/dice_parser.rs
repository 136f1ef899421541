//! Any text typed as a dice expression: parsing never panics or hangs, and whatever parses can
//! be rolled with forced faces without panicking.
#![no_main]

use houserule_core::dice::{self, Forced, RollSource};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    let Ok(expr) = dice::parse(text) else { return };
    // Faces from the input's bytes, some of them out of range on purpose.
    let faces: Vec<i64> = data.iter().map(|b| i64::from(*b % 24) - 2).collect();
    let mut forced = Forced::new(faces);
    let _ = dice::roll(&expr, &mut forced, RollSource::Forced);
});
