//! Recursion with a scalar residue (D19): a function or helper that calls itself, directly or
//! through others, is inlined within itself to a bounded depth; the lanes that recurse deeper
//! are finished by its scalar original, element by element, on those lanes only
//! (`Op::ScalarCall` of `ScalarFn::Residue`, `scalar_call.rs`), and placed into the result.
//!
//! ```text
//! def gamma_rec(x):                          ... two inlined levels of gamma_rec ...
//!     if x > 2.0:                     ->     values, raised = _vec_residue(
//!         return (x - 1.0) * gamma_rec(x - 1.0)      xp, _vec_scalar_gamma_rec, lanes, x_3)
//!     return lanczos(x)                      ... (raised lanes end there, D11)
//! ```
//!
//! The depth rule:
//! - a recursive call that no lane reaches is neither inlined nor finished by the residue: its
//!   lanes' path condition contradicts itself (`analysis::facts`: `normcdf(x)` returning
//!   `1 - normcdf(-x)` for `x < 0` has no second level, since `x < 0` and `-x < 0` cannot both
//!   hold), or folds to false (a pricing formula calling itself with `is_call=True` for puts:
//!   the inlined call's own test `not is_call` is the constant `False`). Such a recursion, which
//!   provably reaches its base case in `k` steps, unrolls `k` levels and has no residue;
//! - otherwise the function is inlined within itself up to [`MAX_LEVELS`] times, while the
//!   inlined levels together stay under [`LEVELS_BUDGET`] IR values; past the budget the
//!   function is lowered again with half the levels (8, 4, 2, 1, 0), so a helper that calls
//!   itself twice per level (each level doubling the copies every lane computes, D1) gets fewer
//!   levels than one that calls itself once. The calls at the level past the last are the
//!   residue.
//!
//! Every lane's result is exact either way (D8 freezes what the scalar original reads); the rule
//! trades work done on every lane (the inlined levels) against Python calls on the lanes that
//! recurse deeper. The residue needs the scalar original as a global of the generated module:
//! a function of the module (or the compiled function itself), not a nested function or a
//! method, which are refused with their position when a lane may need them.

use rustpython_parser::ast;

use crate::diagnostics::DiagnosticKind;
use crate::env::{Binding, SCOPE_KEY};
use crate::frontend::extract::ParsedFunction;
use crate::ir::{walk_insts, Const, Inst, Op, ScalarFn, Value};
use crate::lower::calls::elementwise::scalar_call::CallerLanes;
use crate::lower::{Frame, Hidden, Lowerer, R};

/// The most times a recursive function is inlined within itself.
pub(in crate::lower) const MAX_LEVELS: usize = 8;
/// The most IR values the inlined levels of recursive functions may add to a function.
const LEVELS_BUDGET: usize = 1500;

/// The recursion state of the function being lowered.
pub(in crate::lower) struct RecursionState {
    /// The most levels a recursive function is inlined within itself in this lowering.
    pub(in crate::lower::calls) levels: usize,
    /// The inlined levels grew past [`LEVELS_BUDGET`]: lower again with fewer.
    pub(in crate::lower::calls) over: bool,
    /// Values the inlined levels added so far, and where the outermost level being inlined
    /// started (None outside any).
    spent: usize,
    started: Option<usize>,
    /// How many recursive levels enclose the code being lowered.
    active: usize,
    /// The lanes each caller of the helpers being inlined brings to its call, innermost last
    /// (`scalar_call::reaching_lanes`).
    pub(in crate::lower::calls) callers: Vec<CallerLanes>,
    /// The calls run element by element, for the report of the compile (`stats()`, `show`):
    /// `residue` (D19) or `call_site` (D23), the function or callee as written, and the line.
    pub(in crate::lower::calls) sites: Vec<crate::lower::calls::ElementSite>,
}

impl Default for RecursionState {
    fn default() -> Self {
        RecursionState {
            levels: MAX_LEVELS,
            over: false,
            spent: 0,
            started: None,
            active: 0,
            callers: vec![],
            sites: vec![],
        }
    }
}

