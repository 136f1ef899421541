//! Pictures on the table: the images the GM imported (maps, portraits, handouts), each named by
//! the SHA-256 of its bytes.
//!
//! The table keeps only what a picture is — its digest, a name, its format and size — never its
//! bytes: those live in the campaign file beside the log, and the event that adds a picture
//! commits to its digest, so `verify` can tell a swapped image from the one that was imported.
//! A picture is added only after the app has decoded it whole within [`MAX_BYTES`] and
//! [`MAX_SIDE`] (see `houserule_app::pictures`); here the same bounds are held again, so a log
//! cannot claim a picture no import could make.
//!
//! Guarantee: a digest is 64 lowercase hex digits, and a picture's numbers are within the bounds
//! (its name is held to the one rule for names with every change, in `caps`).

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// The largest image file the GM may import, in bytes (25 MB).
pub const MAX_BYTES: u64 = 25 * 1000 * 1000;
/// The widest and tallest image, in pixels.
pub const MAX_SIDE: u32 = 16_384;
/// How many pictures one table holds.
pub const MAX_PICTURES: usize = 1_000;

/// The image formats Houserule keeps.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Format {
    Png,
    Jpeg,
    Webp,
}

impl Format {
    /// The media type a browser is given.
    pub fn mime(self) -> &'static str {
        match self {
            Format::Png => "image/png",
            Format::Jpeg => "image/jpeg",
            Format::Webp => "image/webp",
        }
    }
}

/// What a picture is (its bytes are in the campaign file, under its digest).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct Picture {
    /// The name it was imported under (its file name, for the GM).
    pub name: String,
    pub format: Format,
    pub width: u32,
    pub height: u32,
    /// Its size in bytes.
    pub bytes: u64,
}

/// Why a picture cannot be on the table.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PictureError {
    #[error("'{0}' is not a picture's digest (64 lowercase hex digits, the SHA-256 of its bytes)")]
    Digest(String),
    #[error("picture {name}: {detail}")]
    Bounds { name: String, detail: String },
}

/// A digest names a picture: 64 lowercase hex digits.
pub fn check_digest(digest: &str) -> Result<(), PictureError> {
    let hex = digest.len() == 64 && digest.bytes().all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b));
    hex.then_some(()).ok_or_else(|| PictureError::Digest(digest.chars().take(80).collect()))
}

impl Picture {
    /// Its numbers are within the bounds an import holds.
    pub fn check(&self) -> Result<(), PictureError> {
        let bounds = |detail: String| PictureError::Bounds { name: self.name.clone(), detail };
        if self.bytes == 0 || self.bytes > MAX_BYTES {
            return Err(bounds(format!("{} bytes; at most {MAX_BYTES}", self.bytes)));
        }
        for (side, n) in [("width", self.width), ("height", self.height)] {
            if n == 0 || n > MAX_SIDE {
                return Err(bounds(format!("{side} {n} pixels; from 1 to {MAX_SIDE}")));
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pic() -> Picture {
        Picture { name: "cellar.png".into(), format: Format::Png, width: 100, height: 80, bytes: 1234 }
    }

    #[test]
    fn a_digest_is_sixty_four_lowercase_hex_digits() {
        assert!(check_digest(&"ab".repeat(32)).is_ok());
        assert!(check_digest(&"AB".repeat(32)).is_err(), "upper case is another spelling of the same digest");
        assert!(check_digest("../../etc/passwd").is_err());
        assert!(check_digest(&"a".repeat(63)).is_err());
    }

    #[test]
    fn a_picture_past_the_bounds_is_refused_by_name() {
        assert!(pic().check().is_ok());
        let wide = Picture { width: MAX_SIDE + 1, ..pic() };
        let e = wide.check().unwrap_err().to_string();
        assert!(e.contains("cellar.png") && e.contains("16384"), "{e}");
        assert!(Picture { bytes: MAX_BYTES + 1, ..pic() }.check().is_err());
        assert!(Picture { height: 0, ..pic() }.check().is_err());
    }
}
