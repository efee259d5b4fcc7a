//! Dead-code elimination: drops every instruction whose result cannot reach the return value,
//! including loop phis that only feed themselves and loops or branches left empty. An operation
//! that raises item 17's OverflowError at call time (an int beyond 64 bits meeting an array or a
//! float) stays, as CPython computes it even when its value is never read.

use std::cell::OnceCell;

use crate::analysis::ranges::{int_ranges, Range};
use crate::ir::{Block, Function, Inst, Kind, Op, Shape, Value};

/// Removes what cannot reach the return value.
pub fn run(func: &mut Function) {
    let mut live = vec![false; func.values.len()];
    for v in func.exit_values() {
        live[v.index()] = true;
    }
    // The int intervals are solved only when an operand could be a wide Python int (a float
    // body's never is): the solve is a tenth of a pass run's cost.
    let ranges = OnceCell::new();
    raising_roots(func, &func.body, &ranges, &mut live);
    // Liveness flows backwards and around loops: iterate to a fixpoint.
    loop {
        let before = live.iter().filter(|l| **l).count();
        mark(&func.body, &mut live);
        if live.iter().filter(|l| **l).count() == before {
            break;
        }
    }
    sweep(&mut func.body, &live);
}

fn mark(b: &Block, live: &mut [bool]) {
    for inst in b.insts.iter().rev() {
        match inst {
            Inst::Let { dst, op } => {
                // An element loop calls user code; it is pure by D7's contract, so it may go too.
                if live[dst.index()] {
                    for v in op.operands() {
                        live[v.index()] = true;
                    }
                }
            }
            Inst::Loop {
                phis, body, active, ..
            } => {
                // A data-dependent loop stays, as CPython runs it (D12: it may not terminate).
                if let Some(a) = active {
                    live[a.index()] = true;
                }
                for phi in phis {
                    if live[phi.dst.index()] {
                        live[phi.init.index()] = true;
                        live[phi.next.index()] = true;
                    }
                }
                mark(body, live);
            }
            Inst::If {
                cond,
                then,
                other,
                outs,
            } => {
                let mut any = false;
                for o in outs {
                    if live[o.dst.index()] {
                        live[o.then.index()] = true;
                        live[o.other.index()] = true;
                        any = true;
                    }
                }
                if any || has_live(then, live) || has_live(other, live) {
                    live[cond.index()] = true;
                }
                mark(then, live);
                mark(other, live);
            }
        }
    }
}

fn sweep(b: &mut Block, live: &[bool]) {
    b.insts.retain_mut(|inst| match inst {
        Inst::Let { dst, op } => live[dst.index()] || matches!(op, Op::Param(_)),
        Inst::Loop { phis, body, .. } => {
            phis.retain(|p| live[p.dst.index()]);
            sweep(body, live);
            !phis.is_empty()
        }
        Inst::If {
            outs, then, other, ..
        } => {
            outs.retain(|o| live[o.dst.index()]);
            sweep(then, live);
            sweep(other, live);
            !outs.is_empty() || !then.insts.is_empty() || !other.insts.is_empty()
        }
    });
}

/// Docs/semantics.md item 17: `a op b` where one operand is a Python int that may lie beyond 64
/// bits and the other an array or a float: the runtime raises OverflowError at call time (an
/// integer array cannot hold the result; a float conversion beyond the float range raises as in
/// CPython), so the operation is computed even when its value is dead (`v = 1e-300 + n % 2 **
/// 1100` in a `try` body, fuzz finding 520007 #1608). Marked live in the function's body and
/// the branches of its `if`s (a loop whose phis are all dead goes, with what it computes).
fn raising_roots(func: &Function, b: &Block, ranges: &OnceCell<Vec<Range>>, live: &mut [bool]) {
    let wide = |v: Value| {
        let info = func.info(v);
        matches!(info.kind, Kind::Int | Kind::Unknown)
            && info.shape == Shape::Scalar
            && !ranges.get_or_init(|| int_ranges(func))[v.index()]
                .is_some_and(|(lo, hi)| lo >= -(1i128 << 63) && hi < (1i128 << 64))
    };
    let meets = |v: Value| {
        let info = func.info(v);
        info.shape == Shape::Array || matches!(info.kind, Kind::Float | Kind::Unknown)
    };
    for inst in &b.insts {
        match inst {
            Inst::Let {
                dst,
                op: Op::Binary(_, a, c),
            } if (wide(*a) && meets(*c)) || (wide(*c) && meets(*a)) => live[dst.index()] = true,
            Inst::If { then, other, .. } => {
                raising_roots(func, then, ranges, live);
                raising_roots(func, other, ranges, live);
            }
            _ => {}
        }
    }
}

/// Whether `b` holds a live instruction (an `if` branch must stay for it).
fn has_live(b: &Block, live: &[bool]) -> bool {
    b.insts.iter().any(|inst| match inst {
        Inst::Let { dst, .. } => live[dst.index()],
        Inst::Loop { phis, body, .. } => {
            phis.iter().any(|p| live[p.dst.index()]) || has_live(body, live)
        }
        Inst::If {
            outs, then, other, ..
        } => {
            outs.iter().any(|o| live[o.dst.index()])
                || has_live(then, live)
                || has_live(other, live)
        }
    })
}

#[cfg(test)]
mod tests {
    use crate::pipeline::testing::ir_after;

    #[test]
    fn what_the_return_does_not_read_goes() {
        let src = "def f(x):\n    unused = x * 3.0\n    return x - 1.0\n";
        let before = ir_after(src, "cse").to_string();
        let after = ir_after(src, "dce").to_string();
        assert!(before.contains("const 3.0"), "{before}");
        assert!(!after.contains("const 3.0"), "{after}");
    }

    #[test]
    fn an_int_beyond_64_bits_meeting_an_array_stays_when_dead() {
        // Fuzz finding 520007 #1608: item 17's call-time OverflowError is raised.
        let src = "def f(n):\n    unused = 1e-300 + (0 - n) % 2 ** 1100\n    return 0\n";
        let after = ir_after(src, "dce").to_string();
        assert!(after.contains("mod"), "{after}");
        let src = "def f(n):\n    unused = (0 - n) % 7\n    return 0\n";
        let after = ir_after(src, "dce").to_string();
        assert!(!after.contains("mod"), "{after}");
    }
}
