//! `for` loops (D6): a loop over `range(...)` with bounds known at generation time, or over a
//! constant tuple, becomes a real loop over whole arrays. The kinds and shapes of the variables it
//! carries are inferred by lowering the body until they agree; each carried variable (and, when
//! the body returns, the lanes done and the value returned) becomes a phi; after the loop the
//! phis hold the last iteration's values.

use std::collections::BTreeSet;

use rustpython_parser::ast;

use crate::diagnostics::DiagnosticKind;
use crate::frontend::extract;
use crate::ir::eval::trip_count;
use crate::ir::{const_kind, Block, Const, Inst, Kind, Op, Phi, Shape, Value};
use crate::lower::exceptions::raise::contains_raise;
use crate::lower::loops::exits::{has_exit, hint_of, Exits};
use crate::lower::loops::raises::LoopRaises;
use crate::lower::syntax::{contains_return, is_forever};
use crate::lower::{Done, Flow, Frame, Lowerer, Uniform, Var};
use crate::Map as HashMap;

/// How many times the body is lowered before the carried kinds must have settled.
const MAX_ATTEMPTS: usize = 6;

/// What a loop iterates over and what it carries, fixed before its body is lowered.
pub(in crate::lower) struct LoopSpec<'a> {
    target: String,
    start: i128,
    stop: i128,
    step: i128,
    /// The items of a loop over a constant tuple (`start..stop` then indexes them).
    items: Option<Vec<Const>>,
    /// Variables assigned in the body (other than the target), sorted.
    pub(in crate::lower) carried: Vec<String>,
    /// Whether lanes may return or raise (D11, `loop_raise`) inside: the loop carries the lanes done.
    has_return: bool,
    raises: bool,
    /// Returns before the loop, as one (done, value) pair the loop carries.
    outer_done: Value,
    outer_ret: Option<Value>,
    pub(in crate::lower) body: &'a [ast::Stmt],
    /// The loop's `else:` clause.
    pub(in crate::lower) orelse: &'a [ast::Stmt],
    /// A masked loop's test and lanes active on entry (D12, `while_loop`); None for a counted
    /// loop whose body neither breaks nor continues.
    pub(in crate::lower) mask: Option<Masked<'a>>,
}

/// How a masked loop (D12) decides which lanes run its next iteration.
#[derive(Clone)]
pub(in crate::lower) enum LoopTest<'a> {
    /// `while test:`: the test, evaluated again on the updated values.
    While(&'a ast::Expr),
    /// A counted `for` (D6) whose body breaks or continues: a lane runs each iteration until it
    /// breaks or returns.
    Counted,
    /// `for target in range(start, stop, step)` with per-lane bounds (`range_loop`): the
    /// counter's variable, the stop and the step.
    Range {
        counter: String,
        stop: Value,
        step: i128,
    },
}

/// The mask of a masked loop (D12).
pub(in crate::lower) struct Masked<'a> {
    pub(in crate::lower) test: LoopTest<'a>,
    /// The lanes active in the first iteration.
    pub(in crate::lower) init: Value,
    /// Whether the loop carries the lanes that broke (its `else:` clause skips them).
    pub(in crate::lower) track_breaks: bool,
}

impl LoopSpec<'_> {
    /// Whether the loop is a Python `while` in the generated code (its trip count is per lane).
    pub(in crate::lower) fn is_while(&self) -> bool {
        matches!(
            self.mask,
            Some(Masked {
                test: LoopTest::While(_) | LoopTest::Range { .. },
                ..
            })
        )
    }
}

/// The kinds and shapes an attempt assumes for the carried variables and the returned value.
#[derive(Clone)]
struct Assumed {
    vars: HashMap<String, (Kind, Shape)>,
    ret: Option<(Kind, Shape)>,
}

