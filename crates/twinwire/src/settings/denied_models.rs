//! Which models a managed `deniedModels` list blocks, by model id alone (the TypeScript SDK's
//! `matchDeniedModels`): not the CLI's enforcement, so grant nothing by it. `true` means the
//! CLI refuses the model too; `false` promises nothing (the CLI also judges what an alias or a
//! custom name stands for).

use serde::Serialize;
use serde_json::Value;

/// What [`match_denied_models`] answers.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct DeniedModelsMatch {
    /// For each model asked about, in order: whether an entry blocks it.
    pub denied: Vec<bool>,
    /// Why an entry was ignored, what one blocks where that may surprise, and what asked about
    /// is no model name.
    pub warnings: Vec<String>,
}

/// A model family of Claude.
const FAMILIES: [&str; 3] = ["opus", "sonnet", "haiku"];

/// What an entry or a model id names.
#[derive(Debug, Clone, PartialEq)]
enum Name {
    /// Every model of a family (`opus`).
    Family(&'static str),
    /// A family at a version, and every later point release under it (`claude-opus-4` blocks
    /// `claude-opus-4-1`): the version's numbers.
    Model(&'static str, Vec<u32>),
    /// Not a name this can read: only the exact text.
    Other(String),
}

/// Reads `text` as a model name; also says what of it was ignored (a snapshot date, a
/// provider's version suffix, a context-size tag).
fn read(text: &str) -> (Name, Vec<Ignored>) {
    let mut ignored = Vec::new();
    let mut name = text.trim().to_ascii_lowercase();
    if let Some(start) = name.find('[') {
        if name.ends_with(']') {
            name.truncate(start);
            ignored.push(Ignored::ContextTag);
        }
    }
    if let Some(family) = FAMILIES.iter().find(|f| **f == name) {
        return (Name::Family(family), ignored);
    }
    // A cloud provider's prefix (`us.anthropic.`, `anthropic.`): not part of the model.
    if let Some(at) = name.find("claude-") {
        if at > 0 && name[..at].ends_with('.') {
            name = name[at..].to_owned();
        }
    }
    // A provider's version suffix (`-v1:0`) or a Vertex snapshot (`@20251101`).
    if let Some(at) = name.rfind("-v").filter(|&at| name[at + 2..].contains(':')) {
        ignored.push(Ignored::Suffix(name[at..].to_owned()));
        name.truncate(at);
    }
    let Some(rest) = name.strip_prefix("claude-") else {
        return (Name::Other(text.to_owned()), ignored);
    };
    let mut parts: Vec<&str> = rest.split('-').collect();
    if parts
        .last()
        .is_some_and(|p| p.len() == 8 && p.bytes().all(|b| b.is_ascii_digit()))
    {
        let date = parts.pop().unwrap_or_default();
        if !ignored.iter().any(|i| matches!(i, Ignored::Suffix(_))) {
            ignored.push(Ignored::Suffix(format!("-{date}")));
        }
    }
    // `claude-opus-4-5` or the older `claude-3-5-haiku`.
    let family_at = parts.iter().position(|p| FAMILIES.contains(p));
    let (family, numbers) = match family_at {
        Some(0) => (parts[0], &parts[1..]),
        Some(at) if at == parts.len() - 1 => (parts[at], &parts[..at]),
        _ => return (Name::Other(text.to_owned()), ignored),
    };
    let numbers: Option<Vec<u32>> = numbers.iter().map(|n| n.parse().ok()).collect();
    match (FAMILIES.iter().find(|f| **f == family), numbers) {
        (Some(family), Some(numbers)) if !numbers.is_empty() => {
            (Name::Model(family, numbers), ignored)
        }
        _ => (Name::Other(text.to_owned()), ignored),
    }
}

/// What reading a name left out.
#[derive(Debug, Clone, PartialEq)]
enum Ignored {
    ContextTag,
    Suffix(String),
}

/// Whether the entry `entry` blocks the model `model`.
fn blocks(entry: &Name, model: &Name, model_text: &str) -> bool {
    match (entry, model) {
        (Name::Family(family), Name::Family(other)) => family == other,
        (Name::Family(family), Name::Model(other, _)) => family == other,
        (Name::Model(family, version), Name::Model(other, numbers)) => {
            family == other && numbers.starts_with(version)
        }
        (Name::Other(text), _) => text == model_text,
        _ => false,
    }
}

/// `Opus 4.5`, `every Opus model`.
fn describe(name: &Name) -> String {
    let title = |family: &str| {
        let mut chars = family.chars();
        chars
            .next()
            .map(|c| c.to_ascii_uppercase().to_string() + chars.as_str())
            .unwrap_or_default()
    };
    match name {
        Name::Family(family) => format!("every {} model", title(family)),
        Name::Model(family, version) => {
            let version: Vec<String> = version.iter().map(u32::to_string).collect();
            format!(
                "{} {} in every spelling and snapshot",
                title(family),
                version.join(".")
            )
        }
        Name::Other(text) => text.clone(),
    }
}

/// Names that stand for a different model depending on the release and the settings.
const MOVING_ALIASES: &[&str] = &["best", "default"];

/// Which of `models` the `denied_models` entries block (both as JSON, as a settings file
/// holds them: anything that is not a list of texts is reported, never an error).
pub fn match_denied_models(models: &Value, denied_models: Option<&Value>) -> DeniedModelsMatch {
    let mut warnings = Vec::new();
    let mut entries: Vec<(Name, String)> = Vec::new();
    match denied_models {
        None | Some(Value::Null) => {}
        Some(Value::Array(list)) => {
            // Entries that are not texts are said first, as the CLI checks the list's shape
            // before it reads the names.
            for entry in list.iter().filter(|entry| !entry.is_string()) {
                warnings.push(format!(
                    "\"deniedModels\" contained a non-string entry ({}); the entry was \
                     ignored.",
                    json_type(entry)
                ));
            }
            for text in list.iter().filter_map(Value::as_str) {
                if text.trim().is_empty() {
                    warnings.push("An empty deniedModels entry was ignored.".to_owned());
                    continue;
                }
                if MOVING_ALIASES.contains(&text.trim().to_ascii_lowercase().as_str()) {
                    warnings.push(format!(
                        "\"{text}\" was ignored: it names a different model depending on the \
                         release and settings. Name the model instead, for example \
                         \"claude-opus-5-5\"."
                    ));
                    continue;
                }
                let (name, ignored) = read(text);
                match &name {
                    Name::Other(_) => warnings.push(format!(
                        "\"{text}\" blocks only the exact model name \"{text}\"; other \
                         spellings of the same model are not blocked."
                    )),
                    _ if !ignored.is_empty() => {
                        let mut warning = format!("\"{text}\" blocks {}.", describe(&name));
                        for part in &ignored {
                            match part {
                                Ignored::Suffix(suffix) => {
                                    warning.push_str(&format!(" \"{suffix}\" is ignored."))
                                }
                                Ignored::ContextTag => warning.push_str(
                                    " Context-size tags such as [1m] are ignored: the entry \
                                     blocks the model at every context size.",
                                ),
                            }
                        }
                        warnings.push(warning);
                    }
                    _ => {}
                }
                entries.push((name, text.to_owned()));
            }
        }
        Some(_) => warnings.push(
            "\"deniedModels\" was present but is not a list of model names, so it was ignored \
             and blocks no models until it is fixed."
                .to_owned(),
        ),
    }
    let Some(models) = models.as_array() else {
        warnings
            .push("\"models\" is not a list of model names, so nothing was matched.".to_owned());
        return DeniedModelsMatch {
            denied: Vec::new(),
            warnings,
        };
    };
    let denied = models
        .iter()
        .map(|model| {
            let Some(text) = model.as_str() else {
                warnings.push(format!(
                    "\"models\" contained a non-string entry ({}), which is not a model name, \
                     so it cannot be matched.",
                    json_type(model)
                ));
                return false;
            };
            let (name, _) = read(text);
            entries.iter().any(|(entry, _)| blocks(entry, &name, text))
        })
        .collect();
    DeniedModelsMatch { denied, warnings }
}

/// JavaScript's `typeof` of a JSON value, as the warnings name it.
fn json_type(value: &Value) -> &'static str {
    match value {
        Value::Null => "object",
        Value::Bool(_) => "boolean",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) | Value::Object(_) => "object",
    }
}
