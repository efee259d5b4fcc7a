//! Patterns printed the way a careful person writes them, where that is exact; one function per
//! pattern, and beside it what the naming plan must inline for it:
//!
//! - `K if K > v else v` (what `max(v, K)` lowers to) as `xp.maximum(K, v)`, and `min` alike;
//! - `min(max(v, lo), hi)` and `max(min(v, hi), lo)` with `lo <= hi` as `xp.clip(v, lo, hi)`
//!   (`_vec_clip` in the float body);
//! - `a if a > b else b` on float arrays in the float body (`max(b, a)` against a parameter) as
//!   `_vec_pick`, one pass when `a` turns out to be a number or a large NumPy array allows it;
//! - `min(max(x, lo), hi)` on float arrays in the float body as `_vec_clip`;
//! - `int(math.floor(v))` (and `ceil`, `trunc`) as one helper call from `v`;
//! - `b or x if c else b` on bool arrays (a masked loop's done flag) as `(c and x) or b`.

use super::runtime::{CLIP, PICK, UNARY};
use super::{Const, Gen, MAX_INLINE_DEPTH};
use crate::codegen::pyast::Expr;
use crate::ir::{CastOp, CmpOp, Kind, LogicOp, Op, Value};

/// The math functions whose `int()` the runtime computes in one step.
pub(super) const ROUNDING: &[&str] = &["floor", "ceil", "trunc"];

