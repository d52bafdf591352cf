//! What the file tools share: Claude Code's sizes and binary kinds, and writing a file whole.

use std::path::Path;

/// File extensions Claude Code takes for binary files (Read refuses them, but for images and
/// PDFs, which it shows).
const BINARY_EXTENSIONS: &[&str] = &[
    "png", "jpg", "jpeg", "gif", "bmp", "ico", "webp", "tiff", "tif", "heic", "heif", "avif",
    "mp4", "mov", "avi", "mkv", "webm", "wmv", "flv", "m4v", "mpeg", "mpg", "mp3", "wav", "ogg",
    "flac", "aac", "m4a", "wma", "aiff", "opus", "zip", "tar", "gz", "bz2", "7z", "rar", "xz", "z",
    "tgz", "iso", "zst", "lz4", "whl", "exe", "dll", "so", "dylib", "bin", "o", "a", "obj", "lib",
    "app", "msi", "deb", "rpm", "dmg", "apk", "pdf", "doc", "docx", "docm", "dotx", "dotm", "xls",
    "xlsx", "xlsm", "xlsb", "xltx", "xltm", "ppt", "pptx", "pptm", "ppsx", "ppsm", "potx", "potm",
    "odt", "ods", "odp", "numbers", "epub", "ttf", "otf", "woff", "woff2", "eot", "pyc", "pyo",
    "class", "jar", "war", "ear", "node", "wasm", "rlib", "sqlite", "sqlite3", "db", "mdb", "idx",
    "parquet", "feather", "npy", "npz", "pickle", "psd", "ai", "eps", "sketch", "fig", "xd",
    "blend", "3ds", "max", "swf", "fla", "lockb", "dat", "data",
];

/// Whether Claude Code takes a file with this extension (lowercase, no dot) for binary.
pub fn is_binary_extension(extension: &str) -> bool {
    BINARY_EXTENSIONS.contains(&extension)
}

/// A size as Claude Code writes it: `383 bytes`, `30.3KB`, `256KB`, `1.5MB`.
pub fn human_size(bytes: u64) -> String {
    let one = |value: f64, unit: &str| {
        let text = format!("{value:.1}");
        let text = text.strip_suffix(".0").unwrap_or(&text).to_owned();
        format!("{text}{unit}")
    };
    if bytes < 1024 {
        format!("{bytes} bytes")
    } else if bytes < 1024 * 1024 {
        one(bytes as f64 / 1024.0, "KB")
    } else if bytes < 1024 * 1024 * 1024 {
        one(bytes as f64 / (1024.0 * 1024.0), "MB")
    } else {
        one(bytes as f64 / (1024.0 * 1024.0 * 1024.0), "GB")
    }
}

/// The mode a created file gets, as Claude Code's do.
#[cfg(unix)]
const NEW_FILE_MODE: u32 = 0o644;

/// Writes `content` to `path` whole, creating its directories: through a file beside it
/// that is renamed over it, so that a failure leaves the old file intact. An existing file
/// keeps its permissions; a new one is readable by all, writable by its owner.
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
    // The mode of the file replaced, else that of a new file (on Unix).
    if let Ok(meta) = std::fs::metadata(path) {
        let _ = temporary.as_file().set_permissions(meta.permissions());
    } else {
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let _ = temporary
                .as_file()
                .set_permissions(std::fs::Permissions::from_mode(NEW_FILE_MODE));
        }
    }
    temporary
        .persist(path)
        .map_err(|err| format!("cannot write {}: {err}", path.display()))?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_are_written_as_claude_code_writes_them() {
        assert_eq!(human_size(383), "383 bytes");
        assert_eq!(human_size(228_894), "223.5KB");
        assert_eq!(human_size(340_000), "332KB");
        assert_eq!(human_size(262_144), "256KB");
        assert_eq!(human_size(31_000), "30.3KB");
    }

    #[cfg(unix)]
    #[test]
    fn a_new_file_is_0644_and_an_old_one_keeps_its_mode() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let new = dir.path().join("new.txt");
        write_whole(&new, "x").unwrap();
        assert_eq!(
            std::fs::metadata(&new).unwrap().permissions().mode() & 0o777,
            0o644
        );
        let old = dir.path().join("old.sh");
        std::fs::write(&old, "a").unwrap();
        std::fs::set_permissions(&old, std::fs::Permissions::from_mode(0o755)).unwrap();
        write_whole(&old, "b").unwrap();
        assert_eq!(
            std::fs::metadata(&old).unwrap().permissions().mode() & 0o777,
            0o755
        );
    }
}
