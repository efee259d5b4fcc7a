//! `for` loops unrolled when compiling (D18): a loop that runs over a local container, or
//! whose body makes, changes or reads one of per-lane values, is lowered once per item, its
//! target bound to that item. The containers' lengths and every index into them are then
//! known, so an `append` adds one item, `a[k]` is the item itself, and a sum over coefficient
//! tables is straight-line code (repeated powers shared by common-subexpression elimination):
//!
//! ```python
//! s = 0.0                                     s = 0.0
//! for i, ni in zip(I, n):             ->      s = s + 0.5 * x ** 0
//!     s += ni * x ** i                        s = s + -1.2 * x ** 2     # I = [0, 2], n = [...]
//! ```
//!
//! Unrolling is exact: each iteration is the body's statements in order, as CPython runs them.
//! A loop that also breaks or continues, or whose trip count is known only per element (a
//! `range` with per-element bounds, a `while` loop), cannot make or change a container: its
//! length would depend on the elements, and it is rejected where the loop stands.

use rustpython_parser::ast;

use crate::diagnostics::DiagnosticKind;
use crate::lower::loops::exits::has_exit;
use crate::lower::values::reduce::Elem;
use crate::lower::{Frame, Lowerer, Var};

/// Most iterations a loop is unrolled to.
const MAX_UNROLLED_TRIPS: usize = 4096;

/// Builtins whose call makes a container (D18).
const MAKERS: &[&str] = &["list", "tuple", "dict", "zip", "enumerate", "reversed"];

