//! A tool's input schema, written once: what the model is told (a JSON Schema) and how a
//! call's input is checked, as Claude Code checks it. Numbers given as strings (`"2000"`) and
//! booleans given as `"true"`/`"false"` are converted where Claude Code converts them; every
//! other mistake is an `InputValidationError` in Claude Code's words: missing parameters,
//! then unexpected ones, then wrong types, then the rest; when only "the rest" went wrong
//! (a value out of range, not among the allowed ones), the list of issues itself, as JSON.

use serde_json::{json, Map, Value};

/// What a field holds.
#[derive(Debug, Clone)]
pub enum Kind {
    /// A string; `min` is the fewest characters.
    Str { min: Option<usize> },
    /// A string that must not be empty; the message says so in the tool's words.
    NonEmpty(&'static str),
    /// An absolute URL.
    Url,
    /// A number (a numeric string is converted when `coerce`).
    Number { coerce: bool },
    /// An integer at least `min` (`exclusive`: above it), a numeric string converted; with
    /// `enforced` false, the bound is only told to the model (as Claude Code's Read does).
    Integer {
        min: i64,
        exclusive: bool,
        enforced: bool,
    },
    /// `true` or `false` (the strings `"true"` and `"false"` converted when `coerce`).
    Bool { coerce: bool },
    /// One of these strings.
    Enum(&'static [&'static str]),
    /// A list of strings.
    Strings,
    /// A list of objects of this shape, with at most `max` items.
    Objects {
        fields: Vec<Field>,
        min: Option<usize>,
        max: Option<usize>,
    },
    /// An object of string keys and string values.
    StringMap,
    /// An object of these fields.
    Object(Vec<Field>),
    /// An object of string keys whose values are objects of these fields.
    RecordOf(Vec<Field>),
}

/// One field of an input.
#[derive(Debug, Clone)]
pub struct Field {
    pub name: &'static str,
    pub kind: Kind,
    pub required: bool,
    pub description: &'static str,
    /// The default the schema names (`replace_all: false`).
    pub default: Option<Value>,
}

/// A field that must be given.
pub fn required(name: &'static str, kind: Kind, description: &'static str) -> Field {
    Field {
        name,
        kind,
        required: true,
        description,
        default: None,
    }
}

/// A field that may be left out.
pub fn optional(name: &'static str, kind: Kind, description: &'static str) -> Field {
    Field {
        required: false,
        ..required(name, kind, description)
    }
}

impl Field {
    /// With a default the schema names.
    pub fn default(mut self, value: Value) -> Self {
        self.default = Some(value);
        self
    }
}

/// Shorthands for the kinds.
pub fn string() -> Kind {
    Kind::Str { min: None }
}

/// A number that may come as a numeric string.
pub fn number() -> Kind {
    Kind::Number { coerce: true }
}

/// A boolean that may come as `"true"` or `"false"`.
pub fn boolean() -> Kind {
    Kind::Bool { coerce: true }
}

/// A tool's input: its fields, in order.
#[derive(Debug, Clone)]
pub struct InputSchema {
    pub fields: Vec<Field>,
}