impl Gen<'_> {
    /// `(Gt, K)` for `K if K > v else v` (max) and `(Lt, K)` for `K if K < v else v` (min), K a
    /// float constant other than NaN and v a float array.
    pub(super) fn min_max_pattern(&self, c: Value, a: Value, b: Value) -> Option<(CmpOp, f64)> {
        let Some(Op::Compare(op @ (CmpOp::Gt | CmpOp::Lt), x, y)) = self.def(c) else {
            return None;
        };
        let Some(Op::Const(Const::Float(k))) = self.def(a) else {
            return None;
        };
        if *x != a || *y != b || k.is_nan() || self.kind(b) != Kind::Float || self.scalar(b) {
            return None;
        }
        Some((*op, *k))
    }

    /// `K if K > v else v` is `xp.maximum(K, v)` when K is a float constant other than NaN: a NaN
    /// `v` propagates in both, and on a tie both give `v` (NumPy returns the second operand; the
    /// Array API leaves the sign of zero to the implementation, docs/semantics.md). One pass
    /// instead of a comparison and a `where`. The clip of two of them first.
    pub(super) fn min_max(&mut self, c: Value, a: Value, b: Value) -> Option<Expr> {
        let (op, k) = self.min_max_pattern(c, a, b)?;
        if let Some(clip) = self.clip(op, k, b) {
            return Some(clip);
        }
        let (ae, be) = (self.value(a), self.value(b));
        let f = if op == CmpOp::Gt {
            "maximum"
        } else {
            "minimum"
        };
        Some(self.xcall(f, vec![ae, be]))
    }

    /// A min/max against a float constant prints its operand once (`xp.maximum(K, v)`,
    /// `xp.clip(v, lo, hi)`) though the IR reads it twice (the comparison and the select). Read
    /// only there, it is inlined like any value read once: a named temporary would keep a whole
    /// array alive until the function returns, and NumPy could not reuse its memory for the next
    /// temporary (smoothstep: 1.46x the hand-written time at 1e6 with it).
    pub(super) fn inline_min_max_operands(
        &mut self,
        counts: &[usize],
        def_block: &[usize],
        depth: &mut [usize],
    ) {
        for i in 0..self.f.values.len() {
            let Some(Op::Select(c, a, b)) = self.defs[i] else {
                continue;
            };
            let v = b.index();
            if !self.inline[c.index()]
                || self.inline[v]
                || counts[v] != 2
                || def_block[v] != def_block[i]
                || self.min_max_pattern(*c, *a, *b).is_none()
                || !matches!(self.defs[v], Some(op) if !matches!(op, Op::Param(_) | Op::ScalarCall { .. } | Op::Call { .. }))
            {
                continue;
            }
            let nested = self.defs[v].map_or(1, |op| self.nesting(op, depth));
            if nested <= MAX_INLINE_DEPTH {
                self.inline[v] = true;
                depth[v] = nested;
            }
        }
    }

    /// For `v` = min(max(x, lo), hi) or max(min(x, hi), lo) with lo <= hi (as selects): the
    /// inner min/max value.
    fn clip_inner(&self, v: Value) -> Option<Value> {
        let Some(Op::Select(c, a, b)) = self.def(v) else {
            return None;
        };
        if !self.inline[c.index()] {
            return None;
        }
        let (op, k) = self.min_max_pattern(*c, *a, *b)?;
        let Some(Op::Select(c2, a2, b2)) = self.def(*b) else {
            return None;
        };
        let (inner_op, k2) = self.min_max_pattern(*c2, *a2, *b2)?;
        let (lo, hi) = if op == CmpOp::Lt { (k2, k) } else { (k, k2) };
        (inner_op != op && lo <= hi).then_some(*b)
    }

    /// The inner min/max of a clip is read twice, both times by the outer one (its comparison
    /// and its select): printing the pair as one call needs it inlined.
    pub(super) fn inline_clip_inners(&mut self, counts: &[usize], def_block: &[usize]) {
        for i in 0..self.f.values.len() {
            if let Some(inner) = self.clip_inner(Value(i as u32)) {
                if counts[inner.index()] == 2 && def_block[inner.index()] == def_block[i] {
                    self.inline[inner.index()] = true;
                }
            }
        }
    }

    /// `min(max(v, lo), hi)` and `max(min(v, hi), lo)` with lo <= hi, the outer min/max `(op,
    /// k)` over `inner`: one `clip`, one pass and one temporary (a NaN propagates through both
    /// forms). In the float body `_vec_clip`, which on NumPy arrays takes NumPy's `clip` ufunc
    /// where that is exact (array-api-compat's `clip`, also exact, costs ~9 us on 10 elements)
    /// and is `xp.clip` elsewhere.
    fn clip(&mut self, op: CmpOp, k: f64, inner: Value) -> Option<Expr> {
        let Some(Op::Select(c2, a2, b2)) = self.def(inner).filter(|_| self.inline[inner.index()])
        else {
            return None;
        };
        let (inner_op, k2) = self.min_max_pattern(*c2, *a2, *b2)?;
        let (lo, hi) = if op == CmpOp::Lt { (k2, k) } else { (k, k2) };
        if inner_op == op || lo > hi {
            return None;
        }
        // `konst` prints an infinite bound as `xp.inf` (a bare float literal would be `inf`).
        let (lo, hi) = (self.konst(&Const::Float(lo)), self.konst(&Const::Float(hi)));
        let args = vec![self.value(*b2), lo, hi];
        Some(if self.float_body {
            self.helper(&CLIP, args)
        } else {
            self.xcall("clip", args)
        })
    }

    /// `Gt` for `a if a > b else b` (`max(b, a)`) and `Lt` for `a if a < b else b` (`min(b, a)`)
    /// on float arrays in the float body.
    fn pick_pattern(&self, c: Value, a: Value, b: Value) -> Option<CmpOp> {
        let Some(Op::Compare(op @ (CmpOp::Gt | CmpOp::Lt), x, y)) = self.def(c) else {
            return None;
        };
        let floats = self.kind(a) == Kind::Float && self.kind(b) == Kind::Float;
        if !self.float_body || *x != a || *y != b || !floats || self.scalar(a) || self.scalar(b) {
            return None;
        }
        Some(*op)
    }

    /// `a if a > b else b` (`max(b, a)`) and `a if a < b else b` (`min(b, a)`) on float arrays in
    /// the float body: `_vec_pick`, which is `xp.maximum`/`xp.minimum` (one pass) when `a` turns
    /// out to be a NumPy scalar other than NaN and zero (a parameter passed as a number: then a
    /// NaN `b` propagates in both forms and a tie is one value with one sign), or when large
    /// NumPy arrays give a result with no NaN and no zero (runtime/select.py proves it exact),
    /// else the comparison and `where` that `select` prints otherwise.
    pub(super) fn pick(&mut self, c: Value, a: Value, b: Value) -> Option<Expr> {
        let op = self.pick_pattern(c, a, b)?;
        let key = if op == CmpOp::Gt { "gt" } else { "lt" };
        let (ae, be) = (self.value(a), self.value(b));
        Some(self.helper_op(&PICK, key, vec![ae, be]))
    }

    /// For the select `v` = `min(max(x, lo), hi)` on float arrays in the float body (`hi if hi <
    /// m else m` over `m` = `lo if lo > x else x`, both picks): `m`. Only this order is a clip:
    /// `max(min(x, hi), lo)` gives `lo` where `lo > hi`, NumPy's `clip` gives `hi`.
    fn array_clip_inner(&self, v: Value) -> Option<Value> {
        let Some(Op::Select(c, hi, m)) = self.def(v) else {
            return None;
        };
        let Some(Op::Select(c2, lo, x)) = self.def(*m) else {
            return None;
        };
        let outer = self.pick_pattern(*c, *hi, *m)?;
        let inner = self.pick_pattern(*c2, *lo, *x)?;
        (outer == CmpOp::Lt && inner == CmpOp::Gt).then_some(*m)
    }

    /// The inner pick of an array clip is read twice, both times by the outer one: printing the
    /// pair as one `_vec_clip` needs it inlined (and both comparisons, each read once, are).
    pub(super) fn inline_array_clip_inners(&mut self, counts: &[usize], def_block: &[usize]) {
        for i in 0..self.f.values.len() {
            let Some(m) = self.array_clip_inner(Value(i as u32)) else {
                continue;
            };
            let (Some(Op::Select(c, _, _)), Some(Op::Select(c2, _, _))) =
                (self.def(Value(i as u32)), self.def(m))
            else {
                continue;
            };
            let (m, c, c2) = (m.index(), c.index(), c2.index());
            let compares_inlined = self.inline[c] && self.inline[c2];
            if counts[m] == 2 && def_block[m] == def_block[i] && compares_inlined {
                self.inline[m] = true;
            }
        }
    }

    /// `min(max(x, lo), hi)` on float arrays in the float body, its inner pick inlined:
    /// `_vec_clip(xp, x, lo, hi)`, one NumPy `clip` pass where that is exact (runtime/select.py),
    /// else the two picks.
    pub(super) fn array_clip(&mut self, dst: Value) -> Option<Expr> {
        let m = self.array_clip_inner(dst)?;
        let (Some(Op::Select(_, hi, _)), Some(Op::Select(_, lo, x))) = (self.def(dst), self.def(m))
        else {
            return None;
        };
        if !self.inline[m.index()] {
            return None;
        }
        let (xe, loe, hie) = (self.value(*x), self.value(*lo), self.value(*hi));
        Some(self.helper(&CLIP, vec![xe, loe, hie]))
    }

    /// `b or x if c else b` on bool arrays (a masked loop's flag of the lanes that returned: the
    /// active lanes `c` that return now, `x`, join those done before, `b`, D12) as
    /// `xp.logical_or(xp.logical_and(c, x), b)`: where `c` holds, `x or b`; elsewhere `b`, lane
    /// by lane the same bool. Two logical passes where `where` and `logical_or` cost about three
    /// of them on small arrays (a 10-element Kepler solve pays it every iteration). Only with the
    /// `or` inlined here, its only use.
    pub(super) fn or_merge(&mut self, c: Value, a: Value, b: Value) -> Option<Expr> {
        let Some(Op::Logic(LogicOp::Or, p, q)) = self.def(a) else {
            return None;
        };
        let x = match (*p == b, *q == b) {
            (false, true) => *p,
            (true, false) => *q,
            _ => return None,
        };
        let bool_arrays = [c, x, b]
            .iter()
            .all(|v| self.kind(*v) == Kind::Bool && !self.scalar(*v));
        if !bool_arrays || !self.inline[a.index()] || self.inline[b.index()] {
            return None;
        }
        let (ce, xe) = (self.value(c), self.value(x));
        let both = self.xcall("logical_and", vec![ce, xe]);
        let be = self.value(b);
        Some(self.xcall("logical_or", vec![both, be]))
    }

    /// math.floor/ceil/trunc return ints, and an int argument comes back unchanged (no trip
    /// through float64, which is inexact beyond 2**53): `int()` of one on an array is one helper
    /// call from the argument.
    pub(super) fn rounding_to_int(&mut self, c: CastOp, a: Value) -> Option<Expr> {
        let (CastOp::Int, false, Some(Op::Math(m, args))) = (c, self.scalar(a), self.def(a)) else {
            return None;
        };
        let key = ROUNDING.iter().find(|r| **r == m.name)?;
        let e = self.value(args[0]);
        Some(self.helper_op(&UNARY, key, vec![e]))
    }
}

