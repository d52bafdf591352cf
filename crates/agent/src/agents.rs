//! The subagents a session can start with its `Task` (`Agent`) tool, as Claude Code gathers
//! them: its own (`general-purpose`, `Explore`, `Plan`), then the user's and the project's
//! agent files (`~/.claude/agents/*.md`, `.claude/agents/*.md`: a front matter with `name`,
//! `description`, `tools`, `model`, then the prompt), then `--agents` and the host's
//! `initialize` (`agents`), a later definition of a name replacing an earlier one. Listed
//! sorted by name without regard to case, as Claude Code lists them (`system/init`, the
//! `initialize` answer).

use std::path::Path;

use serde_json::Value;
use twinwire_protocol::control::{AgentDefinition, AgentInfo};

/// The agent a call that names none starts.
pub const DEFAULT_AGENT: &str = "general-purpose";

/// Tools a subagent never gets: it cannot start subagents of its own.
pub const NOT_FOR_SUBAGENTS: &[&str] = &["Task", "Agent", "EnterPlanMode", "ExitPlanMode"];

/// Tools that only read, for the agents that do not change anything.
const READING_TOOLS: &[&str] = &["Read", "Glob", "Grep", "Bash"];

/// The most agent files read from one directory.
const MAX_FILES: usize = 500;
/// The largest agent file read.
const MAX_FILE_BYTES: u64 = 256 * 1024;

/// One agent a session can start.
#[derive(Debug, Clone, PartialEq)]
pub struct AgentSpec {
    /// Its name (`subagent_type`).
    pub name: String,
    /// When to use it, for the model.
    pub description: String,
    /// Its system prompt.
    pub prompt: String,
    /// The tools it gets (`None`: all of the session's, but [`NOT_FOR_SUBAGENTS`]).
    pub tools: Option<Vec<String>>,
    /// Tools it never gets.
    pub disallowed_tools: Vec<String>,
    /// Its model: an id, an alias, or `inherit` / none for the session's.
    pub model: Option<String>,
}

/// The agents of a session, by name.
#[derive(Debug, Clone, PartialEq)]
pub struct Catalog {
    specs: Vec<AgentSpec>,
}

impl Default for Catalog {
    fn default() -> Self {
        Self::built_in()
    }
}

impl Catalog {
    /// This agent's own.
    pub fn built_in() -> Self {
        let own = |name: &str, description: &str, prompt: &str, tools: Option<&[&str]>| AgentSpec {
            name: name.to_owned(),
            description: description.to_owned(),
            prompt: prompt.to_owned(),
            tools: tools.map(|t| t.iter().map(|s| (*s).to_owned()).collect()),
            disallowed_tools: Vec::new(),
            model: None,
        };
        Self {
            specs: vec![
                own(
                    DEFAULT_AGENT,
                    "Researches a question, searches code and carries out a task of several \
                     steps on its own, then reports what it found.",
                    "You carry out one task for another agent, on your own, with the tools you \
                     have, then report what you found or did, briefly and with the facts the \
                     other agent needs (paths, names, results). Do not ask questions: nobody \
                     answers them.",
                    None,
                ),
                own(
                    "Explore",
                    "Finds files and code quickly: by name patterns, by text, or by reading \
                     them; changes nothing.",
                    "You search a code base for another agent and report where things are and \
                     what they say, with paths. You only read; you change nothing.",
                    Some(READING_TOOLS),
                ),
                own(
                    "Plan",
                    "Designs how to carry out a change: reads the code and returns a plan \
                     with the files to touch and the steps.",
                    "You plan a change for another agent: read what is needed, then return a \
                     plan of concrete steps with the files each touches. You change nothing.",
                    Some(READING_TOOLS),
                ),
            ],
        }
    }

    /// Adds (or replaces) the agents of the agent files under `dir` (its `agents/`).
    pub fn add_files(&mut self, dir: &Path) {
        let Ok(entries) = std::fs::read_dir(dir.join("agents")) else {
            return;
        };
        let mut files: Vec<_> = entries
            .filter_map(Result::ok)
            .map(|e| e.path())
            .filter(|p| p.extension().is_some_and(|e| e == "md"))
            .take(MAX_FILES)
            .collect();
        files.sort();
        for file in files {
            let small = std::fs::metadata(&file).is_ok_and(|m| m.len() <= MAX_FILE_BYTES);
            let Some(text) = small.then(|| std::fs::read_to_string(&file).ok()).flatten() else {
                continue;
            };
            match parse_file(&text) {
                Some(spec) => self.put(spec),
                None => tracing::warn!(file = %file.display(), "an agent file without a name"),
            }
        }
    }

