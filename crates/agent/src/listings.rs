//! The requests that show a host the session's configuration, and the one that writes it:
//! `get_hooks_listing` (the hooks of every settings source and the host's callbacks, and the
//! events this agent fires), `list_permission_rules` (the rules in force, each with where it
//! comes from) and `update_settings` (a few string settings written to the local or the
//! user's settings file, as Claude Code's own writer takes them).

use std::path::{Path, PathBuf};

use serde_json::{Map, Value};
use twinwire::engine::HandlerError;
use twinwire_protocol::control::{
    GetHooksListingResponse, HookCatalogEntry, HookListingEditable, HookListingEvent,
    HookListingRow, HooksPolicy, ListPermissionRulesResponse, PermissionRuleDescription,
    PermissionRuleEntry, PermissionRulesState, PermissionWorkspaceDirectory, RuleBehavior,
    RuleEditability, RuleSource, UpdateSettingsRequest, UpdateSettingsSource,
};

use crate::session::Session;

/// The hook events this agent fires, in the order of a session: name, summary, whether a
/// matcher applies.
const EVENTS: &[(&str, &str, bool)] = &[
    (
        "SessionStart",
        "When a session starts, resumes or is cleared",
        true,
    ),
    (
        "UserPromptSubmit",
        "When a prompt arrives, before the model sees it",
        false,
    ),
    (
        "UserPromptExpansion",
        "When a slash command becomes a prompt",
        true,
    ),
    (
        "PreToolUse",
        "Before a tool runs; may allow, refuse or change the call",
        true,
    ),
    ("PostToolUse", "After a tool ran", true),
    ("PostToolUseFailure", "After a tool failed", true),
    (
        "PostToolBatch",
        "After every call of one reply has its result",
        false,
    ),
    ("SubagentStart", "When a subagent starts", true),
    ("SubagentStop", "When a subagent is about to answer", true),
    ("PreCompact", "Before the conversation is compacted", true),
    ("PostCompact", "After the conversation was compacted", true),
    ("Stop", "When the turn is about to end", false),
    ("StopFailure", "When the turn ends on an API error", true),
    ("SessionEnd", "When the session ends", true),
];

/// The keys `update_settings` writes, per file (string values only).
const LOCAL_KEYS: &[&str] = &["outputStyle", "effortLevel"];
const USER_KEYS: &[&str] = &["effortLevel"];

/// The largest settings file `update_settings` rewrites.
const MAX_SETTINGS_BYTES: u64 = 4 * 1024 * 1024;

fn layers(session: &Session) -> Vec<(&'static str, Map<String, Value>)> {
    crate::settings::layers(&session.config.settings_sources())
}

fn label(source: &str) -> &'static str {
    match source {
        "userSettings" => "User settings",
        "projectSettings" => "Project settings",
        "localSettings" => "Local settings",
        "flagSettings" => "Settings given on the command line",
        "policySettings" => "Managed settings",
        _ => "The host's callbacks",
    }
}

/// `get_hooks_listing`.
pub(crate) fn hooks_listing(session: &Session) -> GetHooksListingResponse {
    let layers = layers(session);
    let all_disabled = layers
        .iter()
        .any(|(_, settings)| settings.get("disableAllHooks") == Some(&Value::Bool(true)));
    let mut rows = Vec::new();
    let mut policy_hooks = 0;
    for (source, settings) in &layers {
        for (event, pattern, config) in crate::settings::hook_entries(settings) {
            if *source == "policySettings" {
                policy_hooks += 1;
            }
            rows.push(settings_row(source, event, pattern, config, all_disabled));
        }
    }
    for (event, matchers) in session.state().hooks.by_event() {
        for matcher in matchers {
            let pattern = matcher.matcher.clone().flatten().unwrap_or_default();
            for id in &matcher.hook_callback_ids {
                rows.push(HookListingRow {
                    event: event.clone(),
                    matcher: pattern.clone(),
                    source: "sessionHook".to_owned(),
                    source_label: label("sessionHook").to_owned(),
                    hook_type: "callback".to_owned(),
                    display_text: format!("callback {id}"),
                    command_text: id.clone(),
                    content_label: "Callback".to_owned(),
                    timeout: matcher.timeout.map(Into::into),
                    ..HookListingRow::default()
                });
            }
        }
    }
    let events = EVENTS
        .iter()
        .filter_map(|(name, summary, matcher)| {
            let count = rows.iter().filter(|row| row.event == *name).count();
            (count > 0).then(|| HookListingEvent {
                name: (*name).to_owned(),
                summary: (*summary).to_owned(),
                supports_matcher: *matcher,
                hook_count: count as u64,
                ..HookListingEvent::default()
            })
        })
        .collect();
    GetHooksListingResponse {
        events,
        hooks: rows,
        event_catalog: EVENTS
            .iter()
            .map(|(name, summary, matcher)| HookCatalogEntry {
                name: (*name).to_owned(),
                summary: (*summary).to_owned(),
                supports_matcher: *matcher,
                ..HookCatalogEntry::default()
            })
            .collect(),
        policy: HooksPolicy {
            all_disabled,
            policy_hook_count: policy_hooks,
            ..HooksPolicy::default()
        },
        ..GetHooksListingResponse::default()
    }
}

