//! `while` loops (D12): a data-dependent loop run per lane with an activity mask. The lanes
//! active on entry are those on the current path still running (not returned, not left an
//! enclosing loop's iteration) whose test holds; each iteration's assignments apply only to the
//! active lanes (`where(active, new, old)`), a lane that returns or breaks leaves, and the test
//! is evaluated again on the updated values. The loop runs while any lane is active (`while
//! _vec_any(xp, active):` in the generated code), so each lane takes exactly the iterations
//! CPython takes for it, and one CPython loops on forever loops forever here too. The loop itself
//! is the `for` loop's machinery (`loops`): carried variables become phis whose kinds settle over
//! attempts. This file adds the mask, which every masked loop shares: a `while`, a counted `for`
//! that breaks or continues (`loop_exit`), a `for` over a per-lane `range` (`range_loop`).

use rustpython_parser::ast::{self, Ranged};

use crate::diagnostics::DiagnosticKind;
use crate::ir::{
    BinOp, Block, CastOp, CmpOp, Const, Inst, Kind, LogicOp, Op, Phi, Shape, UnOp, Value,
};
use crate::lower::loops::exits::{has_exit, hint_of};
use crate::lower::loops::for_loop::{LoopSpec, LoopTest, Masked};
use crate::lower::syntax::{contains_return, is_forever};
use crate::lower::{Done, Flow, Frame, Lowerer, Uniform, Var};
use crate::Map as HashMap;

/// Why a `while` test that can raise per element is refused when its `else:` leaves the
/// enclosing loop.
const ELSE_LEAVES: &str = "a `while` test that can raise for an element (a helper that raises, an index or key read per element, a name some elements never assigned) cannot stand with an `else:` clause that breaks or continues the enclosing loop; compute the test in the loop's body (`while True:` ... `if not ok: break`) and keep a flag for the `else:`";

