//! The keys of host-given managed settings that are kept: only those that restrict (the CLI
//! drops the rest, so a host cannot raise a session's powers through the policy tier).
//!
//! A value is kept at its most restrictive reading, as the CLI keeps it: a lock that is set
//! (anything but `false` or `null`) is `true`, a `disable…Mode` that is set is `"disable"`; an
//! allow list that is not a list of the right things allows nothing (`[]`); a deny list that is
//! not a list is dropped; `sandbox.allowUnsandboxedCommands` only when `false`.

use serde_json::{Map, Value};

/// What a kept key's value must be, and what it becomes.
#[derive(Clone, Copy)]
enum Kind {
    /// Set (not `false`, not `null`): `true`.
    Lock,
    /// Set: `"disable"`.
    Disable,
    /// A list of texts; anything else allows nothing: `[]`.
    AllowTexts,
    /// One text, or a list of texts; anything else allows nothing: `[]`.
    AllowTextOrTexts,
    /// A list of objects; anything else allows nothing: `[]`.
    AllowObjects,
    /// A list; anything else allows nothing: `[]`.
    AllowAny,
    /// A list, else dropped.
    List,
    /// Kept only when `false`.
    False,
}

/// Each kept key, as a path, with what its value must be.
const KEPT: &[(&[&str], Kind)] = &[
    (&["allowManagedHooksOnly"], Kind::Lock),
    (&["allowManagedMcpServersOnly"], Kind::Lock),
    (&["allowManagedPermissionRulesOnly"], Kind::Lock),
    (&["disableSkillShellExecution"], Kind::Lock),
    (&["allowedMcpServers"], Kind::AllowObjects),
    (&["deniedMcpServers"], Kind::List),
    (&["availableModels"], Kind::AllowTexts),
    (&["deniedModels"], Kind::List),
    (&["strictKnownMarketplaces"], Kind::AllowAny),
    (&["forceLoginOrgUUID"], Kind::AllowTextOrTexts),
    (&["permissions", "allow"], Kind::List),
    (&["permissions", "deny"], Kind::List),
    (&["permissions", "ask"], Kind::List),
    (&["permissions", "additionalDirectories"], Kind::List),
    (
        &["permissions", "disableBypassPermissionsMode"],
        Kind::Disable,
    ),
    (&["permissions", "disableAutoMode"], Kind::Disable),
    (&["sandbox", "enabled"], Kind::Lock),
    (&["sandbox", "failIfUnavailable"], Kind::Lock),
    (&["sandbox", "allowUnsandboxedCommands"], Kind::False),
    (&["sandbox", "network", "allowedDomains"], Kind::List),
    (&["sandbox", "network", "deniedDomains"], Kind::List),
    (&["sandbox", "filesystem", "allowRead"], Kind::List),
    (&["sandbox", "filesystem", "denyRead"], Kind::List),
    (&["sandbox", "filesystem", "denyWrite"], Kind::List),
];

/// `value` read as `kind`: what is kept, or `None`.
fn restrict(kind: Kind, value: &Value) -> Option<Value> {
    let set = !matches!(value, Value::Bool(false) | Value::Null);
    let list_of = |fits: fn(&Value) -> bool| match value {
        Value::Array(items) if items.iter().all(fits) => value.clone(),
        _ => Value::Array(Vec::new()),
    };
    match kind {
        Kind::Lock => set.then_some(Value::Bool(true)),
        Kind::Disable => set.then(|| Value::String("disable".to_owned())),
        Kind::AllowTextOrTexts if value.is_string() => Some(value.clone()),
        Kind::AllowTexts | Kind::AllowTextOrTexts => Some(list_of(Value::is_string)),
        Kind::AllowObjects => Some(list_of(Value::is_object)),
        Kind::AllowAny => Some(list_of(|_| true)),
        Kind::List => value.is_array().then(|| value.clone()),
        Kind::False => (value == &Value::Bool(false)).then(|| value.clone()),
    }
}

/// The restrictive part of `settings`.
pub fn keep(settings: &Map<String, Value>) -> Map<String, Value> {
    let mut out = Map::new();
    for (path, kind) in KEPT {
        let Some(value) = lookup(settings, path) else {
            continue;
        };
        if let Some(kept) = restrict(*kind, value) {
            insert(&mut out, path, kept);
        }
    }
    out
}

fn lookup<'a>(settings: &'a Map<String, Value>, path: &[&str]) -> Option<&'a Value> {
    let (last, parents) = path.split_last()?;
    let mut map = settings;
    for key in parents {
        map = map.get(*key)?.as_object()?;
    }
    map.get(*last)
}

fn insert(out: &mut Map<String, Value>, path: &[&str], value: Value) {
    let Some((last, parents)) = path.split_last() else {
        return;
    };
    let mut map = out;
    for key in parents {
        let entry = map
            .entry((*key).to_owned())
            .or_insert_with(|| Value::Object(Map::new()));
        let Value::Object(inner) = entry else {
            return;
        };
        map = inner;
    }
    map.insert((*last).to_owned(), value);
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn only_restrictive_keys_at_restrictive_values_are_kept() {
        let given = json!({
            "model": "haiku", "env": {"X": "1"}, "allowManagedHooksOnly": true,
            "allowManagedMcpServersOnly": false, "deniedModels": "opus",
            "allowManagedPermissionRulesOnly": "yes", "availableModels": [1],
            "permissions": {"deny": ["WebFetch"], "defaultMode": "plan", "ask": "x"},
            "sandbox": {"enabled": false, "allowUnsandboxedCommands": false,
                        "network": {"allowedDomains": ["a"], "allowLocalBinding": true},
                        "filesystem": {"allowWrite": ["/w"], "denyRead": ["/r"]}}
        });
        assert_eq!(
            Value::Object(keep(given.as_object().unwrap())),
            json!({
                "allowManagedHooksOnly": true,
                "allowManagedPermissionRulesOnly": true,
                "availableModels": [],
                "permissions": {"deny": ["WebFetch"]},
                "sandbox": {"allowUnsandboxedCommands": false,
                            "network": {"allowedDomains": ["a"]},
                            "filesystem": {"denyRead": ["/r"]}}
            })
        );
    }
}
