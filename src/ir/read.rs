//! The IR's text form read back: [`read`] gives the [`Function`] that [`super::print`] printed,
//! so that pass fixtures state their input as IR (tests/passes.rs) and tools outside Rust can
//! read the IR through a declared format (the fuzz model, `array_vectorize/fuzz/irtext.py`).
//!
//! # Format, version 1
//!
//! Line by line; a line's leading spaces do not matter (the printer indents two per depth), nor
//! do spaces between tokens; a line starting with `;` after the header is a comment. `%n` is
//! value `n`. `TEXT` runs to the end of the line and `STRING` is between double quotes; both
//! write `\` as `\\` and a control character as `\n`, `\r`, `\t` or `\u{hex}`, and a `STRING`
//! writes `"` as `\"`. `CONST` is Python's `repr` of a number, `True`, `False`, or of a tuple,
//! list or dict of those (floats `inf`, `-inf`, `nan`; a NaN's sign is not kept).
//!
//! ```text
//! function  = "; ir-format: 1" NL "fn " NAME "(" params ") {" NL block [raises] return "}" NL
//! params    = [declared {", " declared}] ["; " NAME {", " NAME}]     (hidden parameters, D8)
//! declared  = NAME [": uniform" | ": optional"]                      (its mode, D14)
//! block     = {let | loop | if}
//! let       = value ": " type " = " op NL
//! type      = ["scalar "] ("bool" | "int" | "float" | "num" | "obj")  (num: unknown kind)
//! loop      = ("for " value " in range(" INT ", " INT ", " INT ") {"
//!             | "for " value " in " CONST " {"                        (a constant tuple)
//!             | "while any(" value ") {") NL                         (D12: its active lanes)
//!             {value ": " type " = phi(" value ", " value ")" NL} block "}" NL
//! if        = "if " value " {" NL block "} else {" NL block "}" NL
//!             {value ": " type " = if_merge(" value ", " value ")" NL}
//! raises    = "raise if " value " != 0" [", nan_on_raise"] NL {site}    (D11)
//! site      = INT " (" [NAME " = " value {", " NAME " = " value}] "): " TEXT NL
//!             ["from: " TEXT NL]                                     (sites numbered 1, 2, ...)
//! return    = "return " (value | [NAME] "(" value ",)" | [NAME] "(" value {", " value} ")") NL
//!             (NAME: the hidden parameter holding a namedtuple class the tuple is made of)
//! op        = "param " INT | "const " CONST | "placeholder " CONST
//!           | unary " " value | binary " " value ", " value | "select " value ", " value ", " value
//!           | "math." MATH "(" values ")" | "cast." cast " " value | "index " value "[" value "]"
//!           | "call @" INT "(" values ")" | "broadcast " value | "asarray " value
//!           | "uniform " uniform "(" values ")"
//!           | "residue #" INT "(" values ")"                  (D19: hidden parameter INT's original)
//!           | "call_site #" INT "(" values ")"                (D23: hidden parameter INT, as written)
//!           | "call_site (lambda " [NAME {", " NAME}] ": " TEXT ")(" values ")"   (D23: the call as
//!             written; its TEXT runs to the `)(` of the line's last `(`, as operands hold none)
//!           | "scalar_raised " value                         (the lanes where that call raised, D11)
//! unary     = "neg" | "pos" | "not" | "abs" | "invert"
//! binary    = "add" | "sub" | "mul" | "div" | "floordiv" | "mod" | "pow" | "bitand" | "bitor"
//!           | "bitxor" | "lshift" | "rshift" | "lt" | "le" | "gt" | "ge" | "eq" | "ne"
//!           | "and" | "or"
//! cast      = "float" | "int" | "bool" | "round" | "index"
//! MATH      = a `math` function's name | "round" (round(x, n)) | "numpy.power"
//!           | "numpy." ("floor" | "ceil" | "trunc" | "round")           (D16)
//! uniform   = "Arg(" INT ")" | "Global(" INT ")" | "Builtin(" STRING ")" | "Lit(None)"
//!           | "Lit(Str(" STRING "))" | "Tuple" | "Attr(" STRING ")" | "Item" | "Get" | "StrMethod(" STRING ")"
//!           | "Compare(" ("Eq" | "Ne" | "Is" | "IsNot" | "In") ")" | "IsInstance" | "Truth"
//!           | "Number" | "TypeOf" | "ElementIs(" ("none" | TYPE {"|" TYPE}) ")"   (D22)
//! TYPE      = "bool" | "int" | "float"
//! values    = [value {", " value}]
//! ```
//!
//! Not in the text: a value's source name (`hint`, codegen's naming), and a `while` loop's
//! index, never read: the reader gives it a fresh value. The loop index of a `for` has kind
//! int over a range and the join of the items' kinds over a tuple, as lowering gives it.
//! A value is defined once and every value read is defined somewhere; [`read`] checks that and
//! the syntax, naming the line and column; [`super::verify`] checks the rest.

