//! User diagnostics (D5: every violation is collected before failing) and internal errors.
//!
//! Diagnostics carry byte ranges into one of the compile's sources; line and column are computed
//! once, by [`render`], where the error is shown.

use std::sync::Arc;

/// Maps byte offsets of one source text to 1-based lines and columns.
///
/// Columns count characters, not bytes, so a caret lines up under non-ASCII text.
#[derive(Debug, Clone)]
pub struct LineIndex {
    line_starts: Vec<usize>,
}

impl LineIndex {
    /// The line starts of `text`.
    pub fn new(text: &str) -> Self {
        let mut line_starts = vec![0];
        for (i, b) in text.bytes().enumerate() {
            if b == b'\n' {
                line_starts.push(i + 1);
            }
        }
        LineIndex { line_starts }
    }

    /// 1-based (line, column) of a byte offset.
    pub fn line_col(&self, text: &str, offset: usize) -> (usize, usize) {
        let offset = offset.min(text.len());
        let line = match self.line_starts.binary_search(&offset) {
            Ok(i) => i,
            Err(i) => i - 1,
        };
        let start = self.line_starts[line];
        let col = text
            .get(start..offset)
            .map_or(offset - start, |s| s.chars().count());
        (line + 1, col + 1)
    }

    /// The text of a 1-based line, without its newline.
    pub fn line_text<'a>(&self, text: &'a str, line: usize) -> &'a str {
        let Some(&start) = self.line_starts.get(line.saturating_sub(1)) else {
            return "";
        };
        let end = self.line_starts.get(line).map_or(text.len(), |&e| e);
        text.get(start..end)
            .unwrap_or("")
            .trim_end_matches(['\n', '\r'])
    }
}

/// What went wrong, one variant per rule the user can break.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DiagnosticKind {
    /// The source does not parse.
    Syntax,
    /// Input too deeply nested or too large to compile safely.
    TooComplex,
    /// `range()` whose bounds are not known at generation time (D6).
    DynamicRange,
    /// A loop other than `for name in range(...)`, or with `else`/`break`/`continue`.
    UnsupportedLoop,
    /// A statement with no vectorized meaning (`try`, `with`, `raise`, `del`, `import`, ...).
    UnsupportedStatement,
    /// An expression with no vectorized meaning (strings, comprehensions, containers, ...).
    UnsupportedExpression,
    /// An operator with no exact Array API lowering (`@`, `<<`, `is`, `in`, ...).
    UnsupportedOperator,
    /// A call of a function the compiler does not know and cannot vectorize (D7).
    UnknownCall,
    /// A call with the wrong number or kind of arguments.
    BadArguments,
    /// A name bound to nothing the compiler can use.
    UndefinedName,
    /// A helper that calls itself, directly or not (D7).
    Recursion,
    /// `global` / `nonlocal` writes.
    NonlocalWrite,
    /// An expression statement or call whose effect would be lost (`print`, ...).
    SideEffect,
    /// A variable read where some lanes never assigned it, not yet tracked (D20: the function
    /// is lowered again with a flag of the lanes that assigned it).
    MaybeUndefined,
    /// `*args`, `**kwargs` and other signatures the wrapper cannot reproduce.
    UnsupportedSignature,
    /// An integer literal outside the range the compiler represents exactly.
    ValueOutOfRange,
    /// A construct lowering gave up on without saying why: a compiler bug, rejected (D10)
    /// rather than compiled with a stand-in value.
    Unexplained,
}

impl DiagnosticKind {
    /// Stable identifier, exposed to Python as `Diagnostic.code`.
    pub fn code(self) -> &'static str {
        match self {
            DiagnosticKind::Syntax => "syntax",
            DiagnosticKind::TooComplex => "too-complex",
            DiagnosticKind::DynamicRange => "dynamic-range",
            DiagnosticKind::UnsupportedLoop => "unsupported-loop",
            DiagnosticKind::UnsupportedStatement => "unsupported-statement",
            DiagnosticKind::UnsupportedExpression => "unsupported-expression",
            DiagnosticKind::UnsupportedOperator => "unsupported-operator",
            DiagnosticKind::UnknownCall => "unknown-call",
            DiagnosticKind::BadArguments => "bad-arguments",
            DiagnosticKind::UndefinedName => "undefined-name",
            DiagnosticKind::Recursion => "recursion",
            DiagnosticKind::NonlocalWrite => "nonlocal-write",
            DiagnosticKind::SideEffect => "side-effect",
            DiagnosticKind::MaybeUndefined => "maybe-undefined",
            DiagnosticKind::UnsupportedSignature => "unsupported-signature",
            DiagnosticKind::ValueOutOfRange => "value-out-of-range",
            DiagnosticKind::Unexplained => "internal-unexplained",
        }
    }
}

