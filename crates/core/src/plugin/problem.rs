//! Why rules do not load: each problem with its place, as users are shown it.

use crate::manifest::ManifestError;
use crate::script_error::ScriptError;
use serde::{Deserialize, Serialize};

/// One problem found while loading a plugin.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, thiserror::Error)]
#[serde(tag = "in", rename_all = "snake_case")]
pub enum Problem {
    #[error("{0}")]
    Manifest(#[from] ManifestError),
    #[error("{0}")]
    Script(#[from] ScriptError),
}

/// A problem as shown to users: `file:line:col: message`, with the parts separately.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Diagnostic {
    pub file: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub line: Option<usize>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub column: Option<usize>,
    /// The manifest field, for manifest problems.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub field: Option<String>,
    pub message: String,
    /// `file:line:col: message`, as printed.
    pub text: String,
}

impl Diagnostic {
    pub fn plain(file: &str, message: impl Into<String>) -> Diagnostic {
        let message = message.into();
        Diagnostic {
            file: file.into(),
            line: None,
            column: None,
            field: None,
            text: format!("{file}: {message}"),
            message,
        }
    }
}

impl From<&Problem> for Diagnostic {
    fn from(p: &Problem) -> Diagnostic {
        match p {
            Problem::Manifest(m) => Diagnostic {
                file: m.file.clone(),
                line: m.line,
                column: m.column,
                field: (!m.field.is_empty()).then(|| m.field.clone()),
                message: m.message.clone(),
                text: m.to_string(),
            },
            Problem::Script(s) => Diagnostic {
                file: s.file.clone(),
                line: (s.line > 0).then_some(s.line),
                column: (s.column > 0).then_some(s.column),
                field: None,
                message: s.message.clone(),
                text: s.to_string(),
            },
        }
    }
}

/// Why a plugin could not be loaded: every problem found, each with its place.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, thiserror::Error)]
#[error("{}", .0.iter().map(|p| p.to_string()).collect::<Vec<_>>().join("\n"))]
pub struct PluginError(pub Vec<Problem>);

impl PluginError {
    pub fn diagnostics(&self) -> Vec<Diagnostic> {
        self.0.iter().map(Diagnostic::from).collect()
    }

    /// One problem in a file, without a line.
    pub fn in_file(file: &str, message: impl Into<String>) -> PluginError {
        PluginError(vec![Problem::Manifest(ManifestError {
            file: file.into(),
            line: None,
            column: None,
            field: String::new(),
            message: message.into(),
        })])
    }
}
