//! Campaign commands: rulesets, new, actions, act, view, log, verify.

use super::{key_values, role, Outcome};
use crate::output::{self, Created, Failure};
use crate::rulesets;
use houserule_app::request::ActRequest;
use houserule_app::store::Store;
use houserule_app::verify as verification;
use houserule_app::{Campaign, CampaignError, NewCampaign};
use houserule_core::dice::{Entropy, Forced};
use houserule_core::view::View;
use houserule_core::{render, ErrorCode, Role};
use std::path::Path;

pub fn rulesets(json: bool) -> Outcome {
    let catalog = rulesets::catalog();
    if json {
        output::json(&catalog.rulesets);
    } else {
        for r in &catalog.rulesets {
            let from = match &r.location {
                houserule_app::catalog::Location::Folder(p) => p.display().to_string(),
                houserule_app::catalog::Location::BuiltIn => "built in".into(),
            };
            crate::say!("{:<18} {:<36} {:<8} {from}", r.id, r.name, r.version);
        }
        for (dir, why) in &catalog.skipped {
            crate::note!("skipped {}: {why}", dir.display());
        }
    }
    Ok(true)
}

pub fn open(file: &Path) -> Result<Campaign, Failure> {
    Campaign::open(file).map_err(Failure::from)
}

pub fn new(
    json: bool,
    file: &Path,
    ruleset: &str,
    seed: Option<u64>,
    settings: &[String],
    name: Option<String>,
) -> Outcome {
    let catalog = rulesets::catalog();
    let r = catalog.get(ruleset).ok_or_else(|| {
        let ids: Vec<&str> = catalog.rulesets.iter().map(|r| r.id.as_str()).collect();
        Failure::new(
            ErrorCode::UnknownRuleset,
            format!("there is no ruleset '{ruleset}' (rulesets: {})", ids.join(", ")),
        )
    })?;
    let settings = key_values(settings, "--set")?.into_iter().collect();
    let name = name.unwrap_or_else(|| file.file_stem().map(|s| s.to_string_lossy().to_string()).unwrap_or_default());
    let c = Campaign::create(
        Some(file),
        NewCampaign { name, ruleset: &r.source, settings, seed, limits: Default::default(), house_rules: vec![] },
    )?;
    if json {
        output::json(&Created { path: file.to_path_buf(), campaign: c.info() });
    } else {
        let info = c.info();
        crate::say!("created {} — {} on {} {}", file.display(), info.name, info.ruleset.name, info.ruleset.version);
        crate::say!("dice seed commitment: {}", info.seed_commitment);
        for (k, v) in &c.table().settings {
            crate::say!("  {k} = {}", render::value(v));
        }
    }
    Ok(true)
}

pub fn actions(json: bool, file: &Path, who: &str) -> Outcome {
    let c = open(file)?;
    let forms = c.actions(&role(who)?);
    if json {
        output::json(&forms);
        return Ok(true);
    }
    for line in render::action_lines(&forms, "--param ") {
        crate::say!("{line}");
    }
    Ok(true)
}

pub fn act(json: bool, file: &Path, action: &str, who: &str, params: &[String], dice: Option<&str>) -> Outcome {
    let mut c = open(file)?;
    let raw = key_values(params, "--param")?;
    let forced = match dice {
        Some(d) => Some(Forced::parse_list(d).map_err(|e| Failure::new(ErrorCode::Dice, format!("--dice: {e}")))?),
        None => None,
    };
    // The OS's fresh entropy goes into every roll, so holding the seed is not knowing the dice.
    let out =
        c.act(&role(who)?, &ActRequest::new(action, &raw).with_dice(forced).with_entropy(Some(Entropy::fresh())))?;
    if json {
        output::json(&out);
    } else {
        output::entry(&out.event);
        for line in &out.script_log {
            crate::say!("  [script] {line}");
        }
    }
    Ok(true)
}

/// A campaign file opened once: the GM's file, or a player's copy (which shows only its
/// player's view, to that player or the GM).
enum Opened {
    Campaign(Box<Campaign>),
    Copy(Box<houserule_app::share::SharedCopy>),
}

fn open_for(file: &Path, who: &str) -> Result<Opened, Failure> {
    match Campaign::open(file) {
        Ok(c) => Ok(Opened::Campaign(Box::new(c))),
        Err(CampaignError::PlayerCopy { for_role }) => {
            let asked = role(who)?;
            if asked != Role::Gm && asked.to_string() != for_role {
                return Err(Failure::new(
                    ErrorCode::PlayerCopy,
                    format!("this is {for_role}'s copy: it shows only what {for_role} may see"),
                ));
            }
            houserule_app::share::SharedCopy::open(file)
                .map(|copy| Opened::Copy(Box::new(copy)))
                .map_err(|e| Failure::new(ErrorCode::BadFile, e.to_string()))
        }
        Err(e) => Err(e.into()),
    }
}

