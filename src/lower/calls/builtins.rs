//! Calls: resolving the callee (see `names`), then the builtins (`abs`, `min`/`max`, the
//! conversions, `pow`) and the `math` functions, with their arguments guarded by the domain
//! table of [`crate::ir::math`] under protect_domains (the functions the Array API lacks call
//! runtime helpers, D17; those whose arguments are not plain floats are in `special`); helpers
//! and nested functions are inlined (`inline`); anything else is an element loop under
//! fallback=True.

use rustpython_parser::ast;

use crate::diagnostics::DiagnosticKind;
use crate::env::{Env, FunctionSource, Hidden};
use crate::ir::{math_fn, BinOp, CastOp, CmpOp, Const, Kind, Op, SafeValue, ScalarFn, UnOp, Value};
use crate::lower::{Frame, LocalFn, Lowerer, R};

impl Lowerer<'_> {
    /// A call expression.
    pub(in crate::lower) fn call(&mut self, frame: &mut Frame, c: &ast::ExprCall) -> R<Value> {
        use ast::Expr as E;
        // Resolve the callee.
        if let E::Attribute(a) = c.func.as_ref() {
            // D18: a method of a list or dict the function made.
            if let Some(called) = self.container_method(frame, a, c) {
                return called;
            }
            if let Some(got) = self.dict_get(frame, a, c) {
                return got;
            }
            // D14: `model.lower()` of a string given per call.
            if let Some(got) = self.str_method(frame, a, c) {
                return got;
            }
            // D16: `x.astype(float)`, as NumPy's scalars have it.
            if let Some(converted) = self.astype_method(frame, a, c) {
                return converted;
            }
        }
        let callee: Callee = match c.func.as_ref() {
            E::Attribute(a) => self.callee_attribute(frame, a, c)?,
            E::Name(n) => self.callee_named(frame, n.id.as_str(), c)?,
            // D23: `make(...)(x)`, `table[k](x)`.
            _ if self.opts.fallback => Callee::Site,
            _ => return Err(()),
        };
        match callee {
            Callee::Math(m) => self.call_math(frame, c, &m),
            Callee::Numpy(name) => self.call_numpy(frame, c, &name),
            Callee::Builtin(b) => self.call_builtin(frame, c, &b),
            Callee::Helper(fs) => self.call_helper(frame, c, &fs),
            Callee::Local(l) => self.call_local(frame, c, &l),
            Callee::Opaque(name) => self.element_call(frame, c, name),
            Callee::Site => self.call_site(frame, c),
            Callee::Bisect(which) => self.call_bisect(frame, c, &which),
            Callee::ClassMethod(fs, class, path) => {
                self.call_classmethod(frame, c, &fs, (&class, path))
            }
            Callee::NamedTuple(class, fields) => self.named_tuple(frame, c, &class, &fields),
        }
    }

    /// A call of an opaque callable, element by element on the lanes that reach it (D23).
    fn element_call(&mut self, frame: &mut Frame, c: &ast::ExprCall, name: String) -> R<Value> {
        if !c.keywords.is_empty() {
            self.error_at(
                frame,
                DiagnosticKind::BadArguments,
                "keyword arguments are not supported in element-loop calls".into(),
                c,
            );
            return Err(());
        }
        let args: Vec<Value> = c.args.iter().map(|a| self.expr(frame, a)).collect();
        let param = self.hidden_param(Hidden::Callee(name.clone()));
        let what = format!("the call of `{name}`");
        self.scalar_call(frame, ScalarFn::Callable(param), args, (c, &what))
    }

    /// The positional arguments of a call that takes `min..=max` of them and no keywords.
    pub(in crate::lower) fn positional(
        &mut self,
        frame: &mut Frame,
        c: &ast::ExprCall,
        what: &str,
        min: usize,
        max: usize,
    ) -> R<Vec<Value>> {
        if !c.keywords.is_empty() {
            self.error_at(
                frame,
                DiagnosticKind::BadArguments,
                format!("{what} takes no keyword arguments here"),
                c,
            );
            return Err(());
        }
        let n = c.args.len();
        if n < min || n > max {
            let expected = if min == max {
                format!("{min}")
            } else if max == usize::MAX {
                format!("at least {min}")
            } else {
                format!("{min} to {max}")
            };
            self.error_at(
                frame,
                DiagnosticKind::BadArguments,
                format!(
                    "{what} takes {expected} argument{}, got {n}",
                    if max == 1 { "" } else { "s" }
                ),
                c,
            );
            return Err(());
        }
        Ok(c.args.iter().map(|a| self.expr(frame, a)).collect())
    }

    /// A call of the `math` function `name`.
    pub(in crate::lower) fn call_math(
        &mut self,
        frame: &mut Frame,
        c: &ast::ExprCall,
        name: &str,
    ) -> R<Value> {
        let what = format!("math.{name}()");
        match name {
            "log" => {
                let args = self.positional(frame, c, &what, 1, 2)?;
                let f = math_fn("log").ok_or(())?;
                let x = self.math_arg(frame, args[0], f.safe);
                let lx = self.emit(Op::Math(f, vec![x]));
                if args.len() == 1 {
                    self.math_raise(frame, name, &[x], lx);
                    return Ok(lx);
                }
                self.not_in_try(frame, c, "math.log(x, base)")?;
                let base = self.math_arg(frame, args[1], f.safe);
                let lb = self.emit(Op::Math(f, vec![base]));
                let lb = self.protect(frame, lb, SafeValue::One);
                return Ok(self.emit(Op::Binary(BinOp::Div, lx, lb)));
            }
            "isclose" => return self.call_isclose(frame, c),
            "modf" => return self.call_modf(frame, c),
            "fsum" => {
                self.not_in_try(frame, c, "math.fsum()")?;
                return self.call_fsum(frame, c);
            }
            "degrees" | "radians" => {
                let args = self.positional(frame, c, &what, 1, 1)?;
                let x = self.math_arg(frame, args[0], None);
                // CPython multiplies by the constant 180/pi (or pi/180).
                let factor = if name == "degrees" {
                    180.0 / std::f64::consts::PI
                } else {
                    std::f64::consts::PI / 180.0
                };
                let k = self.konst(Const::Float(factor));
                return Ok(self.emit(Op::Binary(BinOp::Mul, x, k)));
            }
            _ => {}
        }
        let Some(f) = math_fn(name) else {
            if self.opts.fallback {
                // D23: `math.factorial(n)`, per element.
                return self.call_site(frame, c);
            }
            self.error_at(
                frame,
                DiagnosticKind::UnknownCall,
                crate::lower::calls::suggest::math_call(name),
                &*c.func,
            );
            return Err(());
        };
        let args = self.positional(frame, c, &what, f.arity, f.arity)?;
        // D20: on lanes where an argument is None, the function's own TypeError.
        let args = self.open_nones(
            frame,
            &args,
            |t| format!("__import__('math').{name}({})", t.join(", ")),
            c,
        )?;
        let safe = f.safe;
        // floor/ceil/trunc keep an int argument as it is (codegen gives the int back
        // unchanged); every other function takes floats.
        let integral = matches!(name, "floor" | "ceil" | "trunc");
        if integral && matches!(self.kind(args[0]), Kind::Int | Kind::Bool) {
            // CPython's value, which cannot fail: a Python int stays a Python int, computed
            // exactly (docs/semantics.md item 16), not a 0-d int64 array that wraps.
            return Ok(self.cast(CastOp::Int, args[0]));
        }
        // D1: floor/ceil/trunc protect their argument (0 on dead lanes, whose int conversion
        // then cannot warn), not their result: `int(ceil(x))` stays the one runtime step
        // (codegen/peephole.rs `rounding_to_int`) that gives an int argument back exactly, where
        // a select between the two read an int beyond 2**53 through float64.
        let mut vals: Vec<Value> = args
            .iter()
            .map(|a| {
                if integral {
                    self.protect(frame, *a, SafeValue::Zero)
                } else {
                    self.math_arg(frame, *a, safe)
                }
            })
            .collect();
        if name == "pow" {
            vals[0] = self.protect(frame, vals[0], SafeValue::One);
        }
        let v = self.emit(Op::Math(f, vals.clone()));
        if !self.math_raise(frame, name, &vals, v) {
            self.not_in_try(frame, c, &format!("math.{name}()"))?;
        }
        // math.floor/ceil/trunc return ints; beyond int64 they raise per lane (item 7, D11).
        Ok(if integral {
            let r = self.cast(CastOp::Int, v);
            self.int_beyond_raise(frame, (&format!("math.{name}"), c), args[0], r)?;
            r
        } else {
            v
        })
    }

    /// A `math` argument: converted to float (math functions take floats) and protected.
    pub(in crate::lower) fn math_arg(
        &mut self,
        frame: &Frame,
        a: Value,
        safe: Option<SafeValue>,
    ) -> Value {
        let a = if self.kind(a) == Kind::Float {
            a
        } else {
            self.emit(Op::Cast(CastOp::Float, a))
        };
        match safe {
            Some(s) => self.protect(frame, a, s),
            None => a,
        }
    }

    /// A call of the builtin `name`.
    pub(in crate::lower) fn call_builtin(
        &mut self,
        frame: &mut Frame,
        c: &ast::ExprCall,
        name: &str,
    ) -> R<Value> {
        let what = format!("{name}()");
        if matches!(name, "sum" | "min" | "max" | "any" | "all") {
            if let Some(r) = self.reduction(frame, c, name) {
                return r;
            }
        }
        match name {
            "len" => self.table_len(frame, c),
            // D18: containers made by a call.
            "list" | "tuple" | "dict" | "zip" | "enumerate" | "reversed" => {
                self.container_builtin(frame, c, name)
            }
            "abs" => {
                let a = self.builtin_args(frame, c, name, (1, 1))?;
                Ok(self.emit(Op::Unary(UnOp::Abs, a[0])))
            }
            "min" | "max" => {
                let args = self.builtin_args(frame, c, name, (2, usize::MAX))?;
                // CPython keeps the first of equal items and replaces only on a strict win; a NaN
                // never wins and is kept when first. Exactly `b if b < a else a`, left to right.
                let cmp = if name == "min" { CmpOp::Lt } else { CmpOp::Gt };
                let mut acc = args[0];
                for &b in &args[1..] {
                    let wins = self.emit(Op::Compare(cmp, b, acc));
                    // A comparison of constants is decided here: the item itself is the result,
                    // with its own kind (`max(100, 3.0)` is the int 100). A select would be
                    // float-promoted, and the NumPy calls that promote on their operands' kinds
                    // (`numpy.maximum(max(100, 3.0), 1.0)`) would read that kind before the fold
                    // pass resolves the select (fuzz 730001 #1082).
                    acc = match self.const_of(wins) {
                        Some(Const::Bool(true)) => b,
                        Some(Const::Bool(false)) => acc,
                        _ => self.select(wins, b, acc),
                    };
                }
                Ok(acc)
            }
            "round" if c.args.len() == 2 || !c.keywords.is_empty() => self.call_round(frame, c),
            "float" if c.keywords.is_empty() && c.args.len() == 1 => {
                if let Some(text) = text_of(&c.args[0]) {
                    return self.float_of_text(frame, c, text);
                }
                self.conversion(frame, c, name, &what)
            }
            "float" | "int" | "bool" | "round" => self.conversion(frame, c, name, &what),
            "isinstance" => self.isinstance_call(frame, c),
            "pow" => {
                let a = self.builtin_args(frame, c, name, (2, 2))?;
                Ok(self.binary(frame, BinOp::Pow, a[0], a[1]))
            }
            "divmod" => self.divmod(frame, c),
            "range" => {
                self.error_at(
                    frame,
                    DiagnosticKind::UnsupportedExpression,
                    "range() is supported only as the iterable of a `for` loop".into(),
                    c,
                );
                Err(())
            }
            "print" => {
                self.error_at(
                    frame,
                    DiagnosticKind::SideEffect,
                    "print() has side effects and cannot be vectorized; remove it".into(),
                    c,
                );
                Err(())
            }
            _ => {
                let hint = if self.opts.fallback {
                    ""
                } else {
                    "; pass fallback=\"calls\" to call it element by element"
                };
                if self.opts.fallback {
                    // Builtins without an array form are called per element too (D23).
                    return self.element_call(frame, c, name.to_string());
                }
                self.error_at(
                    frame,
                    DiagnosticKind::UnknownCall,
                    format!("the builtin `{name}` cannot be vectorized{hint}"),
                    &*c.func,
                );
                Err(())
            }
        }
    }

    /// The positional arguments of the builtin `name` (`min..=max` of them, no keywords); on
    /// lanes where one is None (a helper's missing return, D20), CPython's TypeError.
    fn builtin_args(
        &mut self,
        frame: &mut Frame,
        c: &ast::ExprCall,
        name: &str,
        (min, max): (usize, usize),
    ) -> R<Vec<Value>> {
        let args = self.positional(frame, c, &format!("{name}()"), min, max)?;
        self.open_nones(frame, &args, |t| format!("{name}({})", t.join(", ")), c)
    }

    /// `float(x)`, `int(x)`, `bool(x)`, `round(x)`.
    fn conversion(
        &mut self,
        frame: &mut Frame,
        c: &ast::ExprCall,
        name: &str,
        what: &str,
    ) -> R<Value> {
        if name == "bool" {
            let a = self.positional(frame, c, what, 1, 1)?;
            // D20: None is false.
            if let Some(t) = self.none_truth(a[0]) {
                return Ok(t);
            }
            return Ok(self.cast(CastOp::Bool, a[0]));
        }
        let a = self.builtin_args(frame, c, name, (1, 1))?;
        self.convert_value(frame, name, a[0], c)
    }

    /// `float(v)`, `int(v)`, `bool(v)` or `round(v)` (`name`) of a lowered value (the call `c`).
    pub(in crate::lower::calls) fn convert_value(
        &mut self,
        frame: &mut Frame,
        name: &str,
        a: Value,
        c: &ast::ExprCall,
    ) -> R<Value> {
        let a = [a];
        let op = match name {
            "float" => CastOp::Float,
            "int" => CastOp::Int,
            "bool" => CastOp::Bool,
            _ => CastOp::Round,
        };
        // Float to int is partial (NaN, inf); ints and bools need no guard.
        if matches!(op, CastOp::Int | CastOp::Round) {
            self.int_conversion_raise(frame, name, a[0]);
        }
        let v = if matches!(op, CastOp::Int | CastOp::Round)
            && !matches!(self.kind(a[0]), Kind::Int | Kind::Bool)
        {
            self.protect(frame, a[0], SafeValue::Zero)
        } else {
            a[0]
        };
        let r = self.cast(op, v);
        if matches!(op, CastOp::Int | CastOp::Round) {
            // Item 7: beyond int64 raises OverflowError per lane (D11).
            self.int_beyond_raise(frame, (name, c), a[0], r)?;
        }
        Ok(r)
    }

    /// `float("...")` of a string literal: the number CPython parses, or a positioned error.
    fn float_of_text(&mut self, frame: &Frame, c: &ast::ExprCall, text: &str) -> R<Value> {
        match parse_float(text) {
            Some(f) => Ok(self.konst(Const::Float(f))),
            None => {
                self.error_at(
                    frame,
                    DiagnosticKind::UnsupportedExpression,
                    format!("float() of the string {text:?} is not a number this compiler reads: write the number itself (float() of a string is folded for decimal literals, 'nan', 'inf', 'infinity' with a sign)"),
                    c,
                );
                Err(())
            }
        }
    }
}

