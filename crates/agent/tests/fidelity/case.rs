//! A case: a tree to start from, turns of scripted tool calls, and the model script that plays
//! them the same way to any CLI.
//!
//! Each step is one assistant reply (one call, or several side by side). The script finds
//! its place by markers: step `t.s`'s reply carries the text `⟨step t.s⟩`, and the reply
//! after it is chosen by the newest marker in the conversation, so the same script drives
//! both CLIs whatever side requests they make.

use std::path::Path;

use serde_json::{json, Value};
use twinwire_model_server::ModelScript;

/// The tools every case offers unless it names its own (`--tools`).
pub const TOOLS: &[&str] = &[
    "Bash",
    "Read",
    "Write",
    "Edit",
    "Glob",
    "Grep",
    "NotebookEdit",
    "WebFetch",
    "WebSearch",
    "Skill",
    "TaskStop",
    "AskUserQuestion",
    "TodoWrite",
    "ListMcpResourcesTool",
    "ReadMcpResourceTool",
    "EnterPlanMode",
    "ExitPlanMode",
];

/// A file of the starting tree.
#[derive(Debug, Clone)]
pub struct File {
    /// Relative to the root of the case (`work/…` or `outside/…`).
    pub path: String,
    pub content: Vec<u8>,
    pub mode: u32,
    /// Seconds after a fixed epoch: what orders files by age.
    pub age: u64,
}

/// One tool call; strings in the input may name `{work}`, `{outside}` and `{root}`.
#[derive(Debug, Clone)]
pub struct Call {
    pub tool: String,
    pub input: Value,
    /// Input fields the model server fills from the conversation (field → expression).
    pub fill: Vec<(String, String)>,
}

/// One reply of the model: its calls.
#[derive(Debug, Clone)]
pub struct Step {
    pub calls: Vec<Call>,
}

/// A prompt and the steps of its turn.
#[derive(Debug, Clone)]
pub struct Turn {
    pub steps: Vec<Step>,
}

/// A case.
#[derive(Debug, Clone)]
pub struct Case {
    pub name: String,
    /// The tool the case is about, for the figures.
    pub tool: String,
    /// In the bounded subset `cargo xtask test` runs.
    pub quick: bool,
    pub files: Vec<File>,
    pub dirs: Vec<String>,
    pub turns: Vec<Turn>,
    pub env: Vec<(String, String)>,
    pub tools: Vec<String>,
    /// A page the local web server serves, by path.
    pub pages: Vec<(String, String, Vec<u8>)>,
    /// Extra command-line flags.
    pub args: Vec<(String, Option<String>)>,
    /// Rules for the CLI's own questions (a page read with a prompt, a web search), tried
    /// first.
    pub side: Vec<Value>,
    /// Whether the first request's shape is compared too.
    pub shape: bool,
    /// Whether the CLI uses its own system prompt (the SDKs' `preset`) rather than the SDKs'
    /// default empty one.
    pub preset_prompt: bool,
}

/// A case about `tool` named `name`.
pub fn case(tool: &str, name: &str) -> Case {
    Case {
        name: format!("{}/{name}", tool.to_lowercase()),
        tool: tool.to_owned(),
        quick: false,
        files: Vec::new(),
        dirs: Vec::new(),
        turns: vec![Turn { steps: Vec::new() }],
        env: Vec::new(),
        tools: TOOLS.iter().map(|t| (*t).to_owned()).collect(),
        pages: Vec::new(),
        args: Vec::new(),
        side: Vec::new(),
        shape: false,
        preset_prompt: false,
    }
}

/// A call of `tool` with `input`.
pub fn call(tool: &str, input: Value) -> Call {
    Call {
        tool: tool.to_owned(),
        input,
        fill: Vec::new(),
    }
}

/// A call whose `field` is the first group of `pattern`'s last match in the conversation.
pub fn filled(tool: &str, input: Value, field: &str, pattern: &str) -> Call {
    Call {
        fill: vec![(field.to_owned(), pattern.to_owned())],
        ..call(tool, input)
    }
}

impl Case {
    /// Part of the bounded subset.
    pub fn quick(mut self) -> Self {
        self.quick = true;
        self
    }

    /// A file in the work tree (mode 0644), aged so that files added later are newer.
    pub fn file(self, path: &str, content: impl AsRef<[u8]>) -> Self {
        self.file_with(path, content, 0o644)
    }

    /// A file with a mode.
    pub fn file_with(mut self, path: &str, content: impl AsRef<[u8]>, mode: u32) -> Self {
        let age = self.files.len() as u64;
        self.files.push(File {
            path: if path.starts_with("outside/") {
                path.to_owned()
            } else {
                format!("work/{path}")
            },
            content: content.as_ref().to_vec(),
            mode,
            age,
        });
        self
    }

    /// An empty directory in the work tree.
    pub fn dir(mut self, path: &str) -> Self {
        self.dirs.push(format!("work/{path}"));
        self
    }

    /// One step with one call.
    pub fn step(self, tool: &str, input: Value) -> Self {
        self.parallel(vec![call(tool, input)])
    }

    /// One step with several calls side by side.
    pub fn parallel(mut self, calls: Vec<Call>) -> Self {
        self.turns
            .last_mut()
            .expect("a case has a turn")
            .steps
            .push(Step { calls });
        self
    }

