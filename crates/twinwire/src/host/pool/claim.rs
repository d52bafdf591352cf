//! A claim: the per-session half of a pooled session's options, given when the session starts
//! rather than when its CLI did (the TypeScript SDK's `ClaimOptions`).
//!
//! On Claude Code 2.1.330 and newer a spare parked with `--await-claim` takes them with one
//! `claim_session` request; a session the CLI cannot claim (an older CLI, a refusal) is started
//! cold with the claim merged into the pool's options, so a claim always gets the session it
//! asked for, or an error saying why not.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde_json::{Map, Value};
use twinwire_protocol::control::{
    AgentDefinition, ApplyFlagSettingsRequest, ControlRequestBody, InitializeResponse,
    SetMaxThinkingTokensRequest, SetModelRequest,
};
use twinwire_protocol::permission::PermissionMode;
use twinwire_protocol::Unknown;

use crate::error::{Error, Result};
use crate::host::options::{Options, Settings};
use crate::host::Client;

/// Settings keys that govern hooks: a parked CLI has registered its hooks already, so a claim
/// cannot change them (the CLI and the TypeScript SDK refuse them too); they belong to the
/// pool's options.
pub const HOOK_SETTINGS_KEYS: [&str; 5] = [
    "hooks",
    "disableAllHooks",
    "allowManagedHooksOnly",
    "allowedHttpHookUrls",
    "httpHookAllowedEnvVars",
];

/// Settings keys applied right behind the claim rather than ahead of it, as the TypeScript SDK
/// does: they do not decide which of the folder's servers and plugins the claim starts.
const KEYS_BEHIND_THE_CLAIM: [&str; 6] = [
    "model",
    "agent",
    "fastMode",
    "permissions",
    "availableModels",
    "disableAutoMode",
];

/// What a session needs that its spare could not know when it started: its folder, model,
/// permission mode, a settings overlay, agents, an appended prompt, a title and credentials.
///
/// ```
/// use twinwire::host::pool::Claim;
/// use twinwire::protocol::permission::PermissionMode;
///
/// let claim = Claim::new("/srv/checkouts/alice")
///     .model("claude-sonnet-4-5")
///     .permission_mode(PermissionMode::AcceptEdits)
///     .title("Fix the login form")
///     .credential("CLAUDE_CODE_OAUTH_TOKEN", "…");
/// # let _ = claim;
/// ```
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct Claim {
    /// The session's working directory; a relative path is taken from this process's.
    pub cwd: PathBuf,
    /// More directories the session's tools may use (as `--add-dir`).
    pub additional_directories: Vec<PathBuf>,
    /// The model.
    pub model: Option<String>,
    /// The permission mode; part of the claim itself, so a mode the CLI cannot take refuses
    /// the claim rather than running the session under another.
    pub permission_mode: Option<PermissionMode>,
    /// The thinking budget in tokens (0: no extended thinking).
    pub max_thinking_tokens: Option<u64>,
    /// A flag-layer settings overlay (as `apply_flag_settings`), without hook keys.
    pub settings: Option<Map<String, Value>>,
    /// Custom subagents by name (replacing the pool's).
    pub agents: BTreeMap<String, AgentDefinition>,
    /// Text appended to the system prompt.
    pub append_system_prompt: Option<String>,
    /// The session's title.
    pub title: Option<String>,
    /// Variables for this session only. A parked CLI accepts only the ones it reads after
    /// start-up (`CLAUDE_CODE_OAUTH_TOKEN`, `CLAUDE_CODE_SESSION_ACCESS_TOKEN`,
    /// `CLAUDE_CODE_HOST_SESSION_ID`); with any other the session is started cold, with the
    /// variable in its environment. Never logged.
    pub env: BTreeMap<String, String>,
    /// Whether the claim's answer carries the claimed session's commands, agents and models
    /// (what `initialize` answers); default true, as in the TypeScript SDK.
    pub include_initialize: bool,
}

