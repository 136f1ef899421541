//! The map's benchmarks (issue 32, point 8, in part): the figures in docs/performance.md come
//! from `cargo bench -p houserule-app --bench scene`. A scene of 200 tokens under fog, a GM and
//! six players: a token's move committed to a campaign file, then the view every one of the seven
//! would be sent (what "every client redrawn" costs the GM's machine), the ruler's measure, and
//! masking a fogged 4096×4096 map picture for one viewer.
#![allow(clippy::print_stdout, reason = "a benchmark reports its figures")]

use criterion::{criterion_group, criterion_main, Criterion};
use houserule_app::campaign::SceneOp;
use houserule_app::request::ActRequest;
use houserule_app::{Campaign, NewCampaign};
use houserule_core::scene::grid::{Cell, Grid};
use houserule_core::{Limits, Role};
use serde_json::json;
use std::path::Path;
use std::time::{Duration, Instant};

const PLAYERS: [&str; 6] = ["ann", "bo", "cy", "dee", "eve", "fay"];
const TOKENS: i32 = 200;

fn workers() {
    houserule_app::sandbox::use_program(std::path::PathBuf::from(env!("CARGO_BIN_EXE_houserule-sandbox")));
}

/// A campaign file with six players' characters and a shown, fogged scene of 200 tokens.
fn table(dir: &Path) -> Campaign {
    let source = houserule_app::folders::read_plugin(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("../../plugins/generic"),
        &Limits::default(),
    )
    .expect("the generic plugin");
    let new = NewCampaign {
        name: "map".into(),
        ruleset: &source,
        settings: Default::default(),
        seed: Some(1),
        limits: Default::default(),
        house_rules: vec![],
    };
    let mut c = Campaign::create(Some(&dir.join("map.houserule")), new).expect("a campaign");
    let gm = Role::Gm;
    let op = |v: serde_json::Value| serde_json::from_value::<SceneOp>(v).expect("an operation");
    c.scene(&gm, op(json!({"op": "create", "id": "hall", "name": "Hall"}))).unwrap();
    c.scene(&gm, op(json!({"op": "show", "id": "hall"}))).unwrap();
    for (i, p) in PLAYERS.iter().enumerate() {
        let params = serde_json::from_value(json!({"name": format!("Hero {p}"), "owner": p})).unwrap();
        c.act(&gm, &ActRequest::new("create_character", &params)).unwrap();
        let place = json!({"op": "place", "scene": "hall", "id": format!("t{p}"), "entity": format!("hero_{p}"), "cell": [i, 0]});
        c.scene(&gm, op(place)).unwrap();
    }
    for i in PLAYERS.len() as i32..TOKENS {
        let place = json!({"op": "place", "scene": "hall", "id": format!("m{i}"), "label": "Crate", "cell": [i % 40, i / 40 + 2], "hidden": i % 7 == 0});
        c.scene(&gm, op(place)).unwrap();
    }
    let reveal: Vec<[i32; 2]> = (0..40).flat_map(|x| (0..4).map(move |y| [x, y])).collect();
    c.scene(&gm, op(json!({"op": "fog", "scene": "hall", "on": true, "reveal": reveal}))).unwrap();
    c
}

/// One move and the seven views it is followed by.
fn move_and_redraw(c: &mut Campaign, step: i32) {
    let at = c.table().scenes.find_token("tann").map(|(_, _, t)| t.cell).expect("ann's token");
    let to = if at == Cell(0, 0) { Cell(1 + step % 5, 1) } else { Cell(0, 0) };
    c.move_token(&Role::Player("ann".into()), "tann", vec![at, to]).expect("the move");
    std::hint::black_box(c.view(&Role::Gm));
    for p in PLAYERS {
        std::hint::black_box(c.view(&Role::Player(p.into())));
    }
}

fn moves(crit: &mut Criterion) {
    workers();
    let dir = tempfile::tempdir().unwrap();
    let mut c = table(dir.path());
    let mut step = 0;
    crit.bench_function("a token's move to a file, then the 7 views (200 tokens, fog)", |b| {
        b.iter(|| {
            step += 1;
            move_and_redraw(&mut c, step)
        })
    });
    let mut times: Vec<Duration> = (0..2000)
        .map(|i| {
            let start = Instant::now();
            move_and_redraw(&mut c, i);
            start.elapsed()
        })
        .collect();
    times.sort();
    let at = |q: f64| times[((times.len() as f64 * q) as usize).min(times.len() - 1)];
    println!(
        "move + 7 views over {} moves ({} events in the file at the end): p50 {:?}, p95 {:?}, p99 {:?}, max {:?}",
        times.len(),
        c.head().0,
        at(0.50),
        at(0.95),
        at(0.99),
        times[times.len() - 1]
    );
}

fn ruler(crit: &mut Criterion) {
    let grid = Grid::default();
    let path: Vec<Cell> = (0..20).map(|i| Cell(i, i / 3)).collect();
    crit.bench_function("the ruler: a 20-cell path's length and straightness", |b| {
        b.iter(|| std::hint::black_box((grid.path_length(&path), grid.is_straight(&path))))
    });
}

/// A 4096×4096 map (a tiled floor, so it compresses as a real map does, not as a flat colour).
fn big_map() -> Vec<u8> {
    let img = image::RgbaImage::from_fn(4096, 4096, |x, y| {
        let tile = ((x / 64) + (y / 64)) % 2 == 0;
        let grain = ((x * 7 + y * 13) % 23) as u8;
        if tile {
            image::Rgba([150 + grain, 130, 100, 255])
        } else {
            image::Rgba([90, 100 + grain, 80, 255])
        }
    });
    let mut out = std::io::Cursor::new(Vec::new());
    img.write_to(&mut out, image::ImageFormat::Png).expect("the map encodes");
    out.into_inner()
}

/// Masking a fogged 4096×4096 map for one viewer: a 64-pixel grid with a quarter of its cells
/// revealed (1024 cells, the party's explored rooms) and one revealed polygon; the picture is
/// decoded, every fogged pixel blacked out and the result written as a PNG, as the `picture`
/// call does once per fog change and viewer.
fn masking(crit: &mut Criterion) {
    use houserule_core::scene::fog::Fog;
    use houserule_core::scene::grid::{GridKind, Measure, Unit};
    let bytes = big_map();
    let grid = Grid {
        kind: GridKind::Square,
        size: 64.0,
        unit: Unit { name: "square".into(), per_cell: 1.0 },
        measure: Measure::Chebyshev,
    };
    let mut fog = Fog { on: true, ..Fog::default() };
    fog.cells.extend((0..64).flat_map(|x| (0..16).map(move |y| Cell(x, y * 4 + x % 4))));
    fog.polygons.push(vec![(10.0, 10.0), (30.5, 12.0), (28.0, 40.0), (12.0, 35.5)]);
    let revealed = fog.revealed_polygons(&grid);
    let mut group = crit.benchmark_group("masking a fogged 4096×4096 map");
    group.sample_size(10);
    group.bench_function("decode, black out the fog, encode (one viewer)", |b| {
        b.iter(|| std::hint::black_box(houserule_app::pictures::mask("map.png", &bytes, &revealed).expect("masked")))
    });
    let rgba = image::load_from_memory(&bytes).expect("decoded").into_rgba8();
    group.bench_function("black out the fog alone", |b| {
        b.iter(|| {
            let mut img = rgba.clone();
            houserule_app::pictures::black_out(&mut img, &revealed);
            std::hint::black_box(img)
        })
    });
    group.finish();
}

criterion_group!(benches, moves, ruler, masking);
criterion_main!(benches);
