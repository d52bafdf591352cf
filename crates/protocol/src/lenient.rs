//! The liberal reader: how a frame that does not fit the schema is still read.
//!
//! Reading a line has two paths.
//!
//! - **Strict, fast.** serde's derive reads the line straight into the typed value, as the CLI
//!   writes it. Almost every frame takes this path, and it costs nothing extra.
//! - **Lenient, slow.** When the strict read fails, the line is parsed as a JSON tree and read
//!   again with every union in lenient mode, and a repair loop fixes what does not fit, one
//!   field at a time: the failing field's path comes from `serde_path_to_error`, the field is
//!   coerced when that loses nothing (`10.0` or `"10"` for an integer, `5` for a string,
//!   `"true"` for a boolean, one value where a list is expected) and removed otherwise (it then
//!   reads as its default; `null` for a required value is removed). Each union is its own
//!   repair boundary: a content block, a hook input, a stream event that still cannot be typed
//!   becomes that union's `Malformed` variant (its tag, its raw JSON, the error), inside a
//!   message that is otherwise typed; a tag nobody knows stays `Unknown`.
//!
//! Every change is recorded as a [`Repair`], with the value as received, so nothing is lost
//! silently: [`Decoded::repairs`] lists them.
//!
//! The work is bounded: at most [`MAX_REPAIRS_PER_OBJECT`] repairs per union object and
//! [`MAX_ATTEMPTS`] typed reads per line; past that the object is kept raw as `Malformed`.

use std::cell::{Cell, RefCell};
use std::fmt;

use serde::de::DeserializeOwned;
use serde_json::{Map, Number, Value};
use serde_path_to_error::{Segment, Track};

/// How many fields one union object (or the root of a non-union value) may have repaired
/// before it is given up as `Malformed`.
pub const MAX_REPAIRS_PER_OBJECT: usize = 64;

/// How many typed reads one lenient decode may make in all (nested repair loops re-read their
/// object after each repair), so that a hostile line costs bounded work.
pub const MAX_ATTEMPTS: usize = 2048;

thread_local! {
    /// Whether unions read leniently (set only on the slow path, never on the fast one).
    static LENIENT: Cell<bool> = const { Cell::new(false) };
    /// Typed reads left for the current lenient decode.
    static ATTEMPTS_LEFT: Cell<usize> = const { Cell::new(0) };
    /// Repairs made by the current lenient decode, innermost loops included.
    static LOG: RefCell<Vec<Repair>> = const { RefCell::new(Vec::new()) };
}

/// Whether the current thread is reading leniently (the slow path).
#[inline]
pub(crate) fn is_active() -> bool {
    LENIENT.with(Cell::get)
}

/// A value read by the liberal reader, with every change it took to read it.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct Decoded<T> {
    /// The typed value.
    pub value: T,
    /// What had to change for it to be read, in order; empty when the line fit the schema.
    pub repairs: Vec<Repair>,
}

/// One change the liberal reader made to a value that did not fit the schema.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct Repair {
    /// The union object it happened in, e.g. ``content block `text` `` (empty at the root).
    pub within: String,
    /// The path inside that object, e.g. `usage.input_tokens` (`.` for the object itself).
    pub path: String,
    /// The value as received.
    pub received: Value,
    /// What was done with it.
    pub action: RepairAction,
}

/// What the liberal reader did with a value that did not fit.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum RepairAction {
    /// Read as this value instead (a lossless coercion: `"10"` → `10`, `10.0` → `10`).
    Replaced(Value),
    /// Left out, so the field reads as its default (`null`, a wrong type, a number out of range).
    Removed,
    /// The whole object was kept raw, as its union's `Malformed` variant, for this reason.
    KeptRaw(String),
}

impl fmt::Display for Repair {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if !self.within.is_empty() {
            write!(f, "in {}: ", self.within)?;
        }
        write!(f, "`{}`: {} ", self.path, preview(&self.received))?;
        match &self.action {
            RepairAction::Replaced(value) => write!(f, "read as {}", preview(value)),
            RepairAction::Removed => f.write_str("left out (read as its default)"),
            RepairAction::KeptRaw(why) => write!(f, "kept raw ({why})"),
        }
    }
}

