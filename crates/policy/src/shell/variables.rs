//! Shell variables: which names are names, and which change nothing about what runs.

/// A shell variable name.
pub fn is_name(text: &str) -> bool {
    !text.is_empty()
        && !text.starts_with(|c: char| c.is_ascii_digit())
        && text.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// Upper-case variables that change nothing about which programs run. Upper-case names are
/// where bash (`PATH`, `BASH_ENV`, `PS4`, `IFS`, `BASH_ALIASES`, …) and programs (`GIT_*`,
/// `PAGER`, `LD_PRELOAD`, `NODE_OPTIONS`, `PYTHONPATH`, …) read what to run, so only these
/// are accepted; a name with a lower-case letter is a script's own.
const HARMLESS_VARIABLES: &[&str] = &[
    "LANG",
    "LANGUAGE",
    "LC_ALL",
    "LC_CTYPE",
    "LC_COLLATE",
    "LC_MESSAGES",
    "LC_NUMERIC",
    "LC_TIME",
    "TZ",
    "TERM",
    "COLUMNS",
    "LINES",
    "NO_COLOR",
    "FORCE_COLOR",
    "CLICOLOR",
    "CLICOLOR_FORCE",
    "COLORTERM",
    "CI",
    "DEBUG",
    "VERBOSE",
    "NODE_ENV",
    "RUST_LOG",
    "RUST_BACKTRACE",
    "CARGO_TERM_COLOR",
    "PYTHONUNBUFFERED",
    "PYTHONDONTWRITEBYTECODE",
    "PYTHONHASHSEED",
    "PYTHONIOENCODING",
    "TMPDIR",
];

/// Whether assigning `name` changes nothing about what runs.
pub fn is_harmless_variable(name: &str) -> bool {
    is_name(name)
        && (name.chars().any(|c| c.is_ascii_lowercase()) || HARMLESS_VARIABLES.contains(&name))
}
