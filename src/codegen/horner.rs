//! Horner polynomials (issue 30): in the float body, a named value that an in-place chain
//! computes (chain.rs) and that is a polynomial in one float array `x` with float constants,
//! in Horner form as engineering code writes it,
//!
//! ```text
//! rho = 999.842594 + t * (6.793952e-2 + t * (-9.095290e-3 + t * 1.001685e-4))
//! rho = _vec_horner(xp, t, (0.0001001685, -0.00909529, 0.06793952, 999.842594), '+++', False)
//! ```
//!
//! is one call of `_vec_horner` (runtime/horner.py), which on NumPy computes every lane in one
//! pass of the core's kernel (src/host/kernels.rs) instead of two array passes per coefficient.
//! The program is `acc = x * c0`, then per further coefficient `acc * x` (from the second on)
//! and `acc + c` or `c - acc`, then `acc * x` when the polynomial ends in a product: each
//! lane's operations are the chain's, in its order. `c + acc` and `x * acc` are the same IEEE
//! results as `acc + c` and `acc * x`; `acc - c` is `acc + (-c)` by IEEE's definition of
//! subtraction, for a finite `c` (a NaN constant keeps its sign in `acc - c`, not in `-c`, so
//! only finite constants are taken). Polynomials of fewer than `MIN_COEFFICIENTS` stay chains.

use super::runtime::HORNER;
use super::Gen;
use crate::codegen::pyast::{Expr, Stmt};
use crate::ir::{BinOp, Value};

/// Coefficients from which a polynomial is one `_vec_horner` call: three are four array
/// operations, and two passes saved per coefficient repay the call's few microseconds.
const MIN_COEFFICIENTS: usize = 3;

/// A polynomial in `x` read from the IR, as `_vec_horner` takes it.
struct Poly {
    x: Value,
    coefficients: Vec<f64>,
    /// `+` (`acc + c`) or `-` (`c - acc`) per coefficient after the first.
    ops: String,
    /// Whether the last operation is a product by `x` (or the first product, `x * c0`).
    ends_in_product: bool,
    /// The operations below the top, printed inline.
    interior: Vec<Value>,
}

impl Gen<'_> {
    /// A float array that is printed by its name, the polynomial's variable.
    fn horner_variable(&self, v: Value) -> bool {
        !self.inline[v.index()] && self.kind(v) == crate::ir::Kind::Float && !self.scalar(v)
    }

    fn finite_constant(&self, v: Value) -> Option<f64> {
        self.float_const(v).filter(|c| c.is_finite())
    }

    /// `v` as a polynomial: the value itself (`top`) may be named, every operation below it is
    /// printed inline (it has no other reader).
    fn poly(&self, v: Value, top: bool) -> Option<Poly> {
        if !top && !self.inline[v.index()] {
            return None;
        }
        let (op, l, r) = self.plain_float_binary(v)?;
        match op {
            BinOp::Mul => {
                for (a, b) in [(l, r), (r, l)] {
                    if !self.horner_variable(a) {
                        continue;
                    }
                    if let Some(c) = self.finite_constant(b) {
                        return Some(Poly {
                            x: a,
                            coefficients: vec![c],
                            ops: String::new(),
                            ends_in_product: true,
                            interior: vec![],
                        });
                    }
                    if let Some(mut p) = self.poly(b, false) {
                        if p.x == a && !p.ends_in_product {
                            p.ends_in_product = true;
                            p.interior.push(b);
                            return Some(p);
                        }
                    }
                }
                None
            }
            BinOp::Add | BinOp::Sub => {
                let (inner, c, step) = if let Some(c) = self.finite_constant(r) {
                    (l, if op == BinOp::Sub { -c } else { c }, '+')
                } else if let Some(c) = self.finite_constant(l) {
                    (r, c, if op == BinOp::Sub { '-' } else { '+' })
                } else {
                    return None;
                };
                let mut p = self.poly(inner, false)?;
                if !p.ends_in_product {
                    return None;
                }
                p.coefficients.push(c);
                p.ops.push(step);
                p.interior.push(inner);
                p.ends_in_product = false;
                Some(p)
            }
            _ => None,
        }
    }

    /// The chain tops (chain.rs) inside a polynomial of `MIN_COEFFICIENTS` or more whose top
    /// is `top`: they stay inline, so that the polynomial is one call (`c = 0.25 - t * (...)`
    /// would otherwise hoist the chain under the subtraction as a statement of its own).
    pub(super) fn polynomial_interior(&self, top: Value) -> Vec<Value> {
        match self.poly(top, true) {
            Some(p) if p.coefficients.len() >= MIN_COEFFICIENTS => p.interior,
            _ => vec![],
        }
    }

    /// `dst = _vec_horner(xp, x, coefficients, ops, times_x)` when the chain computing the
    /// named value `dst` is a polynomial of `MIN_COEFFICIENTS` or more (module doc).
    pub(super) fn horner_stmt(&mut self, dst: Value) -> Option<Stmt> {
        self.links.get(dst.index()).copied().flatten()?;
        let p = self.poly(dst, true)?;
        if p.coefficients.len() < MIN_COEFFICIENTS {
            return None;
        }
        let coefficients = p.coefficients.iter().map(|c| Expr::Float(*c)).collect();
        let args = vec![
            self.value(p.x),
            Expr::Tuple(coefficients),
            Expr::Text(p.ops),
            Expr::Bool(p.ends_in_product),
        ];
        let call = self.helper(&HORNER, args);
        Some(Stmt::Assign(vec![self.name_of(dst)], vec![call]))
    }
}

