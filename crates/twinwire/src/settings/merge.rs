//! How the CLI merges one settings source into those below it.

use serde_json::{Map, Value};

/// Merges `over` into `base`: objects key by key, lists joined (a text, number, boolean or
/// null already in the list is not added again; objects and lists always are), anything else
/// replaced.
pub(super) fn merge_into(base: &mut Map<String, Value>, over: &Map<String, Value>) {
    for (key, value) in over {
        match (base.get_mut(key), value) {
            (Some(Value::Object(below)), Value::Object(above)) => merge_into(below, above),
            (Some(Value::Array(below)), Value::Array(above)) => {
                for item in above {
                    let scalar = !matches!(item, Value::Object(_) | Value::Array(_));
                    if !(scalar && below.contains(item)) {
                        below.push(item.clone());
                    }
                }
            }
            _ => {
                base.insert(key.clone(), value.clone());
            }
        }
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use serde_json::json;

    use super::*;

    fn merged(base: Value, over: Value) -> Value {
        let mut base = base.as_object().unwrap().clone();
        merge_into(&mut base, over.as_object().unwrap());
        Value::Object(base)
    }

    #[test]
    fn objects_merge_lists_join_scalars_are_replaced() {
        assert_eq!(
            merged(
                json!({"o": {"a": 1, "l": [1]}, "l": [1, {"x": 1}], "s": 5, "r": [1]}),
                json!({"o": {"l": [2, 1]}, "l": [{"x": 1}, 2], "s": null, "r": "text"})
            ),
            json!({"o": {"a": 1, "l": [1, 2]}, "l": [1, {"x": 1}, {"x": 1}, 2], "s": null,
                   "r": "text"})
        );
    }
}