impl Lowerer<'_> {
    /// Whether the `for` loop `f` is unrolled: it runs over a container the function made or
    /// a display, or its body makes or changes a container, or reads one of per-lane values.
    pub(in crate::lower) fn unrolls(&self, frame: &Frame, f: &ast::StmtFor) -> bool {
        let mut names = vec![];
        names_in(&f.iter, &mut names);
        let (changes, reads) = self.touches_containers(frame, &f.body);
        // A body that only reads a container of per-lane values (constant indices) may stay a
        // loop when it breaks or continues: a read by the loop index is then a select per item.
        let display = |e: &ast::Expr| matches!(e, ast::Expr::List(_) | ast::Expr::Tuple(_));
        // `reversed([a, b, x])`: the display's items last first.
        let maker_of_display = matches!(f.iter.as_ref(), ast::Expr::Call(c)
            if matches!(c.func.as_ref(), ast::Expr::Name(n) if n.id.as_str() == "reversed")
                && c.args.iter().any(display));
        display(&f.iter)
            || maker_of_display
            || names.iter().any(|n| self.holds_container(frame, n, false))
            || changes
            || (reads && !has_exit(&f.body, true, true))
    }

    /// Whether `name` holds a container (with `lanes`, one with an item that is not a constant).
    fn holds_container(&self, frame: &Frame, name: &str, lanes: bool) -> bool {
        match frame.vars.get(name) {
            Some(Var::Def(v)) => self
                .container(*v)
                .is_some_and(|t| !lanes || t.items.iter().any(|&i| self.const_of(i).is_none())),
            _ => false,
        }
    }

    /// Whether `body` (nested blocks too) makes or changes a container (lowered as a loop, its
    /// variables would carry containers through phis), and whether it reads one of per-lane
    /// values.
    fn touches_containers(&self, frame: &Frame, body: &[ast::Stmt]) -> (bool, bool) {
        body.iter().fold((false, false), |(c, r), s| {
            let (c2, r2) = self.stmt_touches(frame, s);
            (c || c2, r || r2)
        })
    }

    fn stmt_touches(&self, frame: &Frame, s: &ast::Stmt) -> (bool, bool) {
        use ast::Stmt as S;
        let mut names = vec![];
        // A container made, or a method of one called (`a.pop()`, `d.copy()`).
        let makes = |e: &ast::Expr| match e {
            ast::Expr::List(_)
            | ast::Expr::Tuple(_)
            | ast::Expr::Dict(_)
            | ast::Expr::ListComp(_)
            | ast::Expr::DictComp(_) => true,
            ast::Expr::Call(c) => match c.func.as_ref() {
                ast::Expr::Name(n) => MAKERS.contains(&n.id.as_str()),
                ast::Expr::Attribute(m) => {
                    matches!(m.value.as_ref(), ast::Expr::Name(n) if self.holds_container(frame, n.id.as_str(), false))
                }
                _ => false,
            },
            _ => false,
        };
        let changed = match s {
            S::Assign(a) => {
                a.targets.iter().for_each(|t| names_in(t, &mut names));
                names_in(&a.value, &mut names);
                // `a, b = b, a` binds names; it makes no tuple.
                let swap = matches!(
                    (a.targets.as_slice(), a.value.as_ref()),
                    ([ast::Expr::Tuple(_)], ast::Expr::Tuple(_))
                );
                (makes(&a.value) && !swap)
                    || a.targets.iter().any(|t| match t {
                        ast::Expr::Subscript(_) => true,
                        ast::Expr::Name(n) => self.holds_container(frame, n.id.as_str(), false),
                        _ => false,
                    })
            }
            S::AugAssign(a) => {
                names_in(&a.target, &mut names);
                names_in(&a.value, &mut names);
                match a.target.as_ref() {
                    ast::Expr::Subscript(_) => true,
                    ast::Expr::Name(n) => self.holds_container(frame, n.id.as_str(), false),
                    _ => false,
                }
            }
            S::AnnAssign(a) => {
                names_in(&a.target, &mut names);
                a.value.iter().for_each(|v| names_in(v, &mut names));
                a.value.as_deref().is_some_and(makes)
            }
            S::Expr(e) => {
                names_in(&e.value, &mut names);
                makes(&e.value)
            }
            S::Return(r) => {
                r.value.iter().for_each(|v| names_in(v, &mut names));
                false
            }
            S::If(i) => {
                names_in(&i.test, &mut names);
                return self.blocks_touch(frame, &[&i.body, &i.orelse], &names);
            }
            S::For(f) => {
                names_in(&f.iter, &mut names);
                return self.blocks_touch(frame, &[&f.body, &f.orelse], &names);
            }
            S::While(w) => {
                names_in(&w.test, &mut names);
                return self.blocks_touch(frame, &[&w.body, &w.orelse], &names);
            }
            S::Try(t) => {
                let mut blocks: Vec<&[ast::Stmt]> = vec![&t.body, &t.orelse, &t.finalbody];
                for h in &t.handlers {
                    let ast::ExceptHandler::ExceptHandler(h) = h;
                    blocks.push(&h.body);
                }
                return self.blocks_touch(frame, &blocks, &names);
            }
            S::Raise(r) => {
                r.exc.iter().for_each(|e| names_in(e, &mut names));
                false
            }
            S::Assert(a) => {
                names_in(&a.test, &mut names);
                false
            }
            _ => false,
        };
        (changed, self.reads_any(frame, &names))
    }

    /// [`Self::touches_containers`] of nested blocks, with the names their statement reads.
    fn blocks_touch(&self, frame: &Frame, blocks: &[&[ast::Stmt]], names: &[&str]) -> (bool, bool) {
        let mut out = (false, self.reads_any(frame, names));
        for b in blocks {
            let (changes, reads) = self.touches_containers(frame, b);
            out = (out.0 || changes, out.1 || reads);
        }
        out
    }

    /// Whether one of `names` holds a container of per-lane values.
    fn reads_any(&self, frame: &Frame, names: &[&str]) -> bool {
        names.iter().any(|n| self.holds_container(frame, n, true))
    }

    /// Lowers `for target in iter:` once per item (the module docs).
    pub(in crate::lower) fn unrolled_for(&mut self, frame: &mut Frame, f: &ast::StmtFor) {
        if has_exit(&f.body, true, true) {
            self.error_at(
                frame,
                DiagnosticKind::UnsupportedLoop,
                "a loop that makes, changes or reads a list, tuple or dict of per-element values cannot `break` or `continue` (D18): its containers' lengths would depend on the elements; keep a flag instead, or build the container before the loop".into(),
                &*f.iter,
            );
            return;
        }
        let Ok(items) = self.iterable(frame, &f.iter) else {
            return;
        };
        if items.len() > MAX_UNROLLED_TRIPS {
            self.error_at(
                frame,
                DiagnosticKind::TooComplex,
                format!("this loop makes, changes or runs over a container and would be unrolled to more than {MAX_UNROLLED_TRIPS} iterations (D18); use a constant table at module level"),
                &*f.iter,
            );
            return;
        }
        let (start, end) = crate::frontend::extract::span(&*f.target);
        for item in items {
            if self.ends_here(&mut frame.flow) {
                return;
            }
            if self
                .bind_loop_target(frame, &f.target, item, (start, end))
                .is_err()
            {
                return;
            }
            self.body(frame, &f.body);
        }
        self.body(frame, &f.orelse);
    }

    /// Binds a loop target (a name, or names unpacking the item) to an item, as an assignment.
    fn bind_loop_target(
        &mut self,
        frame: &mut Frame,
        t: &ast::Expr,
        item: Elem,
        (start, end): (usize, usize),
    ) -> Result<(), ()> {
        match (t, item) {
            (ast::Expr::Name(n), item) => {
                let v = self.elem_value(item, (frame.source, start, end));
                self.assign(frame, n.id.as_str(), v);
                Ok(())
            }
            (ast::Expr::Tuple(_), Elem::One(v)) => {
                let parts = self.container_elems(frame, v, t).unwrap_or(Err(()))?;
                self.bind_loop_target(frame, t, Elem::Tuple(parts), (start, end))
            }
            (ast::Expr::Tuple(tt), Elem::Tuple(parts)) if parts.len() == tt.elts.len() => {
                for (sub, part) in tt.elts.iter().zip(parts) {
                    self.bind_loop_target(frame, sub, part, (start, end))?;
                }
                Ok(())
            }
            (_, Elem::Tuple(parts)) => {
                self.error_at(
                    frame,
                    DiagnosticKind::UnsupportedLoop,
                    format!("cannot unpack {} values into these names", parts.len()),
                    t,
                );
                Err(())
            }
            _ => Err(()),
        }
    }
}

