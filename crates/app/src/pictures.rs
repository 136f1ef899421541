//! Pictures in and out: an image the GM imports is decoded whole, within bounds, before
//! anything is kept; a background a player may see is made for them with every fogged pixel
//! black.
//!
//! Guarantees:
//! - [`check`] accepts only a PNG, JPEG or WebP file of at most [`MAX_BYTES`] that decodes
//!   completely to at most [`MAX_SIDE`]×[`MAX_SIDE`] pixels. The size in the header is read and
//!   held to the bound before the decoder allocates anything for the pixels, so a decompression
//!   bomb is refused at its header. Every refusal names the file and the limit or the fault.
//! - [`mask`] keeps a pixel exactly when its centre lies inside one of the revealed polygons by
//!   the same even-odd rule as `Fog::is_revealed` (a property test holds them to it); every
//!   other pixel is written black, opaque, before the image is encoded, so no fogged pixel's
//!   value is in the bytes a player receives.

use houserule_core::picture::{Format, Picture, MAX_BYTES, MAX_SIDE};
use image::{DynamicImage, ImageFormat, ImageReader, Limits, RgbaImage};
use std::io::Cursor;

/// Why an image was not imported or could not be made.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{file}: {reason}")]
pub struct PictureRefused {
    pub file: String,
    pub reason: String,
}

fn refused(file: &str, reason: impl Into<String>) -> PictureRefused {
    PictureRefused { file: file.to_string(), reason: reason.into() }
}

/// The bounds a decoder works within: the side limit is strict (checked from the header before
/// any pixel is allocated); the memory bound allows the largest picture at 16 bits a channel.
fn limits() -> Limits {
    let mut l = Limits::default();
    l.max_image_width = Some(MAX_SIDE);
    l.max_image_height = Some(MAX_SIDE);
    l.max_alloc = Some(u64::from(MAX_SIDE) * u64::from(MAX_SIDE) * 8 + (64 << 20));
    l
}

/// The format of a file, by its first bytes (never by its name): one of the three kept.
fn format_of(file: &str, bytes: &[u8]) -> Result<(Format, ImageFormat), PictureRefused> {
    let not_one = || {
        refused(file, "not a PNG, JPEG or WebP image (Houserule keeps only those three; an SVG, a GIF or any other file is refused)")
    };
    match image::guess_format(bytes).map_err(|_| not_one())? {
        ImageFormat::Png => Ok((Format::Png, ImageFormat::Png)),
        ImageFormat::Jpeg => Ok((Format::Jpeg, ImageFormat::Jpeg)),
        ImageFormat::WebP => Ok((Format::Webp, ImageFormat::WebP)),
        _ => Err(not_one()),
    }
}

/// Decodes a stored or offered picture within the bounds.
fn decode(file: &str, bytes: &[u8]) -> Result<(Format, DynamicImage), PictureRefused> {
    if bytes.len() as u64 > MAX_BYTES {
        return Err(refused(file, format!("{} bytes; a picture is at most {MAX_BYTES} bytes (25 MB)", bytes.len())));
    }
    let (format, image_format) = format_of(file, bytes)?;
    let reader = |bytes| {
        let mut r = ImageReader::with_format(Cursor::new(bytes), image_format);
        r.limits(limits());
        r
    };
    let (w, h) = reader(bytes).into_dimensions().map_err(|e| fault(file, e))?;
    if w == 0 || h == 0 || w > MAX_SIDE || h > MAX_SIDE {
        return Err(too_large(file, w, h));
    }
    let image = reader(bytes).decode().map_err(|e| fault(file, e))?;
    Ok((format, image))
}

fn too_large(file: &str, w: u32, h: u32) -> PictureRefused {
    refused(file, format!("{w}×{h} pixels; a picture is at most {MAX_SIDE}×{MAX_SIDE}"))
}

fn fault(file: &str, e: image::ImageError) -> PictureRefused {
    match e {
        image::ImageError::Limits(l) => refused(
            file,
            format!("larger than a picture may be (at most {MAX_SIDE}×{MAX_SIDE} pixels and {MAX_BYTES} bytes): {l}"),
        ),
        other => refused(file, format!("the image is damaged or cut short and cannot be read ({other})")),
    }
}

/// Decodes an offered image whole within the bounds: what the table records of it.
pub fn check(file: &str, bytes: &[u8]) -> Result<Picture, PictureRefused> {
    let (format, image) = decode(file, bytes)?;
    let picture = Picture {
        name: file.to_string(),
        format,
        width: image.width(),
        height: image.height(),
        bytes: bytes.len() as u64,
    };
    picture.check().map_err(|e| refused(file, e.to_string()))?;
    Ok(picture)
}

