//! `raise` and `assert` inside loops (D11 with D6/D12): a lane that raises in an iteration leaves
//! the loop as a lane that returns does (it is done: a masked loop drops it from its activity),
//! with the site's code; the other lanes go on. The loop carries each lane's raise code (0 until
//! it raises) as a phi, which the body's returns start with as a raise entry on the lanes done
//! before the iteration (so a lane keeps the code of its first exit), and a snapshot of every
//! value a raise site inside the body reads, taken in the iteration where the lane's code
//! changed: the message is built after the body from the values the lane had at its raise.
//! After the loop, the lanes whose code is nonzero are one raise entry, ahead of the loop's
//! returns. Which element raises is then CPython's: the first one in C order, whatever the
//! iteration it raised in (the element loop runs each element's iterations to the end first).

use crate::Map as HashMap;

use crate::diagnostics::DiagnosticKind;
use crate::ir::{Block, CmpOp, Const, Inst, Kind, ObjLit, Op, Phi, Shape, UniformOp, Value};
use crate::lower::{Flow, Frame, Lowerer, Var};

/// What a raise site inside a loop may read (`leave_loop_raises`, `raise::push_site`).
pub(in crate::lower) const LOOP_MESSAGE_READS: &str = "an exception raised inside a loop may read numbers, the function's parameters and uniform values (D14) from before the loop, not a tuple or a uniform value the loop computes; build the message from those";

/// The phis of a loop's variables that its body leaves as they were (`phis`: by name), with the
/// values they start with (`outer`: the variables before the loop).
pub(in crate::lower) fn unchanged_phis(
    phis: &[(String, Value)],
    body_vars: &HashMap<String, Var>,
    outer: &HashMap<String, Var>,
) -> HashMap<Value, Value> {
    phis.iter()
        .filter_map(|(name, dst)| {
            let changed = matches!(body_vars.get(name), Some(Var::Def(v)) if v != dst);
            match outer.get(name) {
                Some(Var::Def(init)) if !changed => Some((*dst, *init)),
                _ => None,
            }
        })
        .collect()
}

/// The raise state a loop whose body can raise carries.
pub(in crate::lower) struct LoopRaises {
    /// The phi of each lane's raise code.
    code: Value,
    /// Its value at the end of the body.
    next: Option<Value>,
    /// The snapshot phi of each raise site value defined in the body, and its next value.
    snapshots: Vec<(Value, Value)>,
    /// The phi of each uniform value (D14) a raise site reads that the body computes the same
    /// in every iteration, and that value: the last iteration's is the one read at the raise.
    invariant: Vec<(Value, Value)>,
    /// How many values and raise sites there were when the body started.
    values_mark: usize,
    sites_mark: usize,
}