    /// Ends the turn: the steps after this one come in a new prompt.
    pub fn next_turn(mut self) -> Self {
        self.turns.push(Turn { steps: Vec::new() });
        self
    }

    /// An environment variable for both CLIs.
    pub fn env(mut self, key: &str, value: &str) -> Self {
        self.env.push((key.to_owned(), value.to_owned()));
        self
    }

    /// A page of the local web server.
    pub fn page(mut self, path: &str, content_type: &str, body: impl AsRef<[u8]>) -> Self {
        self.pages.push((
            path.to_owned(),
            content_type.to_owned(),
            body.as_ref().to_vec(),
        ));
        self
    }

    /// A rule for the CLI's own questions: when a question asked outside the conversation
    /// holds `contains`, `reply` answers it.
    pub fn side_rule(mut self, when: Value, reply: Value) -> Self {
        self.side.push(json!({"when": {"all": [{"first_turn": true},
                                               {"not": {"last_prompt_contains": "⟨turn "}},
                                               when]},
                              "reply": reply}));
        self
    }

    /// `tool` offered too, beside [`TOOLS`].
    pub fn tool(mut self, tool: &str) -> Self {
        self.tools.push(tool.to_owned());
        self
    }

    /// The first request's shape is compared too.
    pub fn shape(mut self) -> Self {
        self.shape = true;
        self
    }

    /// The CLI's own system prompt (the SDKs' `preset`).
    pub fn preset_prompt(mut self) -> Self {
        self.preset_prompt = true;
        self
    }

    /// A command-line flag for both CLIs.
    pub fn arg(mut self, key: &str, value: Option<&str>) -> Self {
        self.args.push((key.to_owned(), value.map(str::to_owned)));
        self
    }

    /// Every step with its label `t.s`, in order.
    pub fn labelled_steps(&self) -> Vec<(String, &Step)> {
        let mut out = Vec::new();
        for (t, turn) in self.turns.iter().enumerate() {
            for (s, step) in turn.steps.iter().enumerate() {
                out.push((format!("{}.{}", t + 1, s + 1), step));
            }
        }
        out
    }

    /// The prompt of turn `t` (from 1).
    pub fn prompt(&self, t: usize) -> String {
        format!("{} {}", turn_marker(t), self.name)
    }

    /// The model script that plays the case, with the paths of this run put in.
    pub fn script(&self, root: &Path, web: &str) -> ModelScript {
        let mut rules: Vec<Value> = self.side.clone();
        // Any other question of the CLI's own (a title, a page read with a prompt): the
        // conversation has not started and names no turn. Its wording is the CLI's, so the
        // answer does not depend on it.
        rules.push(json!({"when": {"all": [{"first_turn": true},
                                           {"not": {"last_prompt_contains": "⟨turn "}}]},
                          "reply": {"text": "(an answer to the side question)"}}));
        for (t, turn) in self.turns.iter().enumerate().rev() {
            let t = t + 1;
            let last = turn.steps.len();
            if last > 0 {
                rules.push(json!({
                    "when": {"conversation_contains": step_marker(t, last)},
                    "reply": {"text": format!("⟨turn {t} done⟩")}
                }));
            }
            for (s, step) in turn.steps.iter().enumerate().rev() {
                let s = s + 1;
                let when = if s == 1 {
                    json!({"last_prompt_contains": turn_marker(t)})
                } else {
                    json!({"conversation_contains": step_marker(t, s - 1)})
                };
                let calls: Vec<Value> = step
                    .calls
                    .iter()
                    .map(|c| {
                        let fill: serde_json::Map<String, Value> =
                            c.fill.iter().map(|(k, v)| (k.clone(), json!(v))).collect();
                        json!({"name": c.tool, "input": place(&c.input, root, web), "fill": fill})
                    })
                    .collect();
                rules.push(json!({
                    "when": when,
                    "reply": {"tool_uses": {"calls": calls, "text": step_marker(t, s)}}
                }));
            }
            if last == 0 {
                rules.push(json!({
                    "when": {"last_prompt_contains": turn_marker(t)},
                    "reply": {"text": format!("⟨turn {t} done⟩")}
                }));
            }
        }
        serde_json::from_value(json!({"rules": rules, "default": {"text": "(nothing scripted)"}}))
            .expect("a valid script")
    }
}

/// The text of step `t.s`'s reply.
pub fn step_marker(t: usize, s: usize) -> String {
    format!("⟨step {t}.{s}⟩")
}

fn turn_marker(t: usize) -> String {
    format!("⟨turn {t}⟩")
}

/// `{work}`, `{outside}`, `{root}` and `{web}` put in every string of `value`.
pub fn place(value: &Value, root: &Path, web: &str) -> Value {
    match value {
        Value::String(text) => Value::String(
            text.replace("{work}", &root.join("work").display().to_string())
                .replace("{outside}", &root.join("outside").display().to_string())
                .replace("{root}", &root.display().to_string())
                .replace("{web}", web),
        ),
        Value::Array(items) => Value::Array(items.iter().map(|v| place(v, root, web)).collect()),
        Value::Object(map) => Value::Object(
            map.iter()
                .map(|(k, v)| (k.clone(), place(v, root, web)))
                .collect(),
        ),
        other => other.clone(),
    }
}
