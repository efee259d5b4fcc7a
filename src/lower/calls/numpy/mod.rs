//! NumPy inside scalar code (D16): `np.sqrt(x)`, `np.maximum(a, 0.0)`, `np.where(c, a, b)`,
//! `np.clip(x, lo, hi)`, `np.pi`, `np.float64(x)`, ... in functions whose scalar form already runs
//! on NumPy scalars, called through the module (any alias, or a namespace argument, D14) or
//! imported by name (`from numpy import exp as e`). The names accepted, with what each lowers
//! to and its semantics, are the table of `numpy/table.rs`; this file dispatches on it. Each
//! lowers to the IR with NumPy's meaning on float64 scalars (the oracle): the float functions are the `math` ones without CPython's exceptions (the IEEE value is
//! NumPy's answer), `maximum`/`minimum`/`clip` propagate NaN, `floor`/`ceil`/`trunc`/`round`
//! return floats for floats and leave ints as they are. Nothing in the generated code refers to
//! NumPy (D9).

pub(in crate::lower) mod arrays;
pub mod table;

use rustpython_parser::ast;

use crate::diagnostics::DiagnosticKind;
use crate::env::{AssumedBinding, Binding};
use crate::ir::{
    math_fn, BinOp, CastOp, CmpOp, Const, Kind, LogicOp, MathFn, Op, UnOp, Value, NUMPY_POWER,
    NUMPY_ROUNDING,
};
use crate::lower::{Frame, Lowerer, R};
use table::{numpy_name, supported_list, Lowering};

/// NumPy's rounding function `name` (`ir::NUMPY_ROUNDING`).
pub(in crate::lower::calls) fn rounding_fn(name: &str) -> &'static MathFn {
    NUMPY_ROUNDING
        .iter()
        .find(|f| f.name == name)
        .expect("the NumPy table names NumPy's rounding functions")
}

