//! Constant folding (what [`crate::ir::eval`] computes exactly like CPython), and simplifications
//! that keep values exact.
//!
//! Folding changes kinds (`max(10, 10, 2.5)` folds to the int `10`), also of values it does not
//! visit as a `Let`: loop phis and if-merges, whose kinds depend on values later in the walk. So
//! a simplification that reads a kind (dropping `int(v)` when `v` is an int) runs only in a
//! second walk, after the kinds are recomputed on the folded IR; the first walk's
//! simplifications read constants only. The second walk's simplifications replace a value by one
//! of the same kind, so the kinds it reads stay exact (D10: a stale kind is a silent wrong result),
//! except those of loop phis and what is computed from them: a phi's kind is a fixpoint over its
//! loop, which the replacement itself can move, so the second walk does not read them either.

use std::collections::BTreeSet;

use super::ValueMap;
use crate::analysis::kinds::{infer_kinds_with, CallKinds};
use crate::ir::eval::{fold_op, truthy};
use crate::ir::{
    const_kind, walk_insts, BinOp, Block, CastOp, Const, ElementTypes, Function, Inst, Kind,
    LogicOp, Op, UnOp, UniformOp, Value,
};

/// Folds and simplifies `func`, leaving every value's kind recomputed for `params` (a call's
/// from `calls`, as `infer_kinds_with` takes it).
pub fn run(func: &mut Function, params: &[Kind], calls: &mut CallKinds) {
    walk(func, Reads::Constants);
    infer_kinds_with(func, params, calls);
    walk(func, Reads::Kinds);
    infer_kinds_with(func, params, calls);
    if super::loop_return::run(func) {
        walk(func, Reads::Constants);
        infer_kinds_with(func, params, calls);
    }
}

/// What a walk reads: the kinds (or not), and which values the kinds do not pin.
struct Facts {
    reads: Reads,
    /// Loop phis and the values computed from them: their kinds come from a fixpoint over the
    /// loop, which a simplification can move (dropping `int(p)` of a phi `p` inferred int only
    /// through that very conversion leaves `p` a float), so none is read.
    carried: BTreeSet<Value>,
    /// The float values that hold ints as float64 on some lane (item 8): `floats_holding_ints`.
    holds_ints: BTreeSet<Value>,
    /// The values of the parameters (their kinds are the body's whatever folding does).
    params: BTreeSet<Value>,
}

/// The float values of `func` that hold an int on some lane (item 8), by the kinds as they
/// stand: a merge of an int or bool into a float (a `select`, a loop phi, an if-merge), and
/// what arithmetic computes from such values and ints alone (`v + p0` of an int `p0` is an int in
/// CPython where the merge `v` holds one; seed 712006 #1267), merged again or not.
fn floats_holding_ints(func: &Function, block: &Block) -> BTreeSet<Value> {
    let kind = |v: Value| func.info(v).kind;
    let mut held = BTreeSet::new();
    // A phi's next value comes after it: repeat until nothing is added.
    loop {
        let before = held.len();
        // A merge holds an int where one input does; an operation, where all its operands may
        // (an int, a bool, a parameter's unknown kind, a held value).
        let mut note = |dst: Value, inputs: &[Value], merges: bool| {
            let int_like = |v: &Value| {
                matches!(kind(*v), Kind::Int | Kind::Bool | Kind::Unknown) || held.contains(v)
            };
            let holds = if merges {
                inputs.iter().any(int_like)
            } else {
                inputs.iter().all(int_like)
            };
            if kind(dst) == Kind::Float && holds {
                held.insert(dst);
            }
        };
        walk_insts(block, &mut |inst| match inst {
            Inst::Let {
                dst,
                op: Op::Select(_, a, b),
            } => note(*dst, &[*a, *b], true),
            // `/` gives a float whatever its operands; the rest keep an int an int.
            Inst::Let {
                dst,
                op: Op::Binary(op, a, b),
            } if *op != BinOp::Div => note(*dst, &[*a, *b], false),
            Inst::Let {
                dst,
                op: Op::Unary(UnOp::Neg | UnOp::Pos | UnOp::Abs | UnOp::Invert, a),
            } => note(*dst, &[*a], false),
            Inst::Loop { phis, .. } => {
                for p in phis {
                    note(p.dst, &[p.init, p.next], true);
                }
            }
            Inst::If { outs, .. } => {
                for o in outs {
                    note(o.dst, &[o.then, o.other], true);
                }
            }
            Inst::Let { .. } => {}
        });
        if held.len() == before {
            return held;
        }
    }
}

/// The loop phis of `block` (nested blocks included) and every value computed from one.
fn loop_carried(block: &Block) -> BTreeSet<Value> {
    let mut carried = BTreeSet::new();
    // Source order defines operands before their uses, but a phi's next value comes after
    // it: repeat until nothing is added.
    loop {
        let before = carried.len();
        walk_insts(block, &mut |inst| match inst {
            Inst::Loop { phis, .. } => carried.extend(phis.iter().map(|p| p.dst)),
            Inst::Let { dst, op } => {
                if op.operands().iter().any(|o| carried.contains(o)) {
                    carried.insert(*dst);
                }
            }
            Inst::If { outs, .. } => {
                for o in outs {
                    if carried.contains(&o.then) || carried.contains(&o.other) {
                        carried.insert(o.dst);
                    }
                }
            }
        });
        if carried.len() == before {
            return carried;
        }
    }
}

