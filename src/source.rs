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
