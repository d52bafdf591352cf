//! The id of a control request: a string, or a number.

use std::fmt;

use serde::de::{self, Visitor};
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::{Number, Value};

/// A control request's `request_id`. The CLI and the official SDKs write strings; other hosts
/// and agent servers write numbers (as JSON-RPC allows). Both are read, and an answer carries
/// the id back in the JSON type it came in, so `1` and `"1"` are different ids.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum RequestId {
    /// A string id, e.g. `req_1_6f3a`.
    Text(String),
    /// A numeric id.
    Number(Number),
}

impl RequestId {
    /// The id as a string, if it is one.
    pub fn as_str(&self) -> Option<&str> {
        match self {
            Self::Text(text) => Some(text),
            Self::Number(_) => None,
        }
    }

    /// Reads an id from any JSON value: a string or a number.
    pub fn from_value(value: &Value) -> Option<Self> {
        match value {
            Value::String(text) => Some(Self::Text(text.clone())),
            Value::Number(number) => Some(Self::Number(number.clone())),
            _ => None,
        }
    }
}

impl Default for RequestId {
    fn default() -> Self {
        Self::Text(String::new())
    }
}

impl fmt::Display for RequestId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Text(text) => f.write_str(text),
            Self::Number(number) => write!(f, "{number}"),
        }
    }
}

impl From<String> for RequestId {
    fn from(text: String) -> Self {
        Self::Text(text)
    }
}

impl From<&str> for RequestId {
    fn from(text: &str) -> Self {
        Self::Text(text.to_owned())
    }
}

impl From<&String> for RequestId {
    fn from(text: &String) -> Self {
        Self::Text(text.clone())
    }
}

impl From<u64> for RequestId {
    fn from(number: u64) -> Self {
        Self::Number(number.into())
    }
}

impl From<&RequestId> for RequestId {
    fn from(id: &RequestId) -> Self {
        id.clone()
    }
}

impl PartialEq<str> for RequestId {
    fn eq(&self, other: &str) -> bool {
        self.as_str() == Some(other)
    }
}

impl PartialEq<&str> for RequestId {
    fn eq(&self, other: &&str) -> bool {
        self.as_str() == Some(*other)
    }
}

impl PartialEq<String> for RequestId {
    fn eq(&self, other: &String) -> bool {
        self.as_str() == Some(other.as_str())
    }
}

impl Serialize for RequestId {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            Self::Text(text) => serializer.serialize_str(text),
            Self::Number(number) => number.serialize(serializer),
        }
    }
}

impl<'de> Deserialize<'de> for RequestId {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_any(IdVisitor)
    }
}

struct IdVisitor;

impl Visitor<'_> for IdVisitor {
    type Value = RequestId;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a request id (a string or a number)")
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<RequestId, E> {
        Ok(RequestId::Text(v.to_owned()))
    }

    fn visit_string<E: de::Error>(self, v: String) -> Result<RequestId, E> {
        Ok(RequestId::Text(v))
    }

    fn visit_u64<E: de::Error>(self, v: u64) -> Result<RequestId, E> {
        Ok(RequestId::Number(v.into()))
    }

    fn visit_i64<E: de::Error>(self, v: i64) -> Result<RequestId, E> {
        Ok(RequestId::Number(v.into()))
    }

    fn visit_f64<E: de::Error>(self, v: f64) -> Result<RequestId, E> {
        Number::from_f64(v)
            .map(RequestId::Number)
            .ok_or_else(|| E::custom("a request id that is not a finite number"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strings_and_numbers_round_trip_in_their_own_type() {
        for text in [r#""req_1""#, "7", "-2", "1.5"] {
            let id: RequestId = serde_json::from_str(text).unwrap();
            assert_eq!(serde_json::to_string(&id).unwrap(), text);
        }
        let one: RequestId = serde_json::from_str("1").unwrap();
        let text_one: RequestId = serde_json::from_str(r#""1""#).unwrap();
        assert_ne!(one, text_one);
        assert_eq!(text_one, "1");
        assert!(serde_json::from_str::<RequestId>("null").is_err());
        assert!(serde_json::from_str::<RequestId>("true").is_err());
    }
}
