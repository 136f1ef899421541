//! A scene drawn as one viewer sees it, as a PNG: the map picture (for a player, the one made
//! for them with the fog blacked out), the grid, the fog, and every token the viewer sees — its
//! picture cut to its circle, or its initials on a coloured disc. What the command line writes,
//! a Matrix room is sent and a forum post attaches.
//!
//! Guarantees: the drawing is made only from the viewer's own [`SceneView`] and the pictures
//! `picture` hands out for its keys (callers pass one that answers only what the viewer may be
//! given: `campaign::pictures::wanted`, or a player's copy), so it holds nothing the viewer's
//! table does not. For a player every cell the fog covers is drawn opaque black over a map that
//! is already black there; the GM sees the fog as a shade and hidden tokens faded. The picture
//! is at most [`MAX_SIDE`] pixels on its long side (a larger map is drawn smaller), and its
//! legend names each token drawn with its cell, as the screen's labels do (column and row from 1).

use super::{decode, encode_png, PictureRefused};
use font8x8::UnicodeFonts;
use houserule_core::scene::grid::{Cell, Grid, GridKind};
use houserule_core::view_scene::{SceneView, TokenView};
use image::RgbaImage;
use tiny_skia::{
    Color, FillRule, FilterQuality, Paint, PathBuilder, Pattern, Pixmap, PixmapPaint, Rect, SpreadMode, Stroke,
    StrokeDash, Transform,
};

/// The longest side of a drawn scene, in pixels.
pub const MAX_SIDE: u32 = 2048;
/// The cells drawn at least when there is no map picture (as the screen does).
const MIN_CELLS: (u32, u32) = (16, 10);
/// The most cells drawn across or down.
const MAX_CELLS: u32 = 120;

/// A scene drawn for one viewer.
#[derive(Debug, Clone, PartialEq)]
pub struct Drawn {
    pub png: Vec<u8>,
    pub width: u32,
    pub height: u32,
    /// One line per token drawn: its initials, its name and its cell.
    pub legend: Vec<String>,
}

/// Draws `scene` for its viewer (`gm`: the GM's view, with the fog as a shade). `picture` gives
/// the bytes of a picture key the viewer may be given (the map's, a token's), none otherwise.
pub fn draw(scene: &SceneView, gm: bool, picture: &dyn Fn(&str) -> Option<Vec<u8>>) -> Result<Drawn, PictureRefused> {
    let file = format!("the map of {}", scene.name);
    let map_key = if gm { scene.background.as_ref().map(|b| b.digest.as_str()) } else { scene.map_key.as_deref() };
    let map = match map_key.and_then(picture) {
        Some(bytes) => Some(decode(&file, &bytes)?.1.into_rgba8()),
        None => None,
    };
    let grid = &scene.grid;
    let (w, h) = extent(scene, map.as_ref().map(|m| m.dimensions()));
    let scale = (f64::from(MAX_SIDE) / w.max(h)).min(1.0) as f32;
    let (pw, ph) = (((w as f32) * scale).ceil().max(1.0) as u32, ((h as f32) * scale).ceil().max(1.0) as u32);
    let mut canvas = Pixmap::new(pw, ph).ok_or_else(|| super::refused(&file, "cannot be drawn at this size"))?;
    canvas.fill(Color::from_rgba8(233, 228, 216, 255));
    let at = Transform::from_scale(scale, scale);
    if let Some(m) = &map {
        let paint = PixmapPaint { quality: FilterQuality::Bilinear, ..PixmapPaint::default() };
        canvas.draw_pixmap(0, 0, pixmap_of(m).as_ref(), &paint, at, None);
    }
    let cells = cells_in(grid, w, h);
    fog(&mut canvas, scene, &cells, gm, at);
    lines(&mut canvas, grid, &cells, scale, at);
    let mut legend = Vec::new();
    for (i, t) in scene.tokens.iter().enumerate() {
        let face =
            t.image.as_deref().and_then(picture).and_then(|b| decode(&file, &b).ok()).map(|(_, i)| i.into_rgba8());
        token(&mut canvas, grid, t, i, face.as_ref(), gm, scale);
        let hidden = if gm && t.unseen { " (players do not see it)" } else { "" };
        legend.push(format!("{} {}: column {}, row {}{hidden}", initials(&t.name), t.name, t.cell.0 + 1, t.cell.1 + 1));
    }
    let png = encode_png(&file, &rgba_of(&canvas))?;
    Ok(Drawn { png, width: pw, height: ph, legend })
}

