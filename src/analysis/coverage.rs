//! Shape coverage: which declared parameters' shapes a value is sure to carry at run time.

use crate::ir::{Block, Function, Inst, Op, Shape, Value};

/// A set of declared parameters, as a bit mask (parameter `i` is bit `i`).
pub type Params = u64;

/// The declared parameters whose shape `v` is sure to carry at run time, whichever path the
/// values take: an operation broadcasts its operands' shapes (their union; a helper's generated
/// function broadcasts its result to its arguments' shapes, D7); constants, 0-d
/// arrays and placeholders carry none; a Python-level merge (a scalar `if`, a ternary on a
/// scalar condition) carries what both sides carry; a loop variable, inside the loop, what its
/// initial and next values carry, and after the loop (which runs at least once, D6) what the
/// last `next` carries.
pub fn shaped_by(f: &Function, v: Value) -> Params {
    let mut g: Vec<Params> = vec![0; f.values.len()];
    shaped_block(f, &f.body, &mut g);
    g[v.index()]
}

/// Walks the structure itself rather than through `ir::walk_steps`: each loop's body is walked
/// again until its phis settle, a fixpoint per loop that a single walk cannot express.
fn shaped_block(f: &Function, block: &Block, g: &mut Vec<Params>) {
    for inst in &block.insts {
        match inst {
            Inst::Let { dst, op } => {
                let s = match op {
                    Op::Param(i) if *i < f.declared_params && *i < 64 => 1u64 << i,
                    Op::Param(_) | Op::Const(_) | Op::AsArray(_) | Op::Placeholder(_) => 0,
                    Op::Broadcast(_) => u64::MAX,
                    Op::Select(c, a, b) if f.info(*c).shape == Shape::Scalar => {
                        g[a.index()] & g[b.index()]
                    }
                    _ => op.operands().iter().fold(0, |acc, o| acc | g[o.index()]),
                };
                g[dst.index()] = s;
            }
            Inst::Loop {
                phis, body, active, ..
            } => {
                for p in phis {
                    g[p.dst.index()] = g[p.init.index()];
                }
                // Inside the loop a variable is its initial value or a later one: shrink to
                // what all of them carry (the sets only shrink, so this ends).
                loop {
                    shaped_block(f, body, g);
                    let mut changed = false;
                    for p in phis {
                        let both = g[p.init.index()] & g[p.next.index()];
                        if both != g[p.dst.index()] {
                            g[p.dst.index()] = both;
                            changed = true;
                        }
                    }
                    if !changed {
                        break;
                    }
                }
                // A data-dependent loop may run zero times (D12): after it a variable is its
                // initial value or a later one, as inside.
                if active.is_some() {
                    continue;
                }
                // Read before any is written: one phi's `next` may be another's `dst`.
                let after: Vec<Params> = phis.iter().map(|p| g[p.next.index()]).collect();
                for (p, s) in phis.iter().zip(after) {
                    g[p.dst.index()] = s;
                }
            }
            Inst::If {
                then, other, outs, ..
            } => {
                shaped_block(f, then, g);
                shaped_block(f, other, g);
                for o in outs {
                    g[o.dst.index()] = g[o.then.index()] & g[o.other.index()];
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pipeline::testing::ir_after;

    #[test]
    fn a_result_carries_the_shapes_of_the_parameters_it_reads() {
        let f = ir_after("def f(x, y):\n    return x * 2.0 + y\n", "legalize");
        assert_eq!(shaped_by(&f, f.ret[0]), 0b11);
        let g = ir_after("def f(x, y):\n    return x * 2.0\n", "legalize");
        assert_eq!(shaped_by(&g, g.ret[0]), 0b01);
        let h = ir_after("def f(x):\n    return 1.0\n", "legalize");
        assert_eq!(shaped_by(&h, h.ret[0]), 0);
    }
}