/// The picture as one viewer may see it: every pixel whose centre lies outside all of
/// `revealed` (polygons in the picture's pixels) black, encoded as a PNG.
pub fn mask(file: &str, bytes: &[u8], revealed: &[Vec<(f64, f64)>]) -> Result<Vec<u8>, PictureRefused> {
    let (_, image) = decode(file, bytes)?;
    let mut rgba = image.into_rgba8();
    black_out(&mut rgba, revealed);
    encode_png(file, &rgba)
}

/// A revealed area's corners, in pixels.
type Polygon = Vec<(f64, f64)>;

/// Writes every pixel outside the revealed polygons black (scan line by scan line). A row
/// meets only the polygons whose height spans its centre: polygons are taken up in the order
/// their first row comes and let go after their last, so a map with a thousand revealed cells
/// costs a few polygons per row, not a thousand.
pub fn black_out(image: &mut RgbaImage, revealed: &[Vec<(f64, f64)>]) {
    let (w, h) = image.dimensions();
    // The rows whose centres `y + 0.5` a polygon's height spans (a superset is harmless).
    let span = |p: &Polygon| {
        let (lo, hi) = p.iter().fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), q| (lo.min(q.1), hi.max(q.1)));
        ((lo - 0.5).ceil().max(0.0), (hi - 0.5).floor().min(f64::from(h) - 1.0))
    };
    let mut waiting: Vec<(usize, usize, &Polygon)> = revealed
        .iter()
        .filter(|p| p.len() >= 3)
        .map(|p| (span(p), p))
        .filter(|((first, last), _)| first <= last)
        .map(|((first, last), p)| (first as usize, last as usize, p))
        .collect();
    waiting.sort_by_key(|(first, _, _)| std::cmp::Reverse(*first));
    let mut active: Vec<(usize, &Polygon)> = Vec::new();
    let mut open = vec![false; w as usize];
    let mut crossings = Vec::new();
    let width = w as usize * 4;
    for (y, row) in image.as_mut().chunks_exact_mut(width).enumerate() {
        while waiting.last().is_some_and(|(first, _, _)| *first <= y) {
            let (_, last, p) = waiting.pop().expect("a polygon waits");
            active.push((last, p));
        }
        active.retain(|(last, _)| *last >= y);
        open.iter_mut().for_each(|o| *o = false);
        let yc = y as f64 + 0.5;
        for (_, polygon) in &active {
            crossings_at(polygon, yc, &mut crossings);
            for pair in crossings.chunks_exact(2) {
                mark(&mut open, pair[0], pair[1]);
            }
        }
        for (px, seen) in row.chunks_exact_mut(4).zip(&open) {
            if !seen {
                px.copy_from_slice(&[0, 0, 0, 255]);
            }
        }
    }
}

/// Where a polygon's edges cross the line at height `y`, in order (the even-odd rule of
/// `fog::inside`: an edge counts when exactly one end lies above the line).
fn crossings_at(polygon: &[(f64, f64)], y: f64, out: &mut Vec<f64>) {
    out.clear();
    let mut j = polygon.len() - 1;
    for i in 0..polygon.len() {
        let ((xi, yi), (xj, yj)) = (polygon[i], polygon[j]);
        if (yi > y) != (yj > y) {
            out.push((xj - xi) * (y - yi) / (yj - yi) + xi);
        }
        j = i;
    }
    out.sort_by(f64::total_cmp);
}

/// Marks the pixels whose centres `x + 0.5` satisfy `from <= x + 0.5 < to` as seen.
fn mark(open: &mut [bool], from: f64, to: f64) {
    let first = (from - 0.5).ceil().max(0.0);
    let end = (to - 0.5).ceil().min(open.len() as f64);
    if first < end {
        open[first as usize..end as usize].iter_mut().for_each(|o| *o = true);
    }
}

fn encode_png(file: &str, image: &RgbaImage) -> Result<Vec<u8>, PictureRefused> {
    use image::codecs::png::{CompressionType, FilterType, PngEncoder};
    let mut out = Vec::new();
    let encoder = PngEncoder::new_with_quality(&mut out, CompressionType::Fast, FilterType::Adaptive);
    image.write_with_encoder(encoder).map_err(|e| refused(file, format!("could not be written as a PNG ({e})")))?;
    Ok(out)
}

pub mod scene;
#[cfg(test)]
mod tests;
