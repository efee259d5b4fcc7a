//! Source text bookkeeping: byte offsets to line/column, and the cheap pre-parse checks that keep
//! hostile input (deep nesting, huge files) away from the recursive parser.

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

/// Deepest bracket nesting the parser is given. CPython itself stops at 200 (s_push: too many
/// nested parentheses); we stop earlier because the LALR parser and our passes recurse.
pub const MAX_BRACKET_DEPTH: usize = 100;
/// Deepest statement nesting (by indentation levels) accepted.
pub const MAX_INDENT_DEPTH: usize = 60;
/// Largest source accepted, in bytes.
pub const MAX_SOURCE_BYTES: usize = 8 * 1024 * 1024;
/// Most operator characters in one statement: bounds the depth of its expression tree, which
/// the parser's tree, our passes and CPython's own compiler all walk recursively.
pub const MAX_STATEMENT_OPERATORS: usize = 1000;

/// Why a source was refused before parsing: (byte offset, message).
pub fn check_nesting(text: &str) -> Result<(), (usize, String)> {
    if text.len() > MAX_SOURCE_BYTES {
        return Err((
            0,
            format!(
                "source is {} bytes; the compiler accepts at most {MAX_SOURCE_BYTES}",
                text.len()
            ),
        ));
    }
    let bytes = text.as_bytes();
    let mut depth = 0usize;
    let mut indents: Vec<usize> = vec![0];
    let mut at_line_start = true;
    let mut operators = 0usize;
    let mut i = 0;
    while i < bytes.len() {
        let b = bytes[i];
        if at_line_start && depth == 0 {
            let mut width = 0;
            while i < bytes.len() && (bytes[i] == b' ' || bytes[i] == b'\t') {
                width += 1;
                i += 1;
            }
            at_line_start = false;
            if i < bytes.len() && !matches!(bytes[i], b'\n' | b'\r' | b'#') {
                while indents.last().is_some_and(|&w| w > width) {
                    indents.pop();
                }
                if indents.last().is_some_and(|&w| w < width) {
                    indents.push(width);
                    if indents.len() > MAX_INDENT_DEPTH {
                        return Err((
                            i,
                            format!(
                                "statements are nested more than {MAX_INDENT_DEPTH} levels deep"
                            ),
                        ));
                    }
                }
            }
            continue;
        }
        match b {
            b'(' | b'[' | b'{' => {
                depth += 1;
                if depth > MAX_BRACKET_DEPTH {
                    return Err((
                        i,
                        format!("brackets are nested more than {MAX_BRACKET_DEPTH} levels deep"),
                    ));
                }
            }
            b')' | b']' | b'}' => depth = depth.saturating_sub(1),
            b'\n' => {
                at_line_start = true;
                if depth == 0 {
                    operators = 0;
                }
            }
            b'+' | b'-' | b'*' | b'/' | b'%' | b'<' | b'>' | b'=' | b'&' | b'|' | b'^' | b'~'
            | b',' => {
                operators += 1;
                if operators > MAX_STATEMENT_OPERATORS {
                    return Err((i, format!("a statement with more than {MAX_STATEMENT_OPERATORS} operators is too large to compile; split it into several assignments")));
                }
            }
            b'#' => {
                while i < bytes.len() && bytes[i] != b'\n' {
                    i += 1;
                }
                continue;
            }
            b'\'' | b'"' => {
                i = skip_string(bytes, i);
                continue;
            }
            _ => {}
        }
        i += 1;
    }
    Ok(())
}

/// Index just past the string literal starting at `i` (handles triple quotes and escapes).
fn skip_string(bytes: &[u8], i: usize) -> usize {
    let q = bytes[i];
    let triple = bytes.get(i + 1) == Some(&q) && bytes.get(i + 2) == Some(&q);
    let mut j = if triple { i + 3 } else { i + 1 };
    while j < bytes.len() {
        match bytes[j] {
            b'\\' => j += 2,
            c if c == q => {
                if !triple {
                    return j + 1;
                }
                if bytes.get(j + 1) == Some(&q) && bytes.get(j + 2) == Some(&q) {
                    return j + 3;
                }
                j += 1;
            }
            b'\n' if !triple => return j,
            _ => j += 1,
        }
    }
    bytes.len()
}

