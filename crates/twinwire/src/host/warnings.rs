//! Misconfigurations a session would otherwise accept silently, as typed [`Warning`]s and
//! log lines (target `twinwire::warnings`): the cases the official SDKs warn of (a
//! `can_use_tool` callback the CLI never asks because an allowed tool or the mode lets the
//! call through; MCP servers the CLI did not load; an in-process server named in an agent's
//! definition; an in-process tool whose input schema the CLI cannot take), and twinwire's own
//! (a deny rule of the host's callback that one of the CLI's allow rules shadows; a rule that
//! names a tool the CLI does not have).
//!
//! [`check`] looks at the options and the settings files before a session starts (`connect`
//! calls it); the session adds what the CLI's `system/init` shows (servers not loaded, tools
//! it lacks): [`Client::warnings`](crate::Client::warnings) lists both.

use std::collections::BTreeSet;

use serde::Serialize;
use serde_json::{Map, Value};
use twinwire_protocol::permission::PermissionMode;
use twinwire_protocol::system::SystemInit;

use super::options::{McpServer, Options};

/// One misconfiguration.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
#[non_exhaustive]
pub enum Warning {
    /// A `can_use_tool` callback is set, but the CLI lets these calls through without asking
    /// it: an allowed rule that covers a whole tool, or a mode that allows everything.
    CanUseToolShadowed {
        /// The rule that allows the whole tool (`Read`, `Read(*)`), or the mode.
        by: String,
        /// Where it came from (`cliArg`, a settings source, `permission_mode`).
        source: String,
    },
    /// An MCP server of the options that the CLI did not load (absent from `system/init`, or
    /// not connected).
    McpServerNotLoaded {
        /// The server.
        server: String,
        /// Its status in `system/init` (`failed`, `needs-auth`, `pending`); `None`: absent.
        status: Option<String>,
    },
    /// An agent's definition names an in-process server: a subagent cannot reach a server
    /// that lives in the host (its tools are the main thread's only).
    InProcessServerGivenToAgent {
        /// The agent.
        agent: String,
        /// The server.
        server: String,
    },
    /// An in-process tool whose input schema the CLI (and the API) cannot take.
    UnconvertibleToolSchema {
        /// The server.
        server: String,
        /// The tool.
        tool: String,
        /// What is wrong with it.
        reason: String,
    },
    /// A deny rule of the host's permission callback that never applies: the CLI allows the
    /// calls it names by one of its own allow rules, without asking the callback.
    DenyShadowedByAllow {
        /// The callback's deny rule.
        deny: String,
        /// The CLI's allow rule that lets those calls through.
        allow: String,
        /// Where that allow rule came from.
        source: String,
    },
    /// A permission rule naming a tool the CLI does not have (a typo, a tool of another
    /// version): it never matches.
    UnknownToolInRule {
        /// The rule as written.
        rule: String,
        /// Where it came from.
        source: String,
    },
}

impl std::fmt::Display for Warning {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Warning::CanUseToolShadowed { by, source } => write!(
                f,
                "can_use_tool is never asked about what {by} ({source}) allows: the CLI lets \
                 those calls through itself"
            ),
            Warning::McpServerNotLoaded { server, status } => match status {
                Some(status) => write!(f, "the CLI did not load the MCP server {server}: {status}"),
                None => write!(
                    f,
                    "the CLI did not load the MCP server {server}: it is not listed"
                ),
            },
            Warning::InProcessServerGivenToAgent { agent, server } => write!(
                f,
                "the agent {agent} names the in-process MCP server {server}, which a subagent \
                 cannot reach"
            ),
            Warning::UnconvertibleToolSchema {
                server,
                tool,
                reason,
            } => write!(
                f,
                "the input schema of mcp__{server}__{tool} cannot be given to the model: {reason}"
            ),
            Warning::DenyShadowedByAllow {
                deny,
                allow,
                source,
            } => write!(
                f,
                "the callback's deny rule {deny} never applies: the CLI allows those calls by \
                 {allow} ({source}) without asking"
            ),
            Warning::UnknownToolInRule { rule, source } => write!(
                f,
                "the rule {rule} ({source}) names a tool the CLI does not have: it never matches"
            ),
        }
    }
}