#[cfg(test)]
mod tests {
    use crate::pipeline::testing::compiled;

    #[test]
    fn max_against_a_float_constant_is_xp_maximum_on_the_float_path() {
        let c = compiled("def f(x):\n    return max(x, 0.0)\n");
        assert!(
            c.generated
                .fast_source
                .contains("return xp.maximum(0.0, x)"),
            "{}",
            c.source
        );
    }

    #[test]
    fn min_of_max_is_one_clip_and_its_inner_value_is_not_named() {
        let c = compiled("def f(x):\n    return min(max(x, -1.0), 1.0)\n");
        let (fast, exact) = (&c.generated.fast_source, &c.generated.exact_source);
        assert!(
            fast.contains("return _vec_clip(xp, x, -1.0, 1.0)"),
            "{fast}"
        );
        assert!(!exact.contains("_vec_clip"), "{exact}");
        // Bounds in the wrong order are no clip (the result is always `lo`).
        let c = compiled("def f(x):\n    return min(max(x, 1.0), -1.0)\n");
        assert!(!c.source.contains("clip"), "{}", c.source);
    }

    #[test]
    fn an_infinite_clip_bound_is_printed_as_xp_inf() {
        // Was `xp.clip(x, -inf, inf)`: a NameError on the first call.
        let c = compiled("def f(x):\n    return min(max(x, -math.inf), math.inf)\n");
        let fast = &c.generated.fast_source;
        assert!(fast.contains("_vec_clip(xp, x, -xp.inf, xp.inf)"), "{fast}");
    }

