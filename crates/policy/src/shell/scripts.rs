//! The checks of executors that run something only with some options or scripts: each returns
//! why the command may run another program, or `None` when it cannot. Every check treats a
//! computed or globbed operand as able to become whatever it looks for.

use super::Word;

/// An interpreter runs only a script file when its first operand names one: options (`-c`,
/// `-e`, `-m`, `-r`, …) or no operand at all (the code comes from standard input) are not
/// proven.
pub fn interpreter(args: &[Word]) -> Option<String> {
    match args.first() {
        Some(script) if script.literal && !script.text.starts_with('-') => None,
        Some(option) => Some(format!(
            "runs code given on its command line (`{}`)",
            option.text
        )),
        None => Some("runs code from its input".into()),
    }
}

/// `awk`: its program may run commands (`system()`, `print | "cmd"`, `"cmd" | getline`),
/// write files (`print > "f"`), or load code (`@load`, `-f`, `-i`, `-l`).
pub fn awk(args: &[Word]) -> Option<String> {
    let mut words = args.iter();
    let mut program = None;
    while let Some(word) = words.next() {
        if !word.literal {
            return Some(format!("has a computed operand `{}`", word.text));
        }
        let text = word.text.as_str();
        match text {
            "--" => {
                program = words.next();
                break;
            }
            "-F" | "-v" => {
                // A separator or an assignment: data, but computed values could be options.
                match words.next() {
                    Some(value) if value.literal => continue,
                    _ => return Some("has a computed option value".into()),
                }
            }
            _ if text.starts_with("-F") || text.starts_with("-v") => continue,
            _ if text.starts_with('-') => {
                return Some(format!("reads its program from an option (`{text}`)"))
            }
            _ => {
                program = Some(word);
                break;
            }
        }
    }
    let program = program?.text.as_str();
    let runs = program.contains("system")
        || program.contains('|')
        || program.contains('@')
        || program.contains("getline")
        || prints_to_file(program);
    runs.then(|| "runs commands or writes files from its program".to_owned())
}

/// `print … > file` or `printf … >> file` in an awk program.
fn prints_to_file(program: &str) -> bool {
    program.match_indices("print").any(|(at, _)| {
        program[at..]
            .split([';', '}', '\n'])
            .next()
            .is_some_and(|statement| statement.contains('>'))
    })
}

/// `sed`: the `e` command and the `e` flag of `s` run commands, `w`/`W` and the `w` flag write
/// files; `-f` reads a script no one sees. The script is read command by command.
pub fn sed(args: &[Word]) -> Option<String> {
    let mut scripts = Vec::new();
    let mut words = args.iter();
    let mut explicit = false;
    while let Some(word) = words.next() {
        if !word.literal {
            return Some(format!("has a computed operand `{}`", word.text));
        }
        let text = word.text.as_str();
        if text == "-e" || text == "--expression" {
            explicit = true;
            match words.next() {
                Some(script) if script.literal => scripts.push(script.text.clone()),
                _ => return Some("has a computed script".into()),
            }
        } else if let Some(script) = text.strip_prefix("--expression=") {
            explicit = true;
            scripts.push(script.to_owned());
        } else if text == "-f" || text.starts_with("--file") || text.starts_with("-f") {
            return Some("reads its script from a file".into());
        } else if text.starts_with('-') && text.len() > 1 {
            let options = text.trim_start_matches('-');
            if options.contains('e') && !text.starts_with("--") {
                return Some(format!("has a clustered script option `{text}`"));
            }
        } else if !explicit && scripts.is_empty() {
            scripts.push(text.to_owned());
        }
    }
    scripts.iter().find_map(|script| sed_script(script))
}

