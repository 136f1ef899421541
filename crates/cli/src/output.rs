//! What commands print: the `--json` shapes (each has a schema in `schemas/`), the one way
//! errors are reported, and the one writer everything goes through.
//!
//! Every line a command prints goes through [`line`] (the [`say!`](crate::say) macro) or
//! [`json`]: when whoever reads the output stops early (`houserule log F --json | head`), the
//! program ends quietly with the usual status 141, never a panic.
//!
//! **The terminal's wall** (the second of two: the first is the one rule for text every text
//! is held to where it enters, `houserule_core::text`): whatever a line holds, it reaches the
//! terminal with every control character — a line break or a tab inside it included — and
//! every control that reorders text written as a visible escape ([`houserule_core::text::shown`]),
//! so nothing a player, a script or a file supplies can move the cursor, set the window's
//! title, write the clipboard or start a line of its own. Text of several lines is printed
//! line by line by the program ([`lines`], [`entry`]); a note on stderr goes on over indented
//! lines. JSON escapes the same characters (`\uXXXX`), which serde alone leaves raw above
//! U+001F.

use houserule_app::catalog::Ruleset;
use houserule_app::scenario::ScenarioReport;
use houserule_app::verify::VerifyReport;
use houserule_app::Acted;
use houserule_core::dice::Roll;
use houserule_core::view::{ActionForm, CampaignInfo, LogEntry, RulesetInfo, View};
use houserule_core::{text, ErrorCode, ErrorReport};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use std::io::Write;
use std::path::PathBuf;

/// `houserule new`.
#[derive(Debug, Serialize, Deserialize, JsonSchema)]
pub struct Created {
    pub path: PathBuf,
    pub campaign: CampaignInfo,
}

/// Summary statistics of the totals of repeated rolls (a total is the whole expression:
/// successes with any arithmetic around them).
#[derive(Debug, Serialize, Deserialize, JsonSchema)]
pub struct RollStats {
    pub min: i64,
    pub max: i64,
    pub mean: f64,
    /// How often each total came up, lowest first: [total, count].
    pub histogram: Vec<(i64, u64)>,
}

/// `houserule roll`.
#[derive(Debug, Serialize, Deserialize, JsonSchema)]
pub struct Rolled {
    pub expr: String,
    pub times: u32,
    /// Every roll, when there are at most 1000 of them; none when there are more (the statistics
    /// sum them up).
    pub rolls: Vec<Roll>,
    pub stats: RollStats,
}

pub use houserule_core::plugin::Diagnostic;

/// `houserule check`.
#[derive(Debug, Serialize, Deserialize, JsonSchema)]
pub struct Checked {
    pub ok: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub plugin: Option<RulesetInfo>,
    pub actions: usize,
    pub scripts: Vec<String>,
    pub scenarios: usize,
    pub problems: Vec<Diagnostic>,
}

/// `houserule test`.
#[derive(Debug, Serialize, Deserialize, JsonSchema)]
pub struct Tested {
    pub ok: bool,
    pub passed: usize,
    pub failed: usize,
    pub scenarios: Vec<ScenarioReport>,
}

/// `houserule demo`.
#[derive(Debug, Serialize, Deserialize, JsonSchema)]
pub struct Demo {
    pub path: PathBuf,
    pub campaign: CampaignInfo,
    pub log: Vec<LogEntry>,
}

pub use houserule_app::lab::{LabSide, Summary};

/// `houserule simulate`.
#[derive(Debug, Serialize, Deserialize, JsonSchema)]
pub struct Simulated {
    pub action: String,
    pub times: u64,
    pub seed: u64,
    pub results: indexmap::IndexMap<String, Summary>,
}

/// `houserule lab`: the same scenes played under the ruleset alone and with house rules.
#[derive(Debug, Serialize, Deserialize, JsonSchema)]
pub struct LabReport {
    pub setup: String,
    pub times: u64,
    pub seed: u64,
    /// The ruleset as it ships.
    pub ruleset: LabSide,
    /// With the house rules given (absent without `--house-rules`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub house: Option<LabSide>,
}

