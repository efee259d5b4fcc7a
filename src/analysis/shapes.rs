//! Shape inference: which values are Python scalars and which are arrays, after optimization.

use crate::ir::{result_shape, walk_steps, Block, Function, Inst, Op, Shape, Step, Value};

/// Recomputes every value's shape after optimization: folding and simplification turn array
/// values into Python scalars (`x if c else x` is `x`), and codegen must know which is which
/// (a Python scalar where an array is expected: 0-d results, `xp.where` on a Python bool).
/// Phis and if-merges are arrays when either input is; loop indices stay scalars.
pub fn infer_shapes(func: &mut Function) {
    let body = std::mem::take(&mut func.body);
    for _ in 0..16 {
        let before: Vec<Shape> = func.values.iter().map(|v| v.shape).collect();
        visit_shapes(func, &body);
        if func.values.iter().map(|v| v.shape).eq(before) {
            break;
        }
    }
    func.body = body;
}

fn visit_shapes(func: &mut Function, body: &Block) {
    // A placeholder's value is never observed (the variable is assigned before any read), but it
    // is an operand all the same: the merge takes the other side's shape, as its kind
    // (`merge_kind`), and the placeholder takes the merge's, so that codegen writes it as what
    // the merge is (a Python zero for a scalar, a 0-d array for an array).
    let join = |func: &mut Function, a: Value, b: Value| {
        let (sa, sb) = (func.info(a).shape, func.info(b).shape);
        let s = match (func.info(a).placeholder, func.info(b).placeholder) {
            (true, false) => sb,
            (false, true) => sa,
            _ if sa == Shape::Array || sb == Shape::Array => Shape::Array,
            _ => Shape::Scalar,
        };
        for v in [a, b] {
            if func.info(v).placeholder {
                func.values[v.index()].shape = s;
            }
        }
        s
    };
    walk_steps(body, &mut |at| match at {
        Step::Enter(Inst::Let {
            op: Op::Placeholder(_),
            ..
        }) => {}
        Step::Enter(Inst::Let { dst, op }) => {
            let s = {
                let values = &func.values;
                result_shape(op, &|v: Value| values[v.index()].shape)
            };
            func.values[dst.index()].shape = s;
        }
        Step::Enter(Inst::Loop { phis, .. }) | Step::Leave(Inst::Loop { phis, .. }) => {
            for phi in phis {
                let s = join(func, phi.init, phi.next);
                func.values[phi.dst.index()].shape = s;
            }
        }
        Step::Leave(Inst::If { outs, .. }) => {
            for o in outs {
                let s = join(func, o.then, o.other);
                func.values[o.dst.index()].shape = s;
            }
        }
        _ => {}
    });
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pipeline::testing::ir_after;

    #[test]
    fn arithmetic_on_loop_indices_and_constants_is_scalar() {
        let src =
            "def f(x):\n    t = x\n    for i in range(3):\n        t = t + i * 2\n    return t\n";
        let mut f = ir_after(src, "lower");
        infer_shapes(&mut f);
        let ir = f.to_string();
        assert!(ir.contains(": scalar int = mul"), "{ir}");
        assert!(ir.contains(": num = add"), "{ir}");
    }
}