/// Why one sed script may run or write something.
fn sed_script(script: &str) -> Option<String> {
    let chars: Vec<char> = script.chars().collect();
    let mut at = 0;
    let unread = || Some("has a script the rules cannot read".to_owned());
    while at < chars.len() {
        // Separators and blanks.
        while at < chars.len() && (chars[at].is_whitespace() || chars[at] == ';') {
            at += 1;
        }
        if at >= chars.len() {
            break;
        }
        // Up to two addresses, then `!`.
        for _ in 0..2 {
            at = skip_address(&chars, at)?;
            if chars.get(at) == Some(&',') {
                at += 1;
            } else {
                break;
            }
        }
        while chars
            .get(at)
            .is_some_and(|c| c.is_whitespace() || *c == '!')
        {
            at += 1;
        }
        let Some(&command) = chars.get(at) else {
            break;
        };
        at += 1;
        match command {
            '{' | '}' | '=' | 'd' | 'D' | 'g' | 'G' | 'h' | 'H' | 'l' | 'n' | 'N' | 'p' | 'P'
            | 'x' | 'z' | 'F' => {}
            'q' | 'Q' | 'L' => at = skip_while(&chars, at, |c| c.is_ascii_digit() || c == ' '),
            'b' | 't' | 'T' | ':' | 'r' | 'R' | 'v' => {
                // A label or a file to read: up to the end of the command.
                at = skip_while(&chars, at, |c| c != '\n' && c != ';');
            }
            'a' | 'i' | 'c' => at = skip_while(&chars, at, |c| c != '\n'),
            '#' => at = skip_while(&chars, at, |c| c != '\n'),
            'e' => return Some("runs a command (`e`)".into()),
            'w' | 'W' => return Some("writes a file (`w`)".into()),
            's' | 'y' => {
                let delimiter = *chars.get(at)?;
                if delimiter == '\\' || delimiter == '\n' {
                    return unread();
                }
                at += 1;
                for _ in 0..2 {
                    at = skip_delimited(&chars, at, delimiter)?;
                }
                if command == 's' {
                    let flags_end = skip_while(&chars, at, |c| c != ';' && c != '\n' && c != '}');
                    let flags: String = chars[at..flags_end].iter().collect();
                    if flags.contains('e') {
                        return Some("runs the replacement as a command (`s///e`)".into());
                    }
                    if flags.contains('w') {
                        return Some("writes a file (`s///w`)".into());
                    }
                    if !flags
                        .chars()
                        .all(|c| c.is_ascii_digit() || "gpiImM ".contains(c))
                    {
                        return unread();
                    }
                    at = flags_end;
                }
            }
            _ => return unread(),
        }
    }
    None
}

/// Past an address (`12`, `$`, `/re/`, `\cREc`, `first~step`, `+N`), or `None` when it cannot
/// be read.
fn skip_address(chars: &[char], mut at: usize) -> Option<usize> {
    match chars.get(at) {
        Some('/') => skip_delimited(chars, at + 1, '/')
            .map(|end| skip_while(chars, end, |c| c == 'I' || c == 'M')),
        Some('\\') => {
            let delimiter = *chars.get(at + 1)?;
            skip_delimited(chars, at + 2, delimiter)
        }
        Some('$') => Some(at + 1),
        Some(c) if c.is_ascii_digit() || *c == '+' || *c == '~' => {
            at = skip_while(chars, at + 1, |c| c.is_ascii_digit() || c == '~');
            Some(at)
        }
        _ => Some(at),
    }
}

/// Past a part ended by `delimiter` (a backslash escapes the next character).
fn skip_delimited(chars: &[char], mut at: usize, delimiter: char) -> Option<usize> {
    while let Some(&c) = chars.get(at) {
        if c == '\\' {
            at += 2;
        } else if c == delimiter {
            return Some(at + 1);
        } else {
            at += 1;
        }
    }
    None
}

fn skip_while(chars: &[char], mut at: usize, keep: impl Fn(char) -> bool) -> usize {
    while chars.get(at).is_some_and(|c| keep(*c)) {
        at += 1;
    }
    at
}

/// `find`: `-exec`, `-execdir`, `-ok`, `-okdir` run commands; `-delete` deletes and
/// `-fprint`, `-fprint0`, `-fprintf`, `-fls` write files; a computed or globbed operand could
/// be any of them.
pub fn find(args: &[Word]) -> Option<String> {
    const RUNNING: &[&str] = &[
        "-exec", "-execdir", "-ok", "-okdir", "-delete", "-fprint", "-fprint0", "-fprintf", "-fls",
    ];
    args.iter().find_map(|word| {
        if !word.literal {
            Some(format!("has a computed operand `{}`", word.text))
        } else if RUNNING.contains(&word.text.as_str()) {
            Some(format!("runs or writes through `{}`", word.text))
        } else {
            None
        }
    })
}

