//! Engine benchmarks: the figures in docs/performance.md come from `cargo bench -p houserule-app`.
#![allow(clippy::print_stdout, reason = "a benchmark reports its figures")]

use criterion::{criterion_group, criterion_main, BatchSize, Criterion};
use houserule_app::request::ActRequest;
use houserule_app::{Campaign, NewCampaign};
use houserule_core::dice::{self, RollSource, SeededStream};
use houserule_core::{Limits, PluginSource, Role};
use serde_json::json;

/// Benchmarks run in a harness, which cannot be a sandbox worker: this crate's worker program is.
fn workers() {
    houserule_app::sandbox::use_program(std::path::PathBuf::from(env!("CARGO_BIN_EXE_houserule-sandbox")));
}
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

fn generic() -> PluginSource {
    houserule_app::folders::read_plugin(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("../../plugins/generic"),
        &Limits::default(),
    )
    .expect("the generic plugin")
}

fn new_campaign(path: Option<&Path>) -> Campaign {
    let source = generic();
    Campaign::create(
        path,
        NewCampaign {
            name: "bench".into(),
            ruleset: &source,
            settings: Default::default(),
            seed: Some(1),
            limits: Default::default(),
            house_rules: vec![],
        },
    )
    .expect("a campaign")
}

fn roll_pool(c: &mut Criterion) {
    let seed = [9u8; 32];
    let entropy = dice::Entropy([5u8; 32]);
    let expr = dice::parse("7d6cs>=4").unwrap();
    let mut counter = 0u64;
    c.bench_function("roll a 7d6 success pool (parse + roll)", |b| {
        b.iter(|| {
            counter += 1;
            let e = dice::parse("7d6cs>=4").unwrap();
            dice::roll(
                &e,
                &mut SeededStream::for_roll(&seed, counter, Some(&entropy)),
                RollSource::Generated { counter, entropy: Some(entropy) },
            )
            .unwrap()
        })
    });
    c.bench_function("roll a 7d6 success pool (roll only)", |b| {
        b.iter(|| {
            counter += 1;
            dice::roll(
                &expr,
                &mut SeededStream::for_roll(&seed, counter, Some(&entropy)),
                RollSource::Generated { counter, entropy: Some(entropy) },
            )
            .unwrap()
        })
    });
}

fn dispatch_action(c: &mut Criterion) {
    workers();
    let dir = tempfile::tempdir().unwrap();
    let mut campaign = new_campaign(Some(&dir.path().join("bench.houserule")));
    let make = json!({"name": "Gandolf", "owner": "ann", "traits": ["Magic!", "Fireball"]});
    campaign.act(&Role::Gm, &ActRequest::new("create_character", make.as_object().unwrap())).unwrap();
    let add = json!({"character": "gandolf", "trait": "Wizardry", "rating": 3});
    campaign.act(&Role::Gm, &ActRequest::new("add_trait", add.as_object().unwrap())).unwrap();
    let params = json!({"character": "gandolf", "trait": "Wizardry", "target": 12});
    let params = params.as_object().unwrap().clone();
    let ann = Role::Player("ann".into());
    let mut group = c.benchmark_group("scripted action end to end");
    group.sample_size(50).measurement_time(Duration::from_secs(15));
    group.bench_function("trait_roll: validate, run, commit to a file (synchronous=FULL)", |b| {
        b.iter(|| {
            campaign
                .act(&ann, &ActRequest::new("trait_roll", &params).with_entropy(Some(dice::Entropy::fresh())))
                .unwrap()
        })
    });
    let mut memory = new_campaign(None);
    memory.act(&Role::Gm, &ActRequest::new("create_character", make.as_object().unwrap())).unwrap();
    memory.act(&Role::Gm, &ActRequest::new("add_trait", add.as_object().unwrap())).unwrap();
    group.bench_function("trait_roll: validate, run, commit in memory", |b| {
        b.iter(|| {
            memory
                .act(&ann, &ActRequest::new("trait_roll", &params).with_entropy(Some(dice::Entropy::fresh())))
                .unwrap()
        })
    });
    group.finish();
    latency(&mut campaign, &ann, &params);
}

/// Every one of 5000 actions timed on its own, for the percentiles criterion does not report.
fn latency(campaign: &mut Campaign, role: &Role, params: &serde_json::Map<String, serde_json::Value>) {
    let mut times: Vec<Duration> = (0..5000)
        .map(|_| {
            let start = Instant::now();
            campaign
                .act(role, &ActRequest::new("trait_roll", params).with_entropy(Some(dice::Entropy::fresh())))
                .unwrap();
            start.elapsed()
        })
        .collect();
    times.sort();
    let at = |q: f64| times[((times.len() as f64 * q) as usize).min(times.len() - 1)];
    println!(
        "trait_roll to a file over {} actions: p50 {:?}, p95 {:?}, p99 {:?}, max {:?}",
        times.len(),
        at(0.50),
        at(0.95),
        at(0.99),
        times[times.len() - 1]
    );
}

