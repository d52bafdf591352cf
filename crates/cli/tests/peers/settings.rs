//! `twinwire::settings` against the official TypeScript SDK on the same files: `resolveSettings`
//! (every source, one at a time, host- and server-managed settings), `filterEscalatingDefaultMode`
//! and `matchDeniedModels` give what twinwire's `resolve_settings`,
//! `filter_escalating_default_mode` and `match_denied_models` give.

use std::path::Path;
use std::process::Command;

use serde_json::{json, Value};
use twinwire::options::SettingSource;
use twinwire::settings::{
    filter_escalating_default_mode, match_denied_models, resolve_settings, ResolveOptions,
};

/// Runs the TypeScript SDK on `cases` in `home` and returns its answers.
fn typescript(home: &Path, config: &Path, cases: &Value) -> Vec<Value> {
    let sdk = crate::installed("TWINWIRE_PEERS_TS_SDK");
    let program = format!(
        r#"import * as sdk from {sdk};
import {{ readFileSync }} from 'node:fs';
const cases = JSON.parse(readFileSync(0, 'utf8'));
const out = [];
for (const c of cases) {{
  if (c.kind === 'resolve') {{
    const r = await sdk.resolveSettings(c.options);
    delete r.machinePolicy;
    out.push({{resolved: r, filtered: sdk.filterEscalatingDefaultMode(r)}});
  }} else {{
    out.push(await sdk.matchDeniedModels(c.models, c.denied));
  }}
}}
console.log(JSON.stringify(out));
"#,
        sdk = serde_json::to_string(&format!("file://{}", sdk.display())).unwrap()
    );
    let script = home.join("settings.mjs");
    std::fs::write(&script, program).unwrap();
    let mut child = Command::new("node")
        .arg(&script)
        .env("HOME", home)
        .env("CLAUDE_CONFIG_DIR", config)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .expect("running node");
    use std::io::Write as _;
    child
        .stdin
        .take()
        .unwrap()
        .write_all(cases.to_string().as_bytes())
        .unwrap();
    let output = child.wait_with_output().unwrap();
    assert!(output.status.success(), "{output:?}");
    serde_json::from_slice(&output.stdout).unwrap()
}

fn write(path: &Path, value: &str) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, value).unwrap();
}

