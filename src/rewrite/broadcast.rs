//! Broadcast: spreads a result that might not have the inputs' broadcast shape, and unwraps a
//! raise code that simplification made the same on every lane.

use crate::analysis::coverage::{shaped_by, Params};
use crate::ir::{walk_insts, Function, Inst, Op, Shape, Value};

/// D11, D14: lowering broadcasts a raise code whose shape it does not know to be a Python scalar
/// (a code merged through a lane-wise branch that every lane leaves with the same code, as
/// `if units != "SI": raise ...` before `if re < 2300.0: return ...`). When simplification made
/// the code under the broadcast a Python scalar, the raise is uniform: the code itself, checked
/// in a Python `if` (codegen/stmts.rs), makes no full-size array and decides nothing under a
/// trace. Every lane's code is that scalar either way, so the first raising lane is lane 0 and
/// the exception is the same.
pub fn uniform_raise_code(f: &mut Function) {
    let Some(code) = f.raises.as_ref().map(|r| r.code) else {
        return;
    };
    let inner = f.body.insts.iter().find_map(|inst| match inst {
        Inst::Let {
            dst,
            op: Op::Broadcast(a),
        } if *dst == code => Some(*a),
        _ => None,
    });
    let Some(inner) = inner.filter(|&a| f.info(a).shape == Shape::Scalar) else {
        return;
    };
    let mut read_elsewhere = f.ret.contains(&code);
    walk_insts(&f.body, &mut |inst| {
        read_elsewhere |= inst.reads().contains(&code);
    });
    if read_elsewhere {
        return;
    }
    f.body
        .insts
        .retain(|inst| !matches!(inst, Inst::Let { dst, .. } if *dst == code));
    if let Some(r) = f.raises.as_mut() {
        r.code = inner;
    }
}

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
    use crate::pipeline::testing::{compiled, ir_after};

    #[test]
    fn only_a_result_without_the_inputs_shape_is_broadcast() {
        let constant = ir_after("def f(x):\n    return 1.0\n", "broadcast").to_string();
        assert!(constant.contains("broadcast"), "{constant}");
        let shaped = ir_after("def f(x):\n    return x * 2.0\n", "broadcast").to_string();
        assert!(!shaped.contains("broadcast"), "{shaped}");
    }

    #[test]
    fn a_uniform_raise_before_a_lane_wise_branch_is_a_python_if() {
        // D11, D14: the check of a setting, then a branch on the lanes (the friction factor
        // of benchmarks/realcode/fluids.py): every lane leaves the branch with the same code.
        let c = compiled("def f(x, params):\n    if params[\"units\"] != \"SI\":\n        raise ValueError(\"units\")\n    if x < 2300.0:\n        return 64.0 / x\n    return x * 0.5\n");
        for body in [&c.generated.fast_source, &c.generated.exact_source] {
            assert!(body.contains("_vec_raise_uniform(xp, "), "{}", c.source);
        }
        assert!(!c.source.contains("_vec_raises("), "{}", c.source);
        // A code that stays per lane keeps its broadcast and `_vec_raises`.
        let c = compiled("def f(x, params):\n    if params[\"units\"] != \"SI\":\n        raise ValueError(\"units\")\n    if x < 2300.0:\n        raise ValueError(\"laminar\")\n    return x * 0.5\n");
        assert!(c.source.contains("_vec_raises(xp, "), "{}", c.source);
        assert!(!c.source.contains("_vec_raise_uniform"), "{}", c.source);
    }
}
