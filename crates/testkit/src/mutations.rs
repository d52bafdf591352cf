//! Mutants of recorded frames: every field of a frame removed, set to `null`, retyped,
//! duplicated, given an unknown enum value; every list of typed objects given an unknown one.
//! They feed the tests of the liberal reader: whatever a peer writes, it must come back as a
//! value (typed, or kept raw as malformed), never a panic, and write back what it kept.
//!
//! The frames come from the project's recorded sessions ([`crate::fixtures`]).

use std::collections::BTreeSet;

use serde_json::{Map, Number, Value};

/// How a frame was changed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Mutation {
    /// The field is left out.
    Removed,
    /// The field is `null`.
    Null,
    /// A number written as a string, an integer as a float (`10.0`), a string as a number, a
    /// boolean as a string.
    Retyped,
    /// The key appears twice: first with `null`, then with its value (the last one counts).
    Duplicated,
    /// A short string value replaced by one no version knows (an unknown enum value or tag).
    UnknownValue,
    /// A list of typed objects (`{"type":…}`) with an object of an unknown type added.
    UnknownElement,
}

impl Mutation {
    /// Every kind of mutation.
    pub const ALL: [Mutation; 6] = [
        Mutation::Removed,
        Mutation::Null,
        Mutation::Retyped,
        Mutation::Duplicated,
        Mutation::UnknownValue,
        Mutation::UnknownElement,
    ];
}

/// One mutated frame, as the line a peer would write.
#[derive(Debug, Clone)]
pub struct Mutant {
    /// Where the change is, e.g. `message.content[0].text`.
    pub path: String,
    /// What was done there.
    pub mutation: Mutation,
    /// The frame's JSON text.
    pub line: String,
}

/// A step of a path into a JSON value.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Step {
    Key(String),
    Index(usize),
}

fn show(path: &[Step]) -> String {
    let mut text = String::new();
    for step in path {
        match step {
            Step::Key(key) => {
                if !text.is_empty() {
                    text.push('.');
                }
                text.push_str(key);
            }
            Step::Index(index) => text.push_str(&format!("[{index}]")),
        }
    }
    if text.is_empty() {
        ".".to_owned()
    } else {
        text
    }
}

/// The path with list positions left out: mutants at the same shape are alike.
fn shape(path: &[Step]) -> String {
    show(path)
        .split('[')
        .map(|part| part.split_once(']').map_or(part, |(_, rest)| rest))
        .collect::<Vec<_>>()
        .join("[]")
}

/// Every mutant of `frame`.
pub fn mutants(frame: &Value) -> Vec<Mutant> {
    let mut out = Vec::new();
    let mut path = Vec::new();
    walk(frame, frame, &mut path, &mut out);
    out
}

/// The mutants of every frame, one per frame kind, path shape and mutation: a corpus with no
/// two mutants alike (the stream events of a long turn all have the same shape).
pub fn distinct_mutants<'a>(frames: impl IntoIterator<Item = &'a Value>) -> Vec<Mutant> {
    let mut seen = BTreeSet::new();
    let mut out = Vec::new();
    for frame in frames {
        let kind = kind(frame);
        let mut path = Vec::new();
        let mut all = Vec::new();
        walk_shaped(frame, frame, &mut path, &mut all);
        for (shape, mutant) in all {
            if seen.insert((kind.clone(), shape, mutant.mutation)) {
                out.push(mutant);
            }
        }
    }
    out
}

/// The frame's kind as `type/subtype`, looking inside control envelopes.
pub fn kind(frame: &Value) -> String {
    let text = |v: Option<&Value>| v.and_then(Value::as_str).unwrap_or("?").to_owned();
    let subtype = frame
        .get("subtype")
        .or_else(|| frame.get("request").and_then(|r| r.get("subtype")))
        .or_else(|| frame.get("response").and_then(|r| r.get("subtype")));
    format!("{}/{}", text(frame.get("type")), text(subtype))
}

fn walk(root: &Value, node: &Value, path: &mut Vec<Step>, out: &mut Vec<Mutant>) {
    let mut shaped = Vec::new();
    walk_shaped(root, node, path, &mut shaped);
    out.extend(shaped.into_iter().map(|(_, mutant)| mutant));
}

fn walk_shaped(root: &Value, node: &Value, path: &mut Vec<Step>, out: &mut Vec<(String, Mutant)>) {
    match node {
        Value::Object(map) => {
            for (key, value) in map {
                path.push(Step::Key(key.clone()));
                for mutation in Mutation::ALL {
                    if let Some(line) = mutate(root, path, value, mutation) {
                        out.push((
                            shape(path),
                            Mutant {
                                path: show(path),
                                mutation,
                                line,
                            },
                        ));
                    }
                }
                walk_shaped(root, value, path, out);
                path.pop();
            }
        }
        Value::Array(items) => {
            for (index, item) in items.iter().enumerate() {
                path.push(Step::Index(index));
                walk_shaped(root, item, path, out);
                path.pop();
            }
        }
        _ => {}
    }
}