use std::fmt;

use super::constant::const_kind;
use super::op::Op;
use super::types::{Kind, Shape, Value};
use super::{Block, Function, IfOut, Inst, ParamMode, Phi, RaiseSite, Raises, ValueInfo};

mod cursor;
mod op;

use cursor::Cursor;

/// The version of the text form that [`super::print`] writes and [`read`] reads.
pub const FORMAT_VERSION: u32 = 1;

/// Why a text is not IR, and where (1-based line and column, in characters).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReadError {
    pub line: usize,
    pub col: usize,
    pub message: String,
}

impl fmt::Display for ReadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}: {}", self.line, self.col, self.message)
    }
}

impl std::error::Error for ReadError {}

type R<T> = Result<T, ReadError>;

/// Reads a function in the text form (module comment).
pub fn read(text: &str) -> R<Function> {
    let mut r = Reader {
        lines: text
            .split('\n')
            .map(|l| l.strip_suffix('\r').unwrap_or(l))
            .collect(),
        next: 0,
        values: vec![],
        reads: vec![],
    };
    let mut f = r.function()?;
    r.finish(&mut f)?;
    Ok(f)
}

/// A value as the text defines it, and where.
struct Defined {
    info: ValueInfo,
    at: (usize, usize),
}

struct Reader<'t> {
    lines: Vec<&'t str>,
    /// Index of the next line to read.
    next: usize,
    values: Vec<Option<Defined>>,
    /// Every value read, and where: each must be defined somewhere.
    reads: Vec<(Value, (usize, usize))>,
}

