//! Masked `while` loops as a step function and a driver (D12), so that a namespace with a loop
//! construct of its own runs them there (`jax.lax.while_loop` under `jax.jit`).
//!
//! A masked loop (src/codegen/stmts.rs, packed or not by src/codegen/pack.rs) becomes
//!
//! ```text
//! def iteration(active, n, w):                   # the loop's carried variables
//!     ...                                        # the body as it was
//!     return (active, n, w)
//! active, n, w = _vec_while(xp, iteration, 0, active, n, w)    # 0: the mask's position
//! ```
//!
//! `_vec_while` (runtime/loops.py) calls `iteration` while any lane of the mask is true, as the
//! `while _vec_any(xp, active):` loop did: every lane takes the same operations in the same
//! order, so results are bit for bit those of the loop. Where the values are traced (JAX), it
//! runs the same function as the body of `jax.lax.while_loop`. The body reads the function's
//! other locals through the closure; the variables it binds that nothing outside binds are its
//! own temporaries. A loop whose temporaries something outside reads keeps its `while`.

use std::collections::BTreeSet;

use super::pack::{has_while_loop, loop_mask, outside_loop, rewrite_while_loops, writes};
use super::runtime::{IFEXP, PACK, WHILE};
use crate::codegen::pyast::{self, call, name, reads, Expr, Stmt};

/// `body` (a function's statements, `params` its parameters) with each masked
/// `while _vec_any(xp, mask):` loop made a step function driven by `_vec_while`; `fresh` names
/// the step functions.
pub(super) fn functional_while_loops(
    body: Vec<Stmt>,
    xp: &str,
    params: &[String],
    fresh: &mut dyn FnMut() -> String,
) -> Vec<Stmt> {
    if !has_while_loop(&body) {
        return body;
    }
    let all = body.clone();
    let mut rewriter = Rewriter {
        xp,
        params,
        fresh,
        function: &all,
    };
    rewrite_while_loops(
        body,
        &mut |test, original, inner, out| match rewriter.plan(&test, original) {
            Some((mask, carried)) => rewriter.driven(mask, &carried, inner, out),
            None => out.push(Stmt::While(test, inner)),
        },
    )
}

struct Rewriter<'a> {
    xp: &'a str,
    params: &'a [String],
    fresh: &'a mut dyn FnMut() -> String,
    /// The whole function, as it was: what is read and bound outside each loop.
    function: &'a [Stmt],
}

impl Rewriter<'_> {
    /// The mask's position among the carried variables, and those variables (the names the
    /// body binds that the function binds elsewhere too), when the loop is a masked loop whose
    /// own temporaries nothing outside it reads.
    fn plan(&self, test: &Expr, inner: &[Stmt]) -> Option<(usize, Vec<String>)> {
        let mask = loop_mask(test, self.xp)?;
        let mut written = BTreeSet::new();
        inner.iter().for_each(|s| writes(s, &mut written));
        let mut bound: BTreeSet<String> = self.params.iter().cloned().collect();
        let mut read = BTreeSet::new();
        outside_loop(self.function, inner, &mut bound, &mut read);
        let carried: Vec<String> = written
            .iter()
            .filter(|n| bound.contains(*n))
            .cloned()
            .collect();
        let position = carried.iter().position(|n| *n == mask)?;
        if written
            .iter()
            .any(|n| !bound.contains(n) && read.contains(n))
        {
            return None;
        }
        Some((position, carried))
    }

    fn driven(&mut self, mask: usize, carried: &[String], inner: Vec<Stmt>, out: &mut Vec<Stmt>) {
        let step = (self.fresh)();
        // D12: a loop pack.rs packs on NumPy computes each lane from its own values, which its
        // step takes as arguments: under tracing the runtime may pack its lanes too.
        let lane_wise = if packed(&inner) {
            vec![("lane_wise".to_string(), Expr::Bool(true))]
        } else {
            vec![]
        };
        let values: Vec<Expr> = carried.iter().map(|n| name(n)).collect();
        let mut bound: BTreeSet<String> = carried.iter().cloned().collect();
        inner.iter().for_each(|s| writes(s, &mut bound));
        let mut body = keep_carried(inner, carried)
            .into_iter()
            .map(|s| lazy_conditionals(s, &bound, self.xp))
            .collect::<Vec<_>>();
        body.push(Stmt::Return(Expr::Tuple(values.clone())));
        out.push(Stmt::Def {
            name: step.clone(),
            params: carried.to_vec(),
            posonly: 0,
            kwonly: vec![],
            body,
        });
        let mut args = vec![name(self.xp), name(&step), Expr::Int(mask as i128)];
        args.extend(values);
        let mut driver = Expr::Call(Box::new(name(WHILE.name)), args, lane_wise);
        if carried.len() == 1 {
            driver = Expr::Subscript(Box::new(driver), Box::new(Expr::Int(0)));
        }
        out.push(Stmt::Assign(carried.to_vec(), vec![driver]));
    }
}

/// Whether `inner` is the body of a loop src/codegen/pack.rs packed: it starts with
/// `if lanes is not None: ... = _vec_pack(...)`.
fn packed(inner: &[Stmt]) -> bool {
    let Some(Stmt::If(_, then, other)) = inner.first() else {
        return false;
    };
    other.is_empty()
        && matches!(then.as_slice(), [Stmt::Assign(_, values)]
            if matches!(values.as_slice(), [Expr::Call(f, _, _)] if **f == name(PACK.name)))
}

