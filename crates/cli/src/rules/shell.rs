//! Reading a Bash command the way the shell will: every simple command it runs, wherever it
//! sits (pipelines, `&&`/`||`/`;` lists, subshells, groups, `if`/`for`/`while`/`case` bodies,
//! functions, command and process substitutions, here-documents, `bash -c` and `eval`
//! strings), each with its words unquoted and its redirections.
//!
//! The parser is `brush-parser`, the parser of the brush shell (a POSIX and bash grammar with
//! a word-level parser for quotes and substitutions), rather than splitting text by hand: a
//! quote, a backslash or a substitution then cannot hide a command from the rules.

use brush_parser::ast::{
    Command, CommandPrefixOrSuffixItem, CompoundCommand, CompoundList, IoFileRedirectKind,
    IoFileRedirectTarget, IoRedirect, Pipeline, Program, SimpleCommand, Word,
};
use brush_parser::word::{WordPiece, WordPieceWithSource};
use brush_parser::ParserOptions;

/// How deep `bash -c`, `eval` and substitutions may nest before the command is not read.
const MAX_DEPTH: usize = 8;

/// Commands that run the command named by their arguments. For deny rules the words after
/// one are read again as a command of their own (`sudo rm -rf ~` is an `rm`).
const WRAPPERS: &[&str] = &[
    "sudo",
    "doas",
    "env",
    "command",
    "builtin",
    "exec",
    "nohup",
    "timeout",
    "xargs",
    "nice",
    "ionice",
    "time",
    "stdbuf",
    "setsid",
    "chroot",
    "unbuffer",
    "watch",
    "strace",
    "ltrace",
    "taskset",
    "chrt",
    "flock",
    "runuser",
    "su",
    "busybox",
    "caffeinate",
    "then",
    "do",
    "!",
];

/// Shells whose `-c` argument is a command, and `eval`, whose arguments are.
const SHELLS: &[&str] = &[
    "sh", "bash", "zsh", "dash", "ksh", "mksh", "fish", "busybox",
];

/// One simple command the shell would run.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SimpleCmd {
    /// Its assignments (`X=1`), unquoted, as written before the command word.
    pub assignments: Vec<String>,
    /// The command word and its arguments, unquoted (`'rm'` → `rm`, `\rm` → `rm`).
    pub words: Vec<String>,
    /// The command word is computed (`$cmd`, `$(…)`): no rule can know what runs.
    pub dynamic_name: bool,
    /// The files it writes through a redirection (`>`, `>>`, `<>`, `>|`, `&>`; not
    /// `/dev/null`, `/dev/stdout` or `/dev/stderr`), unquoted, each with whether its name is
    /// computed.
    pub written_files: Vec<(String, bool)>,
    /// It has any redirection besides duplicating a descriptor.
    pub redirects: bool,
}

impl SimpleCmd {
    /// Notes a file written through a redirection.
    fn wrote(&mut self, path: String, dynamic: bool) {
        if !is_harmless_sink(&path) {
            self.written_files.push((path, dynamic));
        }
    }

    /// The command as written, unquoted: assignments, then the words, one space apart. What
    /// allow rules match.
    pub fn written(&self) -> String {
        self.assignments
            .iter()
            .chain(&self.words)
            .map(String::as_str)
            .collect::<Vec<_>>()
            .join(" ")
    }

    /// The forms deny rules match: the words without assignments and with the command word's
    /// path taken off (`/bin/rm` → `rm`), and after a wrapper (`sudo`, `env`, `timeout`, …)
    /// every later run of words read the same way (`sudo -u root rm -rf ~` → `rm -rf ~`, among
    /// others: a deny rule may match more than what runs, never less).
    pub fn deny_forms(&self) -> Vec<String> {
        let mut forms = Vec::new();
        push_forms(&self.words, &mut forms, 0);
        forms
    }
}

fn push_forms(words: &[String], forms: &mut Vec<String>, depth: usize) {
    let Some((first, rest)) = words.split_first() else {
        return;
    };
    let name = command_name(first);
    let mut form = vec![name.clone()];
    form.extend(rest.iter().cloned());
    forms.push(form.join(" "));
    if depth < MAX_DEPTH && (WRAPPERS.contains(&name.as_str()) || is_assignment(&name)) {
        for start in 0..rest.len() {
            if !is_assignment(&rest[start]) || start + 1 == rest.len() {
                push_forms(&rest[start..], forms, depth + 1);
            }
        }
    }
}