impl Lowerer<'_> {
    /// `np.power(x, y)` as NumPy computes it on scalars (D16): C's `pow`, except that an
    /// exponent of 0.5 is `sqrt` (`np.power(-0.0, 0.5)` is -0.0, `np.power(-inf, 0.5)` nan, where
    /// `pow` and CPython's `**` give 0.0 and inf). Two ints are `**` (docs/semantics.md item 19);
    /// a constant exponent other than 0.5, or an int one, is `**` on floats, whose helpers give
    /// C's values; an exponent that may be 0.5 only at run time goes to the runtime's `np_pow`.
    fn numpy_power(&mut self, frame: &mut Frame, x: Value, y: Value) -> Value {
        let int = |k: Kind| matches!(k, Kind::Int | Kind::Bool);
        let (kx, ky) = (self.kind(x), self.kind(y));
        if let Some(Const::Float(h)) = self.const_of(y) {
            if h == 0.5 {
                let sqrt = math_fn("sqrt").expect("math.sqrt is known");
                let x = self.math_arg(frame, x, sqrt.safe);
                return self.emit(Op::Math(sqrt, vec![x]));
            }
        }
        if (int(kx) && int(ky)) || self.const_of(y).is_some() || int(ky) {
            return self.binary(frame, BinOp::Pow, x, y);
        }
        self.emit(Op::Math(&NUMPY_POWER, vec![x, y]))
    }

    /// Whether `name` is the `numpy` module here (recording the assumption when it is).
    pub(in crate::lower) fn is_numpy(&mut self, frame: &Frame, name: &str) -> bool {
        if frame.vars.contains_key(name) || frame.locals.contains(name) {
            return false;
        }
        if !matches!(frame.env.get(name), Some(Binding::NumpyModule)) {
            return false;
        }
        self.assume(frame, name, AssumedBinding::NumpyModule);
        true
    }

    /// `np.<attr>` as a value (also a name imported from NumPy, `from numpy import pi`): one of
    /// NumPy's float constants.
    pub(in crate::lower) fn numpy_constant(
        &mut self,
        frame: &Frame,
        attr: &str,
        e: &ast::Expr,
    ) -> R<Value> {
        if let Some(Lowering::Constant(value)) = numpy_name(attr).map(|n| n.lowering) {
            return Ok(self.konst(Const::Float(value)));
        }
        let what = if numpy_name(attr).is_some() {
            format!("`numpy.{attr}` is a function; it can be called but not used as a value")
        } else {
            format!(
                "`numpy.{attr}` has no meaning in vectorized scalar code (D16); supported are {}",
                supported_list()
            )
        };
        self.error_at(frame, DiagnosticKind::UnsupportedExpression, what, e);
        Err(())
    }

    /// A call `np.<name>(...)`, or of a name imported from NumPy (`from numpy import exp`): the
    /// entry of the NumPy table (`numpy/table.rs`) says what it lowers to.
    pub(in crate::lower) fn call_numpy(
        &mut self,
        frame: &mut Frame,
        c: &ast::ExprCall,
        name: &str,
    ) -> R<Value> {
        let what = format!("numpy.{name}()");
        let Some(entry) = numpy_name(name) else {
            self.error_at(
                frame,
                DiagnosticKind::UnknownCall,
                format!(
                    "`numpy.{name}` cannot be vectorized inside scalar code (D16); \
                     supported are {}",
                    supported_list()
                ),
                &*c.func,
            );
            return Err(());
        };
        match entry.lowering {
            Lowering::Math(m) => {
                let f = math_fn(m)
                    .ok_or(())
                    .inspect_err(|()| self.internal(frame, c))?;
                let args = self.positional(frame, c, &what, f.arity, f.arity)?;
                let args = args
                    .iter()
                    .map(|a| self.math_arg(frame, *a, f.safe))
                    .collect();
                Ok(self.emit(Op::Math(f, args)))
            }
            Lowering::Rounding(r) => self.numpy_rounding(frame, c, r, &what),
            Lowering::Rint => {
                // `rint` is `round` on the value as a float (NumPy gives a float for an int).
                let a = self.positional(frame, c, &what, 1, 1)?;
                let a = self.math_arg(frame, a[0], None);
                Ok(self.emit(Op::Math(rounding_fn("round"), vec![a])))
            }
            Lowering::Abs => {
                let a = self.positional(frame, c, &what, 1, 1)?;
                Ok(self.emit(Op::Unary(UnOp::Abs, a[0])))
            }
            Lowering::Square => {
                let a = self.positional(frame, c, &what, 1, 1)?;
                Ok(self.binary(frame, BinOp::Mul, a[0], a[0]))
            }
            Lowering::Power => {
                let a = self.positional(frame, c, &what, 2, 2)?;
                Ok(self.numpy_power(frame, a[0], a[1]))
            }
            Lowering::FloatPower => {
                let a = self.positional(frame, c, &what, 2, 2)?;
                let x = self.math_arg(frame, a[0], None);
                let y = self.math_arg(frame, a[1], None);
                Ok(self.binary(frame, BinOp::Pow, x, y))
            }
            Lowering::Scale(factor) => {
                // NumPy multiplies by the constant 180/pi (or pi/180), as CPython's math does.
                let a = self.positional(frame, c, &what, 1, 1)?;
                let x = self.math_arg(frame, a[0], None);
                let k = self.konst(Const::Float(factor));
                Ok(self.emit(Op::Binary(BinOp::Mul, x, k)))
            }
            Lowering::Extremum(is_max) => {
                let a = self.positional(frame, c, &what, 2, 2)?;
                let a = self.promoted(&a);
                Ok(self.extremum(is_max, a[0], a[1]))
            }
            Lowering::Clip => self.clip(frame, c),
            Lowering::Where => {
                let a = self.positional(frame, c, &what, 3, 3)?;
                let cond = self.as_bool(a[0]);
                let v = self.promoted(&a[1..]);
                Ok(self.numpy_where(cond, v[0], v[1]))
            }
            Lowering::Sign => {
                let a = self.positional(frame, c, &what, 1, 1)?;
                Ok(self.sign(a[0]))
            }
            Lowering::Cast(op) => {
                // D16: NumPy's cast, which never raises (`np.int64(nan)` is not `int(nan)`).
                let a = self.positional(frame, c, &what, 1, 1)?;
                Ok(self.numpy_cast(frame, op, a[0]))
            }
            Lowering::Constant(_) => {
                self.error_at(
                    frame,
                    DiagnosticKind::UnknownCall,
                    format!("`numpy.{name}` is a number, not a function"),
                    &*c.func,
                );
                Err(())
            }
            Lowering::AsArray => self.numpy_asarray(frame, c, &what),
            Lowering::Like(one) => self.numpy_like_call(frame, c, &what, one),
            Lowering::FullLike => self.numpy_full_like(frame, c, &what),
            Lowering::AsType => self.numpy_astype_call(frame, c, &what),
            Lowering::Polyval => self.numpy_polyval(frame, c, &what),
            Lowering::BroadcastArrays => self.numpy_broadcast_arrays(frame, c),
        }
    }

    /// `np.where(cond, a, b)` of operands already promoted to one kind.
    pub(in crate::lower::calls) fn numpy_where(
        &mut self,
        cond: Value,
        a: Value,
        b: Value,
    ) -> Value {
        let (k0, k1) = (self.kind(a), self.kind(b));
        if self.const_of(cond).is_some() && (k0 != k1 || k0 == Kind::Unknown) {
            // A constant condition picks one side, but NumPy's result has the dtype of
            // both (`np.where(1, 0, x)` is float for a float `x`), which may be known
            // only at run time: the select stays, on a 0-d condition, and the runtime
            // joins the kinds.
            let c = self.emit(Op::AsArray(cond));
            return self.emit(Op::Select(c, a, b));
        }
        self.select(cond, a, b)
    }

    /// The value operands of one NumPy call in the kind NumPy gives them all (its type
    /// promotion): float if one is a float, else int if one is an int (a bool counts as 0 or 1,
    /// item 19). `np.where(c, 1.0, 0)` is a float whichever side is taken.
    pub(in crate::lower::calls) fn promoted(&mut self, vals: &[Value]) -> Vec<Value> {
        let kinds: Vec<Kind> = vals.iter().map(|v| self.kind(*v)).collect();
        let to = if kinds.contains(&Kind::Float) {
            Some((Kind::Float, CastOp::Float))
        } else if kinds.contains(&Kind::Int) && kinds.contains(&Kind::Bool) {
            Some((Kind::Int, CastOp::Int))
        } else {
            None
        };
        vals.iter()
            .zip(&kinds)
            .map(|(&v, &k)| match to {
                Some((kind, op)) if k != kind => self.cast(op, v),
                _ => v,
            })
            .collect()
    }

    /// NumPy's `maximum(a, b)` (`minimum` with `is_max` false): `a if a > b or isnan(a) else b`,
    /// so a NaN on either side wins and of two equal values (0.0 and -0.0) the second is kept.
    fn extremum(&mut self, is_max: bool, a: Value, b: Value) -> Value {
        let op = if is_max { CmpOp::Gt } else { CmpOp::Lt };
        let wins = self.emit(Op::Compare(op, a, b));
        let nan = self.emit(Op::Compare(CmpOp::Ne, a, a));
        let keep = self.emit(Op::Logic(LogicOp::Or, wins, nan));
        self.select(keep, a, b)
    }

    /// `np.clip(x, lo, hi)`: `minimum(maximum(x, lo), hi)` (NumPy's order, so `lo > hi` gives
    /// `hi`); a bound written `None` is left out. The bounds may be given as `a_min`/`a_max` or
    /// `min`/`max`.
    fn clip(&mut self, frame: &mut Frame, c: &ast::ExprCall) -> R<Value> {
        let mut slots: [Option<&ast::Expr>; 3] = [None; 3];
        let mut ok = c.args.len() <= 3;
        for (slot, a) in slots.iter_mut().zip(&c.args) {
            *slot = Some(a);
        }
        for kw in &c.keywords {
            let i = match kw.arg.as_ref().map(|a| a.as_str()) {
                Some("a_min" | "min") => 1,
                Some("a_max" | "max") => 2,
                _ => 0,
            };
            ok &= i != 0 && slots[i].is_none();
            slots[i] = Some(&kw.value);
        }
        let [Some(x), Some(lo), Some(hi)] = slots.map(|s| s.filter(|_| ok)) else {
            self.error_at(
                frame,
                DiagnosticKind::BadArguments,
                "numpy.clip() takes the value and both bounds, `np.clip(x, lo, hi)` (a bound \
                 may be None, or given as a_min=/a_max= or min=/max=)"
                    .into(),
                c,
            );
            return Err(());
        };
        let is_none = |e: &ast::Expr| matches!(e, ast::Expr::Constant(k) if k.value.is_none());
        let mut operands = vec![(self.expr(frame, x), None)];
        for (bound, is_max) in [(lo, true), (hi, false)] {
            if !is_none(bound) {
                operands.push((self.expr(frame, bound), Some(is_max)));
            }
        }
        let values: Vec<Value> = operands.iter().map(|(v, _)| *v).collect();
        let values = self.promoted(&values);
        let mut v = values[0];
        for (&b, (_, is_max)) in values.iter().zip(&operands).skip(1) {
            v = self.extremum(is_max.unwrap_or_default(), v, b);
        }
        Ok(v)
    }

    /// NumPy's `sign(x)`: 1, -1, 0 for zeros of either sign, NaN for NaN; an int for an int.
    fn sign(&mut self, x: Value) -> Value {
        // NumPy's sign of a float is a float (`np.sign(0.0)` is 0.0): with int constants, a
        // folded float argument gave the int 0, and `0 % np.sign(0.0)` was 0 instead of nan.
        let (zero, one, minus_one) = if self.kind(x) == Kind::Float {
            (Const::Float(0.0), Const::Float(1.0), Const::Float(-1.0))
        } else {
            (Const::Int(0), Const::Int(1), Const::Int(-1))
        };
        let zero = self.konst(zero);
        let one = self.konst(one);
        let minus_one = self.konst(minus_one);
        let is_zero = self.emit(Op::Compare(CmpOp::Eq, x, zero));
        let rest = self.select(is_zero, zero, x);
        let neg = self.emit(Op::Compare(CmpOp::Lt, x, zero));
        let rest = self.select(neg, minus_one, rest);
        let pos = self.emit(Op::Compare(CmpOp::Gt, x, zero));
        self.select(pos, one, rest)
    }

    /// A value's truth as a bool (D4: `x != 0` for a number).
    pub(in crate::lower::calls) fn as_bool(&mut self, v: Value) -> Value {
        if self.kind(v) == Kind::Bool {
            v
        } else {
            self.cast(CastOp::Bool, v)
        }
    }

    /// An internal error: a table of this file names a `math` function that does not exist.
    fn internal(&mut self, frame: &Frame, c: &ast::ExprCall) {
        self.error_at(
            frame,
            DiagnosticKind::Unexplained,
            "internal error: a NumPy function maps to an unknown math function".into(),
            c,
        );
    }
}

#[cfg(test)]
mod tests {
    use crate::env::Binding;
    use crate::pipeline::testing::{env, ir_after_with};
    use crate::pipeline::Options;

    fn np_env() -> crate::env::Env {
        env(&[("np", Binding::NumpyModule)])
    }

    #[test]
    fn numpy_float_functions_are_math_functions_and_constants_fold() {
        let src = "def f(x):\n    return np.sqrt(x) + np.arctan2(x, np.pi)\n";
        let ir = ir_after_with(src, "lower", &np_env(), Options::default()).to_string();
        assert!(
            ir.contains("math.sqrt(") && ir.contains("math.atan2("),
            "{ir}"
        );
        assert!(ir.contains("3.14159"), "{ir}");
    }

    #[test]
    fn maximum_keeps_a_nan_from_either_side() {
        let src = "def f(x, y):\n    return np.maximum(x, y)\n";
        let ir = ir_after_with(src, "lower", &np_env(), Options::default()).to_string();
        assert!(ir.contains("gt %0, %1") && ir.contains("ne %0, %0"), "{ir}");
    }
}
