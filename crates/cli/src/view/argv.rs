//! The prompt of a recorded `claude -p PROMPT`: the CLI's one positional argument, found as the
//! CLI's option parser (commander) finds it. An option of [`VALUED`] takes the next argument
//! as its value, one of [`OPTIONAL`] takes it unless it starts with `-`, one of [`VARIADIC`]
//! takes every following argument up to the next that starts with `-`; `--opt=value` and
//! `-xVALUE` carry theirs; `--` ends the options.

/// Options of Claude Code 2.1.330 that take a value (from `claude --help`, and the ones the
/// SDKs pass that it does not list).
const VALUED: &[&str] = &[
    "--agent",
    "--agents",
    "--append-system-prompt",
    "--append-system-prompt-file",
    "--autocompact",
    "--debug-file",
    "--effort",
    "--environment",
    "--fallback-model",
    "--input-format",
    "--json-schema",
    "--managed-settings",
    "--max-budget-usd",
    "--max-thinking-tokens",
    "--max-turns",
    "--model",
    "-n",
    "--name",
    "--output-format",
    "--permission-mode",
    "--permission-prompt-tool",
    "--permission-prompts",
    "--plugin-dir",
    "--plugin-dir-no-mcp",
    "--plugin-url",
    "--project-config-root",
    "--remote-control-session-name-prefix",
    "--resume-drops-turn",
    "--resume-session-at",
    "--session-id",
    "--setting-sources",
    "--settings",
    "--system-prompt",
    "--system-prompt-file",
    "--system-prompt-snapshot",
    "--task-budget",
    "--thinking",
    "--thinking-display",
];

/// Options whose value may be left out.
const OPTIONAL: &[&str] = &[
    "--cloud",
    "-d",
    "--debug",
    "--from-pr",
    "--prompt-suggestions",
    "--remote-control",
    "-r",
    "--resume",
    "--teleport",
    "-w",
    "--worktree",
];

/// Options that take every value up to the next option.
const VARIADIC: &[&str] = &[
    "--add-dir",
    "--allowedTools",
    "--allowed-tools",
    "--betas",
    "--disallowedTools",
    "--disallowed-tools",
    "--file",
    "--mcp-config",
    "--tools",
];

/// The prompt among `argv` (the CLI's arguments, without the program), if there is one.
pub fn prompt(argv: &[String]) -> Option<&str> {
    let mut args = argv.iter().map(String::as_str).peekable();
    while let Some(arg) = args.next() {
        if arg == "--" {
            return args.next();
        }
        if !arg.starts_with('-') || arg == "-" {
            return Some(arg);
        }
        if arg.contains('=') {
            continue;
        }
        let takes_next = |next: Option<&&str>| next.is_some_and(|n| !n.starts_with('-'));
        if VALUED.contains(&arg) {
            args.next();
        } else if OPTIONAL.contains(&arg) {
            if takes_next(args.peek()) {
                args.next();
            }
        } else if VARIADIC.contains(&arg) {
            while takes_next(args.peek()) {
                args.next();
            }
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn argv(args: &[&str]) -> Vec<String> {
        args.iter().map(|a| (*a).to_owned()).collect()
    }

    #[test]
    fn the_prompt_is_the_positional_argument() {
        let cases: &[(&[&str], Option<&str>)] = &[
            (&["-p", "hello", "--output-format", "json"], Some("hello")),
            (
                &["--output-format", "stream-json", "--verbose", "-p", "hi"],
                Some("hi"),
            ),
            (&["--model=opus", "--print", "a -b"], Some("a -b")),
            (
                &["-p", "--allowedTools", "Bash", "Edit", "--verbose", "x"],
                Some("x"),
            ),
            (&["-p", "--resume", "--verbose", "y"], Some("y")),
            (&["-p", "--", "--not-an-option"], Some("--not-an-option")),
            (
                &[
                    "--output-format",
                    "stream-json",
                    "--input-format",
                    "stream-json",
                ],
                None,
            ),
            (&["--max-turns", "3", "--verbose"], None),
        ];
        for (args, expected) in cases {
            assert_eq!(prompt(&argv(args)), *expected, "{args:?}");
        }
    }
}