/// A command word without its directory (`/usr/bin/rm` → `rm`, `./x` → `x`).
fn command_name(word: &str) -> String {
    word.rsplit('/').next().unwrap_or(word).to_owned()
}

/// `NAME=value`, as `env` takes it.
fn is_assignment(word: &str) -> bool {
    word.split_once('=').is_some_and(|(name, _)| {
        !name.is_empty()
            && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
            && !name.starts_with(|c: char| c.is_ascii_digit())
    })
}

/// What a command holds.
#[derive(Debug, Default)]
pub struct Analysis {
    /// Every simple command, in the order written.
    pub commands: Vec<SimpleCmd>,
    /// The parser could not read the command (or it nests too deep): nothing can be allowed.
    pub unreadable: bool,
}

/// Reads `command` as bash would.
pub fn analyze(command: &str) -> Analysis {
    let mut analysis = Analysis::default();
    read_program(command, &mut analysis, 0);
    analysis
}

fn options() -> ParserOptions {
    ParserOptions::default()
}

fn read_program(text: &str, out: &mut Analysis, depth: usize) {
    if depth > MAX_DEPTH {
        out.unreadable = true;
        return;
    }
    let mut parser = brush_parser::Parser::new(std::io::Cursor::new(text), &options());
    match parser.parse_program() {
        Ok(program) => Walker { out, depth }.program(&program),
        Err(_) => out.unreadable = true,
    }
}

struct Walker<'a> {
    out: &'a mut Analysis,
    depth: usize,
}

