//! Owned buffers: in the float body, a loop-carried float array that the generated code made
//! itself and that nothing else holds is updated in place (`acc *= x; acc += c`) instead of
//! being replaced by a fresh array every iteration (on a million lanes, 8 MB of new pages per
//! iteration).
//!
//! A phi qualifies when its next value is a chain of plain float `+ - * /` operations printed as
//! one expression whose spine (left operands, or either operand of `+` and `*`) ends at the phi
//! itself, and the phi is read nowhere else in the loop, not even as another phi's next value
//! (no other variable can hold its array).
//! The loop then keeps a flag beside it: `None` until the first iteration, which computes the
//! next value as before (a fresh array: the initial value, perhaps a parameter, is never
//! written), and then asks `_vec_owned` whether that array may be written (NumPy, float64,
//! owning its memory, already of the shape of every operand to come); from then on the
//! iterations run the chain in place. Every lane is the same IEEE operation on the same
//! operands, so results are bit for bit those of the fresh arrays; `+` and `*` may swap their
//! operands, which IEEE arithmetic does not notice. On other namespaces (JAX arrays are
//! immutable) the flag is False and the code is what it was.

use super::runtime::OWNED;
use super::{choice, Gen};
use crate::codegen::pyast::{cmp, name, Expr, Stmt};
use crate::ir::{walk_insts, BinOp, Block, Kind, Op, Phi, Value};

/// The in-place form of one phi: the operations applied to it, innermost first.
pub(super) struct InPlace {
    ops: Vec<(BinOp, Value)>,
}

/// The augmented assignment operator (without `=`) of a plain float operation.
pub(super) fn symbol(op: BinOp) -> &'static str {
    match op {
        BinOp::Add => "+",
        BinOp::Sub => "-",
        BinOp::Mul => "*",
        _ => "/",
    }
}

/// How many times `block` (nested blocks included) reads `v`.
fn reads_in(block: &Block, v: Value) -> usize {
    let mut n = 0;
    walk_insts(block, &mut |inst| {
        n += inst.reads().iter().filter(|r| **r == v).count();
    });
    n
}

impl Gen<'_> {
    /// The in-place form of phi `p` of a loop whose body is `body`, when it qualifies (module
    /// doc).
    pub(super) fn in_place(&self, p: &Phi, phis: &[Phi], body: &Block) -> Option<InPlace> {
        let float_array = |v: Value| self.kind(v) == Kind::Float && !self.scalar(v);
        if !self.float_body || p.next == p.dst || !float_array(p.dst) || !float_array(p.next) {
            return None;
        }
        // Another phi of this loop whose next value is this phi (`a, b = b, b + c`) takes its
        // array: an update in place would change that variable too.
        if phis.iter().any(|q| q.dst != p.dst && q.next == p.dst) {
            return None;
        }
        // The next value is read once, by the phi, in the loop's own block (plan inlines
        // exactly those), and the phi once, by the chain.
        if !self.inline[p.next.index()] || reads_in(body, p.dst) != 1 {
            return None;
        }
        let mut ops = vec![];
        let mut v = p.next;
        while v != p.dst {
            let Some(Op::Binary(op, l, r)) = self.def(v) else {
                return None;
            };
            let (spine, other) = if self.reaches(*l, p.dst) {
                (*l, *r)
            } else if matches!(op, BinOp::Add | BinOp::Mul) && self.reaches(*r, p.dst) {
                (*r, *l)
            } else {
                return None;
            };
            let o = self.operand(other);
            let plain = matches!(op, BinOp::Add | BinOp::Sub | BinOp::Mul | BinOp::Div)
                && (o.kind == Kind::Float || (o.kind == Kind::Int && o.scalar))
                && choice::plain_binary(*op, self.operand(spine), o);
            if !plain {
                return None;
            }
            ops.push((*op, other));
            v = spine;
        }
        ops.reverse();
        Some(InPlace { ops })
    }

    /// Whether `v` is `target` or an inlined float operation with `target` among its operands'
    /// chains (the spine of an in-place chain).
    fn reaches(&self, v: Value, target: Value) -> bool {
        if v == target {
            return true;
        }
        if !self.inline[v.index()] {
            return false;
        }
        match self.def(v) {
            Some(Op::Binary(_, l, r)) => self.reaches(*l, target) || self.reaches(*r, target),
            _ => false,
        }
    }

    /// The statements that give phi `var` (with flag `flag`) its next value `fresh`, the
    /// expression printed otherwise: in place once the flag says so, else as before, asking
    /// `_vec_owned` after the first fresh array.
    pub(super) fn in_place_update(
        &mut self,
        plan: &InPlace,
        var: &str,
        flag: &str,
        fresh: Expr,
    ) -> Stmt {
        let in_place = plan
            .ops
            .iter()
            .map(|(op, other)| Stmt::AugAssign(var.to_string(), symbol(*op), self.value(*other)))
            .collect();
        let mut args = vec![name(var)];
        args.extend(self.array_params.iter().map(|p| name(p)));
        let ask = Stmt::If(
            cmp("is", name(flag), Expr::None),
            vec![Stmt::Assign(
                vec![flag.to_string()],
                vec![self.helper(&OWNED, args)],
            )],
            vec![],
        );
        let otherwise = vec![Stmt::Assign(vec![var.to_string()], vec![fresh]), ask];
        Stmt::If(name(flag), in_place, otherwise)
    }
}

#[cfg(test)]
mod tests {
    use crate::pipeline::testing::compiled;

    #[test]
    fn horner_updates_its_accumulator_in_place_in_the_float_body_only() {
        let c = compiled("def f(x):\n    acc = 0.0\n    for i in range(5):\n        acc = acc * x + 1.0 / (i + 1)\n    return acc\n");
        let (fast, exact) = (&c.generated.fast_source, &c.generated.exact_source);
        assert!(
            fast.contains(
                "        if acc_own:\n            acc *= x\n            acc += 1.0 / (i + 1)\n        else:\n            acc = acc * x + 1.0 / (i + 1)\n            if acc_own is None:\n                acc_own = _vec_owned(xp, acc, x)\n"
            ),
            "{fast}"
        );
        assert!(fast.contains("    acc_own = None\n    for i"), "{fast}");
        assert!(!exact.contains("_own"), "{exact}");
    }

    #[test]
    fn a_phi_read_elsewhere_in_the_loop_or_a_chain_away_from_it_is_not_in_place() {
        for src in [
            // `prev` holds the old array.
            "def f(x):\n    acc = x\n    d = x\n    for i in range(3):\n        prev = acc\n        acc = acc * x\n        d = acc - prev\n    return d\n",
            // The phi is the divisor: no in-place form.
            "def f(x):\n    acc = x\n    for i in range(3):\n        acc = 1.0 / acc\n    return acc\n",
            // The next value is also read by another phi.
            "def f(x):\n    a = x\n    b = x\n    for i in range(3):\n        a = a * x\n        b = a\n    return a + b\n",
            // The phi is another phi's next value (a Fibonacci-like shift).
            "def f(c):\n    a = 0.0\n    b = 0.0\n    for i in range(2):\n        a, b = b, c + b\n    return a\n",
        ] {
            let c = compiled(src);
            assert!(!c.generated.fast_source.contains("_own"), "{src}\n{}", c.source);
        }
    }
}