impl<'t> Reader<'t> {
    /// The next line that is neither blank nor a comment, without taking it.
    fn peek(&mut self) -> Option<Cursor<'t>> {
        while self.next < self.lines.len() {
            let line = self.lines[self.next];
            let trimmed = line.trim_start();
            if !trimmed.is_empty() && !trimmed.starts_with(';') {
                return Some(Cursor::new(self.next + 1, line));
            }
            self.next += 1;
        }
        None
    }

    /// The next line (as [`Self::peek`]), taken; an error at the end of the text.
    fn line(&mut self, expected: &str) -> R<Cursor<'t>> {
        match self.peek() {
            Some(c) => {
                self.next += 1;
                Ok(c)
            }
            None => Err(ReadError {
                line: self.lines.len(),
                col: 1,
                message: format!("the text ends where {expected} was expected"),
            }),
        }
    }

    fn function(&mut self) -> R<Function> {
        self.header()?;
        let mut c = self.line("`fn`")?;
        c.expect("fn ")?;
        let name = c.until('(')?.trim().to_string();
        c.expect("(")?;
        let (params, declared_params, modes) = signature(&mut c)?;
        c.expect(")")?;
        c.expect("{")?;
        c.end()?;
        let body = self.block()?;
        let raises = self.raises()?;
        let mut c = self.line("`return`")?;
        c.expect("return ")?;
        // `return Point(v1, v2)`: a namedtuple result whose class is a hidden parameter.
        let result_class = if c.at("(") || !c.rest().contains('(') {
            None
        } else {
            let class = c.word();
            let found = params.iter().skip(declared_params).position(|p| p == class);
            let i = found.ok_or_else(|| c.error_before(class, "expected a hidden parameter"))?;
            Some(declared_params + i)
        };
        let (ret, tuple) = if c.eat("(") {
            let ret = self.values_until(&mut c, ")")?;
            (ret, true)
        } else {
            let mut ret = vec![self.read_value(&mut c)?];
            while c.eat(",") {
                ret.push(self.read_value(&mut c)?);
            }
            (ret, false)
        };
        c.end()?;
        let mut c = self.line("`}`")?;
        c.expect("}")?;
        c.end()?;
        if let Some(c) = self.peek() {
            return Err(c.error("text after the function's closing `}`"));
        }
        Ok(Function {
            name,
            params,
            declared_params,
            modes,
            values: vec![],
            body,
            ret,
            tuple,
            result_class,
            raises,
        })
    }

    /// `; ir-format: N`, the first line that is not blank.
    fn header(&mut self) -> R<()> {
        while self.next < self.lines.len() && self.lines[self.next].trim().is_empty() {
            self.next += 1;
        }
        let line = self.lines.get(self.next).copied().unwrap_or("");
        let mut c = Cursor::new(self.next + 1, line);
        self.next += 1;
        if !c.eat("; ir-format:") {
            return Err(c.error(&format!(
                "expected the header `; ir-format: {FORMAT_VERSION}`"
            )));
        }
        let version = c.int()?;
        if version != i128::from(FORMAT_VERSION) {
            return Err(c.error(&format!(
                "this text is in ir-format {version}; this reader reads ir-format {FORMAT_VERSION}"
            )));
        }
        c.end()
    }

    /// Instructions up to a line that closes the block (`}`, `} else {`, `raise if`, `return`),
    /// which is left for the caller.
    fn block(&mut self) -> R<Block> {
        let mut insts = vec![];
        while let Some(mut c) = self.peek() {
            if c.at("}") || c.at("raise if ") || c.at("return ") {
                break;
            }
            self.next += 1;
            let inst = if c.eat("for ") || c.at("while ") {
                self.loop_(c)?
            } else if c.eat("if ") {
                self.if_(c)?
            } else {
                let (dst, op) = self.let_(&mut c)?;
                Inst::Let { dst, op }
            };
            insts.push(inst);
        }
        Ok(Block { insts })
    }

    /// `%n: type = ` and the definition of `%n`.
    fn define(&mut self, c: &mut Cursor) -> R<Value> {
        let at = c.position();
        let dst = c.value()?;
        c.expect(":")?;
        let shape = if c.eat_word("scalar") {
            Shape::Scalar
        } else {
            Shape::Array
        };
        let kind = match c.word() {
            "bool" => Kind::Bool,
            "int" => Kind::Int,
            "float" => Kind::Float,
            "num" => Kind::Unknown,
            "obj" => Kind::Object,
            other => {
                return Err(c.error_before(other, "expected a kind (bool, int, float, num, obj)"))
            }
        };
        c.expect("=")?;
        self.defines(dst, kind, shape, at)?;
        Ok(dst)
    }

    fn defines(&mut self, v: Value, kind: Kind, shape: Shape, at: (usize, usize)) -> R<()> {
        let i = v.index();
        if self.values.len() <= i {
            self.values.resize_with(i + 1, || None);
        }
        if let Some(first) = &self.values[i] {
            return Err(ReadError {
                line: at.0,
                col: at.1,
                message: format!(
                    "{v} is defined twice (first at {}:{})",
                    first.at.0, first.at.1
                ),
            });
        }
        let info = ValueInfo {
            kind,
            shape,
            hint: None,
            placeholder: false,
        };
        self.values[i] = Some(Defined { info, at });
        Ok(())
    }

    fn read_value(&mut self, c: &mut Cursor) -> R<Value> {
        let at = c.position();
        let v = c.value()?;
        self.reads.push((v, at));
        Ok(v)
    }

    /// Values separated by commas up to `close` (taken).
    fn values_until(&mut self, c: &mut Cursor, close: &str) -> R<Vec<Value>> {
        let mut out = vec![];
        if c.eat(close) {
            return Ok(out);
        }
        loop {
            out.push(self.read_value(c)?);
            if c.eat(close) {
                return Ok(out);
            }
            c.expect(",")?;
            if c.eat(close) {
                return Ok(out);
            }
        }
    }

    /// `%n: type = op`.
    fn let_(&mut self, c: &mut Cursor) -> R<(Value, Op)> {
        let dst = self.define(c)?;
        let op = self.op(c)?;
        c.end()?;
        if let Op::Placeholder(_) = op {
            if let Some(d) = &mut self.values[dst.index()] {
                d.info.placeholder = true;
            }
        }
        Ok((dst, op))
    }

    /// `%n: type = name(%a, %b)`, for a phi or an if-merge: the line, if it is one.
    fn merge(&mut self, name: &str) -> R<Option<(Value, Value, Value)>> {
        let Some(mut c) = self.peek() else {
            return Ok(None);
        };
        let mut probe = c.clone();
        if probe.value().is_err()
            || !probe.eat(":")
            || !probe.rest().contains(&format!("= {name}("))
        {
            return Ok(None);
        }
        self.next += 1;
        let dst = self.define(&mut c)?;
        c.expect(name)?;
        c.expect("(")?;
        let a = self.read_value(&mut c)?;
        c.expect(",")?;
        let b = self.read_value(&mut c)?;
        c.expect(")")?;
        c.end()?;
        Ok(Some((dst, a, b)))
    }

    fn loop_(&mut self, mut c: Cursor) -> R<Inst> {
        let (index, start, stop, step, items, active) = if c.eat("while any(") {
            let a = self.read_value(&mut c)?;
            c.expect(")")?;
            (Value(u32::MAX), 0, 1, 1, None, Some(a))
        } else {
            let at = c.position();
            let index = c.value()?;
            c.expect("in")?;
            if c.eat("range(") {
                let start = c.int()?;
                c.expect(",")?;
                let stop = c.int()?;
                c.expect(",")?;
                let step = c.int()?;
                c.expect(")")?;
                self.defines(index, Kind::Int, Shape::Scalar, at)?;
                (index, start, stop, step, None, None)
            } else {
                let items = c.konst()?;
                let all = items.items().unwrap_or_default();
                let kind = all.iter().map(const_kind).reduce(Kind::join);
                self.defines(index, kind.unwrap_or(Kind::Int), Shape::Scalar, at)?;
                (index, 0, all.len() as i128, 1, Some(items), None)
            }
        };
        c.expect("{")?;
        c.end()?;
        let mut phis = vec![];
        while let Some((dst, init, next)) = self.merge("phi")? {
            phis.push(Phi { dst, init, next });
        }
        let body = self.block()?;
        let mut c = self.line("`}`")?;
        c.expect("}")?;
        c.end()?;
        Ok(Inst::Loop {
            index,
            start,
            stop,
            step,
            items,
            phis,
            body,
            active,
        })
    }

    fn if_(&mut self, mut c: Cursor) -> R<Inst> {
        let cond = self.read_value(&mut c)?;
        c.expect("{")?;
        c.end()?;
        let then = self.block()?;
        let mut c = self.line("`} else {`")?;
        c.expect("}")?;
        c.expect("else")?;
        c.expect("{")?;
        c.end()?;
        let other = self.block()?;
        let mut c = self.line("`}`")?;
        c.expect("}")?;
        c.end()?;
        let mut outs = vec![];
        while let Some((dst, then, other)) = self.merge("if_merge")? {
            outs.push(IfOut { dst, then, other });
        }
        Ok(Inst::If {
            cond,
            then,
            other,
            outs,
        })
    }

    /// `raise if %c != 0` and the sites, if the function raises.
    fn raises(&mut self) -> R<Option<Raises>> {
        match self.peek() {
            Some(c) if c.at("raise if ") => {}
            _ => return Ok(None),
        }
        let mut c = self.line("`raise if`")?;
        c.expect("raise if ")?;
        let code = self.read_value(&mut c)?;
        c.expect("!=")?;
        c.expect("0")?;
        let nan = c.eat(",");
        if nan {
            c.expect("nan_on_raise")?;
        }
        c.end()?;
        let mut sites = vec![];
        while let Some(mut c) = self.peek() {
            if c.at("return ") {
                break;
            }
            self.next += 1;
            let number = c.clone();
            if c.int()? != sites.len() as i128 + 1 {
                return Err(number.error(&format!("expected raise site {}", sites.len() + 1)));
            }
            c.expect("(")?;
            let (mut params, mut args) = (vec![], vec![]);
            while !c.eat(")") {
                if !params.is_empty() {
                    c.expect(",")?;
                }
                params.push(c.name()?.to_string());
                c.expect("=")?;
                args.push(self.read_value(&mut c)?);
            }
            c.expect(":")?;
            let expr = c.text()?;
            let cause = match self.peek() {
                Some(mut c) if c.at("from:") => {
                    self.next += 1;
                    c.expect("from:")?;
                    Some(c.text()?)
                }
                _ => None,
            };
            sites.push(RaiseSite {
                expr,
                params,
                args,
                cause,
            });
        }
        Ok(Some(Raises { code, sites, nan }))
    }

    /// Checks that every value read is defined, gives each `while` loop a fresh index, and
    /// fills in the value table.
    fn finish(&mut self, f: &mut Function) -> R<()> {
        for &(v, at) in &self.reads {
            if !matches!(self.values.get(v.index()), Some(Some(_))) {
                return Err(ReadError {
                    line: at.0,
                    col: at.1,
                    message: format!("{v} is read but never defined"),
                });
            }
        }
        f.values = std::mem::take(&mut self.values)
            .into_iter()
            .map(|d| match d {
                Some(d) => d.info,
                None => ValueInfo {
                    kind: Kind::Unknown,
                    shape: Shape::Array,
                    hint: None,
                    placeholder: false,
                },
            })
            .collect();
        let mut body = std::mem::take(&mut f.body);
        while_indices(f, &mut body);
        f.body = body;
        Ok(())
    }
}

