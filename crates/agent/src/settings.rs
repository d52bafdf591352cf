//! The settings a session starts with, read as Claude Code reads them and through the same
//! code twinwire's host uses (`twinwire::settings::resolve_settings`): the user's file
//! (`$CLAUDE_CONFIG_DIR/settings.json`, else `~/.claude/settings.json`), the project's
//! (`.claude/settings.json`), the local one (`.claude/settings.local.json`), those
//! `--setting-sources` names, then `--settings` (JSON or a file), then the managed settings
//! (the machine's `/etc/claude-code/managed-settings.json`, else the host's
//! `--managed-settings`). Objects merge key by key, lists are joined, anything else is replaced
//! by the later source; so a deny rule of any source holds.
//!
//! A `permissions.defaultMode` that widens what runs (`acceptEdits`, `bypassPermissions`,
//! `auto`) is not taken from the project's file, which anyone who commits to the repository
//! writes (Claude Code's trust filter); nor are the variables of its `env` that say where the
//! API is, how to reach it or with what credentials ([`UNTRUSTED_IN_PROJECT`]): a cloned
//! repository must not send the user's key elsewhere.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde_json::{Map, Value};
use twinwire::options::SettingSource;
use twinwire::settings::{resolve_settings, ResolveOptions};

/// Variables the project's settings file may not set (its other `env` entries apply).
pub const UNTRUSTED_IN_PROJECT: &[&str] = &[
    "ANTHROPIC_BASE_URL",
    "ANTHROPIC_API_KEY",
    "ANTHROPIC_AUTH_TOKEN",
    "ANTHROPIC_CUSTOM_HEADERS",
    "CLAUDE_CODE_OAUTH_TOKEN",
    "CLAUDE_CODE_SUBPROCESS_ENV_SCRUB",
    "HTTPS_PROXY",
    "https_proxy",
    "HTTP_PROXY",
    "http_proxy",
    "ALL_PROXY",
    "all_proxy",
    "NODE_EXTRA_CA_CERTS",
    "SSL_CERT_FILE",
    "SSL_CERT_DIR",
];

/// What a session takes from its settings.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct FromSettings {
    /// `permissions.allow`.
    pub allow: Vec<String>,
    /// `permissions.deny`.
    pub deny: Vec<String>,
    /// `permissions.ask`.
    pub ask: Vec<String>,
    /// `permissions.defaultMode`.
    pub default_mode: Option<String>,
    /// `permissions.additionalDirectories`, absolute (`~/` and relative paths resolved).
    pub additional_directories: Vec<PathBuf>,
    /// `permissions.disableBypassPermissionsMode: "disable"`.
    pub bypass_disabled: bool,
    /// `env`: variables set for the session and its tools, over the process's.
    pub env: BTreeMap<String, String>,
    /// `model`.
    pub model: Option<String>,
    /// `sandbox`: the sandbox block, as written (see `tools::sandbox`).
    pub sandbox: Option<Value>,
}

/// Where the settings are read from.
pub struct Sources<'a> {
    /// The session's directory (the project's files are under it).
    pub cwd: &'a Path,
    /// The session's environment (`CLAUDE_CONFIG_DIR`, `HOME`).
    pub env: &'a BTreeMap<String, String>,
    /// `--setting-sources`; `None`: all of them.
    pub setting_sources: Option<&'a [String]>,
    /// `--settings`.
    pub flag: Option<&'a Value>,
    /// `--managed-settings` (JSON text).
    pub managed: Option<&'a str>,
}

/// Every settings source `sources` reads, as read, lowest precedence first.
fn resolve(sources: &Sources<'_>) -> twinwire::settings::ResolvedSettings {
    let mut options = ResolveOptions::in_dir(sources.cwd);
    if let Some(dir) = config_dir(sources.env) {
        options = options.config_dir(dir);
    }
    if let Some(names) = sources.setting_sources {
        options = options.setting_sources(names.iter().map(|s| SettingSource::from(s.as_str())));
    }
    if let Some(managed) = sources
        .managed
        .and_then(|text| serde_json::from_str::<Value>(text).ok())
    {
        options = options.managed_settings(managed);
    }
    resolve_settings(&options)
}