/// One thing wrong with an input.
#[derive(Debug, Clone)]
enum Issue {
    Missing(Vec<Value>),
    Unexpected(Vec<Value>),
    WrongType {
        path: Vec<Value>,
        expected: &'static str,
        received: &'static str,
    },
    /// Fields in the validator's order: `path` and `message` among them.
    Other(Vec<(&'static str, Value)>),
}

impl InputSchema {
    /// The schema.
    pub fn new(fields: Vec<Field>) -> Self {
        Self { fields }
    }

    /// The JSON Schema the model is given.
    pub fn json(&self) -> Value {
        let mut schema = object_schema(&self.fields);
        if let Some(map) = schema.as_object_mut() {
            let mut out = Map::new();
            out.insert(
                "$schema".into(),
                json!("https://json-schema.org/draft/2020-12/schema"),
            );
            out.extend(std::mem::take(map));
            return Value::Object(out);
        }
        schema
    }

    /// The input with numbers and booleans given as strings converted, or Claude Code's
    /// validation error for `tool`.
    pub fn check(&self, tool: &str, input: &Value) -> Result<Value, String> {
        let mut issues = Vec::new();
        let checked = check_object(&self.fields, input, &mut Vec::new(), &mut issues);
        if issues.is_empty() {
            Ok(checked)
        } else {
            Err(format!("InputValidationError: {}", message(tool, &issues)))
        }
    }
}

fn object_schema(fields: &[Field]) -> Value {
    let mut properties = Map::new();
    for field in fields {
        let mut spec = kind_schema(&field.kind);
        if let Some(map) = spec.as_object_mut() {
            let mut out = Map::new();
            if !field.description.is_empty() {
                out.insert("description".into(), json!(field.description));
            }
            if let Some(default) = &field.default {
                out.insert("default".into(), default.clone());
            }
            out.extend(std::mem::take(map));
            spec = Value::Object(out);
        }
        properties.insert(field.name.into(), spec);
    }
    let required: Vec<&str> = fields
        .iter()
        .filter(|f| f.required)
        .map(|f| f.name)
        .collect();
    let mut schema = json!({"type": "object", "properties": properties});
    if !required.is_empty() {
        schema["required"] = json!(required);
    }
    schema["additionalProperties"] = json!(false);
    schema
}

fn kind_schema(kind: &Kind) -> Value {
    match kind {
        Kind::Str { min: None } => json!({"type": "string"}),
        Kind::Str { min: Some(min) } => json!({"type": "string", "minLength": min}),
        Kind::NonEmpty(_) => json!({"type": "string", "minLength": 1}),
        Kind::Url => json!({"type": "string", "format": "uri"}),
        Kind::Number { .. } => json!({"type": "number"}),
        Kind::Integer { min, exclusive, .. } => {
            let bound = if *exclusive {
                "exclusiveMinimum"
            } else {
                "minimum"
            };
            json!({"type": "integer", bound: min, "maximum": 9_007_199_254_740_991_i64})
        }
        Kind::Bool { .. } => json!({"type": "boolean"}),
        Kind::Enum(values) => json!({"type": "string", "enum": values}),
        Kind::Strings => json!({"type": "array", "items": {"type": "string"}}),
        Kind::Objects { fields, min, max } => {
            let mut schema = json!({"type": "array", "items": object_schema(fields)});
            if let Some(min) = min {
                schema["minItems"] = json!(min);
            }
            if let Some(max) = max {
                schema["maxItems"] = json!(max);
            }
            schema
        }
        Kind::Object(fields) => object_schema(fields),
        Kind::RecordOf(fields) => json!({
            "type": "object",
            "propertyNames": {"type": "string"},
            "additionalProperties": object_schema(fields),
        }),
        Kind::StringMap => json!({
            "type": "object",
            "propertyNames": {"type": "string"},
            "additionalProperties": {"type": "string"}
        }),
    }
}

/// JavaScript's name for a value's type, as the validator reports it.
fn received(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

fn check_object(
    fields: &[Field],
    input: &Value,
    path: &mut Vec<Value>,
    issues: &mut Vec<Issue>,
) -> Value {
    let Some(map) = input.as_object() else {
        issues.push(Issue::WrongType {
            path: path.clone(),
            expected: "object",
            received: received(input),
        });
        return input.clone();
    };
    let mut out = Map::new();
    for field in fields {
        path.push(json!(field.name));
        match map.get(field.name) {
            None => {
                if field.required {
                    issues.push(Issue::Missing(path.clone()));
                }
            }
            Some(value) => {
                let value = check_value(&field.kind, value, path, issues);
                out.insert(field.name.to_owned(), value);
            }
        }
        path.pop();
    }
    let unknown: Vec<&String> = map
        .keys()
        .filter(|key| fields.iter().all(|f| f.name != key.as_str()))
        .collect();
    for key in &unknown {
        let mut at = path.clone();
        at.push(json!(key));
        issues.push(Issue::Unexpected(at));
    }
    Value::Object(out)
}

fn check_value(
    kind: &Kind,
    value: &Value,
    path: &mut Vec<Value>,
    issues: &mut Vec<Issue>,
) -> Value {
    let wrong = |expected: &'static str, issues: &mut Vec<Issue>, path: &Vec<Value>| {
        issues.push(Issue::WrongType {
            path: path.clone(),
            expected,
            received: received(value),
        });
        value.clone()
    };
    match kind {
        Kind::Str { min } => match value.as_str() {
            Some(text) => {
                if let Some(min) = min {
                    if text.chars().count() < *min {
                        issues.push(Issue::Other(vec![
                            ("origin", json!("string")),
                            ("code", json!("too_small")),
                            ("minimum", json!(min)),
                            ("inclusive", json!(true)),
                            ("path", json!(path)),
                            (
                                "message",
                                json!(format!(
                                    "Too small: expected string to have >={min} characters"
                                )),
                            ),
                        ]));
                    }
                }
                value.clone()
            }
            None => wrong("string", issues, path),
        },
        Kind::NonEmpty(message) => match value.as_str() {
            Some("") => {
                issues.push(Issue::Other(vec![
                    ("origin", json!("string")),
                    ("code", json!("too_small")),
                    ("minimum", json!(1)),
                    ("inclusive", json!(true)),
                    ("path", json!(path)),
                    ("message", json!(message)),
                ]));
                value.clone()
            }
            Some(_) => value.clone(),
            None => wrong("string", issues, path),
        },
        Kind::Url => match value.as_str() {
            Some(text) => {
                if reqwest::Url::parse(text).is_err() {
                    issues.push(Issue::Other(vec![
                        ("code", json!("invalid_format")),
                        ("format", json!("url")),
                        ("path", json!(path)),
                        ("message", json!("Invalid URL")),
                    ]));
                }
                value.clone()
            }
            None => wrong("string", issues, path),
        },
        Kind::Number { coerce } => match numeric(value, *coerce) {
            Some(number) => number,
            None => wrong("number", issues, path),
        },
        Kind::Integer {
            min,
            exclusive,
            enforced,
        } => match numeric(value, true) {
            Some(number) => {
                let n = number.as_f64().unwrap_or_default();
                if n.fract() != 0.0 {
                    issues.push(Issue::WrongType {
                        path: path.clone(),
                        expected: "int",
                        received: "number",
                    });
                } else {
                    let below = *enforced
                        && if *exclusive {
                            n <= *min as f64
                        } else {
                            n < *min as f64
                        };
                    if below {
                        let op = if *exclusive { ">" } else { ">=" };
                        issues.push(Issue::Other(vec![
                            ("origin", json!("number")),
                            ("code", json!("too_small")),
                            ("minimum", json!(min)),
                            ("inclusive", json!(!exclusive)),
                            ("path", json!(path)),
                            (
                                "message",
                                json!(format!("Too small: expected number to be {op}{min}")),
                            ),
                        ]));
                    }
                }
                number
            }
            None => wrong("number", issues, path),
        },
        Kind::Bool { coerce } => match value {
            Value::Bool(_) => value.clone(),
            Value::String(text) if *coerce && text == "true" => Value::Bool(true),
            Value::String(text) if *coerce && text == "false" => Value::Bool(false),
            _ => wrong("boolean", issues, path),
        },
        Kind::Enum(values) => match value.as_str() {
            Some(text) if values.contains(&text) => value.clone(),
            _ => {
                let listed = values
                    .iter()
                    .map(|v| format!("\"{v}\""))
                    .collect::<Vec<_>>()
                    .join("|");
                issues.push(Issue::Other(vec![
                    ("code", json!("invalid_value")),
                    ("values", json!(values)),
                    ("path", json!(path)),
                    (
                        "message",
                        json!(format!("Invalid option: expected one of {listed}")),
                    ),
                ]));
                value.clone()
            }
        },
        Kind::Strings => match value.as_array() {
            Some(items) => {
                for (i, item) in items.iter().enumerate() {
                    if !item.is_string() {
                        path.push(json!(i));
                        issues.push(Issue::WrongType {
                            path: path.clone(),
                            expected: "string",
                            received: received(item),
                        });
                        path.pop();
                    }
                }
                value.clone()
            }
            None => wrong("array", issues, path),
        },
        Kind::Objects { fields, min, max } => match value.as_array() {
            Some(items) => {
                let checked: Vec<Value> = items
                    .iter()
                    .enumerate()
                    .map(|(i, item)| {
                        path.push(json!(i));
                        let out = check_object(fields, item, path, issues);
                        path.pop();
                        out
                    })
                    .collect();
                if let Some(min) = min.filter(|min| items.len() < *min) {
                    issues.push(Issue::Other(vec![
                        ("origin", json!("array")),
                        ("code", json!("too_small")),
                        ("minimum", json!(min)),
                        ("inclusive", json!(true)),
                        ("path", json!(path)),
                        (
                            "message",
                            json!(format!("Too small: expected array to have >={min} items")),
                        ),
                    ]));
                }
                if let Some(max) = max.filter(|max| items.len() > *max) {
                    issues.push(Issue::Other(vec![
                        ("origin", json!("array")),
                        ("code", json!("too_big")),
                        ("maximum", json!(max)),
                        ("inclusive", json!(true)),
                        ("path", json!(path)),
                        (
                            "message",
                            json!(format!("Too big: expected array to have <={max} items")),
                        ),
                    ]));
                }
                Value::Array(checked)
            }
            None => wrong("array", issues, path),
        },
        Kind::Object(fields) => check_object(fields, value, path, issues),
        Kind::RecordOf(fields) => match value.as_object() {
            Some(map) => {
                let mut out = Map::new();
                for (key, item) in map {
                    path.push(json!(key));
                    out.insert(key.clone(), check_object(fields, item, path, issues));
                    path.pop();
                }
                Value::Object(out)
            }
            None => wrong("record", issues, path),
        },
        Kind::StringMap => match value.as_object() {
            Some(map) => {
                for (key, item) in map {
                    if !item.is_string() {
                        path.push(json!(key));
                        issues.push(Issue::WrongType {
                            path: path.clone(),
                            expected: "string",
                            received: received(item),
                        });
                        path.pop();
                    }
                }
                value.clone()
            }
            None => wrong("record", issues, path),
        },
    }
}

/// A number, or a string that is one (`"2000"`, `" -1.5 "`) when `coerce`.
fn numeric(value: &Value, coerce: bool) -> Option<Value> {
    match value {
        Value::Number(_) => Some(value.clone()),
        Value::String(text) if coerce => {
            let text = text.trim();
            let digits = text.strip_prefix(['-', '+']).unwrap_or(text);
            let (whole, fraction) = digits.split_once('.').unwrap_or((digits, "0"));
            let plain = |part: &str| !part.is_empty() && part.bytes().all(|b| b.is_ascii_digit());
            if !plain(whole) || !plain(fraction) {
                return None;
            }
            let number: f64 = text.trim_start_matches('+').parse().ok()?;
            if !number.is_finite() {
                return None;
            }
            if number.fract() == 0.0 && number.abs() < 9_007_199_254_740_992.0 {
                Some(json!(number as i64))
            } else {
                serde_json::Number::from_f64(number).map(Value::Number)
            }
        }
        _ => None,
    }
}

/// One issue as `JSON.stringify(issue, null, 2)` writes it inside a list (indented by two).
fn pretty_object(fields: &[(&'static str, Value)]) -> String {
    let lines: Vec<String> = fields
        .iter()
        .map(|(key, value)| {
            let value = serde_json::to_string_pretty(value)
                .unwrap_or_default()
                .replace('\n', "\n    ");
            format!("    \"{key}\": {value}")
        })
        .collect();
    format!("  {{\n{}\n  }}", lines.join(",\n"))
}

/// A path as Claude Code writes it: `todos[0].content`.
fn dotted(path: &[Value]) -> String {
    let mut out = String::new();
    for (i, part) in path.iter().enumerate() {
        match part {
            Value::Number(n) => out.push_str(&format!("[{n}]")),
            Value::String(s) if i == 0 => out.push_str(s),
            Value::String(s) => {
                out.push('.');
                out.push_str(s);
            }
            other => out.push_str(&other.to_string()),
        }
    }
    out
}

/// The most parameters named in one message.
const MAX_NAMED: usize = 20;

fn message(tool: &str, issues: &[Issue]) -> String {
    let only_others = issues.iter().all(|i| matches!(i, Issue::Other(_)));
    if only_others {
        let items: Vec<String> = issues
            .iter()
            .filter_map(|i| match i {
                Issue::Other(fields) => Some(pretty_object(fields)),
                _ => None,
            })
            .collect();
        return format!("[\n{}\n]", items.join(",\n"));
    }
    let mut lines = Vec::new();
    for issue in issues {
        if let Issue::Missing(path) = issue {
            lines.push(format!(
                "The required parameter `{}` is missing",
                dotted(path)
            ));
        }
    }
    for issue in issues {
        if let Issue::Unexpected(path) = issue {
            lines.push(format!(
                "An unexpected parameter `{}` was provided",
                dotted(path)
            ));
        }
    }
    for issue in issues {
        if let Issue::WrongType {
            path,
            expected,
            received,
        } = issue
        {
            lines.push(format!(
                "The parameter `{}` type is expected as `{expected}` but provided as `{received}`",
                dotted(path)
            ));
        }
    }
    lines.truncate(MAX_NAMED);
    for issue in issues {
        if let Issue::Other(fields) = issue {
            let field = |name: &str| {
                fields
                    .iter()
                    .find(|(key, _)| *key == name)
                    .map(|(_, value)| value.clone())
                    .unwrap_or_default()
            };
            let path: Vec<Value> = field("path").as_array().cloned().unwrap_or_default();
            let message = field("message");
            let at = dotted(&path);
            let subject = if at.is_empty() {
                "The input".to_owned()
            } else {
                format!("The parameter `{at}`")
            };
            let text = message.as_str().unwrap_or_default();
            let text = text
                .strip_prefix("Invalid input: ")
                .or_else(|| text.strip_prefix("Invalid input"))
                .unwrap_or(text);
            if text.is_empty() {
                lines.push(format!("{subject} is invalid"));
            } else {
                lines.push(format!("{subject} is invalid: {text}"));
            }
        }
    }
    let noun = if lines.len() > 1 { "issues" } else { "issue" };
    format!(
        "{tool} failed due to the following {noun}:\n{}",
        lines.join("\n")
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn schema() -> InputSchema {
        InputSchema::new(vec![
            required("command", string(), "what to run"),
            optional("timeout", number(), "ms"),
            optional("background", boolean(), "bg"),
            optional("mode", Kind::Enum(&["a", "b"]), "mode"),
        ])
    }

    #[test]
    fn numbers_and_booleans_given_as_strings_are_converted() {
        let checked = schema()
            .check(
                "Bash",
                &json!({"command": "x", "timeout": " 2000 ", "background": "true"}),
            )
            .unwrap();
        assert_eq!(
            checked,
            json!({"command": "x", "timeout": 2000, "background": true})
        );
        assert_eq!(numeric(&json!("1.5"), true), Some(json!(1.5)));
        assert_eq!(numeric(&json!("1e3"), true), None);
        assert_eq!(numeric(&json!("x"), true), None);
    }

    #[test]
    fn mistakes_are_said_in_order_missing_unexpected_type() {
        let err = schema()
            .check("Bash", &json!({"timeout": "soon", "bogus": 1}))
            .unwrap_err();
        assert_eq!(
            err,
            "InputValidationError: Bash failed due to the following issues:\n\
             The required parameter `command` is missing\n\
             An unexpected parameter `bogus` was provided\n\
             The parameter `timeout` type is expected as `number` but provided as `string`"
        );
    }

    #[test]
    fn other_issues_alone_are_listed_as_json() {
        let err = schema()
            .check("Bash", &json!({"command": "x", "mode": "c"}))
            .unwrap_err();
        assert!(
            err.starts_with("InputValidationError: [\n  {\n    \"code\": \"invalid_value\""),
            "{err}"
        );
    }

    #[test]
    fn the_json_schema_names_every_field() {
        let schema = schema().json();
        assert_eq!(schema["required"], json!(["command"]));
        assert_eq!(schema["additionalProperties"], json!(false));
        assert_eq!(schema["properties"]["mode"]["enum"], json!(["a", "b"]));
    }
}