/// What a call calls.
pub(in crate::lower) enum Callee {
    /// A `math` function, by its name in `math`.
    Math(String),
    /// A NumPy function, by its name in `numpy` (D16).
    Numpy(String),
    /// A builtin, by name.
    Builtin(String),
    /// A helper function of the environment (D7).
    Helper(Box<FunctionSource>),
    /// A function nested in the one being lowered.
    Local(LocalFn),
    /// Another callable, called element by element (D23, `fallback="calls"`).
    Opaque(String),
    /// A call the compiler cannot vectorize, run element by element as written (D23).
    Site,
    /// `bisect.bisect_left` or `bisect.bisect_right` on a constant table (D15).
    Bisect(String),
    /// A classmethod, with the attributes and the dotted name of its class (bound to its first
    /// parameter).
    ClassMethod(Box<FunctionSource>, Env, String),
    /// A namedtuple class: its name and fields (issue 27 part 2 item 4).
    NamedTuple(String, Vec<String>),
}

/// The text of a string literal.
fn text_of(e: &ast::Expr) -> Option<&str> {
    match e {
        ast::Expr::Constant(c) => match &c.value {
            ast::Constant::Str(s) => Some(s.as_str()),
            _ => None,
        },
        _ => None,
    }
}

/// `float(text)` as CPython parses it: surrounding whitespace ignored, `nan`, `inf` and
/// `infinity` in any case with an optional sign (`-nan` keeps its sign bit), and decimal
/// ASCII decimal literals whose underscores each stand between two digits. None for anything
/// else (where CPython raises, or a literal in other digits, which this does not read).
fn parse_float(text: &str) -> Option<f64> {
    let t = text.trim();
    let (negative, body) = match t.as_bytes().first() {
        Some(b'-') => (true, &t[1..]),
        Some(b'+') => (false, &t[1..]),
        _ => (false, t),
    };
    let lower = body.to_ascii_lowercase();
    let magnitude = match lower.as_str() {
        "nan" => f64::NAN,
        "inf" | "infinity" => f64::INFINITY,
        _ => {
            let bytes = body.as_bytes();
            let digit = |i: usize| bytes.get(i).is_some_and(u8::is_ascii_digit);
            let underscores_ok = bytes
                .iter()
                .enumerate()
                .all(|(i, &b)| b != b'_' || (i > 0 && digit(i - 1) && digit(i + 1)));
            let plain = body.bytes().all(|b| {
                b.is_ascii_digit() || matches!(b, b'.' | b'e' | b'E' | b'+' | b'-' | b'_')
            });
            let unsigned = !body.starts_with(['+', '-']);
            if !underscores_ok || !plain || !unsigned || !body.bytes().any(|b| b.is_ascii_digit()) {
                return None;
            }
            body.replace('_', "").parse::<f64>().ok()?
        }
    };
    Some(if negative { -magnitude } else { magnitude })
}

