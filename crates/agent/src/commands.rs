//! Slash commands, as Claude Code handles them in a prompt of a stream-json session: its own
//! (`/compact [instructions]`, `/clear`), the user's and the project's custom commands
//! (`~/.claude/commands/*.md`, `.claude/commands/*.md`, a subdirectory giving `dir:name`; a
//! front matter with `description` and `argument-hint`, then the prompt, where `$ARGUMENTS`
//! is what followed the command and `$1`, `$2`, … its words) and skills
//! (`.claude/skills/<name>/SKILL.md`, listed as commands too). A custom command's prompt is
//! sent in the command's place, after a line naming the command, as Claude Code sends it. A
//! prompt that names no command goes to the model as it is.

use std::path::{Path, PathBuf};

use twinwire_protocol::control::SlashCommand;

/// The most command or skill files read from one directory.
const MAX_FILES: usize = 1000;
/// The largest one read.
const MAX_FILE_BYTES: u64 = 256 * 1024;

/// What a prompt asks for.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Command {
    /// `/compact`, with the user's instructions for the summary.
    Compact(Option<String>),
    /// `/clear`.
    Clear,
    /// A custom command: the prompt it stands for, and what Claude Code's hooks are told.
    Expanded {
        /// The command's name.
        name: String,
        /// What followed it.
        args: String,
        /// The text sent to the model.
        text: String,
    },
}

/// One custom command or skill found on disk.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Found {
    name: String,
    description: String,
    argument_hint: String,
    body: String,
}

/// Where commands and skills are looked for: the user's configuration directory and the
/// project's `.claude`.
pub(crate) fn roots(config_dir: &Path, cwd: &Path) -> Vec<PathBuf> {
    vec![config_dir.to_path_buf(), cwd.join(".claude")]
}

/// What `text` asks for, if it names a command this agent handles; `None`: send it as it is.
pub(crate) fn parse(text: &str, roots: &[PathBuf]) -> Option<Command> {
    let line = text.trim_start().strip_prefix('/')?;
    let (name, args) = match line.split_once(char::is_whitespace) {
        Some((name, args)) => (name, args.trim()),
        None => (line.trim_end(), ""),
    };
    let args = args.to_owned();
    match name {
        "compact" => Some(Command::Compact(Some(args).filter(|a| !a.is_empty()))),
        "clear" => Some(Command::Clear),
        _ => {
            let found = custom(roots).into_iter().find(|c| c.name == name)?;
            let body = substitute(&found.body, &args);
            Some(Command::Expanded {
                text: format!(
                    "<command-message>{name}</command-message>\n<command-name>/{name}</command-name>\n<command-args>{args}</command-args>\n\n{body}"
                ),
                name: name.to_owned(),
                args,
            })
        }
    }
}

/// `$ARGUMENTS` and `$1`… put in a command's prompt.
fn substitute(body: &str, args: &str) -> String {
    let mut text = body.replace("$ARGUMENTS", args);
    let words: Vec<&str> = args.split_whitespace().collect();
    for (i, word) in words.iter().enumerate().rev() {
        text = text.replace(&format!("${}", i + 1), word);
    }
    text
}

/// This agent's own commands, as the `initialize` answer lists them.
pub(crate) fn built_in() -> Vec<SlashCommand> {
    [
        (
            "compact",
            "Summarize the conversation so far and go on from the summary",
            "<instructions>",
        ),
        ("clear", "Start the conversation over", ""),
    ]
    .into_iter()
    .map(|(name, description, hint)| SlashCommand {
        name: name.to_owned(),
        description: description.to_owned(),
        argument_hint: hint.to_owned(),
        builtin: Some(true),
        ..SlashCommand::default()
    })
    .collect()
}

/// Every command: this agent's, the custom ones, and the skills.
pub(crate) fn all(roots: &[PathBuf]) -> Vec<SlashCommand> {
    let mut commands = built_in();
    commands.extend(custom(roots).iter().map(listed));
    commands.extend(skills(roots));
    commands
}

/// The skills, as `reload_skills` lists them.
pub(crate) fn skills(roots: &[PathBuf]) -> Vec<SlashCommand> {
    let mut found: Vec<Found> = Vec::new();
    for root in roots {
        for dir in entries(&root.join("skills")) {
            let Some(text) = read_small(&dir.join("SKILL.md")) else {
                continue;
            };
            let mut skill = parse_file(&text);
            if skill.name.is_empty() {
                skill.name = file_name(&dir);
            }
            put(&mut found, skill);
        }
    }
    found.iter().map(listed).collect()
}