/// The levels being inlined in a function set aside while a helper is lowered out of line.
pub(in crate::lower) struct LevelsAside {
    started: Option<usize>,
    active: usize,
}

/// What [`Lowerer::recursive_call`] decided for a call of a function already being inlined.
pub(in crate::lower) enum Recursion {
    /// Inline it once more, as level `level`.
    Inline,
    /// The call's value: a constant where no lane reaches it, or the residue's.
    Value(R<Value>),
}

impl Lowerer<'_> {
    /// A call of `callee`, already inlined `level` times around it (and 0 < `level`): inline it
    /// again, or give its value (module docs).
    pub(in crate::lower) fn recursive_call(
        &mut self,
        frame: &mut Frame,
        callee: &ParsedFunction,
        level: usize,
        args: &[Value],
        c: &ast::ExprCall,
    ) -> Recursion {
        let lanes = self.reaching_lanes(frame);
        if lanes.is_some_and(|m| self.reaches_no_lane(m)) {
            // No lane gets here: any value will do.
            return Recursion::Value(Ok(self.konst(Const::Bool(false))));
        }
        if self.calls.recursion.started.is_some_and(|start| {
            self.calls.recursion.spent + self.f.values.len() - start > LEVELS_BUDGET
        }) {
            self.calls.recursion.over = true;
        }
        if level <= self.calls.recursion.levels && !self.calls.recursion.over {
            return Recursion::Inline;
        }
        Recursion::Value(self.residue(frame, callee, args, c))
    }

    /// Marks the start of an inlined level `level` (0: not a recursive call).
    pub(in crate::lower) fn enter_level(&mut self, level: usize) {
        if level == 0 {
            return;
        }
        if self.calls.recursion.active == 0 {
            self.calls.recursion.started = Some(self.f.values.len());
        }
        self.calls.recursion.active += 1;
    }

    /// Sets aside the levels being inlined in the function being lowered, for a helper lowered
    /// out of line (`callee.rs`): their start is a count of that function's values, which a
    /// fresh function does not have (seed 550009 #751: the budget's subtraction overflowed).
    pub(in crate::lower) fn set_aside_levels(&mut self) -> LevelsAside {
        let r = &mut self.calls.recursion;
        LevelsAside {
            started: r.started.take(),
            active: std::mem::take(&mut r.active),
        }
    }

    /// Restores the levels [`Self::set_aside_levels`] set aside (what the helper's own levels
    /// added is in `spent` already).
    pub(in crate::lower) fn restore_levels(&mut self, aside: LevelsAside) {
        let r = &mut self.calls.recursion;
        r.started = aside.started;
        r.active = aside.active;
    }

    /// Marks the end of the inlined level entered by [`Self::enter_level`].
    pub(in crate::lower) fn leave_level(&mut self, level: usize) {
        if level == 0 {
            return;
        }
        self.calls.recursion.active -= 1;
        if self.calls.recursion.active == 0 {
            if let Some(start) = self.calls.recursion.started.take() {
                self.calls.recursion.spent += self.f.values.len() - start;
            }
            if self.calls.recursion.spent > LEVELS_BUDGET {
                self.calls.recursion.over = true;
            }
        }
    }

    /// Whether the lanes `m` are provably none (`analysis::facts`).
    fn reaches_no_lane(&self, m: Value) -> bool {
        let mut defs: Vec<Option<&Op>> = vec![None; self.f.values.len()];
        for block in self.blocks.iter().chain(std::iter::once(&self.f.body)) {
            walk_insts(block, &mut |inst| {
                if let Inst::Let { dst, op } = inst {
                    defs[dst.index()] = Some(op);
                }
            });
        }
        crate::analysis::facts::never_true(&|v: Value| defs.get(v.index()).copied().flatten(), m)
    }

    /// The residue: `callee(args)` finished by its scalar original on the lanes that reach the
    /// call.
    fn residue(
        &mut self,
        frame: &mut Frame,
        callee: &ParsedFunction,
        args: &[Value],
        c: &ast::ExprCall,
    ) -> R<Value> {
        let name = callee
            .name
            .rsplit('.')
            .next()
            .unwrap_or(&callee.name)
            .to_string();
        let module_function = match c.func.as_ref() {
            ast::Expr::Name(n) if n.id.as_str() == name => {
                !frame.local_fns.contains_key(&name)
                    && matches!(frame.env.get(&name), Some(Binding::Function(_)))
            }
            _ => false,
        };
        let why = if !module_function {
            Some("it is not a function of the module (a nested function, a lambda or a method), so the generated code cannot call its scalar original")
        } else if callee.kwonly > 0 {
            Some("it has keyword-only parameters")
        } else if returns_tuple(&callee.body) {
            Some("it returns several values (D13)")
        } else if args.iter().any(|a| self.values.is_tuple(*a)) {
            Some("an argument is a tuple")
        } else {
            None
        };
        if let Some(why) = why {
            self.error_at(
                frame,
                DiagnosticKind::Recursion,
                format!(
                    "`{name}` calls itself deeper than the {} levels the compiler inlines on some elements, which its scalar original would finish element by element (D19), but {why}; bound the recursion (so the compiler can prove where it ends), or make `{name}` a function of the module",
                    self.calls.recursion.levels
                ),
                c,
            );
            return Err(());
        }
        // A helper of another module of the program (static compile): the generated code's
        // global would be read from the compiled function's module; the decorator compiles it.
        if matches!(frame.env.get(SCOPE_KEY), Some(Binding::Unresolved(_))) {
            self.names.defer(&name);
            return Err(());
        }
        let param = self.hidden_param(Hidden::Scalar(name.clone()));
        let line = self.line_of(frame, crate::frontend::extract::span(c).0);
        self.calls
            .recursion
            .sites
            .push(("residue", name.clone(), line));
        let what = format!("the recursion of `{name}`");
        self.scalar_call(frame, ScalarFn::Residue(param), args.to_vec(), (c, &what))
    }
}

