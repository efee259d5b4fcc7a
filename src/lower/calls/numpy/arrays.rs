//! Array-aware scalar code (D16): the NumPy calls that scalar code makes to work on both
//! numbers and arrays, each with NumPy's meaning on scalars (`numpy/table.rs` has the table):
//! `np.asarray(x)` (the value), `np.ones_like`/`zeros_like`/`full_like` (a constant in the
//! argument's kind), `np.astype(x, T)` and `x.astype(T)` (NumPy's cast), `np.round(x, d)` with
//! constant decimals (NumPy's `rint(x * 10**d) / 10**d`), `np.polyval(P, x)` over a constant
//! table (Horner's rule from `zeros_like(x) * x`, as NumPy computes it) and `np.broadcast_arrays`
//! (the identity on scalars: a tuple, D13).
//!
//! ```python
//! def level(x):
//!     y = np.zeros_like(x)                  # Select(AsArray(True), False, x): 0 in x's kind
//!     return np.polyval((0.5, -1.0, 2.0), x) + y
//! ```

use rustpython_parser::ast;

use crate::diagnostics::DiagnosticKind;
use crate::env::{AssumedBinding, Binding};
use crate::frontend::extract::span;
use crate::ir::{BinOp, CastOp, Const, Kind, Op, SafeValue, Value};
use crate::lower::calls::numpy::rounding_fn;
use crate::lower::{Frame, Lowerer, R};

/// The conversions `astype` (and `asarray`'s `dtype=`) accept, by how the dtype is written.
const DTYPES: &[(&str, CastOp)] = &[
    ("float", CastOp::Float),
    ("float64", CastOp::Float),
    ("double", CastOp::Float),
    ("int", CastOp::Int),
    ("int64", CastOp::Int),
    ("bool", CastOp::Bool),
    ("bool_", CastOp::Bool),
];

/// NumPy's `power_of_ten` (calculation.c), the factor of `np.round(x, d)`: exact table values
/// up to 1e8, then repeated multiplication by 10.
fn power_of_ten(n: u32) -> f64 {
    const P10: [f64; 9] = [1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8];
    if n < 9 {
        return P10[n as usize];
    }
    let mut r = 1e9;
    for _ in 9..n {
        r *= 10.0;
    }
    r
}

