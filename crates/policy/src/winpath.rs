//! Windows path text as permission rules match it, read on any system (so that the grammar is
//! tested everywhere; the file system's side of it is tested under Wine).
//!
//! Claude Code matches Windows paths in a POSIX form: `C:\Users\me` is `/c/Users/me`, and a
//! rule names it `//c/Users/me` (or, here, `C:\Users\me` and `C:/Users/me`). The drive letter
//! is a drive letter in either case (`C:` and `c:` are one drive), so the form writes it in
//! lower case; the other names keep their case, folded or not by [`crate::Case`].
//!
//! Win32 reads `\` and `/` alike, takes `.` and `..` out by text, and drops the dots and spaces
//! that end a name (`secret.` and `secret ` open `secret`): the form does the same, so a deny
//! rule cannot be talked around by them. What cannot be read that way is refused, never
//! guessed at: UNC shares (`\\server\share`), device paths (`\\.\`), verbatim paths
//! (`\\?\`, whose names are taken literally) unless they are a drive's with plain names
//! (what the system's own resolution returns), drive-relative paths (`C:x`, relative to a
//! directory kept per drive), and names holding `:` (alternate data streams: `secret::$DATA`
//! opens `secret`).

/// A Windows path read for matching.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum WinPath {
    /// An absolute path on a drive, in the POSIX form rules match (`/c/proj/x`).
    Drive(String),
    /// A path whose file cannot be told from its text (why, for a message).
    Refused(&'static str),
    /// Not an absolute Windows path (relative, or rooted without a drive).
    Other,
}

/// Reads `text` as Win32 does (see the module's docs).
pub fn parse(text: &str) -> WinPath {
    if let Some(rest) = text.strip_prefix(r"\\?\") {
        return verbatim(rest);
    }
    let bytes = text.as_bytes();
    let separator = |b: u8| b == b'\\' || b == b'/';
    if bytes.len() >= 2 && separator(bytes[0]) && separator(bytes[1]) {
        return if matches!(bytes.get(2), Some(b'.' | b'?')) {
            WinPath::Refused("a device path (`\\\\.\\`) is not a file the rules can name")
        } else {
            WinPath::Refused("a network share (UNC) path is not judged: its files cannot be proven")
        };
    }
    let Some(letter) = drive_letter(text) else {
        return WinPath::Other;
    };
    let rest = &text[2..];
    if !rest.starts_with(['\\', '/']) {
        if rest.is_empty() {
            return WinPath::Drive(format!("/{letter}"));
        }
        return WinPath::Refused(
            "a drive-relative path (`C:x`) depends on a directory kept per drive",
        );
    }
    let mut names: Vec<&str> = Vec::new();
    for name in rest.split(['\\', '/']) {
        match name {
            "" | "." => {}
            ".." => {
                names.pop();
            }
            name => {
                // Win32 drops the dots and spaces that end a name.
                let trimmed = name.trim_end_matches(['.', ' ']);
                if trimmed.contains(':') {
                    return WinPath::Refused(
                        "a name holding `:` names a stream of a file, not a file",
                    );
                }
                if !trimmed.is_empty() {
                    names.push(trimmed);
                }
            }
        }
    }
    WinPath::Drive(posix(letter, &names))
}

/// `\\?\C:\a\b`: taken literally by the system, so only plain names are proven to be the
/// file the usual form names.
fn verbatim(rest: &str) -> WinPath {
    let Some(letter) = drive_letter(rest) else {
        return WinPath::Refused(
            "a verbatim path (`\\\\?\\`) other than a drive's (a share, a volume) is not judged",
        );
    };
    let tail = &rest[2..];
    if !(tail.is_empty() || tail.starts_with('\\')) {
        return WinPath::Refused("a verbatim path needs `\\` after its drive");
    }
    let names: Vec<&str> = tail.split('\\').filter(|n| !n.is_empty()).collect();
    let plain = names.iter().all(|name| {
        *name != "." && *name != ".." && !name.contains([':', '/']) && !name.ends_with(['.', ' '])
    });
    if !plain {
        return WinPath::Refused(
            "a verbatim path (`\\\\?\\`) with names Win32 would change names another file",
        );
    }
    WinPath::Drive(posix(letter, &names))
}

/// `/c/x` as the Bash tool's shell on Windows (Git Bash, MSYS) reads it: `C:\x`, in the form
/// rules match. The file tools read the same text as `\c\x` on the session's drive, so a
/// path of this shape is judged both ways. `None` for a path of another shape.
pub fn msys_form(text: &str) -> Option<String> {
    let rest = text.strip_prefix('/')?;
    let (letter, tail) = rest.split_at(rest.find('/').unwrap_or(rest.len()));
    if letter.len() != 1 || !letter.chars().all(|c| c.is_ascii_alphabetic()) {
        return None;
    }
    match parse(&format!("{letter}:/{tail}")) {
        WinPath::Drive(form) => Some(form),
        _ => None,
    }
}

/// The drive letter of `C:…`, in lower case.
fn drive_letter(text: &str) -> Option<char> {
    let mut chars = text.chars();
    let letter = chars.next()?;
    (letter.is_ascii_alphabetic() && chars.next() == Some(':')).then(|| letter.to_ascii_lowercase())
}

fn posix(letter: char, names: &[&str]) -> String {
    let mut out = format!("/{letter}");
    for name in names {
        out.push('/');
        out.push_str(name);
    }
    out
}

