//! In-place chains (issue 30): in the float body, a float array computed by a chain of plain
//! `+ - * /` operations is computed into the chain's first array, which the chain made and
//! nothing else holds, by augmented assignments, as a careful NumPy user writes it:
//!
//! ```text
//! p_next = ((2 * n + 1) * x * p - n * p_prev) / tmp      # five fresh arrays
//! p_next = (2 * n + 1) * x                                # one
//! p_next *= p
//! p_next -= n * p_prev
//! p_next /= tmp
//! ```
//!
//! A chain inside a larger expression (a polynomial in Horner form inside a return value) is
//! given a name of its own and computed before the statement that reads it (`plan_chains`).
//! On a million lanes each fresh array is 8 MB of new pages; in a cache-blocked call
//! (runtime/blocked.py) one more block-sized buffer out of the caches. Every lane is the same
//! IEEE operation on the same operands, so results are bit for bit those of the fresh arrays;
//! `+` and `*` may take the chain from their right operand (`c + y * t` as `t *= y; t += c`),
//! which IEEE arithmetic does not notice (as `inplace.rs`'s loop-carried updates).
//!
//! An in-place operation cannot make its array larger: every operand applied in place must
//! broadcast into the chain's first array. Each value is given the array parameters it surely
//! reads through element-wise operations (`must`: its shape is at least their broadcast shape)
//! and those it may read at all (`may`: its shape is at most theirs); an operand joins the chain
//! only when it may read no parameter that the first array does not surely read. On namespaces
//! whose arrays are immutable (JAX, Dask) `a *= b` is `a = a * b`: the same code, the same
//! result. Not inside D12's masked `while` loops, whose statements `pack.rs` rewrites over the
//! active lanes, nor for a loop's next value (`inplace.rs` updates the loop's own array).

use std::collections::BTreeSet;

use super::inplace::symbol;
use super::Gen;
use crate::codegen::pyast::Stmt;
use crate::ir::{walk_insts, BinOp, Inst, Kind, Op, UnOp, Value};

/// Array parameters told apart by the shape sets (bits of a `u128`); a body with more has no
/// chains.
const MAX_TRACKED: usize = 128;

/// Links a chain inside an expression must have to be given a statement of its own.
const MIN_HOISTED_LINKS: usize = 2;

/// One link of a chain: the value is `spine op other`, computed in place in `spine`'s array.
#[derive(Clone, Copy)]
pub(super) struct Link {
    spine: Value,
    op: BinOp,
    other: Value,
}

