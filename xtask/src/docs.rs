//! The paths the README and the guides cite exist: a link to a file, a backquoted path into
//! the repository (`crates/…`, `docs/…`, `xtask/…`, `tests/…`, `peers/…`, `.ci/…`).

#[cfg(test)]
mod tests {
    use std::path::Path;

    /// Every cited path of one Markdown file that does not exist.
    fn missing(root: &Path, file: &Path) -> Vec<String> {
        let text = std::fs::read_to_string(file).unwrap_or_default();
        let dir = file.parent().unwrap_or(root);
        let mut missing = Vec::new();
        // Links: `](target)` or `](target#anchor)`.
        for part in text.split("](").skip(1) {
            let target = part.split([')', '#', ' ']).next().unwrap_or_default();
            if target.is_empty() || target.contains("://") || target.starts_with("mailto:") {
                continue;
            }
            if !dir.join(target).exists() {
                missing.push(format!("{}: link {target}", file.display()));
            }
        }
        // Backquoted repository paths, unless they are someone else's (`… in your project`).
        for (at, part) in text.split('`').enumerate() {
            let is_code = at % 2 == 1;
            let repository = ["crates/", "docs/", "xtask/", "tests/", "peers/", ".ci/"]
                .iter()
                .any(|prefix| part.starts_with(prefix));
            let plain = part
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || "_./-".contains(c));
            // `scripts/NAME.json`: a placeholder, not a path.
            let placeholder = part.split('/').any(|segment| {
                let stem = segment.split('.').next().unwrap_or(segment);
                stem.len() > 1
                    && stem.chars().all(|c| c.is_ascii_uppercase() || c == '_')
                    && stem != "README"
            });
            if !is_code || !repository || !plain || part.ends_with('/') || placeholder {
                continue;
            }
            let after = text.split('`').nth(at + 1).unwrap_or_default();
            if after.trim_start().starts_with("in your project") {
                continue;
            }
            if !root.join(part.trim_end_matches('.')).exists() {
                missing.push(format!("{}: path {part}", file.display()));
            }
        }
        missing
    }

    /// Every file of the repository (but build output), as paths relative to the root.
    fn files(root: &Path, dir: &Path, out: &mut Vec<String>) {
        let Ok(entries) = std::fs::read_dir(dir) else {
            return;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            let name = entry.file_name();
            if name == "target" || name == ".git" || name == "node_modules" {
                continue;
            }
            if path.is_dir() {
                files(root, &path, out);
            } else if let Ok(relative) = path.strip_prefix(root) {
                out.push(relative.display().to_string());
            }
        }
    }

    /// Backquoted partial source paths (`host/client.rs`) that no file of the repository ends
    /// with.
    fn unknown_sources(file: &Path, all: &[String]) -> Vec<String> {
        let text = std::fs::read_to_string(file).unwrap_or_default();
        text.split('`')
            .skip(1)
            .step_by(2)
            .filter(|part| part.contains('/') && part.ends_with(".rs"))
            .filter(|part| {
                part.chars()
                    .all(|c| c.is_ascii_alphanumeric() || "_./-".contains(c))
            })
            .filter(|part| {
                !all.iter()
                    .any(|f| f.ends_with(&format!("/{part}")) || f == part)
            })
            .map(|part| format!("{}: source {part}", file.display()))
            .collect()
    }

    #[test]
    fn the_readme_and_the_guides_cite_paths_that_exist() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
        let mut files = vec![root.join("README.md")];
        for entry in std::fs::read_dir(root.join("docs")).unwrap().flatten() {
            if entry.path().extension().is_some_and(|e| e == "md") {
                files.push(entry.path());
            }
        }
        let mut all = Vec::new();
        self::files(&root, &root, &mut all);
        let missing: Vec<String> = files
            .iter()
            .flat_map(|f| {
                missing(&root, f)
                    .into_iter()
                    .chain(unknown_sources(f, &all))
            })
            .collect();
        assert!(missing.is_empty(), "{}", missing.join("\n"));
    }
}
