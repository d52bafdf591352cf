//! JSON that keeps its objects' keys in the order they came, for files the tools rewrite
//! (notebooks): a notebook edited keeps its keys where they were, as Claude Code keeps them,
//! and is written as `JSON.stringify(value, null, 1)` writes it.

use std::fmt;

use serde::de::{Deserialize, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_json::Value;

/// A JSON value whose objects keep their keys' order.
#[derive(Debug, Clone, PartialEq)]
pub enum Ordered {
    /// Anything but an object or an array.
    Plain(Value),
    /// An array.
    Array(Vec<Ordered>),
    /// An object, its keys in order.
    Object(Vec<(String, Ordered)>),
}

impl Ordered {
    /// Parses JSON text.
    pub fn parse(text: &str) -> Result<Self, serde_json::Error> {
        serde_json::from_str(text)
    }

    /// A field of an object.
    pub fn get(&self, key: &str) -> Option<&Ordered> {
        match self {
            Ordered::Object(fields) => fields.iter().find(|(k, _)| k == key).map(|(_, v)| v),
            _ => None,
        }
    }

    /// A field of an object, to change.
    pub fn get_mut(&mut self, key: &str) -> Option<&mut Ordered> {
        match self {
            Ordered::Object(fields) => fields.iter_mut().find(|(k, _)| k == key).map(|(_, v)| v),
            _ => None,
        }
    }

    /// Sets a field, in its place or at the end.
    pub fn set(&mut self, key: &str, value: Ordered) {
        if let Ordered::Object(fields) = self {
            match fields.iter_mut().find(|(k, _)| k == key) {
                Some((_, slot)) => *slot = value,
                None => fields.push((key.to_owned(), value)),
            }
        }
    }

    /// The value without its order.
    pub fn to_value(&self) -> Value {
        match self {
            Ordered::Plain(value) => value.clone(),
            Ordered::Array(items) => Value::Array(items.iter().map(Ordered::to_value).collect()),
            Ordered::Object(fields) => Value::Object(
                fields
                    .iter()
                    .map(|(k, v)| (k.clone(), v.to_value()))
                    .collect(),
            ),
        }
    }

    /// A string or a number as it is.
    pub fn plain(value: impl Into<Value>) -> Self {
        Ordered::Plain(value.into())
    }

    /// The text `JSON.stringify(value, null, 1)` gives.
    pub fn pretty(&self) -> String {
        let mut out = String::new();
        self.write(&mut out, 0);
        out
    }

    fn write(&self, out: &mut String, depth: usize) {
        let pad = |depth: usize| " ".repeat(depth);
        match self {
            Ordered::Plain(value) => out.push_str(&value.to_string()),
            Ordered::Array(items) if items.is_empty() => out.push_str("[]"),
            Ordered::Object(fields) if fields.is_empty() => out.push_str("{}"),
            Ordered::Array(items) => {
                out.push_str("[\n");
                for (i, item) in items.iter().enumerate() {
                    out.push_str(&pad(depth + 1));
                    item.write(out, depth + 1);
                    out.push_str(if i + 1 < items.len() { ",\n" } else { "\n" });
                }
                out.push_str(&pad(depth));
                out.push(']');
            }
            Ordered::Object(fields) => {
                out.push_str("{\n");
                for (i, (key, value)) in fields.iter().enumerate() {
                    out.push_str(&pad(depth + 1));
                    out.push_str(&Value::String(key.clone()).to_string());
                    out.push_str(": ");
                    value.write(out, depth + 1);
                    out.push_str(if i + 1 < fields.len() { ",\n" } else { "\n" });
                }
                out.push_str(&pad(depth));
                out.push('}');
            }
        }
    }
}

impl<'de> Deserialize<'de> for Ordered {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_any(OrderedVisitor)
    }
}

struct OrderedVisitor;

impl<'de> Visitor<'de> for OrderedVisitor {
    type Value = Ordered;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("JSON")
    }

    fn visit_bool<E>(self, v: bool) -> Result<Ordered, E> {
        Ok(Ordered::Plain(Value::Bool(v)))
    }

    fn visit_i64<E>(self, v: i64) -> Result<Ordered, E> {
        Ok(Ordered::Plain(Value::from(v)))
    }

    fn visit_u64<E>(self, v: u64) -> Result<Ordered, E> {
        Ok(Ordered::Plain(Value::from(v)))
    }

    fn visit_f64<E>(self, v: f64) -> Result<Ordered, E> {
        Ok(Ordered::Plain(Value::from(v)))
    }

    fn visit_str<E>(self, v: &str) -> Result<Ordered, E> {
        Ok(Ordered::Plain(Value::String(v.to_owned())))
    }

    fn visit_string<E>(self, v: String) -> Result<Ordered, E> {
        Ok(Ordered::Plain(Value::String(v)))
    }

    fn visit_unit<E>(self) -> Result<Ordered, E> {
        Ok(Ordered::Plain(Value::Null))
    }

    fn visit_none<E>(self) -> Result<Ordered, E> {
        Ok(Ordered::Plain(Value::Null))
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Ordered, A::Error> {
        let mut items = Vec::new();
        while let Some(item) = seq.next_element()? {
            items.push(item);
        }
        Ok(Ordered::Array(items))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Ordered, A::Error> {
        let mut fields: Vec<(String, Ordered)> = Vec::new();
        while let Some((key, value)) = map.next_entry::<String, Ordered>()? {
            match fields.iter_mut().find(|(k, _)| *k == key) {
                Some((_, slot)) => *slot = value,
                None => fields.push((key, value)),
            }
        }
        Ok(Ordered::Object(fields))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_keep_their_order_and_print_as_javascript_does() {
        let value =
            Ordered::parse(r#"{"z": 1, "a": [1, {"y": null, "b": "é"}], "e": {}}"#).unwrap();
        assert_eq!(
            value.pretty(),
            "{\n \"z\": 1,\n \"a\": [\n  1,\n  {\n   \"y\": null,\n   \"b\": \"é\"\n  }\n ],\n \"e\": {}\n}"
        );
    }
}