/// Gives each `while` loop of `block` a fresh index value (not in the text: never read).
fn while_indices(f: &mut Function, block: &mut Block) {
    for inst in &mut block.insts {
        match inst {
            Inst::Loop {
                index,
                body,
                active,
                ..
            } => {
                if active.is_some() {
                    *index = f.new_value(Kind::Int, Shape::Scalar, None);
                }
                while_indices(f, body);
            }
            Inst::If { then, other, .. } => {
                while_indices(f, then);
                while_indices(f, other);
            }
            Inst::Let { .. } => {}
        }
    }
}

/// `x, cfg: uniform; COEFFS`: the names, how many are declared, and their modes.
fn signature(c: &mut Cursor) -> R<(Vec<String>, usize, Vec<ParamMode>)> {
    let (mut params, mut modes) = (vec![], vec![]);
    let mut declared = None;
    loop {
        if c.at(")") {
            break;
        }
        if c.eat(";") {
            if declared.is_some() {
                return Err(c.error("a second `;` in the parameters"));
            }
            declared = Some(params.len());
            continue;
        }
        if !params.is_empty() && declared != Some(params.len()) {
            c.expect(",")?;
        }
        params.push(c.name()?.to_string());
        if declared.is_none() {
            modes.push(if c.eat(":") {
                match c.word() {
                    "uniform" => ParamMode::Uniform,
                    "optional" => ParamMode::Optional,
                    w => return Err(c.error_before(w, "expected `uniform` or `optional`")),
                }
            } else {
                ParamMode::Number
            });
        }
    }
    // As lowering keeps them: up to the last parameter not passed as a number.
    let kept = modes
        .iter()
        .rposition(|m| *m != ParamMode::Number)
        .map_or(0, |i| i + 1);
    modes.truncate(kept);
    let declared = declared.unwrap_or(params.len());
    Ok((params, declared, modes))
}

#[cfg(test)]
mod tests;