fn preview(value: &Value) -> String {
    const MAX: usize = 40;
    let text = value.to_string();
    match text.char_indices().nth(MAX) {
        Some((end, _)) => format!("{}…", &text[..end]),
        None => text,
    }
}

/// Why a value could not be read even leniently.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Failure {
    /// Where, e.g. `message.content` (`.` for the root).
    pub(crate) path: String,
    /// What serde said.
    pub(crate) message: String,
}

/// Turns lenient mode on for the current thread until dropped, with a fresh budget and log at
/// the outermost level.
struct Session {
    outermost: bool,
}

impl Session {
    fn enter() -> Self {
        let outermost = !LENIENT.with(|l| l.replace(true));
        if outermost {
            ATTEMPTS_LEFT.with(|a| a.set(MAX_ATTEMPTS));
            LOG.with(|log| log.borrow_mut().clear());
        }
        Self { outermost }
    }

    fn take_log(&self) -> Vec<Repair> {
        LOG.with(|log| std::mem::take(&mut *log.borrow_mut()))
    }
}

impl Drop for Session {
    fn drop(&mut self) {
        if self.outermost {
            LENIENT.with(|l| l.set(false));
        }
    }
}

/// Reads `value` as `T` on the lenient path: unions lenient, the root repaired field by field.
pub(crate) fn read_value<T: DeserializeOwned>(mut value: Value) -> Result<Decoded<T>, Failure> {
    let session = Session::enter();
    let outcome = repair_loop(&mut value, "", |value, track| {
        T::deserialize(serde_path_to_error::Deserializer::new(value, track))
    });
    let repairs = session.take_log();
    outcome.map(|value| Decoded { value, repairs })
}

/// Records that a union object was kept raw (called by the lenient union reader).
pub(crate) fn record_kept_raw(within: &str, received: &Value, failure: &Failure) {
    push(Repair {
        within: within.to_owned(),
        path: failure.path.clone(),
        received: received.clone(),
        action: RepairAction::KeptRaw(failure.message.clone()),
    });
}

fn push(repair: Repair) {
    LOG.with(|log| log.borrow_mut().push(repair));
}

fn log_len() -> usize {
    LOG.with(|log| log.borrow().len())
}

fn truncate_log(len: usize) {
    LOG.with(|log| log.borrow_mut().truncate(len));
}

/// Reads `value` with `attempt`, repairing the field each failure points at, until the read
/// succeeds or a failure cannot be repaired. The repairs of inner loops made by the last,
/// successful attempt stay in the log after this loop's own.
pub(crate) fn repair_loop<T>(
    value: &mut Value,
    within: &str,
    mut attempt: impl FnMut(&Value, &mut Track) -> Result<T, serde_json::Error>,
) -> Result<T, Failure> {
    let base = log_len();
    let mut own: Vec<Repair> = Vec::new();
    let mut last_coerced: Option<String> = None;
    loop {
        if ATTEMPTS_LEFT.with(|left| left.replace(left.get().saturating_sub(1))) == 0 {
            truncate_log(base);
            return Err(Failure {
                path: ".".to_owned(),
                message: format!("gave up after {MAX_ATTEMPTS} attempts to read the line"),
            });
        }
        truncate_log(base);
        let mut track = Track::new();
        let error = match attempt(value, &mut track) {
            Ok(typed) => {
                LOG.with(|log| {
                    let mut log = log.borrow_mut();
                    let inner = log.split_off(base);
                    log.extend(own);
                    log.extend(inner);
                });
                return Ok(typed);
            }
            Err(error) => error,
        };
        let path = track.path();
        let shown = path_text(&path);
        let message = error.to_string();
        if own.len() >= MAX_REPAIRS_PER_OBJECT {
            truncate_log(base);
            return Err(Failure {
                path: shown,
                message: format!("{message} (after {MAX_REPAIRS_PER_OBJECT} repairs)"),
            });
        }
        // A coercion that did not help is undone by removing the field instead.
        let coerce = last_coerced.as_deref() != Some(shown.as_str());
        match fix(value, &path, &message, coerce) {
            Some((received, action)) => {
                last_coerced = matches!(action, RepairAction::Replaced(_)).then(|| shown.clone());
                own.push(Repair {
                    within: within.to_owned(),
                    path: shown,
                    received,
                    action,
                });
            }
            None => {
                truncate_log(base);
                return Err(Failure {
                    path: shown,
                    message,
                });
            }
        }
    }
}