impl Claim {
    /// A claim of a session in `cwd`, with nothing else changed.
    pub fn new(cwd: impl Into<PathBuf>) -> Self {
        Self {
            cwd: cwd.into(),
            additional_directories: Vec::new(),
            model: None,
            permission_mode: None,
            max_thinking_tokens: None,
            settings: None,
            agents: BTreeMap::new(),
            append_system_prompt: None,
            title: None,
            env: BTreeMap::new(),
            include_initialize: true,
        }
    }

    /// Adds a directory the tools may use.
    #[must_use]
    pub fn add_dir(mut self, dir: impl Into<PathBuf>) -> Self {
        self.additional_directories.push(dir.into());
        self
    }

    /// The model.
    #[must_use]
    pub fn model(mut self, model: impl Into<String>) -> Self {
        self.model = Some(model.into());
        self
    }

    /// The permission mode.
    #[must_use]
    pub fn permission_mode(mut self, mode: PermissionMode) -> Self {
        self.permission_mode = Some(mode);
        self
    }

    /// The thinking budget in tokens (0: none).
    #[must_use]
    pub fn max_thinking_tokens(mut self, tokens: u64) -> Self {
        self.max_thinking_tokens = Some(tokens);
        self
    }

    /// A settings overlay (flag layer), e.g. `{"effortLevel": "high"}`.
    #[must_use]
    pub fn settings(mut self, settings: Map<String, Value>) -> Self {
        self.settings = Some(settings);
        self
    }

    /// Adds a custom subagent.
    #[must_use]
    pub fn agent(mut self, name: impl Into<String>, agent: AgentDefinition) -> Self {
        self.agents.insert(name.into(), agent);
        self
    }

    /// Text appended to the system prompt.
    #[must_use]
    pub fn append_system_prompt(mut self, text: impl Into<String>) -> Self {
        self.append_system_prompt = Some(text.into());
        self
    }

    /// The session's title.
    #[must_use]
    pub fn title(mut self, title: impl Into<String>) -> Self {
        self.title = Some(title.into());
        self
    }

    /// A variable for this session only, typically a credential.
    #[must_use]
    pub fn credential(mut self, key: impl Into<String>, value: impl Into<String>) -> Self {
        self.env.insert(key.into(), value.into());
        self
    }

    /// Whether the answer carries the claimed session's `initialize` payload.
    #[must_use]
    pub fn include_initialize(mut self, include: bool) -> Self {
        self.include_initialize = include;
        self
    }

    /// The hook keys of the settings overlay, which no claim can carry.
    pub(super) fn hook_settings(&self) -> Vec<&'static str> {
        HOOK_SETTINGS_KEYS
            .into_iter()
            .filter(|key| self.settings.as_ref().is_some_and(|s| s.contains_key(*key)))
            .collect()
    }

    /// Whether the claim asks for nothing that a CLI started with `options` does not have
    /// already, so that any spare of theirs serves it as it is.
    pub(super) fn asks_nothing_beyond(&self, options: &Options) -> bool {
        let same_dir = match &options.cwd {
            Some(dir) => same_path(dir, &self.cwd),
            None => std::env::current_dir().is_ok_and(|here| same_path(&here, &self.cwd)),
        };
        same_dir
            && self.additional_directories.is_empty()
            && self.model.is_none()
            && self.permission_mode.is_none()
            && self.max_thinking_tokens.is_none()
            && self.settings.as_ref().is_none_or(Map::is_empty)
            && self.agents.is_empty()
            && self.append_system_prompt.is_none()
            && self.title.is_none()
            && self.env.is_empty()
    }

    /// `options` with this claim in them, for a session started cold; also the settings
    /// overlay when it cannot join the options' own (a settings file), to be applied once the
    /// CLI runs.
    pub(super) fn merged_into(
        &self,
        options: &Options,
    ) -> Result<(Options, Option<Map<String, Value>>)> {
        let mut builder = options.to_builder().cwd(absolute(&self.cwd)?);
        if let Some(model) = &self.model {
            builder = builder.model(model.clone());
        }
        if let Some(mode) = self.permission_mode.clone() {
            builder = builder.permission_mode(mode);
        }
        if let Some(tokens) = self.max_thinking_tokens {
            builder = builder.max_thinking_tokens(tokens);
        }
        if !self.agents.is_empty() {
            builder = builder.agents(self.agents.clone());
        }
        if let Some(text) = &self.append_system_prompt {
            // The wire field the claim sets: appended to whichever prompt the options give.
            builder = builder.initialize_field("appendSystemPrompt", Value::String(text.clone()));
        }
        if let Some(title) = &self.title {
            builder = builder.title(title.clone());
        }
        for (key, value) in &self.env {
            builder = builder.env(key, value);
        }
        if !self.additional_directories.is_empty() {
            let dirs = options.add_dirs.iter().cloned().chain(
                self.additional_directories
                    .iter()
                    .map(|dir| self.cwd.join(dir)),
            );
            builder = builder.add_dirs(dirs.collect::<Vec<_>>());
        }
        let mut later = None;
        if let Some(overlay) = self.settings.clone().filter(|s| !s.is_empty()) {
            match &options.settings {
                None => builder = builder.settings(Value::Object(overlay)),
                Some(Settings::Inline(Value::Object(own))) => {
                    let mut merged = own.clone();
                    merged.extend(overlay);
                    builder = builder.settings(Value::Object(merged));
                }
                Some(_) => later = Some(overlay),
            }
        }
        Ok((builder.build()?, later))
    }
}