/// A rule's path pattern written for Windows, in the form paths are matched in: `\` is a
/// separator (Windows names cannot hold the characters it would escape), `C:\x` and `C:/x`
/// are `/c/x`, the drive of `//C/x` is written in lower case; with `true`. A pattern of
/// another shape (relative, `~`, one leading `/`) comes back with `false`, its separators
/// made `/`.
pub fn rule_pattern(pattern: &str) -> (String, bool) {
    let slashed = pattern.replace('\\', "/");
    if let Some(letter) = drive_letter(&slashed) {
        let rest = &slashed[2..];
        if rest.is_empty() || rest.starts_with('/') {
            return (format!("/{letter}{rest}"), true);
        }
    }
    if let Some(rest) = slashed.strip_prefix("//") {
        let mut chars = rest.chars();
        if let (Some(letter), next) = (chars.next(), chars.next()) {
            if letter.is_ascii_alphabetic() && matches!(next, None | Some('/')) {
                return (
                    format!("/{}{}", letter.to_ascii_lowercase(), &rest[1..]),
                    true,
                );
            }
        }
        return (format!("/{rest}"), true);
    }
    (slashed, false)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn drive(text: &str) -> String {
        match parse(text) {
            WinPath::Drive(form) => form,
            other => panic!("{text}: {other:?}"),
        }
    }

    fn refused(text: &str) -> bool {
        matches!(parse(text), WinPath::Refused(_))
    }

    #[test]
    fn drive_paths_take_the_posix_form_with_the_letter_in_lower_case() {
        assert_eq!(drive(r"C:\proj\src\main.rs"), "/c/proj/src/main.rs");
        assert_eq!(drive(r"c:\proj\src\main.rs"), "/c/proj/src/main.rs");
        assert_eq!(drive("C:/proj/src/main.rs"), "/c/proj/src/main.rs");
        assert_eq!(drive(r"D:\Mixed/Seps\\twice"), "/d/Mixed/Seps/twice");
        assert_eq!(drive(r"C:\"), "/c");
        assert_eq!(drive("C:"), "/c");
    }

    #[test]
    fn names_keep_their_case() {
        assert_eq!(drive(r"C:\PROJ\Secret"), "/c/PROJ/Secret");
    }

    #[test]
    fn dots_are_taken_out_by_text_as_win32_does() {
        assert_eq!(drive(r"C:\proj\src\..\secret"), "/c/proj/secret");
        assert_eq!(drive(r"C:\proj\.\secret"), "/c/proj/secret");
        assert_eq!(drive(r"C:\..\..\proj"), "/c/proj");
    }

    #[test]
    fn trailing_dots_and_spaces_of_a_name_are_dropped() {
        assert_eq!(drive(r"C:\proj\secret."), "/c/proj/secret");
        assert_eq!(drive(r"C:\proj\secret . ."), "/c/proj/secret");
        assert_eq!(drive(r"C:\proj.\secret"), "/c/proj/secret");
    }

    #[test]
    fn shares_devices_streams_and_drive_relative_paths_are_refused() {
        assert!(refused(r"\\server\share\x"));
        assert!(refused("//server/share/x"));
        assert!(refused(r"\\.\PhysicalDrive0"));
        assert!(refused(r"\\?\UNC\server\share\x"));
        assert!(refused(
            r"\\?\Volume{12345678-0000-0000-0000-000000000000}\x"
        ));
        assert!(refused(r"C:\proj\secret::$DATA"));
        assert!(refused(r"C:\proj\secret:hidden"));
        assert!(refused(r"C:proj\secret"));
    }

    #[test]
    fn a_verbatim_drive_path_with_plain_names_is_the_usual_form() {
        assert_eq!(drive(r"\\?\C:\proj\secret"), "/c/proj/secret");
        assert_eq!(drive(r"\\?\c:\proj"), "/c/proj");
        // Taken literally by the system: not the file the usual form names.
        assert!(refused(r"\\?\C:\proj\..\secret"));
        assert!(refused(r"\\?\C:\proj\secret."));
        assert!(refused(r"\\?\C:\proj/secret"));
    }

    #[test]
    fn other_paths_are_not_windows_absolute_paths() {
        assert_eq!(parse(r"src\main.rs"), WinPath::Other);
        assert_eq!(parse(r"\proj\x"), WinPath::Other);
        assert_eq!(parse("/c/proj"), WinPath::Other);
    }

    #[test]
    fn a_posix_drive_path_is_read_as_the_bash_tool_reads_it() {
        assert_eq!(
            msys_form("/c/proj/secret").as_deref(),
            Some("/c/proj/secret")
        );
        assert_eq!(
            msys_form("/C/proj/../secret.").as_deref(),
            Some("/c/secret")
        );
        assert_eq!(msys_form("/c").as_deref(), Some("/c"));
        assert_eq!(msys_form("/proj/secret"), None);
        assert_eq!(msys_form("c/proj"), None);
    }

    #[test]
    fn rule_patterns_in_every_spelling_the_cli_accepts_meet_in_one_form() {
        for pattern in [
            r"C:\proj\**",
            "C:/proj/**",
            "c:/proj/**",
            "//c/proj/**",
            "//C/proj/**",
        ] {
            assert_eq!(
                rule_pattern(pattern),
                ("/c/proj/**".to_owned(), true),
                "{pattern}"
            );
        }
        assert_eq!(rule_pattern("//c"), ("/c".to_owned(), true));
        assert_eq!(rule_pattern(r"src\*.rs"), ("src/*.rs".to_owned(), false));
        assert_eq!(rule_pattern("~/notes/*"), ("~/notes/*".to_owned(), false));
        assert_eq!(rule_pattern("//**/.env"), ("/**/.env".to_owned(), true));
    }
}
