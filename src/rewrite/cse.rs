//! Common-subexpression elimination: an operation computed again over the same operands reuses
//! the first result. Scoped by block: a value defined inside a loop or branch is not visible after
//! it, while values from enclosing blocks are visible inside. The key includes the result's
//! shape: a constant the builder made an array (a math call's 0-d result folded) is not the
//! scalar constant of the same value, which a Python `if` may branch on.

use crate::Map as HashMap;

use super::ValueMap;
use crate::ir::{walk_steps_mut, Function, Inst, OpKey, Shape, Step, Value};

/// An operation and the shape of its result.
type Key = (OpKey, Shape);

/// Replaces each repeated operation by its first result.
pub fn run(func: &mut Function) {
    let mut map: ValueMap<Value> = ValueMap::for_values(func);
    let shapes: Vec<Shape> = func.values.iter().map(|v| v.shape).collect();
    // The operations seen where the walk stands. A region starts from what was seen where it
    // begins, and what it sees ends with it: `added` lists the keys in the order they were
    // first seen, and `starts` holds, per open region, innermost last, how many there were at
    // its start (an undo log: no copy of `seen` per region).
    let mut seen: HashMap<Key, Value> = HashMap::default();
    let mut added: Vec<Key> = vec![];
    let mut starts: Vec<usize> = vec![];
    let forget = |seen: &mut HashMap<Key, Value>, added: &mut Vec<Key>, start: usize| {
        for key in added.drain(start.min(added.len())..) {
            seen.remove(&key);
        }
    };
    walk_steps_mut(&mut func.body, &mut |step| match step {
        Step::Enter(Inst::Let { dst, op }) => {
            op.rename_operands(|v| super::resolve(&map, v));
            let Some(key) = op.cse_key() else { return };
            let key = (key, shapes[dst.index()]);
            match seen.get(&key) {
                Some(&first) => {
                    map.insert(*dst, first);
                }
                None => {
                    seen.insert(key, *dst);
                    added.push(key);
                }
            }
        }
        Step::Enter(Inst::Loop { phis, .. }) => {
            for phi in phis.iter_mut() {
                phi.init = super::resolve(&map, phi.init);
            }
            starts.push(added.len());
        }
        Step::Enter(Inst::If { cond, .. }) => {
            *cond = super::resolve(&map, *cond);
            starts.push(added.len());
        }
        Step::Between(_) => forget(&mut seen, &mut added, starts.last().copied().unwrap_or(0)),
        Step::Leave(_) => forget(&mut seen, &mut added, starts.pop().unwrap_or(0)),
    });
    super::rename_all(func, &map);
}

#[cfg(test)]
mod tests {
    use crate::ir::{walk_insts, BinOp, Inst, Op, Shape};
    use crate::pipeline::testing::ir_after;

    #[test]
    fn a_repeated_operation_reuses_the_first() {
        let f = ir_after("def f(x):\n    return (x * 1.5) * (x * 1.5)\n", "cse");
        let mut squared = false;
        walk_insts(&f.body, &mut |inst| {
            if let Inst::Let {
                op: Op::Binary(BinOp::Mul, a, b),
                ..
            } = inst
            {
                squared |= a == b;
            }
        });
        assert!(squared, "{f}");
    }

    /// A math call of a scalar is an array (0-d); folded, its negation is an array `True` that
    /// must not stand for the scalar `True` a Python `if` branches on (fuzz seed 100001,
    /// program 1950: "the branch on %7 is not on a scalar" after cse).
    #[test]
    fn a_constant_array_does_not_replace_the_scalar_constant_of_its_value() {
        let f = ir_after(
            "def f(x):\n    a = min(0, 1)\n    if math.isnan(a):\n        pass\n    elif a == 0:\n        pass\n    return x\n",
            "cse",
        );
        walk_insts(&f.body, &mut |inst| {
            if let Inst::If { cond, .. } = inst {
                assert_eq!(f.info(*cond).shape, Shape::Scalar, "{f}");
            }
        });
    }
}
