//! The input schemas of the built-in tools: Claude Code's fields, types and rules (the names
//! and kinds are the interface models are trained on), with this agent's own words for the
//! model.

use serde_json::json;

#[cfg(test)]
use super::input::Field;
use super::input::{boolean, number, optional, required, string, InputSchema, Kind};

/// `Bash`.
pub fn bash() -> InputSchema {
    InputSchema::new(vec![
        required("command", string(), "The shell command to run."),
        optional(
            "timeout",
            number(),
            "A time limit in milliseconds (at most 600000 when the command runs in the foreground).",
        ),
        optional(
            "description",
            string(),
            "What the command does, in a few plain words of active voice for the person \
             reading along (\"List the files here\", \"Run the unit tests\"); say what it \
             achieves rather than repeating the command, its flags or its paths.",
        ),
        optional(
            "run_in_background",
            boolean(),
            "True to start the command as a background job and get its id and output file at \
             once; `timeout` then bounds how long the job may run (600000 ms unless given, at \
             most 7200000 ms).",
        ),
        optional(
            "dangerouslyDisableSandbox",
            boolean(),
            "True to run the command outside the sandbox, when one is in use.",
        ),
    ])
}

/// `Read`.
pub fn read() -> InputSchema {
    InputSchema::new(vec![
        required("file_path", string(), "The file's absolute path."),
        optional(
            "offset",
            Kind::Integer {
                min: 0,
                exclusive: false,
                enforced: false,
            },
            "The line to start at; give it only for a file too long to read at once.",
        ),
        optional(
            "limit",
            Kind::Integer {
                min: 0,
                exclusive: true,
                enforced: false,
            },
            "How many lines to read; give it only for a file too long to read at once.",
        ),
        optional(
            "pages",
            string(),
            "For a PDF: the pages to read, such as \"1-5\", \"3\" or \"10-20\" (20 at most per call).",
        ),
        optional(
            "allow_large",
            boolean(),
            "True to read a text file, or a range of its lines, past the usual size limits (as \
             much as fits in the context). Only when all of it is truly needed or was asked \
             for; otherwise read parts with offset and limit, or search in it.",
        ),
    ])
}

/// `Write`.
pub fn write() -> InputSchema {
    InputSchema::new(vec![
        required(
            "file_path",
            string(),
            "The file's absolute path (not a relative one).",
        ),
        required("content", string(), "Everything the file is to hold."),
    ])
}

/// `Edit`.
pub fn edit() -> InputSchema {
    InputSchema::new(vec![
        required(
            "file_path",
            string(),
            "The absolute path of the file to change.",
        ),
        required("old_string", string(), "The exact text to find."),
        required(
            "new_string",
            string(),
            "The text to put in its place (not the same as old_string).",
        ),
        optional(
            "replace_all",
            boolean(),
            "Replace every place old_string occurs (false unless given).",
        )
        .default(json!(false)),
    ])
}

/// `Glob`.
pub fn glob() -> InputSchema {
    InputSchema::new(vec![
        required("pattern", string(), "The glob the file paths must match."),
        optional(
            "path",
            string(),
            "The directory to search; leave it out to search the working directory (never \
             write \"undefined\" or \"null\" for it). When given, it must be a directory.",
        ),
    ])
}

/// `Grep`.
pub fn grep() -> InputSchema {
    InputSchema::new(vec![
        required(
            "pattern",
            string(),
            "The regular expression to look for in the files' text.",
        ),
        optional(
            "path",
            string(),
            "The file or directory to search (ripgrep's PATH); the working directory unless given.",
        ),
        optional(
            "glob",
            string(),
            "Only files whose path matches this glob (\"*.js\", \"*.{ts,tsx}\"); ripgrep's --glob.",
        ),
        optional(
            "output_mode",
            Kind::Enum(&["content", "files_with_matches", "count"]),
            "What to show: \"content\" the matching lines (with -A/-B/-C context, -n line \
             numbers and head_limit), \"files_with_matches\" the files' paths, \"count\" the \
             matches per file (both with head_limit). \"files_with_matches\" unless given.",
        ),
        optional(
            "-B",
            number(),
            "Lines to show before each match (rg -B); only with output_mode \"content\".",
        ),
        optional(
            "-A",
            number(),
            "Lines to show after each match (rg -A); only with output_mode \"content\".",
        ),
        optional("-C", number(), "The same as context."),
        optional(
            "context",
            number(),
            "Lines to show before and after each match (rg -C); only with output_mode \"content\".",
        ),
        optional(
            "-n",
            boolean(),
            "Number the lines (rg -n); only with output_mode \"content\". True unless given.",
        ),
        optional("-i", boolean(), "Ignore case (rg -i)."),
        optional(
            "-o",
            boolean(),
            "Show only the matching part of each line, one per output line (rg -o); only with \
             output_mode \"content\". False unless given.",
        ),
        optional(
            "type",
            string(),
            "Only files of this type (rg --type): js, py, rust, go, java and the like; quicker \
             than a glob for the common types.",
        ),
        optional(
            "head_limit",
            number(),
            "Show at most the first N lines or entries, like \"| head -N\", in every mode; 250 \
             unless given, 0 for no limit (costly on large results).",
        ),
        optional(
            "offset",
            number(),
            "Skip the first N lines or entries before head_limit applies, like \"| tail -n \
             +N | head -N\"; 0 unless given.",
        ),
        optional(
            "multiline",
            boolean(),
            "Let patterns span lines and . match a newline (rg -U --multiline-dotall); false \
             unless given.",
        ),
    ])
}