/// What the CLI said when it took a claim.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct Claimed {
    /// The session's working directory, canonical (absent when the CLI does not echo it).
    pub cwd: Option<PathBuf>,
    /// The session id.
    pub session_id: String,
    /// How long the spare waited for its claim.
    pub parked: Option<std::time::Duration>,
    /// Whether the in-process MCP servers had finished their handshakes (false: the first turn
    /// waits for them).
    pub sdk_mcp_settled: bool,
    /// What `initialize` would answer in the claimed folder (commands, agents, models), when
    /// the claim asked for it.
    pub initialize: Option<Box<InitializeResponse>>,
    /// Options the session runs without because the CLI refused them after taking the claim
    /// (`model: …`, `max_thinking_tokens: …`): the session runs, as in the TypeScript SDK's
    /// `option_not_applied`.
    pub not_applied: Vec<String>,
}

/// How a pooled session started.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub enum Start {
    /// A spare, started ahead with the pool's options.
    Spare,
    /// A parked spare took the claim.
    Claimed(Claimed),
    /// A CLI started for this session, because no spare was ready or none could serve it.
    Cold {
        /// Why not a spare, e.g. `no spare was ready`, or the CLI's refusal
        /// (`project_settings_not_claimable: …`).
        reason: String,
    },
}

/// Why a parked spare did not take a claim. Its process is let go; the session starts cold.
#[derive(Debug)]
pub(super) struct Refusal {
    pub(super) reason: String,
    /// The CLI does not know `claim_session` at all: no spare of this pool can be claimed.
    pub(super) unsupported: bool,
}

