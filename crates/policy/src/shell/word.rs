//! Words: quotes removed, expansions classified, substitutions read as commands.

use brush_parser::word::{Parameter, ParameterExpr, WordPiece, WordPieceWithSource};

use super::walk::{options, Walker};
use super::{Construct, MAX_DEPTH};

/// One word of a command as bash will see it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Word {
    /// Unquoted (`'rm'` → `rm`, `\rm` → `rm`); what is computed is kept as written
    /// (`$HOME`, `$(…)`).
    pub text: String,
    /// Bash passes `text` on as exactly one word: nothing in it is expanded, substituted,
    /// globbed or brace-expanded.
    pub literal: bool,
}

impl Word {
    /// A literal word.
    pub fn literal(text: &str) -> Self {
        Self {
            text: text.to_owned(),
            literal: true,
        }
    }
}

/// What a run of pieces holds besides text.
#[derive(Debug, Default, Clone, Copy)]
struct Computed {
    /// An expansion or substitution.
    expands: bool,
    /// Unquoted glob or brace characters.
    pattern: bool,
}

impl Walker<'_> {
    /// A word unquoted, with what in it is computed. Command substitutions inside it are read
    /// as commands of their own; constructs that cannot be proven are recorded.
    pub(super) fn word(&mut self, word: &brush_parser::ast::Word) -> Word {
        self.word_text(&word.value)
    }

    /// [`Self::word`] of raw word text.
    pub(super) fn word_text(&mut self, raw: &str) -> Word {
        if raw.contains("$[") {
            // `$[1+1]`, bash's old arithmetic expansion, which the parser reads as text.
            self.unproven(Construct::Arithmetic, raw);
        }
        match brush_parser::word::parse(raw, &options()) {
            Ok(pieces) => {
                let (text, computed) = self.pieces(&pieces, raw, false);
                Word {
                    text,
                    literal: !computed.expands && !computed.pattern,
                }
            }
            Err(_) => {
                self.out.analysis.unreadable = true;
                Word {
                    text: raw.to_owned(),
                    literal: false,
                }
            }
        }
    }

    /// A here-document's body: expansions and substitutions as in double quotes.
    pub(super) fn heredoc(&mut self, pieces: &[WordPieceWithSource], source: &str) {
        self.pieces(pieces, source, true);
    }

    fn pieces(
        &mut self,
        pieces: &[WordPieceWithSource],
        source: &str,
        quoted: bool,
    ) -> (String, Computed) {
        let mut text = String::new();
        let mut computed = Computed::default();
        for piece in pieces {
            let written = source
                .get(piece.start_index..piece.end_index)
                .unwrap_or(source);
            match &piece.piece {
                WordPiece::Text(s) => {
                    let rest = source.get(piece.start_index..).unwrap_or("");
                    if !quoted && has_pattern(s, rest) {
                        computed.pattern = true;
                    }
                    text.push_str(s);
                }
                WordPiece::SingleQuotedText(s) => text.push_str(s),
                WordPiece::AnsiCQuotedText(s) => {
                    // `$'\x72m'` is `rm`: escapes are not decoded here, so such a word is
                    // not known as written.
                    text.push_str(s);
                    computed.expands |= s.contains('\\');
                }
                WordPiece::EscapeSequence(s) => text.push_str(s.strip_prefix('\\').unwrap_or(s)),
                WordPiece::DoubleQuotedSequence(inner) => {
                    let (inner, inner_computed) = self.pieces(inner, source, true);
                    text.push_str(&inner);
                    computed.expands |= inner_computed.expands;
                }
                WordPiece::GettextDoubleQuotedSequence(inner) => {
                    // `$"…"` is translated through a message catalog when it runs.
                    let (inner, _) = self.pieces(inner, source, true);
                    text.push_str(&inner);
                    computed.expands = true;
                }
                WordPiece::TildeExpansion(_) => {
                    text.push_str(written);
                    computed.expands = true;
                }
                WordPiece::ParameterExpansion(expr) => {
                    self.parameter(expr, written);
                    text.push_str(written);
                    computed.expands = true;
                }
                WordPiece::CommandSubstitution(inner) => {
                    self.nested_program(inner);
                    text.push_str(written);
                    computed.expands = true;
                }
                WordPiece::BackquotedCommandSubstitution(inner) => {
                    if inner.contains('\\') {
                        self.unproven(Construct::Backquotes, written);
                    }
                    self.nested_program(inner);
                    text.push_str(written);
                    computed.expands = true;
                }
                WordPiece::ArithmeticExpression(_) => {
                    self.unproven(Construct::Arithmetic, written);
                    text.push_str(written);
                    computed.expands = true;
                }
            }
        }
        (text, computed)
    }

    /// Reads `text` (a substitution's body) as a program one level deeper.
    pub(super) fn nested_program(&mut self, text: &str) {
        if self.depth + 1 > MAX_DEPTH {
            self.unproven(Construct::TooDeep, text);
            return;
        }
        super::walk::read_program(text, self.out, self.depth + 1);
    }

    /// A parameter expansion: which forms are proven, and the words inside it (defaults,
    /// patterns, replacements) read for the substitutions they may hold.
    fn parameter(&mut self, expr: &ParameterExpr, written: &str) {
        let (parameter, indirect, inner): (Option<&Parameter>, bool, Vec<&str>) = match expr {
            ParameterExpr::Parameter {
                parameter,
                indirect,
            }
            | ParameterExpr::ParameterLength {
                parameter,
                indirect,
            } => (Some(parameter), *indirect, vec![]),
            ParameterExpr::UseDefaultValues {
                parameter,
                indirect,
                default_value,
                ..
            } => (
                Some(parameter),
                *indirect,
                default_value.iter().map(String::as_str).collect(),
            ),
            ParameterExpr::UseAlternativeValue {
                parameter,
                indirect,
                alternative_value,
                ..
            } => (
                Some(parameter),
                *indirect,
                alternative_value.iter().map(String::as_str).collect(),
            ),
            ParameterExpr::IndicateErrorIfNullOrUnset {
                parameter,
                indirect,
                error_message,
                ..
            } => (
                Some(parameter),
                *indirect,
                error_message.iter().map(String::as_str).collect(),
            ),
            ParameterExpr::RemoveSmallestSuffixPattern {
                parameter,
                indirect,
                pattern,
            }
            | ParameterExpr::RemoveLargestSuffixPattern {
                parameter,
                indirect,
                pattern,
            }
            | ParameterExpr::RemoveSmallestPrefixPattern {
                parameter,
                indirect,
                pattern,
            }
            | ParameterExpr::RemoveLargestPrefixPattern {
                parameter,
                indirect,
                pattern,
            }
            | ParameterExpr::UppercaseFirstChar {
                parameter,
                indirect,
                pattern,
            }
            | ParameterExpr::UppercasePattern {
                parameter,
                indirect,
                pattern,
            }
            | ParameterExpr::LowercaseFirstChar {
                parameter,
                indirect,
                pattern,
            }
            | ParameterExpr::LowercasePattern {
                parameter,
                indirect,
                pattern,
            } => (
                Some(parameter),
                *indirect,
                pattern.iter().map(String::as_str).collect(),
            ),
            ParameterExpr::ReplaceSubstring {
                parameter,
                indirect,
                pattern,
                replacement,
                ..
            } => (
                Some(parameter),
                *indirect,
                std::iter::once(pattern.as_str())
                    .chain(replacement.as_deref())
                    .collect(),
            ),
            ParameterExpr::VariableNames { .. } | ParameterExpr::MemberKeys { .. } => {
                (None, false, vec![])
            }
            ParameterExpr::AssignDefaultValues { .. } => {
                // `${PATH:=/evil}` assigns as it expands.
                self.unproven(Construct::Assignment(parameter_name(expr)), written);
                return;
            }
            ParameterExpr::Substring { .. } => {
                self.unproven(Construct::Arithmetic, written);
                return;
            }
            ParameterExpr::Transform { .. } => {
                self.unproven(Construct::Transformation, written);
                return;
            }
        };
        if indirect {
            self.unproven(Construct::Indirection, written);
        }
        if let Some(Parameter::NamedWithIndex { .. }) = parameter {
            self.unproven(Construct::Subscript, written);
        }
        for text in inner {
            self.word_text(text);
        }
    }
}

/// Whether unquoted `text` makes bash expand its word into file names or several words:
/// `*` and `?`, or a `[` or `{` closed later in the word (`rest`, from `text` on); a lone `[`
/// (the `test` command) or `{` stays itself.
fn has_pattern(text: &str, rest: &str) -> bool {
    if text.contains(['*', '?']) {
        return true;
    }
    [('[', ']'), ('{', '}')].iter().any(|(open, close)| {
        text.find(*open).is_some_and(|at| {
            rest.get(at + 1..)
                .is_some_and(|after| after.contains(*close))
        })
    })
}

fn parameter_name(expr: &ParameterExpr) -> String {
    match expr {
        ParameterExpr::AssignDefaultValues { parameter, .. } => match parameter {
            Parameter::Named(name)
            | Parameter::NamedWithIndex { name, .. }
            | Parameter::NamedWithAllIndices { name, .. } => name.clone(),
            other => other.to_string(),
        },
        _ => String::new(),
    }
}