/// `TodoWrite`.
pub fn todo_write() -> InputSchema {
    let item = vec![
        required("content", Kind::NonEmpty("Content cannot be empty"), ""),
        required(
            "status",
            Kind::Enum(&["pending", "in_progress", "completed"]),
            "",
        ),
        required(
            "activeForm",
            Kind::NonEmpty("Active form cannot be empty"),
            "",
        ),
    ];
    InputSchema::new(vec![required(
        "todos",
        Kind::Objects {
            fields: item,
            min: None,
            max: None,
        },
        "The whole list as it stands now.",
    )])
}

/// `NotebookEdit`.
pub fn notebook_edit() -> InputSchema {
    InputSchema::new(vec![
        required(
            "notebook_path",
            string(),
            "The notebook's absolute path (.ipynb; not a relative one).",
        ),
        optional(
            "cell_id",
            string(),
            "The id of the cell to change; when inserting, the new cell goes after this one, \
             or first when no id is given.",
        ),
        required("new_source", string(), "The cell's new source."),
        optional(
            "cell_type",
            Kind::Enum(&["code", "markdown"]),
            "code or markdown; the cell's present type unless given. Needed to insert.",
        ),
        optional(
            "edit_mode",
            Kind::Enum(&["replace", "insert", "delete"]),
            "replace (unless given), insert or delete.",
        ),
    ])
}

/// `WebFetch`.
pub fn web_fetch() -> InputSchema {
    InputSchema::new(vec![
        required("url", Kind::Url, "The address to fetch."),
        required(
            "prompt",
            string(),
            "What to find out from the page: the question its text is read with.",
        ),
        optional(
            "offset",
            Kind::Integer {
                min: 0,
                exclusive: false,
                enforced: true,
            },
            "Where in the page's text to start (a character position), to read on through a \
             page too long for one call: the value the last result named.",
        ),
    ])
}

/// `WebSearch`.
pub fn web_search() -> InputSchema {
    InputSchema::new(vec![
        required(
            "query",
            Kind::Str { min: Some(2) },
            "What to search the web for.",
        ),
        optional(
            "allowed_domains",
            Kind::Strings,
            "Keep only results from these domains.",
        ),
        optional(
            "blocked_domains",
            Kind::Strings,
            "Leave out results from these domains.",
        ),
    ])
}

/// `Skill`.
pub fn skill() -> InputSchema {
    InputSchema::new(vec![
        required(
            "skill",
            string(),
            "A skill's name, exactly as the list of available skills gives it.",
        ),
        optional("args", string(), "Arguments for the skill, if any."),
    ])
}

/// `TaskStop`.
pub fn task_stop() -> InputSchema {
    InputSchema::new(vec![
        optional("task_id", string(), "The id of the background job to stop."),
        optional("shell_id", string(), "The old name of task_id."),
    ])
}