/// The line of `root` with the value at `path` (currently `value`) changed by `mutation`;
/// `None` when the mutation does not apply to that value.
fn mutate(root: &Value, path: &[Step], value: &Value, mutation: Mutation) -> Option<String> {
    let replacement = match mutation {
        Mutation::Removed => None,
        Mutation::Null => Some(Value::Null),
        Mutation::Retyped => Some(retyped(value)?),
        Mutation::Duplicated => return duplicated(root, path, value),
        Mutation::UnknownValue => match value {
            Value::String(text) if is_enum_like(text) => Some(Value::String("zz_unknown".into())),
            _ => return None,
        },
        Mutation::UnknownElement => match value {
            Value::Array(items) if items.iter().any(|i| i.get("type").is_some()) => {
                let mut items = items.clone();
                items.push(serde_json::json!({"type": "zz_unknown", "zz": 1}));
                Some(Value::Array(items))
            }
            _ => return None,
        },
    };
    let mut copy = root.clone();
    let (parent, last) = locate(&mut copy, path)?;
    match (parent, last, replacement) {
        (Value::Object(map), Step::Key(key), None) => {
            map.remove(key);
        }
        (Value::Object(map), Step::Key(key), Some(new)) => {
            map.insert(key.clone(), new);
        }
        (Value::Array(items), Step::Index(index), Some(new)) => items[*index] = new,
        _ => return None,
    }
    Some(copy.to_string())
}

/// The container of the last step of `path`, and that step.
fn locate<'v, 'p>(root: &'v mut Value, path: &'p [Step]) -> Option<(&'v mut Value, &'p Step)> {
    let (last, parents) = path.split_last()?;
    let mut node = root;
    for step in parents {
        node = match step {
            Step::Key(key) => node.as_object_mut()?.get_mut(key)?,
            Step::Index(index) => node.as_array_mut()?.get_mut(*index)?,
        };
    }
    Some((node, last))
}

fn retyped(value: &Value) -> Option<Value> {
    Some(match value {
        Value::Number(number) => {
            if let Some(int) = number.as_i64() {
                // Half the time a float, half a string: both on alternate digits, so a corpus
                // sees both.
                if int % 2 == 0 {
                    Value::Number(Number::from_f64(int as f64)?)
                } else {
                    Value::String(int.to_string())
                }
            } else {
                Value::String(number.to_string())
            }
        }
        Value::String(text) => match text.parse::<f64>() {
            Ok(number) => Value::Number(Number::from_f64(number)?),
            Err(_) => Value::Number(1.into()),
        },
        Value::Bool(flag) => Value::String(flag.to_string()),
        Value::Object(_) => Value::Array(vec![value.clone()]),
        Value::Array(_) => Value::Object(Map::new()),
        Value::Null => Value::Number(0.into()),
    })
}

/// Writes the frame with the key at `path` twice: first `null`, then its value.
fn duplicated(root: &Value, path: &[Step], value: &Value) -> Option<String> {
    const MARK: &str = "__twinwire_duplicate_here__";
    let Some(Step::Key(key)) = path.last() else {
        return None;
    };
    let mut copy = root.clone();
    let (parent, _) = locate(&mut copy, path)?;
    let object = parent.as_object()?.clone();
    let mut text = String::from("{");
    for (index, (k, v)) in object.iter().enumerate() {
        if index > 0 {
            text.push(',');
        }
        let name = Value::String(k.clone()).to_string();
        if k == key {
            text.push_str(&format!("{name}:null,{name}:{value}"));
        } else {
            text.push_str(&format!("{name}:{v}"));
        }
    }
    text.push('}');
    *parent = Value::String(MARK.to_owned());
    let line = copy.to_string();
    Some(line.replacen(&format!("\"{MARK}\""), &text, 1))
}

fn is_enum_like(text: &str) -> bool {
    !text.is_empty()
        && text.len() <= 40
        && text
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.' | ':'))
        && text.chars().any(|c| c.is_ascii_alphabetic())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn every_field_gets_every_applicable_mutation() {
        let frame =
            json!({"type": "result", "n": 2, "usage": {"a": 1}, "blocks": [{"type": "text"}]});
        let all = mutants(&frame);
        let at = |path: &str, mutation: Mutation| {
            all.iter()
                .find(|m| m.path == path && m.mutation == mutation)
                .map(|m| serde_json::from_str::<Value>(&m.line).unwrap())
        };
        assert_eq!(at("n", Mutation::Removed).unwrap().get("n"), None);
        assert_eq!(at("n", Mutation::Retyped).unwrap()["n"], json!(2.0));
        assert_eq!(
            at("usage.a", Mutation::Retyped).unwrap()["usage"]["a"],
            json!("1")
        );
        assert_eq!(
            at("type", Mutation::UnknownValue).unwrap()["type"],
            "zz_unknown"
        );
        let grown = at("blocks", Mutation::UnknownElement).unwrap();
        assert_eq!(grown["blocks"][1]["type"], "zz_unknown");
        let duplicate = all
            .iter()
            .find(|m| m.path == "usage.a" && m.mutation == Mutation::Duplicated)
            .unwrap();
        assert!(
            duplicate.line.contains(r#"{"a":null,"a":1}"#),
            "{}",
            duplicate.line
        );
        // The same shape twice is one mutant in the distinct corpus.
        let twice = [frame.clone(), frame];
        assert_eq!(distinct_mutants(&twice).len(), all.len());
    }
}