impl Lowerer<'_> {
    /// Lowers a loop's body; with `raises`, the loop carries the raises inside it, else a raise
    /// there is reported (`raise::no_raise_here`).
    pub(in crate::lower) fn loop_body(
        &mut self,
        frame: &mut Frame,
        body: &[rustpython_parser::ast::Stmt],
        raises: bool,
    ) {
        let unprepared = usize::from(!raises);
        self.loops.depth += 1;
        self.loops.without_raises += unprepared;
        self.body(frame, body);
        self.loops.without_raises -= unprepared;
        self.loops.depth -= 1;
    }

    /// Before the body of a loop that carries `raises`: the phi of the raise code, as the first
    /// entry of the body's returns on the lanes `done` before the iteration. Values from
    /// `values_mark` on are the loop's (its index and phis included).
    pub(in crate::lower) fn enter_loop_raises(
        &mut self,
        frame: &mut Frame,
        raises: bool,
        done: Option<Value>,
        values_mark: usize,
    ) -> Option<LoopRaises> {
        if !raises {
            return None;
        }
        let code = self
            .f
            .new_value(Kind::Int, Shape::Array, Some("raised".into()));
        self.exceptions.add_code(code);
        frame.flow.returns.insert(0, (done, code));
        Some(LoopRaises {
            code,
            next: None,
            snapshots: vec![],
            invariant: vec![],
            values_mark,
            sites_mark: self.exceptions.site_count(),
        })
    }

    /// At the end of the body (emitted into `block`): the next raise code, and the snapshots of
    /// the values the body's raise sites read, which the sites read instead. A uniform value
    /// (D14) has no array to snapshot: a site may read one from before the loop, also through a
    /// phi the body never changes (`unchanged`: the phi and the value it starts with), or one the
    /// body computes from those alone (`rates['low']`, `mode.value`), the same whenever it is
    /// computed (also under a Python `if` of the body, on some iterations only), which a phi
    /// carries out of the loop; no other.
    pub(in crate::lower) fn leave_loop_raises(
        &mut self,
        block: &mut Block,
        flow: &Flow,
        r: &mut LoopRaises,
        unchanged: &HashMap<Value, Value>,
    ) {
        let returns = flow.returns.clone();
        let mut invariant: Vec<Value> = self
            .exceptions
            .site_args_from(r.sites_mark)
            .into_iter()
            .map(|(_, _, a)| a)
            .filter(|&a| {
                a.index() >= r.values_mark
                    && self.kind(a) == Kind::Object
                    && !self.values.is_uniform_arg(a)
                    && !unchanged.contains_key(&a)
                    && invariant_uniform(self, block, a, r.values_mark, unchanged)
            })
            .collect();
        invariant.sort();
        invariant.dedup(); // two sites may read one value
                           // An inner loop's phi of such a value starts from this loop's (`carry_from_outer`).
        let carried: Vec<(Value, Value)> = invariant
            .iter()
            .map(|&a| (a, self.f.new_value(Kind::Object, Shape::Scalar, None)))
            .collect();
        carry_from_outer(block, &carried);
        // One a Python `if` computes leaves it merged with a placeholder (`scalar_if`): the
        // value carried so far stands there instead (`carry_through_ifs`).
        for &(a, dst) in &carried {
            carry_through_ifs(self, block, a, dst);
        }
        self.in_block(block, |l| {
            let next = l.raise_chain(&returns, false).unwrap_or(r.code);
            let next = l.as_mask(next);
            let changed = l.emit(Op::Compare(CmpOp::Ne, next, r.code));
            for (site, i, a) in l.exceptions.site_args_from(r.sites_mark) {
                if a.index() < r.values_mark || l.values.is_uniform_arg(a) {
                    continue;
                }
                if l.kind(a) == Kind::Object {
                    match unchanged.get(&a) {
                        Some(&init) => l.exceptions.set_site_arg(site, i, init),
                        None if invariant.contains(&a) => {
                            let Some(&(_, dst)) = carried.iter().find(|(v, _)| *v == a) else {
                                continue;
                            };
                            l.f.values[dst.index()].hint = l.f.info(a).hint.clone();
                            if !r.invariant.iter().any(|&(d, _)| d == dst) {
                                r.invariant.push((dst, a));
                                l.loops.function.message_phis.insert(dst);
                            }
                            l.exceptions.set_site_arg(site, i, dst);
                        }
                        None => l.uniform_read_in_loop(site),
                    }
                    continue;
                }
                let hint = l.f.info(a).hint.clone();
                let dst = l.f.new_value(l.kind(a), Shape::Array, hint);
                let next = l.select(changed, a, dst);
                r.snapshots.push((dst, next));
                l.exceptions.set_site_arg(site, i, dst);
            }
            r.next = Some(next);
        });
    }

    /// Reports that raise site `site` reads a uniform value its loop defines.
    fn uniform_read_in_loop(&mut self, site: usize) {
        if let Some((source, (start, end))) = self.exceptions.site_at(site) {
            self.error(
                DiagnosticKind::UnsupportedStatement,
                LOOP_MESSAGE_READS.into(),
                source,
                start,
                end,
            );
        }
    }

    /// The phis of the raise code (0 on entry) and of the snapshots (placeholders on entry: a
    /// lane reads its snapshot only if it raised), emitted before the loop.
    pub(in crate::lower) fn loop_raise_phis(
        &mut self,
        r: Option<&LoopRaises>,
        phis: &mut Vec<Phi>,
    ) {
        let Some(r) = r else {
            return;
        };
        let zero = self.konst(Const::Int(0));
        let init = self.emit(Op::AsArray(zero));
        let next = r.next.unwrap_or(r.code);
        phis.push(Phi {
            dst: r.code,
            init,
            next,
        });
        for &(dst, next) in &r.snapshots {
            let init = self.placeholder(dst);
            phis.push(Phi { dst, init, next });
        }
        // D14: `None` until the body computes the value (a lane reads it only if it raised).
        for &(dst, next) in &r.invariant {
            let init = self.uniform(UniformOp::Lit(ObjLit::None), vec![]);
            phis.push(Phi { dst, init, next });
        }
    }

    /// After the loop: the lanes that raised inside it, as a raise entry after the returns from
    /// before it (`outer`), ahead of the loop's own returns.
    pub(in crate::lower) fn exit_loop_raises(
        &mut self,
        frame: &Frame,
        r: Option<&LoopRaises>,
        outer: &mut Flow,
    ) {
        let Some(r) = r else {
            return;
        };
        let zero = self.konst(Const::Int(0));
        let raised = self.emit(Op::Compare(CmpOp::Ne, r.code, zero));
        let entry = self.and_opt(frame.cond, Some(raised));
        outer.returns.push((entry, r.code));
    }
}