/// `stmts` without the `del` of a carried variable: the step returns every carried variable,
/// so none may be freed inside it (one no later iteration reads is freed after the loop).
fn keep_carried(stmts: Vec<Stmt>, carried: &[String]) -> Vec<Stmt> {
    let mut out = Vec::with_capacity(stmts.len());
    for s in stmts {
        match s {
            Stmt::Del(names) => {
                let names: Vec<String> =
                    names.into_iter().filter(|n| !carried.contains(n)).collect();
                if !names.is_empty() {
                    out.push(Stmt::Del(names));
                }
            }
            Stmt::If(c, then, other) => out.push(Stmt::If(
                c,
                keep_carried(then, carried),
                keep_carried(other, carried),
            )),
            Stmt::For(t, iter, body) => out.push(Stmt::For(t, iter, keep_carried(body, carried))),
            Stmt::While(test, body) => out.push(Stmt::While(test, keep_carried(body, carried))),
            s => out.push(s),
        }
    }
    out
}

/// `s` with each conditional expression whose test reads a name the step binds (`bound`: a
/// counter the same on every lane, carried by the loop, `n_1 < 50`) made
/// `_vec_ifexp(xp, test, lambda: (then), lambda: (other))`: on concrete values the side the
/// test picks runs, as the conditional did; under `jax.lax.while_loop` (D12) the carried
/// counter is traced, and the runtime selects between both sides per lane instead of asking
/// Python for the tracer's truth. The step is the last pass of codegen: nothing analyses the
/// lambdas' text after this.
fn lazy_conditionals(s: Stmt, bound: &BTreeSet<String>, xp: &str) -> Stmt {
    let e = |e: Expr| lazy_expr(e, bound, xp);
    let block = |b: Vec<Stmt>| {
        b.into_iter()
            .map(|s| lazy_conditionals(s, bound, xp))
            .collect()
    };
    match s {
        Stmt::Assign(t, values) => Stmt::Assign(t, values.into_iter().map(e).collect()),
        Stmt::AugAssign(t, op, v) => Stmt::AugAssign(t, op, e(v)),
        Stmt::Return(v) => Stmt::Return(e(v)),
        Stmt::Expr(v) => Stmt::Expr(e(v)),
        Stmt::If(c, then, other) => Stmt::If(e(c), block(then), block(other)),
        Stmt::For(t, iter, body) => Stmt::For(t, e(iter), block(body)),
        Stmt::While(test, body) => Stmt::While(e(test), block(body)),
        // A nested step binds its own names and is rewritten when it is made.
        s @ (Stmt::Del(_) | Stmt::Def { .. }) => s,
    }
}

fn lazy_expr(e: Expr, bound: &BTreeSet<String>, xp: &str) -> Expr {
    match e {
        Expr::IfExp(c, a, b) => {
            let (c, a, b) = (
                lazy_expr(*c, bound, xp),
                lazy_expr(*a, bound, xp),
                lazy_expr(*b, bound, xp),
            );
            let traced = {
                let test = Stmt::Expr(c.clone());
                let mut read = BTreeSet::new();
                reads(&test, &mut read);
                read.iter().any(|n| bound.contains(*n))
            };
            if !traced {
                return Expr::IfExp(Box::new(c), Box::new(a), Box::new(b));
            }
            let thunk = |e: &Expr| Expr::Lambda(vec![], pyast::expr(e));
            call(name(IFEXP.name), vec![name(xp), c, thunk(&a), thunk(&b)])
        }
        e => pyast::map_children(e, &mut |c| lazy_expr(c, bound, xp)),
    }
}

#[cfg(test)]
mod tests {
    use crate::pipeline::testing::compiled;

    const NEWTON: &str = "def f(x):\n    y = x\n    while abs(y * y - x) > 1e-12 * x:\n        y = 0.5 * (y + x / y)\n    return y\n";

    #[test]
    fn a_masked_while_loop_is_a_step_function_driven_by_the_runtime() {
        let c = compiled(NEWTON);
        for text in [&c.generated.fast_source, &c.generated.exact_source] {
            assert!(!text.contains("while "), "{text}");
            assert!(text.contains("    def iteration("), "{text}");
            assert!(text.contains(" = _vec_while(xp, iteration, "), "{text}");
        }
        // The float body's loop is lane-wise (pack.rs packs it): the runtime may pack it under
        // tracing too (D12); the exact body's, unpacked, runs every lane there.
        let (fast, exact) = (&c.generated.fast_source, &c.generated.exact_source);
        assert!(fast.contains(", lane_wise=True)\n"), "{fast}");
        assert!(!exact.contains("lane_wise"), "{exact}");
    }

    #[test]
    fn a_conditional_on_a_carried_counter_is_a_lazy_select() {
        // D12 under jax.jit: `n` is carried by the loop, so its test is traced there.
        let src = "def f(m):\n    x = m\n    n = 0\n    while n < 50:\n        x = x - 0.5 * x\n        if abs(x) < 1e-12:\n            return x\n        n += 1\n    return x\n";
        let c = compiled(src);
        let text = &c.generated.fast_source;
        assert!(
            text.contains("_vec_ifexp(xp, n_1 < 50, (lambda : ("),
            "{text}"
        );
        assert!(!text.contains(" if n_1 < 50 else "), "{text}");
    }
}
