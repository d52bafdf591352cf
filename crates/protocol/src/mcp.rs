//! MCP servers: how a host declares them ([`McpServerConfig`]), how the CLI reports them
//! ([`McpServerStatus`], in `mcp_status` answers and in `system/init`), and which server a tool
//! call belongs to ([`McpServerProvenance`]).
//!
//! A server config is a union on `type`, except that a stdio server may omit its `type`: such an
//! object reads as [`McpServerConfig::Stdio`] and is written back without one.

use std::collections::BTreeMap;

use serde::de::{self, DeserializeOwned};
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::{Map, Value};

use crate::Unknown;

crate::string_enum! {
    /// A host's per-tool permission policy for an MCP server's tools.
    pub enum McpToolPermissionPolicy {
        /// Allow the tool without asking.
        AlwaysAllow = "always_allow",
        /// Ask before every call.
        AlwaysAsk = "always_ask",
        /// Refuse every call.
        AlwaysDeny = "always_deny",
    }
}

crate::string_enum! {
    /// An organization admin's ceiling on a tool's permission.
    pub enum McpOrgMaxPermission {
        /// The tool may be allowed.
        Allow = "allow",
        /// The user must be asked.
        Ask = "ask",
        /// The tool is blocked.
        Blocked = "blocked",
    }
}

/// A permission policy for one tool of a server.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct McpServerToolPolicy {
    /// The tool's name on the server.
    #[serde(default)]
    pub name: String,
    /// What the CLI does when the tool is called.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub permission_policy: Option<McpToolPermissionPolicy>,
    /// The admin's ceiling for the tool.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub org_max_permission: Option<McpOrgMaxPermission>,
    /// Fields this version does not know.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// A server the CLI starts as a child process and talks to over stdio.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct McpStdioServerConfig {
    /// Whether the object carried `"type": "stdio"` (it is optional); kept so that it is
    /// written back the same way.
    #[serde(skip)]
    #[serde(default)]
    pub explicit_type: bool,
    /// The program to run.
    #[serde(default)]
    pub command: String,
    /// Its arguments.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub args: Option<Vec<String>>,
    /// Extra environment variables.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub env: Option<BTreeMap<String, String>>,
    /// Per-call timeout in milliseconds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timeout: Option<u64>,
    /// Whether the server's tools are always loaded rather than deferred behind tool search.
    #[serde(
        rename = "alwaysLoad",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub always_load: Option<bool>,
    /// Fields this version does not know.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// Declares the structs of the two remote transports, which share one shape.