/// The misconfigurations of `options` that can be seen before the session starts (the
/// settings files are read as the CLI will read them).
pub fn check(options: &Options) -> Vec<Warning> {
    let mut warnings = Vec::new();
    let callback = options.callbacks.can_use_tool.as_ref();
    #[cfg(feature = "policy")]
    let permissions =
        crate::explain::Permissions::resolve(&super::explaining::explain_options(options));
    if callback.is_some() {
        if options.permission_mode == Some(PermissionMode::BypassPermissions) {
            warnings.push(Warning::CanUseToolShadowed {
                by: "bypassPermissions".to_owned(),
                source: "permission_mode".to_owned(),
            });
        }
        #[cfg(feature = "policy")]
        for rule in permissions
            .rules
            .iter()
            .filter(|r| r.kind == crate::explain::RuleKind::Allow)
        {
            if allows_whole_tool(&rule.rule) {
                warnings.push(Warning::CanUseToolShadowed {
                    by: rule.rule.clone(),
                    source: rule.source.clone(),
                });
            }
        }
        #[cfg(not(feature = "policy"))]
        for rule in options.allowed_tools.iter() {
            if allows_whole_tool(rule) {
                warnings.push(Warning::CanUseToolShadowed {
                    by: rule.clone(),
                    source: "cliArg".to_owned(),
                });
            }
        }
    }
    #[cfg(feature = "policy")]
    if let Some(callback) = callback {
        warnings.extend(shadowed_denies(&callback.deny_rules(), &permissions));
    }
    #[cfg(feature = "policy")]
    for (rule, _) in &permissions.unreadable {
        warnings.push(Warning::UnknownToolInRule {
            rule: rule.rule.clone(),
            source: rule.source.clone(),
        });
    }
    let in_process: BTreeSet<&str> = options
        .mcp_servers
        .iter()
        .filter(|(_, server)| matches!(server, McpServer::InProcess(_)))
        .map(|(name, _)| name.as_str())
        .collect();
    for (agent, definition) in &options.agents {
        for spec in definition.mcp_servers.iter().flatten() {
            let names: Vec<&str> = match spec {
                twinwire_protocol::control::AgentMcpServerSpec::Name(name) => vec![name.as_str()],
                twinwire_protocol::control::AgentMcpServerSpec::Inline(servers) => {
                    servers.keys().map(String::as_str).collect()
                }
            };
            for name in names.into_iter().filter(|n| in_process.contains(n)) {
                warnings.push(Warning::InProcessServerGivenToAgent {
                    agent: agent.clone(),
                    server: name.to_owned(),
                });
            }
        }
    }
    for server in options.mcp_servers.values() {
        if let McpServer::InProcess(server) = server {
            for (tool, schema) in server.schemas.iter() {
                if let Some(reason) = unconvertible(schema) {
                    warnings.push(Warning::UnconvertibleToolSchema {
                        server: server.name().to_owned(),
                        tool: tool.clone(),
                        reason,
                    });
                }
            }
        }
    }
    warnings
}

/// What `system/init` shows is wrong with the session: the options' MCP servers it did not
/// load, and rules naming tools it does not list.
pub(crate) fn at_init(options: &Options, init: &SystemInit) -> Vec<Warning> {
    let mut warnings = Vec::new();
    for name in options.mcp_servers.keys() {
        let listed = init.mcp_servers.iter().find(|s| s.name == *name);
        match listed {
            Some(server) if server.status.as_str() == "connected" => {}
            Some(server) => warnings.push(Warning::McpServerNotLoaded {
                server: name.clone(),
                status: Some(server.status.as_str().to_owned()),
            }),
            None => warnings.push(Warning::McpServerNotLoaded {
                server: name.clone(),
                status: None,
            }),
        }
    }
    if !init.tools.is_empty() {
        let rules = options
            .allowed_tools
            .iter()
            .chain(&options.disallowed_tools)
            .flat_map(|r| split_rules(r));
        for rule in rules {
            let tool = rule.split('(').next().unwrap_or_default().trim();
            let named = !tool.is_empty()
                && !tool.starts_with("mcp__")
                && !tool.contains(['*', '?'])
                && !init.tools.iter().any(|t| t == tool)
                && !ALIASES.contains(&tool);
            if named {
                warnings.push(Warning::UnknownToolInRule {
                    rule: rule.clone(),
                    source: "cliArg".to_owned(),
                });
            }
        }
    }
    warnings
}

/// Older names the CLI still reads in rules (`Task` is `Agent` now, `LS` and `MultiEdit`
/// went into `Glob`/`Edit`, …): not a typo.
const ALIASES: &[&str] = &[
    "Task",
    "Agent",
    "LS",
    "MultiEdit",
    "NotebookRead",
    "TodoRead",
];

