//! Constant folding (what [`crate::ir::eval`] computes exactly like CPython), and simplifications
//! that keep values exact.

use crate::Map as HashMap;

use crate::ir::eval::fold_op;
use crate::ir::{
    const_kind, result_kind, Block, CastOp, Const, Function, Inst, Kind, LogicOp, Op, UnOp, Value,
};

/// Folds constants and simplifies, in program order.
pub fn run(func: &mut Function) {
    let mut consts: HashMap<Value, Const> = HashMap::default();
    let mut map: HashMap<Value, Value> = HashMap::default();
    let mut body = std::mem::take(&mut func.body);
    fold_block(func, &mut body, &mut consts, &mut map);
    func.body = body;
    super::rename_all(func, &map);
}

fn fold_block(
    func: &mut Function,
    block: &mut Block,
    consts: &mut HashMap<Value, Const>,
    map: &mut HashMap<Value, Value>,
) {
    for inst in &mut block.insts {
        match inst {
            Inst::Let { dst, op } => {
                *op = op.map_operands(|v| super::resolve(map, v));
                // An operand replaced by a value of another kind (`1 if c else 1.0` folded to
                // `1`) changes this value's kind: the simplifications below read it.
                if !matches!(op, Op::Param(_) | Op::Placeholder(_)) {
                    let values = &func.values;
                    let k = result_kind(op, &|v: Value| values[v.index()].kind, &[]);
                    func.values[dst.index()].kind = k;
                }
                if let Op::Const(c) = op {
                    consts.insert(*dst, c.clone());
                    continue;
                }
                let folded = fold_op(op, &|v| consts.get(&v).cloned());
                if let Some(c) = folded {
                    func.values[dst.index()].kind = const_kind(&c);
                    consts.insert(*dst, c.clone());
                    *op = Op::Const(c);
                    continue;
                }
                if let Some(v) = simplify(func, op, &|v| consts.get(&v).cloned()) {
                    map.insert(*dst, v);
                }
            }
            Inst::Loop { phis, body, .. } => {
                for phi in phis.iter_mut() {
                    phi.init = super::resolve(map, phi.init);
                }
                // Phis vary per iteration: never constants, even when initialised by one.
                fold_block(func, body, consts, map);
            }
            Inst::If {
                cond, then, other, ..
            } => {
                *cond = super::resolve(map, *cond);
                fold_block(func, then, consts, map);
                fold_block(func, other, consts, map);
            }
        }
    }
}

/// Replaces an operation by an existing value when that is exact for every input.
fn simplify(func: &Function, op: &Op, konst: &impl Fn(Value) -> Option<Const>) -> Option<Value> {
    let kind = |v: Value| func.info(v).kind;
    match op {
        Op::Select(c, a, b) => match konst(*c) {
            Some(Const::Bool(true)) => Some(*a),
            Some(Const::Bool(false)) => Some(*b),
            _ if a == b => Some(*a),
            _ => None,
        },
        Op::Cast(CastOp::Float, v) if kind(*v) == Kind::Float => Some(*v),
        Op::Cast(CastOp::Int | CastOp::Round, v) if kind(*v) == Kind::Int => Some(*v),
        Op::Cast(CastOp::Bool, v) if kind(*v) == Kind::Bool => Some(*v),
        Op::Unary(UnOp::Pos, v) if matches!(kind(*v), Kind::Int | Kind::Float) => Some(*v),
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
    use crate::testing::ir_after;

    #[test]
    fn a_conversion_to_the_kind_a_value_has_goes() {
        let f = ir_after("def f(x):\n    return float(x * 1.5)\n", "fold");
        let mut ret_op = None;
        walk_insts(&f.body, &mut |inst| {
            if let Inst::Let { dst, op } = inst {
                if *dst == f.ret {
                    ret_op = Some(op.clone());
                }
            }
        });
        assert!(!matches!(ret_op, Some(Op::Cast(CastOp::Float, _))), "{f}");
    }
}