/// The size drawn, in map pixels: the map picture, every token and revealed area, and a margin.
fn extent(scene: &SceneView, map: Option<(u32, u32)>) -> (f64, f64) {
    let grid = &scene.grid;
    let half = grid.size / 2.0;
    let corner = |c: Cell| {
        let (x, y) = grid.centre(c);
        (x + half * 1.2, y + half * 1.2)
    };
    let (mut w, mut h) = match map {
        Some((mw, mh)) => (f64::from(mw), f64::from(mh)),
        None => corner(Cell(MIN_CELLS.0 as i32 - 1, MIN_CELLS.1 as i32 - 1)),
    };
    let mut reach = |(x, y): (f64, f64)| {
        w = w.max(x);
        h = h.max(y);
    };
    for t in &scene.tokens {
        let n = t.size.clamp(1, MAX_CELLS) as i32 - 1;
        reach(corner(Cell(t.cell.0.saturating_add(n), t.cell.1.saturating_add(n))));
    }
    scene.fog.cells.iter().for_each(|c| reach(corner(*c)));
    scene.fog.polygons.iter().flatten().for_each(|p| reach(grid.to_pixels(*p)));
    let most = corner(Cell(MAX_CELLS as i32 - 1, MAX_CELLS as i32 - 1));
    (w.min(most.0).max(1.0), h.min(most.1).max(1.0))
}

/// Every cell whose centre lies within `w`×`h` map pixels (and one more row and column).
fn cells_in(grid: &Grid, w: f64, h: f64) -> Vec<Cell> {
    let row = match grid.kind {
        GridKind::Square => grid.size,
        GridKind::Hex => grid.size * 3f64.sqrt() / 2.0,
    };
    let rows = ((h / row).ceil() as u32 + 1).min(MAX_CELLS);
    let cols = ((w / grid.size).ceil() as u32 + 1).min(MAX_CELLS);
    (0..rows).flat_map(|y| (0..cols).map(move |x| Cell(x as i32, y as i32))).collect()
}

fn polygon(pb: &mut PathBuilder, points: &[(f64, f64)]) {
    let Some((first, rest)) = points.split_first() else { return };
    pb.move_to(first.0 as f32, first.1 as f32);
    rest.iter().for_each(|p| pb.line_to(p.0 as f32, p.1 as f32));
    pb.close();
}

fn paint(r: u8, g: u8, b: u8, a: u8) -> Paint<'static> {
    let mut p = Paint::default();
    p.set_color_rgba8(r, g, b, a);
    p.anti_alias = true;
    p
}

/// The cells the fog covers: opaque black for a player, a shade for the GM.
fn fog(canvas: &mut Pixmap, scene: &SceneView, cells: &[Cell], gm: bool, at: Transform) {
    if !scene.fog.on {
        return;
    }
    let mut pb = PathBuilder::new();
    for c in cells.iter().filter(|c| !scene.fog.is_revealed(&scene.grid, **c)) {
        polygon(&mut pb, &scene.grid.outline(*c));
    }
    if let Some(path) = pb.finish() {
        let mut shade = paint(0, 0, 0, if gm { 115 } else { 255 });
        // A player's dark is whole: no antialiased seam between two fogged cells lets light through.
        shade.anti_alias = gm;
        canvas.fill_path(&path, &shade, FillRule::Winding, at, None);
    }
}

/// The grid's lines, one pixel wide at any scale.
fn lines(canvas: &mut Pixmap, grid: &Grid, cells: &[Cell], scale: f32, at: Transform) {
    let mut pb = PathBuilder::new();
    cells.iter().for_each(|c| polygon(&mut pb, &grid.outline(*c)));
    if let Some(path) = pb.finish() {
        let stroke = Stroke { width: 1.0 / scale, ..Stroke::default() };
        canvas.stroke_path(&path, &paint(0, 0, 0, 70), &stroke, at, None);
    }
}

/// Where a token is drawn, in map pixels: on a square grid a token of size n covers the n×n
/// cells from its cell (its circle centred on that block); on a hex grid it is drawn n cells
/// across around its one cell. As the screen draws it.
pub fn circle(grid: &Grid, t: &TokenView) -> (f32, f32, f32) {
    let n = f64::from(t.size.max(1));
    let (x, y) = grid.centre(t.cell);
    let shift = if grid.kind == GridKind::Hex { 0.0 } else { (n - 1.0) * grid.size / 2.0 };
    let r = n * grid.size / 2.0 * 0.9;
    ((x + shift) as f32, (y + shift) as f32, r as f32)
}