/// A house-rule file of a campaign.
#[derive(Debug, Serialize, Deserialize, JsonSchema)]
pub struct HouseRuleFile {
    pub name: String,
    pub bytes: usize,
    pub functions: Vec<houserule_core::plugin::HouseFunction>,
}

/// `houserule house-rules list`.
#[derive(Debug, Serialize, Deserialize, JsonSchema)]
pub struct HouseRulesListing {
    pub ruleset: RulesetInfo,
    pub files: Vec<HouseRuleFile>,
    /// Setting overrides from settings.toml.
    pub settings: indexmap::IndexMap<String, serde_json::Value>,
}

/// `houserule house-rules import|remove`: the reload, or null when nothing changed.
#[derive(Debug, Serialize, Deserialize, JsonSchema)]
pub struct Reloaded {
    pub report: Option<houserule_app::reload::ReloadReport>,
}

/// `houserule post`.
#[derive(Debug, Serialize, Deserialize, JsonSchema)]
pub struct Posted {
    pub post: String,
    pub event: LogEntry,
}

/// `houserule info`.
#[derive(Debug, Serialize, Deserialize, JsonSchema)]
pub struct Info {
    pub campaign: CampaignInfo,
    /// Whether the campaign plays by the same rules Houserule has, or its own pinned copy.
    pub ruleset_note: String,
    pub house_rules: usize,
    /// For a player's copy: whose.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub copy_for: Option<String>,
}

/// Any command that failed, under `--json`.
#[derive(Debug, Serialize, Deserialize, JsonSchema)]
pub struct Failed {
    pub error: ErrorReport,
}

/// Every `--json` shape, by schema file name.
pub fn schemas() -> Vec<(&'static str, schemars::schema::RootSchema)> {
    use schemars::schema_for;
    vec![
        ("plugin-manifest.schema.json", schema_for!(houserule_core::manifest::Manifest)),
        ("scenario.schema.json", schema_for!(houserule_core::scenario::Scenario)),
        ("rulesets.schema.json", schema_for!(Vec<Ruleset>)),
        ("new.schema.json", schema_for!(Created)),
        ("actions.schema.json", schema_for!(Vec<ActionForm>)),
        ("act.schema.json", schema_for!(Acted)),
        ("view.schema.json", schema_for!(View)),
        ("log.schema.json", schema_for!(Vec<LogEntry>)),
        ("verify.schema.json", schema_for!(VerifyReport)),
        ("roll.schema.json", schema_for!(Rolled)),
        ("odds.schema.json", schema_for!(crate::commands::odds::OddsReport)),
        ("check.schema.json", schema_for!(Checked)),
        ("test.schema.json", schema_for!(Tested)),
        ("demo.schema.json", schema_for!(Demo)),
        ("simulate.schema.json", schema_for!(Simulated)),
        ("lab.schema.json", schema_for!(LabReport)),
        ("house-rules-list.schema.json", schema_for!(HouseRulesListing)),
        ("house-rules-change.schema.json", schema_for!(Reloaded)),
        ("watch-event.schema.json", schema_for!(houserule_app::session::SessionEvent)),
        ("written.schema.json", schema_for!(Vec<PathBuf>)),
        ("share.schema.json", schema_for!(houserule_app::share::ShareReport)),
        ("reveal.schema.json", schema_for!(LogEntry)),
        // undo, correct and typed-dice print the event they wrote.
        ("log-entry.schema.json", schema_for!(LogEntry)),
        ("post.schema.json", schema_for!(Posted)),
        ("info.schema.json", schema_for!(Info)),
        ("ui-rulesets.schema.json", schema_for!(Vec<houserule_app::calls::RulesetChoice>)),
        ("ui-house-rules.schema.json", schema_for!(houserule_app::calls::HouseRulesState)),
        ("ui-event.schema.json", schema_for!(houserule_app::events::AppEvent)),
        ("error.schema.json", schema_for!(Failed)),
        ("sandbox.schema.json", schema_for!(houserule_app::sandbox::Probe)),
    ]
}

