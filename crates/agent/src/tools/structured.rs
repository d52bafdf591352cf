//! Structured output: when the session has a JSON schema (`--json-schema`, or `jsonSchema`
//! in `initialize`), the model gives its final answer by calling `StructuredOutput` with it.
//! The input is checked against the schema's core keywords (`type`, `properties`,
//! `required`, `items`, `enum`, `const`, `additionalProperties: false`); a call that fails
//! is answered with what is wrong so that the model can try again.

use futures::future::BoxFuture;
use serde_json::{json, Value};

use super::{Tool, ToolContext, ToolOutput};

/// The tool's name.
pub const STRUCTURED_OUTPUT: &str = "StructuredOutput";

/// The `StructuredOutput` tool for one schema.
pub struct StructuredOutput {
    /// The schema the answer must follow.
    pub schema: Value,
}

impl Tool for StructuredOutput {
    fn name(&self) -> &str {
        STRUCTURED_OUTPUT
    }

    fn description(&self) -> String {
        "Gives the final answer as structured data. Call it exactly once, at the end, with \
         input that follows its schema."
            .to_owned()
    }

    fn input_schema(&self) -> Value {
        let mut schema = self.schema.clone();
        if let Some(object) = schema.as_object_mut() {
            // The API wants an object schema without the draft declaration.
            object.remove("$schema");
        }
        schema
    }

    fn read_only(&self) -> bool {
        true
    }

    fn call(&self, input: Value, _cx: ToolContext) -> BoxFuture<'static, ToolOutput> {
        let problems = check(&self.schema, &input, "$");
        Box::pin(async move {
            if problems.is_empty() {
                ToolOutput::success(
                    "Structured output received.",
                    json!({"structured_output": input}),
                )
            } else {
                ToolOutput::error(format!(
                    "The output does not follow the schema: {}",
                    problems.join("; ")
                ))
            }
        })
    }
}

/// What is wrong with `value` under `schema`, at `path`.
pub fn check(schema: &Value, value: &Value, path: &str) -> Vec<String> {
    let mut problems = Vec::new();
    let Some(schema) = schema.as_object() else {
        return problems;
    };
    if let Some(kind) = schema.get("type") {
        let kinds: Vec<&str> = match kind {
            Value::String(one) => vec![one.as_str()],
            Value::Array(many) => many.iter().filter_map(Value::as_str).collect(),
            _ => Vec::new(),
        };
        if !kinds.is_empty() && !kinds.iter().any(|k| is_type(value, k)) {
            problems.push(format!("{path} is not of type {}", kinds.join(" or ")));
            return problems;
        }
    }
    if let Some(options) = schema.get("enum").and_then(Value::as_array) {
        if !options.contains(value) {
            problems.push(format!(
                "{path} is not one of {}",
                Value::Array(options.clone())
            ));
        }
    }
    if let Some(constant) = schema.get("const") {
        if constant != value {
            problems.push(format!("{path} is not {constant}"));
        }
    }
    if let Value::Object(object) = value {
        let properties = schema.get("properties").and_then(Value::as_object);
        for name in schema
            .get("required")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter_map(Value::as_str)
        {
            if !object.contains_key(name) {
                problems.push(format!("{path}.{name} is missing"));
            }
        }
        for (name, field) in object {
            match properties.and_then(|p| p.get(name)) {
                Some(spec) => problems.extend(check(spec, field, &format!("{path}.{name}"))),
                None if schema.get("additionalProperties") == Some(&Value::Bool(false)) => {
                    problems.push(format!("{path}.{name} is not allowed"));
                }
                None => {}
            }
        }
    }
    if let (Value::Array(items), Some(spec)) = (value, schema.get("items")) {
        for (i, item) in items.iter().enumerate() {
            problems.extend(check(spec, item, &format!("{path}[{i}]")));
        }
    }
    problems
}

fn is_type(value: &Value, kind: &str) -> bool {
    match kind {
        "object" => value.is_object(),
        "array" => value.is_array(),
        "string" => value.is_string(),
        "boolean" => value.is_boolean(),
        "null" => value.is_null(),
        "number" => value.is_number(),
        "integer" => value.as_i64().is_some() || value.as_u64().is_some(),
        _ => true,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn what_breaks_the_schema_is_named() {
        let schema = json!({"type": "object", "required": ["n", "tags"], "additionalProperties": false,
                            "properties": {"n": {"type": "integer"},
                                           "tags": {"type": "array", "items": {"enum": ["a", "b"]}}}});
        assert!(check(&schema, &json!({"n": 3, "tags": ["a"]}), "$").is_empty());
        let problems = check(&schema, &json!({"n": 1.5, "tags": ["c"], "x": 1}), "$");
        assert_eq!(
            problems,
            vec![
                "$.n is not of type integer",
                "$.tags[0] is not one of [\"a\",\"b\"]",
                "$.x is not allowed"
            ]
        );
        assert_eq!(check(&schema, &json!({}), "$").len(), 2);
    }
}