/// Sends `claim` to a parked `client`: a settings overlay ahead of the claim (its servers and
/// plugins keys decide what the claim starts; a refusal refuses the claim), the claim, then
/// the model, the thinking budget and the rest of the overlay, all written at once in that
/// order (the CLI applies them before it reads a first message), and their answers awaited.
pub(super) async fn claim(client: &Client, claim: &Claim) -> Result<Claimed, Refusal> {
    let refused = |err: Error| Refusal {
        unsupported: matches!(&err, Error::Control { code: Some(code), .. } if code == "unsupported_request")
            || matches!(&err, Error::Control { message, .. } if message.contains("Unsupported control request")),
        reason: match err {
            Error::Control { message, .. } => message,
            other => other.to_string(),
        },
    };
    let cwd = absolute(&claim.cwd).map_err(refused)?;
    let (ahead, behind) = split_overlay(claim.settings.as_ref());
    let apply = |overlay: Option<Map<String, Value>>| async move {
        match overlay {
            Some(settings) => client
                .request(ApplyFlagSettingsRequest {
                    settings,
                    ..ApplyFlagSettingsRequest::default()
                })
                .await
                .map(drop),
            None => Ok(()),
        }
    };
    let model = async {
        match &claim.model {
            Some(model) => client
                .request(SetModelRequest {
                    model: Some(Some(model.clone())),
                    ..SetModelRequest::default()
                })
                .await
                .map(drop),
            None => Ok(()),
        }
    };
    let thinking = async {
        match claim.max_thinking_tokens {
            Some(tokens) => client
                .request(SetMaxThinkingTokensRequest {
                    max_thinking_tokens: Some((tokens > 0).then_some(tokens)),
                    ..SetMaxThinkingTokensRequest::default()
                })
                .await
                .map(drop),
            None => Ok(()),
        }
    };
    // `join!` polls in order, and each request is written at its first poll.
    let (ahead, answer, model, thinking, behind) = futures::join!(
        apply(ahead),
        client.request_raw(claim_request(claim, &cwd)),
        model,
        thinking,
        apply(behind),
    );
    let answer = answer.map_err(refused)?;
    for settings in [ahead, behind] {
        if let Err(err) = settings {
            return Err(Refusal {
                reason: format!("settings_not_applied: {}", refused(err).reason),
                unsupported: false,
            });
        }
    }
    let mut claimed = read_answer(answer.unwrap_or(Value::Null));
    for (what, outcome) in [("model", model), ("max_thinking_tokens", thinking)] {
        if let Err(err) = outcome {
            claimed
                .not_applied
                .push(format!("{what}: {}", refused(err).reason));
        }
    }
    Ok(claimed)
}

/// The `claim_session` request (typed here: it is marked internal in the CLI's schema).
fn claim_request(claim: &Claim, cwd: &Path) -> ControlRequestBody {
    let mut raw = Map::new();
    raw.insert("subtype".into(), "claim_session".into());
    raw.insert("cwd".into(), cwd.to_string_lossy().into_owned().into());
    if !claim.env.is_empty() {
        let env = claim
            .env
            .iter()
            .map(|(k, v)| (k.clone(), Value::String(v.clone())));
        raw.insert("env".into(), Value::Object(env.collect()));
    }
    if !claim.additional_directories.is_empty() {
        let dirs = claim
            .additional_directories
            .iter()
            .map(|dir| Value::String(dir.to_string_lossy().into_owned()));
        raw.insert(
            "additional_directories".into(),
            Value::Array(dirs.collect()),
        );
    }
    if let Some(mode) = &claim.permission_mode {
        raw.insert(
            "permission_mode".into(),
            serde_json::to_value(mode).unwrap_or(Value::Null),
        );
    }
    if let Some(text) = &claim.append_system_prompt {
        raw.insert("append_system_prompt".into(), text.clone().into());
    }
    if let Some(title) = &claim.title {
        raw.insert("title".into(), title.clone().into());
    }
    if !claim.agents.is_empty() {
        raw.insert(
            "agents".into(),
            serde_json::to_value(&claim.agents).unwrap_or(Value::Null),
        );
    }
    raw.insert("include_initialize".into(), claim.include_initialize.into());
    ControlRequestBody::Unknown(Unknown {
        tag: "claim_session".to_owned(),
        raw,
    })
}

fn read_answer(answer: Value) -> Claimed {
    let initialize = answer
        .get("initialize")
        .filter(|value| value.is_object())
        .and_then(|value| twinwire_protocol::from_value::<InitializeResponse>(value.clone()).ok())
        .map(|decoded| Box::new(decoded.value));
    Claimed {
        cwd: answer.get("cwd").and_then(Value::as_str).map(PathBuf::from),
        session_id: answer
            .get("session_id")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_owned(),
        parked: answer
            .get("parked_ms")
            .and_then(Value::as_u64)
            .map(std::time::Duration::from_millis),
        sdk_mcp_settled: answer
            .get("sdk_mcp_settled")
            .and_then(Value::as_bool)
            .unwrap_or(true),
        initialize,
        not_applied: Vec::new(),
    }
}