impl Lowerer<'_> {
    /// `np.floor/ceil/trunc(x)`, `np.round(x)`, and `np.round(x, d)` with a constant int `d`
    /// (positional or `decimals=`).
    pub(in crate::lower::calls) fn numpy_rounding(
        &mut self,
        frame: &mut Frame,
        c: &ast::ExprCall,
        name: &str,
        what: &str,
    ) -> R<Value> {
        let f = rounding_fn(name);
        let decimals = match (c.args.as_slice(), c.keywords.as_slice()) {
            ([_, d], []) if name == "round" => Some(d),
            ([_], [kw]) if name == "round" && kw.arg.as_deref() == Some("decimals") => {
                Some(&kw.value)
            }
            _ => None,
        };
        let Some(decimals) = decimals else {
            let a = self.positional(frame, c, what, 1, 1)?;
            return Ok(self.emit(Op::Math(f, vec![a[0]])));
        };
        let x = self.expr(frame, &c.args[0]);
        let d = self.expr(frame, decimals);
        let d = match self.const_of(d) {
            Some(Const::Int(d)) if d.unsigned_abs() <= 308 => d as i32,
            _ => {
                self.error_at(
                    frame,
                    DiagnosticKind::BadArguments,
                    "numpy.round(x, decimals) needs decimals to be a constant int between -308 \
                     and 308 (a literal or a module constant)"
                        .into(),
                    decimals,
                );
                return Err(());
            }
        };
        match self.kind(x) {
            _ if d == 0 => Ok(self.emit(Op::Math(f, vec![x]))),
            Kind::Int if d > 0 => Ok(x),
            Kind::Float => {
                // NumPy's PyArray_Round: `rint(x * f) / f`, or `rint(x / f) * f` for d < 0.
                let k = self.konst(Const::Float(power_of_ten(d.unsigned_abs())));
                let (first, then) = if d > 0 {
                    (BinOp::Mul, BinOp::Div)
                } else {
                    (BinOp::Div, BinOp::Mul)
                };
                let scaled = self.emit(Op::Binary(first, x, k));
                let rounded = self.emit(Op::Math(f, vec![scaled]));
                Ok(self.emit(Op::Binary(then, rounded, k)))
            }
            _ => {
                self.error_at(
                    frame,
                    DiagnosticKind::BadArguments,
                    "numpy.round(x, decimals) needs x known to be a float here (or an int, for \
                     decimals >= 0): its kind decides NumPy's result; write \
                     np.round(float(x), decimals)"
                        .into(),
                    &c.args[0],
                );
                Err(())
            }
        }
    }

    /// `np.asarray(x)` / `np.asanyarray(x)`: the number itself (a 0-d array of it computes as
    /// NumPy's scalar does, item 19); a `dtype` (second argument or `dtype=`) converts it as
    /// `astype` does.
    pub(in crate::lower::calls) fn numpy_asarray(
        &mut self,
        frame: &mut Frame,
        c: &ast::ExprCall,
        what: &str,
    ) -> R<Value> {
        let dtype = match (c.args.as_slice(), c.keywords.as_slice()) {
            ([_], []) => None,
            ([_, d], []) => Some(d),
            ([_], [kw]) if kw.arg.as_deref() == Some("dtype") => Some(&kw.value),
            _ => {
                self.error_at(
                    frame,
                    DiagnosticKind::BadArguments,
                    format!("{what} takes the value and at most a dtype (`dtype=float`)"),
                    c,
                );
                return Err(());
            }
        };
        let x = self.expr(frame, &c.args[0]);
        match dtype {
            None => Ok(x),
            Some(d) => self.astype(frame, x, d),
        }
    }

    /// `np.ones_like(x)` (`one`) or `np.zeros_like(x)`, with an optional `dtype=`.
    pub(in crate::lower::calls) fn numpy_like_call(
        &mut self,
        frame: &mut Frame,
        c: &ast::ExprCall,
        what: &str,
        one: bool,
    ) -> R<Value> {
        let (args, dtype) = self.like_arguments(frame, c, what, &["x"])?;
        let k = self.konst(Const::Bool(one));
        Ok(match dtype {
            Some(op) => self.numpy_cast(frame, op, k),
            None => self.numpy_like(args[0], one),
        })
    }

    /// The positional arguments `names` of a `*_like` call (`fill_value=` may name the second)
    /// and the conversion its `dtype=` names.
    fn like_arguments(
        &mut self,
        frame: &mut Frame,
        c: &ast::ExprCall,
        what: &str,
        names: &[&str],
    ) -> R<(Vec<Value>, Option<CastOp>)> {
        let mut slots: Vec<Option<&ast::Expr>> = vec![None; names.len()];
        let mut dtype = None;
        let mut ok = c.args.len() <= names.len();
        for (slot, a) in slots.iter_mut().zip(&c.args) {
            *slot = Some(a);
        }
        for kw in &c.keywords {
            match kw.arg.as_deref() {
                Some("dtype") if dtype.is_none() => dtype = Some(&kw.value),
                Some("fill_value") if names.len() == 2 && slots[1].is_none() => {
                    slots[1] = Some(&kw.value)
                }
                _ => ok = false,
            }
        }
        let slots: Option<Vec<&ast::Expr>> = slots.into_iter().collect();
        let Some(slots) = slots.filter(|_| ok) else {
            self.error_at(
                frame,
                DiagnosticKind::BadArguments,
                format!(
                    "{what} takes {} and an optional dtype= here",
                    names.join(", ")
                ),
                c,
            );
            return Err(());
        };
        let values = slots.iter().map(|e| self.expr(frame, e)).collect();
        let op = match dtype {
            None => None,
            Some(d) => Some(self.dtype_or_error(frame, d)?),
        };
        Ok((values, op))
    }

    /// `np.ones_like(x)` (`one`) or `np.zeros_like(x)`: the constant in `x`'s kind. Where that
    /// kind is known only per call, `where(True, k, x)` with a bool `k`: NumPy's promotion of a
    /// bool to `x`'s dtype is exactly the constant in it.
    pub(in crate::lower::calls) fn numpy_like(&mut self, x: Value, one: bool) -> Value {
        let k = match self.kind(x) {
            Kind::Float => Const::Float(if one { 1.0 } else { 0.0 }),
            Kind::Int => Const::Int(i128::from(one)),
            Kind::Bool => Const::Bool(one),
            _ => {
                let k = self.konst(Const::Bool(one));
                return self.promoted_to_kind_of(k, x);
            }
        };
        self.konst(k)
    }

    /// The bool `b` in the kind of `x` (known per call only): `where(True, b, x)`, whose dtype
    /// NumPy's promotion makes `x`'s.
    fn promoted_to_kind_of(&mut self, b: Value, x: Value) -> Value {
        let t = self.konst(Const::Bool(true));
        let t = self.emit(Op::AsArray(t));
        self.emit(Op::Select(t, b, x))
    }

    /// `np.full_like(x, v)` (or `fill_value=v`, and an optional `dtype=`): `v` converted to `x`'s
    /// kind, as NumPy converts it to `x`'s dtype (a float to an int truncates).
    pub(in crate::lower::calls) fn numpy_full_like(
        &mut self,
        frame: &mut Frame,
        c: &ast::ExprCall,
        what: &str,
    ) -> R<Value> {
        let (args, dtype) = self.like_arguments(frame, c, what, &["x", "fill_value"])?;
        let (x, v) = (args[0], args[1]);
        let op = dtype.or(match self.kind(x) {
            Kind::Float => Some(CastOp::Float),
            Kind::Int => Some(CastOp::Int),
            Kind::Bool => Some(CastOp::Bool),
            _ => None,
        });
        if let Some(op) = op {
            return Ok(self.numpy_cast(frame, op, v));
        }
        // `x`'s kind is known per call only. A 0 or 1 (not -0.0) is that constant in any kind;
        // a bool promotes to any kind exactly.
        match self.const_of(v) {
            Some(Const::Bool(b)) => return Ok(self.numpy_like(x, b)),
            Some(Const::Int(i @ (0 | 1))) => return Ok(self.numpy_like(x, i == 1)),
            Some(Const::Float(f)) if f == 1.0 || (f == 0.0 && f.is_sign_positive()) => {
                return Ok(self.numpy_like(x, f == 1.0))
            }
            _ => {}
        }
        if self.kind(v) == Kind::Bool {
            return Ok(self.promoted_to_kind_of(v, x));
        }
        // D10: NumPy narrows a fill value to an int or bool `x` (truncating a float), which no
        // `where` writes; only the float body knows `x` is a float.
        self.error_at(
            frame,
            DiagnosticKind::BadArguments,
            "numpy.full_like(x, v): NumPy converts v to x's dtype (an int x truncates a float v), \
             and x's kind is known only per call here; say which with dtype=float (or \
             np.full_like(float(x), v)), or fill with 0, 1 or a bool"
                .into(),
            c,
        );
        Err(())
    }

    /// `v` converted as NumPy's unsafe cast does: `float()`, `int()` (truncation toward zero;
    /// nan and ±inf, undefined in NumPy, give item 7's values) or `bool()`, never raising.
    pub(in crate::lower::calls) fn numpy_cast(
        &mut self,
        frame: &Frame,
        op: CastOp,
        v: Value,
    ) -> Value {
        let v = if op == CastOp::Int && !matches!(self.kind(v), Kind::Int | Kind::Bool) {
            self.protect(frame, v, SafeValue::Zero)
        } else {
            v
        };
        self.cast(op, v)
    }

    /// The conversion a dtype written as `d` names (`float`, `np.float64`, `"int64"`, ...).
    fn dtype_cast(&mut self, frame: &Frame, d: &ast::Expr) -> Option<CastOp> {
        let written = match d {
            ast::Expr::Constant(k) => match &k.value {
                ast::Constant::Str(s) => Some(s.as_str()),
                _ => None,
            },
            ast::Expr::Name(n) => {
                let name = n.id.as_str();
                let local = frame.vars.contains_key(name) || frame.locals.contains(name);
                match frame.env.get(name) {
                    _ if local => None,
                    Some(Binding::Builtin(b)) if matches!(b.as_str(), "float" | "int" | "bool") => {
                        Some(name)
                    }
                    Some(Binding::NumpyMember(m)) => Some(m.as_str()),
                    _ => None,
                }
            }
            ast::Expr::Attribute(a) => match a.value.as_ref() {
                ast::Expr::Name(n) if self.is_numpy(frame, n.id.as_str()) => Some(a.attr.as_str()),
                _ => None,
            },
            _ => None,
        }?;
        let op = DTYPES
            .iter()
            .find(|(n, _)| *n == written)
            .map(|(_, op)| *op);
        if let (Some(_), ast::Expr::Name(n)) = (op, d) {
            // The builtin or NumPy name the dtype was read from (D8).
            let name = n.id.as_str();
            match frame.env.get(name).cloned() {
                Some(Binding::Builtin(b)) => self.assume(frame, name, AssumedBinding::Builtin(b)),
                Some(Binding::NumpyMember(m)) => {
                    self.assume(frame, name, AssumedBinding::NumpyMember(m))
                }
                _ => {}
            }
        }
        op
    }

    /// `x` converted to the dtype written `d`.
    pub(in crate::lower::calls) fn astype(
        &mut self,
        frame: &mut Frame,
        x: Value,
        d: &ast::Expr,
    ) -> R<Value> {
        let op = self.dtype_or_error(frame, d)?;
        Ok(self.numpy_cast(frame, op, x))
    }

    /// The conversion the dtype written `d` names; Err after reporting any other.
    fn dtype_or_error(&mut self, frame: &Frame, d: &ast::Expr) -> R<CastOp> {
        let Some(op) = self.dtype_cast(frame, d) else {
            self.error_at(
                frame,
                DiagnosticKind::BadArguments,
                "astype() converts to float, int or bool (also written numpy.float64, \
                 numpy.int64, numpy.bool_ or as the strings \"float64\", \"int64\", \"bool\") \
                 inside scalar code (D16)"
                    .into(),
                d,
            );
            return Err(());
        };
        Ok(op)
    }

    /// `np.astype(x, T)`.
    pub(in crate::lower::calls) fn numpy_astype_call(
        &mut self,
        frame: &mut Frame,
        c: &ast::ExprCall,
        what: &str,
    ) -> R<Value> {
        let ([x, d], []) = (c.args.as_slice(), c.keywords.as_slice()) else {
            self.error_at(
                frame,
                DiagnosticKind::BadArguments,
                format!("{what} takes the value and a dtype"),
                c,
            );
            return Err(());
        };
        let x = self.expr(frame, x);
        self.astype(frame, x, d)
    }

    /// `x.astype(T)` on a number, as NumPy's scalars have it; None when the call is not one
    /// (another attribute, or `astype` of a module or class of the environment).
    pub(in crate::lower) fn astype_method(
        &mut self,
        frame: &mut Frame,
        a: &ast::ExprAttribute,
        c: &ast::ExprCall,
    ) -> Option<R<Value>> {
        if a.attr.as_str() != "astype" {
            return None;
        }
        if let ast::Expr::Name(n) = a.value.as_ref() {
            let name = n.id.as_str();
            let local = frame.vars.contains_key(name) || frame.locals.contains(name);
            if !local
                && matches!(
                    frame.env.get(name),
                    Some(
                        Binding::NumpyModule
                            | Binding::MathModule
                            | Binding::BisectModule
                            | Binding::Namespace(_)
                    )
                )
            {
                return None;
            }
        }
        let ([d], []) = (c.args.as_slice(), c.keywords.as_slice()) else {
            self.error_at(
                frame,
                DiagnosticKind::BadArguments,
                "astype() takes one dtype here (`x.astype(float)`)".into(),
                c,
            );
            return Some(Err(()));
        };
        let x = self.expr(frame, &a.value);
        Some(self.astype(frame, x, d))
    }

    /// `np.polyval(P, x)` with `P` a constant table of numbers: NumPy's loop, `y = zeros_like(x)`
    /// then `y = y * x + p` for each coefficient (promoted to one kind, as `np.asarray(P)`); a
    /// bool `x` counts as an int (item 19).
    pub(in crate::lower::calls) fn numpy_polyval(
        &mut self,
        frame: &mut Frame,
        c: &ast::ExprCall,
        what: &str,
    ) -> R<Value> {
        let ([p, x], []) = (c.args.as_slice(), c.keywords.as_slice()) else {
            self.error_at(
                frame,
                DiagnosticKind::BadArguments,
                format!("{what} takes the coefficients and the value, `np.polyval(P, x)`"),
                c,
            );
            return Err(());
        };
        let table = self.table(frame, p, p, false)?;
        let coefficients = match self.const_of(table) {
            Some(Const::Tuple(items) | Const::List(items))
                if items
                    .iter()
                    .all(|i| matches!(i, Const::Bool(_) | Const::Int(_) | Const::Float(_))) =>
            {
                items
            }
            _ => {
                self.error_at(
                    frame,
                    DiagnosticKind::BadArguments,
                    "numpy.polyval(P, x) needs P to be a constant tuple or list of numbers \
                     (a display, or a module constant: D15)"
                        .into(),
                    p,
                );
                return Err(());
            }
        };
        let any_float = coefficients.iter().any(|k| matches!(k, Const::Float(_)));
        let any_int = coefficients.iter().any(|k| matches!(k, Const::Int(_)));
        let x = self.expr(frame, x);
        // NumPy's first step multiplies `zeros_like(x)` by `x`: `x * 0` in value and kind (nan
        // for an infinite or nan `x`, -0.0 for a negative one).
        let zero = self.konst(Const::Int(0));
        let mut y = None;
        for k in coefficients {
            let k = match k {
                Const::Int(i) if any_float => Const::Float(i as f64),
                Const::Bool(b) if any_float => Const::Float(f64::from(u8::from(b))),
                Const::Bool(b) if any_int => Const::Int(i128::from(b)),
                k => k,
            };
            let k = self.konst(k);
            let product = match y {
                None => self.binary(frame, BinOp::Mul, x, zero),
                Some(y) => self.binary(frame, BinOp::Mul, y, x),
            };
            y = Some(self.binary(frame, BinOp::Add, product, k));
        }
        Ok(y.unwrap_or_else(|| self.numpy_like(x, false)))
    }

    /// `np.broadcast_arrays(a, b, ...)`: on numbers, its arguments as they are, as a tuple (D13).
    pub(in crate::lower::calls) fn numpy_broadcast_arrays(
        &mut self,
        frame: &mut Frame,
        c: &ast::ExprCall,
    ) -> R<Value> {
        let items = self.positional(frame, c, "numpy.broadcast_arrays()", 1, usize::MAX)?;
        let (start, end) = span(c);
        Ok(self.make_tuple(items, (frame.source, start, end)))
    }
}

#[cfg(test)]
mod tests {
    use super::power_of_ten;

    #[test]
    fn powers_of_ten_are_numpys() {
        assert_eq!(power_of_ten(0), 1.0);
        assert_eq!(power_of_ten(8), 1e8);
        assert_eq!(power_of_ten(9), 1e9);
        assert_eq!(power_of_ten(12), 1e12);
    }
}