/// A command failure: the report every front end would get.
#[derive(Debug)]
pub struct Failure(pub ErrorReport);

impl Failure {
    pub fn new(code: ErrorCode, message: impl Into<String>) -> Failure {
        Failure(ErrorReport::new(code, message))
    }
}

impl From<houserule_core::ActError> for Failure {
    fn from(e: houserule_core::ActError) -> Self {
        Failure(e.report())
    }
}

impl From<houserule_app::CampaignError> for Failure {
    fn from(e: houserule_app::CampaignError) -> Self {
        Failure(e.report())
    }
}

/// The status a program ends with when its reader closed the pipe (128 + SIGPIPE).
pub const CLOSED_PIPE: i32 = 141;

/// Ends the program after a failed write: quietly when the reader went away.
fn write_failed(e: std::io::Error) -> ! {
    if e.kind() == std::io::ErrorKind::BrokenPipe {
        std::process::exit(CLOSED_PIPE);
    }
    let _ = writeln!(std::io::stderr(), "houserule: cannot write the output: {e}");
    std::process::exit(1);
}

/// Prints one line to stdout, shown by the terminal's wall: no control character, no line
/// break of its own.
pub fn line(args: std::fmt::Arguments) {
    let text = args.to_string();
    let mut out = std::io::stdout().lock();
    if let Err(e) = out.write_all(text::shown(&text).as_bytes()).and_then(|_| out.write_all(b"\n")) {
        write_failed(e);
    }
}

/// Prints lines the program made (each through [`line`]).
pub fn lines<S: AsRef<str>>(lines: impl IntoIterator<Item = S>) {
    for l in lines {
        line(format_args!("{}", l.as_ref()));
    }
}

/// Prints a log entry, line by line: only its heading starts at the left edge.
pub fn entry(e: &LogEntry) {
    lines(houserule_core::render::entry_lines(e));
}

/// Prints a note to stderr (a closed stderr is ignored), shown by the terminal's wall; a note
/// of several lines goes on over indented lines.
pub fn note(args: std::fmt::Arguments) {
    let text = args.to_string();
    let shown: Vec<String> = text
        .split('\n')
        .enumerate()
        .map(|(i, l)| format!("{}{}", if i == 0 { "" } else { "  " }, text::shown(l)))
        .collect();
    let mut err = std::io::stderr().lock();
    let _ = err.write_all(shown.join("\n").as_bytes()).and_then(|_| err.write_all(b"\n"));
}

/// JSON's pretty layout, with every character the rule for text refuses escaped as `\uXXXX`
/// (serde escapes only those below U+0020).
struct Escaping<'a>(serde_json::ser::PrettyFormatter<'a>);