/// One lowering of the body under [`Assumed`] kinds.
struct Attempt {
    index: Value,
    /// The phi of each carried variable with an assumed kind.
    phis: Vec<(String, Value)>,
    done_phi: Option<Value>,
    ret_phi: Option<Value>,
    block: Block,
    /// The variables and the return state before the loop, and at the end of the body.
    outer_vars: HashMap<String, Var>,
    outer_flow: Flow,
    body_vars: HashMap<String, Var>,
    body_flow: Flow,
    /// The body's returns as one value, computed at the end of the body.
    body_ret: Option<Value>,
    /// A masked loop's phi of the active lanes, and its value for the next iteration.
    active: Option<(Value, Value)>,
    /// The phi of the lanes that broke out of the loop (when tracked), and its next value.
    broke: Option<(Value, Value)>,
    /// A masked loop's variables at the end of its body, before the exits are merged in.
    end_vars: HashMap<String, Var>,
    /// Counters kept as Python ints in the body, with their per-lane phis (`while_loop`).
    uniform: Vec<Uniform>,
    raises: Option<LoopRaises>,
}

impl Lowerer<'_> {
    /// A `for` statement (D6).
    pub(in crate::lower) fn for_stmt(
        &mut self,
        frame: &mut Frame,
        f: &ast::StmtFor,
        stmt: &ast::Stmt,
    ) {
        // D18: a loop over or building containers runs once per item when compiling.
        if self.unrolls(frame, f) {
            self.unrolled_for(frame, f);
            return;
        }
        // D14, D15: a Python loop over the items of sequences given per call (`given`).
        if self.runs_over_given(frame, &f.iter) {
            if let Ok(given) = self.given_sequence(frame, &f.iter) {
                self.given_sequence_for(frame, f, given, stmt);
            }
            return;
        }
        if let ast::Expr::Tuple(t) = f.target.as_ref() {
            self.for_unpacking(frame, f, t, stmt);
            return;
        }
        let Some(spec) = self.loop_spec(frame, f, stmt) else {
            return;
        };
        self.counted_for(frame, spec, stmt);
    }

    /// A `for` loop with known bounds, its body and `else:` in `spec` (a masked loop when the
    /// body breaks or continues, D12).
    pub(in crate::lower) fn counted_for(
        &mut self,
        frame: &mut Frame,
        mut spec: LoopSpec,
        stmt: &ast::Stmt,
    ) {
        if trip_count(spec.start, spec.stop, spec.step) == 0 {
            self.body(frame, spec.orelse);
            return;
        }
        if has_exit(spec.body, true, true) {
            let init = self.running_mask(frame);
            let track_breaks = !spec.orelse.is_empty() && has_exit(spec.body, true, false);
            if has_exit(spec.body, true, false) {
                // The index at the `break` stays the lane's value after the loop.
                spec.carried.push(spec.target.clone());
                spec.carried.sort();
            }
            spec.mask = Some(Masked {
                test: LoopTest::Counted,
                init,
                track_breaks,
            });
        }
        self.lower_loop(frame, spec, stmt);
    }

    /// Lowers the body of a `for` or `while` loop until the carried kinds settle, then emits it.
    /// A loop whose body shows no raise but calls a helper that raises (D11) is lowered again
    /// carrying raises; a raise met while a loop around this one does not carry them is left
    /// for that loop to see.
    pub(in crate::lower) fn lower_loop(
        &mut self,
        frame: &mut Frame,
        spec: LoopSpec,
        stmt: &ast::Stmt,
    ) {
        let outer = std::mem::take(&mut self.loops.raise_in_unprepared);
        self.settle_loop(frame, spec, stmt);
        self.loops.raise_in_unprepared |= outer;
    }

    /// `lower_loop`'s attempts.
    fn settle_loop(&mut self, frame: &mut Frame, mut spec: LoopSpec, stmt: &ast::Stmt) {
        // Kinds and shapes of carried variables, refined until lowering the body agrees with them.
        let mut assumed = Assumed {
            vars: HashMap::default(),
            ret: spec.outer_ret.map(|r| (self.kind(r), Shape::Array)),
        };
        for name in &spec.carried {
            if let Some(Var::Def(v)) = frame.vars.get(name) {
                assumed
                    .vars
                    .insert(name.clone(), (self.kind(*v), self.shape(*v)));
            }
        }
        let sites = self.exceptions.site_count();
        for _attempt in 0..MAX_ATTEMPTS {
            self.exceptions.forget_sites(sites);
            let diag_mark = self.diags.len();
            let attempt = self.loop_attempt(frame, &spec, &assumed);
            if !spec.raises && std::mem::take(&mut self.loops.raise_in_unprepared) {
                self.diags.truncate(diag_mark);
                self.carry_raises(frame, &mut spec, &mut assumed);
                continue;
            }
            if attempt.body_flow.done == Done::Always && spec.mask.is_none() {
                // Every element returns in the first iteration: no loop at all.
                self.diags.truncate(diag_mark);
                let first = match &spec.items {
                    Some(items) => self.konst(items[0].clone()),
                    None => self.konst(Const::Int(spec.start)),
                };
                frame.vars.insert(spec.target.clone(), Var::Def(first));
                self.exceptions.forget_sites(sites);
                self.body(frame, spec.body);
                return;
            }
            let Some(phis) = self.loop_phis(&spec, &attempt, &mut assumed) else {
                self.diags.truncate(diag_mark);
                continue;
            };
            self.exit_loop(frame, &spec, attempt, phis);
            return;
        }
        self.error_at(
            frame,
            DiagnosticKind::UnsupportedLoop,
            "the types of this loop's variables do not settle; give them consistent types".into(),
            stmt,
        );
    }

    /// The iteration and carried variables of `f`; None for an unsupported iterable (reported)
    /// or a `range` with per-lane bounds (lowered by `range_loop`).
    fn loop_spec<'a>(
        &mut self,
        frame: &mut Frame,
        f: &'a ast::StmtFor,
        stmt: &ast::Stmt,
    ) -> Option<LoopSpec<'a>> {
        let ast::Expr::Name(target) = f.target.as_ref() else {
            return None;
        };
        let target = target.id.to_string();
        // `for i in range(...)`, or `for c in TUPLE` over a frozen tuple.
        let (start, stop, step, items) = match f.iter.as_ref() {
            ast::Expr::Call(call) if matches!(call.func.as_ref(), ast::Expr::Name(n) if self.is_builtin(frame, n.id.as_str(), "range")) => {
                match self.range_bounds(frame, call)? {
                    Bounds::Known(a, b, c) => (a, b, c, None),
                    Bounds::PerLane(a, b, c) => {
                        self.range_loop(frame, f, stmt, (a, b, c));
                        return None;
                    }
                }
            }
            other => {
                let v = self.expr(frame, other);
                match self.const_of(v).or_else(|| self.constant_items(v)) {
                    Some(Const::Tuple(items) | Const::List(items)) => {
                        (0, items.len() as i128, 1, Some(items))
                    }
                    _ => {
                        if !self.poisoned.contains(&v) {
                            self.error_at(
                                frame,
                                DiagnosticKind::UnsupportedLoop,
                                "only `for name in range(...)` with bounds known at generation time, or a loop over a constant tuple, is supported (D6)".into(),
                                other,
                            );
                        }
                        return None;
                    }
                }
            }
        };
        let mut spec = self.carried_spec(frame, target, (start, stop, step), items, &f.body);
        spec.orelse = &f.orelse;
        Some(spec)
    }

    /// The spec of a loop over `body`: what it carries, and the returns before it.
    pub(in crate::lower) fn carried_spec<'a>(
        &mut self,
        frame: &mut Frame,
        target: String,
        (start, stop, step): (i128, i128, i128),
        items: Option<Vec<Const>>,
        body: &'a [ast::Stmt],
    ) -> LoopSpec<'a> {
        let mut assigned = vec![];
        extract::assigned_names(body, &mut assigned);
        let mut carried: BTreeSet<String> = assigned.into_iter().filter(|n| n != &target).collect();
        // D20: a tracked name's flag changes where the name is assigned (the target too).
        let mut assigning: Vec<String> = carried.iter().cloned().collect();
        assigning.push(target.clone());
        carried.extend(self.carried_flags(&assigning));
        let carried: Vec<String> = carried.into_iter().collect();
        let raises = contains_raise(body);
        let has_return = contains_return(body) || raises;
        let (outer_done, outer_ret) = if has_return && !frame.flow.returns.is_empty() {
            let flow = frame.flow.clone();
            self.collapse_outer(&flow)
        } else {
            (self.konst(Const::Bool(false)), None)
        };
        LoopSpec {
            target,
            start,
            stop,
            step,
            items,
            carried,
            has_return,
            raises,
            outer_done,
            outer_ret,
            body,
            orelse: &[],
            mask: None,
        }
    }

    /// Makes `spec` a loop that carries raises (and so the lanes done, as `carried_spec` does
    /// for a body that shows a raise): a helper called in its body raises.
    fn carry_raises(&mut self, frame: &Frame, spec: &mut LoopSpec, assumed: &mut Assumed) {
        spec.raises = true;
        if spec.has_return {
            return;
        }
        spec.has_return = true;
        if !frame.flow.returns.is_empty() {
            let flow = frame.flow.clone();
            let (done, ret) = self.collapse_outer(&flow);
            spec.outer_done = done;
            spec.outer_ret = ret;
            assumed.ret = ret.map(|r| (self.kind(r), Shape::Array));
        }
    }

    /// Lowers the body once, into its own block, with phis of the assumed kinds; leaves `frame`
    /// as it was before the loop.
    fn loop_attempt(&mut self, frame: &mut Frame, spec: &LoopSpec, assumed: &Assumed) -> Attempt {
        let outer_vars = frame.vars.clone();
        let outer_flow = frame.flow.clone();
        let outer_cond = frame.cond;
        let values_mark = self.f.values.len();
        let open = self.open_block(Block::default());
        let index_kind = match &spec.items {
            Some(items) => items
                .iter()
                .map(const_kind)
                .reduce(Kind::join)
                .unwrap_or(Kind::Int),
            None => Kind::Int,
        };
        let index = self
            .f
            .new_value(index_kind, Shape::Scalar, Some(spec.target.clone()));
        let (phis, done_phi, ret_phi) = self.enter_phis(frame, spec, assumed, &outer_vars);
        let mut raises = self.enter_loop_raises(frame, spec.raises, done_phi, values_mark);
        match &spec.mask {
            Some(Masked {
                test: LoopTest::Range { counter, .. },
                ..
            }) => {
                if let Some(&c) = frame.vars.get(counter) {
                    frame.vars.insert(spec.target.clone(), c);
                }
            }
            _ => {
                frame.vars.insert(spec.target.clone(), Var::Def(index));
            }
        }
        self.mark_bound(frame, &spec.target);
        let active_phi = spec.mask.as_ref().map(|_| self.enter_masked(frame));
        let broke_phi = match &spec.mask {
            Some(m) if m.track_breaks => Some(self.f.new_value(
                Kind::Bool,
                Shape::Array,
                Some("broke".into()),
            )),
            _ => None,
        };
        frame.flow.exits = Exits::default();
        self.loop_body(frame, spec.body, spec.raises);
        let mut block = self.close_block(open);
        let mut body_vars = std::mem::replace(&mut frame.vars, outer_vars.clone());
        let mut body_flow = std::mem::replace(&mut frame.flow, outer_flow.clone());
        let end_vars = body_vars.clone();
        let mut uniform = vec![];
        let (active, broke) = match (&spec.mask, active_phi) {
            (Some(mask), Some(a)) => {
                frame.cond = outer_cond;
                let (next, broke_next, counters) = self.mask_iteration(
                    frame,
                    &mut block,
                    (&mask.test, a, broke_phi),
                    &phis,
                    done_phi,
                    &mut body_vars,
                    &mut body_flow,
                );
                frame.vars = outer_vars.clone();
                uniform = counters;
                (Some((a, next)), broke_phi.zip(broke_next))
            }
            _ => (None, None),
        };
        if let Some(r) = raises.as_mut() {
            let unchanged =
                crate::lower::loops::raises::unchanged_phis(&phis, &body_vars, &outer_vars);
            self.leave_loop_raises(&mut block, &body_flow, r, &unchanged);
        }
        let body_ret = if spec.has_return && body_flow.done != Done::Always {
            self.in_block(&mut block, |l| l.chain(&body_flow.returns))
        } else {
            None
        };
        Attempt {
            index,
            phis,
            done_phi,
            ret_phi,
            block,
            outer_vars,
            outer_flow,
            body_vars,
            body_flow,
            body_ret,
            active,
            broke,
            end_vars,
            uniform,
            raises,
        }
    }

    /// The phis a loop attempt starts its body with: one per carried variable the attempt
    /// assumed a kind for (the others maybe undefined until assigned), and the done mask and
    /// returned value of a loop that returns.
    fn enter_phis(
        &mut self,
        frame: &mut Frame,
        spec: &LoopSpec,
        assumed: &Assumed,
        outer_vars: &HashMap<String, Var>,
    ) -> (Vec<(String, Value)>, Option<Value>, Option<Value>) {
        let mut phis: Vec<(String, Value)> = vec![];
        for name in &spec.carried {
            match assumed.vars.get(name) {
                Some(&(k, s)) => {
                    let dst = self.f.new_value(k, s, Some(hint_of(name)));
                    if !matches!(outer_vars.get(name), Some(Var::Def(_))) {
                        self.loops.function.undefined_phis.insert(dst);
                    }
                    frame.vars.insert(name.clone(), Var::Def(dst));
                    phis.push((name.clone(), dst));
                }
                None => {
                    frame.vars.insert(name.clone(), Var::MaybeUndef);
                }
            }
        }
        let mut done_phi = None;
        let mut ret_phi = None;
        if spec.has_return {
            let d = self
                .f
                .new_value(Kind::Bool, Shape::Array, Some("done".into()));
            frame.flow.done = Done::Mask(d);
            done_phi = Some(d);
            if let Some((k, s)) = assumed.ret {
                let r = self.f.new_value(k, s, Some("result".into()));
                frame.flow.returns = vec![(Some(d), r)];
                ret_phi = Some(r);
            } else {
                frame.flow.returns = vec![];
            }
        }
        (phis, done_phi, ret_phi)
    }

    /// The loop's phis when the attempt's kinds settled; None (with `assumed` widened for the
    /// next attempt) when they did not.
    fn loop_phis(
        &mut self,
        spec: &LoopSpec,
        attempt: &Attempt,
        assumed: &mut Assumed,
    ) -> Option<Vec<Phi>> {
        if self.widen_assumed(spec, attempt, assumed) {
            return None;
        }
        // Inits are emitted before the loop, in the outer block.
        let mut phis = vec![];
        for (name, dst) in &attempt.phis {
            let next = match attempt.body_vars.get(name) {
                Some(Var::Def(v)) => *v,
                _ => *dst,
            };
            let init = match attempt.outer_vars.get(name) {
                Some(Var::Def(v)) => self.fit_init(*v, *dst),
                _ => self.placeholder(*dst),
            };
            phis.push(Phi {
                dst: *dst,
                init,
                next,
            });
        }
        self.uniform_phis(&attempt.uniform, &attempt.outer_vars, &mut phis);
        // Variables first assigned in the body: carried out of the loop if assigned on every
        // path of it (the last iteration's value), or before a `break`/`continue`. A container
        // (D18) has no phi: the body reads the one it assigned in the same iteration, and a read
        // after the loop, or before the assignment (in a later iteration), is reported there as
        // a read of a name that may be undefined (D20 would need the container unbound on the
        // lanes where the loop did not run).
        let mut first_assigned = false;
        for name in &spec.carried {
            if assumed.vars.contains_key(name) {
                continue;
            }
            let next = match attempt.body_vars.get(name) {
                Some(Var::Def(next)) => Some(*next),
                _ => attempt.body_flow.exits.value_of(name),
            };
            if let Some(next) = next {
                if self.container(next).is_some() {
                    // Lowered again if new: a read before the assignment (the previous
                    // iteration's container) is then reported, not read as D20's stand-in.
                    let names = &mut self.loops.function.containers_without_phi;
                    first_assigned |= names.insert(name.clone());
                    continue;
                }
                let (k, s) = (self.kind(next), self.shape(next));
                assumed.vars.insert(name.clone(), (k, s));
                first_assigned = true;
            }
        }
        if first_assigned {
            return None;
        }
        if let (Some((dst, next)), Some(mask)) = (attempt.active, &spec.mask) {
            phis.push(Phi {
                dst,
                init: mask.init,
                next,
            });
        }
        if let Some((dst, next)) = attempt.broke {
            let init = self.konst(Const::Bool(false));
            let init = self.emit(Op::AsArray(init));
            phis.push(Phi { dst, init, next });
        }
        if let Some(d) = attempt.done_phi {
            let init = self.fit_init(spec.outer_done, d);
            let next = match attempt.body_flow.done {
                Done::Mask(m) => m,
                _ => d,
            };
            phis.push(Phi { dst: d, init, next });
        }
        if let Some(r) = attempt.ret_phi {
            let init = match spec.outer_ret {
                Some(v) => self.fit_init(v, r),
                None => self.placeholder(r),
            };
            let next = attempt.body_ret.unwrap_or(r);
            phis.push(Phi { dst: r, init, next });
        } else if spec.has_return && attempt.body_ret.is_some() {
            assumed.ret = attempt.body_ret.map(|r| (self.kind(r), Shape::Array));
            return None;
        }
        self.loop_raise_phis(attempt.raises.as_ref(), &mut phis);
        Some(phis)
    }

    /// Widens `assumed` where the phis' kinds and shapes do not hold the values the body
    /// produced (joined with the initial values); whether anything changed.
    fn widen_assumed(&self, spec: &LoopSpec, attempt: &Attempt, assumed: &mut Assumed) -> bool {
        let mut changed = false;
        let mut widened = assumed.vars.clone();
        for name in &spec.carried {
            let Some(Var::Def(next)) = attempt.body_vars.get(name) else {
                continue;
            };
            let init = match attempt.outer_vars.get(name) {
                Some(Var::Def(v)) => Some(*v),
                _ => None,
            };
            if init.is_none() && self.container(*next).is_some() {
                continue; // D18, D20: see `loop_phis`
            }
            let mut k = self.kind(*next);
            let mut s = self.shape(*next);
            if let Some(init) = init {
                k = Kind::join(k, self.kind(init));
                if self.shape(init) == Shape::Array {
                    s = Shape::Array;
                }
            }
            if let Some(&(pk, ps)) = assumed.vars.get(name) {
                k = Kind::join(k, pk);
                if ps == Shape::Array {
                    s = Shape::Array;
                }
            }
            if assumed.vars.get(name) != Some(&(k, s)) {
                changed = true;
                widened.insert(name.clone(), (k, s));
            }
        }
        if spec.has_return {
            if let Some(r) = attempt.body_ret {
                let k = match assumed.ret {
                    Some((pk, _)) => Kind::join(pk, self.kind(r)),
                    None => self.kind(r),
                };
                if assumed.ret != Some((k, Shape::Array)) {
                    changed = true;
                    assumed.ret = Some((k, Shape::Array));
                }
            }
        }
        if changed {
            assumed.vars = widened;
        }
        changed
    }

    /// Emits the loop, and leaves `frame` as after it: the carried variables are the phis, the
    /// target holds its last value, and the returns include the loop's.
    fn exit_loop(
        &mut self,
        frame: &mut Frame,
        spec: &LoopSpec,
        mut attempt: Attempt,
        phis: Vec<Phi>,
    ) {
        self.push_inst(Inst::Loop {
            index: attempt.index,
            start: spec.start,
            stop: spec.stop,
            step: spec.step,
            items: spec.items.clone().map(Const::Tuple),
            phis,
            body: std::mem::take(&mut attempt.block),
            active: attempt.active.filter(|_| spec.is_while()).map(|(a, _)| a),
        });
        let first_assigned: Vec<String> = attempt
            .phis
            .iter()
            .filter(|(n, _)| !matches!(attempt.outer_vars.get(n), Some(Var::Def(_))))
            .map(|(n, _)| n.clone())
            .collect();
        frame.vars = attempt.outer_vars.clone();
        for (name, dst) in &attempt.phis {
            self.loops.function.undefined_phis.remove(dst);
            frame.vars.insert(name.clone(), Var::Def(*dst));
        }
        for name in &spec.carried {
            if !attempt.phis.iter().any(|(n, _)| n == name) {
                frame.vars.insert(name.clone(), Var::MaybeUndef);
            }
        }
        for u in &attempt.uniform {
            frame.vars.insert(u.name.clone(), Var::Def(u.lanes));
        }
        let broke = attempt.broke.map(|(b, _)| b);
        let mut broke_only = vec![];
        if let Some(mask) = &spec.mask {
            let (normal, ends_normally) = match mask.test {
                LoopTest::Counted => (Some(&attempt.end_vars), false),
                LoopTest::While(t) if is_forever(t) => (None, false),
                _ => (None, true),
            };
            let exits = &attempt.body_flow.exits;
            let names = self.vars_after_exits(
                frame,
                exits,
                normal,
                ends_normally,
                &attempt.phis,
                &first_assigned,
            );
            broke_only = attempt
                .phis
                .iter()
                .filter(|(n, _)| names.contains(n))
                .cloned()
                .collect();
        }
        self.exit_loop_raises(frame, attempt.raises.as_ref(), &mut attempt.outer_flow);
        if spec.is_while() {
            let (done, ret) = (attempt.done_phi, attempt.ret_phi);
            self.exit_while(frame, spec, &attempt.outer_flow, done, ret);
        } else {
            self.exit_counted(frame, spec, &attempt);
        }
        self.loop_else(frame, spec.orelse, broke, &broke_only);
    }

    /// After a counted loop: the target holds its last value (unless carried: a lane that broke
    /// keeps the index it broke at), and the returns include the loop's.
    fn exit_counted(&mut self, frame: &mut Frame, spec: &LoopSpec, attempt: &Attempt) {
        if !spec.carried.contains(&spec.target) {
            let last_value = self.last_value(spec);
            frame.vars.insert(spec.target.clone(), Var::Def(last_value));
            self.mark_bound(frame, &spec.target);
        }
        if let Some(d) = attempt.done_phi {
            let returns = match attempt.ret_phi {
                Some(r) => self.returns_after(&attempt.outer_flow.returns, frame.cond, Some(d), r),
                None => attempt.outer_flow.returns.clone(),
            };
            frame.flow = Flow {
                done: Done::Mask(d),
                returns,
                exits: attempt.outer_flow.exits.clone(),
                dead: false,
            };
        }
    }

    /// The target's value in the last iteration of a counted loop.
    fn last_value(&mut self, spec: &LoopSpec) -> Value {
        match &spec.items {
            Some(items) => self.konst(items[items.len() - 1].clone()),
            None => {
                let trips = trip_count(spec.start, spec.stop, spec.step);
                self.konst(Const::Int(spec.start + (trips - 1) * spec.step))
            }
        }
    }
}