/// A campaign file with `n` events, built once and kept under target/ between runs.
fn big_campaign(n: u64) -> PathBuf {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../target/bench-data");
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(format!("campaign-{n}.houserule"));
    if Campaign::open(&path).map(|c| c.info().events >= n).unwrap_or(false) {
        return path;
    }
    for suffix in ["", "-wal", "-shm"] {
        let _ = std::fs::remove_file(format!("{}{suffix}", path.display()));
    }
    let mut c = new_campaign(Some(&path));
    c.store().connection().pragma_update(None, "synchronous", "OFF").unwrap();
    let make = json!({"name": "Gandolf", "owner": "ann", "traits": ["Magic!", "Fireball"]});
    c.act(&Role::Gm, &ActRequest::new("create_character", make.as_object().unwrap())).unwrap();
    let roll = json!({"expr": "3d6", "label": "filler"});
    let roll = roll.as_object().unwrap().clone();
    while c.info().events < n {
        c.act(&Role::Player("ann".into()), &ActRequest::new("roll", &roll)).unwrap();
    }
    path
}

fn open_large(c: &mut Criterion) {
    workers();
    let path = big_campaign(100_000);
    let mut group = c.benchmark_group("open a campaign");
    group.sample_size(10).measurement_time(Duration::from_secs(30));
    group.bench_function("open a 100k-event campaign (checks, rules, snapshot, fold)", |b| {
        b.iter_batched(|| (), |_| Campaign::open(&path).unwrap(), BatchSize::PerIteration)
    });
    group.finish();
}

/// Fumbles challenge rolls through `simulate`, shared by a worker per core (the lab's speed):
/// Gandolf alone, three attack and three defense traits, against a goblin war band.
fn simulate_challenge_rolls(c: &mut Criterion) {
    workers();
    let fumbles = houserule_app::folders::read_plugin(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("../../plugins/fumbles"),
        &Limits::default(),
    )
    .expect("the fumbles plugin");
    let mut campaign = Campaign::create(
        None,
        NewCampaign {
            name: "bench".into(),
            ruleset: &fumbles,
            settings: Default::default(),
            seed: Some(1),
            limits: Default::default(),
            house_rules: vec![],
        },
    )
    .expect("a campaign");
    let gm = Role::Gm;
    let setup = [
        (
            "create_character",
            json!({"name": "Gandolf", "owner": "ann", "traits": ["Magic!", "Barrier", "Fireball", "Levitate", "Scorching Hellfire", "pyromaniac"]}),
        ),
        ("start_challenge", json!({"name": "Goblin war band", "cr": 6, "toughness": 2, "smash": 1})),
    ];
    for (action, params) in setup {
        campaign.act(&gm, &ActRequest::new(action, params.as_object().unwrap())).expect("set-up");
    }
    let roll = json!({"character": "gandolf", "attack": ["Fireball", "Scorching Hellfire", "pyromaniac"], "defense": ["Levitate", "Magic!", "Barrier"]});
    let ann = Role::Player("ann".into());
    const RUNS: u64 = 20_000;
    let mut group = c.benchmark_group("simulate");
    group.sample_size(10).throughput(criterion::Throughput::Elements(RUNS));
    group.bench_function("20000 Fumbles challenge rolls, a worker per core", |b| {
        b.iter(|| {
            let mut n = 0;
            campaign
                .simulate(&ann, "challenge_roll", roll.as_object().unwrap(), 7, RUNS, |batch| n += batch.len())
                .unwrap();
            assert_eq!(n as u64, RUNS);
        })
    });
    group.finish();

    // The balance lab: whole challenges played to the end by the Fumbles policy, from the same
    // table (Gandolf's six traits against the war band).
    let setups = campaign.lab_setups();
    const LAB_RUNS: u64 = 1_000;
    let never = std::sync::atomic::AtomicBool::new(false);
    let mut group = c.benchmark_group("lab");
    group.sample_size(10).throughput(criterion::Throughput::Elements(LAB_RUNS));
    group.bench_function("1000 Fumbles challenges played to the end, a worker per core", |b| {
        b.iter(|| {
            let played =
                houserule_app::lab::play(&setups, houserule_core::dice::seed_from_number(3), LAB_RUNS, &never, |_| {})
                    .unwrap();
            assert_eq!(played[0].len() as u64, LAB_RUNS);
        })
    });
    group.finish();
}

criterion_group!(benches, roll_pool, dispatch_action, open_large, simulate_challenge_rolls);
criterion_main!(benches);
