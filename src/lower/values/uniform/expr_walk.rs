//! The walk over a function's body that [`super::param_modes`] reads parameter uses
//! from (D14): every expression of every statement, nested ones included, displays and
//! comprehensions too (D18: `{0: cap is not None}` tests `cap` as `cap is not None` alone does),
//! and the names a call iterates (`iterated_args`, D15).

use rustpython_parser::ast;

use crate::env::{Binding, Env};

/// Calls `f` on every expression of `stmts`, nested ones included.
pub(in crate::lower::values) fn walk_stmts<'a>(
    stmts: &'a [ast::Stmt],
    f: &mut impl FnMut(&'a ast::Expr),
) {
    use ast::Stmt as S;
    for s in stmts {
        match s {
            S::Assign(a) => {
                a.targets.iter().for_each(|t| walk_expr(t, f));
                walk_expr(&a.value, f);
            }
            S::AugAssign(a) => {
                walk_expr(&a.target, f);
                walk_expr(&a.value, f);
            }
            S::AnnAssign(a) => a.value.iter().for_each(|v| walk_expr(v, f)),
            S::Return(r) => r.value.iter().for_each(|v| walk_expr(v, f)),
            S::Expr(e) => walk_expr(&e.value, f),
            S::If(i) => {
                walk_expr(&i.test, f);
                walk_stmts(&i.body, f);
                walk_stmts(&i.orelse, f);
            }
            S::While(w) => {
                walk_expr(&w.test, f);
                walk_stmts(&w.body, f);
                walk_stmts(&w.orelse, f);
            }
            S::For(l) => {
                walk_expr(&l.iter, f);
                walk_stmts(&l.body, f);
                walk_stmts(&l.orelse, f);
            }
            S::FunctionDef(d) => walk_stmts(&d.body, f),
            S::Assert(a) => {
                walk_expr(&a.test, f);
                a.msg.iter().for_each(|m| walk_expr(m, f));
            }
            S::Raise(r) => r.exc.iter().for_each(|e| walk_expr(e, f)),
            S::Try(t) => {
                walk_stmts(&t.body, f);
                for h in &t.handlers {
                    let ast::ExceptHandler::ExceptHandler(h) = h;
                    walk_stmts(&h.body, f);
                }
                walk_stmts(&t.orelse, f);
                walk_stmts(&t.finalbody, f);
            }
            _ => {}
        }
    }
}

/// Calls `f` on `e` and every expression inside it.
fn walk_expr<'a>(e: &'a ast::Expr, f: &mut impl FnMut(&'a ast::Expr)) {
    use ast::Expr as E;
    f(e);
    match e {
        E::BoolOp(b) => b.values.iter().for_each(|v| walk_expr(v, f)),
        E::NamedExpr(n) => walk_expr(&n.value, f),
        E::BinOp(b) => {
            walk_expr(&b.left, f);
            walk_expr(&b.right, f);
        }
        E::UnaryOp(u) => walk_expr(&u.operand, f),
        E::Lambda(l) => walk_expr(&l.body, f),
        E::IfExp(i) => {
            walk_expr(&i.test, f);
            walk_expr(&i.body, f);
            walk_expr(&i.orelse, f);
        }
        E::Compare(c) => {
            walk_expr(&c.left, f);
            c.comparators.iter().for_each(|v| walk_expr(v, f));
        }
        E::Call(c) => {
            walk_expr(&c.func, f);
            c.args.iter().for_each(|v| walk_expr(v, f));
            c.keywords.iter().for_each(|k| walk_expr(&k.value, f));
        }
        E::Attribute(a) => walk_expr(&a.value, f),
        E::Subscript(s) => {
            walk_expr(&s.value, f);
            walk_expr(&s.slice, f);
        }
        E::Tuple(t) => t.elts.iter().for_each(|v| walk_expr(v, f)),
        E::List(t) => t.elts.iter().for_each(|v| walk_expr(v, f)),
        E::Set(t) => t.elts.iter().for_each(|v| walk_expr(v, f)),
        // D18: a local dict's keys and items (`{0: cap is not None}`) are uses too.
        E::Dict(d) => {
            d.keys.iter().flatten().for_each(|k| walk_expr(k, f));
            d.values.iter().for_each(|v| walk_expr(v, f));
        }
        E::ListComp(c) => walk_comprehension(&[&c.elt], &c.generators, f),
        E::SetComp(c) => walk_comprehension(&[&c.elt], &c.generators, f),
        E::GeneratorExp(c) => walk_comprehension(&[&c.elt], &c.generators, f),
        E::DictComp(c) => walk_comprehension(&[&c.key, &c.value], &c.generators, f),
        E::Slice(s) => [&s.lower, &s.upper, &s.step]
            .into_iter()
            .flatten()
            .for_each(|v| walk_expr(v, f)),
        E::JoinedStr(j) => j.values.iter().for_each(|v| walk_expr(v, f)),
        E::FormattedValue(v) => walk_expr(&v.value, f),
        E::Starred(s) => walk_expr(&s.value, f),
        _ => {}
    }
}

