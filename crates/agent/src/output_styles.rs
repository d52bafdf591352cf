//! Output styles: how the agent speaks, chosen with the `outputStyle` setting. The built-in
//! styles carry Claude Code's names with instructions in this agent's own words; a custom
//! style is a Markdown file in `.claude/output-styles/` (the project's) or
//! `$CLAUDE_CONFIG_DIR/output-styles/` (the user's): its `name:` in the front matter (else the
//! file's name) and its body, the instructions. A project's style wins over a user's of the
//! same name. The chosen style's instructions follow the system prompt; `default` adds none,
//! as does a name no style has (named in the log).

use std::path::Path;

/// The style used when none is chosen.
pub const DEFAULT: &str = "default";
/// The most read of one style's file.
const MAX_FILE_BYTES: u64 = 64 * 1024;
/// The most custom styles listed from one directory.
const MAX_STYLES: usize = 100;

/// The built-in styles: name and instructions.
const BUILT_IN: &[(&str, &str)] = &[
    (DEFAULT, ""),
    (
        "Proactive",
        "# Output style: Proactive\nTake the evident next steps without waiting to be asked: \
         run the checks the change calls for, fix what they show, and then say what was done \
         and why.",
    ),
    (
        "Concise",
        "# Output style: Concise\nAnswer in as few words as the answer allows. Give the result \
         first; leave out preambles, restatements of the question and summaries of the work \
         unless asked for them.",
    ),
    (
        "Explanatory",
        "# Output style: Explanatory\nWhile doing the work, explain the choices made and what \
         they show about this codebase: short notes, marked as insights, where they teach \
         something the user would not see from the diff alone.",
    ),
    (
        "Learning",
        "# Output style: Learning\nWork with the user as a teacher would: explain why as well \
         as what, and where writing a small piece would help the user learn, leave it for them \
         with a clear TODO(human) and what it should do.",
    ),
];

/// One style.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Style {
    /// Its name, as `outputStyle` gives it.
    pub name: String,
    /// What the model is told; empty for `default`.
    pub instructions: String,
}

/// Every style, built-in first, then the user's and the project's by name.
pub fn available(cwd: &Path, config_dir: Option<&Path>) -> Vec<Style> {
    let mut styles: Vec<Style> = BUILT_IN
        .iter()
        .map(|(name, instructions)| Style {
            name: (*name).to_owned(),
            instructions: (*instructions).to_owned(),
        })
        .collect();
    let user = config_dir.map(|dir| dir.join("output-styles"));
    let project = cwd.join(".claude").join("output-styles");
    for dir in user.iter().chain(std::iter::once(&project)) {
        for style in read_dir(dir) {
            match styles.iter_mut().find(|s| s.name == style.name) {
                Some(known) => *known = style,
                None => styles.push(style),
            }
        }
    }
    styles
}

/// The style named `name` among `styles`; `None` for `default` or a name none has.
pub fn chosen(styles: &[Style], name: &str) -> Option<Style> {
    if name == DEFAULT {
        return None;
    }
    let style = styles.iter().find(|s| s.name == name).cloned();
    if style.is_none() {
        tracing::warn!(
            name,
            "no output style has this name: the default style is used"
        );
    }
    style
}

/// The custom styles of one directory, by file name.
fn read_dir(dir: &Path) -> Vec<Style> {
    let mut paths = crate::memory::markdown_files(dir);
    paths.truncate(MAX_STYLES);
    paths
        .iter()
        .filter_map(|path| {
            use std::io::Read;
            let mut text = String::new();
            std::fs::File::open(path)
                .ok()?
                .take(MAX_FILE_BYTES)
                .read_to_string(&mut text)
                .ok()?;
            let stem = path.file_stem()?.to_string_lossy().into_owned();
            Some(parse(&text, &stem))
        })
        .collect()
}

/// A style file: front matter (`name:`) between `---` lines, then the instructions.
fn parse(text: &str, stem: &str) -> Style {
    let mut name = stem.to_owned();
    let mut body = text;
    if let Some(rest) = text.strip_prefix("---\n") {
        if let Some(end) = rest.find("\n---") {
            for line in rest[..end].lines() {
                if let Some(value) = line.strip_prefix("name:") {
                    let value = value.trim().trim_matches(['"', '\'']);
                    if !value.is_empty() {
                        name = value.to_owned();
                    }
                }
            }
            body = rest[end + 4..].trim_start_matches(['-', '\n']);
        }
    }
    Style {
        name,
        instructions: body.trim().to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn built_ins_come_first_and_a_project_style_wins_over_the_users() {
        let dir = tempfile::tempdir().unwrap();
        let (work, config) = (dir.path().join("work"), dir.path().join("config"));
        std::fs::create_dir_all(work.join(".claude/output-styles")).unwrap();
        std::fs::create_dir_all(config.join("output-styles")).unwrap();
        std::fs::write(
            config.join("output-styles/pirate.md"),
            "---\nname: Pirate\ndescription: arr\n---\nSpeak as a user's pirate.\n",
        )
        .unwrap();
        std::fs::write(
            work.join(".claude/output-styles/p.md"),
            "---\nname: \"Pirate\"\n---\n\nSpeak as the project's pirate.\n",
        )
        .unwrap();
        std::fs::write(
            work.join(".claude/output-styles/Plain.md"),
            "Say it plainly.",
        )
        .unwrap();
        let styles = available(&work, Some(&config));
        let names: Vec<&str> = styles.iter().map(|s| s.name.as_str()).collect();
        assert_eq!(
            names,
            [
                "default",
                "Proactive",
                "Concise",
                "Explanatory",
                "Learning",
                "Pirate",
                "Plain"
            ]
        );
        let pirate = chosen(&styles, "Pirate").unwrap();
        assert_eq!(pirate.instructions, "Speak as the project's pirate.");
        assert_eq!(
            chosen(&styles, "Plain").unwrap().instructions,
            "Say it plainly."
        );
        assert!(chosen(&styles, DEFAULT).is_none());
        assert!(chosen(&styles, "Nobody").is_none());
        assert!(chosen(&styles, "Concise")
            .unwrap()
            .instructions
            .contains("few words"));
    }
}
