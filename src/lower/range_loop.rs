//! `for target in range(...)` whose bounds differ per lane (D12): the masked loop of
//! `while_loop`, run to the largest trip count. A counter starts at `start` and moves by `step`
//! at the end of each iteration; a lane is active while its counter has not reached its `stop`
//! (and it has not broken out or returned). The target takes the counter's value at the start of
//! each iteration, so after the loop it holds the lane's last index, and is undefined for a lane
//! that never entered, as in CPython. The step must be a constant.

use rustpython_parser::ast;

use super::loop_exit::has_exit;
use super::loops::{LoopTest, Masked};
use super::{Frame, Lowerer, Var};
use crate::diagnostics::DiagnosticKind;
use crate::ir::{CastOp, CmpOp, Kind, Op, Shape, Value};

impl Lowerer<'_> {
    /// A bound of `range()` that differs per lane: an int or a bool. A float is a `TypeError` in
    /// CPython: an array whose kind is known only at run time goes through `operator.index`
    /// (`CastOp::Index`), which raises it; a float is reported (None).
    pub(super) fn per_lane_bound(
        &mut self,
        frame: &Frame,
        v: Value,
        node: &ast::Expr,
    ) -> Option<Value> {
        let message = match (self.kind(v), self.shape(v)) {
            (Kind::Int | Kind::Bool, _) => return Some(v),
            (Kind::Unknown, Shape::Array) => return Some(self.emit(Op::Cast(CastOp::Index, v))),
            (Kind::Float, _) => "range() bounds must be integers".to_string(),
            _ => "range() needs integers, and this value may be a float (CPython raises TypeError for one): convert it explicitly, e.g. `range(int(n))` (D12)".to_string(),
        };
        self.error_at(frame, DiagnosticKind::BadArguments, message, node);
        None
    }

    /// A `for` loop over a `range` with per-lane bounds (D12).
    pub(super) fn range_loop(
        &mut self,
        frame: &mut Frame,
        f: &ast::StmtFor,
        stmt: &ast::Stmt,
        (start, stop, step): (Value, Value, i128),
    ) {
        let ast::Expr::Name(target) = f.target.as_ref() else {
            return;
        };
        let target = target.id.to_string();
        // Not a Python name, so no variable of the function can be it.
        let counter = format!("{target}.range");
        frame.vars.insert(counter.clone(), Var::Def(start));
        let running = self.running(frame);
        let op = if step > 0 { CmpOp::Lt } else { CmpOp::Gt };
        let enters = self.emit(Op::Compare(op, start, stop));
        let init = self.and_path(running, enters);
        let init = self.as_mask(init);
        let mut spec = self.carried_spec(frame, target.clone(), (0, 1, 1), None, &f.body);
        spec.carried.push(target);
        spec.carried.push(counter.clone());
        spec.carried.sort();
        spec.orelse = &f.orelse;
        spec.mask = Some(Masked {
            test: LoopTest::Range {
                counter: counter.clone(),
                stop,
                step,
            },
            init,
            track_breaks: !f.orelse.is_empty() && has_exit(&f.body, true, false),
        });
        self.lower_loop(frame, spec, stmt);
        frame.vars.remove(&counter);
    }
}
