//! Answers about configuration: `get_settings`, `get_hooks_listing`, `list_permission_rules`.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Number, Value};

/// A settings file that failed to parse or validate (and was skipped).
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct SettingsParseError {
    /// The settings file.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub file: Option<String>,
    /// Dot path of the bad field; empty for whole-file errors.
    #[serde(default)]
    pub path: String,
    /// What is wrong.
    #[serde(default)]
    pub message: String,
    /// Fields this version does not know.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// The answer to `get_settings` (shape not published beyond its description; typed as Claude
/// Code 2.1.330 writes it). Settings themselves stay maps: they are settings.json's open set.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct GetSettingsResponse {
    /// The effective merged settings.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub effective: Option<Map<String, Value>>,
    /// Each source's raw settings, lowest precedence first.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sources: Option<Vec<SettingsSourceEntry>>,
    /// What the session runs with now, after every source and flag.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub applied: Option<AppliedSettings>,
    /// Whether settings served by the organization apply (`ineligible`, …; open set).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub served_settings_state: Option<String>,
    /// Fields this version does not know.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// One source's settings in a [`GetSettingsResponse`].
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct SettingsSourceEntry {
    /// The source (`userSettings`, `projectSettings`, `localSettings`, `flagSettings`,
    /// `policySettings`, …; open set).
    #[serde(default)]
    pub source: String,
    /// Its settings, as written.
    #[serde(default)]
    pub settings: Map<String, Value>,
    /// Fields this version does not know.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// What a session runs with (`applied` of a [`GetSettingsResponse`]).
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct AppliedSettings {
    /// The model: absent, `null` or its id.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        with = "crate::serde_util::nullable"
    )]
    pub model: Option<Option<String>>,
    /// The effort level: absent, `null` or the level.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        with = "crate::serde_util::nullable"
    )]
    pub effort: Option<Option<String>>,
    /// The advisor model: absent, `null` or its id.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        with = "crate::serde_util::nullable"
    )]
    pub advisor: Option<Option<String>>,
    /// Whether ultracode is on.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ultracode: Option<bool>,
    /// Whether ultracode was asked for.
    #[serde(
        rename = "ultracodeRequested",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub ultracode_requested: Option<bool>,
    /// Whether ultracode can be had.
    #[serde(
        rename = "ultracodeAvailable",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub ultracode_available: Option<bool>,
    /// Whether "ultrathink" raises the budget on this model.
    #[serde(
        rename = "ultrathinkAvailable",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub ultrathink_available: Option<bool>,
    /// Whether file tools may not read outside the working directories.
    #[serde(
        rename = "outsideFileToolReadsBlocked",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub outside_file_tool_reads_blocked: Option<bool>,
    /// Whether file tools may not write outside the working directories.
    #[serde(
        rename = "outsideFileToolWritesBlocked",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub outside_file_tool_writes_blocked: Option<bool>,
    /// Whether only the launch's folders count as inside for those blocks.
    #[serde(
        rename = "outsideBlocksCountLaunchFoldersOnly",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub outside_blocks_count_launch_folders_only: Option<bool>,
    /// Whether the launch environment left the CLI's own files in place.
    #[serde(
        rename = "launchEnvLeftOwnFilesInPlace",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub launch_env_left_own_files_in_place: Option<bool>,
    /// Fields this version does not know.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// The answer to `get_hooks_listing`: what the /hooks menu shows, display-ready.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct GetHooksListingResponse {
    /// Events with at least one hook, in lifecycle order.
    #[serde(default)]
    pub events: Vec<HookListingEvent>,
    /// One row per hook.
    #[serde(default)]
    pub hooks: Vec<HookListingRow>,
    /// Every hook event, for an add-hook form.
    #[serde(rename = "eventCatalog")]
    #[serde(default)]
    pub event_catalog: Vec<HookCatalogEntry>,
    /// Managed-policy state.
    #[serde(default)]
    pub policy: HooksPolicy,
    /// Present under `--safe-mode`.
    #[serde(default, rename = "safeMode", skip_serializing_if = "Option::is_none")]
    pub safe_mode: Option<HooksSafeMode>,
    /// Present under `--bare` with hooks gated off.
    #[serde(default, rename = "bareMode", skip_serializing_if = "Option::is_none")]
    pub bare_mode: Option<HooksBareMode>,
    /// Settings files skipped by the merge.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub errors: Option<Vec<SettingsParseError>>,
    /// Fields this version does not know.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// An event that has hooks.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct HookListingEvent {
    /// Event name.
    #[serde(default)]
    pub name: String,
    /// One-line summary.
    #[serde(default)]
    pub summary: String,
    /// Whether its hooks take a matcher.
    #[serde(rename = "supportsMatcher")]
    #[serde(default)]
    pub supports_matcher: bool,
    /// Number of hooks listed.
    #[serde(rename = "hookCount")]
    #[serde(default)]
    pub hook_count: u64,
    /// Fields this version does not know.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// One listed hook.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct HookListingRow {
    /// Event name.
    #[serde(default)]
    pub event: String,
    /// Matcher, control characters revealed; empty when none.
    #[serde(default)]
    pub matcher: String,
    /// Raw source name (`userSettings`, `sessionHook`, `pluginHook`, …).
    #[serde(default)]
    pub source: String,
    /// Source, for people.
    #[serde(rename = "sourceLabel")]
    #[serde(default)]
    pub source_label: String,
    /// The providing plugin.
    #[serde(
        default,
        rename = "pluginName",
        skip_serializing_if = "Option::is_none"
    )]
    pub plugin_name: Option<String>,
    /// Hook type (`command`, `prompt`, `agent`, `http`, …).
    #[serde(rename = "type")]
    #[serde(default)]
    pub hook_type: String,
    /// One-line label.
    #[serde(rename = "displayText")]
    #[serde(default)]
    pub display_text: String,
    /// The command, prompt or URL that runs.
    #[serde(rename = "commandText")]
    #[serde(default)]
    pub command_text: String,
    /// Label for `command_text`.
    #[serde(rename = "contentLabel")]
    #[serde(default)]
    pub content_label: String,
    /// The hook's if-condition.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub condition: Option<String>,
    /// Timeout in seconds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timeout: Option<Number>,
    /// Status message shown while it runs.
    #[serde(
        default,
        rename = "statusMessage",
        skip_serializing_if = "Option::is_none"
    )]
    pub status_message: Option<String>,
    /// Runs once.
    #[serde(default, rename = "runsOnce", skip_serializing_if = "Option::is_none")]
    pub runs_once: Option<bool>,
    /// Runs in the background.
    #[serde(
        default,
        rename = "runsInBackground",
        skip_serializing_if = "Option::is_none"
    )]
    pub runs_in_background: Option<bool>,
    /// `true` when the session's mode or policy keeps it from running.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub disabled: Option<bool>,
    /// The entry as stored, for an edit form.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub editable: Option<HookListingEditable>,
    /// Fields this version does not know.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// A hook entry as stored in its settings file.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct HookListingEditable {
    /// The raw matcher; empty when none.
    #[serde(default)]
    pub matcher: String,
    /// The raw hook object.
    #[serde(default)]
    pub config: Map<String, Value>,
    /// `true` when HTTP header values were blanked.
    #[serde(
        default,
        rename = "headersRedacted",
        skip_serializing_if = "Option::is_none"
    )]
    pub headers_redacted: Option<bool>,
    /// Fields this version does not know.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// A hook event, for an add-hook form.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct HookCatalogEntry {
    /// Event name.
    #[serde(default)]
    pub name: String,
    /// One-line summary.
    #[serde(default)]
    pub summary: String,
    /// Whether its hooks take a matcher.
    #[serde(rename = "supportsMatcher")]
    #[serde(default)]
    pub supports_matcher: bool,
    /// Fields this version does not know.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// Managed-policy state of hooks.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct HooksPolicy {
    /// Managed `disableAllHooks`: nothing runs.
    #[serde(rename = "disabledByPolicy")]
    #[serde(default)]
    pub disabled_by_policy: bool,
    /// Managed `allowManagedHooksOnly`.
    #[serde(rename = "managedOnly")]
    #[serde(default)]
    pub managed_only: bool,
    /// Managed `strictPluginOnlyCustomization`.
    #[serde(rename = "pluginOnly")]
    #[serde(default)]
    pub plugin_only: bool,
    /// Effective `disableAllHooks`, whatever set it.
    #[serde(rename = "allDisabled")]
    #[serde(default)]
    pub all_disabled: bool,
    /// Hooks configured in managed settings.
    #[serde(rename = "policyHookCount")]
    #[serde(default)]
    pub policy_hook_count: u64,
    /// `true` when a managed settings source exists but could not be read.
    #[serde(
        default,
        rename = "policyUnreadable",
        skip_serializing_if = "Option::is_none"
    )]
    pub policy_unreadable: Option<bool>,
    /// Fields this version does not know.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// Safe-mode state of hooks.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct HooksSafeMode {
    /// Managed hooks still run.
    #[serde(rename = "managedHooksStillApply")]
    #[serde(default)]
    pub managed_hooks_still_apply: bool,
    /// How to leave safe mode.
    #[serde(rename = "exitHint")]
    #[serde(default)]
    pub exit_hint: String,
    /// Fields this version does not know.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// Bare-mode state of hooks.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct HooksBareMode {
    /// How to leave bare mode.
    #[serde(rename = "exitHint")]
    #[serde(default)]
    pub exit_hint: String,
    /// Fields this version does not know.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// The answer to `list_permission_rules`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct ListPermissionRulesResponse {
    /// The session's live permission rules.
    #[serde(default)]
    pub state: PermissionRulesState,
    /// Fields this version does not know.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// The session's live permission rules, as /permissions lists them.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct PermissionRulesState {
    /// The rules, each with its source.
    #[serde(default)]
    pub rules: Vec<PermissionRuleEntry>,
    /// Extra working directories in the permission scope.
    #[serde(rename = "workspaceDirectories")]
    #[serde(default)]
    pub workspace_directories: Vec<PermissionWorkspaceDirectory>,
    /// The session's original working directory.
    #[serde(rename = "originalCwd")]
    #[serde(default)]
    pub original_cwd: String,
    /// Managed settings allow only policy rules.
    #[serde(rename = "managedOnly")]
    #[serde(default)]
    pub managed_only: bool,
    /// Settings files skipped (their rules are not in force).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub errors: Option<Vec<SettingsParseError>>,
    /// `true` when the answer was cut because the connection stores answers.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub withheld: Option<bool>,
    /// Fields this version does not know.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