/// Whether a `return` of `body` (outside nested functions) returns a tuple display.
fn returns_tuple(body: &[ast::Stmt]) -> bool {
    body.iter().any(|s| match s {
        ast::Stmt::Return(r) => matches!(r.value.as_deref(), Some(ast::Expr::Tuple(_))),
        ast::Stmt::If(i) => returns_tuple(&i.body) || returns_tuple(&i.orelse),
        ast::Stmt::For(f) => returns_tuple(&f.body) || returns_tuple(&f.orelse),
        ast::Stmt::While(w) => returns_tuple(&w.body) || returns_tuple(&w.orelse),
        ast::Stmt::Try(t) => {
            returns_tuple(&t.body)
                || returns_tuple(&t.orelse)
                || returns_tuple(&t.finalbody)
                || t.handlers.iter().any(|h| {
                    let ast::ExceptHandler::ExceptHandler(h) = h;
                    returns_tuple(&h.body)
                })
        }
        _ => false,
    })
}

#[cfg(test)]
mod tests {
    use crate::pipeline::testing::compiled;

    #[test]
    fn a_helper_lowered_out_of_line_inside_an_inlined_level_counts_its_own_levels() {
        // Fuzz finding 550009 #751: `f`, inlined within itself (D19), calls `h0`, lowered out of
        // line, whose loop calls the recursive `r0`: the budget of `r0`'s levels subtracted the
        // start of `f`'s level, a count of `f`'s values, from `h0`'s fewer values (a panic,
        // "attempt to subtract with overflow").
        let c = compiled(concat!(
            "# `f` is the function marked, not `r0`\n",
            "def r0(a):\n    if a < 0.0:\n        return 0 - r0(-a)\n    return 0\n\n",
            "def h0(a):\n    w1 = 0\n    while w1 < 1:\n        w1 += 1\n        for i2 in range(1):\n",
            "            v4 = r0(i2)\n    return 0\n\n",
            "@vectorize\ndef f(p0):\n    if 0.0 < p0 <= 6.0:\n        return f(p0 - 1)\n",
            "    for c7 in range(2):\n        w8 = 0\n        while w8 < 1:\n            w8 += 1\n",
            "            v14 = h0(0)\n            v15 = h0(r0(p0))\n    return 0\n",
        ));
        assert!(c.source.contains("def f("), "{}", c.source);
    }
}
