//! Sharing and play-by-post: share, reveal, post, info.

use super::{role, Outcome};
use crate::output::{self, Failure, Info, Posted};
use crate::rulesets;
use houserule_app::campaign::pictures::scene_picture;
use houserule_app::share::{share as write_copy, ShareError, SharedCopy};
use houserule_app::{Campaign, CampaignError};
use houserule_core::event::EventKind;
use houserule_core::post::{post as render_post, PostFormat};
use houserule_core::{render, ErrorCode, Role};
use std::path::Path;

fn share_failure(e: ShareError) -> Failure {
    match e {
        ShareError::Campaign(c) => Failure::from(c),
        other => Failure::new(ErrorCode::Io, other.to_string()),
    }
}

pub fn share(json: bool, file: &Path, out: &Path, for_role: Option<&str>) -> Outcome {
    let for_role = for_role.map(role).transpose()?;
    if matches!(for_role, Some(Role::Gm) | Some(Role::Public)) {
        return Err(Failure::new(ErrorCode::BadRequest, "--for takes player:NAME (leave it out for a full copy)"));
    }
    let report = write_copy(file, out, for_role.as_ref()).map_err(share_failure)?;
    if json {
        output::json(&report);
    } else {
        match &report.for_role {
            Some(r) => crate::say!(
                "wrote {} for {r}: {} events, head {}; {} item(s) {r} may not see are left out, their digests kept so the copy verifies",
                report.path.display(),
                report.events,
                &report.head[..16],
                report.redacted_items
            ),
            None => crate::say!("wrote {}: the full campaign in one file, {} events, head {}", report.path.display(), report.events, &report.head[..16]),
        }
    }
    Ok(true)
}

pub fn reveal(json: bool, file: &Path) -> Outcome {
    let mut c = Campaign::open(file)?;
    let entry = c.reveal(&Role::Gm)?;
    if json {
        output::json(&entry);
    } else {
        output::entry(&entry);
        let d = entry.detail.clone().unwrap_or_default();
        crate::say!("revealed seed: {}", render::value(&d["revealed_seed"]));
        crate::say!("new seed commitment: {}", render::value(&d["seed_commitment"]));
        crate::say!("Anyone with the log can now check every roll so far: houserule verify {}", file.display());
    }
    Ok(true)
}

/// A post for a forum; with `map`, the public's drawing of the shown scene attached.
pub fn post(json: bool, file: &Path, event: Option<u64>, format: &str, map: Option<&Path>) -> Outcome {
    let format = PostFormat::parse(format).ok_or_else(|| {
        Failure::new(ErrorCode::BadParam, format!("--format '{format}': use markdown, bbcode or text"))
    })?;
    let (info, entries, campaign) = match Campaign::open(file) {
        Ok(c) => (c.info(), c.log(&Role::Public, 1)?, Some(c)),
        Err(CampaignError::PlayerCopy { .. }) => {
            let copy = SharedCopy::open(file).map_err(share_failure)?;
            (copy.info().clone(), copy.log(1).map_err(share_failure)?, None)
        }
        Err(e) => return Err(e.into()),
    };
    let entry = match event {
        Some(n) => entries
            .iter()
            .find(|e| e.seq == n)
            .ok_or_else(|| Failure::new(ErrorCode::BadRequest, format!("{} has no event {n}", file.display())))?,
        None => entries
            .iter()
            .rev()
            .find(|e| matches!(e.kind, EventKind::Action | EventKind::Post) && !e.items.is_empty())
            .ok_or_else(|| {
                Failure::new(ErrorCode::BadRequest, format!("{} has no action or post yet", file.display()))
            })?,
    };
    let mut text = render_post(entry, &info, &file.display().to_string(), format);
    if let Some(out) = map {
        let c = campaign.as_ref().ok_or_else(|| {
            let why = "--map: a player's copy holds that player's view, not the public's; attach the map from the campaign file";
            Failure::new(ErrorCode::BadParam, why)
        })?;
        text.push_str(&attach_map(c, out, format)?);
    }
    if json {
        output::json(&Posted { post: text, event: entry.clone() });
    } else {
        output::lines(text.lines());
    }
    Ok(true)
}