crate::string_enum! {
    /// What a permission rule does.
    pub enum RuleBehavior {
        /// Allows the call.
        Allow = "allow",
        /// Denies the call.
        Deny = "deny",
        /// Asks first.
        Ask = "ask",
    }
}

crate::string_enum! {
    /// Where a permission rule comes from.
    pub enum RuleSource {
        /// The user's settings file.
        UserSettings = "userSettings",
        /// The project's settings file.
        ProjectSettings = "projectSettings",
        /// The project's local settings file.
        LocalSettings = "localSettings",
        /// Flag settings.
        FlagSettings = "flagSettings",
        /// Managed policy settings.
        PolicySettings = "policySettings",
        /// A command-line argument.
        CliArg = "cliArg",
        /// A slash command's grant.
        Command = "command",
        /// A session-only approval.
        Session = "session",
        /// An MCP mount.
        McpMount = "mcpMount",
        /// Tool narrowing.
        ToolsNarrowing = "toolsNarrowing",
        /// An MCP server's tool policy.
        McpServerPolicy = "mcpServerPolicy",
        /// A host credential.
        HostCredential = "hostCredential",
    }
}

crate::string_enum! {
    /// Where a permission rule lives.
    pub enum RuleEditability {
        /// Saved in a settings file.
        Persistent = "persistent",
        /// In memory for this session.
        Session = "session",
        /// Not editable from here.
        Readonly = "readonly",
    }
}

