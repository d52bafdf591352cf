//! Small serde helpers shared by the schema modules.

/// For fields that may be absent, `null` or a value (`x?: T | null` on the wire): `None` is
/// absent, `Some(None)` is `null`. Use with
/// `#[serde(default, skip_serializing_if = "Option::is_none", with = "crate::serde_util::nullable")]`.
pub mod nullable {
    use serde::{Deserialize, Deserializer, Serialize, Serializer};

    /// Writes `Some(None)` as `null` and `Some(Some(v))` as `v`.
    pub fn serialize<T: Serialize, S: Serializer>(
        value: &Option<Option<T>>,
        serializer: S,
    ) -> Result<S::Ok, S::Error> {
        match value {
            Some(inner) => inner.serialize(serializer),
            None => serializer.serialize_none(),
        }
    }

    /// Reads a present field: `null` becomes `Some(None)`.
    pub fn deserialize<'de, T: Deserialize<'de>, D: Deserializer<'de>>(
        deserializer: D,
    ) -> Result<Option<Option<T>>, D::Error> {
        Option::<T>::deserialize(deserializer).map(Some)
    }
}

/// Implements `Deserialize` for a struct of plain fields whose unknown fields go to its `extra`
/// map, reading each entry straight into its field.
///
/// serde's derive handles `#[serde(flatten)] extra` by collecting unknown entries into an
/// intermediate buffer and deserializing the map from it afterwards (about 5% of the
/// instructions of decoding a stream event, by callgrind). The structs of the bulk frames (streamed deltas) use this
/// instead; `Serialize` stays derived. Each field is listed with its JSON name and whether it
/// is `required` (absent is an error) or `default` (absent is `Default::default()`, which is
/// `None` for an `Option`). A repeated field is an error, as with the derive.
macro_rules! deserialize_with_extra {
    ($ty:ident { $($field:ident: $json:literal $how:ident),* $(,)? }) => {
        impl<'de> ::serde::Deserialize<'de> for $ty {
            fn deserialize<D: ::serde::Deserializer<'de>>(
                deserializer: D,
            ) -> ::std::result::Result<Self, D::Error> {
                use ::serde::de::{self, MapAccess, Visitor};

                #[allow(non_camel_case_types)]
                enum Field {
                    $($field,)*
                    Unknown(String),
                }

                struct FieldSeed;

                impl<'de> de::DeserializeSeed<'de> for FieldSeed {
                    type Value = Field;
                    fn deserialize<D: ::serde::Deserializer<'de>>(
                        self,
                        deserializer: D,
                    ) -> ::std::result::Result<Field, D::Error> {
                        deserializer.deserialize_identifier(self)
                    }
                }

                impl Visitor<'_> for FieldSeed {
                    type Value = Field;
                    fn expecting(&self, f: &mut ::std::fmt::Formatter) -> ::std::fmt::Result {
                        f.write_str("a field name")
                    }
                    fn visit_str<E: de::Error>(self, v: &str) -> ::std::result::Result<Field, E> {
                        Ok(match v {
                            $($json => Field::$field,)*
                            other => Field::Unknown(other.to_owned()),
                        })
                    }
                }

                struct StructVisitor;

                impl<'de> Visitor<'de> for StructVisitor {
                    type Value = $ty;
                    fn expecting(&self, f: &mut ::std::fmt::Formatter) -> ::std::fmt::Result {
                        f.write_str(concat!("struct ", stringify!($ty)))
                    }
                    fn visit_map<A: MapAccess<'de>>(
                        self,
                        mut map: A,
                    ) -> ::std::result::Result<$ty, A::Error> {
                        $(let mut $field = None;)*
                        let mut extra = ::serde_json::Map::new();
                        while let Some(key) = map.next_key_seed(FieldSeed)? {
                            match key {
                                $(Field::$field => {
                                    if $field.is_some() {
                                        return Err(de::Error::duplicate_field($json));
                                    }
                                    $field = Some(map.next_value()?);
                                })*
                                Field::Unknown(key) => {
                                    let value = map.next_value()?;
                                    extra.insert(key, value);
                                }
                            }
                        }
                        Ok($ty {
                            $($field: $crate::serde_util::deserialize_with_extra!(
                                @take $how $field $json
                            ),)*
                            extra,
                        })
                    }
                }

                deserializer.deserialize_map(StructVisitor)
            }
        }
    };
    (@take required $field:ident $json:literal) => {
        match $field {
            Some(value) => value,
            None => return Err(::serde::de::Error::missing_field($json)),
        }
    };
    (@take default $field:ident $json:literal) => {
        $field.unwrap_or_default()
    };
}
pub(crate) use deserialize_with_extra;

/// The default of a number field that is absent: zero.
pub(crate) fn zero() -> serde_json::Number {
    serde_json::Number::from(0)
}
