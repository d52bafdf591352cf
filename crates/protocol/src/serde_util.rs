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