impl Walker<'_> {
    fn program(&mut self, program: &Program) {
        for list in &program.complete_commands {
            self.list(list);
        }
    }

    fn list(&mut self, list: &CompoundList) {
        for item in &list.0 {
            self.pipeline(&item.0.first);
            for next in &item.0.additional {
                match next {
                    brush_parser::ast::AndOr::And(p) | brush_parser::ast::AndOr::Or(p) => {
                        self.pipeline(p)
                    }
                }
            }
        }
    }

    fn pipeline(&mut self, pipeline: &Pipeline) {
        for command in &pipeline.seq {
            self.command(command);
        }
    }

    fn command(&mut self, command: &Command) {
        match command {
            Command::Simple(simple) => self.simple(simple),
            Command::Compound(compound, redirects) => {
                self.compound(compound);
                if let Some(redirects) = redirects {
                    // A group's redirections apply to every command in it.
                    let mut effect = SimpleCmd::default();
                    for redirect in &redirects.0 {
                        self.redirect(redirect, &mut effect);
                    }
                    self.apply_to_last(effect);
                }
            }
            Command::Function(function) => {
                self.compound(&function.body.0);
                if let Some(redirects) = &function.body.1 {
                    let mut effect = SimpleCmd::default();
                    for redirect in &redirects.0 {
                        self.redirect(redirect, &mut effect);
                    }
                    self.apply_to_last(effect);
                }
            }
            Command::ExtendedTest(test, _) => {
                // `[[ … ]]` runs nothing unless a word substitutes a command.
                let text = test.expr.to_string();
                if text.contains("$(") || text.contains('`') || text.contains("<(") {
                    self.out.unreadable = true;
                }
            }
        }
    }

    /// Marks every command read so far with a group's redirections (the group's commands
    /// are the last ones pushed; marking more can only ask more).
    fn apply_to_last(&mut self, effect: SimpleCmd) {
        for command in &mut self.out.commands {
            command.redirects |= effect.redirects;
            command
                .written_files
                .extend(effect.written_files.iter().cloned());
        }
    }

    fn compound(&mut self, compound: &CompoundCommand) {
        match compound {
            CompoundCommand::BraceGroup(group) => self.list(&group.list),
            CompoundCommand::Subshell(subshell) => self.list(&subshell.list),
            CompoundCommand::ForClause(clause) => {
                for value in clause.values.iter().flatten() {
                    self.word(value);
                }
                self.list(&clause.body.list);
            }
            CompoundCommand::CaseClause(clause) => {
                self.word(&clause.value);
                for case in &clause.cases {
                    for pattern in &case.patterns {
                        self.word(pattern);
                    }
                    if let Some(list) = &case.cmd {
                        self.list(list);
                    }
                }
            }
            CompoundCommand::IfClause(clause) => {
                self.list(&clause.condition);
                self.list(&clause.then);
                for other in clause.elses.iter().flatten() {
                    if let Some(condition) = &other.condition {
                        self.list(condition);
                    }
                    self.list(&other.body);
                }
            }
            CompoundCommand::WhileClause(clause) | CompoundCommand::UntilClause(clause) => {
                self.list(&clause.0);
                self.list(&clause.1.list);
            }
            CompoundCommand::Coprocess(coprocess) => self.command(&coprocess.body),
            CompoundCommand::Arithmetic(_) | CompoundCommand::ArithmeticForClause(_) => {
                // `(( … ))` may hold `$( … )`, which this reader does not follow into.
                let text = format!("{compound}");
                if text.contains("$(") || text.contains('`') {
                    self.out.unreadable = true;
                }
            }
        }
    }

    fn simple(&mut self, simple: &SimpleCommand) {
        let mut command = SimpleCmd::default();
        for item in simple.prefix.iter().flat_map(|p| &p.0) {
            self.item(item, &mut command, true);
        }
        if let Some(name) = &simple.word_or_name {
            let (text, dynamic) = self.word(name);
            command.dynamic_name = dynamic;
            command.words.push(text);
        }
        for item in simple.suffix.iter().flat_map(|s| &s.0) {
            self.item(item, &mut command, false);
        }
        if command.words.is_empty() && command.assignments.is_empty() && !command.redirects {
            return;
        }
        self.nested_scripts(&command);
        self.out.commands.push(command);
    }

    fn item(&mut self, item: &CommandPrefixOrSuffixItem, command: &mut SimpleCmd, prefix: bool) {
        match item {
            CommandPrefixOrSuffixItem::IoRedirect(redirect) => self.redirect(redirect, command),
            CommandPrefixOrSuffixItem::Word(word) => {
                let (text, dynamic) = self.word(word);
                if command.words.is_empty() {
                    command.dynamic_name |= dynamic;
                }
                command.words.push(text);
            }
            CommandPrefixOrSuffixItem::AssignmentWord(_, word) => {
                let (text, _) = self.word(word);
                if prefix {
                    command.assignments.push(text);
                } else {
                    command.words.push(text);
                }
            }
            CommandPrefixOrSuffixItem::ProcessSubstitution(_, subshell) => {
                self.list(&subshell.list);
                command.words.push("<(…)".to_owned());
            }
        }
    }

    fn redirect(&mut self, redirect: &IoRedirect, command: &mut SimpleCmd) {
        match redirect {
            IoRedirect::File(_, kind, target) => {
                let writes = matches!(
                    kind,
                    IoFileRedirectKind::Write
                        | IoFileRedirectKind::Append
                        | IoFileRedirectKind::ReadAndWrite
                        | IoFileRedirectKind::Clobber
                );
                match target {
                    IoFileRedirectTarget::Filename(word) => {
                        let (path, dynamic) = self.word(word);
                        command.redirects = true;
                        if writes {
                            command.wrote(path, dynamic);
                        }
                    }
                    IoFileRedirectTarget::Fd(_) => {}
                    IoFileRedirectTarget::Duplicate(word) => {
                        // `>&file` writes a file unless the word is a descriptor.
                        let (target, dynamic) = self.word(word);
                        if !target.chars().all(|c| c.is_ascii_digit() || c == '-') {
                            command.redirects = true;
                            command.wrote(target, dynamic);
                        }
                    }
                    IoFileRedirectTarget::ProcessSubstitution(_, subshell) => {
                        command.redirects = true;
                        self.list(&subshell.list);
                    }
                }
            }
            IoRedirect::OutputAndError(word, _) => {
                let (path, dynamic) = self.word(word);
                command.redirects = true;
                command.wrote(path, dynamic);
            }
            IoRedirect::HereString(_, word) => {
                command.redirects = true;
                self.word(word);
            }
            IoRedirect::HereDocument(_, doc) => {
                command.redirects = true;
                if doc.requires_expansion {
                    match brush_parser::word::parse_heredoc(&doc.doc.value, &options()) {
                        Ok(pieces) => {
                            self.pieces(&pieces, &doc.doc.value);
                        }
                        Err(_) => self.out.unreadable = true,
                    }
                }
            }
        }
    }

    /// A word unquoted, and whether any of it is computed. Command substitutions inside it
    /// are read as commands of their own.
    fn word(&mut self, word: &Word) -> (String, bool) {
        match brush_parser::word::parse(&word.value, &options()) {
            Ok(pieces) => self.pieces(&pieces, &word.value),
            Err(_) => {
                self.out.unreadable = true;
                (word.value.clone(), true)
            }
        }
    }

    fn pieces(&mut self, pieces: &[WordPieceWithSource], source: &str) -> (String, bool) {
        let mut text = String::new();
        let mut dynamic = false;
        for piece in pieces {
            match &piece.piece {
                WordPiece::Text(s) | WordPiece::SingleQuotedText(s) => text.push_str(s),
                WordPiece::AnsiCQuotedText(s) => {
                    // `$'\x72m'` is `rm`: the escapes are not decoded here, so the word is
                    // treated as computed.
                    text.push_str(s);
                    dynamic |= s.contains('\\');
                }
                WordPiece::EscapeSequence(s) => text.push_str(s.strip_prefix('\\').unwrap_or(s)),
                WordPiece::DoubleQuotedSequence(inner)
                | WordPiece::GettextDoubleQuotedSequence(inner) => {
                    let (inner, computed) = self.pieces(inner, source);
                    text.push_str(&inner);
                    dynamic |= computed;
                }
                WordPiece::TildeExpansion(_) => text.push('~'),
                WordPiece::ParameterExpansion(_) => {
                    let written = source
                        .get(piece.start_index..piece.end_index)
                        .unwrap_or("$…");
                    if written.contains("$(") || written.contains('`') {
                        // `${x:-$(rm y)}`: a substitution this reader does not follow into.
                        self.out.unreadable = true;
                    }
                    text.push_str(written);
                    dynamic = true;
                }
                WordPiece::CommandSubstitution(inner)
                | WordPiece::BackquotedCommandSubstitution(inner) => {
                    read_program(inner, self.out, self.depth + 1);
                    text.push_str("$(…)");
                    dynamic = true;
                }
                WordPiece::ArithmeticExpression(expr) => {
                    let source = expr.value.clone();
                    if source.contains("$(") || source.contains('`') {
                        self.out.unreadable = true;
                    }
                    text.push_str("$((…))");
                    dynamic = true;
                }
            }
        }
        (text, dynamic)
    }

    /// `bash -c 'rm x'`, `eval 'rm x'`: the string is a command too.
    fn nested_scripts(&mut self, command: &SimpleCmd) {
        // After a wrapper too: `sudo bash -c '…'`.
        for start in 0..command.words.len() {
            let name = command_name(&command.words[start]);
            let rest = &command.words[start + 1..];
            let scripts: Vec<&String> = if name == "eval" {
                rest.iter().collect()
            } else if SHELLS.contains(&name.as_str()) {
                // The first argument after an option cluster holding `c` (`-c`, `-lc`, `-ec`).
                rest.iter()
                    .position(|w| w.starts_with('-') && !w.starts_with("--") && w.contains('c'))
                    .and_then(|at| rest.get(at + 1))
                    .into_iter()
                    .collect()
            } else {
                Vec::new()
            };
            for script in scripts {
                read_program(script, self.out, self.depth + 1);
            }
            if !WRAPPERS.contains(&name.as_str()) && !is_assignment(&name) && start > 0 {
                break;
            }
        }
    }
}

/// Redirection targets that write nothing anyone keeps.
fn is_harmless_sink(path: &str) -> bool {
    matches!(path, "/dev/null" | "/dev/stdout" | "/dev/stderr")
}
