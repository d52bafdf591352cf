//! The usage-limit messages and the session end reasons are the official TypeScript SDK's:
//! `USAGE_LIMIT_ERROR_PREFIXES`, `ORG_POLICY_LIMIT_PREFIXES`, `USAGE_TRANSITION_PREFIXES`,
//! `USAGE_WARNING_PREFIXES` and `EXIT_REASONS` in its `sdk.d.ts` equal
//! `twinwire_protocol::limits`' lists and the wire names of `ExitReason`.

use twinwire::protocol::hooks::ExitReason;
use twinwire::protocol::limits;

/// The string literals of `export declare const NAME: readonly [...]` in `declarations`, in
/// either quote style.
fn constant(declarations: &str, name: &str) -> Vec<String> {
    let start = format!("export declare const {name}: readonly [");
    let line = declarations
        .lines()
        .find(|line| line.starts_with(&start))
        .unwrap_or_else(|| panic!("no {name} in sdk.d.ts"));
    let body = &line[start.len()..];
    let mut out = Vec::new();
    let mut chars = body.chars();
    while let Some(c) = chars.next() {
        if c == ']' {
            break;
        }
        if c == '"' || c == '\'' {
            let mut text = String::new();
            for d in chars.by_ref() {
                if d == c {
                    break;
                }
                text.push(d);
            }
            out.push(text);
        }
    }
    out
}

#[test]
fn limit_messages_and_exit_reasons_are_the_typescript_sdks() {
    let sdk = crate::installed("TWINWIRE_PEERS_TS_SDK");
    let declarations = std::fs::read_to_string(sdk.parent().unwrap().join("sdk.d.ts")).unwrap();
    for (name, ours) in [
        (
            "USAGE_LIMIT_ERROR_PREFIXES",
            limits::USAGE_LIMIT_ERROR_PREFIXES,
        ),
        (
            "ORG_POLICY_LIMIT_PREFIXES",
            limits::ORG_POLICY_LIMIT_PREFIXES,
        ),
        (
            "USAGE_TRANSITION_PREFIXES",
            limits::USAGE_TRANSITION_PREFIXES,
        ),
        ("USAGE_WARNING_PREFIXES", limits::USAGE_WARNING_PREFIXES),
        ("EXIT_REASONS", ExitReason::KNOWN),
    ] {
        let theirs = constant(&declarations, name);
        assert!(!theirs.is_empty(), "{name} is empty");
        assert_eq!(ours, theirs, "{name}");
    }
}

#[test]
fn the_constant_reader_takes_both_quote_styles() {
    let text = "export declare const X: readonly [\"You've hit\", 'plain'];\n";
    assert_eq!(constant(text, "X"), ["You've hit", "plain"]);
}