macro_rules! remote_server_config {
    ($($(#[$meta:meta])* $name:ident;)*) => {$(
        $(#[$meta])*
        #[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
        pub struct $name {
            /// The server's URL.
            #[serde(default)]
            pub url: String,
            /// HTTP headers to send.
            #[serde(default, skip_serializing_if = "Option::is_none")]
            pub headers: Option<BTreeMap<String, String>>,
            /// Per-tool permission policies.
            #[serde(default, skip_serializing_if = "Option::is_none")]
            pub tools: Option<Vec<McpServerToolPolicy>>,
            /// Per-call timeout in milliseconds.
            #[serde(default, skip_serializing_if = "Option::is_none")]
            pub timeout: Option<u64>,
            /// Whether the server's tools are always loaded rather than deferred.
            #[serde(rename = "alwaysLoad", default, skip_serializing_if = "Option::is_none")]
            pub always_load: Option<bool>,
            /// Fields this version does not know.
            #[serde(flatten)]
            pub extra: Map<String, Value>,
        }
    )*};
}

remote_server_config! {
    /// A remote server reached over server-sent events.
    McpSseServerConfig;
    /// A remote server reached over streamable HTTP.
    McpHttpServerConfig;
}

/// A server the host runs in its own process, reached through `mcp_message` control requests.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct McpSdkServerConfig {
    /// The server's name, as the host registered it.
    #[serde(default)]
    pub name: String,
    /// Per-call timeout in milliseconds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timeout: Option<u64>,
    /// Per-tool permission policies.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tools: Option<Vec<McpServerToolPolicy>>,
    /// Fields this version does not know.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// A claude.ai connector proxied by the CLI (seen in status reports).
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct McpClaudeAiProxyServerConfig {
    /// The proxy URL.
    #[serde(default)]
    pub url: String,
    /// The connector's id.
    #[serde(default)]
    pub id: String,
    /// Per-call timeout in milliseconds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timeout: Option<u64>,
    /// Fields this version does not know.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// How to reach an MCP server: a union on `type`, where an absent `type` means stdio.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum McpServerConfig {
    /// `stdio` (or no `type`): a child process.
    Stdio(McpStdioServerConfig),
    /// `sse`: a remote server over server-sent events.
    Sse(McpSseServerConfig),
    /// `http`: a remote server over streamable HTTP.
    Http(McpHttpServerConfig),
    /// `sdk`: a server in the host's process.
    Sdk(McpSdkServerConfig),
    /// `claudeai-proxy`: a claude.ai connector.
    ClaudeAiProxy(McpClaudeAiProxyServerConfig),
    /// A `type` this version does not know, kept whole.
    Unknown(Unknown),
}

impl McpServerConfig {
    /// Every `type` this union knows, as written on the wire.
    pub const KNOWN_TAGS: &'static [&'static str] =
        &["stdio", "sse", "http", "sdk", "claudeai-proxy"];

    /// A stdio server running `command` with `args`.
    pub fn stdio(command: impl Into<String>, args: Vec<String>) -> Self {
        Self::Stdio(McpStdioServerConfig {
            command: command.into(),
            args: Some(args),
            ..McpStdioServerConfig::default()
        })
    }

    /// A remote server over streamable HTTP.
    pub fn http(url: impl Into<String>) -> Self {
        Self::Http(McpHttpServerConfig {
            url: url.into(),
            ..McpHttpServerConfig::default()
        })
    }

    /// A remote server over server-sent events.
    pub fn sse(url: impl Into<String>) -> Self {
        Self::Sse(McpSseServerConfig {
            url: url.into(),
            ..McpSseServerConfig::default()
        })
    }

    /// A server in the host's process, registered as `name`.
    pub fn sdk(name: impl Into<String>) -> Self {
        Self::Sdk(McpSdkServerConfig {
            name: name.into(),
            ..McpSdkServerConfig::default()
        })
    }

    /// The `type`, as written on the wire (`stdio` when it was omitted).
    pub fn tag(&self) -> &str {
        match self {
            Self::Stdio(_) => "stdio",
            Self::Sse(_) => "sse",
            Self::Http(_) => "http",
            Self::Sdk(_) => "sdk",
            Self::ClaudeAiProxy(_) => "claudeai-proxy",
            Self::Unknown(unknown) => &unknown.tag,
        }
    }

    /// The object if its `type` is unknown to this version.
    pub fn as_unknown(&self) -> Option<&Unknown> {
        match self {
            Self::Unknown(unknown) => Some(unknown),
            _ => None,
        }
    }
}

impl From<McpStdioServerConfig> for McpServerConfig {
    fn from(value: McpStdioServerConfig) -> Self {
        Self::Stdio(value)
    }
}

impl From<McpSseServerConfig> for McpServerConfig {
    fn from(value: McpSseServerConfig) -> Self {
        Self::Sse(value)
    }
}

impl From<McpHttpServerConfig> for McpServerConfig {
    fn from(value: McpHttpServerConfig) -> Self {
        Self::Http(value)
    }
}

impl From<McpSdkServerConfig> for McpServerConfig {
    fn from(value: McpSdkServerConfig) -> Self {
        Self::Sdk(value)
    }
}

impl From<McpClaudeAiProxyServerConfig> for McpServerConfig {
    fn from(value: McpClaudeAiProxyServerConfig) -> Self {
        Self::ClaudeAiProxy(value)
    }
}

/// Reads a variant's struct from the object's entries, `type` removed.
fn config_variant<T: DeserializeOwned, E: de::Error>(
    tag: &str,
    mut map: Map<String, Value>,
) -> Result<T, E> {
    map.remove("type");
    serde_json::from_value(Value::Object(map))
        .map_err(|e| E::custom(format_args!("mcp server config `{tag}`: {e}")))
}

impl<'de> Deserialize<'de> for McpServerConfig {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let map = Map::<String, Value>::deserialize(deserializer)?;
        let tag = match map.get("type") {
            None => {
                return config_variant("stdio", map).map(|config| {
                    Self::Stdio(McpStdioServerConfig {
                        explicit_type: false,
                        ..config
                    })
                })
            }
            Some(Value::String(tag)) => tag.clone(),
            Some(other) => {
                return Err(de::Error::custom(format_args!(
                    "mcp server config: `type` must be a string, found {other}"
                )))
            }
        };
        match tag.as_str() {
            "stdio" => config_variant(&tag, map).map(|config| {
                Self::Stdio(McpStdioServerConfig {
                    explicit_type: true,
                    ..config
                })
            }),
            "sse" => config_variant(&tag, map).map(Self::Sse),
            "http" => config_variant(&tag, map).map(Self::Http),
            "sdk" => config_variant(&tag, map).map(Self::Sdk),
            "claudeai-proxy" => config_variant(&tag, map).map(Self::ClaudeAiProxy),
            _ => Ok(Self::Unknown(Unknown { tag, raw: map })),
        }
    }
}

