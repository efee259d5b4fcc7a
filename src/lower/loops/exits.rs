//! `break` and `continue` (D12): a lane that reaches one leaves the rest of the iteration. As
//! with a `return` (`control`), the statements after it are still lowered for every lane; the
//! lanes that left are tracked as a mask ([`Exits`]), and the variables as they stood at each
//! `break`/`continue` are kept (a snapshot) and chosen for its lanes at the end of the body. A
//! lane that broke is inactive in the later iterations. A loop whose body breaks or continues is
//! a masked loop (`while_loop`), whatever its iteration.

use rustpython_parser::ast;

use crate::ir::{Const, LogicOp, Op, UnOp, Value};
use crate::lower::{Done, Flow, Frame, Lowerer, Var};
use crate::Map as HashMap;

/// How the lanes of the current iteration of the innermost loop left it.
#[derive(Debug, Clone)]
pub(in crate::lower) struct Exits {
    /// Lanes that left by `break` or `continue`, relative to the path as [`Done`] is.
    pub(in crate::lower) left: Done,
    /// Lanes that left by `break`.
    pub(in crate::lower) broke: Done,
    /// At each `break`/`continue`, in source order.
    pub(in crate::lower) snapshots: Vec<Snapshot>,
}

/// How the `Done` algebra built a mask.
#[derive(Debug, Clone, Copy)]
pub(in crate::lower) enum MaskOp {
    Not(Value),
    Or(Value, Value),
}

/// The state at a `break` or `continue`.
#[derive(Debug, Clone)]
pub(in crate::lower) struct Snapshot {
    /// The path condition there.
    cond: Option<Value>,
    /// A `break` (else a `continue`).
    brk: bool,
    vars: HashMap<String, Var>,
}

impl Default for Exits {
    fn default() -> Self {
        Exits {
            left: Done::Never,
            broke: Done::Never,
            snapshots: vec![],
        }
    }
}

impl Exits {
    /// The value `name` had at the first `break`/`continue` that had one.
    pub(in crate::lower) fn value_of(&self, name: &str) -> Option<Value> {
        self.snapshots.iter().find_map(|s| match s.vars.get(name) {
            Some(Var::Def(v)) => Some(*v),
            _ => None,
        })
    }
}

impl Flow {
    /// Whether no lane of the path runs the statements from here on (returned or left).
    pub(in crate::lower) fn ended(&self) -> bool {
        self.done == Done::Always || self.exits.left == Done::Always || self.dead
    }
}

