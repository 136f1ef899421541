//! `houserule`: play a campaign from the command line, check and test rule plugins, and verify
//! campaign files. Every command that prints results takes `--json`; the shapes are in
//! `schemas/`. Exit status: 0 on success, 1 when the command failed (a refused action, a plugin
//! with errors, a file that does not verify), 2 for a malformed command line.

mod commands;
mod output;
mod rulesets;
mod typescript;

use clap::{Parser, Subcommand};
use output::{Failed, Failure};
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(Parser)]
#[command(
    name = "houserule",
    version,
    about = "A virtual tabletop whose rules are scripts you can change mid-session."
)]
struct Cli {
    /// Print machine-readable JSON (shapes in schemas/).
    #[arg(long, global = true)]
    json: bool,
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum HouseRulesCommand {
    /// List the house-rule files and the functions they replace or add.
    List { file: PathBuf },
    /// Write the house rules to DIR for editing.
    Export { file: PathBuf, dir: PathBuf },
    /// Make DIR's *.rhai and settings.toml the campaign's house rules (checked first).
    Import { file: PathBuf, dir: PathBuf },
    /// Remove one house-rule file.
    Remove { file: PathBuf, name: String },
}

/// `houserule matrix …`.
#[cfg(feature = "matrix")]
#[derive(Subcommand)]
enum MatrixCommand {
    /// Link the campaign to a Matrix room as the GM's account (made for it, or --room): the
    /// password comes from HOUSERULE_MATRIX_PASSWORD or is asked for (or an access token from
    /// HOUSERULE_MATRIX_TOKEN); the session is kept in your configuration folder, never in the
    /// campaign file.
    Link {
        file: PathBuf,
        /// The homeserver's address, e.g. https://matrix.example.org.
        #[arg(long)]
        homeserver: String,
        /// The GM's account, e.g. @gm:example.org: the referee speaks as it.
        #[arg(long)]
        user: String,
        /// Play in this existing room (its id, !…:server) instead of a new one.
        #[arg(long)]
        room: Option<String>,
    },
    /// Seat a Matrix account as a player: it is invited to the room, and to a direct room for
    /// what only that player may see (a player's older account loses the seat).
    Invite {
        file: PathBuf,
        /// The account, e.g. @ann:example.org.
        user: String,
        /// The player it plays as.
        #[arg(long = "as")]
        player: String,
    },
    /// Referee the campaign in its room: answer `!hr` commands, post every event, send what
    /// only one player may see to that player privately. Runs until stopped.
    Run {
        file: PathBuf,
        /// Answer what is waiting, post what is new, and end.
        #[arg(long)]
        once: bool,
    },
}

#[derive(Subcommand)]
enum Command {
    /// List the rulesets you can start a campaign on.
    Rulesets,
    /// Create a campaign file on a ruleset.
    New {
        file: PathBuf,
        #[arg(long)]
        ruleset: String,
        /// A fixed dice seed (for reproducible play); by default the seed is random.
        #[arg(long)]
        seed: Option<u64>,
        /// Change a ruleset setting, e.g. --set mad=6 (repeatable).
        #[arg(long = "set", value_name = "KEY=VALUE")]
        settings: Vec<String>,
        /// The campaign's name.
        #[arg(long)]
        name: Option<String>,
    },
    /// List the actions a viewer may take, with their parameters and choices.
    Actions {
        file: PathBuf,
        #[arg(long = "as", default_value = "gm", value_name = "gm|player:NAME")]
        role: String,
    },
    /// Take an action and print its outcome.
    Act {
        file: PathBuf,
        action: String,
        #[arg(long = "as", default_value = "gm", value_name = "gm|player:NAME")]
        role: String,
        /// A parameter, e.g. --param traits=Magic,Fireball (repeatable; lists are comma-separated).
        #[arg(long = "param", short = 'p', value_name = "KEY=VALUE")]
        params: Vec<String>,
        /// Dice faces rolled by hand, used in order, e.g. --dice 4,6,1 (Fudge: --dice=+,-,0,0).
        #[arg(long, allow_hyphen_values = true)]
        dice: Option<String>,
    },
    /// Write a post into the log: in character with --character, to the GM with --to gm, or a
    /// whisper between the GM and one player with --to player:NAME.
    Say {
        file: PathBuf,
        #[arg(long = "as", default_value = "gm", value_name = "gm|player:NAME")]
        role: String,
        /// The character who speaks (one the player plays); without it, out of character.
        #[arg(long)]
        character: Option<String>,
        /// Whom it is for: everyone (default), gm, or player:NAME (a whisper).
        #[arg(long, value_name = "everyone|gm|player:NAME")]
        to: Option<String>,
        /// The post, in light Markdown (**bold**, *italic*, > quote).
        text: String,
    },
    /// The balance lab: play a whole scene (a Fumbles challenge …) many times from a set-up,
    /// by the ruleset's own policy, with and without house rules, side by side.
    Lab {
        /// A plugin folder (with --setup), or a campaign file: the lab plays from its table as it
        /// stands, under the ruleset alone and with the campaign's house rules
        path: PathBuf,
        /// A scenario file whose actions set up the scene (the characters, the challenge)
        #[arg(long)]
        setup: Option<PathBuf>,
        /// House rules to compare with the ruleset alone: a .rhai file or a folder of them
        #[arg(long = "house-rules")]
        house_rules: Option<PathBuf>,
        #[arg(long, default_value_t = 1000)]
        times: u64,
        #[arg(long, default_value_t = 1)]
        seed: u64,
        /// Also write every run's outcome here, one line each
        #[arg(long)]
        csv: Option<PathBuf>,
    },
    /// Show the table as a viewer sees it.
    View {
        file: PathBuf,
        #[arg(long = "as", default_value = "gm", value_name = "gm|player:NAME")]
        role: String,
    },
    /// Show the log as a viewer may see it.
    Log {
        file: PathBuf,
        #[arg(long = "as", default_value = "gm", value_name = "gm|player:NAME")]
        role: String,
        /// Start at this event number.
        #[arg(long, default_value_t = 1)]
        from: u64,
        /// Only events before this one (with --limit: the page before it).
        #[arg(long, value_name = "EVENT")]
        before: Option<u64>,
        /// Only the newest N events of the range.
        #[arg(long, value_name = "N")]
        limit: Option<usize>,
    },
    /// Check a campaign file: integrity, schema, hash chain, replay and dice. Exits 1 on any failure.
    Verify {
        file: PathBuf,
        /// With --hash: check that event N has this hash (the line under a play-by-post post).
        #[arg(long, requires = "hash")]
        event: Option<u64>,
        #[arg(long, requires = "event")]
        hash: Option<String>,
        /// Check a player's copy against the full campaign file it came from.
        #[arg(long)]
        against: Option<PathBuf>,
    },
    /// Write one clean, self-contained copy of a campaign: in full, or for one player.
    Share {
        file: PathBuf,
        out: PathBuf,
        /// A player's copy: GM-only and hidden values are left out; the copy still verifies.
        #[arg(long = "for", value_name = "player:NAME")]
        for_role: Option<String>,
    },
    /// Disclose the dice seed so anyone can check every roll so far, and commit to a new one.
    Reveal { file: PathBuf },
    /// Render an action's outcome as a play-by-post post with a line to verify it.
    Post {
        file: PathBuf,
        /// The event number (default: the last action or post anyone may read).
        event: Option<u64>,
        #[arg(long, default_value = "markdown", value_name = "markdown|bbcode|text")]
        format: String,
        /// Also write the scene shown to the players, drawn as the public sees it, to this PNG,
        /// and attach it to the post by its file name (upload it beside the post).
        #[arg(long, value_name = "OUT.png")]
        map: Option<PathBuf>,
    },
    /// What a campaign file is: its ruleset (and whether it keeps its own pinned copy), events, seed commitment.
    Info { file: PathBuf },
    /// Roll a dice expression: 4d6kh3, 2d20kl1, 4dF+1, 1d8!, 7d6cs>=4 …
    Roll {
        #[arg(allow_hyphen_values = true)]
        expr: String,
        #[arg(long)]
        seed: Option<u64>,
        /// Faces rolled by hand instead of generated ones.
        #[arg(long, allow_hyphen_values = true)]
        dice: Option<String>,
        /// Roll the expression this many times (at most 100000). Each roll is listed when there are
        /// at most 20 (1000 with --json); the statistics of their totals are always given.
        #[arg(long, default_value_t = 1)]
        times: u32,
        /// Read the expression as this dialect does: houserule (default) or roll20.
        #[arg(long)]
        dialect: Option<String>,
    },
    /// The exact odds of a dice expression (or a simulation, said so), and the chance to meet a target.
    Odds {
        #[arg(allow_hyphen_values = true)]
        expr: String,
        /// Also print the chance of a total of at least N.
        #[arg(long, value_name = "N", allow_hyphen_values = true)]
        target: Option<i64>,
        /// Read the expression as this dialect does: houserule (default) or roll20.
        #[arg(long)]
        dialect: Option<String>,
    },
    /// Check a plugin folder: manifest, scripts and scenario files. Errors print as file:line:col: message.
    Check { dir: PathBuf },
    /// Run a plugin's scenario tests (tests/*.toml).
    Test {
        dir: PathBuf,
        /// Only scenarios whose file or name contains this text.
        #[arg(long)]
        only: Option<String>,
    },
    /// Run an action many times from one table set-up and summarise its results (rule statistics).
    Simulate(commands::simulate::SimulateArgs),
    /// A campaign's house rules: list, export to a folder, import from one, remove one.
    #[command(name = "house-rules", subcommand)]
    HouseRules(HouseRulesCommand),
    /// Watch the house-rule folder (and the ruleset's folder) and reload the rules on every save.
    Watch {
        file: PathBuf,
        /// The house-rule folder (default: FILE's name with .house-rules, exported there first).
        #[arg(long)]
        dir: Option<PathBuf>,
        /// The ruleset folder to watch (default: the folder the ruleset was found in, if any).
        #[arg(long)]
        ruleset_dir: Option<PathBuf>,
        /// Watch only the house rules.
        #[arg(long)]
        no_ruleset: bool,
        /// Stop after this many reloads or errors.
        #[arg(long, hide = true)]
        max_events: Option<usize>,
    },
    /// Serve the table to browsers: players join with the link the GM makes for each, the GM
    /// with the link printed at start. A FILE that does not exist yet is created by the GM in the
    /// browser.
    Serve {
        file: PathBuf,
        /// The address to listen on (0.0.0.0 for every network the machine is on).
        #[arg(long, default_value = "127.0.0.1")]
        host: String,
        /// The port; by default a free one the OS picks (printed at start).
        #[arg(long, default_value_t = 0)]
        port: u16,
        /// Use this GM secret (at least 16 characters) instead of a random one.
        #[arg(long, hide = true)]
        gm_secret: Option<String>,
        /// A host name players may use for this machine besides its IP address (repeatable).
        #[arg(long = "name")]
        names: Vec<String>,
        /// Serve the UI from this folder instead of the built-in copy (UI development).
        #[arg(long)]
        ui: Option<PathBuf>,
    },
    /// Play the campaign in a Matrix room: players act from any Matrix client by `!hr`
    /// commands, and the referee posts every result.
    #[cfg(feature = "matrix")]
    #[command(subcommand)]
    Matrix(MatrixCommand),
    /// Make a player's join link (shown once; replaces their older one), end it, or list them.
    Invite {
        file: PathBuf,
        /// The player the link is for.
        player: Option<String>,
        /// The table's address as `serve` printed it, to print the whole link.
        #[arg(long)]
        url: Option<String>,
        /// End the player's link instead.
        #[arg(long)]
        revoke: bool,
    },
    /// The map: each scene drawn in text as the GM (or --as player:NAME) sees it; with --op JSON,
    /// one of the GM's scene operations ('{"op":"create","id":"yard","name":"The Yard"}', show,
    /// place, token, remove_token, fog, update, remove); with --import, a picture (PNG, JPEG or
    /// WebP) into the campaign; with --map OUT, a PNG of the shown scene as the viewer sees it
    /// (the map, grid, fog and the tokens they see; for a player every fogged area black); with
    /// --background OUT, its map picture alone.
    Scene {
        file: PathBuf,
        #[arg(long = "as")]
        role: Option<String>,
        #[arg(long)]
        op: Option<String>,
        #[arg(long, conflicts_with_all = ["op", "map", "background"])]
        import: Option<PathBuf>,
        #[arg(long, conflicts_with_all = ["op", "background"])]
        map: Option<PathBuf>,
        #[arg(long, conflicts_with = "op")]
        background: Option<PathBuf>,
    },
    /// The handouts: each one a viewer may read, with its text, as the GM (who also sees who
    /// reads it) or --as player:NAME sees it; with --op JSON, one of the GM's handout operations
    /// ('{"op":"write","title":"The duke's letter","text":"Meet me at the *mill*."}', then
    /// '{"op":"reveal","id":"h-…","players":["ann"]}' or '"everyone":true', or remove).
    Handout {
        file: PathBuf,
        #[arg(long = "as")]
        role: Option<String>,
        #[arg(long)]
        op: Option<String>,
    },
    /// Move a token along a path of cells (x,y each; the first where it stands), through the
    /// ruleset's move hook.
    Move {
        file: PathBuf,
        token: String,
        #[arg(required = true)]
        path: Vec<String>,
        #[arg(long = "as")]
        role: Option<String>,
    },
    /// Take back the latest action (or every action after event --to); they stay in the log, voided.
    Undo {
        file: PathBuf,
        /// Go back to the table as it was right after this event.
        #[arg(long)]
        to: Option<u64>,
    },
    /// Set a value by hand, with your reason: --field ENTITY.FIELD=VALUE (no =VALUE removes it),
    /// --pool POOL=COUNT (ENTITY.POOL for an entity's), or --trait ENTITY.NAME[=RATING].
    Correct {
        file: PathBuf,
        #[arg(long)]
        field: Option<String>,
        #[arg(long)]
        pool: Option<String>,
        /// Which kind of token, for a pool of several kinds.
        #[arg(long)]
        kind: Option<String>,
        #[arg(long = "trait")]
        trait_: Option<String>,
        /// With --trait: take the trait away.
        #[arg(long)]
        remove: bool,
        /// Why (logged beside the correction, as secret as the value).
        #[arg(long)]
        reason: String,
    },
    /// Let a player type in their own dice at the table over the network, or stop it.
    TypedDice {
        file: PathBuf,
        player: String,
        /// `on` or `off`.
        #[arg(value_parser = ["on", "off"])]
        allowed: String,
    },
    /// Show what the operating system enforces on the sandbox worker here, found by trying.
    Sandbox,
    /// Write Rhai definition files for the whole host API into DIR (editor completion).
    Definitions { dir: PathBuf },
    /// Create a demo campaign in DIR (default: here), play a few actions and print the log.
    Demo {
        dir: Option<PathBuf>,
        /// generic (a few of everything) or fumbles (a challenge in progress).
        #[arg(long, default_value = "generic")]
        ruleset: String,
    },
    /// Write the JSON Schemas of every file format and output into DIR.
    #[command(hide = true)]
    Schemas { dir: PathBuf },
    /// Write the UI's typed contract (TypeScript, generated from the Rust types) to FILE.
    #[command(hide = true, name = "ui-contract")]
    UiContract { file: PathBuf },
    /// Write the host API reference (Markdown) to FILE.
    #[command(hide = true, name = "api-reference")]
    ApiReference { file: PathBuf },
}

fn main() -> ExitCode {
    // Started as a sandbox worker: become one before anything else runs.
    houserule_app::sandbox::run_if_requested();
    let cli = Cli::parse();
    let json = cli.json;
    let result = match cli.command {
        Command::Rulesets => commands::campaign::rulesets(json),
        Command::New { file, ruleset, seed, settings, name } => {
            commands::campaign::new(json, &file, &ruleset, seed, &settings, name)
        }
        Command::Actions { file, role } => commands::campaign::actions(json, &file, &role),
        Command::Act { file, action, role, params, dice } => {
            commands::campaign::act(json, &file, &action, &role, &params, dice.as_deref())
        }
        Command::Say { file, role, character, to, text } => {
            commands::talk::say(json, &file, &role, character.as_deref(), to.as_deref(), &text)
        }
        Command::Lab { path, setup, house_rules, times, seed, csv } => {
            commands::lab::lab(json, &path, setup.as_deref(), house_rules.as_deref(), times, seed, csv.as_deref())
        }
        Command::View { file, role } => commands::campaign::view(json, &file, &role),
        Command::Log { file, role, from, before, limit } => {
            commands::campaign::log(json, &file, &role, commands::campaign::LogRange { from, before, limit })
        }
        Command::Verify { file, event, hash, against } => {
            commands::campaign::verify(json, &file, event.zip(hash), against.as_deref())
        }
        Command::Share { file, out, for_role } => commands::sharing::share(json, &file, &out, for_role.as_deref()),
        Command::Reveal { file } => commands::sharing::reveal(json, &file),
        Command::Post { file, event, format, map } => {
            commands::sharing::post(json, &file, event, &format, map.as_deref())
        }
        Command::Info { file } => commands::sharing::info(json, &file),
        Command::Roll { expr, seed, dice, times, dialect } => {
            commands::dice::roll(json, &expr, seed, dice.as_deref(), times, dialect.as_deref())
        }
        Command::Odds { expr, target, dialect } => commands::odds::odds(json, &expr, target, dialect.as_deref()),
        Command::Check { dir } => commands::plugin::check(json, &dir),
        Command::Test { dir, only } => commands::plugin::test(json, &dir, only.as_deref()),
        Command::Simulate(args) => commands::simulate::simulate(json, &args),
        Command::HouseRules(HouseRulesCommand::List { file }) => commands::house::list(json, &file),
        Command::HouseRules(HouseRulesCommand::Export { file, dir }) => commands::house::export(json, &file, &dir),
        Command::HouseRules(HouseRulesCommand::Import { file, dir }) => commands::house::import(json, &file, &dir),
        Command::HouseRules(HouseRulesCommand::Remove { file, name }) => commands::house::remove(json, &file, &name),
        Command::Watch { file, dir, ruleset_dir, no_ruleset, max_events } => {
            commands::house::watch(json, &file, dir, ruleset_dir, no_ruleset, max_events)
        }
        Command::Serve { file, host, port, gm_secret, names, ui } => {
            commands::serve::serve(file, commands::serve::ServeArgs { host, port, secret: gm_secret, ui, names })
        }
        #[cfg(feature = "matrix")]
        Command::Matrix(MatrixCommand::Link { file, homeserver, user, room }) => {
            commands::matrix::link(json, &file, &homeserver, &user, room.as_deref())
        }
        #[cfg(feature = "matrix")]
        Command::Matrix(MatrixCommand::Invite { file, user, player }) => {
            commands::matrix::invite(json, &file, &user, &player)
        }
        #[cfg(feature = "matrix")]
        Command::Matrix(MatrixCommand::Run { file, once }) => commands::matrix::run(&file, once),
        Command::Invite { file, player, url, revoke } => {
            commands::table::invite(json, &file, player.as_deref(), url.as_deref(), revoke)
        }
        Command::Scene { file, role, import: Some(picture), .. } => {
            commands::pictures::import(json, &file, role.as_deref(), &picture)
        }
        Command::Scene { file, role, map: Some(out), .. } => {
            commands::pictures::map(json, &file, role.as_deref(), &out, commands::pictures::Picturing::Scene)
        }
        Command::Scene { file, role, background: Some(out), .. } => {
            commands::pictures::map(json, &file, role.as_deref(), &out, commands::pictures::Picturing::Background)
        }
        Command::Scene { file, role, op, .. } => commands::scene::scene(json, &file, role.as_deref(), op.as_deref()),
        Command::Handout { file, role, op } => commands::handout::handout(json, &file, role.as_deref(), op.as_deref()),
        Command::Move { file, token, path, role } => {
            commands::scene::move_token(json, &file, &token, &path, role.as_deref())
        }
        Command::Undo { file, to } => commands::table::undo(json, &file, to),
        Command::Correct { file, field, pool, kind, trait_, remove, reason } => commands::table::correct(
            json,
            &file,
            commands::table::CorrectArgs {
                field: field.as_deref(),
                pool: pool.as_deref(),
                kind: kind.as_deref(),
                trait_: trait_.as_deref(),
                remove,
                reason: &reason,
            },
        ),
        Command::TypedDice { file, player, allowed } => {
            commands::table::typed_dice(json, &file, &player, allowed == "on")
        }
        Command::Definitions { dir } => commands::house::definitions(json, &dir),
        Command::Sandbox => commands::plugin::sandbox(json),
        Command::Demo { dir, ruleset } => commands::demo::demo(json, dir, &ruleset),
        Command::Schemas { dir } => commands::plugin::schemas(&dir),
        Command::ApiReference { file } => commands::plugin::api_reference(&file),
        Command::UiContract { file } => std::fs::write(&file, typescript::contract())
            .map(|_| true)
            .map_err(|e| output::Failure::new(houserule_core::ErrorCode::Io, format!("{}: {e}", file.display()))),
    };
    match result {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::from(1),
        Err(Failure(report)) => {
            if json {
                output::json(&Failed { error: report });
            } else {
                crate::note!("error: {}", report.message);
                if let Some(s) = &report.script {
                    if !s.trace.is_empty() {
                        crate::note!("  in {}", s.trace.join(" → "));
                    }
                }
            }
            ExitCode::from(1)
        }
    }
}
