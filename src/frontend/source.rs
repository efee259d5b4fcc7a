//! Source text before parsing: the cheap pre-parse checks that keep hostile input (deep nesting,
//! huge files) away from the recursive parser, and the length of a `def`'s block in its file.
//! (Byte offsets to line/column are `diagnostics::LineIndex`, where positions are shown.)

/// Largest source accepted, in bytes.
pub const MAX_SOURCE_BYTES: usize = 8 * 1024 * 1024;

/// How deep the parsed tree of a source may be, bounded before parsing because the parser's
/// tree (its drop), our passes and CPython's own compiler all walk it recursively.
#[derive(Debug, Clone, Copy)]
pub struct Limits {
    /// Deepest bracket nesting. CPython itself stops at 200 (s_push: too many nested
    /// parentheses).
    pub brackets: usize,
    /// Deepest statement nesting, by indentation levels (CPython stops at 100).
    pub indents: usize,
    /// Deepest expression chain: operators, attribute accesses, calls and subscripts that build
    /// on one another (`a + b + ...`, `a.b.c...`, `f()()...`, `x[0][0]...`, `not not ...`,
    /// `a if c else b if ...`) nest the tree one level each. Items of a list, call or tuple do
    /// not build on one another: each starts afresh, so a long literal is no deeper than its
    /// deepest item.
    pub expression: usize,
    /// Longest `elif` chain (summed over nested chains): each `elif` nests the tree one level.
    pub elifs: usize,
}

impl Limits {
    /// What a compiled function may hold: well above real code, and what every pass of the
    /// compiler handles within the compile thread's stack (`stack::on_large_stack`).
    pub const FUNCTION: Limits = Limits {
        brackets: 100,
        indents: 60,
        expression: 1000,
        elifs: 1000,
    };
    /// What a module compiled statically may hold outside its marked functions: only parsed,
    /// scanned for bindings and dropped, so far more; each marked function is then held to
    /// [`Limits::FUNCTION`].
    pub const MODULE: Limits = Limits {
        brackets: 200,
        indents: 100,
        expression: 50_000,
        elifs: 50_000,
    };
}

/// Keywords that nest an expression one level.
const KEYWORD_OPERATORS: &[&[u8]] = &[
    b"not", b"and", b"or", b"if", b"else", b"lambda", b"in", b"is", b"await", b"yield",
];

/// Why a source was refused before parsing: (byte offset, message).
///
/// A linear scan that bounds, without parsing, how deep the parsed tree can be: bracket nesting,
/// indentation, `elif` chains and expression chains (see the constants). Strings and comments
/// are skipped.
pub fn check_nesting(text: &str, limits: &Limits) -> Result<(), (usize, String)> {
    if text.len() > MAX_SOURCE_BYTES {
        return Err((
            0,
            format!(
                "source is {} bytes; the compiler accepts at most {MAX_SOURCE_BYTES}",
                text.len()
            ),
        ));
    }
    let mut scan = Depths::new(*limits);
    let bytes = text.as_bytes();
    let mut at_line_start = true;
    let mut i = 0;
    while i < bytes.len() {
        let b = bytes[i];
        if at_line_start && scan.levels.len() <= 1 {
            at_line_start = false;
            let (skip, width) = line_indent(bytes, i);
            i += skip;
            if i < bytes.len() && !matches!(bytes[i], b'\n' | b'\r' | b'#' | b'\\') {
                let word = &bytes[i..i + word_len(bytes, i)];
                scan.statement(width, word).map_err(|m| (i, m))?;
            }
            continue;
        }
        match b {
            b'(' | b'[' | b'{' => {
                // A call, subscript or display is one level of its operand's chain; its items
                // start afresh.
                scan.add(1).map_err(|m| (i, m))?;
                scan.levels.push(0);
                if scan.levels.len() > limits.brackets + 1 {
                    return Err((
                        i,
                        format!(
                            "brackets are nested more than {} levels deep; simplify the expression",
                            limits.brackets
                        ),
                    ));
                }
            }
            b')' | b']' | b'}' if scan.levels.len() > 1 => {
                let inner = scan.levels.pop().unwrap_or(0);
                scan.total -= inner;
            }
            b',' | b';' => scan.restart(),
            b'\\' if bytes.get(i + 1) == Some(&b'\n') => {
                i += 2;
                continue;
            }
            b'\\' if bytes.get(i + 1) == Some(&b'\r') && bytes.get(i + 2) == Some(&b'\n') => {
                i += 3;
                continue;
            }
            b'\n' if scan.levels.len() <= 1 => {
                at_line_start = true;
                scan.restart();
            }
            b'+' | b'-' | b'*' | b'/' | b'%' | b'<' | b'>' | b'=' | b'&' | b'|' | b'^' | b'~'
            | b'@' | b'.' => scan.add(1).map_err(|m| (i, m))?,
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
            c if c.is_ascii_digit() => {
                // A number, with its dots and exponent sign (`1.5e-3`): one operand.
                let n = word_len(bytes, i);
                i += n.max(1);
                if matches!(bytes.get(i - 1), Some(b'e' | b'E'))
                    && matches!(bytes.get(i), Some(b'+' | b'-'))
                {
                    i += 1 + word_len(bytes, i + 1);
                }
                continue;
            }
            c if c == b'_' || c.is_ascii_alphabetic() || c >= 0x80 => {
                let n = word_len(bytes, i);
                if KEYWORD_OPERATORS.contains(&&bytes[i..i + n]) {
                    scan.add(1).map_err(|m| (i, m))?;
                }
                i += n;
                continue;
            }
            _ => {}
        }
        i += 1;
    }
    Ok(())
}

