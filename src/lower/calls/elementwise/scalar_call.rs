//! Calls run element by element in Python (D19, D23): `Op::ScalarCall` on the lanes that reach
//! the call, and its raises per lane.
//!
//! ```text
//! def f(x):                            values, raised = _vec_residue(xp, _vec_scalar_g, lanes, x)
//!     if x > 50.0:                     # lanes: the lanes where x > 50.0 (and the caller's)
//!         return g(x)         ->       ...
//! ```
//!
//! The lanes are those CPython's element loop brings to the call: the path's condition, less
//! the lanes that returned, raised or left a loop, within the lanes the callers of the inlined
//! helpers around it bring to theirs ([`CallerLanes`], kept by `inline`). A lane where the callee
//! raises ends there (D11): the call is a raise site whose exception is built again, on the first
//! raising lane in C order, by calling the callee once more on that lane's values
//! (`_vec_rerun`): exact for a pure callee (D8).

use rustpython_parser::ast;

use crate::diagnostics::DiagnosticKind;
use crate::ir::{Const, Op, ScalarFn, UnOp, Value};
use crate::lower::{Done, Frame, Lowerer, R};

/// What the lanes a caller brings to an inlined helper's call are made of, as they stood at the
/// call (`Lowerer::running` of its frame, computed only where a scalar call needs it).
#[derive(Debug, Clone, Copy)]
pub(in crate::lower) struct CallerLanes {
    /// The lanes its own caller brought (protect_domains' `outer_live`).
    outer: Option<Value>,
    /// The caller's path condition.
    cond: Option<Value>,
    /// The caller's lanes that had returned or raised.
    done: Done,
    /// The caller's lanes that had left the loop iteration (D12).
    left: Done,
}

impl CallerLanes {
    /// The lanes `frame`'s function brings to a call it makes now.
    pub(in crate::lower) fn of(frame: &Frame) -> Self {
        CallerLanes {
            outer: frame.outer_live,
            cond: frame.cond,
            done: frame.flow.done,
            left: frame.flow.exits.left,
        }
    }
}

impl Lowerer<'_> {
    /// `callee(args)` run in Python on each lane that reaches it (D19, D23); its value, and the
    /// lanes where it raised end there (D11). `what` names the call in messages.
    pub(in crate::lower) fn scalar_call(
        &mut self,
        frame: &mut Frame,
        callee: ScalarFn,
        args: Vec<Value>,
        (node, what): (&ast::ExprCall, &str),
    ) -> R<Value> {
        if self.exceptions.in_try_statement() {
            self.error_at(
                frame,
                DiagnosticKind::UnsupportedExpression,
                format!("{what} runs element by element, and inside a `try` statement it could raise an exception of a class the compiler cannot know, which the clauses must match; move the call out of the `try` statement (D11: docs/decisions.md#d11)"),
                node,
            );
            return Err(());
        }
        let lanes = match self.reaching_lanes(frame) {
            Some(m) => m,
            None => self.konst(Const::Bool(true)),
        };
        let fn_text = match &callee {
            ScalarFn::Residue(i) | ScalarFn::Callable(i) => self.hidden_name(*i),
            ScalarFn::Lambda(params, body) => format!("(lambda {}: {body})", params.join(", ")),
        };
        let mut all = vec![lanes];
        all.extend(args.iter().copied());
        let value = self.emit(Op::ScalarCall { callee, args: all });
        let raised = self.emit(Op::ScalarRaised(value));
        // D11: the lane's exception, built again from its values by calling the callee on them.
        let params: Vec<String> = (0..args.len()).map(|i| format!("_vec_a{i}")).collect();
        let expr = format!(
            "{}({fn_text}{})",
            crate::ir::RERUN_HELPER,
            params.iter().map(|p| format!(", {p}")).collect::<String>()
        );
        if let Some(code) = self.push_site(frame, (expr, params, args), None, None) {
            self.raise_on(frame, Some(raised), code);
        }
        Ok(value)
    }

    /// The lanes that reach the code being lowered, as CPython's element loop brings them: the
    /// frame's running lanes within those its callers bring (None: every lane).
    pub(in crate::lower) fn reaching_lanes(&mut self, frame: &Frame) -> Option<Value> {
        let mut lanes = self.live_lanes(frame);
        for caller in self.calls.recursion.callers.clone().iter().rev() {
            let stopped = self.done_or(caller.done, caller.left);
            let running = match stopped {
                Done::Never => None,
                Done::Always => Some(self.konst(Const::Bool(false))),
                Done::Mask(m) => Some(self.emit(Op::Unary(UnOp::Not, m))),
            };
            let running = self.and_opt(caller.cond, running);
            let running = self.and_opt(caller.outer, running);
            lanes = self.and_opt(running, lanes);
        }
        lanes
    }

    /// The name of hidden parameter `i` (the global of the generated module holding it).
    fn hidden_name(&self, i: usize) -> String {
        self.names
            .hidden
            .get(i - self.f.declared_params)
            .map(crate::lower::Hidden::global)
            .unwrap_or_default()
    }
}