/// Calls `f` on the expressions of a comprehension: its items, each generator's iterable and
/// filters.
fn walk_comprehension<'a>(
    items: &[&'a ast::Expr],
    generators: &'a [ast::Comprehension],
    f: &mut impl FnMut(&'a ast::Expr),
) {
    for g in generators {
        walk_expr(&g.iter, f);
        g.ifs.iter().for_each(|c| walk_expr(c, f));
    }
    items.iter().for_each(|e| walk_expr(e, f));
}

/// The names `stmts` unpack into several targets (`lower, upper = limits`) or loop over
/// (`for lo, hi, rate in brackets`), nested blocks included: a number can be neither, so such a
/// parameter is a sequence given per call (D14).
pub(in crate::lower::values) fn sequence_names<'a>(stmts: &'a [ast::Stmt], out: &mut Vec<&'a str>) {
    use ast::Stmt as S;
    for s in stmts {
        match s {
            S::Assign(a) => {
                let several = a
                    .targets
                    .iter()
                    .any(|t| matches!(t, ast::Expr::Tuple(_) | ast::Expr::List(_)));
                if let (true, ast::Expr::Name(n)) = (several, a.value.as_ref()) {
                    out.push(n.id.as_str());
                }
            }
            S::If(i) => {
                sequence_names(&i.body, out);
                sequence_names(&i.orelse, out);
            }
            S::While(w) => {
                sequence_names(&w.body, out);
                sequence_names(&w.orelse, out);
            }
            S::For(l) => {
                if let ast::Expr::Name(n) = l.iter.as_ref() {
                    out.push(n.id.as_str());
                }
                sequence_names(&l.body, out);
                sequence_names(&l.orelse, out);
            }
            S::Try(t) => {
                sequence_names(&t.body, out);
                for h in &t.handlers {
                    let ast::ExceptHandler::ExceptHandler(h) = h;
                    sequence_names(&h.body, out);
                }
                sequence_names(&t.orelse, out);
                sequence_names(&t.finalbody, out);
            }
            _ => {}
        }
    }
}

/// The names a call iterates, which no number can be, so a parameter among them is a sequence
/// given per call (D14, D15): the one argument of `len`, `sum`, `min`, `max`, `any`, `all`; every
/// argument of `zip` and the first of `enumerate`; the table `bisect` searches.
pub(in crate::lower::values) fn iterated_args<'a>(c: &'a ast::ExprCall, env: &Env) -> Vec<&'a str> {
    use ast::Expr as E;
    let name_of = |e: &'a ast::Expr| match e {
        E::Name(n) => Some(n.id.as_str()),
        _ => None,
    };
    let bisect = match c.func.as_ref() {
        E::Attribute(a) => {
            matches!(a.value.as_ref(), E::Name(m) if matches!(env.get(m.id.as_str()), Some(Binding::BisectModule)))
        }
        E::Name(f) => matches!(env.get(f.id.as_str()), Some(Binding::Bisect(_))),
        _ => false,
    };
    let args: Vec<&ast::Expr> = match c.func.as_ref() {
        _ if bisect => c.args.iter().take(1).collect(),
        E::Name(f) => match (f.id.as_str(), c.args.as_slice()) {
            ("len" | "sum" | "min" | "max" | "any" | "all", [one]) => vec![one],
            ("zip", all) => all.iter().collect(),
            ("enumerate", [first, ..]) => vec![first],
            _ => vec![],
        },
        _ => vec![],
    };
    args.into_iter().filter_map(name_of).collect()
}
