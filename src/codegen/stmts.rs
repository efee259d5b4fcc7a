//! Statements: a body's blocks, loops and ifs, and the conversion of each value entering a
//! merge or a loop phi to the kind and shape the merged variable holds.

use std::collections::BTreeSet;

use super::choice::{self, Coerce};
use super::dels::free_dead_arrays;
use super::loop_fn::functional_while_loops;
use super::pack::pack_while_loops;
use super::runtime::{ANY, BROADCAST, RAISED_TO_NAN, RAISES, RAISE_UNIFORM, RESULT, UNARY};
use super::sincos::fuse_sin_cos;
use super::Gen;
use crate::codegen::pyast::{call, cmp, name, Expr, Stmt};
use crate::ir::{Block, IfOut, Inst, Kind, Op, Phi, Value};

/// `range(start, stop, step)` without the arguments that are range's defaults.
fn range(start: i128, stop: i128, step: i128) -> Expr {
    let args = match (start, step) {
        (0, 1) => vec![Expr::Int(stop)],
        (s, 1) => vec![Expr::Int(s), Expr::Int(stop)],
        (s, st) => vec![Expr::Int(s), Expr::Int(stop), Expr::Int(st)],
    };
    call(name("range"), args)
}

impl Gen<'_> {
    /// The statements of the function's body, its return included, with dead arrays freed.
    pub(super) fn function_body(mut self) -> Vec<Stmt> {
        // The IR outlives the generator: borrowed, not cloned.
        let f = self.f;
        let mut out = self.block(&f.body);
        let nan_code = match &self.f.raises {
            Some(r) if r.nan => Some(self.value(r.code)),
            _ => None,
        };
        if let Some(r) = self.f.raises.as_ref().filter(|r| !r.nan) {
            // A raise code that is a Python int is the same on every lane (its conditions read
            // uniform values only, D14): a Python `if`, no array made, nothing to decide under a
            // trace. Else the first raising lane of the code array (D11).
            let uniform = self.scalar(r.code);
            let mut code = self.value(r.code);
            if uniform && !matches!(code, Expr::Name(_)) {
                // Read twice below: computed once.
                let n = self.taken.fresh("code");
                out.push(Stmt::Assign(vec![n.clone()], vec![code]));
                code = name(&n);
            }
            let mut args = vec![code.clone()];
            if uniform {
                let arrays = self.array_params.iter().map(|p| name(p)).collect();
                args.push(Expr::Tuple(arrays));
            }
            for site in &r.sites {
                let values = site.args.iter().map(|&a| self.value(a)).collect();
                let mut parts = vec![
                    Expr::Lambda(site.params.clone(), site.expr.clone()),
                    Expr::Tuple(values),
                ];
                // `raise ... from cause`: the cause, from the same lane's values.
                if let Some(cause) = &site.cause {
                    parts.push(Expr::Lambda(site.params.clone(), cause.clone()));
                }
                args.push(Expr::Tuple(parts));
            }
            if uniform {
                let check = Stmt::Expr(self.helper(&RAISE_UNIFORM, args));
                out.push(Stmt::If(cmp("!=", code, Expr::Int(0)), vec![check], vec![]));
            } else {
                out.push(Stmt::Expr(self.helper(&RAISES, args)));
            }
        }
        let mut values = Vec::with_capacity(self.f.ret.len());
        for &r in &f.ret {
            let mut e = self.value(r);
            // An int array that may be uint64 can be an intermediate of the uint64 lattice whose
            // lanes no single dtype holds: the helper gives the returned value one dtype
            // (docs/semantics.md item 13). Each position of a tuple result likewise (D13).
            // With nan_on_raise the result is float64: `_vec_raised_to_nan` converts each
            // lattice lane's own value, which the int64 of the one dtype would have wrapped.
            if !self.returns_raw && !self.scalar(r) && self.operand(r).wide && nan_code.is_none() {
                e = self.helper(&RESULT, vec![e]);
            }
            if let Some(code) = &nan_code {
                e = self.helper(&RAISED_TO_NAN, vec![code.clone(), e]);
            }
            values.push(e);
        }
        out.push(Stmt::Return(if let Some(class) = self.f.result_class {
            // Issue 27 (D13): the namedtuple class, a global of the generated module.
            call(name(&self.f.params[class]), values)
        } else if self.f.tuple {
            Expr::Tuple(values)
        } else {
            values.into_iter().next().unwrap_or(Expr::None)
        }));
        if self.float_body && !self.returns_raw {
            let taken = &mut self.taken;
            out = pack_while_loops(out, &self.xp, self.locals, &mut || taken.fresh("lanes"));
        }
        // Issue 30: a statement's `sin` and `cos` of one array from one call.
        let mut made = Vec::new();
        let taken = &mut self.taken;
        out = fuse_sin_cos(out, &self.xp, &mut |base| taken.fresh(base), &mut made);
        let mut arrays: BTreeSet<String> = (0..self.f.values.len())
            .filter(|&i| {
                !self.inline[i]
                    && !matches!(self.defs[i], Some(Op::Param(_)) | None)
                    && !self.scalar(Value(i as u32))
            })
            .filter_map(|i| self.names[i].clone())
            .collect();
        arrays.extend(made);
        let out = free_dead_arrays(out, &arrays);
        // D12: each masked loop a step function its namespace's loop construct can run.
        let taken = &mut self.taken;
        functional_while_loops(out, &self.xp, self.locals, &mut || taken.fresh("iteration"))
    }

    /// `values, raised = _vec_residue(...)` (D19, D23): the call gives its values and the lanes
    /// that raised (the `ScalarRaised` of it that follows in its block, if still read).
    fn scalar_call(&mut self, b: &Block, call: Value, values: String, e: Expr) -> Stmt {
        let raised = b.insts.iter().find_map(|inst| match inst {
            Inst::Let {
                dst,
                op: Op::ScalarRaised(v),
            } if *v == call => Some(*dst),
            _ => None,
        });
        match raised {
            Some(r) => {
                let r = self.name_of(r);
                Stmt::Assign(vec![values, r], vec![e])
            }
            None => Stmt::Assign(
                vec![values],
                vec![Expr::Subscript(Box::new(e), Box::new(Expr::Int(0)))],
            ),
        }
    }

    /// The statements of `b`. It walks the structure itself rather than through `ir::walk_steps`:
    /// each region becomes the nested statement list of the Python `for`, `while` or `if` it is
    /// printed as.
    fn block(&mut self, b: &Block) -> Vec<Stmt> {
        let mut out = vec![];
        for inst in &b.insts {
            match inst {
                Inst::Let { dst, op } => {
                    if self.inline[dst.index()] || matches!(op, Op::Param(_) | Op::ScalarRaised(_))
                    {
                        continue;
                    }
                    if let Some(stmts) = self.chain_stmts(*dst) {
                        out.extend(stmts);
                        continue;
                    }
                    let e = self.op(*dst, op);
                    let n = self.name_of(*dst);
                    if matches!(op, Op::ScalarCall { .. }) {
                        out.push(self.scalar_call(b, *dst, n, e));
                        continue;
                    }
                    out.push(Stmt::Assign(vec![n], vec![e]));
                }
                Inst::Loop {
                    phis,
                    body,
                    active: Some(a),
                    ..
                } => self.while_loop(*a, phis, body, &mut out),
                Inst::Loop {
                    index,
                    start,
                    stop,
                    step,
                    items,
                    phis,
                    body,
                    active: None,
                } => {
                    let iter = match items {
                        Some(t) => self.konst(t),
                        None => range(*start, *stop, *step),
                    };
                    self.for_loop(*index, iter, phis, body, &mut out);
                }
                Inst::If {
                    cond,
                    then,
                    other,
                    outs,
                } => out.push(self.if_stmt(*cond, then, other, outs)),
            }
        }
        out
    }

    /// The phis' initial values, then `for index in range(...)` (or in a tuple of constants)
    /// whose body ends by assigning the phis their next values.
    fn for_loop(
        &mut self,
        index: Value,
        iter: Expr,
        phis: &[Phi],
        body: &Block,
        out: &mut Vec<Stmt>,
    ) {
        let in_place: Vec<_> = phis.iter().map(|p| self.in_place(p, phis, body)).collect();
        let mut flags = vec![None; phis.len()];
        for (i, p) in phis.iter().enumerate() {
            let init = self.coerced(p.init, p.dst);
            let n = self.name_of(p.dst);
            out.push(Stmt::Assign(vec![n.clone()], vec![init]));
            if in_place[i].is_some() {
                let flag = self.taken.fresh(&format!("{n}_own"));
                out.push(Stmt::Assign(vec![flag.clone()], vec![Expr::None]));
                flags[i] = Some(flag);
            }
        }
        let idx = self.name_of(index);
        let mut inner = self.block(body);
        // An in-place update reads neither another phi nor another's next value, and no other
        // phi takes its array (`inplace`): it may come before the others' assignment.
        for (i, p) in phis.iter().enumerate() {
            if let (Some(plan), Some(flag)) = (&in_place[i], &flags[i]) {
                let fresh = self.coerced(p.next, p.dst);
                let var = self.name_of(p.dst);
                inner.push(self.in_place_update(plan, &var, flag, fresh));
            }
        }
        let (targets, values): (Vec<String>, Vec<Expr>) = phis
            .iter()
            .enumerate()
            .filter(|(i, p)| p.next != p.dst && in_place[*i].is_none())
            .map(|(_, p)| (self.name_of(p.dst), self.coerced(p.next, p.dst)))
            .unzip();
        if !targets.is_empty() {
            inner.push(Stmt::Assign(targets, values));
        }
        out.push(Stmt::For(idx, iter, inner));
    }

    /// The phis' initial values, then `while _vec_any(xp, active):` whose body ends by
    /// assigning the phis their next values (D12).
    fn while_loop(&mut self, active: Value, phis: &[Phi], body: &Block, out: &mut Vec<Stmt>) {
        for p in phis {
            let init = self.coerced(p.init, p.dst);
            let n = self.name_of(p.dst);
            out.push(Stmt::Assign(vec![n], vec![init]));
        }
        let mut inner = self.block(body);
        let (targets, values): (Vec<String>, Vec<Expr>) = phis
            .iter()
            .filter(|p| p.next != p.dst)
            .map(|p| (self.name_of(p.dst), self.coerced(p.next, p.dst)))
            .unzip();
        if !targets.is_empty() {
            inner.push(Stmt::Assign(targets, values));
        }
        let test = self.value(active);
        out.push(Stmt::While(self.helper(&ANY, vec![test]), inner));
    }

    /// `if cond:` with each branch ending by assigning the merged variables its values.
    fn if_stmt(&mut self, cond: Value, then: &Block, other: &Block, outs: &[IfOut]) -> Stmt {
        let c = self.value(cond);
        let mut t = self.block(then);
        let mut o = self.block(other);
        let targets: Vec<String> = outs.iter().map(|x| self.name_of(x.dst)).collect();
        if !targets.is_empty() {
            let tv = outs.iter().map(|x| self.coerced(x.then, x.dst)).collect();
            let ov = outs.iter().map(|x| self.coerced(x.other, x.dst)).collect();
            t.push(Stmt::Assign(targets.clone(), tv));
            o.push(Stmt::Assign(targets, ov));
        }
        Stmt::If(c, t, o)
    }

    /// `v` as the value of the merge or phi `dst` (`choice::coerce`).
    pub(super) fn coerced(&mut self, v: Value, dst: Value) -> Expr {
        let form = choice::coerce(
            self.operand(v),
            self.kind(dst),
            !self.scalar(dst),
            self.f.info(v).placeholder,
        );
        match form {
            Coerce::Broadcast => {
                let e = self.value(v);
                call(name(BROADCAST.name), vec![name(&self.xp), e])
            }
            Coerce::ScalarArray(k) => self.scalar_array(v, k),
            Coerce::Same => self.value(v),
            Coerce::PyCast(k) => {
                let e = self.value(v);
                let f = if k == Kind::Float { "float" } else { "int" };
                call(name(f), vec![e])
            }
            Coerce::AsType(k) => {
                let e = self.value(v);
                self.xcall("astype", vec![e, self.dtype(k)])
            }
            Coerce::Helper(key) => {
                let e = self.value(v);
                self.helper_op(&UNARY, key, vec![e])
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::pipeline::testing::compiled;

    #[test]
    fn a_range_loop_assigns_its_phis_before_and_at_the_end_of_the_body() {
        // (`i - acc * x`: the phi is no spine of an in-place chain, src/codegen/inplace.rs.)
        let c = compiled("def f(x):\n    acc = 0.0\n    for i in range(1, 4):\n        acc = i - acc * x\n    return acc\n");
        let fast = &c.generated.fast_source;
        assert!(
            fast.contains("    acc = _vec_f64(xp, 0.0)\n    for i in range(1, 4):\n"),
            "{fast}"
        );
        assert!(fast.contains("        acc = i - acc * x\n"), "{fast}");
    }

    #[test]
    fn a_while_loop_tests_its_mask_and_updates_active_lanes_only() {
        let c = compiled("def f(x):\n    k = 0\n    while x > 1.0:\n        x = x / 2\n        k += 1\n    return k\n");
        let fast = &c.generated.fast_source;
        // Run while any lane is active (`_vec_while`, src/codegen/loop_fn.rs).
        assert!(
            fast.contains(
                "    active, k, k_1, x_1 = _vec_while(xp, iteration, 0, active, k, k_1, x_1, lane_wise=True)\n"
            ),
            "{fast}"
        );
        assert!(fast.contains("xp.where(active, "), "{fast}");
    }

    #[test]
    fn a_loop_over_a_tuple_of_constants_prints_the_tuple() {
        let c = compiled(
            "W = (0.5, 0.25)\n\n@vectorize\ndef f(x):\n    acc = x\n    for w in W:\n        acc = acc * w\n    return acc\n",
        );
        assert!(c.source.contains("for w in (0.5, 0.25):"), "{}", c.source);
    }

    #[test]
    fn a_bool_entering_a_float_phi_is_converted_there() {
        let c = compiled("def f(x):\n    acc = x > 0.0\n    for i in range(2):\n        acc = acc + 0.5\n    return acc\n");
        let fast = &c.generated.fast_source;
        assert!(
            fast.contains("acc = xp.astype(x > 0.0, xp.float64)\n"),
            "{fast}"
        );
    }

    #[test]
    fn a_raise_on_uniform_values_is_a_python_if() {
        // D11 on a D14 check: every lane reaches the same raise; no broadcast array.
        let c = compiled("def f(x, params):\n    if params[\"k\"] > 1.0:\n        raise ValueError(\"k\")\n    return x * 2.0\n");
        let fast = &c.generated.fast_source;
        assert!(
            fast.contains("    if code != 0:\n        _vec_raise_uniform(xp, code, (x,), "),
            "{fast}"
        );
        assert!(!c.source.contains("_vec_raises("), "{}", c.source);
        // A per-lane raise beside it: the code is an array, checked lane by lane.
        let c = compiled("def f(x, params):\n    if params[\"k\"] > 1.0:\n        raise ValueError(\"k\")\n    if x < 0.0:\n        raise ValueError(\"x\")\n    return x\n");
        assert!(
            c.generated.fast_source.contains("_vec_raises(xp, "),
            "{}",
            c.source
        );
        assert!(!c.source.contains("_vec_raise_uniform"), "{}", c.source);
    }

    #[test]
    fn range_prints_only_the_arguments_it_needs() {
        let print = |s, e, st| crate::codegen::pyast::expr(&super::range(s, e, st));
        assert_eq!(print(0, 5, 1), "range(5)");
        assert_eq!(print(2, 5, 1), "range(2, 5)");
        assert_eq!(print(5, 0, -2), "range(5, 0, -2)");
    }
}