/// The names `e` reads (in nested expressions and comprehensions too).
pub(in crate::lower) fn names_in<'a>(e: &'a ast::Expr, out: &mut Vec<&'a str>) {
    use ast::Expr as E;
    let mut sub = |x: &'a ast::Expr| names_in(x, out);
    match e {
        E::Name(n) => out.push(n.id.as_str()),
        E::BoolOp(b) => b.values.iter().for_each(sub),
        E::NamedExpr(n) => {
            sub(&n.target);
            sub(&n.value);
        }
        E::BinOp(b) => {
            sub(&b.left);
            sub(&b.right);
        }
        E::UnaryOp(u) => sub(&u.operand),
        E::Lambda(l) => sub(&l.body),
        E::IfExp(i) => {
            sub(&i.test);
            sub(&i.body);
            sub(&i.orelse);
        }
        E::Dict(d) => {
            d.keys.iter().flatten().for_each(&mut sub);
            d.values.iter().for_each(sub);
        }
        E::Set(ast::ExprSet { elts, .. })
        | E::List(ast::ExprList { elts, .. })
        | E::Tuple(ast::ExprTuple { elts, .. }) => elts.iter().for_each(sub),
        E::ListComp(ast::ExprListComp {
            elt, generators, ..
        })
        | E::SetComp(ast::ExprSetComp {
            elt, generators, ..
        })
        | E::GeneratorExp(ast::ExprGeneratorExp {
            elt, generators, ..
        }) => {
            sub(elt);
            comprehension_names(generators, out);
        }
        E::DictComp(d) => {
            names_in(&d.key, out);
            names_in(&d.value, out);
            comprehension_names(&d.generators, out);
        }
        E::Compare(c) => {
            sub(&c.left);
            c.comparators.iter().for_each(sub);
        }
        E::Call(c) => {
            sub(&c.func);
            c.args.iter().for_each(&mut sub);
            c.keywords.iter().for_each(|k| names_in(&k.value, out));
        }
        E::FormattedValue(f) => sub(&f.value),
        E::JoinedStr(j) => j.values.iter().for_each(sub),
        E::Attribute(a) => sub(&a.value),
        E::Subscript(s) => {
            sub(&s.value);
            sub(&s.slice);
        }
        E::Starred(s) => sub(&s.value),
        E::Slice(s) => [&s.lower, &s.upper, &s.step]
            .into_iter()
            .flatten()
            .for_each(|b| names_in(b, out)),
        E::Await(_) | E::Yield(_) | E::YieldFrom(_) | E::Constant(_) => {}
    }
}

fn comprehension_names<'a>(gens: &'a [ast::Comprehension], out: &mut Vec<&'a str>) {
    for g in gens {
        names_in(&g.iter, out);
        g.ifs.iter().for_each(|c| names_in(c, out));
    }
}