impl Lowerer<'_> {
    /// `break` (`brk`) or `continue`: the lanes of the path still running leave the iteration.
    pub(in crate::lower) fn loop_exit(&mut self, frame: &mut Frame, brk: bool) {
        if !self.loops.in_loop() {
            return; // outside a loop: reported by validation
        }
        let flow = &frame.flow;
        let (done, left, broke) = (flow.done, flow.exits.left, flow.exits.broke);
        frame.flow.exits.snapshots.push(Snapshot {
            cond: frame.cond,
            brk,
            vars: frame.vars.clone(),
        });
        if brk {
            let not_done = self.done_not(done);
            let not_left = self.done_not(left);
            let leaving = self.done_and(not_done, not_left);
            frame.flow.exits.broke = self.done_or(broke, leaving);
        }
        let not_done = self.done_not(done);
        frame.flow.exits.left = self.done_or(left, not_done);
    }

    /// The lanes done after a `return`: those done before and those of the path still in the
    /// iteration (a lane that left by `break`/`continue` does not reach it).
    pub(in crate::lower) fn returning(&mut self, flow: &Flow) -> Done {
        let staying = self.done_not(flow.exits.left);
        self.done_or(flow.done, staying)
    }

    /// The lanes running here: on the path, not returned, not left the iteration (None: all).
    pub(in crate::lower) fn running(&mut self, frame: &Frame) -> Option<Value> {
        let stopped = self.done_or(frame.flow.done, frame.flow.exits.left);
        let live = match stopped {
            Done::Never => None,
            Done::Always => Some(self.konst(Const::Bool(false))),
            Done::Mask(m) => Some(self.emit(Op::Unary(UnOp::Not, m))),
        };
        self.and_opt(frame.cond, live)
    }

    /// At the end of a loop body: each carried variable as it stood where its lane left the
    /// iteration, or at the end for a lane that did not leave; the first exit reached wins.
    pub(in crate::lower) fn merge_exits(
        &mut self,
        exits: &Exits,
        carried: &[(String, Value)],
        vars: &mut HashMap<String, Var>,
    ) {
        for (name, _) in carried {
            let Some(Var::Def(mut acc)) = vars.get(name).copied() else {
                continue;
            };
            for s in exits.snapshots.iter().rev() {
                let Some(Var::Def(v)) = s.vars.get(name).copied() else {
                    continue;
                };
                if v != acc {
                    acc = match s.cond {
                        Some(c) => self.select(c, v, acc),
                        None => v,
                    };
                }
            }
            if let Some(Var::Def(end)) = vars.get(name) {
                if *end != acc && self.f.info(acc).hint.is_none() {
                    self.f.values[acc.index()].hint = Some(hint_of(name));
                }
            }
            vars.insert(name.clone(), Var::Def(acc));
        }
    }

    /// After a masked loop: each variable first assigned in it (`phis` of names in `first`) stays
    /// defined when every lane that can leave the loop assigned it first: at each `break`, and at
    /// the end of the body or a `continue` when lanes leave the loop there (`normal`: the end of
    /// the body's variables; None when no lane leaves other than by `break` or `return`).
    /// `ends_normally` says whether lanes leave by the test (a `while`, a per-lane range), which
    /// no variable first assigned in the loop is sure to be assigned for. A variable assigned at
    /// every `break` only is returned (the loop's `else:` clause may define it on the other
    /// lanes, `loop_else`); the others not defined become undefined.
    #[allow(clippy::too_many_arguments)]
    pub(in crate::lower) fn vars_after_exits(
        &mut self,
        frame: &mut Frame,
        exits: &Exits,
        normal: Option<&HashMap<String, Var>>,
        ends_normally: bool,
        phis: &[(String, Value)],
        first: &[String],
    ) -> Vec<String> {
        let assigned = |vars: &HashMap<String, Var>, name: &str, dst: Value| matches!(vars.get(name), Some(Var::Def(v)) if *v != dst);
        let breaks = exits.snapshots.iter().any(|s| s.brk);
        let mut broke_only = vec![];
        for (name, dst) in phis {
            if !first.contains(name) {
                continue;
            }
            let at_breaks = exits
                .snapshots
                .iter()
                .filter(|s| s.brk)
                .all(|s| assigned(&s.vars, name, *dst));
            let at_end = !ends_normally
                && normal.is_none_or(|end| {
                    assigned(end, name, *dst)
                        && exits
                            .snapshots
                            .iter()
                            .filter(|s| !s.brk)
                            .all(|s| assigned(&s.vars, name, *dst))
                });
            if at_breaks && at_end {
                continue;
            }
            if breaks && at_breaks {
                broke_only.push(name.clone());
            }
            // D20: the loop's value stays; its flag says on which lanes it is bound.
            if self.tracks(name) {
                continue;
            }
            frame.vars.insert(name.clone(), Var::MaybeUndef);
        }
        broke_only
    }

    /// A loop's `else:` clause: run on the lanes that did not break (`broke`: the loop's phi of
    /// those that did, when it has a `break`). `broke_only` (with their phis) are defined on the
    /// lanes that broke only: defined after the clause if it defines them for the others.
    pub(in crate::lower) fn loop_else(
        &mut self,
        frame: &mut Frame,
        orelse: &[ast::Stmt],
        broke: Option<Value>,
        broke_only: &[(String, Value)],
    ) {
        let Some(b) = broke.filter(|_| !orelse.is_empty()) else {
            self.body(frame, orelse);
            return;
        };
        let mut saved_vars = frame.vars.clone();
        for (name, phi) in broke_only {
            saved_vars.insert(name.clone(), Var::Def(*phi));
        }
        let saved_flow = frame.flow.clone();
        let saved_cond = frame.cond;
        let not_broke = self.emit(Op::Unary(UnOp::Not, b));
        frame.cond = Some(self.and_path(saved_cond, not_broke));
        self.body(frame, orelse);
        let else_vars = std::mem::replace(&mut frame.vars, saved_vars.clone());
        let else_flow = std::mem::replace(&mut frame.flow, saved_flow.clone());
        frame.cond = saved_cond;
        let prefix = (saved_flow.returns.len(), saved_flow.exits.snapshots.len());
        frame.vars = self.merge_vars(
            &else_vars,
            &else_flow,
            &saved_vars,
            &saved_flow,
            |l, t, e| l.select(not_broke, t, e),
        );
        frame.flow = self.merge_flow(not_broke, b, else_flow, saved_flow, prefix);
    }

    /// `Done` algebra: the lanes not in `a`.
    pub(in crate::lower) fn done_not(&mut self, a: Done) -> Done {
        match a {
            Done::Never => Done::Always,
            Done::Always => Done::Never,
            Done::Mask(m) => {
                let v = self.emit(Op::Unary(UnOp::Not, m));
                self.loops.function.mask_ops.insert(v, MaskOp::Not(m));
                Done::Mask(v)
            }
        }
    }

    /// `Done` algebra: the lanes in `a` or `b`.
    pub(in crate::lower) fn done_or(&mut self, a: Done, b: Done) -> Done {
        match (a, b) {
            (Done::Always, _) | (_, Done::Always) => Done::Always,
            (Done::Never, x) | (x, Done::Never) => x,
            (Done::Mask(x), Done::Mask(y)) => {
                let v = self.emit(Op::Logic(LogicOp::Or, x, y));
                self.loops.function.mask_ops.insert(v, MaskOp::Or(x, y));
                Done::Mask(v)
            }
        }
    }

    /// Whether every lane of the path has returned or left the iteration, though neither
    /// `done` nor `left` alone says so (`Flow::ended`): some lanes `continue`d and the others
    /// then returned, so that `done | left` holds a mask and its negation. The statements
    /// after are dead for every lane, like those after a `return` that covers all: lowering
    /// them would only report names the dead path leaves undefined.
    /// Whether the statements from here on are dead ([`Flow::ended`]), marking the flow
    /// `dead` when [`Self::stopped`] finds it so.
    pub(in crate::lower) fn ends_here(&self, flow: &mut Flow) -> bool {
        if !flow.ended() && self.stopped(flow) {
            flow.dead = true;
        }
        flow.ended()
    }

    pub(in crate::lower) fn stopped(&self, flow: &Flow) -> bool {
        let (Done::Mask(done), Done::Mask(left)) = (flow.done, flow.exits.left) else {
            return false;
        };
        let mut atoms = vec![];
        self.disjuncts(done, &mut atoms);
        self.disjuncts(left, &mut atoms);
        atoms
            .iter()
            .any(|a| match self.loops.function.mask_ops.get(a) {
                // `not m` with `m` (or every part of an `or` that makes it) among the atoms too.
                Some(MaskOp::Not(m)) => {
                    let mut parts = vec![];
                    self.disjuncts(*m, &mut parts);
                    atoms.contains(m) || parts.iter().all(|p| atoms.contains(p))
                }
                _ => false,
            })
    }

    /// The masks `m` is the `or` of (itself when it is no `or` the `Done` algebra made).
    fn disjuncts(&self, m: Value, out: &mut Vec<Value>) {
        match self.loops.function.mask_ops.get(&m) {
            Some(MaskOp::Or(a, b)) => {
                self.disjuncts(*a, out);
                self.disjuncts(*b, out);
            }
            _ => out.push(m),
        }
    }

    /// `Done` algebra: the lanes in `a` and `b`.
    pub(in crate::lower) fn done_and(&mut self, a: Done, b: Done) -> Done {
        match (a, b) {
            (Done::Never, _) | (_, Done::Never) => Done::Never,
            (Done::Always, x) | (x, Done::Always) => x,
            (Done::Mask(x), Done::Mask(y)) => Done::Mask(self.emit(Op::Logic(LogicOp::And, x, y))),
        }
    }

    /// `Done` as an absolute mask under `path` (None: every lane of the path); None for `Never`.
    pub(in crate::lower) fn done_mask(&mut self, path: Option<Value>, d: Done) -> Option<Value> {
        match d {
            Done::Never => None,
            Done::Always => Some(path.unwrap_or_else(|| self.konst(Const::Bool(true)))),
            Done::Mask(m) => Some(self.and_path(path, m)),
        }
    }
}

