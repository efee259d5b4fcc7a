//! Control flow: `if` statements on array conditions (both sides lowered and merged with
//! `Select`, D1), early returns (the lanes done and the values returned so far), and the merges
//! of variables and return state after a branch. A Python-level `if` is in `scalar_if`.

use std::collections::BTreeSet;

use rustpython_parser::ast;

use crate::ir::eval::truthy;
use crate::ir::{Block, CastOp, Const, Kind, LogicOp, Op, Shape, UnOp, Value};
use crate::lower::exceptions::raise::contains_raise;
use crate::lower::loops::exits::{has_exit, hint_of, Exits};
use crate::lower::{Done, Flow, Frame, Lowerer, Var};
use crate::Map as HashMap;

impl Lowerer<'_> {
    /// A `return` on the lanes of the current path.
    pub(in crate::lower) fn do_return(&mut self, frame: &mut Frame, v: Value) {
        let v = self.as_number(v);
        frame.flow.returns.push((frame.cond, v));
        frame.flow.done = self.returning(&frame.flow);
    }

    /// The value of a list of returns: `where(c1, v1, where(c2, v2, ... vn))`. The last value
    /// needs no condition: on lanes no return covers, any value will do.
    /// Raise entries (D11) are skipped: on lanes that raised, the result does not matter.
    pub(in crate::lower) fn chain(&mut self, returns: &[(Option<Value>, Value)]) -> Option<Value> {
        let returns: Vec<(Option<Value>, Value)> = returns
            .iter()
            .filter(|(_, v)| !self.exceptions.is_code(*v))
            .copied()
            .collect();
        let (_, mut acc) = *returns.last()?;
        for &(cond, v) in returns[..returns.len() - 1].iter().rev() {
            acc = match cond {
                Some(c) => self.select(c, v, acc),
                None => v,
            };
        }
        Some(acc)
    }

    /// The returns after a construct that collapsed its own into one `(done, value)` pair (a
    /// scalar `if`, a loop): the returns from before it, which keep their priority, then the
    /// pair. `done` is relative to the current branch; entries are absolute (conjoined with the
    /// enclosing array conditions), as `merge_flow` concatenates the two sides of an array `if`.
    pub(in crate::lower) fn returns_after(
        &mut self,
        before: &[(Option<Value>, Value)],
        cond: Option<Value>,
        done: Option<Value>,
        value: Value,
    ) -> Vec<(Option<Value>, Value)> {
        let mut out = before.to_vec();
        out.push((self.and_opt(cond, done), value));
        out
    }

    /// The done mask and returned value of `flow` as values (for phis and scalar merges). The
    /// value skips the raise entries (D11), which the caller keeps: a loop keeps the returns from
    /// before it, whose lanes are done in its phi, ahead of its own (`returns_after`); a scalar
    /// `if` keeps the returns from before it too, and merges the raises of its sides into a
    /// code of their own (`scalar_if::raise_code_out`).
    pub(in crate::lower) fn collapse(&mut self, flow: &Flow) -> (Value, Option<Value>) {
        let done = match flow.done {
            Done::Mask(m) => m,
            d => self.konst(Const::Bool(d == Done::Always)),
        };
        let ret = self.chain(&flow.returns);
        (done, ret)
    }

    /// [`Self::collapse`] emitted at the end of `block`.
    pub(in crate::lower) fn collapse_in(
        &mut self,
        block: &mut Block,
        flow: &Flow,
    ) -> (Value, Option<Value>) {
        self.in_block(block, |l| l.collapse(flow))
    }

    /// `test` as the condition of an `if`, `elif` or `while`: Python's truth value per lane (D4
    /// revised), `x != 0` for a number array; booleans and Python scalars as they are.
    pub(in crate::lower) fn condition(&mut self, v: Value) -> Value {
        if self.poisoned.contains(&v) {
            return v;
        }
        self.truth(v)
    }

    /// An `if` statement: only the taken side for a constant condition, else a Python-level or an
    /// array `if`. `rest` are the statements after it in its block; true when they were lowered
    /// too, inside the `if` (see [`Self::rest_inside`]).
    pub(in crate::lower) fn if_stmt(
        &mut self,
        frame: &mut Frame,
        i: &ast::StmtIf,
        rest: &[ast::Stmt],
    ) -> bool {
        let test = self.expr(frame, &i.test);
        let cond = self.condition(test);
        match self.const_of(cond) {
            // A constant condition: only the branch Python takes exists.
            Some(c) => self.body(frame, if truthy(&c) { &i.body } else { &i.orelse }),
            None if self.shape(cond) == Shape::Scalar
                && !has_exit(&i.body, true, true)
                && !has_exit(&i.orelse, true, true)
                && !self.raise_per_lane(cond, i) =>
            {
                if let Some(joined) = self.rest_inside(cond, i, rest) {
                    self.scalar_if(frame, cond, &joined);
                    return true;
                }
                self.scalar_if(frame, cond, i)
            }
            // A branch that breaks or continues is per lane even on a scalar condition (D12),
            // and so is one that raises (D11), unless the condition reads a uniform value.
            None if self.shape(cond) == Shape::Scalar => {
                let c = self.per_lane_condition(cond);
                self.array_if(frame, c, i)
            }
            None => self.array_if(frame, cond, i),
        }
        false
    }

    /// `if c: <returns> ... <rest>` on a uniform condition (D14) as `if c: <returns> else:
    /// <rest>` (and likewise with the sides swapped): Python's own meaning, written so that
    /// the generated code runs `rest` only where CPython reaches it. Otherwise the collapsed
    /// `if` would be followed by `rest` for every call, and a uniform read there that CPython
    /// never makes (`params["cap"]` after `if "cap" not in params: return x`) would raise.
    /// Not when `rest` breaks or continues: that is per lane, not in a Python `if` (D12). A
    /// raise in `rest` stays per lane inside the side (D11, `scalar_if` carries its code out).
    fn rest_inside(&self, cond: Value, i: &ast::StmtIf, rest: &[ast::Stmt]) -> Option<ast::StmtIf> {
        if rest.is_empty() || !self.values.is_uniform_derived(cond) || has_exit(rest, true, true) {
            return None;
        }
        let (body_leaves, else_leaves) = (always_returns(&i.body), always_returns(&i.orelse));
        let mut joined = i.clone();
        match (body_leaves, else_leaves) {
            (true, false) => joined.orelse.extend_from_slice(rest),
            (false, true) => joined.body.extend_from_slice(rest),
            _ => return None,
        }
        Some(joined)
    }

    /// A loop after a `break` or `continue` that only some lanes of the iteration took (D12):
    /// lowered as under `if <lane still in the iteration>:`, so that the lanes that left neither
    /// return nor break inside it. (A loop starts exits of its own, so its body alone would not
    /// know that they left.) The variables are the loop's for every lane: the lanes that left
    /// read none of them, their carried values were kept where they left (`merge_exits`).
    pub(in crate::lower) fn loop_after_partial_exit(
        &mut self,
        frame: &mut Frame,
        left: Value,
        lower_loop: impl FnOnce(&mut Self, &mut Frame),
    ) {
        let saved_flow = frame.flow.clone();
        let saved_cond = frame.cond;
        let staying = self.emit(Op::Unary(UnOp::Not, left));
        frame.cond = Some(self.and_path(saved_cond, staying));
        lower_loop(self, frame);
        frame.cond = saved_cond;
        let prefix = (saved_flow.returns.len(), saved_flow.exits.snapshots.len());
        let loop_flow = std::mem::replace(&mut frame.flow, saved_flow.clone());
        // Every staying lane returned or left in the loop, and the others had left before it:
        // nothing after it runs (a read there of a name no path assigned is dead, not an error).
        let ended = loop_flow.ended();
        frame.flow = self.merge_flow(staying, left, loop_flow, saved_flow, prefix);
        frame.flow.dead |= ended;
    }

    /// The scalar condition `cond` as a 0-d bool array, so that what it guards runs per lane.
    pub(in crate::lower) fn per_lane_condition(&mut self, cond: Value) -> Value {
        let c = match self.kind(cond) {
            Kind::Bool => cond,
            _ => self.emit(Op::Cast(CastOp::Bool, cond)),
        };
        self.emit(Op::AsArray(c))
    }

    /// Whether an `if` on the scalar condition `cond` is lowered per lane because a side raises
    /// (D11: a raise site records its lanes in the function's own block, not in a Python `if`'s).
    /// Both sides then run, which D1 allows for a condition of numbers; a condition that reads a
    /// uniform value (D14) stays a Python `if`, since its other side may not hold for that value
    /// (`if cap is not None: if x > cap: raise ...`), and a raise there is still rejected.
    fn raise_per_lane(&self, cond: Value, i: &ast::StmtIf) -> bool {
        !self.loops.in_loop()
            && !self.values.is_uniform_derived(cond)
            && (contains_raise(&i.body) || contains_raise(&i.orelse))
    }

    /// An `if` on an array condition: both sides lowered, their variables merged with `Select` (D1).
    pub(in crate::lower) fn array_if(&mut self, frame: &mut Frame, cond: Value, i: &ast::StmtIf) {
        let saved_vars = frame.vars.clone();
        let saved_flow = frame.flow.clone();
        let saved_cond = frame.cond;

        frame.cond = Some(self.and_path(saved_cond, cond));
        self.body(frame, &i.body);
        let then_vars = std::mem::replace(&mut frame.vars, saved_vars.clone());
        let then_flow = std::mem::replace(&mut frame.flow, saved_flow.clone());

        let not_cond = self.emit(Op::Unary(UnOp::Not, cond));
        frame.cond = Some(self.and_path(saved_cond, not_cond));
        self.body(frame, &i.orelse);
        let else_vars = std::mem::take(&mut frame.vars);
        let prefix = (saved_flow.returns.len(), saved_flow.exits.snapshots.len());
        let else_flow = std::mem::replace(&mut frame.flow, saved_flow);
        frame.cond = saved_cond;

        frame.vars = self.merge_vars(&then_vars, &then_flow, &else_vars, &else_flow, |l, t, e| {
            l.select(cond, t, e)
        });
        frame.flow = self.merge_flow(cond, not_cond, then_flow, else_flow, prefix);
    }

    /// The variables after a branch: each defined on both sides merged with `merge`, others maybe undefined.
    pub(in crate::lower) fn merge_vars(
        &mut self,
        then_vars: &HashMap<String, Var>,
        then_flow: &Flow,
        else_vars: &HashMap<String, Var>,
        else_flow: &Flow,
        mut merge: impl FnMut(&mut Self, Value, Value) -> Value,
    ) -> HashMap<String, Var> {
        // A side that returned on all its lanes contributes nothing after the `if`.
        if then_flow.ended() {
            return else_vars.clone();
        }
        if else_flow.ended() {
            return then_vars.clone();
        }
        let names: BTreeSet<&String> = then_vars.keys().chain(else_vars.keys()).collect();
        let mut out = HashMap::default();
        for name in names {
            let t = then_vars.get(name).copied();
            let e = else_vars.get(name).copied();
            let merged = match (t, e) {
                (Some(Var::Def(a)), Some(Var::Def(b))) if a == b => Var::Def(a),
                (Some(Var::Def(a)), Some(Var::Def(b))) => {
                    let v = merge(self, a, b);
                    if self.f.info(v).hint.is_none() {
                        self.f.values[v.index()].hint = Some(hint_of(name));
                    }
                    Var::Def(v)
                }
                // D20: the side that assigned it holds the value; its flag says where it is bound.
                (Some(Var::Def(a)), _) | (_, Some(Var::Def(a))) if self.tracks(name) => Var::Def(a),
                _ => Var::MaybeUndef,
            };
            out.insert(name.clone(), merged);
        }
        out
    }

    /// The return state after an array `if`: the lanes done (and those that left the loop's
    /// iteration) on either side, the returns and exits of both; `prefix` counts the returns and
    /// exits from before the `if`, which both sides start with.
    pub(in crate::lower) fn merge_flow(
        &mut self,
        cond: Value,
        not_cond: Value,
        t: Flow,
        e: Flow,
        (prefix, exits_prefix): (usize, usize),
    ) -> Flow {
        let dead = t.ended() && e.ended();
        let done = self.merge_done(cond, not_cond, t.done, e.done);
        let left = self.merge_done(cond, not_cond, t.exits.left, e.exits.left);
        let broke = self.merge_done(cond, not_cond, t.exits.broke, e.exits.broke);
        // Both sides extend the returns they started from; their conditions are disjoint.
        let mut returns = t.returns;
        returns.extend_from_slice(&e.returns[prefix.min(e.returns.len())..]);
        let mut snapshots = t.exits.snapshots;
        let from = exits_prefix.min(e.exits.snapshots.len());
        snapshots.extend_from_slice(&e.exits.snapshots[from..]);
        Flow {
            done,
            returns,
            exits: Exits {
                left,
                broke,
                snapshots,
            },
            dead,
        }
    }

    /// The lanes in `t` on the `cond` side and in `e` on the other, relative to the path.
    fn merge_done(&mut self, cond: Value, not_cond: Value, t: Done, e: Done) -> Done {
        match (t, e) {
            (Done::Never, Done::Never) => Done::Never,
            (Done::Always, Done::Always) => Done::Always,
            (Done::Always, Done::Never) => Done::Mask(cond),
            (Done::Never, Done::Always) => Done::Mask(not_cond),
            (Done::Mask(m), Done::Never) => Done::Mask(self.emit(Op::Logic(LogicOp::And, cond, m))),
            (Done::Never, Done::Mask(m)) => {
                Done::Mask(self.emit(Op::Logic(LogicOp::And, not_cond, m)))
            }
            (Done::Always, Done::Mask(m)) => Done::Mask(self.emit(Op::Logic(LogicOp::Or, cond, m))),
            (Done::Mask(m), Done::Always) => {
                Done::Mask(self.emit(Op::Logic(LogicOp::Or, not_cond, m)))
            }
            (Done::Mask(a), Done::Mask(b)) => Done::Mask(self.select(cond, a, b)),
        }
    }
}