#[test]
fn settings_resolve_and_filter_as_the_typescript_sdk_does() {
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path().join("home");
    let config = dir.path().join("config");
    let project = dir.path().join("project");
    std::fs::create_dir_all(&home).unwrap();
    write(
        &config.join("settings.json"),
        r#"{"model":"opus","env":{"A":"user","B":"user"},"list":[1,{"a":1}],
            "permissions":{"allow":["Bash(ls:*)"],"deny":["Read(./secret)"],"defaultMode":"plan"},
            "obj":{"x":{"y":1,"z":[1]}},"nul":5,"arr":[1,2],
            "hooks":{"Stop":[{"hooks":[{"type":"command","command":"same"}]}]}}"#,
    );
    write(
        &project.join(".claude/settings.json"),
        r#"{"env":{"B":"project","C":"project"},"list":[{"a":1},2],
            "permissions":{"allow":["Bash(git:*)","Bash(ls:*)"],"defaultMode":"bypassPermissions"},
            "obj":{"x":{"z":[2,1]}},"nul":null,"arr":"text","includeCoAuthoredBy":false,
            "hooks":{"Stop":[{"hooks":[{"type":"command","command":"same"}]}]}}"#,
    );
    write(
        &project.join(".claude/settings.local.json"),
        r#"{"model":"sonnet","permissions":{"ask":["Write"]}}"#,
    );
    // A project whose local file is not JSON, and whose project file leaves the mode alone.
    let second = dir.path().join("second");
    write(&second.join(".claude/settings.local.json"), "{not json");
    write(
        &second.join(".claude/settings.json"),
        r#"{"permissions":{"allow":["Read"]}}"#,
    );
    let managed = json!({
        "model": "haiku", "env": {"X": "1"}, "allowManagedHooksOnly": true,
        "allowManagedMcpServersOnly": false, "deniedModels": ["opus"], "availableModels": "x",
        "permissions": {"deny": ["WebFetch"], "ask": ["Bash"], "allow": ["Read"],
                        "defaultMode": "plan", "disableBypassPermissionsMode": "disable"},
        "sandbox": {"enabled": true, "allowUnsandboxedCommands": true, "failIfUnavailable": false,
                    "network": {"allowedDomains": ["a"], "allowLocalBinding": true},
                    "filesystem": {"allowWrite": ["/w"], "denyRead": ["/r"], "allowRead": ["/ar"]}},
        "hooks": {"Stop": []}, "cleanupPeriodDays": 3
    });
    // Set at a value that is not the restrictive one, or of the wrong shape.
    let loose = json!({
        "allowedMcpServers": "x", "availableModels": [1], "forceLoginOrgUUID": 5,
        "strictKnownMarketplaces": "x", "allowManagedMcpServersOnly": "yes",
        "permissions": {"disableAutoMode": "other", "allow": "x"},
        "sandbox": {"network": {"allowedDomains": "x"}, "enabled": "yes"}
    });
    let server = json!({"model": "remote-model", "env": {"R": "1"}});
    type Case = (Value, ResolveOptions);
    let p = |path: &Path| path.display().to_string();
    let cases: Vec<Case> = vec![
        (
            json!({"cwd": p(&project)}),
            ResolveOptions::in_dir(&project),
        ),
        (
            json!({"cwd": p(&project), "managedSettings": managed}),
            ResolveOptions::in_dir(&project).managed_settings(managed.clone()),
        ),
        (
            json!({"cwd": p(&project), "managedSettings": managed, "serverManagedSettings": server}),
            ResolveOptions::in_dir(&project)
                .managed_settings(managed.clone())
                .server_managed_settings(server.clone()),
        ),
        (
            json!({"cwd": p(&project), "managedSettings": managed, "serverManagedSettings": {}}),
            ResolveOptions::in_dir(&project)
                .managed_settings(managed.clone())
                .server_managed_settings(json!({})),
        ),
        (
            json!({"cwd": p(&project), "settingSources": [], "managedSettings": loose}),
            ResolveOptions::in_dir(&project)
                .setting_sources([])
                .managed_settings(loose.clone()),
        ),
        (
            json!({"cwd": p(&project), "settingSources": ["local", "user"]}),
            ResolveOptions::in_dir(&project)
                .setting_sources([SettingSource::Local, SettingSource::User]),
        ),
        (
            json!({"cwd": p(&project), "settingSources": []}),
            ResolveOptions::in_dir(&project).setting_sources([]),
        ),
        (json!({"cwd": p(&second)}), ResolveOptions::in_dir(&second)),
        (
            json!({"cwd": p(&project.join("missing"))}),
            ResolveOptions::in_dir(project.join("missing")),
        ),
    ];
    let asked: Vec<Value> = cases
        .iter()
        .map(|(options, _)| json!({"kind": "resolve", "options": options}))
        .collect();
    let answers = typescript(&home, &config, &Value::Array(asked));
    let no_machine_policy = dir.path().join("no-managed-dir");
    for ((options, ours), theirs) in cases.into_iter().zip(answers) {
        let ours = ours.config_dir(&config).managed_dir(&no_machine_policy);
        let resolved = resolve_settings(&ours);
        assert_eq!(
            serde_json::to_value(&resolved).unwrap(),
            theirs["resolved"],
            "resolveSettings({options})"
        );
        assert_eq!(
            Value::Object(filter_escalating_default_mode(&resolved)),
            theirs["filtered"],
            "filterEscalatingDefaultMode({options})"
        );
    }
}

#[test]
fn denied_models_match_as_the_typescript_sdk_does() {
    let models = json!([
        "opus",
        "sonnet",
        "haiku",
        "claude-opus-4-5",
        "claude-opus-4-5-20251101",
        "claude-sonnet-4-5",
        "claude-sonnet-4-5-20250929",
        "claude-3-5-haiku-20241022",
        "Claude-Opus-4-5",
        "us.anthropic.claude-opus-4-5-v1:0",
        "claude-opus-4",
        "claude-opus-4-1",
        "opus[1m]",
        "claude-sonnet-4-5[1m]",
        "",
        "x y",
        "best",
        "opusplan",
        "default"
    ]);
    let lists = [
        json!(["opus"]),
        json!(["claude-opus-4-5"]),
        json!(["claude-opus-4"]),
        json!(["sonnet"]),
        json!(["claude-sonnet-4-5-20250929"]),
        json!(["CLAUDE-OPUS-4-5"]),
        json!(["*"]),
        json!(["opus*", "claude-opus"]),
        json!(["haiku"]),
        json!(["us.anthropic.claude-opus-4-5-v1:0"]),
        json!(["opus[1m]", "claude-sonnet-4-5[1m]"]),
        json!(["", "best", 5]),
        json!("opus"),
        Value::Null,
    ];
    let mut asked: Vec<Value> = lists
        .iter()
        .map(|denied| json!({"kind": "models", "models": models, "denied": denied}))
        .collect();
    asked.push(json!({"kind": "models", "models": "notalist", "denied": ["opus"]}));
    asked.push(json!({"kind": "models", "models": ["opus", 3], "denied": ["opus"]}));
    let dir = tempfile::tempdir().unwrap();
    let answers = typescript(dir.path(), dir.path(), &Value::Array(asked.clone()));
    for (case, theirs) in asked.iter().zip(answers) {
        let denied = match &case["denied"] {
            Value::Null => None,
            other => Some(other),
        };
        let ours = match_denied_models(&case["models"], denied);
        assert_eq!(
            serde_json::to_value(&ours).unwrap(),
            theirs,
            "matchDeniedModels({}, {})",
            case["models"],
            case["denied"]
        );
    }
}