/// Index of a source text registered with the compile session (0 is the function itself).
pub type SourceId = usize;

/// One violation, positioned by byte range in one of the session's sources.
#[derive(Debug, Clone, PartialEq)]
pub struct Diagnostic {
    pub kind: DiagnosticKind,
    pub message: String,
    pub source: SourceId,
    pub start: usize,
    pub end: usize,
}

/// A source text the session compiles from, with where it sits in its file.
///
/// The text and its line index are shared: the functions of a module compiled statically all
/// register the module's one text (src/frontend/tree.rs), each under a source id of its own.
#[derive(Debug, Clone)]
pub struct SourceText {
    pub path: String,
    pub text: Arc<str>,
    /// 1-based line in `path` of the text's first line.
    pub first_line: usize,
    index: Arc<LineIndex>,
}

impl SourceText {
    /// A source `text` from `path`, whose first line is line `first_line` there.
    pub fn new(path: &str, text: &str, first_line: usize) -> Self {
        SourceText {
            path: path.to_string(),
            text: Arc::from(text),
            first_line: first_line.max(1),
            index: Arc::new(LineIndex::new(text)),
        }
    }

    /// A whole file's text, already indexed, shared with whoever else holds it.
    pub fn shared(path: &str, text: Arc<str>, index: Arc<LineIndex>) -> Self {
        SourceText {
            path: path.to_string(),
            text,
            first_line: 1,
            index,
        }
    }

    /// 1-based (line in file, column) of a byte offset.
    pub fn position(&self, offset: usize) -> (usize, usize) {
        let (line, col) = self.index.line_col(&self.text, offset);
        (line + self.first_line - 1, col)
    }

    fn line_text(&self, file_line: usize) -> &str {
        self.index
            .line_text(&self.text, file_line + 1 - self.first_line)
    }
}

/// A diagnostic with its position resolved, ready to show.
#[derive(Debug, Clone, PartialEq)]
pub struct Rendered {
    pub code: &'static str,
    pub message: String,
    pub path: String,
    pub line: usize,
    pub col: usize,
    pub end_line: usize,
    pub end_col: usize,
    /// `path:line:col: message`, the source line and a caret under the range.
    pub text: String,
}

/// Where a message's decision codes are defined, relative to the repository's root.
pub const DECISIONS_DOC: &str = "docs/decisions.md";

/// The highest decision number the decisions page defines.
const LAST_DECISION: u32 = 20;

/// `message` with each decision code it cites (`D4`) followed by where it is defined
/// (`D4: docs/decisions.md#d4`), so a reader can look it up.
pub fn cite_decisions(message: &str) -> String {
    let mut out = String::with_capacity(message.len() + 32);
    let bytes = message.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        let starts_word = i == 0 || !(bytes[i - 1].is_ascii_alphanumeric() || bytes[i - 1] == b'_');
        if bytes[i] == b'D' && starts_word {
            let digits = bytes[i + 1..]
                .iter()
                .take_while(|b| b.is_ascii_digit())
                .count();
            let end = i + 1 + digits;
            let ends_word =
                end == bytes.len() || !(bytes[end].is_ascii_alphanumeric() || bytes[end] == b'_');
            let number: Option<u32> = message[i + 1..end].parse().ok();
            if let (true, Some(n)) = (
                ends_word,
                number.filter(|n| (1..=LAST_DECISION).contains(n)),
            ) {
                out.push_str(&message[i..end]);
                if !message[end..].starts_with(':') {
                    out.push_str(&format!(": {DECISIONS_DOC}#d{n}"));
                }
                i = end;
                continue;
            }
        }
        let len = message[i..].chars().next().map_or(1, char::len_utf8);
        out.push_str(&message[i..i + len]);
        i += len;
    }
    out
}

/// Longest source line quoted whole under a diagnostic, in characters.
const MAX_QUOTED_LINE: usize = 200;

/// The line to quote, the caret's column in it and the caret's width: the whole line, or for a
/// longer one (generated or hostile code) a window around the column with `...` at cut ends.
fn quote_line(line: &str, col: usize, width: usize) -> (String, usize, usize) {
    let chars = line.chars().count();
    if chars <= MAX_QUOTED_LINE {
        return (line.to_string(), col, width);
    }
    let start = col.saturating_sub(60).max(1) - 1;
    let end = (start + MAX_QUOTED_LINE - 40).min(chars);
    let mut quoted: String = line.chars().skip(start).take(end - start).collect();
    let mut caret_col = col - start;
    if start > 0 {
        quoted.insert_str(0, "...");
        caret_col += 3;
    }
    if end < chars {
        quoted.push_str("...");
    }
    let width = width.min((end + 1).saturating_sub(col)).max(1);
    (quoted, caret_col, width)
}