/// Length of the identifier, keyword or number starting at `i` (dots included for numbers).
fn word_len(bytes: &[u8], i: usize) -> usize {
    let number = bytes.get(i).is_some_and(u8::is_ascii_digit);
    bytes[i..]
        .iter()
        .take_while(|&&c| {
            c == b'_' || c.is_ascii_alphanumeric() || c >= 0x80 || (number && c == b'.')
        })
        .count()
}

/// The running depth estimates of [`check_nesting`].
struct Depths {
    limits: Limits,
    /// Per open bracket (the statement itself first): how deep the current item's chain is.
    levels: Vec<usize>,
    /// Sum of `levels`: how deep the tree is at this point.
    total: usize,
    /// Indentation widths of the enclosing blocks, with the `elif` chain run at each.
    indents: Vec<(usize, usize)>,
    /// Sum of the `elif` runs of `indents`.
    elifs: usize,
}

impl Depths {
    fn new(limits: Limits) -> Self {
        Depths {
            limits,
            levels: vec![0],
            total: 0,
            indents: vec![(0, 0)],
            elifs: 0,
        }
    }

    fn add(&mut self, n: usize) -> Result<(), String> {
        if let Some(top) = self.levels.last_mut() {
            *top += n;
        }
        self.total += n;
        if self.total > self.limits.expression {
            return Err(format!("an expression chain more than {} operations deep is too large to compile; split it into several assignments", self.limits.expression));
        }
        Ok(())
    }

    /// A new item (after a comma) or statement: its chain starts afresh.
    fn restart(&mut self) {
        if let Some(top) = self.levels.last_mut() {
            self.total -= *top;
            *top = 0;
        }
    }

    /// A statement starting with `word` at indentation `width`.
    fn statement(&mut self, width: usize, word: &[u8]) -> Result<(), String> {
        while self.indents.last().is_some_and(|&(w, _)| w > width) {
            if let Some((_, run)) = self.indents.pop() {
                self.elifs -= run;
            }
        }
        if self.indents.last().is_some_and(|&(w, _)| w < width) {
            self.indents.push((width, 0));
            if self.indents.len() > self.limits.indents {
                return Err(format!(
                    "statements are nested more than {} levels deep; move inner blocks into helper functions",
                    self.limits.indents
                ));
            }
        }
        let Some((_, run)) = self.indents.last_mut() else {
            return Ok(());
        };
        match word {
            b"elif" => {
                *run += 1;
                self.elifs += 1;
                if self.elifs > self.limits.elifs {
                    return Err(format!("an `if` with more than {} `elif` branches is too large to compile; split it", self.limits.elifs));
                }
            }
            b"else" => {}
            _ => {
                self.elifs -= *run;
                *run = 0;
            }
        }
        Ok(())
    }
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
    fn deep_brackets_are_refused() {
        let deep = format!("x = {}1{}\n", "(".repeat(150), ")".repeat(150));
        assert!(check_nesting(&deep, &Limits::FUNCTION).is_err());
        let ok = format!("x = {}1{}\n", "(".repeat(50), ")".repeat(50));
        assert!(check_nesting(&ok, &Limits::FUNCTION).is_ok());
        // Brackets inside strings do not count.
        assert!(check_nesting(&format!("s = '{}'\n", "(".repeat(500)), &Limits::FUNCTION).is_ok());
    }

