//! Photographs of a case's tree (`work/` and `outside/`): each entry's kind, mode and content,
//! and the changes from one photograph to the next, in words that compare across runs.

use std::collections::BTreeMap;
use std::os::unix::fs::PermissionsExt;
use std::path::Path;

/// What a photograph keeps of a file: its first bytes whole and its length beyond.
const KEPT: usize = 4096;

/// One entry of a tree.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Entry {
    File {
        mode: u32,
        len: u64,
        head: Vec<u8>,
        hash: u64,
    },
    Dir {
        mode: u32,
    },
    Link {
        target: String,
    },
    Other,
}

/// A tree: relative path → entry.
pub type Tree = BTreeMap<String, Entry>;

/// The entries under `root/work` and `root/outside`.
pub fn snapshot(root: &Path) -> Tree {
    let mut tree = Tree::new();
    for top in ["work", "outside"] {
        walk(&root.join(top), top, &mut tree, 0);
    }
    tree
}

fn walk(dir: &Path, name: &str, tree: &mut Tree, depth: usize) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        let rel = format!("{name}/{}", entry.file_name().to_string_lossy());
        let Ok(meta) = std::fs::symlink_metadata(&path) else {
            continue;
        };
        let mode = meta.permissions().mode() & 0o7777;
        if meta.file_type().is_symlink() {
            let target = std::fs::read_link(&path)
                .map(|t| t.display().to_string())
                .unwrap_or_default();
            tree.insert(rel, Entry::Link { target });
        } else if meta.is_dir() {
            tree.insert(rel.clone(), Entry::Dir { mode });
            if depth < 12 {
                walk(&path, &rel, tree, depth + 1);
            }
        } else if meta.is_file() {
            let bytes = std::fs::read(&path).unwrap_or_default();
            let head = bytes[..bytes.len().min(KEPT)].to_vec();
            tree.insert(
                rel,
                Entry::File {
                    mode,
                    len: meta.len(),
                    head,
                    hash: fnv(&bytes),
                },
            );
        } else {
            tree.insert(rel, Entry::Other);
        }
    }
}

fn fnv(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |hash, byte| {
        (hash ^ u64::from(*byte)).wrapping_mul(0x0100_0000_01b3)
    })
}

/// The changes from `before` to `after`, one line each, in path order.
pub fn changes(before: &Tree, after: &Tree) -> Vec<String> {
    let mut out = Vec::new();
    for (path, entry) in after {
        match before.get(path) {
            None => out.push(format!("created {path}: {}", describe(entry))),
            Some(old) if old != entry => {
                out.push(format!("changed {path}: {}", describe(entry)));
            }
            Some(_) => {}
        }
    }
    for path in before.keys() {
        if !after.contains_key(path) {
            out.push(format!("removed {path}"));
        }
    }
    out
}

fn describe(entry: &Entry) -> String {
    match entry {
        Entry::File {
            mode, len, head, ..
        } => {
            let shown = String::from_utf8_lossy(head);
            let more = if *len as usize > head.len() {
                format!(" … ({len} bytes)")
            } else {
                String::new()
            };
            format!("file {mode:o} {shown:?}{more}")
        }
        Entry::Dir { mode } => format!("dir {mode:o}"),
        Entry::Link { target } => format!("link to {target}"),
        Entry::Other => "other".to_owned(),
    }
}
