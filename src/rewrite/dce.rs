//! Dead-code elimination: drops every instruction whose result cannot reach the return value,
//! including loop phis that only feed themselves and loops or branches left empty.

use crate::ir::{retain_insts, walk_insts_rev, Block, Function, Inst, Op};

/// Removes what cannot reach the return value.
pub fn run(func: &mut Function) {
    let mut live = vec![false; func.values.len()];
    for v in func.exit_values() {
        live[v.index()] = true;
    }
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

/// Marks what the live values read, last instruction first (liveness flows backwards).
fn mark(b: &Block, live: &mut [bool]) {
    walk_insts_rev(b, &mut |inst| match inst {
        Inst::Let { dst, op } => {
            // An element loop calls user code; it is pure by D7's contract, so it may go too.
            if live[dst.index()] {
                for v in op.operands() {
                    live[v.index()] = true;
                }
            }
        }
        Inst::Loop { phis, active, .. } => {
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
        }
        Inst::If { cond, outs, .. } => {
            let mut any = false;
            for o in outs {
                if live[o.dst.index()] {
                    live[o.then.index()] = true;
                    live[o.other.index()] = true;
                    any = true;
                }
            }
            if any {
                live[cond.index()] = true;
            }
        }
    });
}

/// Drops the instructions that define nothing live; a loop or branch left without a phi or a
/// merged value goes too.
fn sweep(b: &mut Block, live: &[bool]) {
    retain_insts(b, &mut |inst| match inst {
        Inst::Let { dst, op } => live[dst.index()] || matches!(op, Op::Param(_)),
        Inst::Loop { phis, .. } => {
            phis.retain(|p| live[p.dst.index()]);
            !phis.is_empty()
        }
        Inst::If { outs, .. } => {
            outs.retain(|o| live[o.dst.index()]);
            !outs.is_empty()
        }
    });
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
}
