//! The input schemas of the built-in tools: the fields of twinwire-protocol's typed inputs
//! (`BashInput`, `FileReadInput`, …), which are Claude Code's, with this agent's own words
//! for the model.

use serde_json::{json, Value};

/// `Bash`.
pub fn bash() -> Value {
    json!({
        "type": "object",
        "properties": {
            "command": {"type": "string", "description": "The shell command to run (bash)."},
            "timeout": {"type": "number", "description": "A time limit in milliseconds (at most 600000)."},
            "description": {"type": "string", "description": "What the command does, in a few words."},
            "run_in_background": {"type": "boolean", "description": "Not supported here: commands run to completion."},
            "dangerouslyDisableSandbox": {"type": "boolean", "description": "Accepted; this agent runs no sandbox."}
        },
        "required": ["command"],
        "additionalProperties": false
    })
}

/// `Read`.
pub fn read() -> Value {
    json!({
        "type": "object",
        "properties": {
            "file_path": {"type": "string", "description": "The absolute path of the file."},
            "offset": {"type": "number", "description": "The line to start at (1 is the first)."},
            "limit": {"type": "number", "description": "How many lines to read."},
            "pages": {"type": "string", "description": "Not supported here (PDF pages)."}
        },
        "required": ["file_path"],
        "additionalProperties": false
    })
}

/// `Write`.
pub fn write() -> Value {
    json!({
        "type": "object",
        "properties": {
            "file_path": {"type": "string", "description": "The absolute path of the file."},
            "content": {"type": "string", "description": "The whole new content."}
        },
        "required": ["file_path", "content"],
        "additionalProperties": false
    })
}

/// `Edit`.
pub fn edit() -> Value {
    json!({
        "type": "object",
        "properties": {
            "file_path": {"type": "string", "description": "The absolute path of the file."},
            "old_string": {"type": "string", "description": "The exact text to replace."},
            "new_string": {"type": "string", "description": "The text to put in its place."},
            "replace_all": {"type": "boolean", "default": false, "description": "Replace every occurrence, not just the one."}
        },
        "required": ["file_path", "old_string", "new_string"],
        "additionalProperties": false
    })
}

/// `Glob`.
pub fn glob() -> Value {
    json!({
        "type": "object",
        "properties": {
            "pattern": {"type": "string", "description": "A glob such as **/*.rs or src/*.ts."},
            "path": {"type": "string", "description": "The directory to search (default: the working directory)."}
        },
        "required": ["pattern"],
        "additionalProperties": false
    })
}

/// `Grep`.
pub fn grep() -> Value {
    json!({
        "type": "object",
        "properties": {
            "pattern": {"type": "string", "description": "A regular expression (Rust regex syntax)."},
            "path": {"type": "string", "description": "A file or directory to search (default: the working directory)."},
            "glob": {"type": "string", "description": "Only files whose path matches this glob."},
            "output_mode": {"type": "string", "enum": ["content", "files_with_matches", "count"], "description": "What to show (default files_with_matches)."},
            "-B": {"type": "number", "description": "Lines before each match (content)."},
            "-A": {"type": "number", "description": "Lines after each match (content)."},
            "-C": {"type": "number", "description": "Lines around each match (content)."},
            "context": {"type": "number", "description": "Lines around each match (content)."},
            "-n": {"type": "boolean", "description": "Show line numbers (content; default true)."},
            "-i": {"type": "boolean", "description": "Ignore case."},
            "type": {"type": "string", "description": "Only files of this type (rust, py, js, …)."},
            "head_limit": {"type": "number", "description": "At most this many lines or files."},
            "offset": {"type": "number", "description": "Skip this many lines or files first."},
            "multiline": {"type": "boolean", "description": "Let . and patterns span lines."}
        },
        "required": ["pattern"],
        "additionalProperties": false
    })
}

/// `TodoWrite`.
pub fn todo_write() -> Value {
    json!({
        "type": "object",
        "properties": {
            "todos": {
                "type": "array",
                "description": "The whole updated list.",
                "items": {
                    "type": "object",
                    "properties": {
                        "content": {"type": "string", "minLength": 1},
                        "status": {"type": "string", "enum": ["pending", "in_progress", "completed"]},
                        "activeForm": {"type": "string", "minLength": 1}
                    },
                    "required": ["content", "status", "activeForm"],
                    "additionalProperties": false
                }
            }
        },
        "required": ["todos"],
        "additionalProperties": false
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every property a schema offers is a typed field of the tool's input in
    /// twinwire-protocol (none is left in its `extra`): the names are Claude Code's.
    #[test]
    fn every_property_is_a_typed_field_of_the_protocols_input() {
        use serde_json::from_value as read;
        use twinwire_protocol::tools::*;
        for (name, schema) in [
            ("Bash", bash()),
            ("Read", read_schema()),
            ("Write", write()),
            ("Edit", edit()),
            ("Glob", glob()),
            ("Grep", grep()),
            ("TodoWrite", todo_write()),
        ] {
            let mut input = serde_json::Map::new();
            for (field, spec) in schema["properties"].as_object().unwrap() {
                let value = match spec["type"].as_str().unwrap() {
                    "string" => json!("x"),
                    "number" => json!(1),
                    "boolean" => json!(true),
                    _ => json!([]),
                };
                input.insert(field.clone(), value);
            }
            let input = Value::Object(input);
            let untyped = match name {
                "Bash" => read::<BashInput>(input).unwrap().extra,
                "Read" => read::<FileReadInput>(input).unwrap().extra,
                "Write" => read::<FileWriteInput>(input).unwrap().extra,
                "Edit" => read::<FileEditInput>(input).unwrap().extra,
                "Glob" => read::<GlobInput>(input).unwrap().extra,
                "Grep" => read::<GrepInput>(input).unwrap().extra,
                _ => read::<TodoWriteInput>(input).unwrap().extra,
            };
            assert!(untyped.is_empty(), "{name}: not typed: {untyped:?}");
        }
    }

    fn read_schema() -> Value {
        read()
    }
}
