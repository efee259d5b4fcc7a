//! Builtins and `math` calls as people write them: `round(x, ndigits=2)` and `round(number=x)`
//! (CPython's keywords), `round(x, n)` with `n` a uniform value (a per-call int: a parameter,
//! `params["digits"]`, D14), and `math.modf(x)`, whose two results are a tuple (D13).
//!
//! ```python
//! def vat(net, digits):                 # `digits` is uniform: round's ndigits
//!     frac, whole = math.modf(net)      # a tuple of two floats, exact
//!     return round(net * 1.2, ndigits=digits)
//! ```

use rustpython_parser::ast;

use crate::diagnostics::DiagnosticKind;
use crate::frontend::extract::span;
use crate::ir::{math_fn, BinOp, Const, Op, Value};
use crate::lower::{Frame, Lowerer, R};

/// The parameter `c` passes as `round`'s ndigits (`round(x, n)`, `round(x, ndigits=n)`): a
/// uniform value (D14), one int per call, which the runtime helper reads as it is.
pub(in crate::lower) fn round_ndigits_name(c: &ast::ExprCall) -> Option<&str> {
    if !matches!(c.func.as_ref(), ast::Expr::Name(f) if f.id.as_str() == "round") {
        return None;
    }
    let nd = c.args.get(1).or_else(|| {
        c.keywords
            .iter()
            .find(|k| k.arg.as_deref() == Some("ndigits"))
            .map(|k| &k.value)
    });
    match nd {
        Some(ast::Expr::Name(n)) => Some(n.id.as_str()),
        _ => None,
    }
}

impl Lowerer<'_> {
    /// `round(number, ndigits)` with its arguments given positionally or by keyword.
    pub(in crate::lower::calls) fn call_round(
        &mut self,
        frame: &mut Frame,
        c: &ast::ExprCall,
    ) -> R<Value> {
        let mut slots: [Option<&ast::Expr>; 2] = [None, None];
        let mut ok = c.args.len() <= 2;
        for (slot, a) in slots.iter_mut().zip(&c.args) {
            *slot = Some(a);
        }
        for kw in &c.keywords {
            let i = match kw.arg.as_deref() {
                Some("number") => 0,
                Some("ndigits") => 1,
                _ => {
                    ok = false;
                    continue;
                }
            };
            ok &= slots[i].is_none();
            slots[i] = Some(&kw.value);
        }
        let (true, Some(number)) = (ok, slots[0]) else {
            self.error_at(
                frame,
                DiagnosticKind::BadArguments,
                "round() takes number and ndigits, positionally or by keyword".into(),
                c,
            );
            return Err(());
        };
        let x = self.expr(frame, number);
        // D20: a None lane of `x` is CPython's TypeError there.
        let x = self.open_nones(frame, &[x], |t| format!("round({})", t.join(", ")), c)?[0];
        // `round(x, None)` is `round(x)`.
        let none = |e: &ast::Expr| matches!(e, ast::Expr::Constant(k) if k.value.is_none());
        match slots[1].filter(|nd| !none(nd)) {
            None => self.convert_value(frame, "round", x, c),
            Some(nd) => {
                self.not_in_try(frame, c, "round(x, ndigits)")?;
                let n = self.expr(frame, nd);
                self.round_digits(frame, (x, number), (n, nd))
            }
        }
    }

    /// `math.modf(x)`: `(fractional part, integral part)`, both floats with `x`'s sign, as
    /// CPython's: `x - trunc(x)` (exact) with the sign of `x`, 0.0 with it for ±inf; nan for nan.
    pub(in crate::lower::calls) fn call_modf(
        &mut self,
        frame: &mut Frame,
        c: &ast::ExprCall,
    ) -> R<Value> {
        let a = self.positional(frame, c, "math.modf()", 1, 1)?;
        let x = self.math_arg(frame, a[0], None);
        let [trunc, isinf, copysign] = ["trunc", "isinf", "copysign"].map(math_fn);
        let (Some(trunc), Some(isinf), Some(copysign)) = (trunc, isinf, copysign) else {
            return Err(());
        };
        let whole = self.emit(Op::Math(trunc, vec![x]));
        let diff = self.emit(Op::Binary(BinOp::Sub, x, whole));
        let frac = self.emit(Op::Math(copysign, vec![diff, x]));
        let zero = self.konst(Const::Float(0.0));
        let signed_zero = self.emit(Op::Math(copysign, vec![zero, x]));
        let infinite = self.emit(Op::Math(isinf, vec![x]));
        let frac = self.select(infinite, signed_zero, frac);
        let (start, end) = span(c);
        Ok(self.make_tuple(vec![frac, whole], (frame.source, start, end)))
    }
}

#[cfg(test)]
mod tests {
    use crate::pipeline::testing::{errors, lowered};

    #[test]
    fn round_takes_its_keywords() {
        let ir = lowered("def f(x):\n    return round(float(x), ndigits=2)\n");
        assert!(ir.contains("round("), "{ir}");
        let e = errors("def f(x):\n    return round(x, digits=2)\n");
        assert!(
            e.iter().any(|m| m.contains("takes number and ndigits")),
            "{e:?}"
        );
    }

    #[test]
    fn modf_is_a_tuple_of_two_floats() {
        let ir = lowered("def f(x):\n    a, b = math.modf(x)\n    return a + b\n");
        assert!(
            ir.contains("math.trunc(") && ir.contains("math.copysign("),
            "{ir}"
        );
    }
}
