//! Legalize: restores lowering's invariants on the optimized IR.

use crate::analysis::kinds::{infer_kinds_with, CallKinds};
use crate::analysis::partial::{partial_binary, partial_cast};
use crate::analysis::shapes::infer_shapes;
use crate::ir::{walk_insts, Block, Const, Function, Inst, Kind, Op, Shape, Value};
use crate::Map;

/// Restores lowering's invariants on the optimized IR, whose kinds and shapes are recomputed:
/// a partial operation of Python scalars (`partial_binary`, `partial_cast`) that simplification
/// left with scalar operands (`(i if c else i) // 0`) runs on a 0-d array again (D3,
/// docs/semantics.md item 16). Leaves `func` with fresh kinds and shapes (a call's kind from
/// `calls`, as `infer_kinds_with` takes it).
pub fn legalize(func: &mut Function, param_kinds: &[Kind], calls: &mut CallKinds) {
    infer_kinds_with(func, param_kinds, calls);
    infer_shapes(func);
    let mut consts: Map<Value, Const> = Map::default();
    walk_insts(&func.body, &mut |inst| {
        if let Inst::Let {
            dst,
            op: Op::Const(c),
        } = inst
        {
            consts.insert(*dst, c.clone());
        }
    });
    let mut body = std::mem::take(&mut func.body);
    let changed = legalize_block(func, &mut body, &consts);
    func.body = body;
    if changed {
        infer_kinds_with(func, param_kinds, calls);
        infer_shapes(func);
    }
}

fn legalize_block(func: &mut Function, block: &mut Block, consts: &Map<Value, Const>) -> bool {
    let mut changed = false;
    let insts = std::mem::take(&mut block.insts);
    for mut inst in insts {
        match &mut inst {
            Inst::Let { op, .. } => {
                let scalar = |v: Value| func.info(v).shape == Shape::Scalar;
                let konst = |v: Value| consts.get(&v).cloned();
                let lift = match op {
                    Op::Binary(b, x, y)
                        if scalar(*x) && scalar(*y) && partial_binary(*b, *x, *y, &konst) =>
                    {
                        Some(*x)
                    }
                    Op::Cast(c, x)
                        if scalar(*x)
                            && partial_cast(*c, func.info(*x).kind, konst(*x).as_ref()) =>
                    {
                        Some(*x)
                    }
                    _ => None,
                };
                if let Some(x) = lift {
                    let kind = func.info(x).kind;
                    let arr = func.new_value(kind, Shape::Array, None);
                    block.insts.push(Inst::Let {
                        dst: arr,
                        op: Op::AsArray(x),
                    });
                    *op = op.map_operands(|v| if v == x { arr } else { v });
                    changed = true;
                }
            }
            Inst::Loop { body, .. } => changed |= legalize_block(func, body, consts),
            Inst::If { then, other, .. } => {
                changed |= legalize_block(func, then, consts);
                changed |= legalize_block(func, other, consts);
            }
        }
        block.insts.push(inst);
    }
    changed
}

#[cfg(test)]
mod tests {
    use crate::testing::ir_after;

    #[test]
    fn a_partial_scalar_operation_left_by_simplification_runs_on_an_array() {
        let src = "def f(x):\n    total = 0.0\n    for i in range(2):\n        total = total + (i if x > 0.0 else i) // 0\n    return total + x\n";
        let before = ir_after(src, "dce").to_string();
        let after = ir_after(src, "legalize").to_string();
        assert!(!before.contains("int = asarray"), "{before}");
        assert!(after.contains("int = asarray"), "{after}");
    }
}
