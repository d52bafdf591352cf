//! Every case, by tool.

mod bash;
mod edges;
mod edit;
mod glob;
mod grep;
mod other;
mod plan;
pub mod read;
mod write;

use crate::case::Case;

/// Every case, in a stable order.
pub fn all() -> Vec<Case> {
    let mut cases = Vec::new();
    cases.extend(bash::cases());
    cases.extend(read::cases());
    cases.extend(write::cases());
    cases.extend(edit::cases());
    cases.extend(glob::cases());
    cases.extend(grep::cases());
    cases.extend(other::notebook());
    cases.extend(other::todo());
    cases.extend(other::web());
    cases.extend(other::ask());
    cases.extend(other::skill());
    cases.extend(other::mcp());
    cases.extend(other::unknown());
    cases.extend(other::requests());
    cases.extend(plan::cases());
    cases.extend(other::task());
    cases.extend(edges::cases());
    cases
}
