//! Statements: dispatch to the construct's file, assignments (plain, annotated, augmented,
//! tuple swaps), `return`, and nested `def`s and lambdas (inlined where called).

use std::rc::Rc;

use rustpython_parser::ast;

use crate::diagnostics::DiagnosticKind;
use crate::frontend::extract;
use crate::ir::Value;
use crate::lower::control::unbound::returns_none;
use crate::lower::expr::binop;
use crate::lower::{Done, Frame, LocalFn, Lowerer, Var};

impl Lowerer<'_> {
    /// One statement.
    pub(in crate::lower) fn stmt(&mut self, frame: &mut Frame, stmt: &ast::Stmt) {
        use ast::Stmt as S;
        if let Done::Mask(left) = frame.flow.exits.left {
            match stmt {
                S::For(f) => {
                    return self
                        .loop_after_partial_exit(frame, left, |l, fr| l.for_stmt(fr, f, stmt))
                }
                S::While(w) => {
                    return self
                        .loop_after_partial_exit(frame, left, |l, fr| l.while_stmt(fr, w, stmt))
                }
                _ => {}
            }
        }
        match stmt {
            S::Assign(a) => self.assign_stmt(frame, a, stmt),
            S::AnnAssign(a) => {
                if let (ast::Expr::Name(n), Some(value)) = (a.target.as_ref(), &a.value) {
                    let v = self.expr(frame, value);
                    self.assign(frame, n.id.as_str(), v);
                }
            }
            S::AugAssign(a) => self.aug_assign(frame, a),
            S::Return(r) => {
                // D20: None per lane (an error naming the element in the marked function).
                if returns_none(r.value.as_deref()) {
                    self.return_none(frame, stmt);
                    return;
                }
                let Some(value) = &r.value else { return };
                let v = match value.as_ref() {
                    ast::Expr::Tuple(t) => self.tuple_return(frame, t, stmt),
                    _ => self.expr(frame, value),
                };
                if self.calls.in_compiled_function()
                    && self.note_result_class(frame, v, value).is_err()
                {
                    return;
                }
                if self.calls.in_compiled_function() && self.is_mutable_container(v) {
                    // D18: an element of an array is a number, never a list.
                    self.container_error_at(frame, "a list or dict cannot be an element of the result: return a number, or several as a tuple (D13)", value.as_ref());
                    return;
                }
                let v = if self.calls.in_compiled_function() {
                    match self.returned_value(frame, v, stmt) {
                        Ok(v) => v,
                        Err(()) => return,
                    }
                } else {
                    v
                };
                self.note_return_site(frame, v, stmt);
                self.do_return(frame, v);
            }
            S::If(i) => {
                self.if_stmt(frame, i, &[]);
            }
            S::Raise(r) => self.raise_stmt(frame, r, stmt),
            S::Assert(a) => self.assert_stmt(frame, a, stmt),
            S::Try(t) => self.try_stmt(frame, t, stmt),
            S::Expr(e) => {
                if let ast::Expr::Call(c) = e.value.as_ref() {
                    self.call_stmt(frame, c, &e.value, stmt);
                }
            }
            S::For(f) => self.for_stmt(frame, f, stmt),
            S::While(w) => self.while_stmt(frame, w, stmt),
            S::Break(_) => self.loop_exit(frame, true),
            S::Continue(_) => self.loop_exit(frame, false),
            S::FunctionDef(d) => {
                let parsed = Rc::new(extract::from_def(frame.source, d));
                frame
                    .local_fns
                    .insert(d.name.to_string(), LocalFn { parsed });
                frame.vars.remove(d.name.as_str());
            }
            // Everything else was reported by validation.
            _ => {}
        }
    }

    /// `a = b = value`, `a, b = x, y` (every right-hand side first), and `f = lambda ...`.
    fn assign_stmt(&mut self, frame: &mut Frame, a: &ast::StmtAssign, stmt: &ast::Stmt) {
        if let ast::Expr::Lambda(l) = a.value.as_ref() {
            let parsed = Rc::new(extract::from_lambda(frame.source, l));
            for t in &a.targets {
                if let ast::Expr::Name(n) = t {
                    frame.local_fns.insert(
                        n.id.to_string(),
                        LocalFn {
                            parsed: parsed.clone(),
                        },
                    );
                    frame.vars.remove(n.id.as_str());
                }
            }
            return;
        }
        // `a, b = b, a`: every right-hand side first, then the bindings.
        if let (Some(ast::Expr::Tuple(tt)), ast::Expr::Tuple(vt)) =
            (a.targets.first(), a.value.as_ref())
        {
            if a.targets.len() == 1 && tt.elts.len() == vt.elts.len() {
                let values: Vec<Value> = vt.elts.iter().map(|e| self.expr(frame, e)).collect();
                for (t, v) in tt.elts.iter().zip(values) {
                    if let ast::Expr::Name(n) = t {
                        self.assign(frame, n.id.as_str(), v);
                    }
                }
                return;
            }
            if a.targets.len() == 1 {
                self.error_at(
                    frame,
                    DiagnosticKind::UnsupportedStatement,
                    format!(
                        "cannot unpack {} values into {} names",
                        vt.elts.len(),
                        tt.elts.len()
                    ),
                    stmt,
                );
                return;
            }
        }
        let v = self.expr(frame, &a.value);
        for t in &a.targets {
            match t {
                ast::Expr::Name(n) => self.assign(frame, n.id.as_str(), v),
                ast::Expr::Tuple(tt) => self.unpack(frame, tt, v, t),
                // D18: an item of a list or dict the function made.
                ast::Expr::Subscript(s) => self.store_item(frame, s, v, None),
                _ => {}
            }
        }
    }

    /// `name op= value`, and `c[k] op= value` on an item of a container (D18); `a += seq` on a
    /// list extends it in place (every name bound to it sees the items).
    fn aug_assign(&mut self, frame: &mut Frame, a: &ast::StmtAugAssign) {
        let Some(op) = binop(&a.op) else { return };
        match a.target.as_ref() {
            ast::Expr::Name(n) => {
                let cur = self.read_name(frame, n.id.as_str(), &a.target);
                let rhs = self.expr(frame, &a.value);
                if let Some(extended) = self.extend_in_place(frame, op, cur, rhs, &a.value) {
                    if let Ok(v) = extended {
                        self.assign(frame, n.id.as_str(), v);
                    }
                    return;
                }
                let v = match self.container_binop(frame, op, (cur, rhs), &a.value) {
                    Some(joined) => joined,
                    None => self.binary_at(frame, op, cur, rhs, &a.value),
                }
                .unwrap_or_else(|()| self.poison());
                self.assign(frame, n.id.as_str(), v);
            }
            ast::Expr::Subscript(s) => {
                // The container and the index are evaluated once, as CPython does.
                let key = self.expr(frame, &s.slice);
                let t = self.table(frame, &s.value, &a.target, false);
                let cur = t.and_then(|t| {
                    match self.container_index(frame, t, (&s.slice, key), &a.target) {
                        Some(item) => item,
                        None => self.table_index(frame, t, key, &a.target),
                    }
                });
                let rhs = self.expr(frame, &a.value);
                let v = cur
                    .and_then(|cur| self.binary_at(frame, op, cur, rhs, &a.value))
                    .unwrap_or_else(|()| self.poison());
                self.store_item(frame, s, v, Some(key));
            }
            _ => {}
        }
    }

    /// A call whose result is discarded: only an inlined helper (run for its raises, D11).
    fn call_stmt(
        &mut self,
        frame: &mut Frame,
        c: &ast::ExprCall,
        call: &ast::Expr,
        stmt: &ast::Stmt,
    ) {
        let id = std::ptr::from_ref(c) as usize;
        self.calls.expect_statement_call(id);
        let v = self.expr(frame, call);
        if self.calls.statement_call_unclaimed(id) && !self.poisoned.contains(&v) {
            self.error_at(
                frame,
                DiagnosticKind::SideEffect,
                "a call made for its side effects cannot be vectorized; remove it (its result would be discarded)".into(),
                stmt,
            );
        }
    }

    /// Binds `name` to `v` (naming `v` after it when it has no name yet).
    pub(in crate::lower) fn assign(&mut self, frame: &mut Frame, name: &str, v: Value) {
        if self.f.info(v).hint.is_none() {
            self.f.values[v.index()].hint = Some(name.to_string());
        }
        frame.vars.insert(name.to_string(), Var::Def(v));
        self.mark_bound(frame, name);
    }
}

#[cfg(test)]
mod tests {
    use crate::pipeline::testing::{errors, lowered};

    #[test]
    fn a_swap_reads_both_sides_first() {
        let ir = lowered("def f(x, y):\n    x, y = y, x\n    return x - y\n");
        assert!(ir.contains("sub %1, %0"), "{ir}");
    }

    #[test]
    fn unpacking_needs_matching_lengths() {
        let e = errors("def f(x):\n    a, b = x, x, x\n    return x\n");
        assert!(
            e.iter()
                .any(|m| m.contains("cannot unpack 3 values into 2 names")),
            "{e:?}"
        );
    }
}