/// Colours a token without a picture is drawn in, by its place on the scene.
const DISCS: [(u8, u8, u8); 6] =
    [(43, 87, 151), (150, 45, 62), (46, 117, 72), (121, 73, 153), (168, 95, 20), (40, 110, 120)];

fn token(canvas: &mut Pixmap, grid: &Grid, t: &TokenView, i: usize, face: Option<&RgbaImage>, gm: bool, scale: f32) {
    let (cx, cy, r) = circle(grid, t);
    let faded = gm && t.unseen;
    let Some(disc) = PathBuilder::from_circle(cx, cy, r) else { return };
    let at = Transform::from_scale(scale, scale);
    let opacity = if faded { 0.55 } else { 1.0 };
    let (dr, dg, db) = DISCS[i % DISCS.len()];
    canvas.fill_path(&disc, &paint(dr, dg, db, (255.0 * opacity) as u8), FillRule::Winding, at, None);
    match face {
        Some(img) => {
            let pic = pixmap_of(img);
            // Cover the circle's square with the picture, centred (the screen's "slice").
            let (iw, ih) = (img.width() as f32, img.height() as f32);
            let s = 2.0 * r / iw.min(ih);
            let place = Transform::from_row(s, 0.0, 0.0, s, cx - iw * s / 2.0, cy - ih * s / 2.0);
            let shader = Pattern::new(pic.as_ref(), SpreadMode::Pad, FilterQuality::Bilinear, opacity, place);
            let face = Paint { shader, anti_alias: true, ..Paint::default() };
            canvas.fill_path(&disc, &face, FillRule::Winding, at, None);
        }
        None => label(canvas, &initials(&t.name), cx * scale, cy * scale, r * scale),
    }
    let mut ring = Stroke { width: (grid.size as f32 * 0.06).max(1.0 / scale), ..Stroke::default() };
    if faded {
        ring.dash = StrokeDash::new(vec![r * 0.3, r * 0.2], 0.0);
    }
    canvas.stroke_path(&disc, &paint(20, 20, 20, 230), &ring, at, None);
}

/// Up to two capitals from a name: "Old Tom" → "OT" (as the screen labels a token).
pub fn initials(name: &str) -> String {
    name.split_whitespace().take(2).filter_map(|w| w.chars().next()).flat_map(char::to_uppercase).collect()
}

/// White letters centred at (`cx`, `cy`) in canvas pixels, about half the circle high, from an
/// 8×8 bitmap font (each lit bit a square; glyphs the font lacks are left out).
fn label(canvas: &mut Pixmap, text: &str, cx: f32, cy: f32, r: f32) {
    let glyphs: Vec<[u8; 8]> = text.chars().filter_map(|c| font8x8::BASIC_FONTS.get(c)).collect();
    if glyphs.is_empty() {
        return;
    }
    let k = (r * 0.9 / 8.0).floor().max(1.0);
    let (left, top) = (cx - glyphs.len() as f32 * 4.0 * k, cy - 4.0 * k);
    let white = paint(255, 255, 255, 255);
    for (g, rows) in glyphs.iter().enumerate() {
        for (y, bits) in rows.iter().enumerate() {
            for x in (0..8).filter(|x| bits & (1 << x) != 0) {
                let (px, py) = (left + (g * 8 + x) as f32 * k, top + y as f32 * k);
                if let Some(rect) = Rect::from_xywh(px, py, k, k) {
                    canvas.fill_rect(rect, &white, Transform::identity(), None);
                }
            }
        }
    }
}

/// A picture as a canvas (premultiplied, as the canvas keeps pixels).
fn pixmap_of(image: &RgbaImage) -> Pixmap {
    let mut data = image.as_raw().clone();
    for px in data.chunks_exact_mut(4) {
        let a = u16::from(px[3]);
        for c in &mut px[..3] {
            *c = ((u16::from(*c) * a + 127) / 255) as u8;
        }
    }
    let size = tiny_skia::IntSize::from_wh(image.width(), image.height()).expect("a decoded picture has a size");
    Pixmap::from_vec(data, size).expect("the data is the picture's size")
}

/// The canvas as a picture (straight alpha, as a PNG keeps it).
fn rgba_of(canvas: &Pixmap) -> RgbaImage {
    let data = canvas.pixels().iter().flat_map(|p| {
        let c = p.demultiply();
        [c.red(), c.green(), c.blue(), c.alpha()]
    });
    RgbaImage::from_raw(canvas.width(), canvas.height(), data.collect()).expect("the canvas's size")
}