impl Serialize for McpServerConfig {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        #[derive(Serialize)]
        struct Tagged<'a, T> {
            #[serde(rename = "type")]
            tag: &'a str,
            #[serde(flatten)]
            inner: &'a T,
        }
        let tag = self.tag();
        match self {
            Self::Stdio(inner) if inner.explicit_type => {
                Tagged { tag, inner }.serialize(serializer)
            }
            Self::Stdio(inner) => inner.serialize(serializer),
            Self::Sse(inner) => Tagged { tag, inner }.serialize(serializer),
            Self::Http(inner) => Tagged { tag, inner }.serialize(serializer),
            Self::Sdk(inner) => Tagged { tag, inner }.serialize(serializer),
            Self::ClaudeAiProxy(inner) => Tagged { tag, inner }.serialize(serializer),
            Self::Unknown(unknown) => unknown.serialize(serializer),
        }
    }
}

crate::string_enum! {
    /// Where an MCP server's definition came from: `sdk`, `plugin`, or a config scope.
    pub enum McpServerSource {
        /// An in-process server the host registered.
        Sdk = "sdk",
        /// A server a plugin ships or registers.
        Plugin = "plugin",
        /// The user's configuration.
        User = "user",
        /// The project's shared configuration.
        Project = "project",
        /// The project's local configuration.
        Local = "local",
        /// `--mcp-config` or `mcp_set_servers`.
        Dynamic = "dynamic",
        /// Managed settings.
        Managed = "managed",
        /// Enterprise configuration.
        Enterprise = "enterprise",
        /// A claude.ai connector.
        Claudeai = "claudeai",
        /// An agent definition.
        Agent = "agent",
    }
}

/// The MCP server behind an `mcp__*` tool: its configured name and where it came from.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct McpServerProvenance {
    /// The server's config key (untrusted text unless `source` is `sdk`).
    #[serde(default)]
    pub name: String,
    /// Where its definition came from; key trust on this, not on the name.
    #[serde(default)]
    pub source: McpServerSource,
    /// Fields this version does not know.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// An empty, unrecognized source: a default never claims to be `sdk`.
impl Default for McpServerSource {
    fn default() -> Self {
        Self::Other(String::new())
    }
}

crate::string_enum! {
    /// The state of the connection to an MCP server.
    pub enum McpConnectionStatus {
        /// Connected and serving.
        Connected = "connected",
        /// The connection failed (see `error`).
        Failed = "failed",
        /// The server needs the user to authenticate.
        NeedsAuth = "needs-auth",
        /// Still connecting.
        Pending = "pending",
        /// Turned off.
        Disabled = "disabled",
    }
}

/// `pending`.
impl Default for McpConnectionStatus {
    fn default() -> Self {
        Self::Pending
    }
}

