//! The value a data-dependent loop (D12) returns early, read from the variable that holds it.
//!
//! A masked loop whose body returns carries the returned value in a phi of its own,
//! `result = where(done, result, v)`, every iteration, and after the loop reads it as
//! `where(done, result, ...)`. When the body also assigns `v` to a carried variable `x`
//! (`x = x - step; if ...: return x`), `x = where(active, v, x)` holds the same value on every
//! lane that returned: a lane turns done only in an iteration where it is active
//! (`done' = where(active, m, done)`), so `x` takes that iteration's `v`, exactly what
//! `result` takes (the lane was not done before); afterwards it is never active again (the next
//! mask excludes the done lanes), so neither changes. With no lane done before the loop, the
//! reads of `result` on done lanes after it may read `x` instead: `where(done, x, x)` folds to
//! `x`, and the `result` phi, read by nothing else, is dead code. Likewise two float variables
//! `x`, `y` both updated as `where(active, v, .)` from the same `v` hold the same value on every
//! lane that was active at least once (each took `v` in that lane's last active iteration), which
//! every done lane was: `where(done, y, x)` after the loop is `x`. All are floats (one dtype);
//! the values are copied, never recomputed, so every bit is the same.

use crate::Map as HashMap;

use crate::ir::{
    walk_blocks_mut, Block, Const, Function, Inst, Kind, LogicOp, Op, Phi, UnOp, Value,
};

/// How deep the mask checks follow `and`/`where` chains.
const DEPTH: usize = 16;

/// Rewrites the reads described above; whether any was rewritten.
pub fn run(func: &mut Function) -> bool {
    // Only the reads after a data-dependent loop change: without one, nothing to copy.
    let mut masked = false;
    crate::ir::walk_insts(&func.body, &mut |inst| {
        masked |= matches!(
            inst,
            Inst::Loop {
                active: Some(_),
                ..
            }
        );
    });
    if !masked {
        return false;
    }
    let mut defs: HashMap<Value, Op> = HashMap::default();
    crate::ir::walk_insts(&func.body, &mut |inst| {
        if let Inst::Let { dst, op } = inst {
            defs.insert(*dst, op.clone());
        }
    });
    let mut body = std::mem::take(&mut func.body);
    let facts = Facts {
        func: &*func,
        defs: &defs,
    };
    let changed = rewrite_block(&facts, &mut body);
    func.body = body;
    changed
}

struct Facts<'a> {
    func: &'a Function,
    defs: &'a HashMap<Value, Op>,
}

fn rewrite_block(facts: &Facts, block: &mut Block) -> bool {
    let mut changed = false;
    walk_blocks_mut(block, &mut |b| changed |= rewrite_after_loops(facts, b));
    changed
}

/// In `block` itself (its nested blocks aside): the `where` after each data-dependent loop
/// that reads a phi holding the same value as another on its lanes.
fn rewrite_after_loops(facts: &Facts, block: &mut Block) -> bool {
    let mut changed = false;
    for i in 0..block.insts.len() {
        let Inst::Loop {
            phis,
            active: Some(active),
            ..
        } = &block.insts[i]
        else {
            continue;
        };
        let same = facts.loop_values(phis, *active);
        for inst in &mut block.insts[i + 1..] {
            if let Inst::Let {
                op: Op::Select(c, a, b),
                ..
            } = inst
            {
                if let Some(x) = same.replacement(facts, *c, *a, *b) {
                    *a = x;
                    changed = true;
                }
            }
        }
    }
    changed
}

/// What one loop's phis hold on its done lanes.
struct LoopValues {
    /// Done phis: no lane done on entry, a lane turns done only while active.
    dones: Vec<Value>,
    /// Float phis updated from a value `v`: `where(active, v, x)` (None), or the returned value's
    /// `where(done, r, v)` (Some(done), whose lanes the next mask excludes).
    from: HashMap<Value, (Value, Option<Value>)>,
}

impl LoopValues {
    /// What to read instead of `a` in `where(c, a, b)` after the loop: `b` when it holds the
    /// same value on the lanes of `c`, else (for the returned value's phi) a variable that does.
    fn replacement(&self, facts: &Facts, c: Value, a: Value, b: Value) -> Option<Value> {
        let &(v, own) = self.from.get(&a)?;
        let in_done = |d: Value| facts.within(c, d, DEPTH);
        let covered = |own: Option<Value>| match own {
            Some(d) => in_done(d),
            None => self.dones.iter().any(|&d| in_done(d)),
        };
        if !covered(own) {
            return None;
        }
        if let Some(&(vb, own_b)) = self.from.get(&b) {
            if vb == v && covered(own_b) && a != b {
                return Some(b);
            }
        }
        own?;
        // The first such variable (by value number: the map's order is not the program's).
        self.from
            .iter()
            .filter(|(_, &(w, o))| w == v && o.is_none())
            .map(|(&x, _)| x)
            .min_by_key(|x| x.index())
    }
}

