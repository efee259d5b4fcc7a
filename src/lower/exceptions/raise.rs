//! `raise` and `assert` (D11): a lane that reaches one ends there, like an early return. The
//! raise is an entry of the function's returns whose value is the site's code (a value in
//! `raise_codes`); `chain` skips those entries for the result, `raise_chain` keeps only them, so
//! a lane that returned first never raises and a lane that raised first never raises again.
//! After the body, the generated code finds the first lane in C order with a nonzero code and
//! evaluates that site's exception expression in Python on that lane's values.
//!
//! A raise inside a Python-level `if` (`scalar_if`) or a loop (`loop_raise`) leaves it as a
//! raise code carried out of the construct, with the site's values.

use rustpython_parser::ast;

use crate::diagnostics::DiagnosticKind;
use crate::frontend::extract::span;
use crate::ir::eval::truthy;
use crate::ir::{CmpOp, Const, Inst, Kind, Op, RaiseSite, Shape, UnOp, Value};
use crate::lower::exceptions::classes::{builtin_mro, Mro};
use crate::lower::exceptions::SiteInfo;
use crate::lower::{Done, Frame, Lowerer, R};

impl Lowerer<'_> {
    /// `raise E(...)` on the lanes of the current path.
    pub(in crate::lower) fn raise_stmt(
        &mut self,
        frame: &mut Frame,
        r: &ast::StmtRaise,
        stmt: &ast::Stmt,
    ) {
        let Some(exc) = &r.exc else {
            self.reraise(frame, stmt);
            return;
        };
        let (start, end) = span(&**exc);
        let text = self.source_text(frame, start, end);
        let class_expr = match &**exc {
            ast::Expr::Call(c) => &*c.func,
            e => e,
        };
        let class = self.exception_class(frame, class_expr, true);
        let mut roots = vec![&**exc];
        let cause = r.cause.as_deref().map(|c| {
            roots.push(c);
            let (start, end) = span(c);
            self.source_text(frame, start, end)
        });
        match self.raise_site(frame, (text, cause), &roots, class, stmt) {
            Some(code) => self.raise_on(frame, None, code),
            // Reported (or deferred): the lanes still leave here, so nothing after the `raise`
            // is reported as a consequence (a variable it leaves unassigned).
            None => frame.flow.done = Done::Always,
        }
    }

    /// A bare `raise`: inside an `except` clause, each lane raises again what it raised in the
    /// `try` body (the same site, from the same values).
    fn reraise(&mut self, frame: &mut Frame, stmt: &ast::Stmt) {
        let Some(&code) = self.exceptions.handling.last() else {
            self.error_at(
                frame,
                DiagnosticKind::UnsupportedStatement,
                "a bare `raise` re-raises the exception being handled, and there is none outside `except`; raise an exception, e.g. `raise ValueError(...)`".into(),
                stmt,
            );
            return;
        };
        if let Some(what) = self.no_raise_here(false) {
            self.error_at(
                frame,
                DiagnosticKind::UnsupportedStatement,
                what.into(),
                stmt,
            );
            return;
        }
        self.raise_on(frame, None, code);
    }

    /// `assert test, msg`: raises `AssertionError(msg)` on the lanes where `test` is false;
    /// nothing at all under `-O` (the option is part of every cache key).
    pub(in crate::lower) fn assert_stmt(
        &mut self,
        frame: &mut Frame,
        a: &ast::StmtAssert,
        stmt: &ast::Stmt,
    ) {
        if self.opts.optimize {
            return;
        }
        let test = self.expr(frame, &a.test);
        let cond = self.condition(test);
        if self.poisoned.contains(&cond) {
            return;
        }
        let fails = match self.const_of(cond) {
            Some(c) if truthy(&c) => return,
            Some(_) => None,
            // A scalar test (a loop index, a uniform value: D14) is per lane like an array one
            // (as an `if` that raises on numbers, `control::raise_per_lane`): the test is
            // computed once either way, and an `assert` has no other side that the value could
            // make invalid.
            None if self.shape(cond) == Shape::Scalar => {
                let c = self.per_lane_condition(cond);
                Some(self.emit(Op::Unary(UnOp::Not, c)))
            }
            None => Some(self.emit(Op::Unary(UnOp::Not, cond))),
        };
        let text = match &a.msg {
            Some(m) => {
                let (start, end) = span(&**m);
                format!("AssertionError({})", self.source_text(frame, start, end))
            }
            None => "AssertionError".to_string(),
        };
        let roots: Vec<&ast::Expr> = a.msg.iter().map(|m| &**m).collect();
        let class = builtin_mro("AssertionError");
        if let Some(code) = self.raise_site(frame, (text, None), &roots, class, stmt) {
            self.raise_on(frame, fails, code);
        }
    }

    /// Ends the lanes of the current path where `mask` holds (all of them for `None`) with the
    /// raise `code`.
    pub(in crate::lower) fn raise_on(
        &mut self,
        frame: &mut Frame,
        mask: Option<Value>,
        code: Value,
    ) {
        // Lanes that left the loop's iteration by `break`/`continue` (D12) do not reach it: the
        // code is read from the entry's condition, so it must exclude them (a return's value
        // need not: `returning` keeps them out of the lanes done).
        let mut staying = self.done_not(frame.flow.exits.left);
        // Under a Python scalar condition (`frame.guard`, `on_lanes`) it raises only where that
        // condition holds: CPython does not evaluate the operand otherwise.
        if let Some(g) = frame.guard {
            staying = self.done_and(Done::Mask(g), staying);
        }
        let hit = match mask {
            Some(m) => self.done_and(Done::Mask(m), staying),
            None => staying,
        };
        let entry = match hit {
            Done::Never => return,
            Done::Mask(h) => self.and_opt(frame.cond, Some(h)),
            Done::Always => frame.cond,
        };
        frame.flow.returns.push((entry, code));
        self.exceptions.codes.insert(code);
        if let Some(snapshots) = frame.catching.last_mut() {
            snapshots.push((code, frame.vars.clone()));
        }
        frame.flow.done = self.done_or(frame.flow.done, hit);
    }

    /// The raise code of a list of returns: the site number on lanes whose first exit is a raise,
    /// 0 on the others; `None` when nothing in it raises. With `complete`, every lane reaches
    /// one of the exits (so the last needs no condition).
    pub(in crate::lower) fn raise_chain(
        &mut self,
        returns: &[(Option<Value>, Value)],
        complete: bool,
    ) -> Option<Value> {
        if !returns
            .iter()
            .any(|(_, v)| self.exceptions.codes.contains(v))
        {
            return None;
        }
        let zero = self.konst(Const::Int(0));
        let code_of = |l: &Self, v: Value| {
            if l.exceptions.codes.contains(&v) {
                v
            } else {
                zero
            }
        };
        let (conditional, mut acc) = match returns.split_last() {
            Some((&(_, last), rest)) if complete => (rest, code_of(self, last)),
            _ => (returns, zero),
        };
        for &(cond, v) in conditional.iter().rev() {
            let v = code_of(self, v);
            acc = match cond {
                Some(c) => self.select(c, v, acc),
                None => v,
            };
        }
        Some(acc)
    }

    /// A callee's raises (an inlined helper's `code`) made the caller's: its lanes end there.
    pub(in crate::lower) fn raise_from_callee(&mut self, frame: &mut Frame, code: Value) {
        let zero = self.konst(Const::Int(0));
        let raised = self.emit(Op::Compare(CmpOp::Ne, code, zero));
        match self.const_of(raised) {
            Some(c) if truthy(&c) => self.raise_on(frame, None, code),
            Some(_) => {}
            None => self.raise_on(frame, Some(raised), code),
        }
    }

    /// Records a raise site whose exception is `text` and cause `cause` (the source of `roots`,
    /// or built around them); returns its code, or None after reporting why it cannot be
    /// compiled.
    fn raise_site(
        &mut self,
        frame: &mut Frame,
        (text, cause): (String, Option<String>),
        roots: &[&ast::Expr],
        class: Option<Mro>,
        stmt: &ast::Stmt,
    ) -> Option<Value> {
        let (params, args) = self.site_reads(frame, roots, Self::raised_global).ok()?;
        let code = self.push_site(frame, (text, params, args), class, Some(span(stmt)));
        if let (Some(site), Some(_)) = (self.exceptions.sites.last_mut(), code) {
            site.cause = cause;
        }
        code
    }

    /// Records the raise site `(exception text, its parameters, their values)` of builtin class
    /// `class` (None: not known when compiling); returns its code, or None after reporting why
    /// lanes cannot end there. `raised_at` is the byte range of what raises (a `raise`, an
    /// `assert`, a read of an unbound name; None for a numeric error in a `try`, reported at the
    /// `try`).
    pub(in crate::lower) fn push_site(
        &mut self,
        frame: &Frame,
        (expr, params, args): (String, Vec<String>, Vec<Value>),
        class: Option<Mro>,
        raised_at: Option<(usize, usize)>,
    ) -> Option<Value> {
        let numeric = raised_at.is_none();
        let at = match raised_at {
            Some(range) => Some((frame.source, range)),
            None => self.exceptions.try_spans.last().copied(),
        };
        if self.loops.in_loop_without_raises() {
            // A helper's raise in a loop whose own body shows none: the loop is lowered again,
            // carrying raises, and this report goes with the attempt (`loops::lower_loop`).
            self.loops.raise_met_unprepared();
        }
        if let Some(what) = self.no_raise_here(numeric) {
            if let Some((source, (start, end))) = at {
                self.error(
                    DiagnosticKind::UnsupportedStatement,
                    what.into(),
                    source,
                    start,
                    end,
                );
            }
            return None;
        }
        // Inside a loop, a value the body defines is snapshot per lane (`loop_raise`): numbers.
        // The operands of a numeric error are the numbers the operation computed on.
        let args: Vec<Value> = match raised_at {
            None if self.loops.in_loop() => args
                .into_iter()
                .map(|a| match self.kind(a) {
                    Kind::Object if !self.values.is_uniform_arg(a) => self.as_number(a),
                    _ => a,
                })
                .collect(),
            _ => args,
        };
        // A uniform value the loop defines is checked as the body ends (`loop_raise`).
        if self.loops.in_loop() && args.iter().any(|a| self.values.is_tuple(*a)) {
            if let Some((source, (start, end))) = at {
                self.error(
                    DiagnosticKind::UnsupportedStatement,
                    crate::lower::loops::raises::LOOP_MESSAGE_READS.into(),
                    source,
                    start,
                    end,
                );
            }
            return None;
        }
        self.exceptions.sites.push(RaiseSite {
            expr,
            params,
            args,
            cause: None,
        });
        self.exceptions.info.push(SiteInfo { class, at });
        let code = self.f.new_value(Kind::Int, Shape::Scalar, None);
        self.push_inst(Inst::Let {
            dst: code,
            op: Op::Const(Const::Int(self.exceptions.sites.len() as i128)),
        });
        Some(code)
    }

    /// Whether a read per element inside a loop (a table's index, D15) is a raise site of its
    /// own: in a loop lowered as a loop, outside `try` statements and `finally` clauses (there the
    /// gather raises at call time, as outside loops).
    pub(in crate::lower) fn loop_read_raises(&self) -> bool {
        self.loops.in_loop() && !self.exceptions.in_try() && self.exceptions.in_finally == 0
    }

    /// Why lanes cannot end at a raise site here, if they cannot (`numeric`: the site is a
    /// numeric error of a `try` body). A site may stand in the function's own block, in the
    /// sides of Python-level `if`s (D11: `scalar_if` carries its code and values out) and in the
    /// bodies of loops that carry raises (`loop_raise`); not in a loop lowered without them (a
    /// helper's raise: that loop is lowered again carrying them), a `finally` clause, or a loop
    /// or Python `if` inside a `try` body (whose clauses match on the codes of the `try`'s own
    /// block).
    fn no_raise_here(&self, numeric: bool) -> Option<&'static str> {
        if self.exceptions.in_finally > 0 {
            return Some("a `finally` clause whose code can raise (a call of a helper that raises, an index or key read per element) is not supported; move it after the `try` statement");
        }
        // A numeric error there is inside a `try` body around the loop.
        if self.loops.in_loop_without_raises() && !numeric {
            return Some(HELPER_IN_LOOP);
        }
        if self.loops.in_loop_without_raises()
            || (self.exceptions.in_try() && self.exceptions.try_block_depth != self.blocks.len())
        {
            return Some(if numeric {
                "a division or power that can raise inside a `try` body, within a loop (`for` or `while`) or an `if` on a uniform value inside that body, is not supported yet; put the `try` statement inside the loop or the `if`"
            } else {
                "a raise inside a loop (`for` or `while`) or an `if` on a uniform value (D14), within a `try` body, is not supported yet; put the `try` statement inside the loop or the `if`, or move the `if` out of the `try`"
            });
        }
        None
    }

    /// The names `roots` read that are values where a site stands, each once in reading order,
    /// and their values there: the parameters of a raise site's expression (D11) or of a call
    /// site's lambda (D23). A name that is not the function's own goes through `global`, the
    /// site's check of a module-level name: Ok(true) reads it as a value (a constant), Ok(false)
    /// leaves it to the generated module's globals, Err has reported why it cannot be read.
    /// Err once every problem is reported.
    pub(in crate::lower) fn site_reads(
        &mut self,
        frame: &mut Frame,
        roots: &[&ast::Expr],
        mut global: impl FnMut(&mut Self, &Frame, &ast::ExprName) -> R<bool>,
    ) -> R<(Vec<String>, Vec<Value>)> {
        let mut names: Vec<&ast::ExprName> = vec![];
        let mut ok = true;
        for root in roots {
            ok &= self.free_names(frame, root, &mut names);
        }
        let mut params: Vec<String> = vec![];
        let mut args = vec![];
        for n in names {
            let name = n.id.as_str();
            if params.iter().any(|p| p == name) {
                continue;
            }
            let local = frame.vars.contains_key(name)
                || frame.locals.contains(name)
                || frame.outer.contains_key(name);
            if !local {
                match global(self, frame, n) {
                    Ok(true) => {}
                    Ok(false) => continue,
                    Err(()) => {
                        ok = false;
                        continue;
                    }
                }
            }
            let v = self.read_name(frame, name, &ast::Expr::Name(n.clone()));
            ok &= !self.poisoned.contains(&v);
            params.push(name.to_string());
            args.push(v);
        }
        if ok {
            Ok((params, args))
        } else {
            Err(())
        }
    }

    /// A module-level name an exception's expression reads (`site_reads`): not a class the
    /// compiler refuses to raise; D21: a number is read as a value, anything else of the module
    /// (a message string, an exception class, a function, `math`) is a global of the generated
    /// module, as the message reads it in CPython.
    fn raised_global(&mut self, frame: &Frame, n: &ast::ExprName) -> R<bool> {
        let node = ast::Expr::Name(n.clone());
        if let Some(message) = self.refused_class(frame, &node, "raised") {
            self.error_at(frame, DiagnosticKind::UnsupportedExpression, message, &node);
            return Err(());
        }
        self.site_global(frame, n)
    }

    /// Adds the names `e` reads to `out`; false after reporting a construct that binds names of
    /// its own (those would need a scope of their own in the generated code).
    pub(in crate::lower) fn free_names<'a>(
        &mut self,
        frame: &Frame,
        e: &'a ast::Expr,
        out: &mut Vec<&'a ast::ExprName>,
    ) -> bool {
        use ast::Expr as E;
        match e {
            E::Name(n) => {
                out.push(n);
                true
            }
            E::Lambda(_)
            | E::ListComp(_)
            | E::SetComp(_)
            | E::DictComp(_)
            | E::GeneratorExp(_)
            | E::NamedExpr(_)
            | E::Await(_)
            | E::Yield(_)
            | E::YieldFrom(_) => {
                self.error_at(
                    frame,
                    DiagnosticKind::UnsupportedExpression,
                    "this expression is not supported in an exception raised per element, or in a call run element by element (D23); compute it from plain names and calls".into(),
                    e,
                );
                false
            }
            _ => {
                let mut ok = true;
                for child in children(e) {
                    ok &= self.free_names(frame, child, out);
                }
                ok
            }
        }
    }
}

