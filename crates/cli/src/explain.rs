//! `twinwire explain`: would this call be allowed here, and why, from a directory's settings
//! files and a command line's rules and mode (`twinwire::explain`).

use std::io::Write;
use std::path::PathBuf;

use anyhow::Context;
use serde_json::Value;
use twinwire::explain::{ExplainOptions, Permissions, RuleKind, Verdict};
use twinwire::options::SettingSource;
use twinwire::protocol::permission::PermissionMode;

use crate::terminal::sanitize;

/// Options of `twinwire explain`.
#[derive(Debug, clap::Args)]
pub struct ExplainArgs {
    /// The command line to judge (a Bash call), e.g. `git push --force origin main`.
    #[arg(trailing_var_arg = true, allow_hyphen_values = true)]
    command: Vec<String>,
    /// The session's working directory, whose `.claude/settings.json` and
    /// `.claude/settings.local.json` are read (default: the current one).
    #[arg(long, value_name = "DIR")]
    dir: Option<PathBuf>,
    /// Another tool than Bash (with --input).
    #[arg(long, value_name = "TOOL")]
    tool: Option<String>,
    /// The tool's input as JSON, e.g. '{"file_path": "src/main.rs"}'.
    #[arg(long, value_name = "JSON")]
    input: Option<String>,
    /// The permission mode (`--permission-mode`; default: the settings', else `default`).
    #[arg(long, value_name = "MODE")]
    mode: Option<String>,
    /// A rule of `--allowedTools` (repeatable).
    #[arg(long = "allowed-tools", value_name = "RULE")]
    allowed_tools: Vec<String>,
    /// A rule of `--disallowedTools` (repeatable).
    #[arg(long = "disallowed-tools", value_name = "RULE")]
    disallowed_tools: Vec<String>,
    /// Which settings files to read (`user,project,local`; default: all three).
    #[arg(long, value_name = "SOURCES", value_delimiter = ',')]
    setting_sources: Option<Vec<String>>,
    /// Additional working directories (`--add-dir`, repeatable).
    #[arg(long = "add-dir", value_name = "DIR")]
    add_dirs: Vec<PathBuf>,
    /// The user's configuration directory (default: $CLAUDE_CONFIG_DIR, else ~/.claude).
    #[arg(long, value_name = "DIR")]
    config_dir: Option<PathBuf>,
    /// The answer and the rules read, as one JSON object.
    #[arg(long)]
    json: bool,
}

/// Prints the answer; `true` when the call would run without asking.
pub fn run(args: &ExplainArgs, out: &mut impl Write) -> anyhow::Result<bool> {
    let dir = match &args.dir {
        Some(dir) => dir.clone(),
        None => std::env::current_dir().context("the current directory")?,
    };
    let dir = std::fs::canonicalize(&dir).with_context(|| format!("{}", dir.display()))?;
    let mut options = ExplainOptions::in_dir(&dir);
    options.allowed_tools = args.allowed_tools.clone();
    options.disallowed_tools = args.disallowed_tools.clone();
    options.mode = args.mode.as_deref().map(PermissionMode::from);
    options.config_dir = args.config_dir.clone();
    options.additional_directories = args.add_dirs.clone();
    options.setting_sources = match &args.setting_sources {
        Some(sources) => Some(
            sources
                .iter()
                .map(|s| match s.as_str() {
                    "user" => Ok(SettingSource::User),
                    "project" => Ok(SettingSource::Project),
                    "local" => Ok(SettingSource::Local),
                    other => Err(anyhow::anyhow!(
                        "--setting-sources: `{other}` is not user, project or local"
                    )),
                })
                .collect::<anyhow::Result<_>>()?,
        ),
        None => None,
    };
    let (tool, input) = call(args)?;
    let permissions = Permissions::resolve(&options);
    let explanation = permissions.explain(&tool, &input);
    if args.json {
        let report = serde_json::json!({
            "tool": tool,
            "input": input,
            "dir": dir,
            "explanation": explanation,
            "mode": {"mode": permissions.mode.0.as_str(), "from": permissions.mode.1},
            "rules": permissions.rules,
            "unreadable": permissions.unreadable.iter().map(|(rule, why)| {
                serde_json::json!({"rule": rule, "why": why})
            }).collect::<Vec<_>>(),
        });
        serde_json::to_writer_pretty(&mut *out, &report)?;
        writeln!(out)?;
        return Ok(explanation.verdict == Verdict::Allow);
    }
    let shown = match input.get("command").and_then(Value::as_str) {
        Some(command) if tool == "Bash" => format!("Bash({command})"),
        _ => format!("{tool}({input})"),
    };
    writeln!(
        out,
        "{} in {}",
        sanitize(&shown),
        sanitize(&dir.display().to_string())
    )?;
    writeln!(out, "→ {}", sanitize(&explanation.to_string()))?;
    let count = |kind| permissions.rules.iter().filter(|r| r.kind == kind).count();
    writeln!(
        out,
        "  rules read: {} allow, {} ask, {} deny; mode {} ({})",
        count(RuleKind::Allow),
        count(RuleKind::Ask),
        count(RuleKind::Deny),
        permissions.mode.0.as_str(),
        permissions.mode.1
    )?;
    let mut files: Vec<&str> = permissions
        .rules
        .iter()
        .filter_map(|r| r.path.as_deref())
        .collect();
    files.dedup();
    for file in files {
        writeln!(out, "  from {}", sanitize(file))?;
    }
    for (rule, why) in &permissions.unreadable {
        writeln!(
            out,
            "  ignored: {} ({}): {}",
            sanitize(&rule.rule),
            rule.source,
            sanitize(why)
        )?;
    }
    writeln!(
        out,
        "  (a command is allowed only when every program it runs is proven: twinwire-policy, \
         docs/security.md)"
    )?;
    Ok(explanation.verdict == Verdict::Allow)
}

/// The call: a Bash command line, or `--tool` with `--input`.
fn call(args: &ExplainArgs) -> anyhow::Result<(String, Value)> {
    let input = match &args.input {
        Some(text) => Some(serde_json::from_str::<Value>(text).context("--input is not JSON")?),
        None => None,
    };
    match (&args.tool, input) {
        (Some(tool), Some(input)) => Ok((tool.clone(), input)),
        (Some(tool), None) if tool == "Bash" && !args.command.is_empty() => Ok((
            tool.clone(),
            serde_json::json!({"command": args.command.join(" ")}),
        )),
        (Some(tool), None) => anyhow::bail!("--tool {tool} needs --input JSON"),
        (None, Some(input)) => Ok(("Bash".to_owned(), input)),
        (None, None) if args.command.is_empty() => {
            anyhow::bail!("nothing to explain: give a command line, or --tool and --input")
        }
        (None, None) => Ok((
            "Bash".to_owned(),
            serde_json::json!({"command": args.command.join(" ")}),
        )),
    }
}