/// `--allowedTools` values split as the CLI splits them.
fn split_rules(value: &str) -> Vec<String> {
    #[cfg(feature = "policy")]
    return crate::explain::split_rules(value);
    #[cfg(not(feature = "policy"))]
    value
        .split([',', ' '])
        .filter(|r| !r.is_empty())
        .map(str::to_owned)
        .collect()
}

/// Whether an allow rule lets every call of its tool through: `Read`, `Read()`, `Read(*)`
/// (as the Python SDK's `CanUseToolShadowedWarning` reads them).
fn allows_whole_tool(rule: &str) -> bool {
    let rule = rule.trim();
    let (tool, content) = match rule.split_once('(') {
        Some((tool, rest)) => (tool, rest.strip_suffix(')').map(str::trim)),
        None => (rule, Some("")),
    };
    !tool.is_empty()
        && !tool.contains(['*', '?'])
        && matches!(content, Some("" | "*" | "**" | ":*"))
}

/// Why an input schema cannot be a tool's `input_schema`, if it cannot.
fn unconvertible(schema: &Map<String, Value>) -> Option<String> {
    match schema.get("type").and_then(Value::as_str) {
        Some("object") => {}
        Some(other) => return Some(format!("its type is {other}, not object")),
        None => return Some("it has no `type: object` at the top".to_owned()),
    }
    for combinator in ["oneOf", "anyOf", "allOf"] {
        if schema.contains_key(combinator) {
            return Some(format!("`{combinator}` at the top is not accepted"));
        }
    }
    let text = Value::Object(schema.clone()).to_string();
    let defined = |name: &str| {
        ["$defs", "definitions"].iter().any(|defs| {
            schema
                .get(*defs)
                .and_then(Value::as_object)
                .is_some_and(|d| d.contains_key(name))
        })
    };
    for at in text.match_indices("\"$ref\":\"").map(|(at, _)| at + 8) {
        let target: String = text[at..].chars().take_while(|c| *c != '"').collect();
        let local = target
            .strip_prefix("#/$defs/")
            .or_else(|| target.strip_prefix("#/definitions/"));
        match local {
            Some(name) if defined(name) => {}
            _ if target == "#" => {}
            _ => return Some(format!("`$ref` to {target}, which it does not define")),
        }
    }
    None
}

/// The callback's deny rules that one of the CLI's allow rules shadows: a call the deny rule
/// names is one the allow rule lets through.
#[cfg(feature = "policy")]
fn shadowed_denies(denies: &[String], permissions: &crate::explain::Permissions) -> Vec<Warning> {
    use twinwire_policy::{PermissionPolicy, Rule};
    let mut warnings = Vec::new();
    for deny in denies {
        let Some((tool, input)) = sample_call(deny) else {
            continue;
        };
        for allow in permissions
            .rules
            .iter()
            .filter(|r| r.kind == crate::explain::RuleKind::Allow)
        {
            let Ok(rule) = allow.rule.parse::<Rule>() else {
                continue;
            };
            if PermissionPolicy::new(vec![rule], Vec::new())
                .decide(&tool, &input)
                .is_allowed()
            {
                warnings.push(Warning::DenyShadowedByAllow {
                    deny: deny.clone(),
                    allow: allow.rule.clone(),
                    source: allow.source.clone(),
                });
                break;
            }
        }
    }
    warnings
}

/// A call a rule names: `Bash(rm:*)` → Bash `rm`; `Read(./secrets/**)` → a file under it;
/// `WebFetch(domain:x)` → a URL there; `Write` → any write.
#[cfg(feature = "policy")]
fn sample_call(rule: &str) -> Option<(String, Value)> {
    use serde_json::json;
    let (tool, content) = match rule.trim().split_once('(') {
        Some((tool, rest)) => (tool.trim(), Some(rest.strip_suffix(')')?)),
        None => (rule.trim(), None),
    };
    if tool.contains(['*', '?']) {
        return None;
    }
    let plain = |text: &str| text.replace("**", "x").replace('*', "x");
    let input = match (tool, content) {
        (_, None) => match tool {
            "Bash" => json!({"command": "true"}),
            "Read" | "Edit" | "Write" => json!({"file_path": "x"}),
            _ => json!({}),
        },
        ("Bash", Some(content)) => {
            let command = content.strip_suffix(":*").unwrap_or(content);
            json!({ "command": plain(command).trim() })
        }
        (_, Some(content)) if content.starts_with("domain:") => {
            json!({ "url": format!("https://{}/", &content["domain:".len()..]) })
        }
        (_, Some(content)) => json!({ "file_path": plain(content), "path": plain(content) }),
    };
    Some((tool.to_owned(), input))
}

#[cfg(test)]
mod tests;