/// One hook of a settings file; a kind this agent does not run is listed as disabled, as is
/// every hook under `disableAllHooks`.
fn settings_row(
    source: &str,
    event: &str,
    pattern: &str,
    config: &Map<String, Value>,
    all_disabled: bool,
) -> HookListingRow {
    let kind = config
        .get("type")
        .and_then(Value::as_str)
        .unwrap_or("command");
    let (text, content) = match kind {
        "command" => (config.get("command"), "Command"),
        "http" => (config.get("url"), "URL"),
        _ => (config.get("prompt"), "Prompt"),
    };
    let text = text.and_then(Value::as_str).unwrap_or_default().to_owned();
    let mut editable = config.clone();
    let redacted = editable
        .get_mut("headers")
        .and_then(Value::as_object_mut)
        .map(|headers| {
            for value in headers.values_mut() {
                *value = Value::String(String::new());
            }
        });
    HookListingRow {
        event: event.to_owned(),
        matcher: pattern.to_owned(),
        source: source.to_owned(),
        source_label: label(source).to_owned(),
        hook_type: kind.to_owned(),
        display_text: text.lines().next().unwrap_or_default().to_owned(),
        command_text: text,
        content_label: content.to_owned(),
        timeout: config
            .get("timeout")
            .and_then(Value::as_u64)
            .map(Into::into),
        disabled: (all_disabled || !matches!(kind, "command" | "prompt" | "agent" | "http"))
            .then_some(true),
        editable: Some(HookListingEditable {
            matcher: pattern.to_owned(),
            config: editable,
            headers_redacted: redacted.map(|()| true),
            ..HookListingEditable::default()
        }),
        ..HookListingRow::default()
    }
}

/// `list_permission_rules`: the rules in force, each under the first source that names it;
/// a rule no settings file names came from the command line when the command line gave it,
/// else from the host during the session.
pub(crate) fn permission_rules(session: &Session) -> ListPermissionRulesResponse {
    let layers = layers(session);
    let state = session.state();
    let policy = state.permissions.policy();
    let live = [
        (
            RuleBehavior::Allow,
            "allow",
            policy
                .allow_rules()
                .iter()
                .map(|r| r.as_str().to_owned())
                .collect::<Vec<_>>(),
            &session.config.allowed_tools,
        ),
        (
            RuleBehavior::Deny,
            "deny",
            policy
                .deny_rules()
                .iter()
                .map(|r| r.as_str().to_owned())
                .collect(),
            &session.config.disallowed_tools,
        ),
        (
            RuleBehavior::Ask,
            "ask",
            state.permissions.ask_rules(),
            &session.config.ask_rules,
        ),
    ];
    let mut rules = Vec::new();
    for (behavior, key, in_force, from_config) in live {
        for rule in in_force {
            let named_by = layers.iter().find(|(_, settings)| {
                settings["permissions"][key]
                    .as_array()
                    .is_some_and(|list| list.iter().any(|r| r.as_str() == Some(rule.as_str())))
            });
            let (source, editability) = match named_by.map(|(name, _)| *name) {
                Some("userSettings") => (RuleSource::UserSettings, RuleEditability::Persistent),
                Some("projectSettings") => {
                    (RuleSource::ProjectSettings, RuleEditability::Persistent)
                }
                Some("localSettings") => (RuleSource::LocalSettings, RuleEditability::Persistent),
                Some("flagSettings") => (RuleSource::FlagSettings, RuleEditability::Readonly),
                Some(_) => (RuleSource::PolicySettings, RuleEditability::Readonly),
                None if from_config.contains(&rule) => {
                    (RuleSource::CliArg, RuleEditability::Session)
                }
                None => (RuleSource::Session, RuleEditability::Session),
            };
            rules.push(PermissionRuleEntry {
                behavior: behavior.clone(),
                source,
                description: Some(describe(&rule)),
                rule,
                editability,
                not_in_effect: None,
                extra: Map::new(),
            });
        }
    }
    let cwd = &session.config.cwd;
    let workspace_directories = state
        .permissions
        .dirs()
        .iter()
        .skip(1)
        .map(|dir| PermissionWorkspaceDirectory {
            path: dir.display().to_string(),
            source: directory_source(&layers, &session.config.add_dirs, dir).to_owned(),
            ..PermissionWorkspaceDirectory::default()
        })
        .collect();
    ListPermissionRulesResponse {
        state: PermissionRulesState {
            rules,
            workspace_directories,
            original_cwd: std::fs::canonicalize(cwd)
                .unwrap_or_else(|_| cwd.clone())
                .display()
                .to_string(),
            ..PermissionRulesState::default()
        },
        ..ListPermissionRulesResponse::default()
    }
}