/// Each source's settings by Claude Code's name for it (`userSettings`, `projectSettings`,
/// `localSettings`, `flagSettings`, `policySettings`), lowest precedence first.
pub fn layers(sources: &Sources<'_>) -> Vec<(&'static str, Map<String, Value>)> {
    let mut layers: Vec<(&'static str, Map<String, Value>)> = Vec::new();
    let mut managed = Vec::new();
    for source in resolve(sources).sources {
        let name = match source.origin.source.as_str() {
            "user" => "userSettings",
            "project" => "projectSettings",
            "local" => "localSettings",
            "managed" => {
                managed.push(("policySettings", source.settings));
                continue;
            }
            _ => continue,
        };
        layers.push((name, source.settings));
    }
    if let Some(Value::Object(flag)) = sources.flag {
        layers.push(("flagSettings", flag.clone()));
    }
    layers.extend(managed);
    layers
}

/// Every hook of a settings object (`hooks.<Event>[].hooks[]`), in order: its event, its
/// matcher (empty when none) and the hook as written.
pub fn hook_entries(settings: &Map<String, Value>) -> Vec<(&str, &str, &Map<String, Value>)> {
    let mut entries = Vec::new();
    for (event, matchers) in settings
        .get("hooks")
        .and_then(Value::as_object)
        .into_iter()
        .flatten()
    {
        for matcher in matchers.as_array().into_iter().flatten() {
            let pattern = matcher["matcher"].as_str().unwrap_or_default();
            for hook in matcher["hooks"].as_array().into_iter().flatten() {
                if let Some(hook) = hook.as_object() {
                    entries.push((event.as_str(), pattern, hook));
                }
            }
        }
    }
    entries
}

/// The effective settings of `sources`, merged in Claude Code's precedence.
pub fn effective(sources: &Sources<'_>) -> Map<String, Value> {
    let resolved = resolve(sources);
    let mut effective = Map::new();
    let mut managed = Vec::new();
    for source in &resolved.sources {
        let mut settings = source.settings.clone();
        match source.origin.source.as_str() {
            "managed" => {
                managed.push(settings);
                continue;
            }
            "project" => {
                drop_escalating_mode(&mut settings);
                drop_untrusted_env(&mut settings);
            }
            _ => {}
        }
        merge(&mut effective, &settings);
    }
    if let Some(Value::Object(flag)) = sources.flag {
        merge(&mut effective, flag);
    }
    for settings in &managed {
        merge(&mut effective, settings);
    }
    effective
}

/// What the session takes from `settings` (see [`FromSettings`]); `home` resolves `~/`.
pub fn read(settings: &Map<String, Value>, cwd: &Path, home: Option<&Path>) -> FromSettings {
    let permissions = settings.get("permissions");
    let strings = |key: &str| -> Vec<String> {
        permissions
            .and_then(|p| p.get(key))
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter_map(Value::as_str)
            .map(str::to_owned)
            .collect()
    };
    let additional_directories = strings("additionalDirectories")
        .iter()
        .map(|dir| match (dir.strip_prefix("~/"), home) {
            (Some(rest), Some(home)) => home.join(rest),
            _ => cwd.join(dir),
        })
        .collect();
    FromSettings {
        allow: strings("allow"),
        deny: strings("deny"),
        ask: strings("ask"),
        default_mode: permissions
            .and_then(|p| p.get("defaultMode"))
            .and_then(Value::as_str)
            .map(str::to_owned),
        additional_directories,
        bypass_disabled: permissions
            .and_then(|p| p.get("disableBypassPermissionsMode"))
            .and_then(Value::as_str)
            == Some("disable"),
        env: settings
            .get("env")
            .and_then(Value::as_object)
            .into_iter()
            .flatten()
            .filter_map(|(name, value)| match value {
                Value::String(text) => Some((name.clone(), text.clone())),
                Value::Number(_) | Value::Bool(_) => Some((name.clone(), value.to_string())),
                _ => None,
            })
            .collect(),
        model: settings
            .get("model")
            .and_then(Value::as_str)
            .filter(|m| !m.trim().is_empty())
            .map(str::to_owned),
        sandbox: settings.get("sandbox").cloned(),
    }
}

/// The user's configuration directory as the session's environment names it.
pub fn config_dir(env: &BTreeMap<String, String>) -> Option<PathBuf> {
    if let Some(dir) = env.get("CLAUDE_CONFIG_DIR").filter(|d| !d.is_empty()) {
        return Some(PathBuf::from(dir));
    }
    env.get("HOME")
        .filter(|d| !d.is_empty())
        .map(|home| Path::new(home).join(".claude"))
}

/// Removes a `defaultMode` that widens what runs.
fn drop_escalating_mode(settings: &mut Map<String, Value>) {
    if let Some(Value::Object(permissions)) = settings.get_mut("permissions") {
        let widens = permissions
            .get("defaultMode")
            .and_then(Value::as_str)
            .is_some_and(|mode| matches!(mode, "acceptEdits" | "bypassPermissions" | "auto"));
        if widens {
            tracing::warn!(
                "the project's settings may not widen permissions.defaultMode: left out"
            );
            permissions.remove("defaultMode");
        }
    }
}

/// Removes the `env` entries of [`UNTRUSTED_IN_PROJECT`].
fn drop_untrusted_env(settings: &mut Map<String, Value>) {
    if let Some(Value::Object(env)) = settings.get_mut("env") {
        for name in UNTRUSTED_IN_PROJECT {
            if env.remove(*name).is_some() {
                tracing::warn!(
                    name,
                    "the project's settings may not set this variable: left out"
                );
            }
        }
    }
}

/// `over` merged into `into`: objects key by key, lists joined (without repeating a scalar
/// already there), anything else replaced.
fn merge(into: &mut Map<String, Value>, over: &Map<String, Value>) {
    for (key, value) in over {
        match (into.get_mut(key), value) {
            (Some(Value::Object(old)), Value::Object(new)) => merge(old, new),
            (Some(Value::Array(old)), Value::Array(new)) => {
                for item in new {
                    if item.is_object() || item.is_array() || !old.contains(item) {
                        old.push(item.clone());
                    }
                }
            }
            _ => {
                into.insert(key.clone(), value.clone());
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn object(value: Value) -> Map<String, Value> {
        match value {
            Value::Object(map) => map,
            _ => unreachable!(),
        }
    }

    #[test]
    fn every_source_adds_its_rules_and_the_later_one_wins_the_rest() {
        let dir = tempfile::tempdir().unwrap();
        let home = dir.path().join("home");
        let work = dir.path().join("work");
        std::fs::create_dir_all(home.join(".claude")).unwrap();
        std::fs::create_dir_all(work.join(".claude")).unwrap();
        let write = |path: PathBuf, value: Value| std::fs::write(path, value.to_string()).unwrap();
        write(
            home.join(".claude/settings.json"),
            json!({"model": "haiku", "permissions": {"deny": ["Bash(user:*)"], "defaultMode": "plan"}}),
        );
        write(
            work.join(".claude/settings.json"),
            json!({"permissions": {"deny": ["Bash(project:*)"], "defaultMode": "bypassPermissions"}}),
        );
        write(
            work.join(".claude/settings.local.json"),
            json!({"permissions": {"deny": ["Bash(local:*)"], "ask": ["Write"]}}),
        );
        let env: BTreeMap<String, String> =
            [("HOME".to_owned(), home.display().to_string())].into();
        let flag = json!({"permissions": {"deny": ["Bash(flag:*)"]}, "model": "sonnet"});
        let settings = effective(&Sources {
            cwd: &work,
            env: &env,
            setting_sources: None,
            flag: Some(&flag),
            managed: Some(r#"{"permissions":{"deny":["Bash(managed:*)"]}}"#),
        });
        let read = read(&settings, &work, Some(&home));
        assert_eq!(
            read.deny,
            [
                "Bash(user:*)",
                "Bash(project:*)",
                "Bash(local:*)",
                "Bash(flag:*)",
                "Bash(managed:*)"
            ]
        );
        assert_eq!(read.ask, ["Write"]);
        assert_eq!(read.model.as_deref(), Some("sonnet"));
        // The project's bypassPermissions is left out; the user's plan stays.
        assert_eq!(read.default_mode.as_deref(), Some("plan"));
        let only_project = effective(&Sources {
            cwd: &work,
            env: &env,
            setting_sources: Some(&["project".to_owned()]),
            flag: None,
            managed: None,
        });
        assert_eq!(
            super::read(&only_project, &work, None).deny,
            ["Bash(project:*)"]
        );
    }

    #[test]
    fn lists_join_and_objects_merge() {
        let mut into = object(json!({"a": [1, 2], "b": {"c": 1}, "d": 1}));
        merge(
            &mut into,
            &object(json!({"a": [2, 3], "b": {"e": 2}, "d": 2})),
        );
        assert_eq!(
            Value::Object(into),
            json!({"a": [1, 2, 3], "b": {"c": 1, "e": 2}, "d": 2})
        );
    }
}