/// A diagnostic with its position as line and column, and its display text.
pub fn render(diag: &Diagnostic, sources: &[SourceText]) -> Rendered {
    let message = cite_decisions(&diag.message);
    let Some(src) = sources.get(diag.source) else {
        return Rendered {
            code: diag.kind.code(),
            message: message.clone(),
            path: "<unknown>".into(),
            line: 0,
            col: 0,
            end_line: 0,
            end_col: 0,
            text: message,
        };
    };
    let (line, col) = src.position(diag.start);
    let (end_line, end_col) = src.position(diag.end.max(diag.start));
    let width = if end_line == line {
        end_col.saturating_sub(col).max(1)
    } else {
        1
    };
    let (quoted, caret_col, width) = quote_line(src.line_text(line), col, width);
    let text = format!(
        "{}:{}:{}: {}\n    {}\n    {}{}",
        src.path,
        line,
        col,
        message,
        quoted,
        " ".repeat(caret_col - 1),
        "^".repeat(width)
    );
    Rendered {
        code: diag.kind.code(),
        message,
        path: src.path.clone(),
        line,
        col,
        end_line,
        end_col,
        text,
    }
}

/// Why a compile did not produce code.
#[derive(Debug, Clone, PartialEq)]
pub enum CompileError {
    /// The user's code breaks the rules: every violation, in source order.
    Diagnostics(Vec<Rendered>),
    /// Static compilation only: names the module text cannot resolve; compile from the live
    /// function instead (DESIGN.md section 4). Not an error of the user's code.
    Deferred(Vec<String>),
    /// A bug in the compiler: never the user's fault.
    Internal(String),
}

#[cfg(test)]
mod tests {
    #[test]
    fn line_col_counts_characters() {
        let text = "ab\nçd = 1\n";
        let idx = LineIndex::new(text);
        assert_eq!(idx.line_col(text, 0), (1, 1));
        assert_eq!(idx.line_col(text, 3), (2, 1));
        // 'd' sits after the two-byte 'ç'.
        assert_eq!(idx.line_col(text, 5), (2, 2));
        assert_eq!(idx.line_text(text, 2), "çd = 1");
    }

    use super::*;

    #[test]
    fn decision_codes_point_at_the_decisions_page() {
        assert_eq!(
            cite_decisions("per element (D4); compare"),
            "per element (D4: docs/decisions.md#d4); compare"
        );
        assert_eq!(
            cite_decisions("IEEE values, D3) and D17"),
            "IEEE values, D3: docs/decisions.md#d3) and D17: docs/decisions.md#d17"
        );
        // Not codes: inside a word, out of range, already cited, no digits.
        for text in ["AD4 x", "D45", "D0", "D4x", "D4: there", "D", "Dé"] {
            assert_eq!(cite_decisions(text), text);
        }
    }

    #[test]
    fn render_points_at_the_range() {
        let src = SourceText::new(
            "m.py",
            "def f(x):\n    while x > 0:\n        x = x - 1\n",
            10,
        );
        let start = src.text.find("while").unwrap();
        let diag = Diagnostic {
            kind: DiagnosticKind::UnsupportedLoop,
            message: "`while` loops are not supported".into(),
            source: 0,
            start,
            end: start + 5,
        };
        let r = render(&diag, &[src]);
        assert_eq!((r.line, r.col), (11, 5));
        assert_eq!(
            r.text,
            "m.py:11:5: `while` loops are not supported\n        while x > 0:\n        ^^^^^"
        );
    }

    #[test]
    fn long_lines_are_quoted_around_the_column() {
        assert_eq!(quote_line("x = 1", 5, 1), ("x = 1".to_string(), 5, 1));
        let line = format!("y = {}", "a + ".repeat(10_000));
        let (quoted, caret, width) = quote_line(&line, 20_001, 5);
        assert!(quoted.starts_with("...") && quoted.ends_with("..."));
        assert!(quoted.chars().count() < 200);
        let under: String = quoted.chars().skip(caret - 1).take(width).collect();
        let original: String = line.chars().skip(20_000).take(width).collect();
        assert_eq!(under, original);
    }
}
