//! Claude Code's settings as a session would see them, without starting one: the official
//! TypeScript SDK's `resolveSettings`, `filterEscalatingDefaultMode` and `matchDeniedModels`.
//!
//! ```no_run
//! use twinwire::settings::{resolve_settings, filter_escalating_default_mode, ResolveOptions};
//!
//! let resolved = resolve_settings(&ResolveOptions::in_dir("/path/to/project"));
//! for (key, from) in &resolved.provenance {
//!     println!("{key}: from {}", from.source);
//! }
//! // Before acting on `permissions.defaultMode`, as the CLI does:
//! let trusted = filter_escalating_default_mode(&resolved);
//! # let _ = trusted;
//! ```
//!
//! The cascade, low to high precedence: the user's file (`$CLAUDE_CONFIG_DIR/settings.json`,
//! else `~/.claude/settings.json`), the project's (`<cwd>/.claude/settings.json`), the local one
//! (`<cwd>/.claude/settings.local.json`), then one policy source, the first that has anything:
//! the server-managed settings given, the machine's managed file
//! (`/etc/claude-code/managed-settings.json`), the managed settings given (only their
//! restrictive keys: see [`restrictive`]). Objects merge key by key, lists are joined (a text,
//! number or boolean already there is not added again), anything else is replaced. A file
//! that is missing, unreadable, larger than [`MAX_SETTINGS_FILE_BYTES`] or not a JSON object is
//! left out, as the CLI leaves it out. This reports the cascade, not a security decision.

mod denied_models;
mod merge;
pub mod restrictive;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::Serialize;
use serde_json::{Map, Value};

pub use denied_models::{match_denied_models, DeniedModelsMatch};

use crate::host::options::SettingSource;

/// The largest settings file read; a larger one is left out (settings files are small: this
/// bounds what a stray file can cost).
pub const MAX_SETTINGS_FILE_BYTES: u64 = 4 * 1024 * 1024;

/// What [`resolve_settings`] resolves for.
#[derive(Debug, Clone, Default)]
#[non_exhaustive]
pub struct ResolveOptions {
    /// The project directory (project and local files); `None`: the current directory.
    pub cwd: Option<PathBuf>,
    /// Which files to read; `None`: all three. The policy source is read either way.
    pub setting_sources: Option<Vec<SettingSource>>,
    /// Policy settings from the host (`Options::managed_settings`); only their restrictive
    /// keys are kept.
    pub managed_settings: Option<Value>,
    /// Policy settings as the server sends them; taken whole, and first.
    pub server_managed_settings: Option<Value>,
    /// The user's configuration directory; `None`: `$CLAUDE_CONFIG_DIR`, else `~/.claude`.
    pub config_dir: Option<PathBuf>,
    /// Where the machine's managed settings file is; `None`: `/etc/claude-code`.
    pub managed_dir: Option<PathBuf>,
}

impl ResolveOptions {
    /// Every source, for the project in `cwd`.
    pub fn in_dir(cwd: impl Into<PathBuf>) -> Self {
        Self {
            cwd: Some(cwd.into()),
            ..Self::default()
        }
    }

    /// Only these files (plus the policy source).
    pub fn setting_sources(mut self, sources: impl IntoIterator<Item = SettingSource>) -> Self {
        self.setting_sources = Some(sources.into_iter().collect());
        self
    }

    /// The host's managed settings.
    pub fn managed_settings(mut self, settings: Value) -> Self {
        self.managed_settings = Some(settings);
        self
    }

    /// The server's managed settings.
    pub fn server_managed_settings(mut self, settings: Value) -> Self {
        self.server_managed_settings = Some(settings);
        self
    }

    /// The user's configuration directory.
    pub fn config_dir(mut self, dir: impl Into<PathBuf>) -> Self {
        self.config_dir = Some(dir.into());
        self
    }

    /// The directory of the machine's managed settings file.
    pub fn managed_dir(mut self, dir: impl Into<PathBuf>) -> Self {
        self.managed_dir = Some(dir.into());
        self
    }
}

/// The settings a session would see, and where each came from (the TypeScript SDK's
/// `ResolvedSettings`; the same JSON).
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct ResolvedSettings {
    /// Every source merged in precedence order.
    pub effective: Map<String, Value>,
    /// For each top-level key of `effective`, the source that gave its value (the last that
    /// had the key).
    pub provenance: BTreeMap<String, Origin>,
    /// Each source read, low to high precedence, with its settings as read.
    pub sources: Vec<Source>,
}

/// Where a value came from.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct Origin {
    /// `user`, `project`, `local` or `managed`.
    pub source: String,
    /// The file, for a file.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub path: Option<String>,
    /// For `managed`: `remote` (the server's), `file` (the machine's) or `parent` (the host's).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub policy_origin: Option<String>,
}