impl Facts<'_> {
    fn def(&self, v: Value) -> Option<&Op> {
        self.defs.get(&v)
    }

    /// The done phis and float phis of a loop with phis `phis` and active phi `a`.
    fn loop_values(&self, phis: &[Phi], a: Value) -> LoopValues {
        let phi = |v: Value| phis.iter().find(|p| p.dst == v);
        let mut out = LoopValues {
            dones: vec![],
            from: HashMap::default(),
        };
        let Some(active) = phi(a) else {
            return out;
        };
        let mut exclusive = vec![];
        for d in phis.iter().filter(|p| p.dst != a) {
            let turns_when_active = d.next == d.dst
                || matches!(self.def(d.next), Some(&Op::Select(c, _, old)) if c == a && old == d.dst)
                || matches!(self.def(d.next), Some(&Op::Logic(LogicOp::Or, p, q)) if (p, q) == (a, d.dst) || (p, q) == (d.dst, a));
            if turns_when_active && self.all_false(d.init, DEPTH) {
                out.dones.push(d.dst);
                if self.excludes(active.next, d.next, DEPTH) {
                    exclusive.push(d.dst);
                }
            }
        }
        for x in phis.iter().filter(|p| self.kind(p.dst) == Kind::Float) {
            match self.def(x.next) {
                Some(&Op::Select(c, v, old)) if c == a && old == x.dst => {
                    out.from.insert(x.dst, (v, None));
                }
                Some(&Op::Select(d, keep, v)) if keep == x.dst && exclusive.contains(&d) => {
                    out.from.insert(x.dst, (v, Some(d)));
                }
                _ => {}
            }
        }
        out
    }

    fn kind(&self, v: Value) -> Kind {
        self.func.info(v).kind
    }

    /// Whether `v` is false on every lane (a constant `False`, as an array or not).
    fn all_false(&self, v: Value, depth: usize) -> bool {
        match self.def(v) {
            Some(Op::Const(Const::Bool(false))) => true,
            Some(&Op::AsArray(w)) if depth > 0 => self.all_false(w, depth - 1),
            _ => false,
        }
    }

    /// Whether mask `m` is false on every lane where `done` is true: a conjunct `not done`, or
    /// all false, through `and`s and the sides of `where`s.
    fn excludes(&self, m: Value, done: Value, depth: usize) -> bool {
        if depth == 0 {
            return false;
        }
        match self.def(m) {
            Some(&Op::Unary(UnOp::Not, w)) => w == done,
            Some(&Op::Logic(LogicOp::And, p, q)) => {
                self.excludes(p, done, depth - 1) || self.excludes(q, done, depth - 1)
            }
            Some(&Op::Select(_, p, q)) => {
                self.excludes(p, done, depth - 1) && self.excludes(q, done, depth - 1)
            }
            _ => self.all_false(m, depth),
        }
    }

    /// Whether mask `c` is true only where `done` is: `done` itself, or a conjunction with it.
    fn within(&self, c: Value, done: Value, depth: usize) -> bool {
        if c == done {
            return true;
        }
        match self.def(c) {
            Some(&Op::Logic(LogicOp::And, p, q)) if depth > 0 => {
                self.within(p, done, depth - 1) || self.within(q, done, depth - 1)
            }
            _ => false,
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::pipeline::testing::ir_after;

    const NEWTON: &str = "def f(a):\n    x = a\n    n = 0\n    while n < 40:\n        y = 0.5 * (x + a / x)\n        if abs(y - x) <= 1e-15 * abs(x):\n            return y\n        x = y\n        n += 1\n    return x\n";

    #[test]
    fn the_value_returned_early_is_read_from_the_variable_holding_it() {
        let ir = ir_after(NEWTON, "float dce").to_string();
        assert!(!ir.contains("placeholder"), "the result phi is gone:\n{ir}");
    }

    #[test]
    fn a_value_no_variable_holds_keeps_its_phi() {
        let src = "def f(a):\n    x = a\n    n = 0\n    while n < 20:\n        x = x * 0.5\n        if abs(x) < 1.0:\n            return x + 1.0\n        n += 1\n    return x\n";
        let ir = ir_after(src, "float dce").to_string();
        assert!(ir.contains("placeholder"), "{ir}");
    }

    #[test]
    fn returns_before_the_loop_keep_the_phi() {
        // Lanes done before the loop returned another value: no variable holds it.
        let src = "def f(a):\n    if a < 0.0:\n        return -0.0\n    x = a\n    k = 0\n    while k < 25:\n        x = x * 0.75\n        if x < 1.0:\n            return x\n        k += 1\n    return -x\n";
        let ir = ir_after(src, "float dce").to_string();
        assert!(
            ir.contains("result") || ir.matches("phi(").count() >= 4,
            "{ir}"
        );
    }
}