/// Writes the scene shown to the players, drawn as the public sees it (the fog black, no
/// hidden token), to `out`, and answers the lines that attach it to the post: the picture by
/// its file name (upload it beside the post) and a line per token.
fn attach_map(c: &Campaign, out: &Path, format: PostFormat) -> Result<String, Failure> {
    let drawn = scene_picture(c.table(), c.store(), &Role::Public)
        .map_err(|e| Failure::new(ErrorCode::BadFile, e.to_string()))?
        .ok_or_else(|| Failure::new(ErrorCode::BadParam, "--map: no scene is shown to the players"))?;
    let (scene, d) = drawn;
    std::fs::write(out, &d.png).map_err(|e| Failure::new(ErrorCode::Io, format!("{}: {e}", out.display())))?;
    let name = out.file_name().map_or_else(|| out.display().to_string(), |n| n.to_string_lossy().to_string());
    let picture = match format {
        PostFormat::Markdown => format!("![Map: {scene}]({name})"),
        PostFormat::Bbcode => format!("[img]{name}[/img]"),
        _ => format!("Map: {scene} ({name})"),
    };
    let tokens = match format {
        PostFormat::Bbcode => {
            let items: String = d.legend.iter().map(|l| format!("[*]{l}\n")).collect();
            format!("[list]\n{items}[/list]")
        }
        _ => d.legend.iter().map(|l| format!("- {l}")).collect::<Vec<_>>().join("\n"),
    };
    Ok(format!("\n\n{picture}\n{tokens}\n"))
}

pub fn info(json: bool, file: &Path) -> Outcome {
    let (campaign, copy_for, house_rules, digest) = match Campaign::open(file) {
        Ok(c) => {
            let house = c.house_rules()?.files().len();
            (c.info(), None, house, c.rules().source.digest())
        }
        Err(CampaignError::PlayerCopy { for_role }) => {
            let copy = SharedCopy::open(file).map_err(share_failure)?;
            (copy.info().clone(), Some(for_role), 0, String::new())
        }
        Err(e) => return Err(e.into()),
    };
    let catalog = rulesets::catalog();
    let note = match catalog.get(&campaign.ruleset.id) {
        None => format!("Houserule has no ruleset '{}' of its own: this campaign plays by the copy it carries.", campaign.ruleset.id),
        Some(r) if r.version != campaign.ruleset.version => format!(
            "This campaign keeps its own copy of {} {} (Houserule bundles {}): it plays by its pinned copy.",
            campaign.ruleset.name, campaign.ruleset.version, r.version
        ),
        Some(r) if !digest.is_empty() && r.source.digest() != digest => format!(
            "This campaign's copy of {} {} differs from the one Houserule has (it was edited): it plays by its own copy.",
            campaign.ruleset.name, campaign.ruleset.version
        ),
        Some(_) => format!("{} {} — the same rules Houserule has.", campaign.ruleset.name, campaign.ruleset.version),
    };
    let out = Info { campaign, ruleset_note: note, house_rules, copy_for };
    if json {
        output::json(&out);
    } else {
        crate::say!(
            "{} — campaign {}, {} events, head {}",
            out.campaign.name,
            out.campaign.id,
            out.campaign.events,
            &out.campaign.head[..16]
        );
        crate::say!("{}", out.ruleset_note);
        if out.house_rules > 0 {
            crate::say!("{} house-rule file(s): houserule house-rules list {}", out.house_rules, file.display());
        }
        if let Some(r) = &out.copy_for {
            crate::say!("This is {r}'s copy: it can be viewed and verified, not played.");
        }
        crate::say!("dice seed commitment: {}", out.campaign.seed_commitment);
    }
    Ok(true)
}
