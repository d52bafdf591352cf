//! ccwire's typed tool inputs against the official TypeScript SDK's schemas
//! (`sdk-tools.d.ts`, and `BUILTIN_TOOL_NAMES` in `sdk.d.ts`): every input interface and each
//! of its top-level fields is typed by ccwire, and every built-in tool is typed or listed as
//! deliberately not.

use std::collections::{BTreeMap, BTreeSet};

use ccwire::protocol::tools::{TYPED_TOOLS, UNTYPED_TOOLS};

/// The top-level fields of each `export interface …Input` of a `.d.ts` file.
fn input_interfaces(text: &str) -> BTreeMap<String, BTreeSet<String>> {
    let mut interfaces = BTreeMap::new();
    let mut lines = text.lines();
    while let Some(line) = lines.next() {
        let Some(rest) = line.strip_prefix("export interface ") else {
            continue;
        };
        let Some((name, tail)) = rest.split_once(' ') else {
            continue;
        };
        if !name.ends_with("Input") {
            continue;
        }
        let mut fields = BTreeSet::new();
        if tail.trim() == "{}" {
            interfaces.insert(name.to_owned(), fields);
            continue;
        }
        let (mut depth, mut in_comment) = (0i32, false);
        for line in lines.by_ref() {
            let trimmed = line.trim();
            if depth == 0 && line.starts_with('}') {
                break;
            }
            if in_comment || trimmed.starts_with("/*") {
                in_comment = !trimmed.ends_with("*/");
                continue;
            }
            if depth == 0 && line.starts_with("  ") && !line.starts_with("   ") {
                if let Some((field, _)) = trimmed.split_once(':') {
                    let field = field.trim_end_matches('?').trim_matches('"');
                    if !field.starts_with('[') {
                        fields.insert(field.to_owned());
                    }
                }
            }
            // Brackets outside string literals.
            let mut quoted = false;
            for c in line.chars() {
                match c {
                    '"' => quoted = !quoted,
                    '{' | '(' | '[' if !quoted => depth += 1,
                    '}' | ')' | ']' if !quoted => depth -= 1,
                    _ => {}
                }
            }
        }
        interfaces.insert(name.to_owned(), fields);
    }
    interfaces
}

#[test]
fn typed_tool_inputs_cover_the_typescript_sdks_schemas() {
    let sdk = crate::installed("CCWIRE_PEERS_TS_SDK");
    let dir = sdk.parent().unwrap();
    let schemas = input_interfaces(&std::fs::read_to_string(dir.join("sdk-tools.d.ts")).unwrap());
    assert!(schemas.len() >= 40, "{} interfaces", schemas.len());
    let ours: BTreeMap<&str, BTreeSet<String>> = TYPED_TOOLS
        .iter()
        .filter(|(_, interface, _)| !interface.is_empty())
        .map(|(_, interface, fields)| {
            (*interface, fields.iter().map(|f| (*f).to_owned()).collect())
        })
        .collect();
    for (interface, fields) in &schemas {
        if interface == "McpInput" {
            continue; // any object: `ToolInput::Mcp`
        }
        let Some(typed) = ours.get(interface.as_str()) else {
            panic!("{interface} of sdk-tools.d.ts is not typed");
        };
        assert_eq!(typed, fields, "the fields of {interface}");
    }
    for interface in ours.keys() {
        assert!(
            schemas.contains_key(*interface),
            "{interface} is not in sdk-tools.d.ts"
        );
    }
    // Every built-in tool name: typed, or listed with the reason it is not.
    let declarations = std::fs::read_to_string(dir.join("sdk.d.ts")).unwrap();
    let line = declarations
        .lines()
        .find(|l| l.contains("BUILTIN_TOOL_NAMES: readonly ["))
        .expect("BUILTIN_TOOL_NAMES");
    let names: Vec<&str> = line.split('\'').skip(1).step_by(2).collect();
    assert!(names.len() >= 50, "{names:?}");
    for name in names {
        let typed = TYPED_TOOLS
            .iter()
            .any(|(names, _, _)| names.contains(&name));
        let listed = UNTYPED_TOOLS.iter().any(|(n, _)| *n == name);
        assert!(
            typed || listed,
            "the built-in tool {name} is neither typed nor listed"
        );
    }
}
