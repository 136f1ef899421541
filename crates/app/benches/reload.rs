//! Save-to-live latency of a rule edit: a GM saves a file in a watched ruleset folder; how long
//! until the rules in force are the new ones? Run with `cargo bench -p houserule-app --bench
//! reload`; criterion reports its estimate, and the run prints the median and 95th percentile
//! of every edit it timed (docs/performance.md).
#![allow(clippy::print_stdout, reason = "a benchmark reports its figures")]

use criterion::{criterion_group, criterion_main, Criterion};
use houserule_app::request::ActRequest;
use houserule_app::session::{RuleFolders, Session, SessionEvent};
use houserule_app::{Campaign, NewCampaign};
use houserule_core::{Limits, Role};
use serde_json::json;

/// Benchmarks run in a harness, which cannot be a sandbox worker: this crate's worker program is.
fn workers() {
    houserule_app::sandbox::use_program(std::path::PathBuf::from(env!("CARGO_BIN_EXE_houserule-sandbox")));
}
use std::path::Path;
use std::time::{Duration, Instant};

fn save_to_live(crit: &mut Criterion) {
    workers();
    let dir = tempfile::tempdir().unwrap();
    let plugin_dir = dir.path().join("fumbles");
    std::fs::create_dir_all(&plugin_dir).unwrap();
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../plugins/fumbles");
    for entry in std::fs::read_dir(&src).unwrap() {
        let p = entry.unwrap().path();
        if p.is_file() {
            std::fs::copy(&p, plugin_dir.join(p.file_name().unwrap())).unwrap();
        }
    }
    let source = houserule_app::folders::read_plugin(&plugin_dir, &Limits::default()).unwrap();
    let c = Campaign::create(
        Some(&dir.path().join("bench.houserule")),
        NewCampaign {
            name: "bench".into(),
            ruleset: &source,
            settings: Default::default(),
            seed: Some(1),
            limits: Default::default(),
            house_rules: vec![],
        },
    )
    .unwrap();
    let session = Session::new(c);
    let events = session.subscribe();
    session
        .watch(RuleFolders { ruleset: Some(plugin_dir.clone()), house: None }, houserule_app::watch::DEBOUNCE)
        .unwrap();
    let boss = plugin_dir.join("boss.rhai");
    let original = std::fs::read_to_string(&boss).unwrap();
    let mut latencies: Vec<Duration> = Vec::new();
    let mut edit = 0usize;
    let mut group = crit.benchmark_group("hot reload");
    group.sample_size(10).measurement_time(Duration::from_secs(20)).warm_up_time(Duration::from_secs(1));
    group.bench_function("save a Boss ability cost until the new rule is live", |b| {
        b.iter_custom(|iters| {
            let mut total = Duration::ZERO;
            for _ in 0..iters {
                edit += 1;
                let text = original.replacen(
                    "fn afflict_cost() { 1 }",
                    &format!("fn afflict_cost() {{ {} }}", 2 + edit % 7),
                    1,
                );
                let saved = Instant::now();
                std::fs::write(&boss, text).unwrap();
                loop {
                    match events.recv_timeout(Duration::from_secs(10)).expect("a reload within 10 s") {
                        SessionEvent::Reloaded { .. } => break,
                        SessionEvent::ReloadFailed { problems } => panic!("{problems:?}"),
                        _ => {}
                    }
                }
                let took = saved.elapsed();
                total += took;
                latencies.push(took);
                // The table keeps playing between edits.
                session
                    .act(
                        &Role::Gm,
                        &ActRequest::new(
                            "create_character",
                            json!({"name": format!("Hero {edit}"), "traits": ["luck"]}).as_object().unwrap(),
                        ),
                    )
                    .unwrap();
            }
            total
        })
    });
    group.finish();
    latencies.sort();
    let n = latencies.len();
    let ms = |d: Duration| d.as_secs_f64() * 1000.0;
    println!(
        "save-to-live latency over {n} edits of a Fumbles Boss ability cost (debounce {} ms):",
        houserule_app::watch::DEBOUNCE.as_millis()
    );
    println!(
        "  min {:.1} ms, median {:.1} ms, p95 {:.1} ms, max {:.1} ms",
        ms(latencies[0]),
        ms(latencies[n / 2]),
        ms(latencies[(n * 95).div_ceil(100) - 1]),
        ms(latencies[n - 1])
    );
}

criterion_group!(benches, save_to_live);
criterion_main!(benches);
