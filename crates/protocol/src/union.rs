//! The two building blocks of the schema: tagged unions that keep what they do not know, and
//! open string sets.
//!
//! A tagged union (`{"type": "assistant", …}`) is read in one pass: the visitor walks the object
//! until it meets the tag, keeping any entries seen before it, then hands the entries it kept
//! followed by the rest of the object to the variant's own `Deserialize`. Nothing is parsed
//! twice and no intermediate tree is built when, as the CLI does, the tag comes first. A tag the
//! union does not know becomes [`Unknown`], which holds the whole object and writes it back
//! unchanged.
//!
//! That is the strict, fast path: a known tag with a broken payload fails the read there. On the
//! lenient path (see [`crate::lenient`]) every union is read from a JSON tree instead, its
//! payload repaired field by field, and a payload that still cannot be typed (or an object with
//! no tag at all) becomes the union's `Malformed` variant: a [`Malformed`] with the tag, the raw
//! JSON and the error. A union never fails on the lenient path.

use std::borrow::Cow;
use std::fmt;
use std::marker::PhantomData;

use serde::de::{self, DeserializeSeed, IntoDeserializer, MapAccess, Visitor};
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::{Map, Value};

/// An object whose tag this version of the schema does not know, kept whole.
///
/// It serializes back to the JSON it was read from (as a value: key order may differ).
#[derive(Debug, Clone, PartialEq)]
pub struct Unknown {
    /// The value of the tag field (`type` or `subtype`, depending on the union).
    pub tag: String,
    /// The whole object, tag included.
    pub raw: Map<String, Value>,
}

impl Serialize for Unknown {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.raw.serialize(serializer)
    }
}

impl Unknown {
    /// Writes the object with its tag first (under `tag_field`), then the rest as it was, as
    /// the known variants are written.
    #[doc(hidden)]
    pub fn serialize_tag_first<S: Serializer>(
        &self,
        tag_field: &str,
        serializer: S,
    ) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let mut map = serializer.serialize_map(None)?;
        map.serialize_entry(tag_field, &self.tag)?;
        for (key, value) in self.raw.iter().filter(|(key, _)| *key != tag_field) {
            map.serialize_entry(key, value)?;
        }
        map.end()
    }
}

/// A union object whose tag is known (or missing) but whose payload could not be typed, even
/// leniently: kept whole, with what went wrong.
///
/// It serializes back to the JSON it was read from (as a value: key order may differ).
#[derive(Debug, Clone, PartialEq)]
pub struct Malformed {
    /// The value of the tag field as received; empty when it is missing or not a string.
    pub tag: String,
    /// The value as received.
    pub raw: Value,
    /// Where in the value typing failed, e.g. `message.content` (`.` for the value itself).
    pub path: String,
    /// Why it failed.
    pub message: String,
}

impl Malformed {
    /// The raw value as an object, if it is one.
    pub fn object(&self) -> Option<&Map<String, Value>> {
        self.raw.as_object()
    }

    /// A string field of the raw value, e.g. `subtype`.
    pub fn str_field(&self, key: &str) -> Option<&str> {
        self.raw.get(key).and_then(Value::as_str)
    }
}

impl fmt::Display for Malformed {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let tag = if self.tag.is_empty() { "?" } else { &self.tag };
        write!(f, "`{tag}` malformed at `{}`: {}", self.path, self.message)
    }
}

impl Serialize for Malformed {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.raw.serialize(serializer)
    }
}

/// Implemented by every union the [`tagged_union!`] macro declares.
#[doc(hidden)]
pub trait TaggedUnion: Sized {
    /// The field that carries the tag, e.g. `type`.
    const TAG_FIELD: &'static str;
    /// What the union is called in error messages, e.g. `message`.
    const NAME: &'static str;
    /// Whether `tag` names a variant of this union.
    fn is_known(tag: &str) -> bool;
    /// Reads the variant named by `tag` (which [`Self::is_known`] accepted) from the object's
    /// remaining entries.
    fn deserialize_variant<'de, D: Deserializer<'de>>(tag: &str, de: D) -> Result<Self, D::Error>;
    /// Wraps an object with an unknown tag.
    fn unknown(unknown: Unknown) -> Self;
    /// Wraps an object whose payload could not be typed.
    fn malformed(malformed: Malformed) -> Self;
}

