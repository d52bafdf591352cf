//! Every case, by tool.

mod bash;
mod edit;
mod glob;
mod grep;
mod read;
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
    cases
}