/// What the simplifications of one walk may read.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Reads {
    /// Constant operands only: the kinds may be stale while folding changes them.
    Constants,
    /// Also the operands' kinds: valid only when the kinds were just recomputed.
    Kinds,
}

fn walk(func: &mut Function, reads: Reads) {
    let mut consts: ValueMap<Const> = ValueMap::for_values(func);
    let mut map: ValueMap<Value> = ValueMap::for_values(func);
    let mut body = std::mem::take(&mut func.body);
    let carried = loop_carried(&body);
    let holds_ints = match reads {
        Reads::Kinds => floats_holding_ints(func, &body),
        Reads::Constants => BTreeSet::new(),
    };
    let mut params = BTreeSet::new();
    walk_insts(&body, &mut |inst| {
        if let Inst::Let {
            dst,
            op: Op::Param(_),
        } = inst
        {
            params.insert(*dst);
        }
    });
    let reads = Facts {
        reads,
        carried,
        holds_ints,
        params,
    };
    fold_block(
        func,
        &mut body,
        &mut consts,
        &mut map,
        &reads,
        &mut BTreeSet::new(),
    );
    func.body = body;
    super::rename_all(func, &map);
}

fn fold_block(
    func: &mut Function,
    block: &mut Block,
    consts: &mut ValueMap<Const>,
    map: &mut ValueMap<Value>,
    reads: &Facts,
    decided: &mut BTreeSet<Value>,
) {
    let mut out = Vec::with_capacity(block.insts.len());
    for mut inst in std::mem::take(&mut block.insts) {
        match &mut inst {
            Inst::Let { dst, op } => {
                op.rename_operands(|v| super::resolve(map, v));
                if let Op::Const(c) = op {
                    consts.insert(*dst, c.clone());
                    out.push(inst);
                    continue;
                }
                let folded = match element_is(func, op, reads) {
                    Some(c) => Some(c),
                    None => fold_op(op, &|v| consts.get(v).cloned()),
                };
                if let Some(c) = folded {
                    // D22: a test of an element type, or an operation on one (`not`, `and`).
                    if matches!(op, Op::Uniform(UniformOp::ElementIs(_), _))
                        || op.operands().iter().any(|v| decided.contains(v))
                    {
                        decided.insert(*dst);
                    }
                    func.values[dst.index()].kind = const_kind(&c);
                    consts.insert(*dst, c.clone());
                    *op = Op::Const(c);
                } else if let Some(v) = simplify(func, op, &|v| consts.get(v).cloned(), reads) {
                    map.insert(*dst, v);
                }
            }
            Inst::Loop { phis, body, .. } => {
                for phi in phis.iter_mut() {
                    phi.init = super::resolve(map, phi.init);
                }
                // Phis vary per iteration: never constants, even when initialised by one.
                fold_block(func, body, consts, map, reads, decided);
            }
            Inst::If {
                cond,
                then,
                other,
                outs,
            } => {
                *cond = super::resolve(map, *cond);
                // D22: a test of an element type this body decides (the float body's parameters
                // are float64): only the side Python takes is left, in place, so its result's
                // kind is not merged with the other side's (`return x + 1` of an int).
                if let (true, Some(taken)) = (decided.contains(cond), consts.get(*cond).map(truthy))
                {
                    let side = if taken { then } else { other };
                    fold_block(func, side, consts, map, reads, decided);
                    for o in outs.iter() {
                        let v = super::resolve(map, if taken { o.then } else { o.other });
                        map.insert(o.dst, v);
                    }
                    out.append(&mut side.insts);
                    continue;
                }
                fold_block(func, then, consts, map, reads, decided);
                fold_block(func, other, consts, map, reads, decided);
            }
        }
        out.push(inst);
    }
    block.insts = out;
}

/// D22: `ElementIs` of a parameter whose kind this body knows (float64 in the float body) is
/// a constant. Parameters' kinds are the body's own from the start, so the first walk, which
/// reads no other kind, may read them.
fn element_is(func: &Function, op: &Op, facts: &Facts) -> Option<Const> {
    let Op::Uniform(UniformOp::ElementIs(types), args) = op else {
        return None;
    };
    let v = *args.first()?;
    if !facts.params.contains(&v) {
        return None;
    }
    let t = match func.info(v).kind {
        Kind::Bool => ElementTypes::BOOL,
        Kind::Int => ElementTypes::INT,
        Kind::Float => ElementTypes::FLOAT,
        Kind::Unknown | Kind::Object => return None,
    };
    Some(Const::Bool(types.contains(t)))
}