    /// Adds (or replaces) agents given as JSON (`--agents`, `initialize`): name → definition.
    pub fn add_json(&mut self, agents: &Value) {
        for (name, definition) in agents.as_object().into_iter().flatten() {
            match serde_json::from_value::<AgentDefinition>(definition.clone()) {
                Ok(definition) => self.add(name, &definition),
                Err(err) => {
                    tracing::warn!(agent = %name, %err, "an agent definition that does not read")
                }
            }
        }
    }

    /// Adds (or replaces) one agent.
    pub fn add(&mut self, name: &str, definition: &AgentDefinition) {
        self.put(AgentSpec {
            name: name.to_owned(),
            description: definition.description.clone(),
            prompt: definition.prompt.clone(),
            tools: definition.tools.clone(),
            disallowed_tools: definition.disallowed_tools.clone().unwrap_or_default(),
            model: definition.model.clone(),
        });
    }

    fn put(&mut self, spec: AgentSpec) {
        match self.specs.iter_mut().find(|s| s.name == spec.name) {
            Some(slot) => *slot = spec,
            None => self.specs.push(spec),
        }
    }

    /// An agent by name.
    pub fn get(&self, name: &str) -> Option<&AgentSpec> {
        self.specs.iter().find(|s| s.name == name)
    }

    /// The agents, sorted by name without regard to case.
    pub fn sorted(&self) -> Vec<&AgentSpec> {
        let mut specs: Vec<&AgentSpec> = self.specs.iter().collect();
        specs.sort_by_key(|s| s.name.to_lowercase());
        specs
    }

    /// Their names, as `system/init` lists them.
    pub fn names(&self) -> Vec<String> {
        self.sorted().into_iter().map(|s| s.name.clone()).collect()
    }

    /// As the `initialize` answer lists them.
    pub fn infos(&self) -> Vec<AgentInfo> {
        self.sorted()
            .into_iter()
            .map(|s| AgentInfo {
                name: s.name.clone(),
                description: s.description.clone(),
                model: s.model.clone(),
                ..AgentInfo::default()
            })
            .collect()
    }

    /// What the `Task` tool tells the model of them.
    pub fn listing(&self) -> String {
        self.sorted()
            .into_iter()
            .map(|s| format!("- {}: {}", s.name, s.description))
            .collect::<Vec<_>>()
            .join("\n")
    }
}

/// An agent file: `---`, `key: value` lines, `---`, then the prompt.
fn parse_file(text: &str) -> Option<AgentSpec> {
    let rest = text.trim_start().strip_prefix("---")?;
    let (front, prompt) = rest.split_once("\n---")?;
    let mut spec = AgentSpec {
        name: String::new(),
        description: String::new(),
        prompt: prompt.trim_start_matches('-').trim().to_owned(),
        tools: None,
        disallowed_tools: Vec::new(),
        model: None,
    };
    let list = |value: &str| -> Vec<String> {
        value
            .trim_matches(|c| c == '[' || c == ']')
            .split(',')
            .map(|t| t.trim().trim_matches('"').to_owned())
            .filter(|t| !t.is_empty())
            .collect()
    };
    for line in front.lines() {
        let Some((key, value)) = line.split_once(':') else {
            continue;
        };
        let value = value.trim().trim_matches('"');
        match key.trim() {
            "name" => spec.name = value.to_owned(),
            "description" => spec.description = value.to_owned(),
            "tools" => spec.tools = Some(list(value)),
            "disallowedTools" => spec.disallowed_tools = list(value),
            "model" => spec.model = Some(value.to_owned()).filter(|m| !m.is_empty()),
            _ => {}
        }
    }
    (!spec.name.is_empty()).then_some(spec)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn agents_are_listed_as_claude_code_lists_them_and_later_ones_replace() {
        let mut catalog = Catalog::built_in();
        catalog.add_json(&serde_json::json!({
            "pelican-reviewer": {"description": "Reviews", "prompt": "You review.",
                                 "tools": ["Read"]},
            "Plan": {"description": "Mine", "prompt": "p"}
        }));
        assert_eq!(
            catalog.names(),
            ["Explore", "general-purpose", "pelican-reviewer", "Plan"]
        );
        assert_eq!(catalog.get("Plan").unwrap().description, "Mine");
        assert_eq!(
            catalog.get("pelican-reviewer").unwrap().tools,
            Some(vec!["Read".to_owned()])
        );
    }

    #[test]
    fn an_agent_file_is_front_matter_then_the_prompt() {
        let spec = parse_file(
            "---\nname: counter\ndescription: Counts things\ntools: Read, Grep\nmodel: haiku\n---\n\nYou count.\n",
        )
        .unwrap();
        assert_eq!(spec.name, "counter");
        assert_eq!(spec.tools, Some(vec!["Read".into(), "Grep".into()]));
        assert_eq!(spec.model.as_deref(), Some("haiku"));
        assert_eq!(spec.prompt, "You count.");
        assert!(parse_file("no front matter").is_none());
    }
}