#[cfg(test)]
mod tests {
    use super::*;

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

    #[test]
    fn deep_brackets_are_refused() {
        let deep = format!("x = {}1{}\n", "(".repeat(150), ")".repeat(150));
        assert!(check_nesting(&deep).is_err());
        let ok = format!("x = {}1{}\n", "(".repeat(50), ")".repeat(50));
        assert!(check_nesting(&ok).is_ok());
        // Brackets inside strings do not count.
        assert!(check_nesting(&format!("s = '{}'\n", "(".repeat(500))).is_ok());
    }

    #[test]
    fn deep_indentation_is_refused() {
        let mut text = String::new();
        for d in 0..80 {
            text.push_str(&" ".repeat(d));
            text.push_str("if x:\n");
        }
        assert!(check_nesting(&text).is_err());
    }
}

/// Length in bytes of the definition that starts `text`: its decorators, `def` header and
/// indented body (what `inspect.getsource` returns for a function), or, for a lambda, the one
/// logical line that holds it. Lets callers pass "the file from this line on" without finding
/// the block's end themselves (CPython's `inspect` tokenizes for that, which costs more than
/// compiling).
pub fn block_len(text: &str, lambda: bool) -> usize {
    let bytes = text.as_bytes();
    let indent = |at: usize| {
        bytes[at..]
            .iter()
            .take_while(|b| matches!(b, b' ' | b'\t'))
            .count()
    };
    let base = indent(0);
    let mut depth = 0usize;
    let mut header_done = false;
    let mut logical_start = 0usize;
    let mut i = 0usize;
    while i < bytes.len() {
        match bytes[i] {
            b'(' | b'[' | b'{' => depth += 1,
            b')' | b']' | b'}' => depth = depth.saturating_sub(1),
            b'#' => {
                while i < bytes.len() && bytes[i] != b'\n' {
                    i += 1;
                }
                continue;
            }
            b'\'' | b'"' => {
                i = skip_string(bytes, i);
                continue;
            }
            b'\\' if bytes.get(i + 1) == Some(&b'\n') => {
                i += 2;
                continue;
            }
            b'\n' if depth == 0 => {
                // End of a logical line.
                let line = text[logical_start..i].trim_start();
                if lambda {
                    return i + 1;
                }
                if line.starts_with("def ") || line.starts_with("async def ") {
                    header_done = true;
                }
                // Find the next line that is not blank or a comment.
                let mut j = i + 1;
                loop {
                    if j >= bytes.len() {
                        return bytes.len();
                    }
                    let w = indent(j);
                    match bytes.get(j + w) {
                        Some(b'\n') => j += w + 1,
                        Some(b'\r') if bytes.get(j + w + 1) == Some(&b'\n') => j += w + 2,
                        Some(b'#') => {
                            while j < bytes.len() && bytes[j] != b'\n' {
                                j += 1;
                            }
                            j += 1;
                        }
                        None => return bytes.len(),
                        Some(_) => {
                            if header_done && w <= base {
                                return j;
                            }
                            break;
                        }
                    }
                }
                logical_start = j;
                i = j;
                continue;
            }
            _ => {}
        }
        i += 1;
    }
    bytes.len()
}

#[cfg(test)]
mod block_tests {
    use super::block_len;

    #[test]
    fn block_ends_at_dedent() {
        let text =
            "@deco(\n  1)\ndef f(x):\n    s = '''\nnot code\n'''\n\n    # c\n    return x\nY = 2\n";
        assert_eq!(
            &text[..block_len(text, false)],
            "@deco(\n  1)\ndef f(x):\n    s = '''\nnot code\n'''\n\n    # c\n    return x\n"
        );
        let method = "    def m(self):\n        return 1\n\n    def n(self):\n        pass\n";
        assert_eq!(
            &method[..block_len(method, false)],
            "    def m(self):\n        return 1\n\n"
        );
        let one = "def f(x): return x\ndef g(): pass\n";
        assert_eq!(&one[..block_len(one, false)], "def f(x): return x\n");
        let lam = "sq = lambda t: (t *\n  t)\nz = 1\n";
        assert_eq!(&lam[..block_len(lam, true)], "sq = lambda t: (t *\n  t)\n");
    }
}