/// Replaces an operation by an existing value when that is exact for every input; reads the
/// operands' kinds only when `reads` allows it.
fn simplify(
    func: &Function,
    op: &Op,
    konst: &impl Fn(Value) -> Option<Const>,
    facts: &Facts,
) -> Option<Value> {
    let kind = |v: Value| {
        (facts.reads == Reads::Kinds && !facts.carried.contains(&v)).then(|| func.info(v).kind)
    };
    match op {
        Op::Select(c, a, b) => match konst(*c) {
            Some(Const::Bool(true)) => Some(*a),
            Some(Const::Bool(false)) => Some(*b),
            _ if a == b => Some(*a),
            _ => None,
        },
        // `float(v)` of a value that holds ints as float64 (item 8) stays: codegen writes
        // nothing for it (`choice::cast`), and the fuzzer's model reads it per element as
        // CPython does (`-float(v)` of the int 0 is -0.0; seed 170007 #1948).
        Op::Cast(CastOp::Float, v)
            if kind(*v) == Some(Kind::Float) && !facts.holds_ints.contains(v) =>
        {
            Some(*v)
        }
        Op::Cast(CastOp::Int | CastOp::Round, v) if kind(*v) == Some(Kind::Int) => Some(*v),
        Op::Cast(CastOp::Bool, v) if kind(*v) == Some(Kind::Bool) => Some(*v),
        Op::Unary(UnOp::Pos, v) if matches!(kind(*v), Some(Kind::Int | Kind::Float)) => Some(*v),
        Op::Logic(LogicOp::And, a, b) => match (konst(*a), konst(*b)) {
            (Some(Const::Bool(true)), _) => Some(*b),
            (_, Some(Const::Bool(true))) => Some(*a),
            _ => None,
        },
        Op::Logic(LogicOp::Or, a, b) => match (konst(*a), konst(*b)) {
            (Some(Const::Bool(false)), _) => Some(*b),
            (_, Some(Const::Bool(false))) => Some(*a),
            _ => None,
        },
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use crate::ir::{walk_insts, CastOp, Inst, Op};
    use crate::pipeline::testing::ir_after;

    #[test]
    fn a_conversion_of_a_loop_carried_value_stays() {
        // `p2` is float only through `float(p2)` flowing back into it; without the conversion
        // the phi is an int (or unknown) and `p0` would take it as it is.
        let src = "def f(p0, p1):\n    p2 = 1\n    for i in range(2):\n        p0 = float(p2)\n        if p1:\n            p2 = abs(p0) + p1\n    return p0\n";
        let f = ir_after(src, "fold");
        let mut casts = 0;
        walk_insts(&f.body, &mut |inst| {
            if let Inst::Let {
                op: Op::Cast(CastOp::Float, _),
                ..
            } = inst
            {
                casts += 1;
            }
        });
        assert_eq!(casts, 1, "{f}");
    }

    #[test]
    fn a_conversion_to_the_kind_a_value_has_goes() {
        let f = ir_after("def f(x):\n    return float(x * 1.5)\n", "fold");
        let mut ret_op = None;
        walk_insts(&f.body, &mut |inst| {
            if let Inst::Let { dst, op } = inst {
                if *dst == f.ret[0] {
                    ret_op = Some(op.clone());
                }
            }
        });
        assert!(!matches!(ret_op, Some(Op::Cast(CastOp::Float, _))), "{f}");
    }

    #[test]
    fn a_float_conversion_of_a_merge_holding_ints_stays_and_costs_no_code() {
        // `v` is an int on the lanes that skip the `if` (held as float64, item 8): the model of
        // the fuzzer reads `-float(v)` there as CPython does (-0.0 for 0), which it could not if
        // the conversion were gone (seed 170007 #1948).
        let c = crate::pipeline::testing::compiled(
            "def f(x, c):\n    v = 0\n    if c:\n        v = x * 1.5\n    return -float(v)\n",
        );
        let ir = format!("{}", c.ir);
        assert!(ir.contains("cast.float"), "{ir}");
        // (The int body converts `x` for `x * 1.5`; the merge itself is never converted.)
        assert!(!c.source.contains("astype(xp.where"), "{}", c.source);
    }

    #[test]
    fn a_float_conversion_of_arithmetic_on_a_merge_holding_ints_stays() {
        // `floor + p` is an int in CPython where the merge `floor` holds one (item 8), so its
        // `float()` stays for the fuzzer's model (seed 712006 #1267); one of a float goes.
        for (src, casts) in [
            ("def f(p, c):\n    floor = p * 2 + min(3.5, -9223372036854775808)\n    if c > 5:\n        floor = floor - c\n    return float(floor + p) // (floor * c)\n", 1),
            ("def f(p, c):\n    floor = p * 2 + min(3.5, -9223372036854775808)\n    return float(floor / p) // c\n", 0),
        ] {
            let ir = format!("{}", crate::pipeline::testing::compiled(src).ir);
            assert_eq!(ir.matches("cast.float").count(), casts, "{ir}");
        }
    }
}