fn directory_source(
    layers: &[(&'static str, Map<String, Value>)],
    add_dirs: &[PathBuf],
    dir: &Path,
) -> &'static str {
    let named = layers.iter().find(|(_, settings)| {
        settings["permissions"]["additionalDirectories"]
            .as_array()
            .is_some_and(|list| list.iter().any(|d| d.as_str().map(Path::new) == Some(dir)))
    });
    match named {
        Some((name, _)) => name,
        None if add_dirs.iter().any(|d| d == dir) => "cliArg",
        None => "session",
    }
}

/// A rule in words: what it covers, the covered part set apart.
fn describe(rule: &str) -> PermissionRuleDescription {
    let part = |prefix: &str, emphasis: &str| PermissionRuleDescription {
        prefix: prefix.to_owned(),
        emphasis: Some(emphasis.to_owned()),
        ..PermissionRuleDescription::default()
    };
    let Some((tool, inner)) = rule.strip_suffix(')').and_then(|r| r.split_once('(')) else {
        return part("Every use of ", rule);
    };
    match tool {
        "Bash" => match inner
            .strip_suffix(":*")
            .or_else(|| inner.strip_suffix(" *"))
        {
            Some(prefix) => part("Any Bash command starting with ", prefix),
            None => part("The Bash command ", inner),
        },
        "WebFetch" => part(
            "Fetching from ",
            inner.strip_prefix("domain:").unwrap_or(inner),
        ),
        _ => part(&format!("{tool} of "), inner),
    }
}

/// `update_settings`: `settings` merged into the local settings file of the session's
/// directory or the user's settings file, written whole (a temporary file renamed over it).
/// Only the keys Claude Code's writer takes, with string values; a file that is not a JSON
/// object is left as it is and the request refused.
pub(crate) fn update_settings(
    session: &Session,
    request: &UpdateSettingsRequest,
) -> Result<(), HandlerError> {
    let (path, allowed) = match request.source {
        UpdateSettingsSource::LocalSettings => (
            session
                .config
                .cwd
                .join(".claude")
                .join("settings.local.json"),
            LOCAL_KEYS,
        ),
        UpdateSettingsSource::UserSettings => {
            (session.store.config_dir().join("settings.json"), USER_KEYS)
        }
        _ => {
            return Err(HandlerError::new(
                "update_settings writes localSettings or userSettings",
            ))
        }
    };
    let refused: Vec<&str> = request
        .settings
        .iter()
        .filter(|(key, value)| !allowed.contains(&key.as_str()) || !value.is_string())
        .map(|(key, _)| key.as_str())
        .collect();
    if !refused.is_empty() {
        return Err(HandlerError::new(format!(
            "update_settings keys not allowed: {}",
            refused.join(", ")
        )));
    }
    let fail = |what: &str, err: &dyn std::fmt::Display| {
        HandlerError::new(format!("{what} {}: {err}", path.display()))
    };
    let mut current = match std::fs::metadata(&path) {
        Ok(meta) if meta.len() > MAX_SETTINGS_BYTES => {
            return Err(fail("too large to rewrite:", &meta.len()))
        }
        Ok(_) => {
            let text = std::fs::read_to_string(&path).map_err(|e| fail("reading", &e))?;
            match serde_json::from_str::<Value>(&text) {
                Ok(Value::Object(map)) => map,
                Ok(_) => return Err(fail("not a JSON object:", &"left as it is")),
                Err(err) => return Err(fail("not JSON, left as it is:", &err)),
            }
        }
        Err(err) if err.kind() == std::io::ErrorKind::NotFound => Map::new(),
        Err(err) => return Err(fail("reading", &err)),
    };
    for (key, value) in &request.settings {
        current.insert(key.clone(), value.clone());
    }
    let dir = path.parent().unwrap_or(Path::new("."));
    std::fs::create_dir_all(dir).map_err(|e| fail("creating the folder of", &e))?;
    let text = serde_json::to_string_pretty(&Value::Object(current)).unwrap_or_default();
    let temp = dir.join(format!(".settings-{}.tmp", std::process::id()));
    std::fs::write(&temp, format!("{text}\n"))
        .and_then(|()| std::fs::rename(&temp, &path))
        .map_err(|e| {
            let _ = std::fs::remove_file(&temp);
            fail("writing", &e)
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rules_are_told_in_words() {
        let d = describe("Bash(ls:*)");
        assert_eq!(
            (d.prefix.as_str(), d.emphasis.as_deref()),
            ("Any Bash command starting with ", Some("ls"))
        );
        assert_eq!(describe("Bash(npm test)").prefix, "The Bash command ");
        assert_eq!(describe("Read").emphasis.as_deref(), Some("Read"));
        assert_eq!(
            describe("WebFetch(domain:example.com)").emphasis.as_deref(),
            Some("example.com")
        );
        assert_eq!(describe("Edit(./src/**)").prefix, "Edit of ");
    }
}