impl Lowerer<'_> {
    /// A `while` statement (D12). A test that can raise for an element (a helper's `raise`, a
    /// recursion's residue, an index or key read per element, a name unbound on some elements:
    /// D11, D19, D20) is evaluated before each iteration on the lanes still running, as in
    /// CPython; the loop is lowered again as `while True:` with `if test: pass` / `else: <else
    /// body>; break` atop its body, so the test's raise sites are the body's, which the loop
    /// carries per iteration (D11: the first raising element). A test that cannot raise keeps
    /// the loop as it is.
    pub(in crate::lower) fn while_stmt(
        &mut self,
        frame: &mut Frame,
        w: &ast::StmtWhile,
        stmt: &ast::Stmt,
    ) {
        let mark = self.site_mark(frame);
        let cond = frame.cond;
        let outer = std::mem::take(&mut self.loops.test_raised);
        let raised = self.masked_while(frame, w, stmt);
        self.loops.test_raised = outer;
        if !raised {
            return;
        }
        self.rewind(frame, mark);
        frame.cond = cond;
        if leaves_loop(&w.orelse) {
            // D10: the `else:` moved into the body would break or continue the new loop.
            self.error_at(
                frame,
                DiagnosticKind::UnsupportedLoop,
                ELSE_LEAVES.into(),
                w.test.as_ref(),
            );
            return;
        }
        let (w, stmt) = test_in_body(w);
        self.masked_while(frame, &w, &stmt);
    }

    /// The `while` loop `w` with its test evaluated before the body and again after it; true
    /// (with what it lowered to be rewound) when the test can raise for an element.
    fn masked_while(&mut self, frame: &mut Frame, w: &ast::StmtWhile, stmt: &ast::Stmt) -> bool {
        let diag_mark = self.diags.len();
        let sites = self.exceptions.site_count();
        let v = self.expr(frame, &w.test);
        if self.exceptions.site_count() > sites {
            return true;
        }
        let test = self.condition(v);
        if self.poisoned.contains(&test) || self.diags.len() > diag_mark {
            return false;
        }
        if let Some(c) = self.const_of(test) {
            if !crate::ir::eval::truthy(&c) {
                self.body(frame, &w.orelse);
                return false;
            }
        }
        let breaks = has_exit(&w.body, true, false);
        if is_forever(&w.test) && !contains_return(&w.body) && !breaks {
            self.error_at(
                frame,
                DiagnosticKind::UnsupportedLoop,
                "this `while` loop has no `return` or `break` in its body, so it never ends; add one (D12)".into(),
                stmt,
            );
            return false;
        }
        let running = self.running(frame);
        // A Python scalar test keeps its value (`condition`): `while n < 1 and 1:` tests the
        // int 1, whose truth starts the bool mask (D4).
        let test = if self.kind(test) == Kind::Bool {
            test
        } else {
            self.emit(Op::Cast(CastOp::Bool, test))
        };
        let init = self.and_path(running, test);
        let init = self.as_mask(init);
        let mut spec = self.carried_spec(frame, String::new(), (0, 1, 1), None, &w.body);
        spec.orelse = &w.orelse;
        spec.mask = Some(Masked {
            test: LoopTest::While(&w.test),
            init,
            track_breaks: breaks && !w.orelse.is_empty(),
        });
        self.lower_loop(frame, spec, stmt);
        std::mem::take(&mut self.loops.test_raised)
    }

    /// The lanes running here as a bool array: those a masked loop starts with.
    pub(in crate::lower) fn running_mask(&mut self, frame: &Frame) -> Value {
        let running = self.running(frame);
        let m = running.unwrap_or_else(|| self.konst(Const::Bool(true)));
        self.as_mask(m)
    }

    /// `m` as an array (a scalar condition becomes a 0-d array).
    pub(in crate::lower) fn as_mask(&mut self, m: Value) -> Value {
        if self.shape(m) == Shape::Scalar {
            self.emit(Op::AsArray(m))
        } else {
            m
        }
    }

    /// The phi of the active lanes of a masked loop, made the path condition of its body.
    pub(in crate::lower) fn enter_masked(&mut self, frame: &mut Frame) -> Value {
        let a = self
            .f
            .new_value(Kind::Bool, Shape::Array, Some("active".into()));
        frame.cond = Some(a);
        a
    }

    /// At the end of a masked loop's body (emitted into `block`): the carried variables merged
    /// from the `break`/`continue` snapshots and updated on the active lanes only; the lanes done
    /// and broke; the lanes active in the next iteration (still active, not returned or broke,
    /// test true on the updated values), and the next value of the broke phi (when tracked).
    #[allow(clippy::too_many_arguments)]
    pub(in crate::lower) fn mask_iteration(
        &mut self,
        frame: &mut Frame,
        block: &mut Block,
        (test, active, broke_phi): (&LoopTest, Value, Option<Value>),
        phis: &[(String, Value)],
        done_phi: Option<Value>,
        body_vars: &mut HashMap<String, Var>,
        body_flow: &mut Flow,
    ) -> (Value, Option<Value>, Vec<Uniform>) {
        self.in_block(block, |l| {
            let exits = body_flow.exits.clone();
            // A `while` whose body neither breaks nor continues: its counters may stay Python ints.
            // So may the counter of a `range` whose bounds are Python ints (D14: `len(seq)` of a
            // sequence given per call): the loop steps it after every iteration, so every lane
            // still looping holds the same count, whatever the others did.
            let python_range =
                matches!(test, LoopTest::Range { stop, .. } if l.shape(*stop) == Shape::Scalar);
            let counters = matches!(test, LoopTest::While(_)) && exits.snapshots.is_empty();
            let range_counter = match test {
                LoopTest::Range { counter, .. } if python_range => Some(counter.as_str()),
                _ => None,
            };
            let mut uniform = vec![];
            l.merge_exits(&exits, phis, body_vars);
            if let LoopTest::Range { counter, step, .. } = test {
                if let Some(Var::Def(c)) = body_vars.get(counter).copied() {
                    let s = l.konst(Const::Int(*step));
                    let next = l.emit(Op::Binary(BinOp::Add, c, s));
                    body_vars.insert(counter.clone(), Var::Def(next));
                }
            }
            for (name, dst) in phis {
                if let Some(Var::Def(v)) = body_vars.get(name).copied() {
                    if v != *dst {
                        let python_counter =
                            range_counter == Some(name.as_str()) && l.shape(*dst) == Shape::Scalar;
                        if (counters || python_counter) && l.is_counter_step(v, *dst) {
                            uniform.push(l.lanes_of(name, active, v, *dst));
                            continue;
                        }
                        let masked = l.select(active, v, *dst);
                        if l.f.info(masked).hint.is_none() {
                            l.f.values[masked.index()].hint = Some(hint_of(name));
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
            let broke_now = l.done_mask(Some(active), exits.broke);
            if let Some(b) = broke_now {
                let not_broke = l.emit(Op::Unary(UnOp::Not, b));
                still = l.emit(Op::Logic(LogicOp::And, still, not_broke));
            }
            let broke_next = broke_phi.map(|p| match broke_now {
                Some(b) => l.emit(Op::Logic(LogicOp::Or, p, b)),
                None => p,
            });
            let next = match test {
                LoopTest::While(t) => {
                    frame.vars = body_vars.clone();
                    let sites = l.exceptions.site_count();
                    let insts = l.blocks.last().map_or(0, |b| b.insts.len());
                    let v = l.expr(frame, t);
                    if l.exceptions.site_count() > sites || l.reads_per_lane_index(insts) {
                        // D11: the raise sites of the test evaluated again after the body are not
                        // carried by the loop (its raises are the body's), and an index read per
                        // lane here is not masked to the lanes still looping (one that broke
                        // would raise IndexError): `while_stmt` lowers the loop again with its
                        // test in its body.
                        l.loops.test_raised = true;
                    }
                    let cond = l.condition(v);
                    if l.shape(cond) == Shape::Scalar && l.const_of(cond).is_none() {
                        // A test on Python values (a counter): the lanes still running when it
                        // holds, else none (`still if n < 50 else False`), with no per-lane `and`.
                        let none = l.konst(Const::Bool(false));
                        let none = l.emit(Op::AsArray(none));
                        l.select(cond, still, none)
                    } else {
                        l.and_path(Some(still), cond)
                    }
                }
                LoopTest::Counted => still,
                LoopTest::Range {
                    counter,
                    stop,
                    step,
                } => match body_vars.get(counter).copied() {
                    Some(Var::Def(c)) => {
                        let op = if *step > 0 { CmpOp::Lt } else { CmpOp::Gt };
                        let more = l.emit(Op::Compare(op, c, *stop));
                        if l.shape(more) == Shape::Scalar {
                            // Python ints: the lanes still running while it holds, else none.
                            let none = l.konst(Const::Bool(false));
                            let none = l.emit(Op::AsArray(none));
                            l.select(more, still, none)
                        } else {
                            l.and_path(Some(still), more)
                        }
                    }
                    _ => still,
                },
            };
            (l.as_mask(next), broke_next, uniform)
        })
    }

    /// Whether the instructions of the innermost block from `from` on read a table at a
    /// per-lane index (D15: it raises IndexError for a lane out of range).
    fn reads_per_lane_index(&self, from: usize) -> bool {
        self.blocks.last().is_some_and(|b| {
            b.insts.iter().skip(from).any(|inst| {
                matches!(inst, Inst::Let { op: Op::Index(_, i), .. } if self.shape(*i) == Shape::Array)
            })
        })
    }

    /// Whether `v`, a masked loop's next value of the carried `dst`, is `dst + k` or `dst - k`
    /// for a Python int `dst` and an int constant `k` (an iteration counter, `n += 1`): then every
    /// lane active in an iteration holds the same value of it. A lane is active in an iteration
    /// only if it was in every one before (the mask only loses lanes), so it took every step
    /// from the same start; a lane's own value matters only while it is active (the body's
    /// values reach the carried variables, the returns and the mask through `where(active, ..)`,
    /// D12). So the counter stays a Python int inside the loop (no per-lane `where` and no
    /// int64 array), and [`Uniform`] keeps the per-lane value for after the loop.
    fn is_counter_step(&self, v: Value, dst: Value) -> bool {
        if self.shape(dst) != Shape::Scalar
            || self.kind(dst) != Kind::Int
            || self.kind(v) != Kind::Int
        {
            return false;
        }
        let Some(block) = self.blocks.last() else {
            return false;
        };
        let is_int = |c: Value| matches!(self.const_of(c), Some(Const::Int(_)));
        block.insts.iter().any(|inst| match inst {
            Inst::Let { dst: d, op } if *d == v => match op {
                Op::Binary(BinOp::Add, a, b) => {
                    (*a == dst && is_int(*b)) || (*b == dst && is_int(*a))
                }
                Op::Binary(BinOp::Sub, a, b) => *a == dst && is_int(*b),
                _ => false,
            },
            _ => false,
        })
    }

    /// The phis of the counters' per-lane values, started from their values before the loop.
    pub(in crate::lower) fn uniform_phis(
        &mut self,
        uniform: &[Uniform],
        outer_vars: &HashMap<String, Var>,
        phis: &mut Vec<Phi>,
    ) {
        for u in uniform {
            let init = match outer_vars.get(&u.name) {
                Some(Var::Def(v)) => self.fit_init(*v, u.lanes),
                _ => self.placeholder(u.lanes),
            };
            phis.push(Phi {
                dst: u.lanes,
                init,
                next: u.next,
            });
        }
    }

    /// The per-lane value of the counter `name` (see [`Self::is_counter_step`]): a phi of its own,
    /// `where(active, next, lanes)`, read after the loop (dead code otherwise).
    fn lanes_of(&mut self, name: &str, active: Value, v: Value, dst: Value) -> Uniform {
        let lanes = self
            .f
            .new_value(self.kind(dst), Shape::Array, Some(hint_of(name)));
        let next = self.select(active, v, lanes);
        Uniform {
            name: name.to_string(),
            lanes,
            next,
        }
    }

    /// The return state after a per-lane loop (`while`, per-lane `range`): the loop's returns
    /// follow those before it. A `while True:` loop without `break` ends only when every lane
    /// returned.
    pub(in crate::lower) fn exit_while(
        &mut self,
        frame: &mut Frame,
        spec: &LoopSpec,
        outer_flow: &Flow,
        done_phi: Option<Value>,
        ret_phi: Option<Value>,
    ) {
        let forever = match &spec.mask {
            Some(Masked {
                test: LoopTest::While(t),
                ..
            }) => is_forever(t) && !has_exit(spec.body, true, false),
            _ => false,
        };
        if let Some(d) = done_phi {
            // Without a returned value, the lanes done raised (D11, `loop_raise`): the raise
            // entry is the last of `outer_flow`.
            let returns = match ret_phi {
                Some(r) => self.returns_after(&outer_flow.returns, frame.cond, Some(d), r),
                None => outer_flow.returns.clone(),
            };
            let done = if forever { Done::Always } else { Done::Mask(d) };
            frame.flow = Flow {
                done,
                returns,
                exits: outer_flow.exits.clone(),
                dead: false,
            };
        }
    }
}

/// `while test: body else: orelse` as `while True:` with `if test: pass` / `else: orelse;
/// break` atop `body` (the rewrite CPython's semantics allow when `orelse` neither breaks nor
/// continues: the test runs before each iteration, and the `else:` when it turns false).
fn test_in_body(w: &ast::StmtWhile) -> (ast::StmtWhile, ast::Stmt) {
    let range = w.test.range();
    let mut otherwise = w.orelse.clone();
    otherwise.push(ast::Stmt::Break(ast::StmtBreak { range }));
    let check = ast::Stmt::If(ast::StmtIf {
        test: w.test.clone(),
        body: vec![ast::Stmt::Pass(ast::StmtPass { range })],
        orelse: otherwise,
        range,
    });
    let mut body = vec![check];
    body.extend(w.body.iter().cloned());
    let forever = ast::StmtWhile {
        test: Box::new(ast::Expr::Constant(ast::ExprConstant {
            value: ast::Constant::Bool(true),
            kind: None,
            range,
        })),
        body,
        orelse: vec![],
        range: w.range,
    };
    let stmt = ast::Stmt::While(forever.clone());
    (forever, stmt)
}

/// Whether `stmts` (a loop's `else:`) break or continue the loop around them.
fn leaves_loop(stmts: &[ast::Stmt]) -> bool {
    stmts.iter().any(|s| match s {
        ast::Stmt::Break(_) | ast::Stmt::Continue(_) => true,
        ast::Stmt::If(i) => leaves_loop(&i.body) || leaves_loop(&i.orelse),
        ast::Stmt::For(f) => leaves_loop(&f.orelse),
        ast::Stmt::While(w) => leaves_loop(&w.orelse),
        ast::Stmt::With(w) => leaves_loop(&w.body),
        ast::Stmt::Try(t) => {
            leaves_loop(&t.body)
                || leaves_loop(&t.orelse)
                || leaves_loop(&t.finalbody)
                || t.handlers.iter().any(|h| {
                    let ast::ExceptHandler::ExceptHandler(h) = h;
                    leaves_loop(&h.body)
                })
        }
        _ => false,
    })
}

#[cfg(test)]
mod tests {
    use crate::pipeline::testing::lowered;

    #[test]
    fn an_iteration_counter_stays_a_python_int() {
        let ir = lowered("def f(x):\n    n = 0\n    while n < 50 and x > 1.0:\n        x = x * 0.5\n        n += 1\n    return x\n");
        assert!(ir.contains("scalar int = phi("), "{ir}");
    }

    #[test]
    fn a_counter_read_after_the_loop_keeps_its_lanes() {
        let ir = lowered("def f(x):\n    n = 0\n    while x > 1.0:\n        x = x * 0.5\n        n += 1\n    return n\n");
        assert!(
            ir.contains("scalar int = phi(") && ir.contains(": int = phi("),
            "{ir}"
        );
    }

    #[test]
    fn a_counter_stepped_per_lane_is_an_array() {
        let ir = lowered("def f(x):\n    n = 0\n    while n < 9:\n        if x > 1.0:\n            n += 2\n        n += 1\n    return x\n");
        assert!(!ir.contains("scalar int = phi("), "{ir}");
    }
}