/// A flag-layer settings overlay.
type Overlay = Map<String, Value>;

/// The overlay split into what goes ahead of the claim and what goes behind it.
fn split_overlay(overlay: Option<&Map<String, Value>>) -> (Option<Overlay>, Option<Overlay>) {
    let Some(overlay) = overlay else {
        return (None, None);
    };
    let (behind, ahead): (Map<_, _>, Map<_, _>) = overlay
        .iter()
        .map(|(k, v)| (k.clone(), v.clone()))
        .partition(|(key, _)| KEYS_BEHIND_THE_CLAIM.contains(&key.as_str()));
    (
        (!ahead.is_empty()).then_some(ahead),
        (!behind.is_empty()).then_some(behind),
    )
}

fn absolute(path: &Path) -> Result<PathBuf> {
    std::path::absolute(path).map_err(Error::from)
}

fn same_path(a: &Path, b: &Path) -> bool {
    match (a.canonicalize(), b.canonicalize()) {
        (Ok(a), Ok(b)) => a == b,
        _ => a == b,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_overlay_is_split_as_the_typescript_sdk_splits_it() {
        let overlay: Map<String, Value> = serde_json::from_str(
            r#"{"model": "m", "effortLevel": "high", "permissions": {}, "enabledPlugins": {}}"#,
        )
        .unwrap();
        let (ahead, behind) = split_overlay(Some(&overlay));
        let keys = |m: Option<Map<String, Value>>| m.unwrap().keys().cloned().collect::<Vec<_>>();
        assert_eq!(keys(ahead), ["effortLevel", "enabledPlugins"]);
        assert_eq!(keys(behind), ["model", "permissions"]);
    }

    #[test]
    fn the_claim_request_carries_only_what_was_given() {
        let claim = Claim::new("/w").title("t").include_initialize(false);
        let ControlRequestBody::Unknown(unknown) = claim_request(&claim, Path::new("/w")) else {
            panic!("not a raw request");
        };
        assert_eq!(
            Value::Object(unknown.raw),
            serde_json::json!({"subtype": "claim_session", "cwd": "/w", "title": "t",
                               "include_initialize": false})
        );
    }

    #[test]
    fn a_claim_merged_into_options_carries_every_field() {
        let options = Options::builder()
            .settings(serde_json::json!({"a": 1}))
            .add_dir("/base")
            .build()
            .unwrap();
        let mut settings = Map::new();
        settings.insert("b".into(), 2.into());
        let claim = Claim::new("/w")
            .model("m")
            .permission_mode(PermissionMode::Plan)
            .max_thinking_tokens(0)
            .settings(settings)
            .append_system_prompt("extra")
            .title("t")
            .credential("CLAUDE_CODE_OAUTH_TOKEN", "secret")
            .add_dir("more");
        let (merged, later) = claim.merged_into(&options).unwrap();
        assert!(later.is_none());
        assert_eq!(merged.cwd.as_deref(), Some(Path::new("/w")));
        assert_eq!(merged.model.as_deref(), Some("m"));
        assert_eq!(merged.permission_mode, Some(PermissionMode::Plan));
        assert_eq!(merged.title.as_deref(), Some("t"));
        assert_eq!(
            merged.add_dirs,
            [PathBuf::from("/base"), PathBuf::from("/w/more")]
        );
        assert_eq!(
            merged.settings,
            Some(Settings::Inline(serde_json::json!({"a": 1, "b": 2})))
        );
        assert_eq!(merged.initialize_extra["appendSystemPrompt"], "extra");
        assert!(merged.env.iter().any(
            |(k, v)| k == "CLAUDE_CODE_OAUTH_TOKEN" && v.as_deref() == Some("secret".as_ref())
        ));
        assert!(!claim.asks_nothing_beyond(&options));
        assert!(Claim::new("/w").asks_nothing_beyond(&merged));
    }
}
