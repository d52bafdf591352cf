//! `twinwire rules check`: the permission rules a directory's settings give (and those of the
//! command line), linted: rules wider than they look, deny rules that cannot hold, allow
//! rules a deny rule weakens or shadows, rules that name no tool of Claude Code.

use std::io::Write;
use std::path::PathBuf;

use anyhow::Result;
use clap::{Args, Subcommand};
use serde_json::Value;
use twinwire::settings::{resolve_settings, ResolveOptions};
use twinwire_policy::lint::lint;
use twinwire_policy::{PermissionPolicy, Rule};

/// `twinwire rules …`.
#[derive(Debug, Args)]
pub struct RulesArgs {
    #[command(subcommand)]
    command: RulesCommand,
}

#[derive(Debug, Subcommand)]
enum RulesCommand {
    /// Lint the permission rules of a directory's settings (user, project, local; as Claude
    /// Code merges them) and of --allow/--deny: say where a rule allows more than it looks
    /// (`Bash(find:*)` allows `find -exec`), where a deny rule cannot hold (`Bash(rm -rf:*)`
    /// misses `rm -fr`), where a deny rule weakens or shadows an allow rule, and which rules
    /// name no tool of Claude Code. Exits 1 with --strict when anything is found.
    Check(CheckArgs),
}

#[derive(Debug, Args)]
struct CheckArgs {
    /// The directory whose settings to read (default: the current one).
    #[arg(long)]
    dir: Option<PathBuf>,
    /// The configuration directory of the user's settings (default: `$CLAUDE_CONFIG_DIR` or
    /// `~/.claude`).
    #[arg(long)]
    config_dir: Option<PathBuf>,
    /// Read no settings files: only the rules of the command line.
    #[arg(long)]
    no_settings: bool,
    /// An allow rule (repeatable).
    #[arg(long = "allow", value_name = "RULE")]
    allow: Vec<String>,
    /// A deny rule (repeatable).
    #[arg(long = "deny", value_name = "RULE")]
    deny: Vec<String>,
    /// Exit 1 when anything is found.
    #[arg(long)]
    strict: bool,
}

/// Runs `twinwire rules …`; `false` when --strict found something.
pub fn run(args: &RulesArgs, out: &mut impl Write) -> Result<bool> {
    match &args.command {
        RulesCommand::Check(check) => run_check(check, out),
    }
}

fn run_check(args: &CheckArgs, out: &mut impl Write) -> Result<bool> {
    let mut allow = args.allow.clone();
    let mut deny = args.deny.clone();
    if !args.no_settings {
        let dir = match &args.dir {
            Some(dir) => dir.clone(),
            None => std::env::current_dir()?,
        };
        let mut options = ResolveOptions::in_dir(&dir);
        if let Some(config) = &args.config_dir {
            options = options.config_dir(config);
        }
        let resolved = resolve_settings(&options);
        let permissions = resolved.effective.get("permissions");
        let rules = |key: &str| -> Vec<String> {
            permissions
                .and_then(|p| p.get(key))
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
                .filter_map(Value::as_str)
                .map(str::to_owned)
                .collect()
        };
        allow.extend(rules("allow"));
        deny.extend(rules("deny"));
    }
    let mut found = 0usize;
    let read = |texts: &[String], found: &mut usize, out: &mut dyn Write| -> Result<Vec<Rule>> {
        let mut rules = Vec::new();
        for text in texts {
            match (text.parse::<Rule>(), Rule::parse_any_tool(text)) {
                (Ok(rule), _) => rules.push(rule),
                (Err(_), Ok(rule)) => {
                    *found += 1;
                    writeln!(
                        out,
                        "{text} (names no tool of Claude Code): it matches nothing the CLI calls"
                    )?;
                    rules.push(rule);
                }
                (Err(err), Err(_)) => {
                    *found += 1;
                    writeln!(out, "{text} (unreadable): {err}")?;
                }
            }
        }
        Ok(rules)
    };
    let allow_rules = read(&allow, &mut found, out)?;
    let deny_rules = read(&deny, &mut found, out)?;
    let policy = PermissionPolicy::new(allow_rules, deny_rules);
    for finding in lint(&policy) {
        found += 1;
        writeln!(out, "{finding}")?;
    }
    writeln!(
        out,
        "{} allow and {} deny rules: {}",
        allow.len(),
        deny.len(),
        match found {
            0 => "nothing to say".to_owned(),
            1 => "1 finding".to_owned(),
            n => format!("{n} findings"),
        }
    )?;
    Ok(!(args.strict && found > 0))
}
