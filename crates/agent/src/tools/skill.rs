//! `Skill`: a skill of the project (`.claude/skills/<name>/SKILL.md`) or of the user
//! (`~/.claude/skills/<name>/SKILL.md`), loaded as Claude Code loads it: the call answers
//! `Launching skill: <name>`, and the skill's instructions (its folder named first, its
//! front matter left out, `$ARGUMENTS` replaced by the call's `args`) follow as a message of
//! their own. A skill loaded again is said to be a re-invocation.

use std::path::{Path, PathBuf};

use futures::future::BoxFuture;
use serde_json::{json, Value};

use super::{schema, Tool, ToolContext, ToolOutput};

/// The `Skill` tool.
pub struct Skill;

/// A skill found on disk.
#[derive(Debug, Clone, PartialEq)]
pub struct SkillFile {
    /// Its name (its folder's, unless its front matter names it).
    pub name: String,
    /// What its front matter says it is for.
    pub description: String,
    /// Its folder.
    pub dir: PathBuf,
    /// Its instructions, front matter left out.
    pub body: String,
}

/// The skills of a project and user: the project's first; a name found twice is the
/// project's.
pub fn discover(cwd: &Path, config_dir: &Path) -> Vec<SkillFile> {
    let mut skills: Vec<SkillFile> = Vec::new();
    for root in [
        cwd.join(".claude").join("skills"),
        config_dir.join("skills"),
    ] {
        let Ok(entries) = std::fs::read_dir(&root) else {
            continue;
        };
        let mut dirs: Vec<PathBuf> = entries.flatten().map(|e| e.path()).collect();
        dirs.sort();
        for dir in dirs {
            let Ok(text) = std::fs::read_to_string(dir.join("SKILL.md")) else {
                continue;
            };
            let (front, body) = split_front_matter(&text);
            let folder = dir
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default();
            let name = field(front, "name").unwrap_or(folder);
            if skills.iter().any(|s| s.name == name) {
                continue;
            }
            skills.push(SkillFile {
                description: field(front, "description").unwrap_or_default(),
                name,
                dir,
                body: body.to_owned(),
            });
        }
    }
    skills
}

/// The skill a call names, without a leading `/`.
fn skill_name(input: &Value) -> String {
    input["skill"]
        .as_str()
        .unwrap_or_default()
        .trim()
        .trim_start_matches('/')
        .to_owned()
}

/// `---\n…\n---\n` front matter and the rest.
fn split_front_matter(text: &str) -> (&str, &str) {
    let Some(rest) = text.strip_prefix("---\n") else {
        return ("", text);
    };
    match rest.find("\n---\n") {
        Some(end) => (&rest[..end], &rest[end + 5..]),
        None => ("", text),
    }
}

/// A `key: value` line of front matter.
fn field(front: &str, key: &str) -> Option<String> {
    front.lines().find_map(|line| {
        let (k, v) = line.split_once(':')?;
        (k.trim() == key).then(|| v.trim().trim_matches('"').to_owned())
    })
}

impl Tool for Skill {
    fn name(&self) -> &str {
        "Skill"
    }

    fn description(&self) -> String {
        "Loads a skill: a set of instructions, and sometimes scripts and references, for a \
         kind of task. The skills you can load are listed in the note on your environment, \
         each with a description of when it applies.

When to load one:
- When the user's request matches a skill's description, load the skill first, before \
reading files or running commands for the task, and then follow its instructions.
- When the user types /<name>, they mean the skill of that name.
- Do not load a skill that does not fit the task just because it exists, and never guess a \
name that is not listed.

How:
- Give the skill's name exactly as listed, and in args anything it should get (the user's \
words after /<name>, a file, an option).
- The skill's instructions come back in the conversation, with the folder they live in, so \
that you can read or run the files beside them.
- A skill already loaded in this conversation does not need loading again; load it again \
only to pass it new arguments."
            .to_owned()
    }

    fn input_schema(&self) -> Value {
        schema::skill().json()
    }

    fn check_input(&self, input: &Value) -> Result<Value, String> {
        schema::skill().check("Skill", input)
    }

    fn read_only(&self) -> bool {
        true
    }

    fn validate(&self, input: &Value, cx: &ToolContext) -> Option<ToolOutput> {
        let name = skill_name(input);
        let skills = discover(&cx.workspace.shell_cwd(), &cx.workspace.config_dir());
        (!skills.iter().any(|s| s.name == name))
            .then(|| ToolOutput::error(format!("Unknown skill: {name}")))
    }

    fn call(&self, input: Value, cx: ToolContext) -> BoxFuture<'static, ToolOutput> {
        Box::pin(async move {
            let name = skill_name(&input);
            let args = input["args"].as_str().unwrap_or_default();
            let skills = discover(&cx.workspace.shell_cwd(), &cx.workspace.config_dir());
            let Some(skill) = skills.into_iter().find(|s| s.name == name) else {
                return ToolOutput::error(format!("Unknown skill: {name}"));
            };
            let mut follow_up = Vec::new();
            if !cx.workspace.note_skill_loaded(&skill.name) {
                follow_up.push(format!(
                    "(Re-invocation of /{} \u{2014} the skill instructions were previously \
                     loaded; the arguments or dynamic output below are new.)\n",
                    skill.name
                ));
            }
            let body = skill
                .body
                .trim_start_matches('\n')
                .replace("$ARGUMENTS", args);
            follow_up.push(format!(
                "Base directory for this skill: {}\n\n{body}",
                skill.dir.display()
            ));
            let mut output = ToolOutput::success(
                format!("Launching skill: {}", skill.name),
                json!({"success": true, "commandName": skill.name}),
            );
            output.follow_up = follow_up;
            output
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_skill_is_found_with_its_front_matter() {
        let dir = tempfile::tempdir().unwrap();
        let skill = dir.path().join(".claude/skills/greet");
        std::fs::create_dir_all(&skill).unwrap();
        std::fs::write(
            skill.join("SKILL.md"),
            "---\nname: greet\ndescription: Says hello\n---\n\nHello, $ARGUMENTS\n",
        )
        .unwrap();
        let found = discover(dir.path(), &dir.path().join("none"));
        assert_eq!(found.len(), 1);
        assert_eq!(found[0].name, "greet");
        assert_eq!(found[0].description, "Says hello");
        assert_eq!(found[0].body, "\nHello, $ARGUMENTS\n");
    }
}
