//! One call for the `sin` and the `cos` of one array (issue 30): where the statements of a
//! block evaluate both `xp.sin(a)` and `xp.cos(a)` of one name `a` while it keeps one value,
//!
//! ```text
//! sin, cos = _vec_sincos(xp, a)                     # before the first of them
//! step = (ecc - e * sin - m) / (1.0 - e * cos)      # was ... xp.sin(a) ... xp.cos(a) ...
//! ```
//!
//! `_vec_sincos` (runtime/trig.py) computes both in one pass of the C library's `sincos` on
//! large NumPy float64 arrays, where that gives `xp.sin`'s and `xp.cos`'s bits, and calls them
//! otherwise: every lane's value is the statements' as they were (D10). Newton's method on
//! Kepler's equation takes both on every iteration, and the two libm calls are most of its
//! time (docs/benchmarks.md). Only calls the statements make whatever the values are count (not
//! one side of a conditional expression, nor the right of `and`/`or`), so the pair computes
//! nothing they would not have, only earlier: both are pure functions of `a`, which keeps its
//! value over the run (it ends at the statement that binds `a`, and before a compound one).

use std::collections::{BTreeMap, BTreeSet};

use super::runtime::SINCOS;
use crate::codegen::pyast::{self, call, name, Expr, Stmt};

/// `body` with each `xp.sin(a)` and `xp.cos(a)` of a name `a` that a run of its statements
/// evaluates while `a` keeps one value read from `sin, cos = _vec_sincos(xp, a)`, made before
/// the first of them (in nested blocks too, each on its own). `fresh` names the pair; each
/// name made is appended to `made`.
pub(super) fn fuse_sin_cos(
    body: Vec<Stmt>,
    xp: &str,
    fresh: &mut dyn FnMut(&str) -> String,
    made: &mut Vec<String>,
) -> Vec<Stmt> {
    let body: Vec<Stmt> = body
        .into_iter()
        .map(|s| match s {
            Stmt::If(c, then, other) => {
                let then = fuse_sin_cos(then, xp, fresh, made);
                Stmt::If(c, then, fuse_sin_cos(other, xp, fresh, made))
            }
            Stmt::For(t, iter, inner) => Stmt::For(t, iter, fuse_sin_cos(inner, xp, fresh, made)),
            Stmt::While(test, inner) => Stmt::While(test, fuse_sin_cos(inner, xp, fresh, made)),
            s => s,
        })
        .collect();
    let runs = runs(&body, xp);
    if runs.is_empty() {
        return body;
    }
    let names: Vec<(String, String)> = runs.iter().map(|_| (fresh("sin"), fresh("cos"))).collect();
    made.extend(names.iter().flat_map(|(s, c)| [s.clone(), c.clone()]));
    let mut out = Vec::with_capacity(body.len() + runs.len());
    for (i, mut s) in body.into_iter().enumerate() {
        let mut pairs = Vec::new();
        for (run, (sin, cos)) in runs.iter().zip(&names) {
            if run.first == i {
                let pair = call(name(SINCOS.name), vec![name(xp), name(&run.name)]);
                out.push(Stmt::Assign(vec![sin.clone(), cos.clone()], vec![pair]));
            }
            if run.first <= i && i <= run.last {
                pairs.push((run.name.clone(), sin.clone(), cos.clone()));
            }
        }
        if !pairs.is_empty() {
            s = substituted(s, xp, &pairs);
        }
        out.push(s);
    }
    out
}

/// Statements `first..=last` of a block evaluate `xp.sin(name)` and `xp.cos(name)`, each on
/// every path, while `name` keeps one value.
struct Run {
    name: String,
    first: usize,
    last: usize,
}

/// The runs of `body`, in the order of their first statements. A run ends at the statement that
/// binds its name (which reads the name before it binds it), or before a compound statement.
fn runs(body: &[Stmt], xp: &str) -> Vec<Run> {
    // name -> (first statement, last statement, sin seen, cos seen)
    let mut open: BTreeMap<String, (usize, usize, bool, bool)> = BTreeMap::new();
    let mut runs = Vec::new();
    let mut close = |open: &mut BTreeMap<String, (usize, usize, bool, bool)>, name: &str| {
        if let Some((first, last, true, true)) = open.remove(name) {
            runs.push(Run {
                name: name.to_string(),
                first,
                last,
            });
        }
    };
    for (i, s) in body.iter().enumerate() {
        let (mut sines, mut cosines) = (BTreeSet::new(), BTreeSet::new());
        for e in exprs(s) {
            certain(e, xp, &mut sines, &mut cosines);
        }
        for a in sines.union(&cosines) {
            let entry = open.entry(a.clone()).or_insert((i, i, false, false));
            entry.1 = i;
            entry.2 |= sines.contains(a);
            entry.3 |= cosines.contains(a);
        }
        // Nothing open, nothing to close: no names copied (most statements of most bodies).
        if open.is_empty() {
            continue;
        }
        let bound: Vec<String> = match s {
            Stmt::Assign(targets, _) => targets.clone(),
            Stmt::AugAssign(t, _, _) => vec![t.clone()],
            Stmt::Return(_) | Stmt::Expr(_) | Stmt::Del(_) => vec![],
            _ => open.keys().cloned().collect(),
        };
        for a in bound {
            close(&mut open, &a);
        }
    }
    let names: Vec<String> = open.keys().cloned().collect();
    for a in names {
        close(&mut open, &a);
    }
    runs.sort_by_key(|r| r.first);
    runs
}

/// The expressions a simple statement evaluates.
fn exprs(s: &Stmt) -> Vec<&Expr> {
    match s {
        Stmt::Assign(_, values) => values.iter().collect(),
        Stmt::AugAssign(_, _, e) | Stmt::Return(e) | Stmt::Expr(e) => vec![e],
        _ => vec![],
    }
}

