//! `while` loops (D12): a data-dependent loop run per lane with an activity mask. The lanes
//! active on entry are those on the current path, not yet returned, whose test holds; each
//! iteration's assignments apply only to the active lanes (`where(active, new, old)`), a lane
//! that returns leaves, and the test is evaluated again on the updated values. The loop runs
//! while any lane is active (`while _vec_any(xp, active):` in the generated code), so each lane
//! takes exactly the iterations CPython takes for it, and one CPython loops on forever loops
//! forever here too. The loop itself is the `for` loop's machinery (`loops`): carried variables
//! become phis whose kinds settle over attempts; this file adds the mask.

use rustpython_parser::ast;

use super::loops::LoopSpec;
use super::{Done, Flow, Frame, Lowerer, Var};
use crate::diagnostics::DiagnosticKind;
use crate::ir::{Block, Kind, LogicOp, Op, Shape, UnOp, Value};
use crate::Map as HashMap;

impl Lowerer<'_> {
    /// A `while` statement (D12).
    pub(super) fn while_stmt(&mut self, frame: &mut Frame, w: &ast::StmtWhile, stmt: &ast::Stmt) {
        let diag_mark = self.diags.len();
        let v = self.expr(frame, &w.test);
        let test = self.condition(frame, &w.test, v);
        if self.poisoned.contains(&test) || self.diags.len() > diag_mark {
            return;
        }
        if let Some(c) = self.const_of(test) {
            if !crate::ir::eval::truthy(&c) {
                return;
            }
        }
        if is_forever(&w.test) && !contains_exit(&w.body) {
            self.error_at(
                frame,
                DiagnosticKind::UnsupportedLoop,
                "this `while` loop has no `return` in its body, so it never ends; add a `return` (D12)".into(),
                stmt,
            );
            return;
        }
        let live = match frame.flow.done {
            Done::Mask(m) => Some(self.emit(Op::Unary(UnOp::Not, m))),
            _ => None,
        };
        let path = self.and_opt(frame.cond, live);
        let mut init = self.and_path(path, test);
        if self.shape(init) == Shape::Scalar {
            init = self.emit(Op::AsArray(init));
        }
        let mut spec = self.carried_spec(frame, String::new(), (0, 1, 1), None, &w.body);
        spec.test = Some((&w.test, init));
        self.lower_loop(frame, spec, stmt);
    }

    /// The phi of the active lanes of a `while` loop, made the path condition of its body.
    pub(super) fn enter_while(&mut self, frame: &mut Frame) -> Value {
        let a = self
            .f
            .new_value(Kind::Bool, Shape::Array, Some("active".into()));
        frame.cond = Some(a);
        a
    }

    /// At the end of a `while` body (emitted into `block`): the carried variables and the lanes
    /// done updated on the active lanes only, and the lanes active in the next iteration (still
    /// active, not returned, test true on the updated values).
    #[allow(clippy::too_many_arguments)]
    pub(super) fn mask_iteration(
        &mut self,
        frame: &mut Frame,
        block: &mut Block,
        (test, active): (&ast::Expr, Value),
        phis: &[(String, Value)],
        done_phi: Option<Value>,
        body_vars: &mut HashMap<String, Var>,
        body_flow: &mut Flow,
    ) -> Value {
        self.in_block(block, |l| {
            for (name, dst) in phis {
                if let Some(Var::Def(v)) = body_vars.get(name).copied() {
                    if v != *dst {
                        let masked = l.select(active, v, *dst);
                        if l.f.info(masked).hint.is_none() {
                            l.f.values[masked.index()].hint = Some(name.clone());
                        }
                        body_vars.insert(name.clone(), Var::Def(masked));
                    }
                }
            }
            let mut still = active;
            if let Some(d) = done_phi {
                let done = match body_flow.done {
                    Done::Mask(m) => l.select(active, m, d),
                    Done::Always => l.emit(Op::Logic(LogicOp::Or, active, d)),
                    Done::Never => d,
                };
                body_flow.done = Done::Mask(done);
                let not_done = l.emit(Op::Unary(UnOp::Not, done));
                still = l.emit(Op::Logic(LogicOp::And, active, not_done));
            }
            frame.vars = body_vars.clone();
            let v = l.expr(frame, test);
            let cond = l.condition(frame, test, v);
            let next = l.and_path(Some(still), cond);
            if l.shape(next) == Shape::Scalar {
                l.emit(Op::AsArray(next))
            } else {
                next
            }
        })
    }

    /// The state after a `while` loop: variables first assigned in it may be undefined (a lane
    /// may never have entered it), and the loop's returns follow those before it. A `while
    /// True:` loop ends only when every lane has returned.
    pub(super) fn exit_while(
        &mut self,
        frame: &mut Frame,
        spec: &LoopSpec,
        first_assigned: &[String],
        outer_flow: &Flow,
        done_phi: Option<Value>,
        ret_phi: Option<Value>,
    ) {
        let (test, _) = spec.test.expect("a while loop has a test");
        let forever = is_forever(test);
        if !forever {
            for name in first_assigned {
                frame.vars.insert(name.clone(), Var::MaybeUndef);
            }
        }
        if let (Some(d), Some(r)) = (done_phi, ret_phi) {
            let returns = self.returns_after(&outer_flow.returns, frame.cond, Some(d), r);
            let done = if forever { Done::Always } else { Done::Mask(d) };
            frame.flow = Flow { done, returns };
        }
    }
}

/// Whether a loop test is a constant Python takes as true (`while True:`, `while 1:`).
fn is_forever(test: &ast::Expr) -> bool {
    match test {
        ast::Expr::Constant(c) => match &c.value {
            ast::Constant::Bool(b) => *b,
            ast::Constant::Int(i) => i.to_string() != "0",
            _ => false,
        },
        _ => false,
    }
}

/// Whether `body` can leave the loop other than by its test: a `return` anywhere in it.
fn contains_exit(body: &[ast::Stmt]) -> bool {
    body.iter().any(|s| match s {
        ast::Stmt::Return(_) => true,
        ast::Stmt::If(i) => contains_exit(&i.body) || contains_exit(&i.orelse),
        ast::Stmt::For(f) => contains_exit(&f.body),
        ast::Stmt::While(w) => contains_exit(&w.body),
        _ => false,
    })
}