    #[test]
    fn chains_are_refused_and_long_literals_are_not() {
        let refused = |text: &str| check_nesting(text, &Limits::FUNCTION).is_err();
        let chain = |unit: &str, n: usize| format!("y = x{}\n", unit.repeat(n));
        for unit in [".a", "()", "[0]", " + 1", "(1)"] {
            assert!(refused(&chain(unit, 1500)), "{unit}");
            assert!(!refused(&chain(unit, 500)), "{unit}");
        }
        assert!(refused(&format!("y = {}x\n", "not ".repeat(1500))));
        assert!(refused(&format!("y = {}x\n", "-".repeat(1500))));
        assert!(refused(&format!("y = {}0\n", "x if c else ".repeat(800))));
        // A continuation line does not start a new statement.
        assert!(refused(&"y = 1 + \\\n".repeat(1500)));
        // Items of a literal do not build on one another, nor do floats' dots.
        let items: Vec<String> = (0..20_000).map(|i| format!("{i}.5 - 1e-3")).collect();
        assert!(!refused(&format!("T = [{}]\n", items.join(",\n"))));
        assert!(!refused(&format!("y = f({})\n", items.join(", "))));
    }

    #[test]
    fn long_elif_chains_are_refused() {
        let chain = |n: usize| {
            let mut text = String::from("def f(x):\n    if x == 0:\n        return 0\n");
            for i in 1..n {
                text.push_str(&format!(
                    "    elif x == {i}:\n        y = {i}\n        return y\n"
                ));
            }
            text.push_str("    else:\n        return -1\n    if x:\n        pass\n");
            text
        };
        assert!(check_nesting(&chain(1500), &Limits::FUNCTION).is_err());
        assert!(check_nesting(&chain(900), &Limits::FUNCTION).is_ok());
        // Separate `if` statements do not add up.
        let separate = "if x:\n    pass\nelif y:\n    pass\n".repeat(800);
        assert!(check_nesting(&separate, &Limits::FUNCTION).is_ok());
        assert!(check_nesting(&chain(1500), &Limits::MODULE).is_ok());
    }

    #[test]
    fn deep_indentation_is_refused() {
        let mut text = String::new();
        for d in 0..80 {
            text.push_str(&" ".repeat(d));
            text.push_str("if x:\n");
        }
        assert!(check_nesting(&text, &Limits::FUNCTION).is_err());
    }
}

/// The leading whitespace of the line starting at `at`: (bytes to skip, indentation width). As in
/// CPython's tokenizer, a form feed is whitespace that resets the width (Emacs page breaks).
fn line_indent(bytes: &[u8], at: usize) -> (usize, usize) {
    let mut skip = 0;
    let mut width = 0;
    for &b in &bytes[at.min(bytes.len())..] {
        match b {
            b' ' | b'\t' => width += 1,
            b'\x0c' => width = 0,
            _ => break,
        }
        skip += 1;
    }
    (skip, width)
}

/// Length in bytes of the definition that starts `text`: its decorators, `def` header and
/// indented body (what `inspect.getsource` returns for a function), or, for a lambda, the one
/// logical line that holds it. Lets callers pass "the file from this line on" without finding
/// the block's end themselves (CPython's `inspect` tokenizes for that, which costs more than
/// compiling).
pub fn block_len(text: &str, lambda: bool) -> usize {
    let bytes = text.as_bytes();
    let base = line_indent(bytes, 0).1;
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
                    let (skip, w) = line_indent(bytes, j);
                    match bytes.get(j + skip) {
                        Some(b'\n') => j += skip + 1,
                        Some(b'\r') if bytes.get(j + skip + 1) == Some(&b'\n') => j += skip + 2,
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
        // A form feed is whitespace that resets the indentation count, as in CPython.
        let paged = "def f(x):\n    y = x\n\x0c\n\x0c    return y\nz = 1\n";
        assert_eq!(
            &paged[..block_len(paged, false)],
            "def f(x):\n    y = x\n\x0c\n\x0c    return y\n"
        );
        let lam = "sq = lambda t: (t *\n  t)\nz = 1\n";
        assert_eq!(&lam[..block_len(lam, true)], "sq = lambda t: (t *\n  t)\n");
    }
}