/// Deserializes a [`TaggedUnion`] from any self-describing deserializer.
#[doc(hidden)]
pub fn deserialize_union<'de, U: TaggedUnion, D: Deserializer<'de>>(
    deserializer: D,
) -> Result<U, D::Error> {
    if crate::lenient::is_active() {
        let raw = Value::deserialize(deserializer)?;
        return Ok(read_leniently(raw));
    }
    deserializer.deserialize_map(UnionVisitor(PhantomData))
}

/// The lenient path: never fails; what cannot be typed is kept as `Malformed`.
fn read_leniently<U: TaggedUnion>(raw: Value) -> U {
    let what = U::NAME;
    let object = match raw {
        Value::Object(object) => object,
        other => {
            let message = format!("expected a {what} object");
            return kept_raw(what, String::new(), other, ".", message);
        }
    };
    let tag = match object.get(U::TAG_FIELD) {
        Some(Value::String(tag)) => tag.clone(),
        _ => {
            let message = format!("missing field `{}`", U::TAG_FIELD);
            return kept_raw(what, String::new(), Value::Object(object), ".", message);
        }
    };
    if !U::is_known(&tag) {
        return U::unknown(Unknown { tag, raw: object });
    }
    let within = format!("{what} `{tag}`");
    let read = crate::lenient::read_variant(&object, U::TAG_FIELD, &within, |body, track| {
        U::deserialize_variant(&tag, serde_path_to_error::Deserializer::new(body, track))
    });
    match read {
        Ok(union) => union,
        Err(failure) => kept_raw(
            what,
            tag,
            Value::Object(object),
            &failure.path,
            failure.message,
        ),
    }
}

fn kept_raw<U: TaggedUnion>(what: &str, tag: String, raw: Value, path: &str, message: String) -> U {
    let within = if tag.is_empty() {
        what.to_owned()
    } else {
        format!("{what} `{tag}`")
    };
    let failure = crate::lenient::Failure {
        path: path.to_owned(),
        message,
    };
    crate::lenient::record_kept_raw(&within, &raw, &failure);
    U::malformed(Malformed {
        tag,
        raw,
        path: failure.path,
        message: failure.message,
    })
}

struct UnionVisitor<U>(PhantomData<U>);

impl<'de, U: TaggedUnion> Visitor<'de> for UnionVisitor<U> {
    type Value = U;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        write!(f, "a {} object with a `{}` field", U::NAME, U::TAG_FIELD)
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<U, A::Error> {
        let mut before_tag: Vec<(String, Value)> = Vec::new();
        let tag = loop {
            match map.next_key_seed(KeySeed(U::TAG_FIELD))? {
                Some(Key::Tag) => break map.next_value_seed(TagSeed)?,
                Some(Key::Other(key)) => before_tag.push((key, map.next_value()?)),
                None => return Err(de::Error::missing_field(U::TAG_FIELD)),
            }
        };
        if U::is_known(&tag) {
            // A second tag fails the fast path, so that the frame is read from a JSON tree,
            // where the last one wins, as in `JSON.parse` (the CLI's and the SDKs' reading).
            let map = TagOnce {
                inner: map,
                tag: U::TAG_FIELD,
            };
            if before_tag.is_empty() {
                // The usual case (the CLI writes the tag first): nothing to replay.
                return U::deserialize_variant(&tag, de::value::MapAccessDeserializer::new(map));
            }
            let rest = ReplayThenRest {
                replay: before_tag.into_iter(),
                pending: None,
                rest: map,
            };
            return U::deserialize_variant(&tag, de::value::MapAccessDeserializer::new(rest));
        }
        let tag = tag.into_owned();
        let mut raw = Map::new();
        raw.insert(U::TAG_FIELD.to_owned(), Value::String(tag.clone()));
        raw.extend(before_tag);
        while let Some((key, value)) = map.next_entry::<String, Value>()? {
            if key == U::TAG_FIELD {
                return Err(de::Error::duplicate_field(U::TAG_FIELD));
            }
            raw.insert(key, value);
        }
        Ok(U::unknown(Unknown { tag, raw }))
    }
}