    #[test]
    fn a_nan_bound_is_no_min_max() {
        let c = compiled("def f(x):\n    return max(x, math.nan)\n");
        assert!(!c.source.contains("maximum"), "{}", c.source);
    }

    #[test]
    fn max_against_a_parameter_is_a_pick_in_the_float_body_only() {
        let c = compiled("def f(x, c):\n    return max(x, c)\n");
        let (fast, exact) = (&c.generated.fast_source, &c.generated.exact_source);
        assert!(fast.contains("_vec_pick(xp, \"gt\", c, x)"), "{fast}");
        assert!(!exact.contains("_vec_pick"), "{exact}");
    }

    #[test]
    fn a_clamp_between_parameters_is_one_clip_in_the_float_body_only() {
        let c = compiled("def f(x, lo, hi):\n    return min(max(x, lo), hi)\n");
        let (fast, exact) = (&c.generated.fast_source, &c.generated.exact_source);
        assert!(fast.contains("return _vec_clip(xp, x, lo, hi)"), "{fast}");
        assert!(!fast.contains("merged"), "{fast}");
        assert!(!exact.contains("_vec_clip"), "{exact}");
        // max(min(x, hi), lo) gives lo where lo > hi; a clip gives hi: two picks.
        let c = compiled("def f(x, lo, hi):\n    return max(min(x, hi), lo)\n");
        assert!(!c.source.contains("_vec_clip"), "{}", c.source);
        assert!(
            c.source.contains("_vec_pick(xp, \"gt\", lo, "),
            "{}",
            c.source
        );
        // The inner value read again elsewhere keeps its name and its own pick.
        let c = compiled("def f(x, lo, hi):\n    m = max(x, lo)\n    return min(m, hi) + m\n");
        assert!(!c.source.contains("_vec_clip"), "{}", c.source);
    }

    #[test]
    fn int_of_floor_of_an_array_is_one_helper_call() {
        let c = compiled("def f(x):\n    return int(math.floor(x))\n");
        assert!(
            c.source.contains("_vec_unary(xp, \"floor\", x)"),
            "{}",
            c.source
        );
        assert!(!c.source.contains("\"int\""), "{}", c.source);
    }
}