pub fn view(json: bool, file: &Path, who: &str) -> Outcome {
    let v = match open_for(file, who)? {
        Opened::Copy(copy) => copy.view().clone(),
        Opened::Campaign(c) => c.view(&role(who)?),
    };
    if json {
        output::json(&v);
    } else {
        print_view(&v);
    }
    Ok(true)
}

/// Whether event `seq` has the given hash (at least 12 hex digits of it).
fn event_check(store: &Store, seq: u64, hash: &str) -> verification::Check {
    let hash = hash.trim().to_ascii_lowercase();
    let fail = |detail: String| verification::Check { name: "event".into(), ok: false, detail, event: Some(seq) };
    if hash.len() < 12 || !hash.chars().all(|c| c.is_ascii_hexdigit()) {
        return fail("a hash of at least 12 hex digits is needed".into());
    }
    match store.event(seq) {
        Ok(Some(row)) if hex::encode(&row.hash).starts_with(&hash) => verification::Check {
            name: "event".into(),
            ok: true,
            detail: format!("event {seq} has hash {}; the chain above checks it", hex::encode(&row.hash)),
            event: Some(seq),
        },
        Ok(Some(row)) => fail(format!(
            "event {seq} has hash {}, not {hash}: the post does not match this campaign",
            hex::encode(&row.hash)
        )),
        Ok(None) => fail(format!("the file has no event {seq}")),
        Err(e) => fail(e.to_string()),
    }
}

/// The view with every field the file has (the GM's command line hides nothing the viewer may see).
fn print_view(v: &View) {
    for line in render::view_lines(v, None) {
        crate::say!("{line}");
    }
}

/// Which part of the log to print: from event `from` on, or (with `before` or `limit`) the
/// newest `limit` events before `before`.
pub struct LogRange {
    pub from: u64,
    pub before: Option<u64>,
    pub limit: Option<usize>,
}

pub fn log(json: bool, file: &Path, who: &str, range: LogRange) -> Outcome {
    let print = output::entry;
    let paged = range.before.is_some() || range.limit.is_some();
    match open_for(file, who)? {
        Opened::Copy(copy) => {
            let mut entries = copy.log(range.from).map_err(|e| Failure::new(ErrorCode::BadFile, e.to_string()))?;
            entries.retain(|e| range.before.is_none_or(|b| e.seq < b));
            if let Some(limit) = range.limit {
                entries.drain(..entries.len().saturating_sub(limit));
            }
            if json {
                output::json(&entries);
            } else {
                entries.iter().for_each(print);
            }
        }
        Opened::Campaign(c) if paged => {
            let entries = c.log_page(
                &role(who)?,
                range.from,
                range.before.unwrap_or(u64::MAX),
                range.limit.unwrap_or(usize::MAX),
            )?;
            if json {
                output::json(&entries);
            } else {
                entries.iter().for_each(print);
            }
        }
        // The whole log streams: one entry at a time, however long it is.
        Opened::Campaign(c) => {
            let viewer = role(who)?;
            if json {
                output::json_list(|push| {
                    c.each_log_entry(&viewer, range.from, |e| {
                        push(&e);
                        Ok(())
                    })
                })?;
            } else {
                c.each_log_entry(&viewer, range.from, |e| {
                    print(&e);
                    Ok(())
                })?;
            }
        }
    }
    Ok(true)
}

pub fn verify(json: bool, file: &Path, event: Option<(u64, String)>, against: Option<&Path>) -> Outcome {
    // Only the store is opened: a file whose rules no longer load can still be verified.
    let store = match Store::open(file) {
        Ok(s) => s,
        Err(e) => {
            let report = verification::unopened(&e);
            if json {
                output::json(&report);
            } else {
                crate::say!("FAILED {}: {e}", report.checks[0].name);
            }
            return Ok(false);
        }
    };
    let mut report = verification::verify(&store, &verification::own_seeds(&store));
    if let Some((seq, hash)) = event {
        report.checks.push(event_check(&store, seq, &hash));
    }
    if let Some(full) = against {
        report.checks.push(match Store::open(full) {
            Ok(full) => houserule_app::share::compare(&store, &full),
            Err(e) => verification::Check { name: "against".into(), ok: false, detail: e.to_string(), event: None },
        });
    }
    report.ok = report.checks.iter().all(|c| c.ok);
    if json {
        output::json(&report);
    } else {
        for c in &report.checks {
            crate::say!("{} {:<9} {}", if c.ok { "ok    " } else { "FAILED" }, c.name, c.detail);
        }
        crate::say!(
            "{}: {} events, head {}",
            if report.ok { "verified" } else { "NOT verified" },
            report.events,
            report.head
        );
    }
    Ok(report.ok)
}