/// The custom commands (a later root's command of a name replaces an earlier one's).
fn custom(roots: &[PathBuf]) -> Vec<Found> {
    let mut found: Vec<Found> = Vec::new();
    for root in roots {
        let dir = root.join("commands");
        for path in entries(&dir) {
            let mut files = vec![(String::new(), path.clone())];
            if path.is_dir() {
                let prefix = format!("{}:", file_name(&path));
                files = entries(&path)
                    .into_iter()
                    .map(|p| (prefix.clone(), p))
                    .collect();
            }
            for (prefix, file) in files {
                if file.extension().is_none_or(|e| e != "md") {
                    continue;
                }
                let Some(text) = read_small(&file) else {
                    continue;
                };
                let mut command = parse_file(&text);
                let stem = file.file_stem().map(|s| s.to_string_lossy().into_owned());
                command.name = format!("{prefix}{}", stem.unwrap_or_default());
                put(&mut found, command);
            }
        }
    }
    found
}

fn put(found: &mut Vec<Found>, item: Found) {
    match found.iter_mut().find(|f| f.name == item.name) {
        Some(slot) => *slot = item,
        None => found.push(item),
    }
}

fn listed(found: &Found) -> SlashCommand {
    SlashCommand {
        name: found.name.clone(),
        description: found.description.clone(),
        argument_hint: found.argument_hint.clone(),
        ..SlashCommand::default()
    }
}

/// The entries of a directory, sorted, bounded.
fn entries(dir: &Path) -> Vec<PathBuf> {
    let Ok(read) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut paths: Vec<PathBuf> = read
        .filter_map(Result::ok)
        .map(|e| e.path())
        .take(MAX_FILES)
        .collect();
    paths.sort();
    paths
}

fn read_small(path: &Path) -> Option<String> {
    let small = std::fs::metadata(path).is_ok_and(|m| m.is_file() && m.len() <= MAX_FILE_BYTES);
    small.then(|| std::fs::read_to_string(path).ok()).flatten()
}

fn file_name(path: &Path) -> String {
    path.file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default()
}

/// A command or skill file: an optional front matter (`name`, `description`,
/// `argument-hint`), then the body.
fn parse_file(text: &str) -> Found {
    let mut found = Found {
        name: String::new(),
        description: String::new(),
        argument_hint: String::new(),
        body: text.trim().to_owned(),
    };
    let Some((front, body)) = text
        .trim_start()
        .strip_prefix("---")
        .and_then(|rest| rest.split_once("\n---"))
    else {
        return found;
    };
    found.body = body.trim_start_matches('-').trim().to_owned();
    for line in front.lines() {
        let Some((key, value)) = line.split_once(':') else {
            continue;
        };
        let value = value.trim().trim_matches('"').to_owned();
        match key.trim() {
            "name" => found.name = value,
            "description" => found.description = value,
            "argument-hint" => found.argument_hint = value,
            _ => {}
        }
    }
    found
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prompts_name_commands_or_go_to_the_model() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join(".claude");
        std::fs::create_dir_all(root.join("commands/git")).unwrap();
        std::fs::write(
            root.join("commands/greet.md"),
            "---\ndescription: Greets\nargument-hint: <name>\n---\nSay hello to $ARGUMENTS ($1).\n",
        )
        .unwrap();
        std::fs::write(root.join("commands/git/log.md"), "Show the log.").unwrap();
        std::fs::create_dir_all(root.join("skills/greet-7c")).unwrap();
        std::fs::write(
            root.join("skills/greet-7c/SKILL.md"),
            "---\nname: greet-7c\ndescription: Greets warmly\n---\nSay hello.\n",
        )
        .unwrap();
        let roots = vec![root];
        assert_eq!(
            parse("/compact keep the numbers", &roots),
            Some(Command::Compact(Some("keep the numbers".into())))
        );
        assert_eq!(parse("/compact", &roots), Some(Command::Compact(None)));
        assert_eq!(parse("/clear", &roots), Some(Command::Clear));
        let Some(Command::Expanded { text, args, .. }) = parse("/greet Ada Lovelace", &roots)
        else {
            panic!("greet is a command")
        };
        assert_eq!(args, "Ada Lovelace");
        assert!(text.ends_with("Say hello to Ada Lovelace (Ada)."), "{text}");
        assert!(
            text.contains("<command-name>/greet</command-name>"),
            "{text}"
        );
        assert!(matches!(
            parse("/git:log", &roots),
            Some(Command::Expanded { .. })
        ));
        assert_eq!(parse("/nosuchcommand hi", &roots), None);
        assert_eq!(parse("hello /greet", &roots), None);
        let names: Vec<String> = all(&roots).into_iter().map(|c| c.name).collect();
        assert_eq!(names, ["compact", "clear", "git:log", "greet", "greet-7c"]);
        assert_eq!(skills(&roots)[0].description, "Greets warmly");
    }
}