fn path_text(path: &serde_path_to_error::Path) -> String {
    let text = path.to_string();
    if text.is_empty() {
        ".".to_owned()
    } else {
        text
    }
}

/// Where a field lives: its container and its key or index.
enum Slot {
    Key(String),
    Index(usize),
}

/// Repairs the value at `path` given serde's `message` about it; returns what was there and
/// what was done, or `None` when nothing can be done (the root itself, a missing required
/// field, a path that cannot be followed).
fn fix(
    root: &mut Value,
    path: &serde_path_to_error::Path,
    message: &str,
    coerce: bool,
) -> Option<(Value, RepairAction)> {
    if message.starts_with("missing field") {
        return None;
    }
    let segments: Vec<&Segment> = path.iter().collect();
    let (last, parents) = segments.split_last()?;
    let mut container = root;
    for segment in parents {
        container = match segment {
            Segment::Map { key } => container.as_object_mut()?.get_mut(key.as_str())?,
            Segment::Seq { index } => container.as_array_mut()?.get_mut(*index)?,
            _ => return None,
        };
    }
    let slot = match last {
        Segment::Map { key } => Slot::Key(key.clone()),
        Segment::Seq { index } => Slot::Index(*index),
        _ => return None,
    };
    let node = match (&slot, &mut *container) {
        (Slot::Key(key), Value::Object(map)) => map.get_mut(key.as_str())?,
        (Slot::Index(index), Value::Array(items)) => items.get_mut(*index)?,
        _ => return None,
    };
    let received = node.clone();
    if coerce {
        if let Some(replacement) = coerced(node, expected(message)) {
            *node = replacement.clone();
            return Some((received, RepairAction::Replaced(replacement)));
        }
    }
    match (slot, container) {
        (Slot::Key(key), Value::Object(map)) => {
            map.remove(&key);
        }
        (Slot::Index(index), Value::Array(items)) => {
            items.remove(index);
        }
        _ => return None,
    }
    Some((received, RepairAction::Removed))
}

/// What serde said it wanted, from `invalid type: …, expected X` and similar messages.
fn expected(message: &str) -> Wanted {
    let wanted = message
        .rsplit_once("expected ")
        .map(|(_, wanted)| wanted)
        .unwrap_or_default();
    let has = |words: &[&str]| words.iter().any(|word| wanted.contains(word));
    Wanted {
        integer: has(&[
            "u8", "u16", "u32", "u64", "u128", "i8", "i16", "i32", "i64", "i128", "usize", "isize",
            "integer",
        ]),
        float: has(&["f32", "f64", "float", "number"]),
        string: has(&["string", "char"]),
        boolean: has(&["bool"]),
        sequence: has(&["sequence", "array", "list", "tuple"]),
    }
}

#[derive(Debug, Clone, Copy, Default)]
struct Wanted {
    integer: bool,
    float: bool,
    string: bool,
    boolean: bool,
    sequence: bool,
}

/// A lossless replacement of `node` of the kind that was wanted, if there is one.
fn coerced(node: &Value, wanted: Wanted) -> Option<Value> {
    match node {
        Value::Null => None,
        Value::Number(number) => {
            if wanted.integer {
                return integral(number.as_f64()?).map(Value::Number);
            }
            if wanted.string {
                return Some(Value::String(number.to_string()));
            }
            if wanted.boolean {
                return match number.as_u64() {
                    Some(0) => Some(Value::Bool(false)),
                    Some(1) => Some(Value::Bool(true)),
                    _ => None,
                };
            }
            wanted.sequence.then(|| Value::Array(vec![node.clone()]))
        }
        Value::String(text) => {
            let text = text.trim();
            if wanted.integer {
                if let Ok(n) = text.parse::<u64>() {
                    return Some(Value::Number(n.into()));
                }
                if let Ok(n) = text.parse::<i64>() {
                    return Some(Value::Number(n.into()));
                }
                return integral(text.parse::<f64>().ok()?).map(Value::Number);
            }
            if wanted.float {
                let float = text.parse::<f64>().ok()?;
                return Number::from_f64(float).map(Value::Number);
            }
            if wanted.boolean {
                return match text {
                    "true" => Some(Value::Bool(true)),
                    "false" => Some(Value::Bool(false)),
                    _ => None,
                };
            }
            wanted.sequence.then(|| Value::Array(vec![node.clone()]))
        }
        Value::Bool(flag) => {
            if wanted.string {
                return Some(Value::String(flag.to_string()));
            }
            wanted.sequence.then(|| Value::Array(vec![node.clone()]))
        }
        Value::Object(_) => wanted.sequence.then(|| Value::Array(vec![node.clone()])),
        Value::Array(_) => None,
    }
}

