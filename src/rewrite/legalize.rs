//! Legalize: restores lowering's invariants on the optimized IR.

use crate::analysis::kinds::{infer_kinds_with, CallKinds};
use crate::analysis::partial::{never_raises, partial_binary, partial_cast};
use crate::analysis::ranges::{int_ranges, Range};
use crate::analysis::shapes::infer_shapes;
use crate::ir::{
    insert_before, walk_insts, BinOp, Block, Const, Function, Inst, Kind, Op, Shape, Value,
};
use crate::Map;

/// Restores lowering's invariants on the optimized IR, whose kinds and shapes are recomputed:
/// a partial operation of Python scalars (`partial_binary`, `partial_cast`) that simplification
/// left with scalar operands (`(i if c else i) // 0`) runs on a 0-d array again (D3,
/// docs/semantics.md item 16). One that the int intervals of its operands show never raises
/// (`1.0 / (i + 1)` over `range(5)`: `never_raises`) runs as plain Python instead, which is
/// CPython's own arithmetic and, in a loop, far cheaper than a 0-d array per iteration; the
/// 0-d array lowering made of its dividend is dropped when nothing else reads it. Leaves
/// `func` with fresh kinds and shapes (a call's kind from `calls`, as `infer_kinds_with` takes
/// it).
///
/// Unlifting a dividend makes the operations that read it scalar only once shapes are
/// recomputed (`(0 % True)` unlifted leaves `0 / (0 % True)` with scalar operands), so the pass
/// repeats until it unlifts nothing.
pub fn legalize(func: &mut Function, param_kinds: &[Kind], calls: &mut CallKinds) {
    infer_kinds_with(func, param_kinds, calls);
    infer_shapes(func);
    // A bound all the same: a round that unlifts nothing ends it, and the chains of dividends
    // in real code are short.
    for _ in 0..16 {
        if !legalize_round(func, param_kinds, calls) {
            break;
        }
    }
}

/// One round of [`legalize`] on fresh kinds and shapes: whether it unlifted an operation.
fn legalize_round(func: &mut Function, param_kinds: &[Kind], calls: &mut CallKinds) -> bool {
    let mut facts = Facts {
        consts: Map::default(),
        lifted: Map::default(),
        ranges: None,
    };
    // The int intervals are read only by `never_raises`, of a binary operation whose second
    // operand is a Python scalar: solved only when the function has one (a float body rarely
    // does; the solve costs as much as the rest of this pass).
    let mut scalar_right = false;
    walk_insts(&func.body, &mut |inst| match inst {
        Inst::Let {
            dst,
            op: Op::Const(c),
        } => {
            facts.consts.insert(*dst, c.clone());
        }
        Inst::Let {
            dst,
            op: Op::AsArray(x),
        } if func.info(*x).shape == Shape::Scalar => {
            facts.lifted.insert(*dst, *x);
        }
        Inst::Let {
            op: Op::Binary(_, _, y),
            ..
        } => scalar_right |= func.info(*y).shape == Shape::Scalar,
        _ => {}
    });
    if scalar_right {
        facts.ranges = Some(int_ranges(func));
    }
    let mut body = std::mem::take(&mut func.body);
    let (changed, unlifted) = legalize_block(func, &mut body, &facts);
    func.body = body;
    if unlifted {
        crate::rewrite::dce::run(func);
    }
    if changed || unlifted {
        infer_kinds_with(func, param_kinds, calls);
        infer_shapes(func);
    }
    unlifted
}

/// What legalizing reads of the whole function.
struct Facts {
    consts: Map<Value, Const>,
    /// `AsArray(x)` of a Python scalar `x`: its value -> `x`.
    lifted: Map<Value, Value>,
    /// `ranges::int_ranges`, when some binary operation's second operand is a Python scalar.
    ranges: Option<Vec<Range>>,
}

impl Facts {
    /// Whether `x op y`, on Python scalars, never raises by their kinds and int intervals.
    fn never_raises(&self, func: &Function, op: BinOp, x: Value, y: Value) -> bool {
        let Some(ranges) = &self.ranges else {
            // Not reached (`legalize_round` solves them for every such operation); "may
            // raise" is the safe answer.
            debug_assert!(false, "int ranges not solved for `{op:?}`");
            return false;
        };
        let fact = |v: Value| (func.info(v).kind, ranges[v.index()]);
        never_raises(op, fact(x), fact(y))
    }
}

/// Legalizes `block`: (whether a scalar operation was lifted, whether one was unlifted).
fn legalize_block(func: &mut Function, block: &mut Block, facts: &Facts) -> (bool, bool) {
    let (mut changed, mut unlifted) = (false, false);
    insert_before(block, &mut |inst, before| {
        if let Inst::Let { op, .. } = inst {
            let scalar = |v: Value| func.info(v).shape == Shape::Scalar;
            let konst = |v: Value| facts.consts.get(&v).cloned();
            if let Op::Binary(b, x, y) = op {
                match facts.lifted.get(x) {
                    Some(&plain) if scalar(*y) && facts.never_raises(func, *b, plain, *y) => {
                        *x = plain;
                        unlifted = true;
                    }
                    _ => {}
                }
            }
            let lift = match op {
                Op::Binary(b, x, y)
                    if scalar(*x)
                        && scalar(*y)
                        && partial_binary(*b, *x, *y, &konst)
                        && !facts.never_raises(func, *b, *x, *y) =>
                {
                    Some(*x)
                }
                Op::Cast(c, x)
                    if scalar(*x) && partial_cast(*c, func.info(*x).kind, konst(*x).as_ref()) =>
                {
                    Some(*x)
                }
                _ => None,
            };
            if let Some(x) = lift {
                let kind = func.info(x).kind;
                let arr = func.new_value(kind, Shape::Array, None);
                before.push(Inst::Let {
                    dst: arr,
                    op: Op::AsArray(x),
                });
                op.rename_operands(|v| if v == x { arr } else { v });
                changed = true;
            }
        }
    });
    (changed, unlifted)
}

#[cfg(test)]
mod tests {
    use crate::pipeline::testing::ir_after;

    #[test]
    fn a_partial_scalar_operation_left_by_simplification_runs_on_an_array() {
        let src = "def f(x):\n    total = 0.0\n    for i in range(2):\n        total = total + (i if x > 0.0 else i) // 0\n    return total + x\n";
        let before = ir_after(src, "dce").to_string();
        let after = ir_after(src, "legalize").to_string();
        assert!(!before.contains("int = asarray"), "{before}");
        assert!(after.contains("int = asarray"), "{after}");
    }

    #[test]
    fn a_division_by_an_index_interval_without_zero_runs_as_python() {
        let src = "def f(x):\n    acc = 0.0\n    for i in range(5):\n        acc = acc * x + 1.0 / (i + 1)\n    return acc\n";
        let lowered = ir_after(src, "lower").to_string();
        let after = ir_after(src, "legalize").to_string();
        assert!(!lowered.contains("scalar float = div"), "{lowered}");
        assert!(after.contains("scalar float = div"), "{after}");
        assert_eq!(after.matches("asarray").count(), 1, "only acc's: {after}");
        // `i - 2` is zero once: still a 0-d array.
        let src = "def f(x):\n    acc = 0.0\n    for i in range(5):\n        acc = acc * x + 1.0 / (i - 2)\n    return acc\n";
        let after = ir_after(src, "legalize").to_string();
        assert!(!after.contains("scalar float = div"), "{after}");
    }
}