/// One source read.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[non_exhaustive]
pub struct Source {
    /// Where it is.
    #[serde(flatten)]
    pub origin: Origin,
    /// Its settings.
    pub settings: Map<String, Value>,
}

/// Resolves the settings for `options` (see the module's docs).
pub fn resolve_settings(options: &ResolveOptions) -> ResolvedSettings {
    let cwd = options
        .cwd
        .clone()
        .or_else(|| std::env::current_dir().ok())
        .unwrap_or_default();
    // The configuration directory as the CLI finds it (the one saved sessions use).
    let config_dir = options.config_dir.clone().unwrap_or_else(|| {
        crate::sessions::SavedSessions::from_env()
            .config_dir()
            .to_owned()
    });
    let wanted = |source: &SettingSource| {
        options
            .setting_sources
            .as_ref()
            .is_none_or(|sources| sources.contains(source))
    };
    let mut sources = Vec::new();
    for (kind, path) in [
        (SettingSource::User, config_dir.join("settings.json")),
        (SettingSource::Project, cwd.join(".claude/settings.json")),
        (
            SettingSource::Local,
            cwd.join(".claude/settings.local.json"),
        ),
    ] {
        if !wanted(&kind) {
            continue;
        }
        if let Some(settings) = read_object(&path) {
            sources.push(Source {
                origin: Origin {
                    source: kind.as_str().to_owned(),
                    path: Some(path.display().to_string()),
                    policy_origin: None,
                },
                settings,
            });
        }
    }
    if let Some((origin, settings)) = policy(options) {
        sources.push(Source {
            origin: Origin {
                source: "managed".to_owned(),
                path: None,
                policy_origin: Some(origin.to_owned()),
            },
            settings,
        });
    }
    let mut effective = Map::new();
    let mut provenance = BTreeMap::new();
    for source in &sources {
        merge::merge_into(&mut effective, &source.settings);
        for key in source.settings.keys() {
            provenance.insert(key.clone(), source.origin.clone());
        }
    }
    ResolvedSettings {
        effective,
        provenance,
        sources,
    }
}

/// The policy source: the first of the server's, the machine's file and the host's that has
/// anything.
fn policy(options: &ResolveOptions) -> Option<(&'static str, Map<String, Value>)> {
    let non_empty = |value: &Option<Value>| {
        value
            .as_ref()
            .and_then(Value::as_object)
            .filter(|map| !map.is_empty())
            .cloned()
    };
    if let Some(server) = non_empty(&options.server_managed_settings) {
        return Some(("remote", server));
    }
    let managed_dir = options
        .managed_dir
        .clone()
        .unwrap_or_else(|| PathBuf::from("/etc/claude-code"));
    if let Some(file) =
        read_object(&managed_dir.join("managed-settings.json")).filter(|map| !map.is_empty())
    {
        return Some(("file", file));
    }
    let parent = non_empty(&options.managed_settings).map(|map| restrictive::keep(&map))?;
    (!parent.is_empty()).then_some(("parent", parent))
}

/// The JSON object in `path`, or `None` when it is missing, too large, unreadable or not an
/// object.
fn read_object(path: &Path) -> Option<Map<String, Value>> {
    use std::io::Read;
    let file = std::fs::File::open(path).ok()?;
    let mut text = String::new();
    file.take(MAX_SETTINGS_FILE_BYTES + 1)
        .read_to_string(&mut text)
        .ok()?;
    if text.len() as u64 > MAX_SETTINGS_FILE_BYTES {
        tracing::warn!(path = %path.display(), "settings file too large: left out");
        return None;
    }
    match serde_json::from_str(&text) {
        Ok(Value::Object(map)) => Some(map),
        _ => {
            tracing::debug!(path = %path.display(), "settings file is not a JSON object: left out");
            None
        }
    }
}

/// The effective settings without an escalating `permissions.defaultMode`
/// (`bypassPermissions`, `auto`, `acceptEdits`) set by the project's file, which anyone who
/// commits to the repository controls (the TypeScript SDK's `filterEscalatingDefaultMode`,
/// the CLI's trust filter).
pub fn filter_escalating_default_mode(resolved: &ResolvedSettings) -> Map<String, Value> {
    let mut effective = resolved.effective.clone();
    let set_by = resolved
        .sources
        .iter()
        .rev()
        .find(|source| {
            source
                .settings
                .get("permissions")
                .and_then(|p| p.get("defaultMode"))
                .is_some()
        })
        .map(|source| source.origin.source.as_str());
    let escalating = effective
        .get("permissions")
        .and_then(|p| p.get("defaultMode"))
        .and_then(Value::as_str)
        .is_some_and(|mode| matches!(mode, "bypassPermissions" | "auto" | "acceptEdits"));
    if escalating && set_by == Some("project") {
        if let Some(Value::Object(permissions)) = effective.get_mut("permissions") {
            permissions.remove("defaultMode");
        }
    }
    effective
}