#[cfg(test)]
mod tests {
    use super::parse_float;

    #[test]
    fn float_of_a_string_reads_what_cpython_reads() {
        assert!(parse_float(" nan ").is_some_and(|f| f.is_nan() && f.is_sign_positive()));
        assert!(parse_float("-NaN").is_some_and(|f| f.is_nan() && f.is_sign_negative()));
        assert_eq!(parse_float("-Infinity"), Some(f64::NEG_INFINITY));
        assert_eq!(parse_float("+inf"), Some(f64::INFINITY));
        assert_eq!(parse_float("1_000.5e-1_0"), Some(1000.5e-10));
        assert_eq!(parse_float("-0"), Some(-0.0));
        assert!(parse_float("-0").is_some_and(f64::is_sign_negative));
        for bad in [
            "", "_1", "1_", "1__0", "+-1", "1e", "e5", "nan1", "0x10", "1_.5", "infinit",
        ] {
            assert_eq!(parse_float(bad), None, "{bad:?}");
        }
    }

    use crate::pipeline::testing::{env, errors, ir_after_with, lowered};
    use crate::pipeline::Options;

    #[test]
    fn min_replaces_only_on_a_strict_win() {
        let ir = lowered("def f(x, y):\n    return min(x, y)\n");
        assert!(ir.contains("lt %1, %0") && ir.contains("select"), "{ir}");
    }

    #[test]
    fn log_with_a_base_divides_two_logs() {
        let ir = lowered("def f(x):\n    return math.log(x, 2.0)\n");
        assert_eq!(ir.matches("math.log(").count(), 2, "{ir}");
        assert!(ir.contains("div "), "{ir}");
    }

    #[test]
    fn a_math_function_without_counterpart_is_refused() {
        let e = errors("def f(x):\n    return math.factorial(x)\n");
        assert!(
            e.iter().any(|m| m.contains("no Array API counterpart")),
            "{e:?}"
        );
    }

    #[test]
    fn protect_domains_gives_dead_lanes_a_value_in_the_domain() {
        let src = "def f(x):\n    if x > 0.0:\n        return math.sqrt(x)\n    return 0.0\n";
        let options = Options {
            protect_domains: true,
            fallback: false,
            optimize: false,
            nan_on_raise: false,
        };
        let ir = ir_after_with(src, "lower", &env(&[]), options).to_string();
        assert!(
            ir.contains("const 1.0") && ir.contains("math.sqrt("),
            "{ir}"
        );
        let plain = lowered(src);
        assert!(!plain.contains("const 1.0"), "{plain}");
    }
}
