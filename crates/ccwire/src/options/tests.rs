//! Unit tests of the wire mapping.