/// `float` as an integer when it is one and fits (`10.0` → `10`); `None` otherwise.
fn integral(float: f64) -> Option<Number> {
    if !float.is_finite() || float.fract() != 0.0 {
        return None;
    }
    // Exact bounds: every integer-valued f64 in these ranges converts without loss.
    if (0.0..18_446_744_073_709_551_616.0).contains(&float) {
        return Some(Number::from(float as u64));
    }
    if (-9_223_372_036_854_775_808.0..0.0).contains(&float) {
        return Some(Number::from(float as i64));
    }
    None
}

/// Reads an object of a union leniently (the slow path of every tagged union): a known tag
/// with a payload that still cannot be typed after repairs becomes `Err` with why, which the
/// union keeps as its `Malformed` variant.
pub(crate) fn read_variant<T>(
    object: &Map<String, Value>,
    tag_field: &str,
    within: &str,
    attempt: impl FnMut(&Value, &mut Track) -> Result<T, serde_json::Error>,
) -> Result<T, Failure> {
    let body: Map<String, Value> = object
        .iter()
        .filter(|(key, _)| key.as_str() != tag_field)
        .map(|(key, value)| (key.clone(), value.clone()))
        .collect();
    let mut body = Value::Object(body);
    repair_loop(&mut body, within, attempt)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn integers_from_floats_and_strings_only_when_lossless() {
        let int = Wanted {
            integer: true,
            ..Wanted::default()
        };
        assert_eq!(
            coerced(&serde_json::json!(10.0), int),
            Some(serde_json::json!(10))
        );
        assert_eq!(
            coerced(&serde_json::json!("10"), int),
            Some(serde_json::json!(10))
        );
        assert_eq!(
            coerced(&serde_json::json!("-3"), int),
            Some(serde_json::json!(-3))
        );
        assert_eq!(
            coerced(&serde_json::json!(" 7 "), int),
            Some(serde_json::json!(7))
        );
        assert_eq!(coerced(&serde_json::json!(10.5), int), None);
        assert_eq!(coerced(&serde_json::json!(1e30), int), None);
        assert_eq!(coerced(&serde_json::json!("ten"), int), None);
        assert_eq!(coerced(&Value::Null, int), None);
    }

    #[test]
    fn strings_booleans_and_lists() {
        let string = Wanted {
            string: true,
            ..Wanted::default()
        };
        assert_eq!(
            coerced(&serde_json::json!(5), string),
            Some(serde_json::json!("5"))
        );
        assert_eq!(
            coerced(&serde_json::json!(true), string),
            Some(serde_json::json!("true"))
        );
        let boolean = Wanted {
            boolean: true,
            ..Wanted::default()
        };
        assert_eq!(
            coerced(&serde_json::json!("false"), boolean),
            Some(serde_json::json!(false))
        );
        assert_eq!(
            coerced(&serde_json::json!(1), boolean),
            Some(serde_json::json!(true))
        );
        assert_eq!(coerced(&serde_json::json!(2), boolean), None);
        let list = Wanted {
            sequence: true,
            ..Wanted::default()
        };
        assert_eq!(
            coerced(&serde_json::json!("a"), list),
            Some(serde_json::json!(["a"]))
        );
        assert_eq!(coerced(&serde_json::json!([1]), list), None);
    }

    #[test]
    fn expectations_are_read_from_serde_messages() {
        let wanted = expected("invalid type: floating point `10.5`, expected u64");
        assert!(wanted.integer && !wanted.string);
        let wanted = expected("invalid type: integer `5`, expected a string");
        assert!(wanted.string && !wanted.integer);
        let wanted = expected("invalid type: string \"x\", expected a sequence");
        assert!(wanted.sequence);
    }
}