/// The bounds of a `range(...)`.
pub(in crate::lower) enum Bounds {
    /// Known at generation time (D6): start, stop, step.
    Known(i128, i128, i128),
    /// Per lane (D12): start, stop, and the constant step.
    PerLane(Value, Value, i128),
}

#[cfg(test)]
mod tests {
    use crate::env::Binding;
    use crate::ir::Const;
    use crate::pipeline::testing::{env, errors, ir_after_with, lowered};
    use crate::pipeline::Options;

    #[test]
    fn carried_variables_become_phis() {
        let ir = lowered(
            "def f(x):\n    acc = x\n    for i in range(3):\n        acc = acc * 1.05\n    return acc\n",
        );
        assert!(ir.contains("for %") && ir.contains("= phi(%0, "), "{ir}");
    }

    #[test]
    fn a_loop_that_never_runs_is_not_emitted() {
        let ir = lowered("def f(x):\n    for i in range(0):\n        x = x + 1.0\n    return x\n");
        assert!(!ir.contains("for "), "{ir}");
    }

    #[test]
    fn bounds_must_be_known() {
        let e = errors(
            "def f(x, n):\n    for i in range(0, 9, n):\n        x = x + 1.0\n    return x\n",
        );
        assert!(
            e.iter()
                .any(|m| m.contains("step of range() must be known")),
            "{e:?}"
        );
    }

    #[test]
    fn a_loop_over_a_constant_tuple_runs_over_its_items() {
        let rates = Const::Tuple(vec![Const::Float(1.5), Const::Float(2.0)]);
        let env = env(&[("RATES", Binding::Const(rates))]);
        let src = "def f(x):\n    for r in RATES:\n        x = x * r\n    return x\n";
        let ir = ir_after_with(src, "lower", &env, Options::default()).to_string();
        assert!(ir.contains(" in (1.5, 2.0) {"), "{ir}");
    }
}
