//! Sandbox settings and how they are merged into the `--settings` JSON.
//!
//! The merge follows the TypeScript SDK: nested objects merge key by key and a value set here
//! replaces the settings' own, except that the restriction lists (`filesystem.denyRead`,
//! `filesystem.denyWrite`, `network.deniedDomains`, `credentials.files`,
//! `credentials.envVars`) are combined, `ripgrep` and `network.tlsTerminate` are replaced
//! whole, a settings `filesystem.disabled: true` is dropped when this restricts the file
//! system, a settings proxy port is dropped when this restricts the network, and
//! `failIfUnavailable` becomes `true` when this enables the sandbox without saying otherwise.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// Sandbox settings for command execution (the `sandbox` block of Claude Code's settings).
///
/// Fields not modelled here go in `extra` and reach the CLI unchanged.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SandboxSettings {
    /// Run commands in the sandbox.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub enabled: Option<bool>,
    /// Refuse to run when the sandbox cannot be set up (defaults to `true` when `enabled`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fail_if_unavailable: Option<bool>,
    /// Allow sandboxed Bash commands without asking.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub auto_allow_bash_if_sandboxed: Option<bool>,
    /// Let the model ask to run a command outside the sandbox.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub allow_unsandboxed_commands: Option<bool>,
    /// Network restrictions.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub network: Option<SandboxNetwork>,
    /// File-system restrictions.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub filesystem: Option<SandboxFilesystem>,
    /// Credential files and variables to deny or mask (see Claude Code's settings reference).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub credentials: Option<Value>,
    /// Violations to ignore, by command pattern.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ignore_violations: Option<BTreeMap<String, Vec<String>>>,
    /// Use a weaker sandbox when already inside one (e.g. Docker).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub enable_weaker_nested_sandbox: Option<bool>,
    /// Allow user namespaces inside the sandbox.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub allow_nested_user_namespaces: Option<bool>,
    /// Use a weaker network isolation.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub enable_weaker_network_isolation: Option<bool>,
    /// Allow Apple Events (macOS).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub allow_apple_events: Option<bool>,
    /// Commands that always run outside the sandbox.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub excluded_commands: Option<Vec<String>>,
    /// The ripgrep binary to use inside the sandbox.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ripgrep: Option<SandboxRipgrep>,
    /// Path of `bwrap` (Linux).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bwrap_path: Option<String>,
    /// Path of `socat` (Linux).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub socat_path: Option<String>,
    /// Fields this version does not model.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// Network restrictions of the sandbox.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SandboxNetwork {
    /// Domains that may be reached.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub allowed_domains: Option<Vec<String>>,
    /// Domains that may not be reached.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub denied_domains: Option<Vec<String>>,
    /// Only the allowed domains may be reached.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub strict_allowlist: Option<bool>,
    /// Only the domains of managed settings may be reached.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub allow_managed_domains_only: Option<bool>,
    /// Unix sockets that may be used.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub allow_unix_sockets: Option<Vec<String>>,
    /// Every Unix socket may be used.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub allow_all_unix_sockets: Option<bool>,
    /// Binding to local ports is allowed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub allow_local_binding: Option<bool>,
    /// Mach services that may be looked up (macOS).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub allow_mach_lookup: Option<Vec<String>>,
    /// Port of the host's own HTTP proxy.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub http_proxy_port: Option<u16>,
    /// Port of the host's own SOCKS proxy.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub socks_proxy_port: Option<u16>,
    /// TLS termination (`caCertPath`, `caKeyPath`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tls_terminate: Option<Value>,
    /// Fields this version does not model.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// File-system restrictions of the sandbox.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SandboxFilesystem {
    /// Paths that may be written.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub allow_write: Option<Vec<String>>,
    /// Paths that may not be written.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub deny_write: Option<Vec<String>>,
    /// Paths that may not be read.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub deny_read: Option<Vec<String>>,
    /// Paths that may be read despite a deny.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub allow_read: Option<Vec<String>>,
    /// Only the read paths of managed settings may be read.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub allow_managed_read_paths_only: Option<bool>,
    /// Turn the file-system restrictions off.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub disabled: Option<bool>,
    /// Fields this version does not model.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// The ripgrep binary to use inside the sandbox.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct SandboxRipgrep {
    /// The command.
    pub command: String,
    /// Its arguments.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub args: Option<Vec<String>>,
    /// Fields this version does not model.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// Paths whose lists are combined rather than replaced.
const COMBINED_LISTS: &[&str] = &[
    "filesystem.denyRead",
    "filesystem.denyWrite",
    "network.deniedDomains",
    "credentials.files",
    "credentials.envVars",
];

/// Paths whose objects are replaced whole rather than merged.
const REPLACED_WHOLE: &[&str] = &["ripgrep", "network.tlsTerminate"];

/// Proxy ports dropped from the settings when the option restricts the network.
const PROXY_PORTS: &[&str] = &["httpProxyPort", "socksProxyPort"];

