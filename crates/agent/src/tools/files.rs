//! What the file tools share: line numbering as the model is shown files, the checks before
//! a file is written, and writing it whole.

use std::path::Path;

/// A line as `Read` shows it: its number right-aligned in six columns, a tab, the text.
pub fn numbered(number: usize, line: &str) -> String {
    format!("{number:>6}\t{line}")
}

/// Cuts a line to `max` characters, saying so.
pub fn cut_line(line: &str, max: usize) -> String {
    match line.char_indices().nth(max) {
        Some((at, _)) => format!("{}… [line cut at {max} characters]", &line[..at]),
        None => line.to_owned(),
    }
}

/// Whether `bytes` (the start of a file) look binary: a NUL byte.
pub fn looks_binary(bytes: &[u8]) -> bool {
    bytes.contains(&0)
}

/// Refuses a path that is not a regular file or is too large to take whole.
pub fn check_file(path: &Path, max_bytes: u64) -> Result<std::fs::Metadata, String> {
    let meta = std::fs::metadata(path).map_err(|err| match err.kind() {
        std::io::ErrorKind::NotFound => format!("File does not exist: {}", path.display()),
        _ => format!("{}: {err}", path.display()),
    })?;
    if meta.is_dir() {
        return Err(format!(
            "{} is a directory, not a file (use Bash's ls or Glob)",
            path.display()
        ));
    }
    if meta.len() > max_bytes {
        return Err(format!(
            "{} is {} bytes, over the {max_bytes}-byte limit for taking a file whole",
            path.display(),
            meta.len()
        ));
    }
    Ok(meta)
}

/// Writes `content` to `path` whole, creating its directory: through a file beside it that
/// is renamed over it, so that a failure leaves the old file intact. The file keeps its
/// permissions.
pub fn write_whole(path: &Path, content: &str) -> Result<(), String> {
    let parent = path
        .parent()
        .ok_or_else(|| format!("{} has no directory", path.display()))?;
    std::fs::create_dir_all(parent)
        .map_err(|err| format!("cannot create {}: {err}", parent.display()))?;
    let mut temporary = tempfile::NamedTempFile::new_in(parent)
        .map_err(|err| format!("cannot write in {}: {err}", parent.display()))?;
    std::io::Write::write_all(&mut temporary, content.as_bytes())
        .map_err(|err| format!("cannot write {}: {err}", path.display()))?;
    if let Ok(meta) = std::fs::metadata(path) {
        let _ = temporary.as_file().set_permissions(meta.permissions());
    }
    temporary
        .persist(path)
        .map_err(|err| format!("cannot write {}: {err}", path.display()))?;
    Ok(())
}

/// The lines around `at` (a byte offset) of `text`, numbered: what an edit shows the model.
pub fn snippet(text: &str, at: usize, context: usize) -> String {
    let line_of_at = text[..at.min(text.len())].matches('\n').count();
    let first = line_of_at.saturating_sub(context);
    text.lines()
        .enumerate()
        .skip(first)
        .take(context * 2 + 1)
        .map(|(i, line)| numbered(i + 1, line))
        .collect::<Vec<_>>()
        .join("\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_are_numbered_and_cut() {
        assert_eq!(numbered(7, "x"), "     7\tx");
        assert_eq!(cut_line("héllo", 2), "hé… [line cut at 2 characters]");
        assert_eq!(cut_line("hé", 2), "hé");
    }

    #[test]
    fn a_snippet_shows_the_lines_around_a_place() {
        let text = "a\nb\nc\nd\ne\n";
        assert_eq!(snippet(text, 4, 1), "     2\tb\n     3\tc\n     4\td");
    }
}
