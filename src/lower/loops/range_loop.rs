//! The bounds of `range(...)` (`range_bounds`: known now, D6, or per lane), and `for target in
//! range(...)` whose bounds differ per lane (D12): the masked loop of
//! `while_loop`, run to the largest trip count. A counter starts at `start` and moves by `step`
//! at the end of each iteration; a lane is active while its counter has not reached its `stop`
//! (and it has not broken out or returned). The target takes the counter's value at the start of
//! each iteration, so after the loop it holds the lane's last index, and is undefined for a lane
//! that never entered, as in CPython. The step must be a constant.

use rustpython_parser::ast;

use crate::diagnostics::DiagnosticKind;
use crate::ir::{CastOp, CmpOp, Const, Kind, Op, Shape, Value};
use crate::lower::loops::exits::has_exit;
use crate::lower::loops::for_loop::{Bounds, LoopTest, Masked};
use crate::lower::{Frame, Lowerer, Var};

impl Lowerer<'_> {
    /// The bounds of `range(...)`: known now (D6), or per lane (D12, below); None after
    /// reporting what is wrong with them.
    pub(in crate::lower) fn range_bounds(
        &mut self,
        frame: &mut Frame,
        call: &ast::ExprCall,
    ) -> Option<Bounds> {
        let n = call.args.len();
        if !(1..=3).contains(&n) || !call.keywords.is_empty() {
            self.error_at(
                frame,
                DiagnosticKind::BadArguments,
                format!("range() takes 1 to 3 positional arguments, got {n}"),
                call,
            );
            return None;
        }
        let mut vals = vec![];
        for a in &call.args {
            let v = self.expr(frame, a);
            if self.poisoned.contains(&v) {
                return None;
            }
            match self.const_of(v) {
                Some(Const::Int(i)) => vals.push(Ok(i)),
                Some(Const::Bool(b)) => vals.push(Ok(i128::from(b))),
                Some(_) => {
                    self.error_at(
                        frame,
                        DiagnosticKind::BadArguments,
                        "range() bounds must be integers".into(),
                        a,
                    );
                    return None;
                }
                None => vals.push(Err(self.per_lane_bound(frame, v, a)?)),
            }
        }
        let zero = Ok(0);
        let one = Ok(1);
        let (start, stop, step) = match vals.as_slice() {
            [stop] => (&zero, stop, &one),
            [start, stop] => (start, stop, &one),
            [start, stop, step] => (start, stop, step),
            _ => return None,
        };
        let Ok(step) = *step else {
            self.error_at(
                frame,
                DiagnosticKind::DynamicRange,
                "the step of range() must be known at generation time (D6): use a constant".into(),
                &call.args[2],
            );
            return None;
        };
        if step == 0 {
            self.error_at(
                frame,
                DiagnosticKind::BadArguments,
                "range() step must not be zero".into(),
                call,
            );
            return None;
        }
        match (*start, *stop) {
            (Ok(a), Ok(b)) => Some(Bounds::Known(a, b, step)),
            (a, b) => {
                let mut value = |r: Result<i128, Value>| match r {
                    Ok(i) => self.konst(Const::Int(i)),
                    Err(v) => v,
                };
                let (a, b) = (value(a), value(b));
                Some(Bounds::PerLane(a, b, step))
            }
        }
    }

    /// A bound of `range()` that differs per lane: an int or a bool. A float is a `TypeError` in
    /// CPython: an array whose kind is known only at run time goes through `operator.index`
    /// (`CastOp::Index`), which raises it; a float is reported (None).
    pub(in crate::lower) fn per_lane_bound(
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
    pub(in crate::lower) fn range_loop(
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
