//! twinwire's typed tool inputs against the official TypeScript SDK's schemas
//! (`sdk-tools.d.ts`, and `BUILTIN_TOOL_NAMES` in `sdk.d.ts`): every input interface and each
//! of its top-level fields is typed by twinwire, and every built-in tool is typed or listed as
//! deliberately not.

use std::collections::{BTreeMap, BTreeSet};

use twinwire::protocol::tools::{TYPED_TOOLS, UNTYPED_TOOLS};

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
    let sdk = crate::installed("TWINWIRE_PEERS_TS_SDK");
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

/// `text` without its `/* … */` comments.
fn without_comments(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(start) = rest.find("/*") {
        out.push_str(&rest[..start]);
        rest = rest[start..]
            .find("*/")
            .map_or("", |end| &rest[start + end + 2..]);
    }
    out.push_str(rest);
    out
}

/// `text` split at each `sep` outside brackets and string literals.
fn split_top_level(text: &str, sep: char) -> Vec<&str> {
    let (mut parts, mut depth, mut quote, mut start) = (Vec::new(), 0i32, None, 0);
    for (at, c) in text.char_indices() {
        match (quote, c) {
            (Some(q), _) if c == q => quote = None,
            (Some(_), _) => {}
            (None, '"' | '\'') => quote = Some(c),
            (None, _) if c == sep && depth == 0 => {
                parts.push(&text[start..at]);
                start = at + c.len_utf8();
            }
            (None, '{' | '[' | '(') => depth += 1,
            (None, '}' | ']' | ')') => depth -= 1,
            _ => {}
        }
    }
    parts.push(&text[start..]);
    parts
}

/// The top-level field names of an object type's body (between its braces).
fn object_fields(body: &str) -> BTreeSet<String> {
    split_top_level(body, ';')
        .into_iter()
        .filter_map(|member| {
            let (name, _) = member.trim().split_once(':')?;
            let name = name.trim().trim_end_matches('?').trim_matches('"');
            (!name.is_empty() && !name.starts_with('[')).then(|| name.to_owned())
        })
        .collect()
}

/// The text of the type declared as `export <keyword> <name>` in `text` (after its `=`, for a
/// `type`), up to its end.
fn declaration<'a>(text: &'a str, keyword: &str, name: &str) -> Option<&'a str> {
    let head = format!("export {keyword} {name}");
    let mut from = 0;
    let rest = loop {
        let at = text[from..].find(&head)? + from + head.len();
        let rest = &text[at..];
        // The whole name, not the start of a longer one.
        if rest.starts_with(|c: char| c.is_whitespace() || c == '=' || c == '{') {
            break rest.trim_start().trim_start_matches('=').trim_start();
        }
        from = at;
    };
    // An interface ends with its closing brace; a type alias at its first `;` outside brackets.
    let end = match rest.strip_prefix('{') {
        Some(body) => split_top_level(body, '}')
            .first()
            .map_or(rest.len(), |b| b.len() + 2),
        None => split_top_level(rest, ';')
            .first()
            .map_or(rest.len(), |first| first.len()),
    };
    Some(rest[..end.min(rest.len())].trim())
}

/// The output types of `sdk-tools.d.ts` (the members of `ToolOutputSchemas`), each with its
/// top-level fields: an interface's, a union's (every object member's), a list's (its
/// element's). Types that are not objects (`McpOutput`'s text form) add no fields.
fn output_types(text: &str) -> BTreeMap<String, BTreeSet<String>> {
    let text = without_comments(text);
    let schemas = declaration(&text, "type", "ToolOutputSchemas").expect("ToolOutputSchemas");
    let mut out = BTreeMap::new();
    for name in split_top_level(schemas, '|') {
        let name = name.trim();
        if name.is_empty() {
            continue; // before a leading `|`
        }
        let fields = if let Some(body) = declaration(&text, "interface", name) {
            let body = body.trim().trim_start_matches('{');
            object_fields(body.strip_suffix('}').unwrap_or(body))
        } else {
            let alias = declaration(&text, "type", name)
                .unwrap_or_else(|| panic!("{name} is neither an interface nor a type"));
            let mut fields = BTreeSet::new();
            for member in split_top_level(alias, '|') {
                let member = member.trim().trim_end_matches("[]");
                if let Some(body) = member.strip_prefix('{').and_then(|m| m.strip_suffix('}')) {
                    fields.extend(object_fields(body));
                }
            }
            fields
        };
        out.insert(name.to_owned(), fields);
    }
    out
}

#[test]
fn typed_tool_outputs_cover_the_typescript_sdks_schemas() {
    use twinwire::protocol::tool_output::{CLI_ONLY_OUTPUT_FIELDS, TYPED_OUTPUTS};

    let sdk = crate::installed("TWINWIRE_PEERS_TS_SDK");
    let dir = sdk.parent().unwrap();
    let schemas = output_types(&std::fs::read_to_string(dir.join("sdk-tools.d.ts")).unwrap());
    assert!(schemas.len() >= 40, "{} output types", schemas.len());
    let ours: BTreeMap<&str, BTreeSet<String>> = TYPED_OUTPUTS
        .iter()
        .map(|(_, output, fields)| (*output, fields.iter().map(|f| (*f).to_owned()).collect()))
        .collect();
    for (output, fields) in &schemas {
        if output == "McpOutput" {
            continue; // text, blocks or any object: `ToolOutput::Mcp`
        }
        let Some(typed) = ours.get(output.as_str()) else {
            panic!("{output} of sdk-tools.d.ts is not typed");
        };
        assert_eq!(typed, fields, "the fields of {output}");
    }
    for output in ours.keys() {
        assert!(
            schemas.contains_key(*output),
            "{output} is not in sdk-tools.d.ts"
        );
    }
    // A field the CLI writes beyond the SDK's types is typed, and is not one of the SDK's.
    for (output, field) in CLI_ONLY_OUTPUT_FIELDS {
        assert!(
            !schemas[*output].contains(*field),
            "{output}.{field} is in the SDK's types now: move it to TYPED_OUTPUTS"
        );
    }
    // Each output's tools are typed inputs too, under the same names.
    for (names, _, _) in TYPED_OUTPUTS {
        assert!(
            TYPED_TOOLS.iter().any(|(inputs, _, _)| inputs == names),
            "{names:?}"
        );
    }
}

#[test]
fn the_schema_reader_reads_interfaces_unions_and_lists() {
    let text = r#"
export type ToolOutputSchemas = | AOutput | BOutput | COutput;
export type AOutput =
  | { status: "x"; /* a; b */ id: string; nested: { inner: number; }; }
  | { status: "y"; other?: boolean[]; };
export type BOutput = { uri: string; "odd-name"?: string; }[];
export interface COutput {
  plain: string | null;
  [k: string]: unknown;
}
"#;
    let types = output_types(text);
    let names = |fields: &[&str]| {
        fields
            .iter()
            .map(|f| (*f).to_owned())
            .collect::<BTreeSet<_>>()
    };
    assert_eq!(
        types["AOutput"],
        names(&["status", "id", "nested", "other"])
    );
    assert_eq!(types["BOutput"], names(&["uri", "odd-name"]));
    assert_eq!(types["COutput"], names(&["plain"]));
}
