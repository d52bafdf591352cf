//! The walk over the parsed command: every place a command can be, every redirection, and
//! each simple command classified (builtin, program, executor) as it is read.

use brush_parser::ast::{
    AndOr, Assignment, AssignmentName, AssignmentValue, BinaryPredicate, Command as AstCommand,
    CommandPrefixOrSuffixItem, CompoundCommand, CompoundList, ExtendedTestExpr, IoFileRedirectKind,
    IoFileRedirectTarget, IoRedirect, Pipeline, Program, RedirectList, SimpleCommand,
    UnaryPredicate,
};
use brush_parser::ParserOptions;

use super::builtins;
use super::known;
use super::programs::{self, Verdict};
use super::variables;
use super::{base_name, Command, Construct, Role, Scan, Word, MAX_DEPTH};

/// The parser's options: bash's, with `extglob` off as in the shell Claude Code runs
/// commands in (it turns it off before each command).
pub(super) fn options() -> ParserOptions {
    ParserOptions {
        enable_extended_globbing: false,
        ..ParserOptions::default()
    }
}

/// Reads `text` as a program into `out`, `depth` levels inside another.
pub(super) fn read_program(text: &str, out: &mut Scan, depth: usize) {
    if depth > MAX_DEPTH {
        out.unproven(Construct::TooDeep, text);
        return;
    }
    let mut parser = brush_parser::Parser::new(std::io::Cursor::new(text), &options());
    match parser.parse_program() {
        Ok(program) => Walker { out, depth }.program(&program),
        Err(_) => out.analysis.unreadable = true,
    }
}

/// Shells, `eval` and `trap`: their operands may be scripts. Whatever else, such a command is
/// not proven; its operands are read as scripts too so that a deny rule sees what they run.
const SCRIPT_TAKERS: &[&str] = &[
    "sh", "bash", "dash", "zsh", "ksh", "mksh", "yash", "rbash", "eval", "trap", "su", "sudo",
    "doas", "runuser", "script", "watch", "ssh", "flock", "xargs", "parallel", "setsid", "nohup",
    "env", "timeout", "nice", "busybox", "find",
];

pub(super) struct Walker<'a> {
    pub(super) out: &'a mut Scan,
    pub(super) depth: usize,
}