impl Gen<'_> {
    /// Per value, the array parameters it surely reads and those it may read (module doc), as
    /// bit sets over `array_params`; None when there are too many parameters to tell apart.
    fn shape_sets(&self) -> Option<(Vec<u128>, Vec<u128>)> {
        let arrays = self.array_params.len();
        if arrays == 0 || arrays > MAX_TRACKED {
            return None;
        }
        let all = u128::MAX >> (MAX_TRACKED - arrays);
        let n = self.f.values.len();
        let (mut must, mut may) = (vec![0u128; n], vec![0u128; n]);
        for i in 0..n {
            let v = Value(i as u32);
            if self.scalar(v) {
                continue;
            }
            let union = |sets: &[u128], op: &Op| {
                op.operands()
                    .iter()
                    .filter(|o| o.index() < i)
                    .fold(0, |acc, o| acc | sets[o.index()])
            };
            (must[i], may[i]) = match self.def(v) {
                Some(Op::Param(p)) => {
                    match self.array_params.iter().position(|a| *a == self.locals[*p]) {
                        Some(k) => (1 << k, 1 << k),
                        None => (0, all),
                    }
                }
                Some(Op::Broadcast(_)) => (all, all),
                // Element-wise: the broadcast shape of the operands.
                Some(
                    op @ (Op::Unary(..)
                    | Op::Binary(..)
                    | Op::Compare(..)
                    | Op::Logic(..)
                    | Op::Math(..)
                    | Op::Cast(..)),
                ) => (union(&must, op), union(&may, op)),
                // At most the operands' shape (a select on a uniform condition gives one side, a
                // lookup the index's shape), perhaps less.
                Some(
                    op @ (Op::Select(..)
                    | Op::Index(..)
                    | Op::AsArray(_)
                    | Op::Call { .. }
                    | Op::ScalarCall { .. }),
                ) => (0, union(&may, op)),
                // Phis, merges, placeholders: anything.
                _ => (0, all),
            };
        }
        Some((must, may))
    }

    /// The values no chain may take: those defined inside D12 masked loops, and every loop's
    /// next value printed as an expression, with the operations printed inside it (`inplace.rs`
    /// may update the loop's own array through them).
    fn excluded(&self) -> BTreeSet<Value> {
        let mut out = BTreeSet::new();
        walk_insts(&self.f.body, &mut |inst| {
            let Inst::Loop {
                phis, body, active, ..
            } = inst
            else {
                return;
            };
            if active.is_some() {
                walk_insts(body, &mut |i| {
                    if let Inst::Let { dst, .. } = i {
                        out.insert(*dst);
                    }
                });
            }
            for p in phis {
                self.inlined_tree(p.next, &mut out);
            }
        });
        out
    }

    /// `v`, when printed inline, and the values printed inside it.
    fn inlined_tree(&self, v: Value, out: &mut BTreeSet<Value>) {
        if !self.inline[v.index()] {
            return;
        }
        out.insert(v);
        if let Some(op) = self.def(v) {
            for o in op.operands() {
                self.inlined_tree(o, out);
            }
        }
    }

    fn float_array(&self, v: Value) -> bool {
        self.kind(v) == Kind::Float && !self.scalar(v)
    }

    /// `(op, l, r)` when `v` is a plain float `+ - * /` on float arrays (printed as the Python
    /// operator: a fresh array).
    pub(super) fn plain_float_binary(&self, v: Value) -> Option<(BinOp, Value, Value)> {
        let Some(Op::Binary(op, l, r)) = self.def(v) else {
            return None;
        };
        let operand_ok =
            |o: Value| self.kind(o) == Kind::Float || (self.kind(o) == Kind::Int && self.scalar(o));
        let plain = matches!(op, BinOp::Add | BinOp::Sub | BinOp::Mul | BinOp::Div)
            && self.float_array(v)
            && operand_ok(*l)
            && operand_ok(*r)
            && super::choice::plain_binary(*op, self.operand(*l), self.operand(*r));
        plain.then_some((*op, *l, *r))
    }

    /// Whether `v` is printed inline, at its one read, as an operation giving a fresh float
    /// array: a plain float `+ - * /` or the negation of a float array.
    fn fresh(&self, v: Value) -> bool {
        if !self.inline[v.index()] || !self.float_array(v) {
            return false;
        }
        match self.def(v) {
            Some(Op::Unary(UnOp::Neg, a)) => self.float_array(*a),
            _ => self.plain_float_binary(v).is_some(),
        }
    }

    /// Links every value of the float body that a chain computes in place, and gives the top of
    /// each chain printed inside a larger expression a name of its own, so that it is computed
    /// by statements of its own (`chain_stmts`). Called once the naming plan is made.
    pub(super) fn plan_chains(&mut self) {
        let n = self.f.values.len();
        self.links = vec![None; n];
        let Some((must, may)) = self.shape_sets() else {
            return;
        };
        let skip = self.excluded();
        // Each value's chain root (itself when it has no link) and its number of links;
        // operands come first.
        let mut root: Vec<usize> = (0..n).collect();
        let mut length = vec![0usize; n];
        let mut linked = vec![false; n];
        for i in 0..n {
            let v = Value(i as u32);
            if skip.contains(&v) {
                continue;
            }
            let Some((op, l, r)) = self.plain_float_binary(v) else {
                continue;
            };
            let joins = |spine: Value, other: Value| {
                self.fresh(spine)
                    && !skip.contains(&spine)
                    && may[other.index()] & !must[root[spine.index()]] == 0
            };
            let link = if joins(l, r) {
                Link {
                    spine: l,
                    op,
                    other: r,
                }
            } else if matches!(op, BinOp::Add | BinOp::Mul) && joins(r, l) {
                Link {
                    spine: r,
                    op,
                    other: l,
                }
            } else {
                continue;
            };
            root[i] = root[link.spine.index()];
            length[i] = length[link.spine.index()] + 1;
            linked[link.spine.index()] = true;
            self.links[i] = Some(link);
        }
        // The top of a chain inside an expression gets a statement of its own from two links
        // on (`tmp = x * 2.0; tmp += 1.0; return tmp` would save one array of a short chain
        // for two more lines); a shorter one is printed as it was.
        // Nor a chain inside a Horner polynomial, which is one call (horner.rs).
        let mut in_polynomial = vec![false; n];
        for (i, is_linked) in linked.iter().enumerate() {
            if self.links[i].is_some() && !is_linked {
                for v in self.polynomial_interior(Value(i as u32)) {
                    in_polynomial[v.index()] = true;
                }
            }
        }
        for i in 0..n {
            if self.links[i].is_some() && !linked[i] && self.inline[i] {
                if length[i] >= MIN_HOISTED_LINKS && !in_polynomial[i] {
                    self.inline[i] = false;
                } else {
                    self.links[i] = None;
                }
            }
        }
    }

    /// The statements computing the named value `dst` when a chain computes it: `dst = root`,
    /// then `dst op= other` for each link from the root up (the operands printed before the
    /// variable is named, as for any other value).
    pub(super) fn chain_stmts(&mut self, dst: Value) -> Option<Vec<Stmt>> {
        if let Some(stmt) = self.horner_stmt(dst) {
            return Some(vec![stmt]); // a polynomial in one array: one pass (horner.rs)
        }
        let mut links = vec![];
        let mut v = dst;
        while let Some(link) = self.links.get(v.index()).copied().flatten() {
            links.push(link);
            v = link.spine;
        }
        if links.is_empty() {
            return None;
        }
        let root = self.value(v);
        let others: Vec<_> = links
            .iter()
            .rev()
            .map(|l| (symbol(l.op), self.value(l.other)))
            .collect();
        let var = self.name_of(dst);
        let mut out = vec![Stmt::Assign(vec![var.clone()], vec![root])];
        out.extend(
            others
                .into_iter()
                .map(|(op, e)| Stmt::AugAssign(var.clone(), op, e)),
        );
        Some(out)
    }
}

