//! The one error every front end receives: an [`ErrorCode`] to branch on, a message for people,
//! and the place when there is one (a parameter, a script position, diagnostics of rules that
//! do not load).
//!
//! Codes are an enum, serialised in `snake_case` and listed in the schemas, so the UI, the CLI's
//! `--json` and the server branch on the same closed set; a failure of storage, the sandbox, the
//! rules or a parameter keeps its own code however it travels.

use crate::plugin::Diagnostic;
use crate::script_error::ScriptError;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// What kind of failure happened.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum ErrorCode {
    /// The ruleset has no such action.
    UnknownAction,
    /// The person asking may not do this.
    Forbidden,
    /// A parameter is missing or wrong (`param` names it).
    BadParam,
    /// The rules refused the action; the message names the rule.
    Refused,
    /// A script failed while running (a bug in the rules).
    ScriptError,
    /// A script hit one of the sandbox's limits (operations, time, depth, size of a value).
    ScriptLimit,
    /// The sandbox worker process failed or was stopped by the operating system's limits
    /// (memory, CPU time, a crash).
    Sandbox,
    /// Dice typed by hand do not fit the roll, or a dice expression is wrong.
    Dice,
    /// The campaign file could not be read or written.
    Storage,
    /// The file is not a sound campaign (integrity, schema, hash chain, rules it carries).
    BadFile,
    /// A player's copy of a campaign: it can be read and verified, not played.
    PlayerCopy,
    /// A ruleset (a plugin folder or the rules a file carries) does not load.
    InvalidPlugin,
    /// A house rule does not load; the previous rules keep running.
    InvalidHouseRule,
    /// A setting's value is wrong.
    BadSetting,
    /// There is no ruleset with that id.
    UnknownRuleset,
    /// No campaign is open.
    NoCampaign,
    /// A request is malformed (a front end's message, a command-line argument).
    BadRequest,
    /// A file or folder could not be read or written.
    Io,
    /// The file to write exists already.
    Exists,
    /// A plugin has no scenario files to run.
    NoTests,
    /// The connection to the table was lost (a front end's own report).
    Disconnected,
    /// Something that should not happen; the message says what.
    Internal,
}

impl ErrorCode {
    /// The code as it is serialised (`bad_param`).
    pub fn as_str(self) -> &'static str {
        match self {
            ErrorCode::UnknownAction => "unknown_action",
            ErrorCode::Forbidden => "forbidden",
            ErrorCode::BadParam => "bad_param",
            ErrorCode::Refused => "refused",
            ErrorCode::ScriptError => "script_error",
            ErrorCode::ScriptLimit => "script_limit",
            ErrorCode::Sandbox => "sandbox",
            ErrorCode::Dice => "dice",
            ErrorCode::Storage => "storage",
            ErrorCode::BadFile => "bad_file",
            ErrorCode::PlayerCopy => "player_copy",
            ErrorCode::InvalidPlugin => "invalid_plugin",
            ErrorCode::InvalidHouseRule => "invalid_house_rule",
            ErrorCode::BadSetting => "bad_setting",
            ErrorCode::UnknownRuleset => "unknown_ruleset",
            ErrorCode::NoCampaign => "no_campaign",
            ErrorCode::BadRequest => "bad_request",
            ErrorCode::Io => "io",
            ErrorCode::Exists => "exists",
            ErrorCode::NoTests => "no_tests",
            ErrorCode::Disconnected => "disconnected",
            ErrorCode::Internal => "internal",
        }
    }
}

impl std::fmt::Display for ErrorCode {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One serialisable error for callers that show errors to users.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ErrorReport {
    pub code: ErrorCode,
    pub message: String,
    /// The parameter at fault, for `bad_param`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub param: Option<String>,
    /// The script failure with its place, for `refused`, `script_error` and `script_limit`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub script: Option<Box<ScriptError>>,
    /// Problems with their places (rules or a house rule that do not load).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub diagnostics: Vec<Diagnostic>,
}

impl ErrorReport {
    /// An error with a code and a message only.
    pub fn new(code: ErrorCode, message: impl Into<String>) -> ErrorReport {
        ErrorReport { code, message: message.into(), param: None, script: None, diagnostics: vec![] }
    }

    /// The same error, naming the parameter it is about.
    pub fn with_param(mut self, param: impl Into<String>) -> ErrorReport {
        self.param = Some(param.into());
        self
    }
}

impl std::fmt::Display for ErrorReport {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for ErrorReport {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_serialise_as_their_names() {
        for code in [ErrorCode::BadParam, ErrorCode::ScriptLimit, ErrorCode::Sandbox, ErrorCode::Storage] {
            assert_eq!(serde_json::to_value(code).unwrap(), serde_json::json!(code.as_str()));
        }
    }
}