/// One permission rule with its provenance.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PermissionRuleEntry {
    /// What it does.
    #[serde(default)]
    pub behavior: RuleBehavior,
    /// Where it comes from.
    #[serde(default)]
    pub source: RuleSource,
    /// The stored rule string, verbatim (escape before display).
    #[serde(default)]
    pub rule: String,
    /// A plain-language reading.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<PermissionRuleDescription>,
    /// Where it lives.
    #[serde(default)]
    pub editability: RuleEditability,
    /// `true` when managed settings make the session ignore it.
    #[serde(
        default,
        rename = "notInEffect",
        skip_serializing_if = "Option::is_none"
    )]
    pub not_in_effect: Option<bool>,
    /// Fields this version does not know.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// A plain-language reading of a rule, in three parts.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct PermissionRuleDescription {
    /// Text before the emphasis.
    #[serde(default)]
    pub prefix: String,
    /// The emphasized part.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub emphasis: Option<String>,
    /// Text after it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub suffix: Option<String>,
    /// Fields this version does not know.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// An extra working directory in the permission scope.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct PermissionWorkspaceDirectory {
    /// The directory.
    #[serde(default)]
    pub path: String,
    /// Where the grant came from (`localSettings`, `cliArg`, `session`, …).
    #[serde(default)]
    pub source: String,
    /// Fields this version does not know.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

crate::union::absent_is_empty!(RuleBehavior, RuleSource, RuleEditability);
