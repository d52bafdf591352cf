//! Makes a recording of `twinwire tap` reproducible: what changes from run to run (uuids,
//! timestamps, durations, temporary paths, ports, the machine's environment, the random ids the
//! model server gives its messages) is replaced by stable values, so that recording the same
//! scenario twice gives the same bytes.
//!
//! Frames are rewritten as text, not parsed and printed again, so every key keeps the order the
//! CLI or the host wrote it in. Each distinct uuid or id becomes a numbered one in the order of
//! first appearance in the file: the same value gets the same replacement everywhere, so request
//! and response ids, session ids and tool-use ids still pair up.

use std::collections::HashMap;
use std::sync::LazyLock;

use anyhow::{bail, Context, Result};
use regex::{Captures, Regex};
use serde_json::{Map, Value};
use twinwire_protocol::recording;

/// The placeholder the scenario's private directory (home, temp and work directories) becomes.
const SCENARIO_ROOT: &str = "/scenario";
/// The placeholder the CLI's install directory becomes.
const CLI_ROOT: &str = "/cli";
/// The placeholder the target directory becomes (the scenarios' own programs are built there,
/// `memo-mcp`): a clone elsewhere records the same bytes.
const TARGET_ROOT: &str = "/target";
/// The placeholder the workspace becomes.
const WORKSPACE_ROOT: &str = "/workspace";
/// Every timestamp becomes this one.
const FIXED_TIMESTAMP: &str = "2000-01-01T00:00:00.000Z";

/// The environment variables a recording keeps: the ones a scenario sets for the CLI. The rest
/// of the environment is the machine's.
const KEPT_ENV_PREFIXES: &[&str] = &["ANTHROPIC_", "CLAUDE_", "DISABLE_", "MCP_", "XDG_"];
const KEPT_ENV: &[&str] = &["HOME", "TMPDIR"];

