use std::collections::{BTreeMap, HashMap};

use serde_json::json;

use super::*;

#[test]
fn outputs_are_typed_and_read_back_as_they_were() {
    let cases = [
        (
            "Bash",
            json!({"stdout": "hi\n", "stderr": "", "interrupted": false, "isImage": false,
                "noOutputExpected": false, "futureField": [1]}),
        ),
        (
            "Edit",
            json!({"filePath": "/a", "oldString": "x", "newString": "y", "originalFile": null,
                "structuredPatch": [{"oldStart": 1, "oldLines": 1, "newStart": 1,
                "newLines": 1, "lines": ["-x", "+y"]}], "userModified": false,
                "replaceAll": false}),
        ),
        (
            "Read",
            json!({"type": "text", "file": {"filePath": "/a", "content": "x", "numLines": 1,
                "startLine": 1, "totalLines": 1}}),
        ),
        (
            "Task",
            json!({"status": "async_launched", "agentId": "a1", "description": "d",
                "prompt": "p", "outputFile": "/o", "isAsync": true}),
        ),
        (
            "Glob",
            json!({"durationMs": 3, "numFiles": 0, "filenames": [], "truncated": false}),
        ),
        ("mcp__calc__add", json!([{"type": "text", "text": "5"}])),
        ("mcp__calc__add", json!("5")),
        (
            "ListMcpResourcesTool",
            json!([{"uri": "ui://x", "name": "x", "server": "s"}]),
        ),
        ("Bash", json!("Error: permission denied")),
    ];
    for (name, output) in cases {
        let parsed = ToolOutput::parse(name, &output);
        assert!(parsed.is_typed(), "{name}: {parsed:?}");
        assert_eq!(parsed.to_value(), output, "{name}");
    }
    let ToolOutput::Bash(bash) = ToolOutput::parse(
        "Bash",
        &json!({"stdout": "hi", "stderr": "", "interrupted": false}),
    ) else {
        panic!("not typed");
    };
    assert_eq!(bash.stdout, "hi");
    let ToolOutput::Edit(edit) = ToolOutput::parse("Edit", &cases_edit()) else {
        panic!("not typed");
    };
    assert_eq!(edit.structured_patch[0].lines, ["-x", "+y"]);
    assert_eq!(
        ToolOutput::parse("Task", &json!({"status": "completed", "prompt": "p"})).name(),
        "Agent"
    );
    assert!(matches!(
        ToolOutput::parse("Write", &json!("Error: no")),
        ToolOutput::Text { text, .. } if text == "Error: no"
    ));
}

fn cases_edit() -> Value {
    json!({"filePath": "/a", "oldString": "x", "newString": "y", "originalFile": "x",
        "structuredPatch": [{"oldStart": 1, "oldLines": 1, "newStart": 1, "newLines": 1,
        "lines": ["-x", "+y"]}], "userModified": false, "replaceAll": false})
}

#[test]
fn what_does_not_fit_is_kept_whole() {
    for (name, output) in [
        ("Bash", json!({"stderr": ""})),
        (
            "Bash",
            json!({"stdout": 42, "stderr": "", "interrupted": false}),
        ),
        (
            "Edit",
            json!({"filePath": "/a", "structuredPatch": "not a list"}),
        ),
        ("Read", json!(7)),
        ("mcp__s__t", json!(true)),
        ("SomethingNew", json!({"a": [1, 2]})),
    ] {
        let parsed = ToolOutput::parse(name, &output);
        assert!(!parsed.is_typed(), "{name}: {parsed:?}");
        assert_eq!(parsed.name(), name);
        assert_eq!(parsed.to_value(), output);
    }
}

/// Every `tool_use_result` of the recordings, with the name of the tool whose call it answers
/// (found in the same file, by the `tool_use` id of the message's `tool_result` block).
fn recorded_results() -> Vec<(String, String, Value)> {
    let mut names: HashMap<(String, String), String> = HashMap::new();
    let mut out = Vec::new();
    for frame in crate::test_fixtures::all() {
        let msg = &frame.msg;
        match msg["type"].as_str() {
            Some("assistant") => {
                for block in msg["message"]["content"].as_array().into_iter().flatten() {
                    if block["type"] == "tool_use" {
                        let id = block["id"].as_str().unwrap_or_default().to_owned();
                        let name = block["name"].as_str().unwrap_or_default().to_owned();
                        names.insert((frame.file.clone(), id), name);
                    }
                }
            }
            Some("user") if msg.get("tool_use_result").is_some() => {
                let id = msg["message"]["content"]
                    .as_array()
                    .into_iter()
                    .flatten()
                    .find(|block| block["type"] == "tool_result")
                    .and_then(|block| block["tool_use_id"].as_str())
                    .unwrap_or_default()
                    .to_owned();
                let name = names
                    .get(&(frame.file.clone(), id))
                    .unwrap_or_else(|| panic!("{}: no tool_use for this result", frame.origin()));
                out.push((frame.origin(), name.clone(), msg["tool_use_result"].clone()));
            }
            _ => {}
        }
    }
    out
}

#[test]
fn every_recorded_tool_output_is_typed_and_reads_back() {
    let mut seen = BTreeMap::<String, usize>::new();
    for (origin, name, output) in recorded_results() {
        let parsed = ToolOutput::parse(&name, &output);
        assert!(parsed.is_typed(), "{origin}: {name} {output}");
        assert_eq!(parsed.to_value(), output, "{origin}: {name}");
        *seen.entry(parsed.name().to_owned()).or_default() += 1;
    }
    for tool in ["Bash", "Read", "Write", "Edit", "Agent"] {
        assert!(
            seen.contains_key(tool),
            "no {tool} result recorded: {seen:?}"
        );
    }
}

#[test]
fn recorded_outputs_keep_nothing_in_extra() {
    // What the recorded CLIs write is typed to the last field: an `extra` that is not empty
    // names a field to type.
    for (origin, name, output) in recorded_results() {
        let extra = match ToolOutput::parse(&name, &output) {
            ToolOutput::Bash(o) => o.extra,
            ToolOutput::Read(o) => o.file.extra,
            ToolOutput::Write(o) => o.extra,
            ToolOutput::Edit(o) => o.extra,
            ToolOutput::Agent(o) => o.extra,
            _ => continue,
        };
        assert!(extra.is_empty(), "{origin}: {name}: {extra:?}");
    }
}

#[test]
fn the_table_and_the_enum_agree_on_names() {
    for (names, _, _) in TYPED_OUTPUTS {
        for name in *names {
            // Text reads as text under the name given; an empty list fits the list outputs.
            let parsed = ToolOutput::parse(name, &json!("x"));
            assert_eq!(parsed.name(), *name);
            let parsed = ToolOutput::parse(name, &json!(null));
            assert!(!parsed.is_typed(), "{name}");
        }
    }
    assert_eq!(TYPED_OUTPUTS.len(), 43);
}