impl Walker<'_> {
    pub(super) fn unproven(&mut self, construct: Construct, near: impl Into<String>) {
        self.out.unproven(construct, near);
    }

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
                    AndOr::And(p) | AndOr::Or(p) => self.pipeline(p),
                }
            }
        }
    }

    fn pipeline(&mut self, pipeline: &Pipeline) {
        for command in &pipeline.seq {
            self.command(command);
        }
    }

    fn command(&mut self, command: &AstCommand) {
        match command {
            AstCommand::Simple(simple) => self.simple(simple),
            AstCommand::Compound(compound, redirects) => {
                self.compound(compound);
                self.group_redirects(redirects.as_ref());
            }
            AstCommand::Function(function) => {
                self.compound(&function.body.0);
                self.group_redirects(function.body.1.as_ref());
            }
            AstCommand::ExtendedTest(test, redirects) => {
                self.test_expression(&test.expr);
                self.group_redirects(redirects.as_ref());
            }
        }
    }

    /// A group's redirections apply to every command in it; they are marked on every command
    /// read so far (marking more can only ask more).
    fn group_redirects(&mut self, redirects: Option<&RedirectList>) {
        let Some(redirects) = redirects else {
            return;
        };
        let mut effect = Command::default();
        for redirect in &redirects.0 {
            self.redirect(redirect, &mut effect);
        }
        let reads = std::mem::take(&mut self.out.pending_reads);
        if self.out.analysis.commands.is_empty()
            && (effect.redirects || !effect.written_files.is_empty())
        {
            self.out.push(effect, None, reads);
            return;
        }
        for command in &mut self.out.analysis.commands {
            command.redirects |= effect.redirects;
            command
                .written_files
                .extend(effect.written_files.iter().cloned());
        }
        for info in &mut self.out.info {
            info.reads.extend(reads.iter().cloned());
        }
    }

    /// `[[ … ]]`: string and file tests run nothing but their words' substitutions; the
    /// arithmetic comparisons evaluate their operands, `-v` and `-R` name a variable.
    fn test_expression(&mut self, expr: &ExtendedTestExpr) {
        match expr {
            ExtendedTestExpr::And(a, b) | ExtendedTestExpr::Or(a, b) => {
                self.test_expression(a);
                self.test_expression(b);
            }
            ExtendedTestExpr::Not(a) | ExtendedTestExpr::Parenthesized(a) => {
                self.test_expression(a)
            }
            ExtendedTestExpr::UnaryTest(predicate, word) => {
                if matches!(
                    predicate,
                    UnaryPredicate::ShellVariableIsSetAndAssigned
                        | UnaryPredicate::ShellVariableIsSetAndNameRef
                ) {
                    self.unproven(Construct::Indirection, format!("[[ {expr} ]]"));
                }
                self.word(word);
            }
            ExtendedTestExpr::BinaryTest(predicate, left, right) => {
                if matches!(
                    predicate,
                    BinaryPredicate::ArithmeticEqualTo
                        | BinaryPredicate::ArithmeticNotEqualTo
                        | BinaryPredicate::ArithmeticLessThan
                        | BinaryPredicate::ArithmeticLessThanOrEqualTo
                        | BinaryPredicate::ArithmeticGreaterThan
                        | BinaryPredicate::ArithmeticGreaterThanOrEqualTo
                ) {
                    self.unproven(Construct::Arithmetic, format!("[[ {expr} ]]"));
                }
                self.word(left);
                self.word(right);
            }
        }
    }

    fn compound(&mut self, compound: &CompoundCommand) {
        match compound {
            CompoundCommand::BraceGroup(group) => self.list(&group.list),
            CompoundCommand::Subshell(subshell) => self.list(&subshell.list),
            CompoundCommand::ForClause(clause) => {
                self.variable(&clause.variable_name);
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
            CompoundCommand::Coprocess(coprocess) => {
                if let Some(name) = &coprocess.name {
                    let name = self.word(name);
                    self.variable(&name.text);
                }
                self.command(&coprocess.body);
            }
            CompoundCommand::Arithmetic(_) | CompoundCommand::ArithmeticForClause(_) => {
                self.unproven(Construct::Arithmetic, compound.to_string());
            }
        }
    }

    /// A variable the command assigns (a loop's, a coprocess's).
    fn variable(&mut self, name: &str) {
        if !variables::is_harmless_variable(name) {
            self.unproven(Construct::Assignment(name.to_owned()), name);
        }
    }

    fn simple(&mut self, simple: &SimpleCommand) {
        let mut command = Command::default();
        for item in simple.prefix.iter().flat_map(|p| &p.0) {
            self.item(item, &mut command, true);
        }
        if let Some(name) = &simple.word_or_name {
            let word = self.word(name);
            command.words.push(word);
        }
        for item in simple.suffix.iter().flat_map(|s| &s.0) {
            self.item(item, &mut command, false);
        }
        let reads = std::mem::take(&mut self.out.pending_reads);
        if command.words.is_empty() && command.assignments.is_empty() && !command.redirects {
            return;
        }
        let at = self.out.push(command.clone(), None, reads);
        self.classify(&command, at, self.depth);
    }

    fn item(&mut self, item: &CommandPrefixOrSuffixItem, command: &mut Command, prefix: bool) {
        match item {
            CommandPrefixOrSuffixItem::IoRedirect(redirect) => self.redirect(redirect, command),
            CommandPrefixOrSuffixItem::Word(word) => {
                let word = self.word(word);
                command.words.push(word);
            }
            CommandPrefixOrSuffixItem::AssignmentWord(assignment, raw) => {
                let word = self.assignment(assignment, raw, prefix);
                if prefix {
                    command.assignments.push(word);
                } else {
                    command.words.push(word);
                }
            }
            CommandPrefixOrSuffixItem::ProcessSubstitution(_, subshell) => {
                self.list(&subshell.list);
                command.words.push(Word {
                    text: "<(…)".into(),
                    literal: false,
                });
            }
        }
    }

    /// `NAME=value`: the value read for its substitutions; before a command (or alone) the
    /// name must be harmless. After a command word it is an operand (`export X=1`), checked
    /// by the builtin that takes it.
    fn assignment(
        &mut self,
        assignment: &Assignment,
        raw: &brush_parser::ast::Word,
        prefix: bool,
    ) -> Word {
        let name = match &assignment.name {
            AssignmentName::VariableName(name) => name.clone(),
            AssignmentName::ArrayElementName(name, index) => {
                self.unproven(Construct::Subscript, &raw.value);
                format!("{name}[{index}]")
            }
        };
        if prefix {
            self.variable(&name);
        }
        let (value, literal) = match &assignment.value {
            AssignmentValue::Scalar(word) => {
                let value = self.word(word);
                (value.text, value.literal)
            }
            AssignmentValue::Array(items) => {
                for (key, value) in items {
                    if key.is_some() {
                        self.unproven(Construct::Subscript, &raw.value);
                    }
                    self.word(value);
                }
                ("(…)".to_owned(), false)
            }
        };
        let operator = if assignment.append { "+=" } else { "=" };
        Word {
            text: format!("{name}{operator}{value}"),
            literal,
        }
    }

    fn redirect(&mut self, redirect: &IoRedirect, command: &mut Command) {
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
                        let path = self.word(word);
                        command.redirects = true;
                        if writes {
                            command.wrote(path.text, !path.literal);
                        } else {
                            self.out.pending_reads.push((path.text, !path.literal));
                        }
                    }
                    IoFileRedirectTarget::Fd(_) => {}
                    IoFileRedirectTarget::Duplicate(word) => {
                        // `>&file` writes a file unless the word is a descriptor.
                        let target = self.word(word);
                        if !target.literal
                            || !target.text.chars().all(|c| c.is_ascii_digit() || c == '-')
                        {
                            command.redirects = true;
                            command.wrote(target.text, !target.literal);
                        }
                    }
                    IoFileRedirectTarget::ProcessSubstitution(_, subshell) => {
                        command.redirects = true;
                        self.list(&subshell.list);
                    }
                }
            }
            IoRedirect::OutputAndError(word, _) => {
                let path = self.word(word);
                command.redirects = true;
                command.wrote(path.text, !path.literal);
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
                            self.heredoc(&pieces, &doc.doc.value);
                        }
                        Err(_) => self.out.analysis.unreadable = true,
                    }
                }
            }
        }
    }

    /// What `command` (the one at `at`) runs besides itself: the command of a wrapper, read as
    /// a command of its own; what cannot be proven is recorded, and what the tables know of
    /// the program noted for the rules.
    fn classify(&mut self, command: &Command, at: usize, depth: usize) {
        let Some(first) = command.words.first() else {
            return;
        };
        if !first.literal {
            let construct = if first.text.contains(['*', '?', '[', '{', '}']) {
                Construct::PatternName
            } else {
                Construct::ComputedName
            };
            self.unproven(construct, command.written());
            return;
        }
        let name = first.text.as_str();
        let args = &command.words[1..];
        let program = base_name(name);
        let (verdict, builtin) = match builtins::check(name, args) {
            Some(verdict) if !name.contains('/') => (verdict, true),
            _ => (programs::check(program, args), false),
        };
        match verdict {
            Verdict::Plain if builtin => self.out.info[at].role = Role::Builtin,
            Verdict::Plain => {
                self.out.info[at].role = match known::known(program) {
                    Some(entry) => match entry.judge(args).runs {
                        None => Role::Known,
                        Some(why) => {
                            let why = Construct::Executor(format!("`{program}` {why}"));
                            self.out.soft(at, why, command.written());
                            Role::Executor
                        }
                    },
                    None => Role::Unknown,
                };
            }
            Verdict::Unproven(construct) => {
                if builtin || !matches!(construct, Construct::Executor(_)) {
                    self.unproven(construct, command.written());
                } else {
                    self.out.soft(at, construct, command.written());
                    self.out.info[at].role = Role::Executor;
                }
                if SCRIPT_TAKERS.contains(&program) {
                    self.operands_as_scripts(args, at);
                }
            }
            Verdict::Unwrap(start) => {
                self.out.info[at].role = Role::Wrapper;
                if depth >= MAX_DEPTH {
                    self.unproven(Construct::TooDeep, command.written());
                    return;
                }
                let inner = Command {
                    words: args[start..].to_vec(),
                    nested: true,
                    ..Command::default()
                };
                let inner_at = self.out.push(inner.clone(), Some(at), Vec::new());
                self.classify(&inner, inner_at, depth + 1);
            }
        }
    }

    /// Reads each literal operand of an unproven command as a script, so that deny rules see
    /// the commands a shell string, `eval` or `trap` would run. The analysis is unproven
    /// already; only the commands are kept.
    fn operands_as_scripts(&mut self, args: &[Word], parent: usize) {
        if self.depth + 1 > MAX_DEPTH {
            return;
        }
        let joined = args
            .iter()
            .map(|w| w.text.as_str())
            .collect::<Vec<_>>()
            .join(" ");
        for script in args
            .iter()
            .map(|w| w.text.as_str())
            .chain([joined.as_str()])
        {
            let mut scratch = Scan::default();
            read_program(script, &mut scratch, self.depth + 1);
            for mut command in scratch.analysis.commands {
                command.nested = true;
                self.out.push(command, Some(parent), Vec::new());
            }
        }
    }
}