/// Whether uniform value `v` is defined in the loop's `body` by uniform operations (D14: items,
/// attributes, literals) of values from before the loop (`values_mark`), the function's uniform
/// arguments and phis the body leaves unchanged, or is an inner loop's phi carrying such a value
/// out of it: the same value on every iteration it is computed in, read without side effects.
/// It may be computed inside a Python `if` of the body (on a loop index: fuzz 750008 #1123, a
/// helper's parameter `r0(rates['high'], w1)` under `if i2:`): `v` is then the `if`'s merge of
/// it with a placeholder, which `carry_through_ifs` makes the value carried so far.
fn invariant_uniform(
    l: &Lowerer<'_>,
    body: &Block,
    v: Value,
    values_mark: usize,
    unchanged: &HashMap<Value, Value>,
) -> bool {
    invariant_in(l, body, body, v, values_mark, unchanged)
}

/// `invariant_uniform` of `v` defined in `block`, a block of the loop body `top` (itself or a
/// branch of a Python `if` in it, at any depth); the values `v` is computed from are looked up
/// from `top` (SSA: each is defined once, ahead of its reads).
fn invariant_in(
    l: &Lowerer<'_>,
    top: &Block,
    block: &Block,
    v: Value,
    values_mark: usize,
    unchanged: &HashMap<Value, Value>,
) -> bool {
    if v.index() < values_mark || l.values.is_uniform_arg(v) || unchanged.contains_key(&v) {
        return true;
    }
    let phis = &l.loops.function.message_phis;
    block.insts.iter().any(|inst| match inst {
        Inst::Loop {
            phis: loop_phis,
            body: inner,
            ..
        } if phis.contains(&v) => loop_phis
            .iter()
            .any(|p| p.dst == v && invariant_uniform(l, inner, p.next, values_mark, unchanged)),
        Inst::Let {
            dst,
            op: Op::Uniform(op, args),
        } if *dst == v => {
            matches!(
                op,
                UniformOp::Lit(_) | UniformOp::Global(_) | UniformOp::Attr(_) | UniformOp::Item
            ) && args
                .iter()
                .all(|a| invariant_in(l, top, top, *a, values_mark, unchanged))
        }
        // A Python `if`'s merge of such a value computed on one side with what stands on the
        // other: a placeholder (`scalar_if`: the site is not reached there) or, once
        // `carry_through_ifs` replaced it, the value carried so far (a message phi, which only
        // ever carries such values: `None` before the first). Not a program's merge of two such
        // values, which may differ from one iteration to the next.
        Inst::If { outs, .. } if outs.iter().any(|o| o.dst == v) => {
            let filler = |x: Value| phis.contains(&x) || object_placeholder(l, x);
            outs.iter().filter(|o| o.dst == v).all(|o| {
                let (t, e) = (o.then, o.other);
                (filler(e) && invariant_in(l, top, top, t, values_mark, unchanged))
                    || (filler(t) && invariant_in(l, top, top, e, values_mark, unchanged))
            })
        }
        Inst::If { then, other, .. } => {
            invariant_in(l, top, then, v, values_mark, unchanged)
                || invariant_in(l, top, other, v, values_mark, unchanged)
        }
        _ => false,
    })
}

