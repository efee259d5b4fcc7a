//! Broadcast: spreads a result that might not have the inputs' broadcast shape.

use crate::analysis::coverage::{shaped_by, Params};
use crate::ir::{Function, Inst, Op, Shape, Value};

/// A result that does not carry the shape of every array parameter would not have the broadcast
/// shape of the inputs (think `return 1.0`, or a Python-level `if` on a constant whose other side
/// merges 0-d placeholders): spread it explicitly. Each position of a tuple result is its own
/// result here (D13).
pub fn broadcast_result(f: &mut Function) {
    for i in 0..f.ret.len() {
        let ret = f.ret[i];
        f.ret[i] = broadcast_one(f, ret);
    }
}

/// `ret`, or its broadcast when it may lack the shape of some array parameter.
fn broadcast_one(f: &mut Function, ret: Value) -> Value {
    let already = f
        .body
        .insts
        .iter()
        .any(|inst| matches!(inst, Inst::Let { dst, op: Op::Broadcast(_) } if *dst == ret));
    if already {
        return ret;
    }
    // Beyond 64 parameters the analysis does not track shapes: broadcast (harmless when the
    // result had the shape already).
    let all: Params = match f.declared_params {
        64 => u64::MAX,
        n if n < 64 => (1u64 << n) - 1,
        _ => 0,
    };
    let covered = all != 0 && shaped_by(f, ret) == all;
    if covered {
        return ret;
    }
    let kind = f.info(ret).kind;
    let dst = f.new_value(kind, Shape::Array, None);
    f.body.insts.push(Inst::Let {
        dst,
        op: Op::Broadcast(ret),
    });
    dst
}

#[cfg(test)]
mod tests {
    use crate::pipeline::testing::ir_after;

    #[test]
    fn only_a_result_without_the_inputs_shape_is_broadcast() {
        let constant = ir_after("def f(x):\n    return 1.0\n", "broadcast").to_string();
        assert!(constant.contains("broadcast"), "{constant}");
        let shaped = ir_after("def f(x):\n    return x * 2.0\n", "broadcast").to_string();
        assert!(!shaped.contains("broadcast"), "{shaped}");
    }
}