/// Whether every path through `body` ends in a `return`: its last statement is one, or an `if`
/// with an `else` both of whose sides always return.
fn always_returns(body: &[ast::Stmt]) -> bool {
    match body.last() {
        Some(ast::Stmt::Return(_)) => true,
        Some(ast::Stmt::If(i)) => always_returns(&i.body) && always_returns(&i.orelse),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use crate::pipeline::testing::lowered;

    #[test]
    fn early_returns_merge_into_selects() {
        let ir = lowered("def f(x):\n    if x > 0.0:\n        return 1.0\n    return 2.0\n");
        assert!(ir.contains("select"), "{ir}");
        assert!(!ir.contains("if %"), "{ir}");
    }

    #[test]
    fn the_truth_of_a_number_is_its_bool_conversion() {
        let ir = crate::pipeline::testing::lowered(
            "def f(x):\n    if x:\n        return 1.0\n    return 2.0\n",
        );
        assert!(ir.contains("= cast.bool %0"), "{ir}");
    }

    /// The statements after a uniform `if` that returns run inside its other side: the key
    /// `rate` is read only where CPython reads it.
    #[test]
    fn the_rest_after_a_returning_uniform_if_runs_in_its_other_side() {
        let src = "def f(x, params: dict, mode: str):\n    if mode == 'none':\n        return x\n    r = params['rate']\n    return x * r\n";
        let out = crate::pipeline::testing::compiled(src).source;
        let body: Vec<&str> = out.lines().collect();
        let at = |needle: &str| {
            body.iter()
                .position(|l| l.contains(needle))
                .unwrap_or_else(|| panic!("{needle} in {out}"))
        };
        let (test, other, read) = (at("if mode == 'none':"), at("else:"), at("['rate']"));
        assert!(test < other && other < read, "{out}");
        assert!(body[read].starts_with("        "), "{out}");
    }

    /// After a partial `break`, a loop that returns on every lane still in the iteration ends
    /// the path: the read of a name assigned nowhere after it is dead code, not an error.
    #[test]
    fn a_loop_returning_on_every_staying_lane_ends_the_path() {
        let ir = lowered(
            "def f(x):\n    for i in range(2):\n        if x > 0.0:\n            break\n        for c in range(2):\n            return 0.0\n        y = never_assigned\n    return x\n",
        );
        assert!(ir.contains("return"), "{ir}");
    }
}