/// `npm exec`, `npm x`, `pnpm dlx`, `yarn dlx`, `uv run`, `poetry run`, …: a command from the
/// operands. `npm create` and `npm init PKG` run a package's initializer.
pub fn package_manager(args: &[Word]) -> Option<String> {
    const RUNNING: &[&str] = &["exec", "x", "dlx", "run", "create", "init", "tool"];
    let subcommand = args.iter().find(|w| !w.text.starts_with('-'))?;
    if !subcommand.literal {
        return Some(format!("has a computed subcommand `{}`", subcommand.text));
    }
    RUNNING
        .contains(&subcommand.text.as_str())
        .then(|| format!("runs a command or package (`{}`)", subcommand.text))
}

/// `git`: what runs a program of its own (see [`super::git::effect`]): `-c`, `--exec-path`,
/// hooks, editors, remotes, a subcommand git does not ship (an installed `git-` program or an
/// alias).
pub fn git(args: &[Word]) -> Option<String> {
    match super::git::effect(args) {
        Some(super::effect::Effect::Runs(why)) => Some(why),
        _ => None,
    }
}

/// `tar`: `--to-command`, `--checkpoint-action`, `-I`/`--use-compress-program`,
/// `-F`/`--info-script`/`--new-volume-script`, `--rsh-command`.
pub fn tar(args: &[Word]) -> Option<String> {
    // The old form's first operand is a cluster without a dash (`tar xIf prog a.tar`).
    if let Some(first) = args.first().filter(|w| !w.text.starts_with('-')) {
        if first.text.contains(['I', 'F']) {
            return Some(format!("runs a command (`{}`)", first.text));
        }
    }
    options_that_run(
        args,
        &[
            "--to-command",
            "--checkpoint-action",
            "--use-compress-program",
            "--info-script",
            "--new-volume-script",
            "--rsh-command",
        ],
        &['I', 'F'],
    )
}

/// `rsync`: `-e`/`--rsh`, `--rsync-path`.
pub fn rsync(args: &[Word]) -> Option<String> {
    options_that_run(args, &["--rsh", "--rsync-path"], &['e'])
}

/// `zip`: `-TT`/`--unzip-command`.
pub fn zip(args: &[Word]) -> Option<String> {
    if args.iter().any(|w| w.text.starts_with("-TT")) {
        return Some("runs its test command (`-TT`)".into());
    }
    options_that_run(args, &["--unzip-command"], &[])
}

/// `man`: `-P`/`--pager`, `-H`/`--html`.
pub fn man(args: &[Word]) -> Option<String> {
    options_that_run(args, &["--pager", "--html"], &['P', 'H'])
}

/// `socat` addresses `EXEC:` and `SYSTEM:`; `nc -e`/`-c`.
pub fn socket(args: &[Word]) -> Option<String> {
    if let Some(word) = args.iter().find(|w| {
        let upper = w.text.to_ascii_uppercase();
        upper.contains("EXEC") || upper.contains("SYSTEM")
    }) {
        return Some(format!("runs a command (`{}`)", word.text));
    }
    options_that_run(args, &["--exec", "--sh-exec", "--lua-exec"], &['e', 'c'])
}

/// Whether `args` hold one of the long options `long` (`--opt` or `--opt=value`), a short
/// option of `short` (alone or in a cluster), or a computed word.
fn options_that_run(args: &[Word], long: &[&str], short: &[char]) -> Option<String> {
    args.iter().find_map(|word| {
        if !word.literal {
            return Some(format!("has a computed operand `{}`", word.text));
        }
        let text = word.text.as_str();
        if let Some(name) = text.strip_prefix("--") {
            let name = name.split('=').next().unwrap_or(name);
            if long.iter().any(|l| l.trim_start_matches('-') == name) {
                return Some(format!("runs a command (`{text}`)"));
            }
        } else if let Some(cluster) = text.strip_prefix('-') {
            if cluster.chars().any(|c| short.contains(&c)) {
                return Some(format!("runs a command (`{text}`)"));
            }
        }
        None
    })
}