/// The name and version an MCP server reports about itself.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct McpServerInfo {
    /// The server's own name.
    #[serde(default)]
    pub name: String,
    /// The server's version.
    #[serde(default)]
    pub version: String,
    /// Fields this version does not know.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// The hints an MCP tool declares about its behavior.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct McpToolAnnotations {
    /// The tool only reads.
    #[serde(rename = "readOnly", default, skip_serializing_if = "Option::is_none")]
    pub read_only: Option<bool>,
    /// The tool may destroy data.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub destructive: Option<bool>,
    /// The tool reaches outside systems.
    #[serde(rename = "openWorld", default, skip_serializing_if = "Option::is_none")]
    pub open_world: Option<bool>,
    /// Fields this version does not know.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// One tool of a connected MCP server, as a status report lists it.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct McpServerTool {
    /// The tool's name on the server.
    #[serde(default)]
    pub name: String,
    /// Its description.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Its behavior hints.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub annotations: Option<McpToolAnnotations>,
    /// The MCP Apps members of the tool's `_meta` (`ui`, `ui/resourceUri`).
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Map<String, Value>>,
    /// Fields this version does not know.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// The state of one MCP server (an entry of an `mcp_status` answer or of `system/init`).
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct McpServerStatus {
    /// The server's configured name.
    #[serde(default)]
    pub name: String,
    /// The connection state.
    #[serde(default)]
    pub status: McpConnectionStatus,
    /// What the server says about itself, once connected.
    #[serde(
        rename = "serverInfo",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub server_info: Option<McpServerInfo>,
    /// Why the connection failed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// The server's configuration.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub config: Option<McpServerConfig>,
    /// The configuration scope (`project`, `user`, `local`, `dynamic`, …).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scope: Option<String>,
    /// Where the definition came from.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source: Option<McpServerSource>,
    /// The transport in use (`sdk`, `stdio`, …); recorded from CLI 2.1, not in the SDK types.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub transport: Option<String>,
    /// The server's tools, once connected.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tools: Option<Vec<McpServerTool>>,
    /// Fields this version does not know.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_fixtures as transcripts;
    use serde_json::json;

    fn round_trip<T: Serialize + for<'de> Deserialize<'de>>(value: &Value) -> T {
        let parsed: T = serde_json::from_value(value.clone()).expect("parse");
        assert_eq!(
            &serde_json::to_value(&parsed).expect("serialize"),
            value,
            "round trip"
        );
        parsed
    }

    #[test]
    fn status_entries_round_trip() {
        let mut entries = Vec::new();
        for (file, payload) in transcripts::control_responses("mcp_status", "out") {
            let servers = payload["mcpServers"].as_array().expect("mcpServers");
            entries.extend(servers.iter().map(|s| (file.clone(), s.clone())));
        }
        for frame in transcripts::all() {
            if frame.msg["type"] == "system" && frame.msg["subtype"] == "init" {
                let servers = frame.msg["mcp_servers"].as_array().expect("mcp_servers");
                entries.extend(servers.iter().map(|s| (frame.file.clone(), s.clone())));
            }
        }
        assert!(entries.len() >= 10, "found {}", entries.len());
        let mut with_tools = 0;
        for (file, entry) in entries {
            let status: McpServerStatus = round_trip(&entry);
            // Every recorded status is one this crate names (connected, disabled by a scenario
            // that toggles one, still starting, failed in the scenario of a server that
            // cannot start).
            assert!(
                !matches!(status.status, McpConnectionStatus::Other(_)),
                "{file}: {:?}",
                status.status
            );
            assert!(status.extra.is_empty(), "{file}: {:?}", status.extra);
            if let Some(tools) = &status.tools {
                // The in-process `calc` server (`add`) or the stdio `memo` server (`note`).
                match tools[0].name.as_str() {
                    "add" => assert!(matches!(status.source, None | Some(McpServerSource::Sdk))),
                    "note" => {}
                    other => panic!("{file}: an unexpected tool {other}"),
                }
                with_tools += 1;
            }
        }
        assert!(with_tools >= 2);
    }

    #[test]
    fn mcp_config_from_recorded_command_lines() {
        // A recording's first line (`"dir": "meta"`) holds the command line the host ran; the
        // official Python SDK hands its in-process servers over as `--mcp-config`.
        let mut seen = 0;
        for path in transcripts::files() {
            let text = std::fs::read_to_string(&path).expect("read");
            let Some(Ok(meta)) = text.lines().next().map(serde_json::from_str::<Value>) else {
                continue;
            };
            let argv: Vec<&str> = meta["argv"]
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(Value::as_str)
                .collect();
            for pair in argv.windows(2).filter(|w| w[0] == "--mcp-config") {
                let config: Value = serde_json::from_str(pair[1]).expect("config json");
                let servers: BTreeMap<String, McpServerConfig> = round_trip(&config["mcpServers"]);
                for server in servers.values() {
                    assert!(matches!(server, McpServerConfig::Sdk(s) if s.name == "calc"));
                    seen += 1;
                }
            }
        }
        assert!(seen >= 1, "found {seen}");
    }

    #[test]
    fn stdio_type_is_optional_and_kept_as_read() {
        let bare = json!({"command": "npx", "args": ["-y", "server"], "env": {"A": "1"}});
        let parsed: McpServerConfig = round_trip(&bare);
        assert!(matches!(&parsed, McpServerConfig::Stdio(s) if !s.explicit_type));
        assert_eq!(parsed.tag(), "stdio");

        let typed = json!({"type": "stdio", "command": "npx"});
        let parsed: McpServerConfig = round_trip(&typed);
        assert!(
            matches!(&parsed, McpServerConfig::Stdio(s) if s.explicit_type && s.extra.is_empty())
        );

        let http =
            json!({"type": "http", "url": "https://x", "headers": {"a": "b"}, "alwaysLoad": true});
        assert!(matches!(
            round_trip::<McpServerConfig>(&http),
            McpServerConfig::Http(_)
        ));
        let sse = json!({"type": "sse", "url": "https://x", "tools": [{"name": "t", "permission_policy": "always_ask"}]});
        assert!(matches!(
            round_trip::<McpServerConfig>(&sse),
            McpServerConfig::Sse(_)
        ));

        assert_eq!(
            serde_json::to_value(McpServerConfig::sdk("calc")).expect("serialize"),
            json!({"type": "sdk", "name": "calc"})
        );
    }

    #[test]
    fn partial_broken_and_unknown() {
        // Missing fields read as defaults; a tag that is not a string fails the strict path.
        assert!(serde_json::from_value::<McpServerConfig>(json!({"type": "http"})).is_ok());
        assert!(serde_json::from_value::<McpServerConfig>(json!({"args": []})).is_ok());
        assert!(serde_json::from_value::<McpServerConfig>(json!({"type": 3})).is_err());
        let status: McpServerStatus = round_trip(&json!({"name": "a", "status": "sleeping"}));
        assert_eq!(status.status, McpConnectionStatus::Other("sleeping".into()));
        let status: McpServerStatus =
            serde_json::from_value(json!({"status": "connected"})).expect("read");
        assert!(status.name.is_empty());
        // An unknown type is kept whole.
        let raw = json!({"type": "websocket", "url": "wss://x", "x": [1]});
        let parsed: McpServerConfig = round_trip(&raw);
        assert_eq!(parsed.tag(), "websocket");
        assert!(parsed.as_unknown().is_some());
    }

    #[test]
    fn status_with_config_and_provenance() {
        let raw = json!({
            "name": "docs", "status": "failed", "error": "boom", "scope": "project",
            "config": {"type": "claudeai-proxy", "url": "https://p", "id": "c1"},
            "tools": [{"name": "t", "annotations": {"readOnly": true}, "_meta": {"ui": {}}}]
        });
        let status: McpServerStatus = round_trip(&raw);
        assert!(matches!(
            status.config,
            Some(McpServerConfig::ClaudeAiProxy(_))
        ));
        let provenance: McpServerProvenance = round_trip(&json!({"name": "calc", "source": "sdk"}));
        assert_eq!(provenance.source, McpServerSource::Sdk);
    }
}
