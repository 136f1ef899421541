//! Attacks on the import's bounds and on the mask, and the formats it keeps.
use super::*;
use houserule_core::scene::fog::inside;
use image::{ImageEncoder, Rgba};
use proptest::prelude::*;

fn white(w: u32, h: u32) -> RgbaImage {
    RgbaImage::from_pixel(w, h, Rgba([255, 255, 255, 255]))
}

fn png(image: &RgbaImage) -> Vec<u8> {
    encode_png("t.png", image).unwrap()
}

/// A PNG chunk: length, type, data and its CRC-32.
fn chunk(kind: &[u8; 4], data: &[u8]) -> Vec<u8> {
    let mut body = kind.to_vec();
    body.extend_from_slice(data);
    let mut out = (data.len() as u32).to_be_bytes().to_vec();
    out.extend_from_slice(&body);
    out.extend_from_slice(&crc32(&body).to_be_bytes());
    out
}

fn crc32(bytes: &[u8]) -> u32 {
    let mut crc = 0xFFFF_FFFFu32;
    for b in bytes {
        crc ^= u32::from(*b);
        for _ in 0..8 {
            crc = if crc & 1 == 1 { (crc >> 1) ^ 0xEDB8_8320 } else { crc >> 1 };
        }
    }
    !crc
}

/// A tiny PNG whose header claims `w`×`h` pixels (a decompression bomb's first bytes).
fn claiming(w: u32, h: u32) -> Vec<u8> {
    let mut ihdr = w.to_be_bytes().to_vec();
    ihdr.extend_from_slice(&h.to_be_bytes());
    ihdr.extend_from_slice(&[8, 6, 0, 0, 0]);
    let mut out = b"\x89PNG\r\n\x1a\n".to_vec();
    out.extend(chunk(b"IHDR", &ihdr));
    out.extend(chunk(b"IDAT", &[0x78, 0x9c, 0x03, 0x00, 0x00, 0x00, 0x00, 0x01]));
    out.extend(chunk(b"IEND", &[]));
    out
}

#[test]
fn the_three_formats_are_kept_with_their_size() {
    let img = white(30, 20);
    let p = check("map.png", &png(&img)).unwrap();
    assert_eq!((p.format, p.width, p.height), (Format::Png, 30, 20));
    let mut jpeg = Vec::new();
    let rgb = DynamicImage::ImageRgba8(img.clone()).into_rgb8();
    image::codecs::jpeg::JpegEncoder::new(&mut jpeg).write_image(&rgb, 30, 20, image::ExtendedColorType::Rgb8).unwrap();
    assert_eq!(check("face.jpg", &jpeg).unwrap().format, Format::Jpeg);
    let mut webp = Vec::new();
    image::codecs::webp::WebPEncoder::new_lossless(&mut webp)
        .write_image(&img, 30, 20, image::ExtendedColorType::Rgba8)
        .unwrap();
    assert_eq!(check("hall.webp", &webp).unwrap().format, Format::Webp);
}

#[test]
fn a_decompression_bomb_is_refused_at_its_header_naming_the_limit() {
    let e = check("bomb.png", &claiming(100_000, 100_000)).unwrap_err();
    assert_eq!(e.file, "bomb.png");
    assert!(e.reason.contains("16384"), "{e}");
    let e = check("tall.png", &claiming(10, MAX_SIDE + 1)).unwrap_err();
    assert!(e.reason.contains("16384"), "{e}");
}

#[test]
fn a_file_over_25_mb_is_refused_before_it_is_read() {
    let mut big = png(&white(4, 4));
    big.resize(30_000_000, 0);
    let e = check("huge.png", &big).unwrap_err();
    assert!(e.reason.contains("30000000 bytes") && e.reason.contains("25 MB"), "{e}");
}

#[test]
fn an_svg_with_a_script_and_other_formats_are_refused() {
    let svg = br#"<svg xmlns="http://www.w3.org/2000/svg"><script>alert(document.cookie)</script></svg>"#;
    let e = check("evil.svg", svg).unwrap_err();
    assert!(e.reason.contains("not a PNG, JPEG or WebP"), "{e}");
    let gif = b"GIF89a\x01\x00\x01\x00\x00\x00\x00;";
    assert!(check("anim.gif", gif).is_err());
    assert!(check("empty.png", b"").is_err());
}

#[test]
fn a_jpeg_with_a_corrupt_header_and_a_truncated_png_are_refused() {
    let mut jpeg = Vec::new();
    let rgb = DynamicImage::ImageRgba8(white(16, 16)).into_rgb8();
    image::codecs::jpeg::JpegEncoder::new(&mut jpeg).write_image(&rgb, 16, 16, image::ExtendedColorType::Rgb8).unwrap();
    // Between the start marker and the scan, every header segment (tables, frame) is noise.
    let scan = jpeg.windows(2).position(|w| w == [0xFF, 0xDA]).unwrap();
    for b in &mut jpeg[4..scan] {
        *b = 0xA5;
    }
    let e = check("broken.jpg", &jpeg).unwrap_err();
    assert!(e.reason.contains("damaged or cut short"), "{e}");
    let whole = png(&white(64, 64));
    let e = check("cut.png", &whole[..whole.len() / 2]).unwrap_err();
    assert!(e.reason.contains("damaged or cut short"), "{e}");
}

#[test]
fn a_masked_picture_is_black_outside_what_is_revealed_and_untouched_inside() {
    let img = white(40, 30);
    let square = vec![(10.0, 10.0), (20.0, 10.0), (20.0, 20.0), (10.0, 20.0)];
    let masked = mask("m.png", &png(&img), &[square]).unwrap();
    let out = image::load_from_memory(&masked).unwrap().into_rgba8();
    assert_eq!(out.get_pixel(15, 15), &Rgba([255, 255, 255, 255]));
    assert_eq!(out.get_pixel(5, 5), &Rgba([0, 0, 0, 255]));
    assert_eq!(out.get_pixel(20, 15), &Rgba([0, 0, 0, 255]), "the right edge is outside");
    assert_eq!(out.get_pixel(10, 10), &Rgba([255, 255, 255, 255]), "the left edge is inside");
}

proptest! {
    /// Every pixel is kept exactly when its centre lies inside a revealed polygon by the fog's
    /// own rule, whatever the polygons (concave, crossing, off the picture).
    #[test]
    fn the_mask_keeps_exactly_the_pixels_the_fog_reveals(
        polygons in proptest::collection::vec(
            proptest::collection::vec((-5.0f64..45.0, -5.0f64..35.0), 3..7), 0..4),
    ) {
        let mut img = white(40, 30);
        black_out(&mut img, &polygons);
        for (x, y, px) in img.enumerate_pixels() {
            let centre = (f64::from(x) + 0.5, f64::from(y) + 0.5);
            let seen = polygons.iter().any(|p| inside(p, centre));
            prop_assert_eq!(px[0] == 255, seen, "pixel {},{}", x, y);
        }
    }
}