impl serde_json::ser::Formatter for Escaping<'_> {
    fn write_string_fragment<W: ?Sized + Write>(&mut self, w: &mut W, fragment: &str) -> std::io::Result<()> {
        let mut rest = fragment;
        while let Some((i, c)) = rest.char_indices().find(|(_, c)| text::refused(*c, text::Lines::One)) {
            w.write_all(&rest.as_bytes()[..i])?;
            write!(w, "\\u{:04x}", c as u32)?;
            rest = &rest[i + c.len_utf8()..];
        }
        w.write_all(rest.as_bytes())
    }
    fn begin_array<W: ?Sized + Write>(&mut self, w: &mut W) -> std::io::Result<()> {
        self.0.begin_array(w)
    }
    fn end_array<W: ?Sized + Write>(&mut self, w: &mut W) -> std::io::Result<()> {
        self.0.end_array(w)
    }
    fn begin_array_value<W: ?Sized + Write>(&mut self, w: &mut W, first: bool) -> std::io::Result<()> {
        self.0.begin_array_value(w, first)
    }
    fn end_array_value<W: ?Sized + Write>(&mut self, w: &mut W) -> std::io::Result<()> {
        self.0.end_array_value(w)
    }
    fn begin_object<W: ?Sized + Write>(&mut self, w: &mut W) -> std::io::Result<()> {
        self.0.begin_object(w)
    }
    fn end_object<W: ?Sized + Write>(&mut self, w: &mut W) -> std::io::Result<()> {
        self.0.end_object(w)
    }
    fn begin_object_key<W: ?Sized + Write>(&mut self, w: &mut W, first: bool) -> std::io::Result<()> {
        self.0.begin_object_key(w, first)
    }
    fn begin_object_value<W: ?Sized + Write>(&mut self, w: &mut W) -> std::io::Result<()> {
        self.0.begin_object_value(w)
    }
    fn end_object_value<W: ?Sized + Write>(&mut self, w: &mut W) -> std::io::Result<()> {
        self.0.end_object_value(w)
    }
}

/// A JSON writer with [`Escaping`]: pretty, or on one line.
fn json_writer<W: Write>(out: W, pretty: bool) -> serde_json::Serializer<W, Escaping<'static>> {
    let layout = match pretty {
        true => serde_json::ser::PrettyFormatter::new(),
        false => serde_json::ser::PrettyFormatter::with_indent(b""),
    };
    serde_json::Serializer::with_formatter(out, Escaping(layout))
}

/// Prints a value as pretty JSON.
pub fn json<T: Serialize>(value: &T) {
    let mut out = std::io::stdout().lock();
    let written = value
        .serialize(&mut json_writer(&mut out, true))
        .map_err(std::io::Error::from)
        .and_then(|_| out.write_all(b"\n"));
    if let Err(e) = written {
        write_failed(e);
    }
}

/// Prints a value as JSON on one line (a stream of events, one a line).
pub fn json_line<T: Serialize>(value: &T) {
    let mut text = Vec::new();
    value.serialize(&mut json_writer(&mut text, false)).expect("values serialise");
    let text: String = String::from_utf8(text).expect("JSON is UTF-8").replace('\n', "");
    let mut out = std::io::stdout().lock();
    if let Err(e) = out.write_all(text.as_bytes()).and_then(|_| out.write_all(b"\n")) {
        write_failed(e);
    }
}

/// Prints a JSON array (pretty, as [`json`] would) one element at a time as `fill` hands them
/// over, so a long list is never held whole.
pub fn json_list<T: Serialize, E>(fill: impl FnOnce(&mut dyn FnMut(&T)) -> Result<(), E>) -> Result<(), E> {
    use serde::ser::{SerializeSeq, Serializer};
    let mut out = std::io::BufWriter::new(std::io::stdout().lock());
    let mut ser = json_writer(&mut out, true);
    let mut seq = (&mut ser).serialize_seq(None).unwrap_or_else(|e| write_failed(e.into()));
    fill(&mut |item: &T| seq.serialize_element(item).unwrap_or_else(|e| write_failed(e.into())))?;
    seq.end().unwrap_or_else(|e| write_failed(e.into()));
    if let Err(e) = out.write_all(b"\n").and_then(|_| out.flush()) {
        write_failed(e);
    }
    Ok(())
}

/// Prints a line through [`line`]: `say!("{} events", n)`.
#[macro_export]
macro_rules! say {
    () => { $crate::output::line(format_args!("")) };
    ($($arg:tt)*) => { $crate::output::line(format_args!($($arg)*)) };
}

/// Prints a line to stderr through [`note`].
#[macro_export]
macro_rules! note {
    ($($arg:tt)*) => { $crate::output::note(format_args!($($arg)*)) };
}