/// Why a helper's raise in a loop is rejected.
/// Reported while a loop is lowered without carrying raises; the loop is then lowered again
/// carrying them (`loops::lower_loop`), so this stands only in a discarded attempt.
const HELPER_IN_LOOP: &str = "a helper that can raise (a `raise`, an `assert`, or a `try` around an operation that can fail) is called inside a loop that does not carry raises (D11: docs/decisions.md#d11)";

/// The direct subexpressions of `e` (the ones `free_names` descends into).
fn children(e: &ast::Expr) -> Vec<&ast::Expr> {
    use ast::Expr as E;
    match e {
        E::BoolOp(b) => b.values.iter().collect(),
        E::BinOp(b) => vec![&*b.left, &*b.right],
        E::UnaryOp(u) => vec![&*u.operand],
        E::IfExp(i) => vec![&*i.test, &*i.body, &*i.orelse],
        E::Compare(c) => std::iter::once(&*c.left)
            .chain(c.comparators.iter())
            .collect(),
        E::Call(c) => std::iter::once(&*c.func)
            .chain(c.args.iter())
            .chain(c.keywords.iter().map(|k| &k.value))
            .collect(),
        E::FormattedValue(f) => std::iter::once(&*f.value)
            .chain(f.format_spec.iter().map(|s| &**s))
            .collect(),
        E::JoinedStr(j) => j.values.iter().collect(),
        E::Attribute(a) => vec![&*a.value],
        E::Subscript(s) => vec![&*s.value, &*s.slice],
        E::Starred(s) => vec![&*s.value],
        E::List(l) => l.elts.iter().collect(),
        E::Tuple(t) => t.elts.iter().collect(),
        E::Set(s) => s.elts.iter().collect(),
        E::Dict(d) => d.keys.iter().flatten().chain(d.values.iter()).collect(),
        E::Slice(s) => [&s.lower, &s.upper, &s.step]
            .into_iter()
            .flatten()
            .map(|b| &**b)
            .collect(),
        _ => vec![],
    }
}

/// Whether `body` holds a `raise`, an `assert` or a `try` (whose body's numeric errors are
/// raise sites), in nested `if`s and loops too.
pub(in crate::lower) fn contains_raise(body: &[ast::Stmt]) -> bool {
    body.iter().any(|s| match s {
        ast::Stmt::Raise(_) | ast::Stmt::Assert(_) | ast::Stmt::Try(_) => true,
        ast::Stmt::If(i) => contains_raise(&i.body) || contains_raise(&i.orelse),
        ast::Stmt::For(f) => contains_raise(&f.body) || contains_raise(&f.orelse),
        ast::Stmt::While(w) => contains_raise(&w.body) || contains_raise(&w.orelse),
        _ => false,
    })
}