/// Where `v` is a Python `if`'s merge in `block` (a loop body, inside its `if`s too) of a value
/// computed on one side with a placeholder on the other (`invariant_in`): `carried` (the loop's
/// phi of it, the value of an earlier iteration) stands for the placeholder, through the merges
/// of nested `if`s, so the merge is the last value computed.
fn carry_through_ifs(l: &Lowerer<'_>, block: &mut Block, v: Value, carried: Value) {
    for inst in &mut block.insts {
        let Inst::If {
            then, other, outs, ..
        } = inst
        else {
            continue;
        };
        let mut inner = vec![];
        for o in outs.iter_mut().filter(|o| o.dst == v) {
            if object_placeholder(l, o.other) {
                o.other = carried;
                inner.push((true, o.then));
            } else if object_placeholder(l, o.then) {
                o.then = carried;
                inner.push((false, o.other));
            }
        }
        if inner.is_empty() {
            carry_through_ifs(l, then, v, carried);
            carry_through_ifs(l, other, v, carried);
            continue;
        }
        for (on_then, w) in inner {
            carry_through_ifs(l, if on_then { then } else { other }, w, carried);
        }
        return;
    }
}

/// Whether `v` is a placeholder standing for a uniform value (D14) on a side of a Python `if`
/// where it is not computed.
fn object_placeholder(l: &Lowerer<'_>, v: Value) -> bool {
    let info = l.f.info(v);
    info.placeholder && info.kind == Kind::Object && info.shape == Shape::Scalar
}

/// Makes each inner loop's phi of a message value `v` (at the top of `body`) start from `outer`,
/// the phi of this loop that carries it (`carried`: pairs `(v, outer)`): an iteration where the
/// inner loop does not run keeps the value of an earlier one, which a lane may have raised in.
fn carry_from_outer(body: &mut Block, carried: &[(Value, Value)]) {
    for inst in &mut body.insts {
        match inst {
            Inst::Loop { phis, .. } => {
                for p in phis.iter_mut() {
                    if let Some(&(_, outer)) = carried.iter().find(|(v, _)| *v == p.dst) {
                        p.init = outer;
                    }
                }
            }
            // An inner loop inside a Python `if` of the body.
            Inst::If { then, other, .. } => {
                carry_from_outer(then, carried);
                carry_from_outer(other, carried);
            }
            Inst::Let { .. } => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::pipeline::testing::compiled;

    #[test]
    fn a_loop_that_raises_carries_the_code_and_a_snapshot_of_the_message_values() {
        let c = compiled(
            "def f(x):\n    for k in range(3):\n        x = x * 2.0\n        if x > 10.0:\n            raise ValueError(f'{x} at {k}')\n    return x\n",
        );
        // The message reads the values at the raise (snapshots), not the loop's last ones.
        assert!(c.source.contains("_vec_raises("), "{}", c.source);
        let snapshots = c.ir.raises.as_ref().map(|r| r.sites[0].args.clone());
        assert_eq!(snapshots.map(|a| a.len()), Some(2), "{}", c.source);
    }

    #[test]
    fn a_while_loop_that_only_raises_ends_its_raising_lanes() {
        let c = compiled(
            "def f(x):\n    n = 0\n    while x > 1.0:\n        if x > 1e12:\n            raise OverflowError(n)\n        x = x / 2.0\n        n += 1\n    return n\n",
        );
        assert!(
            c.source.contains(" = _vec_while(xp, iteration, "),
            "{}",
            c.source
        );
        assert!(c.source.contains("_vec_raises("), "{}", c.source);
    }

    #[test]
    fn a_loop_calling_a_helper_that_raises_is_lowered_again_carrying_raises() {
        // Neither loop's own body shows a raise: the inner one is lowered again carrying the
        // helper's, then the outer one, which the inner one's raise entry reaches.
        let c = compiled(
            "def g(v):\n    assert v > 0.0, f'{v} is not positive'\n    return v\n\ndef f(x):\n    acc = 0.0\n    for j in range(2):\n        for k in range(3):\n            acc += g(x - j - k)\n    return acc\n",
        );
        assert!(c.source.contains("_vec_raises("), "{}", c.source);
        assert_eq!(
            c.ir.raises.as_ref().map(|r| r.sites.len()),
            Some(1),
            "{}",
            c.source
        );
    }
}
