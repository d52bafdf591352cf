//! `Grep`: its modes, options and paging, and misuse.

use serde_json::json;

use crate::case::{case, Case};

pub fn cases() -> Vec<Case> {
    vec![
        case("Grep", "modes")
            .quick()
            .file("a.txt", "apple\nbanana\ncherry\napple pie\n")
            .file("src/b.rs", "fn apple() {}\n")
            .step("Grep", json!({"pattern": "apple"}))
            .step("Grep", json!({"pattern": "apple", "output_mode": "content"}))
            .step("Grep", json!({"pattern": "apple", "output_mode": "count"}))
            .step("Grep", json!({"pattern": "nothing-matches"}))
            .step("Grep", json!({"pattern": "banana", "output_mode": "content", "-C": 1})),
    ]
}