/// `Some(("sin" | "cos", a))` when `e` is `xp.sin(a)` or `xp.cos(a)` of a name `a`.
fn trig_call<'e>(e: &'e Expr, xp: &str) -> Option<(&'static str, &'e str)> {
    let Expr::Call(f, args, kwargs) = e else {
        return None;
    };
    let Expr::Attr(base, function @ ("sin" | "cos")) = &**f else {
        return None;
    };
    match (&**base, args.as_slice()) {
        (Expr::Name(x), [Expr::Name(a)]) if x == xp && kwargs.is_empty() => Some((function, a)),
        _ => None,
    }
}

/// Adds to `sines` and `cosines` the names `a` of each `xp.sin(a)` and `xp.cos(a)` that `e`
/// evaluates whatever its values: not inside a branch of a conditional expression, the right
/// operand of `and`/`or`, or a lambda.
fn certain(e: &Expr, xp: &str, sines: &mut BTreeSet<String>, cosines: &mut BTreeSet<String>) {
    if let Some((function, a)) = trig_call(e, xp) {
        let set = if function == "sin" { sines } else { cosines };
        set.insert(a.to_string());
        return;
    }
    let mut walk = |e: &Expr| certain(e, xp, sines, cosines);
    match e {
        Expr::Tuple(items) | Expr::List(items) => items.iter().for_each(walk),
        Expr::Attr(a, _) | Expr::Field(a, _) | Expr::Neg(a) | Expr::Pos(a) | Expr::Not(a) => {
            walk(a)
        }
        Expr::Call(f, args, kwargs) => {
            walk(f);
            args.iter().for_each(&mut walk);
            kwargs.iter().for_each(|(_, e)| walk(e));
        }
        Expr::Bin(_, a, b) | Expr::Cmp(_, a, b) | Expr::Subscript(a, b) => {
            walk(a);
            walk(b);
        }
        // Only the left operand and the test are evaluated on every path.
        Expr::BoolOp(_, a, _) | Expr::IfExp(a, _, _) => walk(a),
        Expr::Name(_)
        | Expr::Int(_)
        | Expr::Float(_)
        | Expr::Bool(_)
        | Expr::Str(_)
        | Expr::Text(_)
        | Expr::None
        | Expr::Lambda(..) => {}
    }
}

/// `s` reading the pair's names for `xp.sin(a)` and `xp.cos(a)` (`pairs`: `(a, sin, cos)`).
fn substituted(s: Stmt, xp: &str, pairs: &[(String, String, String)]) -> Stmt {
    let e = |e: Expr| substitute(e, xp, pairs);
    match s {
        Stmt::Assign(t, values) => Stmt::Assign(t, values.into_iter().map(e).collect()),
        Stmt::AugAssign(t, op, v) => Stmt::AugAssign(t, op, e(v)),
        Stmt::Return(v) => Stmt::Return(e(v)),
        Stmt::Expr(v) => Stmt::Expr(e(v)),
        s => s,
    }
}

fn substitute(e: Expr, xp: &str, pairs: &[(String, String, String)]) -> Expr {
    if let Some((function, a)) = trig_call(&e, xp) {
        if let Some((_, sin, cos)) = pairs.iter().find(|(p, _, _)| p == a) {
            return name(if function == "sin" { sin } else { cos });
        }
    }
    pyast::map_children(e, &mut |c| substitute(c, xp, pairs))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::codegen::pyast::bin;
    use crate::pipeline::testing::compiled;

    #[test]
    fn a_statement_taking_sin_and_cos_of_one_array_calls_sincos_once() {
        let src = "def f(m, e):\n    ecc = m\n    for _ in range(5):\n        ecc = ecc - (ecc - e * math.sin(ecc) - m) / (1.0 - e * math.cos(ecc))\n    return ecc\n";
        let c = compiled(src);
        // The float body; the int body and the exact body of the exact function.
        for (text, bodies) in [
            (&c.generated.fast_source, 1),
            (&c.generated.exact_source, 2),
        ] {
            assert_eq!(text.matches("_vec_sincos(xp, ").count(), bodies, "{text}");
            assert!(
                !text.contains("xp.sin(") && !text.contains("xp.cos("),
                "{text}"
            );
        }
    }

    fn trig(f: &'static str, a: &str) -> Expr {
        call(Expr::Attr(Box::new(name("xp")), f), vec![name(a)])
    }

    #[test]
    fn only_calls_made_on_every_path_count() {
        // An array `if` (D1) evaluates both sides: fused.
        let both =
            "def f(x, flag: bool):\n    return (math.sin(x) if flag else 0.0) + math.cos(x)\n";
        let text = &compiled(both).generated.fast_source;
        assert!(text.contains("sin, cos = _vec_sincos(xp, x)"), "{text}");
        // A Python conditional expression runs one side: its `sin` does not count.
        let side = Expr::IfExp(
            Box::new(name("flag")),
            Box::new(trig("sin", "x")),
            Box::new(Expr::Float(0.0)),
        );
        let body = vec![Stmt::Return(bin("+", side, trig("cos", "x")))];
        let mut made = Vec::new();
        let out = fuse_sin_cos(body.clone(), "xp", &mut |b| b.to_string(), &mut made);
        assert_eq!(out, body);
        // A run ends where its name is bound again.
        let body = vec![
            Stmt::Assign(vec!["a".into()], vec![trig("sin", "x")]),
            Stmt::Assign(vec!["x".into()], vec![name("a")]),
            Stmt::Return(trig("cos", "x")),
        ];
        let out = fuse_sin_cos(body.clone(), "xp", &mut |b| b.to_string(), &mut made);
        assert_eq!(out, body);
        assert!(made.is_empty());
    }
}
