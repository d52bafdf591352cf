//! The session's permission rules, as [`crate::explain`] reads them, from its options: what
//! names the rule (and its source) of a decision the CLI reports as a rule's, and what the
//! misconfiguration warnings look at.

use std::path::PathBuf;

use super::decisions::Explainer;
use super::options::Options;

/// The configuration directory the CLI will read: the options' `CLAUDE_CONFIG_DIR`, else
/// their `HOME`'s `.claude`, else the host's.
fn config_dir(options: &Options) -> Option<PathBuf> {
    let var = |name: &str| {
        options
            .env
            .iter()
            .rev()
            .find(|(key, _)| key == name)
            .and_then(|(_, value)| value.clone())
            .map(PathBuf::from)
    };
    var("CLAUDE_CONFIG_DIR").or_else(|| var("HOME").map(|home| home.join(".claude")))
}

/// Where a session with `options` reads its rules.
#[cfg(feature = "policy")]
pub(crate) fn explain_options(options: &Options) -> crate::explain::ExplainOptions {
    use super::options::Settings;
    let cwd = options
        .cwd
        .clone()
        .or_else(|| std::env::current_dir().ok())
        .unwrap_or_default();
    let cwd = std::fs::canonicalize(&cwd).unwrap_or(cwd);
    let mut explain = crate::explain::ExplainOptions::in_dir(cwd);
    explain.setting_sources = options.setting_sources.clone();
    explain.config_dir = config_dir(options);
    explain.allowed_tools = options.allowed_tools.clone();
    explain.disallowed_tools = options.disallowed_tools.clone();
    explain.mode = options.permission_mode.clone();
    explain.flag_settings = match &options.settings {
        Some(Settings::Inline(value)) => Some(value.clone()),
        Some(Settings::File(path)) => std::fs::read_to_string(path)
            .ok()
            .and_then(|text| serde_json::from_str(&text).ok()),
        None => None,
    };
    explain.managed_settings = options
        .managed_settings
        .clone()
        .map(serde_json::Value::Object);
    explain.additional_directories = options.add_dirs.clone();
    explain
}

/// The session's rules read once, as an [`Explainer`] of its decisions.
#[cfg(feature = "policy")]
pub(crate) fn explainer(options: &Options) -> Option<Explainer> {
    use super::decisions::DecidedBy;
    use crate::explain::{Because, Permissions};
    let permissions = Permissions::resolve(&explain_options(options));
    Some(std::sync::Arc::new(
        move |tool: &str, input: &serde_json::Value| {
            let explained = permissions.explain(tool, input);
            match (explained.because, explained.rule) {
                (Because::Rule, Some(rule)) => DecidedBy::Rule {
                    rule: Some(rule.rule),
                    source: Some(rule.source),
                    path: rule.path,
                },
                (Because::Mode { mode }, _) => DecidedBy::Mode { mode },
                (Because::ReadsWorkingDirectory, _) => DecidedBy::Settings {
                    source: "config".to_owned(),
                    reason_type: Some("workingDir".to_owned()),
                },
                _ => DecidedBy::Unknown,
            }
        },
    ))
}

/// Without the feature `policy` no rule is named.
#[cfg(not(feature = "policy"))]
pub(crate) fn explainer(options: &Options) -> Option<Explainer> {
    let _ = config_dir(options);
    None
}