/// The name a carried variable's values are given in the generated code.
pub(in crate::lower) fn hint_of(name: &str) -> String {
    name.replace('.', "_")
}

/// Whether `body` breaks or continues the loop it is the body of (not a nested loop).
pub(in crate::lower) fn has_exit(body: &[ast::Stmt], brk: bool, cont: bool) -> bool {
    body.iter().any(|s| match s {
        ast::Stmt::Break(_) => brk,
        ast::Stmt::Continue(_) => cont,
        ast::Stmt::If(i) => has_exit(&i.body, brk, cont) || has_exit(&i.orelse, brk, cont),
        // A nested loop's `else:` runs in this loop's iteration.
        ast::Stmt::For(f) => has_exit(&f.orelse, brk, cont),
        ast::Stmt::While(w) => has_exit(&w.orelse, brk, cont),
        _ => false,
    })
}

#[cfg(test)]
mod tests {
    use crate::pipeline::testing::{errors, lowered};

    #[test]
    fn a_counted_loop_that_breaks_carries_an_activity_mask() {
        let ir = lowered(
            "def f(x):\n    for k in range(5):\n        if x * k > 3.0:\n            break\n    return k\n",
        );
        // The mask is a bool phi of the counted loop, and the index after it is per lane.
        assert!(ir.contains("for %") && ir.contains("bool = phi("), "{ir}");
        assert!(ir.contains("int = select "), "{ir}");
        assert!(!ir.contains("while any("), "{ir}");
    }

    #[test]
    fn a_variable_assigned_after_a_continue_is_unbound_on_the_lanes_that_skipped_it() {
        // D20: the lanes that always continued raise UnboundLocalError at the read.
        let c = crate::pipeline::testing::compiled(
            "def f(x):\n    for k in range(3):\n        if x > k:\n            continue\n        y = x\n    return y\n",
        );
        assert!(
            c.source.contains("_vec_unbound('y', False)"),
            "{}",
            c.source
        );
    }

    #[test]
    fn a_variable_set_before_each_break_and_in_the_else_clause_is_defined() {
        let ir = lowered(
            "def f(x):\n    for k in range(4):\n        if k * k > x:\n            found = k\n            break\n    else:\n        found = -1\n    return found\n",
        );
        // The activity mask and the lanes that broke (which the `else:` clause skips).
        assert_eq!(ir.matches("bool = phi(").count(), 2, "{ir}");
    }

    #[test]
    fn break_outside_a_loop_is_reported() {
        let e = errors("def f(x):\n    while x > 0.0:\n        x = x - 1.0\n    else:\n        break\n    return x\n");
        assert!(e.iter().any(|m| m.contains("inside a loop")), "{e:?}");
    }
}