/// A pattern compiled once, on first use.
macro_rules! pattern {
    ($(#[$doc:meta])* $name:ident = $pattern:expr) => {
        $(#[$doc])*
        static $name: LazyLock<Regex> =
            LazyLock::new(|| Regex::new($pattern).expect("a valid pattern"));
    };
}

pattern! {
    UUID = r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}"
}

pattern! {
    /// The model server's message and tool-use ids (`msg_fake_<hex>`, `toolu_fake_<hex>`).
    FAKE_ID = r"\b([a-z]+)_fake_([0-9a-f]{6,})\b"
}

pattern! {
    /// Request ids an SDK draws at random (TypeScript: `f3d2pcnvlk`; Python: `req_1_9afde8c4`).
    /// twinwire's `req_N` and the model server's `req_fake_N` are counters and stay.
    REQUEST_ID = r#"("request_id":\s*")([^"\\]+)""#
}

pattern! {
    COUNTED_REQUEST_ID = r"^(req_(fake_)?\d+|sdk_req_\d{6}|0{8}-0{4}-4000-8000-\d{12})$"
}

pattern! {
    COUNTED_TASK_ID = r"^task\d{6}$"
}

pattern! {
    /// Process ids: `"pid":1234`, and the CLI's socket named after its pid.
    PID = r#"("pid":)\d+|(cc-socks/)\d+(\.sock)"#
}

pattern! {
    /// Ids the CLI draws at random for background work (`"task_id":"a06ac8e36ffed9d3d"`,
    /// `"run_id":"0mwwcta6n-2086b1db"`); each is numbered, and replaced wherever it appears
    /// (tool results and paths name them too).
    TASK_ID = r#""(task_id|run_id|agent_id|agentId|backgroundTaskId|shellId|bash_id)":\s*"([A-Za-z0-9_-]{6,})""#
}

pattern! {
    /// A background command's id where the older CLIs name it only in the tool's result
    /// (`Command running in background with ID: f62e93`): numbered as the others.
    BACKGROUND_ID = r"running in background with ID: ([A-Za-z0-9]{6,})\b"
}

pattern! {
    /// A file's modification time in milliseconds (`seed_read_state`), and the epoch times of
    /// background work (`"start_time":1795629377977`, `"end_time"`, `startTime`, …).
    EPOCH_TIME = r#"("(?:mtime(?:Ms)?|[A-Za-z]*_time|[a-z]+Time)":)\d{10,}"#
}

pattern! {
    TIMESTAMP = r"\b\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})?"
}

pattern! {
    LOOPBACK_PORT = r"(127\.0\.0\.1|localhost):\d+"
}

pattern! {
    /// A temporary directory a scenario makes beside its own (`tempfile`'s `/tmp/.tmpKgWLvF`, or
    /// `-tmp--tmpKgWLvF` where the CLI names a project after it): numbered, like the ids.
    TEMP_DIR = r"(/\.tmp|--tmp)([A-Za-z0-9]{6})\b"
}

pattern! {
    /// Times in the text of a tool result (`duration_ms: 45` in a subagent's usage).
    TEXT_DURATION = r"\b([a-z_]*duration[a-z_]*): \d+(\.\d+)?"
}

pattern! {
    /// A session's plan file, named by random words (`plans/fizzy-munching-pinwheel.md`).
    PLAN_FILE = r"(/\.claude/plans/)[a-z]+(?:-[a-z]+)+(\.md)"
}

pattern! {
    /// The times `/cost` prints (`Total duration (wall): 1m 2.5s`): the wall clock's follows
    /// the machine's speed.
    COST_DURATION = r"(Total duration \((?:API|wall)\):\s*)(?:\d+[dhm] )*\d+(?:\.\d+)?m?s\b"
}

pattern! {
    /// Numbers that measure time: `duration_ms`, `duration_api_ms`, `ttftMs`, `elapsed_time_ms`, ….
    DURATION = r#""([A-Za-z_]*(?:[dD]uration|_ms|Ms|[eE]lapsed|ttft)[A-Za-z_]*)":(-?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?)"#
}

pattern! {
    /// The leading `"t":seconds` of a recording line.
    SECONDS = r#"^\{"dir":"(in|out)","t":[0-9.]+,"#
}

/// The frames of a recording, one list per direction (`in`, `out`), each in its order: two
/// recordings of one scenario must agree on these; how the two directions interleave depends
/// on timing (a request the host sends while the CLI writes) and may differ.
pub fn directions(recording: &str) -> [Vec<&str>; 2] {
    let mut split = [Vec::new(), Vec::new()];
    for line in recording.lines() {
        // `{"dir":"in","t":0.001,` → the part after the time.
        let (side, rest) = if let Some(rest) = line.strip_prefix(r#"{"dir":"in","t":"#) {
            (0, rest)
        } else if let Some(rest) = line.strip_prefix(r#"{"dir":"out","t":"#) {
            (1, rest)
        } else {
            continue;
        };
        split[side].push(rest.split_once(',').map_or(rest, |(_, frame)| frame));
    }
    split
}

/// Rewrites one recording (the text of a `.jsonl` file `twinwire tap` wrote).
pub fn normalize(recording: &str) -> Result<String> {
    let lines: Vec<&str> = recording
        .lines()
        .filter(|line| !line.trim().is_empty())
        .collect();
    let Some((meta, frames)) = lines.split_first() else {
        bail!("an empty recording");
    };
    let mut state = State::default();
    let mut out = state.meta(meta).context("the meta line")?;
    out.push('\n');
    // Number the ids first, the CLI's frames before the host's: each direction's order is the
    // same on every run, how the two interleave is not, and the numbers must not depend on it.
    for dir in [r#"{"dir":"out","#, r#"{"dir":"in","#] {
        for line in frames.iter().filter(|line| line.starts_with(dir)) {
            state.text(line);
        }
    }
    for (index, line) in frames.iter().enumerate() {
        out.push_str(&state.frame(line, index + 1));
        out.push('\n');
    }
    Ok(out)
}

#[derive(Default)]
struct State {
    /// Literal prefixes and what they become, longest first.
    paths: Vec<(String, &'static str)>,
    uuids: HashMap<String, String>,
    ids: HashMap<String, String>,
    /// Random task ids seen so far and what they become, in the order first seen.
    task_ids: Vec<(String, String)>,
    /// The random parts of temporary directories' names and their numbers.
    temp_dirs: HashMap<String, String>,
}

impl State {
    /// The meta line: the CLI's name without its install directory, the arguments, and only
    /// the environment a scenario sets.
    fn meta(&mut self, line: &str) -> Result<String> {
        let meta: Value = serde_json::from_str(line)?;
        if meta["dir"] != "meta" {
            bail!("the first line is not the meta line");
        }
        let env = meta["env"].as_object().cloned().unwrap_or_default();
        if let Some(home) = env.get("HOME").and_then(Value::as_str) {
            if let Some(root) = std::path::Path::new(home).parent() {
                let root = root.display().to_string();
                // The CLI names a project's directory after its path: `/tmp/.tmpAb12/work`
                // → `-tmp--tmpAb12-work`.
                self.paths
                    .push((root.replace(['/', '.'], "-"), "-scenario"));
                self.paths.push((root, SCENARIO_ROOT));
            }
        }
        let cli = meta["cli"].as_str().unwrap_or_default();
        if let Some(dir) = std::path::Path::new(cli).parent() {
            self.paths.push((dir.display().to_string(), CLI_ROOT));
        }
        let root = crate::workspace_root();
        self.paths.push((
            crate::sdks::target_dir(&root).display().to_string(),
            TARGET_ROOT,
        ));
        self.paths
            .push((root.display().to_string(), WORKSPACE_ROOT));
        self.paths
            .sort_by_key(|(prefix, _)| std::cmp::Reverse(prefix.len()));
        let env: Map<String, Value> = env
            .into_iter()
            .filter(|(name, _)| {
                KEPT_ENV.contains(&name.as_str())
                    || KEPT_ENV_PREFIXES.iter().any(|p| name.starts_with(p))
            })
            .map(|(name, value)| {
                let value = value
                    .as_str()
                    .map(|text| self.text(text))
                    .unwrap_or_default();
                (name, Value::String(value))
            })
            .collect();
        let argv: Vec<String> = meta["argv"]
            .as_array()
            .map(|argv| {
                argv.iter()
                    .map(|arg| self.text(arg.as_str().unwrap_or_default()))
                    .collect()
            })
            .unwrap_or_default();
        Ok(recording::meta_line(&self.text(cli), argv, env))
    }

    /// A frame line: its time becomes its line number in milliseconds, the rest is rewritten
    /// as text.
    fn frame(&mut self, line: &str, index: usize) -> String {
        let line = SECONDS.replace(line, |caps: &Captures| {
            format!(
                "{{\"dir\":\"{}\",\"t\":{:.3},",
                &caps[1],
                index as f64 / 1000.0
            )
        });
        self.text(&line)
    }

    fn text(&mut self, text: &str) -> String {
        let mut text = text.to_owned();
        for (prefix, placeholder) in &self.paths {
            if !prefix.is_empty() && prefix != "/" {
                text = text.replace(prefix.as_str(), placeholder);
            }
        }
        let text = TEMP_DIR.replace_all(&text, |caps: &Captures| {
            let next = self.temp_dirs.len() + 1;
            let number = self
                .temp_dirs
                .entry(caps[2].to_owned())
                .or_insert_with(|| format!("{next:06}"));
            format!("{}{number}", &caps[1])
        });
        let text = UUID.replace_all(&text, |caps: &Captures| {
            let next = self.uuids.len() + 1;
            self.uuids
                .entry(caps[0].to_ascii_lowercase())
                .or_insert_with(|| format!("00000000-0000-4000-8000-{next:012}"))
                .clone()
        });
        let text = FAKE_ID.replace_all(&text, |caps: &Captures| {
            let next = self.ids.len() + 1;
            let id = self
                .ids
                .entry(caps[2].to_owned())
                .or_insert_with(|| format!("{next:06}"));
            format!("{}_fake_{id}", &caps[1])
        });
        let text = REQUEST_ID.replace_all(&text, |caps: &Captures| {
            if COUNTED_REQUEST_ID.is_match(&caps[2]) {
                return caps[0].to_owned();
            }
            let next = self.ids.len() + 1;
            let id = self
                .ids
                .entry(caps[2].to_owned())
                .or_insert_with(|| format!("{next:06}"));
            format!("{}sdk_req_{id}\"", &caps[1])
        });
        let named = TASK_ID.captures_iter(&text).map(|caps| caps[2].to_owned());
        let in_text = BACKGROUND_ID
            .captures_iter(&text)
            .map(|caps| caps[1].to_owned());
        for id in named.chain(in_text).collect::<Vec<_>>() {
            if !COUNTED_TASK_ID.is_match(&id) && !self.task_ids.iter().any(|(seen, _)| *seen == id)
            {
                let next = self.task_ids.len() + 1;
                self.task_ids.push((id, format!("task{next:06}")));
            }
        }
        let mut text = text.into_owned();
        for (id, placeholder) in &self.task_ids {
            if text.contains(id.as_str()) {
                text = text.replace(id.as_str(), placeholder);
            }
        }
        let text = EPOCH_TIME.replace_all(&text, "${1}0");
        let text = TIMESTAMP.replace_all(&text, FIXED_TIMESTAMP);
        let text = LOOPBACK_PORT.replace_all(&text, "$1:0");
        let text = PID.replace_all(&text, "${1}${2}0${3}");
        let text = TEXT_DURATION.replace_all(&text, "${1}: 0");
        let text = COST_DURATION.replace_all(&text, "${1}0s");
        let text = PLAN_FILE.replace_all(&text, "${1}slug${2}");
        DURATION
            .replace_all(&text, |caps: &Captures| format!("\"{}\":0", &caps[1]))
            .into_owned()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const RECORDING: &str = concat!(
        r#"{"dir":"meta","t":0,"cli":"/opt/cache/2.1.330/claude","argv":["--cwd","/tmp/.tmpAb12/work"],"env":{"HOME":"/tmp/.tmpAb12/home","PATH":"/usr/bin","ANTHROPIC_BASE_URL":"http://127.0.0.1:41403"}}"#,
        "\n",
        r#"{"dir":"out","t":1.206,"msg":{"type":"system","subtype":"init","cwd":"/tmp/.tmpAb12/work","session_id":"9F13461D-7e15-4aaa-821b-633cb9defe96","uuid":"79207e28-fcdf-47b7-b1d9-29a09762afe4","pid":4242,"socket":"/tmp/.tmpAb12/tmp/cc-socks/4242.sock","memory":"/tmp/.tmpAb12/home/.claude/projects/-tmp--tmpAb12-work/memory/"}}"#,
        "\n",
        r#"{"dir":"out","t":1.481,"msg":{"type":"assistant","message":{"id":"msg_fake_94fdfb44b326","content":[{"type":"tool_use","id":"toolu_fake_0a1b2c3d4e"}]},"session_id":"9f13461d-7e15-4aaa-821b-633cb9defe96","timestamp":"2026-11-25T15:02:11.123Z"}}"#,
        "\n",
        r#"{"dir":"out","t":1.510,"msg":{"type":"result","duration_ms":1234,"duration_api_ms":83.5,"num_turns":1,"ttftMs":12}}"#,
        "\n",
        r#"{"dir":"in","t":1.6,"msg":{"type": "control_request", "request_id": "req_1_9afde8c4", "request": {}}}"#,
        "\n",
        r#"{"dir":"in","t":1.7,"msg":{"type":"control_response","response":{"request_id":"f3d2pcnvlk"}}}"#,
        "\n",
        r#"{"dir":"in","t":1.8,"msg":{"type":"control_request","request_id":"req_7","request":{}}}"#,
        "\n",
    );

    #[test]
    fn volatile_values_become_stable_and_the_rest_stays() {
        let out = normalize(RECORDING).unwrap();
        let lines: Vec<&str> = out.lines().collect();
        assert_eq!(
            lines[0],
            r#"{"dir":"meta","t":0,"cli":"/cli/claude","argv":["--cwd","/scenario/work"],"env":{"ANTHROPIC_BASE_URL":"http://127.0.0.1:0","HOME":"/scenario/home"}}"#
        );
        assert_eq!(
            lines[1],
            r#"{"dir":"out","t":0.001,"msg":{"type":"system","subtype":"init","cwd":"/scenario/work","session_id":"00000000-0000-4000-8000-000000000001","uuid":"00000000-0000-4000-8000-000000000002","pid":0,"socket":"/scenario/tmp/cc-socks/0.sock","memory":"/scenario/home/.claude/projects/-scenario-work/memory/"}}"#
        );
        // The same session id (whatever its case) gets the same replacement; key order stays.
        assert_eq!(
            lines[2],
            r#"{"dir":"out","t":0.002,"msg":{"type":"assistant","message":{"id":"msg_fake_000001","content":[{"type":"tool_use","id":"toolu_fake_000002"}]},"session_id":"00000000-0000-4000-8000-000000000001","timestamp":"2000-01-01T00:00:00.000Z"}}"#
        );
        assert_eq!(
            lines[3],
            r#"{"dir":"out","t":0.003,"msg":{"type":"result","duration_ms":0,"duration_api_ms":0,"num_turns":1,"ttftMs":0}}"#
        );
        // Random SDK request ids are numbered; counters stay as they are.
        assert!(
            lines[4].contains(r#""request_id": "sdk_req_000003""#),
            "{}",
            lines[4]
        );
        assert!(
            lines[5].contains(r#""request_id":"sdk_req_000004""#),
            "{}",
            lines[5]
        );
        assert!(lines[6].contains(r#""request_id":"req_7""#), "{}", lines[6]);
    }

    #[test]
    fn ids_are_numbered_the_same_however_the_directions_interleave() {
        let meta = r#"{"dir":"meta","t":0,"cli":"/c/claude","argv":[],"env":{}}"#;
        let ask =
            r#"{"dir":"out","t":0.1,"msg":{"request_id":"9f13461d-7e15-4aaa-821b-633cb9defe96"}}"#;
        let user = r#"{"dir":"in","t":0.2,"msg":{"uuid":"79207e28-fcdf-47b7-b1d9-29a09762afe4"}}"#;
        let a = normalize(&[meta, ask, user].join("\n")).unwrap();
        let b = normalize(&[meta, user, ask].join("\n")).unwrap();
        assert_ne!(a, b);
        assert_eq!(directions(&a), directions(&b));
    }

    #[test]
    fn task_ids_and_file_times_are_numbered_wherever_they_appear() {
        let meta = r#"{"dir":"meta","t":0,"cli":"/c/claude","argv":[],"env":{}}"#;
        let started = r#"{"dir":"out","t":0.1,"msg":{"type":"system","subtype":"task_started","task_id":"af133acfe02369e74","run_id":"0mwwcta6n-2086b1db"}}"#;
        let result = r#"{"dir":"out","t":0.2,"msg":{"type":"user","content":"agentId: af133acfe02369e74 output_file: /x/tasks/af133acfe02369e74.output"}}"#;
        let seed = r#"{"dir":"in","t":0.3,"msg":{"type":"control_request","request_id":"req_2","request":{"subtype":"seed_read_state","path":"/x","mtime":1795625080099}}}"#;
        let updated = r#"{"dir":"out","t":0.4,"msg":{"type":"system","subtype":"task_updated","patch":{"status":"completed","end_time":1795629377977,"num_turns":12}}}"#;
        let out = normalize(&[meta, started, result, seed, updated].join("\n")).unwrap();
        assert!(!out.contains("af133acfe02369e74"), "{out}");
        assert!(
            out.contains(r#""task_id":"task000001","run_id":"task000002""#),
            "{out}"
        );
        assert!(out.contains("agentId: task000001 output_file: /x/tasks/task000001.output"));
        assert!(out.contains(r#""mtime":0"#), "{out}");
        assert!(out.contains(r#""end_time":0,"num_turns":12"#), "{out}");
        assert_eq!(normalize(&out).unwrap(), out);
    }

    #[test]
    fn the_older_clis_background_ids_are_numbered_too() {
        let meta = r#"{"dir":"meta","t":0,"cli":"/c/claude","argv":[],"env":{}}"#;
        let newer = r#"{"dir":"out","t":0.1,"msg":{"content":"Command running in background with ID: bd2ced0. Output is being written to: /tmp/tasks/bd2ced0.output","tool_use_result":{"backgroundTaskId":"bd2ced0"}}}"#;
        let older = r#"{"dir":"out","t":0.2,"msg":{"content":"Command running in background with ID: f62e93"}}"#;
        let out = normalize(&[meta, newer, older].join("\n")).unwrap();
        assert!(!out.contains("bd2ced0") && !out.contains("f62e93"), "{out}");
        assert!(out.contains(r#""backgroundTaskId":"task000001""#), "{out}");
        assert!(out.contains("with ID: task000002"), "{out}");
        assert_eq!(normalize(&out).unwrap(), out);
    }

    #[test]
    fn other_temporary_directories_and_times_in_text_are_numbered() {
        let recording = concat!(
            r#"{"dir":"meta","t":0,"cli":"/opt/cli/claude","argv":[],"env":{}}"#,
            "\n",
            r#"{"dir":"out","t":0.1,"msg":{"command":"echo x > /tmp/.tmpKgWLvF/escaped.txt","project":"-tmp--tmpKgWLvF-work","other":"/tmp/.tmpZZZZZZ/a"}}"#,
            "\n",
            r#"{"dir":"out","t":0.2,"msg":{"text":"<usage>total_tokens: 120\ntool_uses: 0\nduration_ms: 45</usage>"}}"#,
            "\n",
        );
        let out = normalize(recording).unwrap();
        assert!(
            out.contains(r#""command":"echo x > /tmp/.tmp000001/escaped.txt","project":"-tmp--tmp000001-work","other":"/tmp/.tmp000002/a""#),
            "{out}"
        );
        assert!(
            out.contains(r"tool_uses: 0\nduration_ms: 0</usage>"),
            "{out}"
        );
        assert_eq!(normalize(&out).unwrap(), out);
    }

    #[test]
    fn the_clones_own_paths_become_placeholders() {
        let root = crate::workspace_root();
        let target = crate::sdks::target_dir(&root);
        let meta = r#"{"dir":"meta","t":0,"cli":"/opt/cli/claude","argv":[],"env":{}}"#;
        let frame = format!(
            r#"{{"dir":"in","t":0.1,"msg":{{"command":"{}/debug/memo-mcp","cwd":"{}/crates"}}}}"#,
            target.display(),
            root.display()
        );
        let recording = format!("{meta}\n{frame}\n");
        let out = normalize(&recording).unwrap();
        assert!(
            out.contains(r#""command":"/target/debug/memo-mcp","cwd":"/workspace/crates""#),
            "{out}"
        );
    }

    #[test]
    fn the_times_cost_prints_become_zero() {
        let recording = concat!(
            r#"{"dir":"meta","t":0,"cli":"/opt/cli/claude","argv":[],"env":{}}"#,
            "\n",
            r#"{"dir":"out","t":0.2,"msg":{"text":"Total duration (API):  3.2s\nTotal duration (wall): 1m 2s\nTotal code changes"}}"#,
            "\n",
        );
        let out = normalize(recording).unwrap();
        assert!(
            out.contains(r"Total duration (API):  0s\nTotal duration (wall): 0s\nTotal code"),
            "{out}"
        );
    }

    #[test]
    fn a_plan_files_random_name_is_fixed() {
        let recording = concat!(
            r#"{"dir":"meta","t":0,"cli":"/opt/cli/claude","argv":[],"env":{}}"#,
            "\n",
            r#"{"dir":"out","t":0.2,"msg":{"text":"saved to /h/.claude/plans/fizzy-munching-pinwheel.md"}}"#,
            "\n",
        );
        let out = normalize(recording).unwrap();
        assert!(out.contains("/h/.claude/plans/slug.md"), "{out}");
    }

    #[test]
    fn normalizing_twice_changes_nothing() {
        let once = normalize(RECORDING).unwrap();
        assert_eq!(normalize(&once).unwrap(), once);
    }

    #[test]
    fn a_recording_without_its_meta_line_is_an_error() {
        assert!(normalize("").is_err());
        assert!(normalize(r#"{"dir":"in","t":0.1,"msg":{}}"#).is_err());
    }

    #[test]
    fn directions_ignore_the_interleaving_but_not_the_order() {
        let a = "{\"dir\":\"in\",\"t\":0.001,\"msg\":1}\n{\"dir\":\"out\",\"t\":0.002,\"msg\":2}\n";
        let b = "{\"dir\":\"out\",\"t\":0.001,\"msg\":2}\n{\"dir\":\"in\",\"t\":0.002,\"msg\":1}\n";
        let c = "{\"dir\":\"in\",\"t\":0.001,\"msg\":3}\n{\"dir\":\"out\",\"t\":0.002,\"msg\":2}\n";
        assert_eq!(directions(a), directions(b));
        assert_ne!(directions(a), directions(c));
    }
}