/// The settings object with `sandbox` merged into its `sandbox` block.
pub(crate) fn merge_into_settings(
    settings: Option<&Map<String, Value>>,
    sandbox: &SandboxSettings,
) -> Map<String, Value> {
    let mut merged = settings.cloned().unwrap_or_default();
    let option = match serde_json::to_value(sandbox) {
        Ok(Value::Object(option)) => option,
        // A struct of options, strings, lists and maps always serializes to an object.
        _ => Map::new(),
    };
    let base = match merged.remove("sandbox") {
        Some(Value::Object(base)) => base,
        _ => Map::new(),
    };
    let mut block = merge_objects(base, &option, "");

    let restricts_files = sandbox.filesystem.is_some()
        || option
            .get("credentials")
            .and_then(|c| c.get("files"))
            .and_then(Value::as_array)
            .is_some_and(|files| files.iter().any(|f| f.get("mode") == Some(&"deny".into())));
    let keeps_disabled = sandbox
        .filesystem
        .as_ref()
        .is_some_and(|fs| fs.disabled.is_some());
    if restricts_files && !keeps_disabled {
        if let Some(Value::Object(fs)) = block.get_mut("filesystem") {
            if fs.get("disabled") == Some(&Value::Bool(true)) {
                fs.remove("disabled");
            }
        }
    }

    if let Some(network) = &sandbox.network {
        let restricts_network = network.allowed_domains.is_some()
            || network
                .denied_domains
                .as_ref()
                .is_some_and(|d| !d.is_empty())
            || network.strict_allowlist == Some(true);
        if restricts_network {
            if let Some(Value::Object(net)) = block.get_mut("network") {
                if network.http_proxy_port.is_none() {
                    net.remove(PROXY_PORTS[0]);
                }
                if network.socks_proxy_port.is_none() {
                    net.remove(PROXY_PORTS[1]);
                }
            }
        }
    }

    if sandbox.enabled == Some(true) && !block.contains_key("failIfUnavailable") {
        block.insert("failIfUnavailable".to_owned(), Value::Bool(true));
    }
    merged.insert("sandbox".to_owned(), Value::Object(block));
    merged
}

/// `base` with `overlay` merged in; `path` is the dotted path of `base` in the sandbox block.
fn merge_objects(
    mut base: Map<String, Value>,
    overlay: &Map<String, Value>,
    path: &str,
) -> Map<String, Value> {
    for (key, value) in overlay {
        let here = if path.is_empty() {
            key.clone()
        } else {
            format!("{path}.{key}")
        };
        let merged = match (base.remove(key), value) {
            (Some(Value::Array(mut old)), Value::Array(new))
                if COMBINED_LISTS.contains(&here.as_str()) =>
            {
                for item in new {
                    if !old.contains(item) {
                        old.push(item.clone());
                    }
                }
                Value::Array(old)
            }
            (Some(Value::Object(old)), Value::Object(new))
                if !REPLACED_WHOLE.contains(&here.as_str()) =>
            {
                Value::Object(merge_objects(old, new, &here))
            }
            (_, new) => new.clone(),
        };
        base.insert(key.clone(), merged);
    }
    base
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn object(value: Value) -> Map<String, Value> {
        match value {
            Value::Object(map) => map,
            other => panic!("not an object: {other}"),
        }
    }

    #[test]
    fn without_settings_the_sandbox_becomes_the_settings_sandbox_block() {
        let sandbox = SandboxSettings {
            enabled: Some(true),
            auto_allow_bash_if_sandboxed: Some(true),
            ..SandboxSettings::default()
        };
        let merged = merge_into_settings(None, &sandbox);
        assert_eq!(
            Value::Object(merged),
            json!({"sandbox": {"enabled": true, "autoAllowBashIfSandboxed": true, "failIfUnavailable": true}})
        );
    }

    #[test]
    fn objects_merge_lists_combine_and_other_values_are_replaced() {
        let settings = object(json!({
            "model": "opus",
            "sandbox": {
                "enabled": false,
                "failIfUnavailable": false,
                "excludedCommands": ["git"],
                "filesystem": {"denyRead": ["/a"], "allowWrite": ["/w"], "disabled": true},
                "network": {"httpProxyPort": 8080, "tlsTerminate": {"caCertPath": "/c", "caKeyPath": "/k"}},
                "ripgrep": {"command": "rg", "args": ["-x"]}
            }
        }));
        let sandbox = SandboxSettings {
            enabled: Some(true),
            excluded_commands: Some(vec!["docker".into()]),
            filesystem: Some(SandboxFilesystem {
                deny_read: Some(vec!["/a".into(), "/b".into()]),
                ..SandboxFilesystem::default()
            }),
            network: Some(SandboxNetwork {
                allowed_domains: Some(vec!["example.com".into()]),
                tls_terminate: Some(json!({"caCertPath": "/x"})),
                ..SandboxNetwork::default()
            }),
            ripgrep: Some(SandboxRipgrep {
                command: "/bin/rg".into(),
                ..SandboxRipgrep::default()
            }),
            ..SandboxSettings::default()
        };
        let merged = Value::Object(merge_into_settings(Some(&settings), &sandbox));
        assert_eq!(merged["model"], "opus");
        let block = &merged["sandbox"];
        assert_eq!(block["enabled"], true);
        // Set by the settings, so not defaulted.
        assert_eq!(block["failIfUnavailable"], false);
        // Not a combined list: replaced.
        assert_eq!(block["excludedCommands"], json!(["docker"]));
        assert_eq!(block["filesystem"]["denyRead"], json!(["/a", "/b"]));
        assert_eq!(block["filesystem"]["allowWrite"], json!(["/w"]));
        assert!(block["filesystem"].get("disabled").is_none());
        assert!(block["network"].get("httpProxyPort").is_none());
        assert_eq!(block["network"]["allowedDomains"], json!(["example.com"]));
        assert_eq!(
            block["network"]["tlsTerminate"],
            json!({"caCertPath": "/x"})
        );
        assert_eq!(block["ripgrep"], json!({"command": "/bin/rg"}));
    }
}