/// `AskUserQuestion`.
pub fn ask_user_question() -> InputSchema {
    let option = vec![
        required(
            "label",
            string(),
            "The choice as the user sees it, in a few words.",
        ),
        required(
            "description",
            string(),
            "What picking it means or leads to.",
        ),
        optional(
            "preview",
            string(),
            "Content shown while the option has focus (a mockup, a snippet, a comparison).",
        ),
    ];
    let question = vec![
        required(
            "question",
            string(),
            "The whole question, clear and specific, ending with a question mark.",
        ),
        required(
            "header",
            string(),
            "A very short label for the question (12 characters at most).",
        ),
        required(
            "options",
            Kind::Objects {
                fields: option,
                min: Some(2),
                max: Some(4),
            },
            "Two to four distinct choices; the user can always write their own answer, so \
             offer no \"Other\".",
        ),
        required(
            "multiSelect",
            boolean(),
            "True when the user may pick several options.",
        )
        .default(json!(false)),
    ];
    InputSchema::new(vec![
        required(
            "questions",
            Kind::Objects {
                fields: question,
                min: Some(1),
                max: Some(4),
            },
            "One to four questions for the user.",
        ),
        optional(
            "answers",
            Kind::StringMap,
            "The user's answers, filled in when the user replies.",
        ),
        optional(
            "annotations",
            Kind::RecordOf(vec![
                optional(
                    "preview",
                    string(),
                    "The preview of the option chosen, when the question had previews.",
                ),
                optional(
                    "notes",
                    string(),
                    "What the user wrote beside their choice.",
                ),
            ]),
            "Notes the user added to their answers, by question.",
        ),
        optional(
            "metadata",
            Kind::Object(vec![optional(
                "source",
                string(),
                "Where the question comes from (a command's name, say), for tracking.",
            )]),
            "Bookkeeping about the question; not shown to the user.",
        ),
    ])
}

/// `EnterPlanMode`: no arguments.
pub fn enter_plan_mode() -> InputSchema {
    InputSchema::new(Vec::new())
}

/// `Task` (Claude Code's `Agent`, whose name its validation errors give).
pub fn task() -> InputSchema {
    InputSchema::new(vec![
        required(
            "description",
            string(),
            "A short (3-5 word) description of the task",
        ),
        required("prompt", string(), "The task for the agent to perform"),
        optional("subagent_type", string(), "The type of agent to use"),
        optional(
            "model",
            string(),
            "A model for this agent instead of its own",
        ),
        optional(
            "run_in_background",
            boolean(),
            "Ignored: the agent runs in the call, and its report is the result",
        ),
    ])
}

/// `ListMcpResourcesTool`.
pub fn list_mcp_resources() -> InputSchema {
    InputSchema::new(vec![optional(
        "server",
        string(),
        "Only the resources of this MCP server.",
    )])
}

/// `ReadMcpResourceTool`.
pub fn read_mcp_resource() -> InputSchema {
    InputSchema::new(vec![
        required("server", string(), "The MCP server's name."),
        required("uri", string(), "The resource's URI."),
    ])
}

/// Every built-in schema by tool name.
#[cfg(test)]
fn all() -> Vec<(&'static str, InputSchema)> {
    vec![
        ("Bash", bash()),
        ("Read", read()),
        ("Write", write()),
        ("Edit", edit()),
        ("Glob", glob()),
        ("Grep", grep()),
        ("TodoWrite", todo_write()),
        ("NotebookEdit", notebook_edit()),
        ("WebFetch", web_fetch()),
        ("WebSearch", web_search()),
        ("Skill", skill()),
        ("TaskStop", task_stop()),
        ("AskUserQuestion", ask_user_question()),
        ("ListMcpResourcesTool", list_mcp_resources()),
        ("ReadMcpResourceTool", read_mcp_resource()),
    ]
}

/// Field names, for tests.
#[cfg(test)]
fn names(fields: &[Field]) -> Vec<&'static str> {
    fields.iter().map(|f| f.name).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every property a schema offers is a typed field of the tool's input in
    /// twinwire-protocol (none is left in its `extra`): the names are Claude Code's.
    #[test]
    fn every_property_is_a_typed_field_of_the_protocols_input() {
        use serde_json::{from_value as read, Value};
        use twinwire_protocol::tools::*;
        for (name, schema) in [
            ("Bash", bash()),
            ("Read", super::read()),
            ("Write", write()),
            ("Edit", edit()),
            ("Glob", glob()),
            ("Grep", grep()),
            ("TodoWrite", todo_write()),
        ] {
            let json = schema.json();
            let mut input = serde_json::Map::new();
            for (field, spec) in json["properties"].as_object().unwrap() {
                let value = match spec["type"].as_str().unwrap() {
                    "string" => json!("x"),
                    "number" | "integer" => json!(1),
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
            // `allow_large` and Grep's `-o` are newer than the protocol's typed inputs.
            let untyped: Vec<&String> = untyped
                .keys()
                .filter(|k| !["allow_large", "-o"].contains(&k.as_str()))
                .collect();
            assert!(untyped.is_empty(), "{name}: not typed: {untyped:?}");
        }
    }

    #[test]
    fn the_schemas_have_claude_code_s_fields() {
        assert_eq!(
            names(&grep().fields),
            [
                "pattern",
                "path",
                "glob",
                "output_mode",
                "-B",
                "-A",
                "-C",
                "context",
                "-n",
                "-i",
                "-o",
                "type",
                "head_limit",
                "offset",
                "multiline"
            ]
        );
        assert_eq!(all().len(), 15);
    }
}