#[cfg(test)]
mod tests {
    use crate::pipeline::testing::compiled;

    #[test]
    fn a_named_chain_is_computed_in_its_first_array_in_the_float_body_only() {
        let c = compiled(
            "def f(x):\n    p = x\n    q = 1.0\n    s = 0.0\n    for n in range(1, 4):\n        r = ((2 * n + 1) * x * p - n * q) / (n + 1)\n        s = s + 0.5 * r\n        q = p\n        p = r\n    return s\n",
        );
        let (fast, exact) = (&c.generated.fast_source, &c.generated.exact_source);
        assert!(
            fast.contains("        r = (2 * n + 1) * x\n        r *= p\n        r -= n * q\n        r /= n + 1\n"),
            "{fast}"
        );
        assert!(!exact.contains(" *= "), "{exact}");
    }

    #[test]
    fn horner_takes_the_chain_from_the_right_operand() {
        let c = compiled(
            "def f(x):\n    y = x * x\n    p = 1.0 + y * (0.5 + y * x)\n    return p * p\n",
        );
        let fast = &c.generated.fast_source;
        // (`del y` after its last read, inside the chain. A polynomial in `y` alone would be
        // one `_vec_horner` call: horner.rs.)
        assert!(
            fast.contains("    p = y * x\n    p += 0.5\n    p *= y\n    del y\n    p += 1.0\n"),
            "{fast}"
        );
    }

    #[test]
    fn a_chain_inside_an_expression_gets_its_own_statements_from_two_links_on() {
        // `y` may broadcast the chain in `x`: the chain stops below `y + ...`.
        let c = compiled("def f(x, y):\n    return y + x * (0.5 + x * 0.25)\n");
        let fast = &c.generated.fast_source;
        assert!(
            fast.contains("    tmp = x * 0.25\n    tmp += 0.5\n    tmp *= x\n    return y + tmp\n"),
            "{fast}"
        );
        let c = compiled("def f(x):\n    return x * 2.0 + 1.0\n");
        assert!(
            c.generated
                .fast_source
                .contains("    return x * 2.0 + 1.0\n"),
            "{}",
            c.source
        );
    }

    #[test]
    fn no_chain_whose_first_array_may_be_smaller_than_the_result() {
        for src in [
            // `a * 2.0` has the shape of `a` only; `b` may broadcast it larger.
            "def f(a, b):\n    t = a * 2.0 + b\n    return t * t\n",
            // The first operation reads a loop's phi, not known to hold the whole shape.
            "def f(x):\n    acc = 1.0\n    for i in range(3):\n        acc = acc * 0.5 + x\n    t = acc * 2.0 + x\n    return t * t\n",
        ] {
            let c = compiled(src);
            let fast = &c.generated.fast_source;
            assert!(!fast.contains("t *= ") && !fast.contains("t += "), "{src}\n{fast}");
        }
        // Both parameters read first: the chain is in place.
        let c = compiled("def f(a, b):\n    t = a * b + 1.0\n    return t * t\n");
        assert!(
            c.generated
                .fast_source
                .contains("    t = a * b\n    t += 1.0\n"),
            "{}",
            c.source
        );
    }

    #[test]
    fn no_chain_inside_a_masked_while_loop() {
        let c = compiled("def f(x):\n    while x > 1.0:\n        x = x * 0.5 - 0.1\n        y = x * 2.0 + 1.0\n        x = y * y\n    return x\n");
        let fast = &c.generated.fast_source;
        assert!(!fast.contains(" *= ") && !fast.contains(" += "), "{fast}");
    }
}