/// Reads a tag's value borrowed from the input when it can be (no escapes), so that reading
/// the tag of every frame and of every nested union costs no allocation (serde's own
/// `Deserialize` for `Cow` always copies).
struct TagSeed;

impl<'de> DeserializeSeed<'de> for TagSeed {
    type Value = Cow<'de, str>;
    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Self::Value, D::Error> {
        deserializer.deserialize_str(self)
    }
}

impl<'de> Visitor<'de> for TagSeed {
    type Value = Cow<'de, str>;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a string tag")
    }
    fn visit_borrowed_str<E: de::Error>(self, v: &'de str) -> Result<Self::Value, E> {
        Ok(Cow::Borrowed(v))
    }
    fn visit_str<E: de::Error>(self, v: &str) -> Result<Self::Value, E> {
        Ok(Cow::Owned(v.to_owned()))
    }
    fn visit_string<E: de::Error>(self, v: String) -> Result<Self::Value, E> {
        Ok(Cow::Owned(v))
    }
}

enum Key {
    Tag,
    Other(String),
}

/// Reads one map key, recognising the tag field without allocating for it.
struct KeySeed(&'static str);

impl<'de> DeserializeSeed<'de> for KeySeed {
    type Value = Key;
    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Key, D::Error> {
        deserializer.deserialize_str(self)
    }
}

impl Visitor<'_> for KeySeed {
    type Value = Key;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a field name")
    }
    fn visit_str<E: de::Error>(self, v: &str) -> Result<Key, E> {
        Ok(if v == self.0 {
            Key::Tag
        } else {
            Key::Other(v.to_owned())
        })
    }
}

/// The rest of a map after its tag, refusing the tag a second time. A key costs one string
/// comparison more; it is still read borrowed from the input when it has no escapes.
struct TagOnce<A> {
    inner: A,
    tag: &'static str,
}

impl<'de, A: MapAccess<'de>> MapAccess<'de> for TagOnce<A> {
    type Error = A::Error;

    fn next_key_seed<K: DeserializeSeed<'de>>(
        &mut self,
        seed: K,
    ) -> Result<Option<K::Value>, A::Error> {
        self.inner.next_key_seed(NotTheTag {
            seed,
            tag: self.tag,
        })
    }

    fn next_value_seed<V: DeserializeSeed<'de>>(&mut self, seed: V) -> Result<V::Value, A::Error> {
        self.inner.next_value_seed(seed)
    }

    fn size_hint(&self) -> Option<usize> {
        self.inner.size_hint()
    }
}

/// A key seed that fails on the tag and hands any other key to the seed it wraps.
struct NotTheTag<K> {
    seed: K,
    tag: &'static str,
}

impl<'de, K: DeserializeSeed<'de>> DeserializeSeed<'de> for NotTheTag<K> {
    type Value = K::Value;
    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<K::Value, D::Error> {
        deserializer.deserialize_str(self)
    }
}

impl<'de, K: DeserializeSeed<'de>> Visitor<'de> for NotTheTag<K> {
    type Value = K::Value;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a field name")
    }
    fn visit_borrowed_str<E: de::Error>(self, v: &'de str) -> Result<K::Value, E> {
        if v == self.tag {
            return Err(E::duplicate_field(self.tag));
        }
        self.seed
            .deserialize(de::value::BorrowedStrDeserializer::new(v))
    }
    fn visit_str<E: de::Error>(self, v: &str) -> Result<K::Value, E> {
        if v == self.tag {
            return Err(E::duplicate_field(self.tag));
        }
        self.seed.deserialize(de::value::StrDeserializer::new(v))
    }
    fn visit_string<E: de::Error>(self, v: String) -> Result<K::Value, E> {
        if v == self.tag {
            return Err(E::duplicate_field(self.tag));
        }
        self.seed.deserialize(de::value::StringDeserializer::new(v))
    }
}

/// The entries seen before the tag, replayed, followed by the rest of the live map.
struct ReplayThenRest<A> {
    replay: std::vec::IntoIter<(String, Value)>,
    pending: Option<Value>,
    rest: A,
}

