//! A position in one line of IR text and the tokens of the grammar (`super`'s module comment):
//! values, integers, words, names, constants, strings and the text that runs to the line's end.
//! Spaces between tokens are skipped; an error names the line and the column (in characters).

use super::{ReadError, R};
use crate::ir::constant::Const;
use crate::ir::types::Value;

#[derive(Clone)]
pub(super) struct Cursor<'t> {
    line: usize,
    text: &'t str,
    /// Byte offset of the next character.
    at: usize,
}

impl<'t> Cursor<'t> {
    pub(super) fn new(line: usize, text: &'t str) -> Self {
        Cursor { line, text, at: 0 }
    }

    fn skip_spaces(&mut self) {
        let rest = &self.text[self.at..];
        self.at += rest.len() - rest.trim_start_matches([' ', '\t']).len();
    }

    /// What is left of the line after the spaces.
    pub(super) fn rest(&mut self) -> &'t str {
        self.skip_spaces();
        &self.text[self.at..]
    }

    /// The line and column of the next token.
    pub(super) fn position(&mut self) -> (usize, usize) {
        self.skip_spaces();
        (self.line, self.text[..self.at].chars().count() + 1)
    }

    /// An error at the next token.
    pub(super) fn error(&self, message: &str) -> ReadError {
        let mut c = self.clone();
        let (line, col) = c.position();
        let rest = c.rest();
        let found = match rest.split(' ').next() {
            Some(token) if !token.is_empty() => format!(", found `{token}`"),
            _ => ", found the end of the line".into(),
        };
        ReadError {
            line,
            col,
            message: format!("{message}{found}"),
        }
    }

    /// An error at `token`, just taken.
    pub(super) fn error_before(&self, token: &str, message: &str) -> ReadError {
        let start = self.at - token.len();
        ReadError {
            line: self.line,
            col: self.text[..start].chars().count() + 1,
            message: format!("{message}, found `{token}`"),
        }
    }

    /// Whether the next token starts with `s`.
    pub(super) fn at(&self, s: &str) -> bool {
        self.text[self.at..]
            .trim_start_matches([' ', '\t'])
            .starts_with(s)
    }

    /// Takes `s` if it comes next.
    pub(super) fn eat(&mut self, s: &str) -> bool {
        if self.rest().starts_with(s) {
            self.at += s.len();
            true
        } else {
            false
        }
    }

    pub(super) fn expect(&mut self, s: &str) -> R<()> {
        if self.eat(s) {
            Ok(())
        } else {
            Err(self.error(&format!("expected `{}`", s.trim())))
        }
    }

    /// Takes the word `w` if it comes next, whole.
    pub(super) fn eat_word(&mut self, w: &str) -> bool {
        let mut probe = self.clone();
        if probe.word() == w {
            *self = probe;
            true
        } else {
            false
        }
    }

    /// Letters, digits, `_` and `.` (possibly none).
    pub(super) fn word(&mut self) -> &'t str {
        let rest = self.rest();
        let n = rest
            .find(|c: char| !(c.is_alphanumeric() || c == '_' || c == '.'))
            .unwrap_or(rest.len());
        self.at += n;
        &rest[..n]
    }

    /// A parameter's name: anything up to a space or one of `,;:()=`.
    pub(super) fn name(&mut self) -> R<&'t str> {
        let rest = self.rest();
        let n = rest
            .find(|c: char| c.is_whitespace() || ",;:()=".contains(c))
            .unwrap_or(rest.len());
        if n == 0 {
            return Err(self.error("expected a name"));
        }
        self.at += n;
        Ok(&rest[..n])
    }

    /// Everything up to `close` (not taken).
    pub(super) fn until(&mut self, close: char) -> R<&'t str> {
        let rest = self.rest();
        let Some(n) = rest.find(close) else {
            return Err(self.error(&format!("expected `{close}`")));
        };
        self.at += n;
        Ok(&rest[..n])
    }

    /// Nothing but spaces is left.
    pub(super) fn end(&mut self) -> R<()> {
        if self.rest().is_empty() {
            Ok(())
        } else {
            Err(self.error("expected the end of the line"))
        }
    }

    /// `%n`.
    pub(super) fn value(&mut self) -> R<Value> {
        self.skip_spaces();
        if !self.at("%") {
            return Err(self.error("expected a value `%n`"));
        }
        let mut probe = self.clone();
        probe.at += 1;
        let digits = probe.text[probe.at..]
            .find(|c: char| !c.is_ascii_digit())
            .unwrap_or(probe.text.len() - probe.at);
        let n = probe.text[probe.at..probe.at + digits].parse::<u32>();
        match n {
            Ok(n) if n < u32::MAX => {
                *self = probe;
                self.at += digits;
                Ok(Value(n))
            }
            _ => Err(self.error("expected a value `%n`")),
        }
    }

    /// An integer, with an optional `-`.
    pub(super) fn int(&mut self) -> R<i128> {
        let start = self.clone();
        let rest = self.rest();
        let sign = usize::from(rest.starts_with('-'));
        let n = rest[sign..]
            .find(|c: char| !c.is_ascii_digit())
            .unwrap_or(rest.len() - sign);
        match rest[..sign + n].parse::<i128>() {
            Ok(i) => {
                self.at += sign + n;
                Ok(i)
            }
            Err(_) => Err(start.error("expected an integer (within 128 bits)")),
        }
    }

    /// A constant as Python's `repr` writes it.
    pub(super) fn konst(&mut self) -> R<Const> {
        let start = self.clone();
        if self.eat("(") {
            let (items, trailing) = self.items(")")?;
            if items.len() == 1 && !trailing {
                return Err(start.error("a tuple of one item is written `(x,)`"));
            }
            return Ok(Const::Tuple(items));
        }
        if self.eat("[") {
            return Ok(Const::List(self.items("]")?.0));
        }
        if self.eat("{") {
            let mut entries = vec![];
            while !self.eat("}") {
                if !entries.is_empty() {
                    self.expect(",")?;
                }
                let k = self.konst()?;
                self.expect(":")?;
                entries.push((k, self.konst()?));
            }
            return Ok(Const::Dict(entries));
        }
        if self.eat_word("True") {
            return Ok(Const::Bool(true));
        }
        if self.eat_word("False") {
            return Ok(Const::Bool(false));
        }
        self.number()
    }

    /// Constants separated by commas up to `close` (taken), and whether a comma ended them.
    fn items(&mut self, close: &str) -> R<(Vec<Const>, bool)> {
        let mut items = vec![];
        let mut trailing = false;
        while !self.eat(close) {
            if !items.is_empty() && !trailing {
                return Err(self.error(&format!("expected `,` or `{close}`")));
            }
            items.push(self.konst()?);
            trailing = self.eat(",");
        }
        Ok((items, trailing))
    }

    /// An int, or a float (it has `.`, `e`, or is `inf` or `nan`).
    fn number(&mut self) -> R<Const> {
        let start = self.clone();
        let rest = self.rest();
        let sign = usize::from(rest.starts_with('-'));
        let body = &rest[sign..];
        let n = if body.starts_with("inf") || body.starts_with("nan") {
            3
        } else {
            let mut prev = ' ';
            body.find(|c: char| {
                let ok = c.is_ascii_digit()
                    || c == '.'
                    || c == 'e'
                    || ((c == '+' || c == '-') && prev == 'e');
                prev = c;
                !ok
            })
            .unwrap_or(body.len())
        };
        let token = &rest[..sign + n];
        let float = body[..n].contains(['.', 'e', 'i', 'n']);
        let parsed = if float {
            token.parse::<f64>().ok().map(Const::Float)
        } else {
            token.parse::<i128>().ok().map(Const::Int)
        };
        match parsed {
            Some(c) if n > 0 => {
                self.at += sign + n;
                Ok(c)
            }
            _ => Err(start.error("expected a constant")),
        }
    }

    /// A string between double quotes.
    pub(super) fn string(&mut self) -> R<String> {
        if !self.at("\"") {
            return Err(self.error("expected a string"));
        }
        let start = self.at + 1;
        let mut escaped = false;
        for (i, c) in self.text[start..].char_indices() {
            match c {
                '\\' if !escaped => escaped = true,
                '"' if !escaped => {
                    let raw = &self.text[start..start + i];
                    let s = self.unescape(raw, start)?;
                    self.at = start + i + 1;
                    return Ok(s);
                }
                _ => escaped = false,
            }
        }
        Err(self.error("a string without its closing `\"`"))
    }

    /// `TEXT` up to the last `close` of the line (not taken), unescaped.
    pub(super) fn text_to_last(&mut self, close: &str) -> R<String> {
        let rest = self.rest();
        let Some(n) = rest.rfind(close) else {
            return Err(self.error(&format!("expected `{close}`")));
        };
        let start = self.at;
        let s = self.unescape(&rest[..n], start)?;
        self.at += n;
        Ok(s)
    }

    /// The rest of the line, unescaped.
    pub(super) fn text(&mut self) -> R<String> {
        let raw = self.rest();
        let start = self.at;
        let s = self.unescape(raw, start)?;
        self.at = self.text.len();
        Ok(s)
    }

    /// `raw` (which starts at byte `start` of the line) with its escapes replaced.
    fn unescape(&self, raw: &str, start: usize) -> R<String> {
        let mut out = String::with_capacity(raw.len());
        let mut chars = raw.char_indices();
        while let Some((i, c)) = chars.next() {
            if c != '\\' {
                out.push(c);
                continue;
            }
            let bad = || {
                let mut at = self.clone();
                at.at = start + i;
                at.error("expected an escape: \\\\, \\\", \\n, \\r, \\t or \\u{hex}")
            };
            match chars.next().map(|(_, e)| e) {
                Some('\\') => out.push('\\'),
                Some('"') => out.push('"'),
                Some('n') => out.push('\n'),
                Some('r') => out.push('\r'),
                Some('t') => out.push('\t'),
                Some('u') => {
                    let tail = &raw[i + 2..];
                    let close = tail.find('}').ok_or_else(bad)?;
                    let code = tail
                        .strip_prefix('{')
                        .and_then(|t| u32::from_str_radix(&t[..close - 1], 16).ok())
                        .and_then(char::from_u32)
                        .ok_or_else(bad)?;
                    out.push(code);
                    for _ in 0..=close {
                        chars.next();
                    }
                }
                _ => return Err(bad()),
            }
        }
        Ok(out)
    }
}
