//! Common-subexpression elimination: an operation computed again over the same operands reuses
//! the first result. Scoped by block: a value defined inside a loop or branch is not visible after
//! it, while values from enclosing blocks are visible inside.

use crate::Map as HashMap;

use crate::ir::{Block, Function, Inst, OpKey, Value};

/// Replaces each repeated operation by its first result.
pub fn run(func: &mut Function) {
    let mut map: HashMap<Value, Value> = HashMap::default();
    let mut body = std::mem::take(&mut func.body);
    block(&mut body, &HashMap::default(), &mut map);
    func.body = body;
    super::rename_all(func, &map);
}

fn block(b: &mut Block, outer: &HashMap<OpKey, Value>, map: &mut HashMap<Value, Value>) {
    let mut seen = outer.clone();
    for inst in &mut b.insts {
        match inst {
            Inst::Let { dst, op } => {
                *op = op.map_operands(|v| super::resolve(map, v));
                let Some(key) = op.cse_key() else { continue };
                match seen.get(&key) {
                    Some(&first) => {
                        map.insert(*dst, first);
                    }
                    None => {
                        seen.insert(key, *dst);
                    }
                }
            }
            Inst::Loop { phis, body, .. } => {
                for phi in phis.iter_mut() {
                    phi.init = super::resolve(map, phi.init);
                }
                block(body, &seen, map);
            }
            Inst::If {
                cond, then, other, ..
            } => {
                *cond = super::resolve(map, *cond);
                block(then, &seen, map);
                block(other, &seen, map);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::ir::{walk_insts, BinOp, Inst, Op};
    use crate::testing::ir_after;

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
}