impl<'de, A: MapAccess<'de>> MapAccess<'de> for ReplayThenRest<A> {
    type Error = A::Error;

    fn next_key_seed<K: DeserializeSeed<'de>>(
        &mut self,
        seed: K,
    ) -> Result<Option<K::Value>, A::Error> {
        match self.replay.next() {
            Some((key, value)) => {
                self.pending = Some(value);
                let key: de::value::StringDeserializer<A::Error> = key.into_deserializer();
                seed.deserialize(key).map(Some)
            }
            None => self.rest.next_key_seed(seed),
        }
    }

    fn next_value_seed<V: DeserializeSeed<'de>>(&mut self, seed: V) -> Result<V::Value, A::Error> {
        match self.pending.take() {
            Some(value) => seed.deserialize(value).map_err(de::Error::custom),
            None => self.rest.next_value_seed(seed),
        }
    }

    fn size_hint(&self) -> Option<usize> {
        None
    }
}

/// Declares a tagged union: an enum with one newtype variant per known tag and an
/// `Unknown(Unknown)` variant for the rest, with `Serialize`/`Deserialize` that put the tag
/// back in front of the variant's fields.
///
/// ```ignore
/// tagged_union! {
///     /// Docs.
///     pub enum ContentBlock: "type", "content block" {
///         /// Docs.
///         "text" => Text(TextBlock),
///     }
/// }
/// ```
#[macro_export]
#[doc(hidden)]
macro_rules! tagged_union {
    (
        $(#[$meta:meta])*
        pub enum $name:ident : $tag_field:literal, $what:literal {
            $( $(#[$vmeta:meta])* $wire:literal => $variant:ident($ty:ty) ),* $(,)?
        }
    ) => {
        $(#[$meta])*
        #[derive(Debug, Clone, PartialEq)]
        #[non_exhaustive]
        pub enum $name {
            $( $(#[$vmeta])* $variant($ty), )*
            /// A tag this version does not know, kept whole.
            Unknown($crate::Unknown),
            /// A known tag (or none) whose payload could not be typed even leniently, kept
            /// whole with the error.
            Malformed(Box<$crate::Malformed>),
        }

        impl $name {
            /// Every tag this union knows, as written on the wire.
            pub const KNOWN_TAGS: &'static [&'static str] = &[$($wire),*];

            /// The tag as written on the wire.
            pub fn tag(&self) -> &str {
                match self {
                    $( Self::$variant(_) => $wire, )*
                    Self::Unknown(unknown) => &unknown.tag,
                    Self::Malformed(malformed) => &malformed.tag,
                }
            }

            /// The object if its payload could not be typed.
            pub fn as_malformed(&self) -> Option<&$crate::Malformed> {
                match self {
                    Self::Malformed(malformed) => Some(malformed),
                    _ => None,
                }
            }

            /// The object if its tag is unknown to this version.
            pub fn as_unknown(&self) -> Option<&$crate::Unknown> {
                match self {
                    Self::Unknown(unknown) => Some(unknown),
                    _ => None,
                }
            }
        }

        $(
            impl From<$ty> for $name {
                fn from(value: $ty) -> Self {
                    Self::$variant(value)
                }
            }
        )*

        impl $crate::union::TaggedUnion for $name {
            const TAG_FIELD: &'static str = $tag_field;
            const NAME: &'static str = $what;

            fn is_known(tag: &str) -> bool {
                matches!(tag, $($wire)|*)
            }

            fn deserialize_variant<'de, D: ::serde::Deserializer<'de>>(
                tag: &str,
                de: D,
            ) -> ::std::result::Result<Self, D::Error> {
                match tag {
                    $( $wire => <$ty as ::serde::Deserialize>::deserialize(de).map(Self::$variant), )*
                    other => Err(<D::Error as ::serde::de::Error>::custom(
                        format_args!("unknown {} `{}`", $what, other),
                    )),
                }
            }

            fn unknown(unknown: $crate::Unknown) -> Self {
                Self::Unknown(unknown)
            }

            fn malformed(malformed: $crate::Malformed) -> Self {
                Self::Malformed(Box::new(malformed))
            }
        }

        impl<'de> ::serde::Deserialize<'de> for $name {
            fn deserialize<D: ::serde::Deserializer<'de>>(
                deserializer: D,
            ) -> ::std::result::Result<Self, D::Error> {
                $crate::union::deserialize_union(deserializer)
            }
        }

        impl ::serde::Serialize for $name {
            fn serialize<S: ::serde::Serializer>(
                &self,
                serializer: S,
            ) -> ::std::result::Result<S::Ok, S::Error> {
                #[derive(::serde::Serialize)]
                struct Tagged<'a, T> {
                    #[serde(rename = $tag_field)]
                    tag: &'a str,
                    #[serde(flatten)]
                    inner: &'a T,
                }
                match self {
                    $( Self::$variant(inner) => Tagged { tag: $wire, inner }.serialize(serializer), )*
                    Self::Unknown(unknown) => unknown.serialize_tag_first($tag_field, serializer),
                    Self::Malformed(malformed) => malformed.serialize(serializer),
                }
            }
        }
    };
}

/// Declares an open set of string values: one variant per known value and `Other(String)` for
/// values this version does not know, which serialize back unchanged.
#[macro_export]
#[doc(hidden)]
macro_rules! string_enum {
    (
        $(#[$meta:meta])*
        pub enum $name:ident {
            $( $(#[$vmeta:meta])* $variant:ident = $wire:literal ),* $(,)?
        }
    ) => {
        $(#[$meta])*
        #[derive(Debug, Clone, PartialEq, Eq, Hash)]
        #[non_exhaustive]
        pub enum $name {
            $( $(#[$vmeta])* $variant, )*
            /// A value this version does not know.
            Other(String),
        }

        impl $name {
            /// Every value this set knows, as written on the wire.
            pub const KNOWN: &'static [&'static str] = &[$($wire),*];

            /// The value as written on the wire.
            pub fn as_str(&self) -> &str {
                match self {
                    $( Self::$variant => $wire, )*
                    Self::Other(other) => other,
                }
            }
        }

        impl From<&str> for $name {
            fn from(value: &str) -> Self {
                match value {
                    $( $wire => Self::$variant, )*
                    other => Self::Other(other.to_owned()),
                }
            }
        }

        impl ::std::fmt::Display for $name {
            fn fmt(&self, f: &mut ::std::fmt::Formatter<'_>) -> ::std::fmt::Result {
                f.write_str(self.as_str())
            }
        }

        impl ::serde::Serialize for $name {
            fn serialize<S: ::serde::Serializer>(
                &self,
                serializer: S,
            ) -> ::std::result::Result<S::Ok, S::Error> {
                serializer.serialize_str(self.as_str())
            }
        }

        impl<'de> ::serde::Deserialize<'de> for $name {
            fn deserialize<D: ::serde::Deserializer<'de>>(
                deserializer: D,
            ) -> ::std::result::Result<Self, D::Error> {
                deserializer.deserialize_str($crate::union::StrVisitor::<Self>::new())
            }
        }
    };
}

/// Reads a string into anything that is `From<&str>`, borrowing where it can.
#[doc(hidden)]
pub struct StrVisitor<T>(PhantomData<T>);

impl<T> StrVisitor<T> {
    #[doc(hidden)]
    pub fn new() -> Self {
        Self(PhantomData)
    }
}

impl<T> Default for StrVisitor<T> {
    fn default() -> Self {
        Self::new()
    }
}

impl<T: for<'a> From<&'a str>> Visitor<'_> for StrVisitor<T> {
    type Value = T;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a string")
    }
    fn visit_str<E: de::Error>(self, v: &str) -> Result<T, E> {
        Ok(T::from(v))
    }
}

/// Implements `Default` for open string sets whose fields may be absent on the wire: an
/// absent value reads as an empty [`Other`](self) (`Other("")`), a value nobody sent.
macro_rules! absent_is_empty {
    ($($ty:ty),* $(,)?) => {$(
        impl Default for $ty {
            fn default() -> Self {
                Self::Other(String::new())
            }
        }
    )*};
}
pub(crate) use absent_is_empty;