#[cfg(test)]
mod tests {
    use crate::pipeline::testing::compiled;

    #[test]
    fn a_polynomial_in_one_array_is_one_call_in_the_float_body_only() {
        let c = compiled(
            "def f(t):\n    return 999.842594 + t * (6.793952e-2 + t * (-9.095290e-3 + t * 1.001685e-4))\n",
        );
        let fast = &c.generated.fast_source;
        assert!(
            fast.contains("_vec_horner(xp, t, (0.0001001685, -0.00909529, 0.06793952, 999.842594), '+++', False)"),
            "{fast}"
        );
        assert!(
            !c.generated.exact_source.contains("_vec_horner"),
            "{}",
            c.source
        );
    }

    #[test]
    fn subtractions_and_a_last_product_are_steps_of_the_program() {
        // `c - acc` is `-`; `acc - c` adds `-c`; `x * (...)` at the end is `times_x`.
        let c = compiled("def f(x):\n    return x * (2.0 - x * (1.5 + x * 0.25)) - 3.0\n");
        let fast = &c.generated.fast_source;
        let want = "_vec_horner(xp, x, (0.25, 1.5, 2.0, -3.0), '+-+', False)";
        assert!(fast.contains(want), "{fast}");
        let c = compiled("def f(x):\n    return x * (1.0 + x * (2.0 - x * (1.5 + x * 0.25)))\n");
        let fast = &c.generated.fast_source;
        let want = "_vec_horner(xp, x, (0.25, 1.5, 2.0, 1.0), '+-+', True)";
        assert!(fast.contains(want), "{fast}");
    }

    #[test]
    fn no_call_for_short_or_mixed_polynomials() {
        for src in [
            // Two coefficients: the chain.
            "def f(x):\n    y = 1.0 + x * (0.5 + x)\n    return y * y\n",
            // A second array inside.
            "def f(x, s):\n    return 1.0 + x * (0.5 + s * (0.25 + x * 0.125))\n",
            // Two constants in a row: not Horner form.
            "def f(x):\n    return (1.0 + x * (0.5 + x * 0.25)) * 2.0 + 1.0\n",
        ] {
            let c = compiled(src);
            assert!(
                !c.generated.fast_source.contains("_vec_horner"),
                "{src}\n{}",
                c.source
            );
        }
    }
}
