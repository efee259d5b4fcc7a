//! Lower: the validated AST of one function (and of every helper it calls) to the SSA IR.
//!
//! Lowering is a symbolic execution of the function over whole arrays:
//! - D1: both sides of an array `if` are lowered; variables assigned on either side merge with
//!   `Select` (xp.where). Early returns track the lanes already done and the value they returned.
//! - D2: `and`/`or`/`not` keep Python's value semantics; only provably boolean operands use logic.
//! - D4: an `if` needs a provably boolean condition; a ternary coerces with `!= 0`.
//! - D6: `for i in range(...)` with bounds known now becomes a real loop with phis; a condition on
//!   loop indices and constants only is a Python `if` in the generated code.
//! - D7: helper functions are inlined at each call (parsed once per compile).
//! - D8: free names come from the [`Env`]; arrays become hidden parameters.
//!
//! Semantic violations are reported into the same diagnostic list as validation's (D5).

use std::collections::{BTreeMap, BTreeSet};

use crate::Map as HashMap;
use std::rc::Rc;

use rustpython_parser::ast::{self, Ranged};

use crate::diagnostics::{Diagnostic, DiagnosticKind, SourceId, SourceText};
use crate::env::{AssumedBinding, Binding, Const, Env, FunctionSource};
use crate::extract::{self, span, ParsedFunction};
use crate::ir::{
    self, BinOp, Block, CastOp, CmpOp, Function, IfOut, Inst, Kind, LogicOp, Op, Phi, Shape, UnOp,
    Value, MATH_CONSTANTS,
};
use crate::kinds::{result_kind, result_shape};
use crate::optimize::fold::fold_op;
use crate::validate;

#[derive(Debug, Clone, Copy, Default)]
pub struct LowerOptions {
    pub protect_domains: bool,
    pub fallback: bool,
}

/// What a hidden parameter carries.
#[derive(Debug, Clone, PartialEq)]
pub enum Hidden {
    /// A global array (D8).
    Array(String),
    /// A callable called per element (fallback=True, D7).
    Callee(String),
}

pub struct Lowered {
    pub func: Function,
    pub hidden: Vec<Hidden>,
    /// Bindings read, for static compilation's assumptions.
    pub used: BTreeMap<String, AssumedBinding>,
    /// Names the static environment could not resolve.
    pub deferred: BTreeSet<String>,
}

/// Most helper calls nested inside one another; deeper is almost surely runaway inlining.
const MAX_CALL_DEPTH: usize = 32;
/// Deepest expression nesting lowered.
const MAX_EXPR_DEPTH: usize = 1200;

#[derive(Debug, Clone, Copy, PartialEq)]
enum Done {
    Never,
    Always,
    Mask(Value),
}

/// Where the function stands on returning: which lanes are done, and the values returned so
/// far as (condition, value) in source order. A return under nested array `if`s records their
/// conjunction; the result is `where(c1, v1, where(c2, v2, ... vn))`, which is what a careful
/// hand-written rewrite of early returns looks like.
#[derive(Debug, Clone)]
struct Flow {
    done: Done,
    returns: Vec<(Option<Value>, Value)>,
}

#[derive(Debug, Clone, Copy, PartialEq)]
enum Var {
    Def(Value),
    /// Assigned on some paths only (or not yet in this iteration).
    MaybeUndef,
}

/// A nested `def` or a lambda assigned in the function: inlined where called, reading the
/// enclosing variables as they are at the call.
#[derive(Clone)]
struct LocalFn {
    parsed: Rc<ParsedFunction>,
}

struct Frame<'e> {
    env: &'e Env,
    source: SourceId,
    vars: HashMap<String, Var>,
    /// Variables of the enclosing function, for nested helpers (closures).
    outer: HashMap<String, Var>,
    locals: BTreeSet<String>,
    local_fns: HashMap<String, LocalFn>,
    flow: Flow,
    /// Conjunction of the enclosing array `if` conditions in this function; None is every lane.
    cond: Option<Value>,
    /// For an inlined helper: the lanes its caller runs it for (protect_domains, D1).
    outer_live: Option<Value>,
}

pub struct Lowerer<'s> {
    f: Function,
    blocks: Vec<Block>,
    pub sources: &'s mut Vec<SourceText>,
    pub diags: Vec<Diagnostic>,
    opts: LowerOptions,
    hidden: Vec<Hidden>,
    used: BTreeMap<String, AssumedBinding>,
    deferred: BTreeSet<String>,
    helpers: HashMap<(String, usize, String), Rc<ParsedFunction>>,
    call_stack: Vec<(String, usize, String)>,
    poisoned: BTreeSet<Value>,
    consts: HashMap<Value, Const>,
    /// Phis of variables first assigned inside a loop: reading one before the body assigns it
    /// would read the previous iteration's value, or nothing in the first.
    undefined_phis: BTreeSet<Value>,
    depth: usize,
}

type R<T> = Result<T, ()>;

impl<'s> Lowerer<'s> {
    pub fn new(sources: &'s mut Vec<SourceText>, opts: LowerOptions) -> Self {
        Lowerer {
            f: Function {
                name: String::new(),
                params: vec![],
                declared_params: 0,
                values: vec![],
                body: Block::default(),
                ret: Value(0),
            },
            blocks: vec![Block::default()],
            sources,
            diags: vec![],
            opts,
            hidden: vec![],
            used: BTreeMap::new(),
            deferred: BTreeSet::new(),
            helpers: HashMap::default(),
            call_stack: vec![],
            poisoned: BTreeSet::new(),
            consts: HashMap::default(),
            undefined_phis: BTreeSet::new(),
            depth: 0,
        }
    }

    /// Lowers `func` with free names from `env`. Diagnostics accumulate in `self.diags`.
    pub fn lower(mut self, func: &ParsedFunction, env: &Env) -> (Option<Lowered>, Vec<Diagnostic>) {
        self.f.name = func.name.clone();
        self.f.params = func.params.clone();
        self.f.declared_params = func.params.len();
        if func.params.is_empty() {
            self.error(
                DiagnosticKind::UnsupportedSignature,
                "a vectorized function needs at least one parameter".into(),
                func.source,
                func.start,
                func.start + 3,
            );
        }
        let mut frame = Frame {
            env,
            source: func.source,
            vars: HashMap::default(),
            outer: HashMap::default(),
            locals: locals_of(func),
            local_fns: HashMap::default(),
            flow: Flow {
                done: Done::Never,
                returns: vec![],
            },
            cond: None,
            outer_live: None,
        };
        for (i, p) in func.params.iter().enumerate() {
            let v = self.emit_hint(Op::Param(i), Some(p.clone()));
            frame.vars.insert(p.clone(), Var::Def(v));
        }
        self.call_stack.push(identity(func, self.sources));
        self.body(&mut frame, &func.body);
        let ret = self.finish_function(&mut frame, func);
        self.f.ret = ret;
        self.f.body = self.blocks.pop().unwrap_or_default();
        // Hidden parameters follow the declared ones.
        for h in &self.hidden {
            self.f.params.push(match h {
                Hidden::Array(n) | Hidden::Callee(n) => n.clone(),
            });
        }
        let diags = std::mem::take(&mut self.diags);
        if !diags.is_empty() {
            return (None, diags);
        }
        (
            Some(Lowered {
                func: self.f,
                hidden: self.hidden,
                used: self.used,
                deferred: self.deferred,
            }),
            diags,
        )
    }

    fn finish_function(&mut self, frame: &mut Frame, func: &ParsedFunction) -> Value {
        match frame.flow.done {
            Done::Always => {
                let returns = frame.flow.returns.clone();
                self.chain(&returns).unwrap_or_else(|| self.poison())
            }
            _ => {
                let end = func.body.last().map_or(func.end, |s| span(s).1);
                let start = func.body.last().map_or(func.start, |s| span(s).0);
                self.error(
                    DiagnosticKind::MissingReturn,
                    format!(
                        "`{}` can reach the end of its body without returning (it would return None on those elements); add a final `return`",
                        func.name
                    ),
                    frame.source,
                    start,
                    end,
                );
                self.poison()
            }
        }
    }

    // ---- emission ----

    fn emit_hint(&mut self, op: Op, hint: Option<String>) -> Value {
        let values = &self.f.values;
        let kind = result_kind(&op, &|v: Value| values[v.index()].kind, &[]);
        let shape = result_shape(&op, &|v: Value| values[v.index()].shape);
        let op = if let Some(c) = fold_op(&op, &|v| self.const_of(v)) {
            Op::Const(c)
        } else {
            op
        };
        let kind = if let Op::Const(c) = &op {
            crate::kinds::const_kind(c)
        } else {
            kind
        };
        let shape = if matches!(op, Op::Const(_)) {
            Shape::Scalar
        } else {
            shape
        };
        let dst = self.f.new_value(kind, shape, hint);
        if let Op::Const(c) = &op {
            self.consts.insert(dst, c.clone());
        }
        if let Some(b) = self.blocks.last_mut() {
            b.insts.push(Inst::Let { dst, op });
        }
        dst
    }

    fn emit(&mut self, op: Op) -> Value {
        self.emit_hint(op, None)
    }

    fn konst(&mut self, c: Const) -> Value {
        self.emit(Op::Const(c))
    }

    fn const_of(&self, v: Value) -> Option<Const> {
        self.consts.get(&v).cloned()
    }

    fn kind(&self, v: Value) -> Kind {
        self.f.info(v).kind
    }

    fn shape(&self, v: Value) -> Shape {
        self.f.info(v).shape
    }

    fn poison(&mut self) -> Value {
        let v = self.f.new_value(Kind::Unknown, Shape::Array, None);
        if let Some(b) = self.blocks.last_mut() {
            b.insts.push(Inst::Let {
                dst: v,
                op: Op::Const(Const::Float(0.0)),
            });
        }
        self.poisoned.insert(v);
        v
    }

    fn error(
        &mut self,
        kind: DiagnosticKind,
        message: String,
        source: SourceId,
        start: usize,
        end: usize,
    ) {
        self.diags.push(Diagnostic {
            kind,
            message,
            source,
            start,
            end,
        });
    }

    fn error_at<T: Ranged>(
        &mut self,
        frame: &Frame,
        kind: DiagnosticKind,
        message: String,
        node: &T,
    ) {
        let (start, end) = span(node);
        self.error(kind, message, frame.source, start, end);
    }

    // ---- statements ----

    fn body(&mut self, frame: &mut Frame, stmts: &[ast::Stmt]) {
        for (i, stmt) in stmts.iter().enumerate() {
            if frame.flow.done == Done::Always {
                break;
            }
            if i == 0 && validate::is_docstring(stmt) {
                continue;
            }
            self.stmt(frame, stmt);
        }
    }

    fn assign(&mut self, frame: &mut Frame, name: &str, v: Value) {
        if self.f.info(v).hint.is_none() {
            self.f.values[v.index()].hint = Some(name.to_string());
        }
        frame.vars.insert(name.to_string(), Var::Def(v));
    }

    fn stmt(&mut self, frame: &mut Frame, stmt: &ast::Stmt) {
        use ast::Stmt as S;
        match stmt {
            S::Assign(a) => {
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
                        let values: Vec<Value> =
                            vt.elts.iter().map(|e| self.expr(frame, e)).collect();
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
                        ast::Expr::Tuple(_) => self.error_at(
                            frame,
                            DiagnosticKind::UnsupportedStatement,
                            "tuple unpacking needs a tuple of the same length on the right".into(),
                            t,
                        ),
                        _ => {}
                    }
                }
            }
            S::AnnAssign(a) => {
                if let (ast::Expr::Name(n), Some(value)) = (a.target.as_ref(), &a.value) {
                    let v = self.expr(frame, value);
                    self.assign(frame, n.id.as_str(), v);
                }
            }
            S::AugAssign(a) => {
                if let ast::Expr::Name(n) = a.target.as_ref() {
                    let cur = self.read_name(frame, n.id.as_str(), &a.target);
                    let rhs = self.expr(frame, &a.value);
                    let v = match binop(&a.op) {
                        Some(op) => self.binary(frame, op, cur, rhs),
                        None => self.poison(),
                    };
                    self.assign(frame, n.id.as_str(), v);
                }
            }
            S::Return(r) => {
                let Some(value) = &r.value else { return };
                let v = self.expr(frame, value);
                self.do_return(frame, v);
            }
            S::If(i) => self.if_stmt(frame, i),
            S::For(f) => self.for_stmt(frame, f, stmt),
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

    fn do_return(&mut self, frame: &mut Frame, v: Value) {
        frame.flow.returns.push((frame.cond, v));
        frame.flow.done = Done::Always;
    }

    /// The value of a list of returns: `where(c1, v1, where(c2, v2, ... vn))`. The last value
    /// needs no condition: on lanes no return covers, any value will do.
    fn chain(&mut self, returns: &[(Option<Value>, Value)]) -> Option<Value> {
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
    fn returns_after(
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

    /// The done mask and returned value of `flow` as values (for phis and scalar merges).
    fn collapse(&mut self, flow: &Flow) -> (Value, Option<Value>) {
        let done = match flow.done {
            Done::Mask(m) => m,
            d => self.konst(Const::Bool(d == Done::Always)),
        };
        let ret = self.chain(&flow.returns);
        (done, ret)
    }

    /// `cond` as a condition of an `if`: boolean, or a scalar (Python truthiness is exact there).
    fn condition(&mut self, frame: &Frame, test: &ast::Expr, v: Value) -> Value {
        if self.poisoned.contains(&v)
            || self.shape(v) == Shape::Scalar
            || self.kind(v) == Kind::Bool
        {
            return v;
        }
        self.error_at(
            frame,
            DiagnosticKind::AmbiguousTruth,
            "the truth of a number is ambiguous per element (D4); compare explicitly, e.g. `if x != 0:`".into(),
            test,
        );
        self.poison()
    }

    fn if_stmt(&mut self, frame: &mut Frame, i: &ast::StmtIf) {
        let test = self.expr(frame, &i.test);
        let cond = self.condition(frame, &i.test, test);
        match self.const_of(cond) {
            // A constant condition: only the branch Python takes exists.
            Some(c) => {
                let taken = match c {
                    Const::Bool(b) => b,
                    Const::Int(n) => n != 0,
                    Const::Float(f) => f != 0.0,
                    Const::Tuple(t) => !t.is_empty(),
                };
                self.body(frame, if taken { &i.body } else { &i.orelse });
            }
            None if self.shape(cond) == Shape::Scalar => self.scalar_if(frame, cond, i),
            None => self.array_if(frame, cond, i),
        }
    }

    fn array_if(&mut self, frame: &mut Frame, cond: Value, i: &ast::StmtIf) {
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
        let prefix = saved_flow.returns.len();
        let else_flow = std::mem::replace(&mut frame.flow, saved_flow);
        frame.cond = saved_cond;

        frame.vars = self.merge_vars(&then_vars, &then_flow, &else_vars, &else_flow, |l, t, e| {
            l.select(cond, t, e)
        });
        frame.flow = self.merge_flow(cond, not_cond, then_flow, else_flow, prefix);
    }

    fn merge_vars(
        &mut self,
        then_vars: &HashMap<String, Var>,
        then_flow: &Flow,
        else_vars: &HashMap<String, Var>,
        else_flow: &Flow,
        mut merge: impl FnMut(&mut Self, Value, Value) -> Value,
    ) -> HashMap<String, Var> {
        // A side that returned on all its lanes contributes nothing after the `if`.
        if then_flow.done == Done::Always {
            return else_vars.clone();
        }
        if else_flow.done == Done::Always {
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
                        self.f.values[v.index()].hint = Some(name.clone());
                    }
                    Var::Def(v)
                }
                _ => Var::MaybeUndef,
            };
            out.insert(name.clone(), merged);
        }
        out
    }

    fn merge_flow(
        &mut self,
        cond: Value,
        not_cond: Value,
        t: Flow,
        e: Flow,
        prefix: usize,
    ) -> Flow {
        let done = match (t.done, e.done) {
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
        };
        // Both sides extend the returns they started from; their conditions are disjoint.
        let mut returns = t.returns;
        returns.extend_from_slice(&e.returns[prefix.min(e.returns.len())..]);
        Flow { done, returns }
    }

    /// A branch on a scalar condition: a Python `if` whose two blocks merge through [`IfOut`]s.
    fn scalar_if(&mut self, frame: &mut Frame, cond: Value, i: &ast::StmtIf) {
        let saved_vars = frame.vars.clone();
        let saved_flow = frame.flow.clone();
        let saved_returns = saved_flow.returns.clone();

        self.blocks.push(Block::default());
        self.body(frame, &i.body);
        let then_vars = std::mem::replace(&mut frame.vars, saved_vars.clone());
        let then_flow = std::mem::replace(&mut frame.flow, saved_flow.clone());
        let mut then_block = self.blocks.pop().unwrap_or_default();

        self.blocks.push(Block::default());
        self.body(frame, &i.orelse);
        let else_vars = std::mem::take(&mut frame.vars);
        let else_flow = std::mem::replace(&mut frame.flow, saved_flow);
        let mut else_block = self.blocks.pop().unwrap_or_default();

        // Returns inside the branches, collapsed to values in each branch's block.
        // Only new returns change the flow (returns from before the `if` are on both sides).
        let returned = then_flow.returns.len() > saved_returns.len()
            || else_flow.returns.len() > saved_returns.len();
        let (then_done, then_ret) = self.collapse_in(&mut then_block, &then_flow);
        let (else_done, else_ret) = self.collapse_in(&mut else_block, &else_flow);

        // Both sides returned on every lane: so does the whole `if`, whichever side runs.
        if then_flow.done == Done::Always && else_flow.done == Done::Always {
            // Nothing after the `if` runs; the variables stay those from before it, so that an
            // enclosing `if` merging this branch finds each one defined as it was (an empty map
            // would make it stand a placeholder, an array, for a scalar such as a loop index).
            frame.vars = saved_vars;
            let (Some(tr), Some(er)) = (then_ret, else_ret) else {
                return;
            };
            let mut outs = vec![];
            let ret = self.if_out(&mut then_block, &mut else_block, tr, er, &mut outs);
            self.push_if(cond, then_block, else_block, outs);
            frame.flow = Flow {
                done: Done::Always,
                returns: self.returns_after(&saved_returns, frame.cond, None, ret),
            };
            return;
        }

        let mut outs = vec![];
        // Variables. Only one side runs; a side that returned on every lane leaves nothing
        // observable after the `if`, so a placeholder stands in for what it did not define.
        let mut vars = HashMap::default();
        let names: BTreeSet<String> = then_vars.keys().chain(else_vars.keys()).cloned().collect();
        for name in names {
            let t = then_vars.get(&name).copied();
            let e = else_vars.get(&name).copied();
            let merged = match (t, e) {
                (Some(Var::Def(a)), Some(Var::Def(b))) if a == b => Var::Def(a),
                (Some(Var::Def(a)), Some(Var::Def(b))) => {
                    let v = self.if_out(&mut then_block, &mut else_block, a, b, &mut outs);
                    self.f.values[v.index()].hint = Some(name.clone());
                    Var::Def(v)
                }
                (Some(Var::Def(a)), _) if else_flow.done == Done::Always => {
                    let b = self.placeholder_in(&mut else_block, a);
                    let v = self.if_out(&mut then_block, &mut else_block, a, b, &mut outs);
                    self.f.values[v.index()].hint = Some(name.clone());
                    Var::Def(v)
                }
                (_, Some(Var::Def(b))) if then_flow.done == Done::Always => {
                    let a = self.placeholder_in(&mut then_block, b);
                    let v = self.if_out(&mut then_block, &mut else_block, a, b, &mut outs);
                    self.f.values[v.index()].hint = Some(name.clone());
                    Var::Def(v)
                }
                _ => Var::MaybeUndef,
            };
            vars.insert(name, merged);
        }
        frame.vars = vars;

        if returned {
            let done = self.if_out(
                &mut then_block,
                &mut else_block,
                then_done,
                else_done,
                &mut outs,
            );
            let ret = match (then_ret, else_ret) {
                (Some(a), Some(b)) => {
                    Some(self.if_out(&mut then_block, &mut else_block, a, b, &mut outs))
                }
                (Some(a), None) => {
                    let b = self.placeholder_in(&mut else_block, a);
                    Some(self.if_out(&mut then_block, &mut else_block, a, b, &mut outs))
                }
                (None, Some(b)) => {
                    let a = self.placeholder_in(&mut then_block, b);
                    Some(self.if_out(&mut then_block, &mut else_block, a, b, &mut outs))
                }
                (None, None) => None,
            };
            // After the `if` that defines `done` and `ret`: returns_after may read them.
            self.push_if(cond, then_block, else_block, outs);
            frame.flow = Flow {
                done: Done::Mask(done),
                returns: match ret {
                    Some(r) => self.returns_after(&saved_returns, frame.cond, Some(done), r),
                    None => saved_returns.clone(),
                },
            };
            return;
        }
        self.push_if(cond, then_block, else_block, outs);
    }

    fn collapse_in(&mut self, block: &mut Block, flow: &Flow) -> (Value, Option<Value>) {
        self.blocks.push(std::mem::take(block));
        let out = self.collapse(flow);
        *block = self.blocks.pop().unwrap_or_default();
        out
    }

    fn push_if(&mut self, cond: Value, then: Block, other: Block, outs: Vec<IfOut>) {
        if let Some(b) = self.blocks.last_mut() {
            b.insts.push(Inst::If {
                cond,
                then,
                other,
                outs,
            });
        }
    }

    fn placeholder_in(&mut self, block: &mut Block, like: Value) -> Value {
        self.blocks.push(std::mem::take(block));
        let v = self.placeholder(like);
        *block = self.blocks.pop().unwrap_or_default();
        v
    }

    fn placeholder(&mut self, like: Value) -> Value {
        let kind = self.kind(like);
        let zero = match kind {
            Kind::Float => Const::Float(0.0),
            Kind::Int => Const::Int(0),
            Kind::Bool | Kind::Unknown => Const::Bool(false),
        };
        // The shape of what it stands in for: a scalar stays a scalar through the merge (and can
        // still index a tuple or decide a Python `if`); codegen writes it as a Python zero.
        let v = self.f.new_value(kind, self.shape(like), None);
        self.f.values[v.index()].placeholder = true;
        if let Some(b) = self.blocks.last_mut() {
            b.insts.push(Inst::Let {
                dst: v,
                op: Op::Placeholder(zero),
            });
        }
        v
    }

    /// A merged value of a scalar `if`; both sides are made arrays if either is one.
    fn if_out(
        &mut self,
        then_block: &mut Block,
        else_block: &mut Block,
        a: Value,
        b: Value,
        outs: &mut Vec<IfOut>,
    ) -> Value {
        let array = self.shape(a) == Shape::Array || self.shape(b) == Shape::Array;
        let a = if array {
            self.as_array_in(then_block, a)
        } else {
            a
        };
        let b = if array {
            self.as_array_in(else_block, b)
        } else {
            b
        };
        let kind = if self.f.info(a).placeholder {
            self.kind(b)
        } else if self.f.info(b).placeholder {
            self.kind(a)
        } else {
            Kind::join(self.kind(a), self.kind(b))
        };
        let shape = if array { Shape::Array } else { Shape::Scalar };
        let dst = self.f.new_value(kind, shape, self.f.info(a).hint.clone());
        outs.push(IfOut {
            dst,
            then: a,
            other: b,
        });
        dst
    }

    fn as_array_in(&mut self, block: &mut Block, v: Value) -> Value {
        if self.shape(v) == Shape::Array {
            return v;
        }
        self.blocks.push(std::mem::take(block));
        let out = self.emit(Op::AsArray(v));
        *block = self.blocks.pop().unwrap_or_default();
        out
    }

    fn and_opt(&mut self, a: Option<Value>, b: Option<Value>) -> Option<Value> {
        match (a, b) {
            (Some(a), Some(b)) => Some(self.emit(Op::Logic(LogicOp::And, a, b))),
            (a, b) => a.or(b),
        }
    }

    fn and_path(&mut self, path: Option<Value>, cond: Value) -> Value {
        match path {
            None => cond,
            Some(p) => self.emit(Op::Logic(LogicOp::And, p, cond)),
        }
    }

    // ---- loops (D6) ----

    fn range_bounds(
        &mut self,
        frame: &mut Frame,
        call: &ast::ExprCall,
    ) -> Option<(i128, i128, i128)> {
        let n = call.args.len();
        if !(1..=3).contains(&n) || !call.keywords.is_empty() {
            self.error_at(
                frame,
                DiagnosticKind::BadArguments,
                format!("range() takes 1 to 3 positional arguments, got {n}"),
                call,
            );
            return None;
        }
        let mut vals = vec![];
        for a in &call.args {
            let v = self.expr(frame, a);
            if self.poisoned.contains(&v) {
                return None;
            }
            match self.const_of(v) {
                Some(Const::Int(i)) => vals.push(i),
                Some(Const::Bool(b)) => vals.push(i128::from(b)),
                Some(_) => {
                    self.error_at(
                        frame,
                        DiagnosticKind::BadArguments,
                        "range() bounds must be integers".into(),
                        a,
                    );
                    return None;
                }
                None => {
                    self.error_at(
                        frame,
                        DiagnosticKind::DynamicRange,
                        "range() bounds must be known at generation time (D6): use constants, closure or global values, not arguments or values computed from them".into(),
                        a,
                    );
                    return None;
                }
            }
        }
        let (start, stop, step) = match vals.as_slice() {
            [stop] => (0, *stop, 1),
            [start, stop] => (*start, *stop, 1),
            [start, stop, step] => (*start, *stop, *step),
            _ => return None,
        };
        if step == 0 {
            self.error_at(
                frame,
                DiagnosticKind::BadArguments,
                "range() step must not be zero".into(),
                call,
            );
            return None;
        }
        Some((start, stop, step))
    }

    fn for_stmt(&mut self, frame: &mut Frame, f: &ast::StmtFor, stmt: &ast::Stmt) {
        let ast::Expr::Name(target) = f.target.as_ref() else {
            return;
        };
        let target = target.id.to_string();
        // `for i in range(...)`, or `for c in TUPLE` over a frozen tuple.
        let (start, stop, step, items) = match f.iter.as_ref() {
            ast::Expr::Call(call) if matches!(call.func.as_ref(), ast::Expr::Name(n) if self.is_builtin(frame, n.id.as_str(), "range")) =>
            {
                let Some((a, b, c)) = self.range_bounds(frame, call) else {
                    return;
                };
                (a, b, c, None)
            }
            other => {
                let v = self.expr(frame, other);
                match self.const_of(v) {
                    Some(Const::Tuple(items)) => (0, items.len() as i128, 1, Some(items)),
                    _ => {
                        if !self.poisoned.contains(&v) {
                            self.error_at(
                                frame,
                                DiagnosticKind::UnsupportedLoop,
                                "only `for name in range(...)` with bounds known at generation time, or a loop over a constant tuple, is supported (D6)".into(),
                                other,
                            );
                        }
                        return;
                    }
                }
            }
        };
        let trips = trip_count(start, stop, step);
        if trips == 0 {
            return;
        }
        let last = start + (trips - 1) * step;

        let mut assigned = vec![];
        extract::assigned_names(&f.body, &mut assigned);
        let carried: Vec<String> = assigned
            .into_iter()
            .filter(|n| n != &target)
            .collect::<BTreeSet<_>>()
            .into_iter()
            .collect();
        let has_return = contains_return(&f.body);

        // Kinds and shapes of carried variables, refined until lowering the body agrees with them.
        let mut assumed: HashMap<String, (Kind, Shape)> = HashMap::default();
        for name in &carried {
            if let Some(Var::Def(v)) = frame.vars.get(name) {
                assumed.insert(name.clone(), (self.kind(*v), self.shape(*v)));
            }
        }
        let assumed_done = (Kind::Bool, Shape::Array);
        // Returns before the loop, as one (done, value) pair the loop carries.
        let (outer_done, outer_ret) = if has_return && !frame.flow.returns.is_empty() {
            let flow = frame.flow.clone();
            self.collapse(&flow)
        } else {
            (self.konst(Const::Bool(false)), None)
        };
        let mut assumed_ret = outer_ret.map(|r| (self.kind(r), Shape::Array));

        for _attempt in 0..6 {
            let diag_mark = self.diags.len();
            let outer_vars = frame.vars.clone();
            let outer_flow = frame.flow.clone();
            self.blocks.push(Block::default());
            let index_kind = match &items {
                Some(items) => items
                    .iter()
                    .map(crate::kinds::const_kind)
                    .reduce(Kind::join)
                    .unwrap_or(Kind::Int),
                None => Kind::Int,
            };
            let index = self
                .f
                .new_value(index_kind, Shape::Scalar, Some(target.clone()));
            // Phis for carried variables.
            let mut phis: Vec<(String, Value)> = vec![];
            for name in &carried {
                match assumed.get(name) {
                    Some(&(k, s)) => {
                        let dst = self.f.new_value(k, s, Some(name.clone()));
                        if !matches!(outer_vars.get(name), Some(Var::Def(_))) {
                            self.undefined_phis.insert(dst);
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
            if has_return {
                let d = self
                    .f
                    .new_value(assumed_done.0, assumed_done.1, Some("done".into()));
                frame.flow.done = Done::Mask(d);
                done_phi = Some(d);
                if let Some((k, s)) = assumed_ret {
                    let r = self.f.new_value(k, s, Some("result".into()));
                    frame.flow.returns = vec![(Some(d), r)];
                    ret_phi = Some(r);
                } else {
                    frame.flow.returns = vec![];
                }
            }
            frame.vars.insert(target.clone(), Var::Def(index));
            self.body(frame, &f.body);
            let mut body_block = self.blocks.pop().unwrap_or_default();
            let body_vars = std::mem::replace(&mut frame.vars, outer_vars.clone());
            let body_flow = std::mem::replace(&mut frame.flow, outer_flow.clone());
            // The body's returns as one value, computed at the end of the body.
            let body_ret = if has_return && body_flow.done != Done::Always {
                self.blocks.push(body_block);
                let r = self.chain(&body_flow.returns);
                body_block = self.blocks.pop().unwrap_or_default();
                r
            } else {
                None
            };

            if body_flow.done == Done::Always {
                // Every element returns in the first iteration: no loop at all.
                self.diags.truncate(diag_mark);
                let first = match &items {
                    Some(items) => self.konst(items[0].clone()),
                    None => self.konst(Const::Int(start)),
                };
                frame.vars.insert(target.clone(), Var::Def(first));
                self.body(frame, &f.body);
                return;
            }

            // Agreement check: do the phis' kinds and shapes hold the values the body produced?
            let mut changed = false;
            let mut new_assumed = assumed.clone();
            for name in &carried {
                if let Some(Var::Def(next)) = body_vars.get(name) {
                    let init = outer_vars.get(name).and_then(|v| match v {
                        Var::Def(v) => Some(*v),
                        Var::MaybeUndef => None,
                    });
                    let mut k = self.kind(*next);
                    let mut s = self.shape(*next);
                    if let Some(init) = init {
                        k = Kind::join(k, self.kind(init));
                        if self.shape(init) == Shape::Array {
                            s = Shape::Array;
                        }
                    }
                    if let Some(&(pk, ps)) = assumed.get(name) {
                        k = Kind::join(k, pk);
                        if ps == Shape::Array {
                            s = Shape::Array;
                        }
                    }
                    if assumed.get(name) != Some(&(k, s)) {
                        changed = true;
                        new_assumed.insert(name.clone(), (k, s));
                    }
                }
            }
            if has_return {
                if let Some(r) = body_ret {
                    let k = match assumed_ret {
                        Some((pk, _)) => Kind::join(pk, self.kind(r)),
                        None => self.kind(r),
                    };
                    if assumed_ret != Some((k, Shape::Array)) {
                        changed = true;
                        assumed_ret = Some((k, Shape::Array));
                    }
                }
            }
            if changed {
                assumed = new_assumed;
                self.diags.truncate(diag_mark);
                continue;
            }

            // Build the phis. Inits are emitted before the loop, in the outer block.
            let mut ir_phis = vec![];
            for (name, dst) in &phis {
                let next = match body_vars.get(name) {
                    Some(Var::Def(v)) => *v,
                    _ => *dst,
                };
                let init = match outer_vars.get(name) {
                    Some(Var::Def(v)) => self.fit_init(*v, *dst),
                    _ => self.placeholder(*dst),
                };
                ir_phis.push(Phi {
                    dst: *dst,
                    init,
                    next,
                });
            }
            // Variables first assigned in the body: carried out of the loop if assigned on
            // every path of it (the last iteration's value).
            let mut first_assigned = vec![];
            for name in &carried {
                if assumed.contains_key(name) {
                    continue;
                }
                if let Some(Var::Def(next)) = body_vars.get(name) {
                    let (k, s) = (self.kind(*next), self.shape(*next));
                    first_assigned.push((name.clone(), k, s));
                }
            }
            if !first_assigned.is_empty() {
                for (name, k, s) in first_assigned {
                    assumed.insert(name, (k, s));
                }
                self.diags.truncate(diag_mark);
                continue;
            }
            if let Some(d) = done_phi {
                let init = self.fit_init(outer_done, d);
                let next = match body_flow.done {
                    Done::Mask(m) => m,
                    _ => d,
                };
                ir_phis.push(Phi { dst: d, init, next });
            }
            if let Some(r) = ret_phi {
                let init = match outer_ret {
                    Some(v) => self.fit_init(v, r),
                    None => self.placeholder(r),
                };
                let next = body_ret.unwrap_or(r);
                ir_phis.push(Phi { dst: r, init, next });
            } else if has_return && body_ret.is_some() {
                assumed_ret = body_ret.map(|r| (self.kind(r), Shape::Array));
                self.diags.truncate(diag_mark);
                continue;
            }
            if let Some(b) = self.blocks.last_mut() {
                let items = items.clone().map(Const::Tuple);
                b.insts.push(Inst::Loop {
                    index,
                    start,
                    stop,
                    step,
                    items,
                    phis: ir_phis,
                    body: body_block,
                });
            }
            // After the loop.
            frame.vars = outer_vars;
            for (name, dst) in &phis {
                self.undefined_phis.remove(dst);
                frame.vars.insert(name.clone(), Var::Def(*dst));
            }
            for name in &carried {
                if !phis.iter().any(|(n, _)| n == name) {
                    frame.vars.insert(name.clone(), Var::MaybeUndef);
                }
            }
            let last_value = match &items {
                Some(items) => self.konst(items[items.len() - 1].clone()),
                None => self.konst(Const::Int(last)),
            };
            frame.vars.insert(target, Var::Def(last_value));
            if let Some(d) = done_phi {
                let returns = match ret_phi {
                    Some(r) => self.returns_after(&outer_flow.returns, frame.cond, Some(d), r),
                    None => outer_flow.returns.clone(),
                };
                frame.flow = Flow {
                    done: Done::Mask(d),
                    returns,
                };
            }
            return;
        }
        self.error_at(
            frame,
            DiagnosticKind::UnsupportedLoop,
            "the types of this loop's variables do not settle; give them consistent types".into(),
            stmt,
        );
    }

    /// The initial value of a phi, made an array when the phi is one.
    fn fit_init(&mut self, init: Value, phi: Value) -> Value {
        if self.shape(phi) == Shape::Array && self.shape(init) == Shape::Scalar {
            self.emit(Op::AsArray(init))
        } else {
            init
        }
    }

    // ---- expressions ----

    fn expr(&mut self, frame: &mut Frame, e: &ast::Expr) -> Value {
        self.depth += 1;
        let v = if self.depth > MAX_EXPR_DEPTH {
            self.error_at(
                frame,
                DiagnosticKind::TooComplex,
                "expression nested too deeply; split it into several assignments".into(),
                e,
            );
            self.poison()
        } else {
            self.expr_inner(frame, e).unwrap_or_else(|()| self.poison())
        };
        self.depth -= 1;
        v
    }

    fn expr_inner(&mut self, frame: &mut Frame, e: &ast::Expr) -> R<Value> {
        use ast::Expr as E;
        Ok(match e {
            E::Constant(c) => match &c.value {
                ast::Constant::Bool(b) => self.konst(Const::Bool(*b)),
                ast::Constant::Float(f) => self.konst(Const::Float(*f)),
                ast::Constant::Int(i) => match i.to_string().parse::<i128>() {
                    Ok(n) if n.unsigned_abs() < (1u128 << 64) => self.konst(Const::Int(n)),
                    _ => {
                        self.error_at(
                            frame,
                            DiagnosticKind::ValueOutOfRange,
                            "integer literal outside the 64-bit range arrays can hold".into(),
                            e,
                        );
                        return Err(());
                    }
                },
                _ => return Err(()),
            },
            E::Name(n) => self.read_name(frame, n.id.as_str(), e),
            E::NamedExpr(n) => {
                let v = self.expr(frame, &n.value);
                if let E::Name(t) = n.target.as_ref() {
                    self.assign(frame, t.id.as_str(), v);
                }
                v
            }
            E::BinOp(b) => {
                let l = self.expr(frame, &b.left);
                let r = self.expr(frame, &b.right);
                let Some(op) = binop(&b.op) else {
                    return Err(());
                };
                self.binary(frame, op, l, r)
            }
            E::UnaryOp(u) => {
                let a = self.expr(frame, &u.operand);
                match u.op {
                    ast::UnaryOp::USub => self.emit(Op::Unary(UnOp::Neg, a)),
                    ast::UnaryOp::UAdd => self.emit(Op::Unary(UnOp::Pos, a)),
                    ast::UnaryOp::Not => self.not(a),
                    ast::UnaryOp::Invert => return Err(()),
                }
            }
            E::BoolOp(b) => {
                let mut acc = self.expr(frame, &b.values[0]);
                for operand in &b.values[1..] {
                    let rhs = self.expr(frame, operand);
                    acc = self.bool_op(matches!(b.op, ast::BoolOp::And), acc, rhs);
                }
                acc
            }
            E::Compare(c) => {
                let mut left = self.expr(frame, &c.left);
                let mut acc: Option<Value> = None;
                for (op, right) in c.ops.iter().zip(&c.comparators) {
                    let r = self.expr(frame, right);
                    let op = match op {
                        ast::CmpOp::Lt => CmpOp::Lt,
                        ast::CmpOp::LtE => CmpOp::Le,
                        ast::CmpOp::Gt => CmpOp::Gt,
                        ast::CmpOp::GtE => CmpOp::Ge,
                        ast::CmpOp::Eq => CmpOp::Eq,
                        ast::CmpOp::NotEq => CmpOp::Ne,
                        _ => return Err(()),
                    };
                    let cmp = self.emit(Op::Compare(op, left, r));
                    acc = Some(match acc {
                        None => cmp,
                        Some(prev) => self.emit(Op::Logic(LogicOp::And, prev, cmp)),
                    });
                    left = r;
                }
                acc.ok_or(())?
            }
            E::IfExp(i) => {
                let test = self.expr(frame, &i.test);
                // D4: a ternary's numeric condition is coerced with `!= 0`.
                let cond = if self.kind(test) == Kind::Bool || self.shape(test) == Shape::Scalar {
                    test
                } else {
                    self.emit(Op::Cast(CastOp::Bool, test))
                };
                if let Some(c) = self.const_of(cond) {
                    let taken = truthy(&c);
                    return Ok(self.expr(frame, if taken { &i.body } else { &i.orelse }));
                }
                let saved = frame.cond;
                if self.shape(cond) == Shape::Array {
                    frame.cond = Some(self.and_path(saved, cond));
                }
                let a = self.expr(frame, &i.body);
                if self.shape(cond) == Shape::Array {
                    let nc = self.emit(Op::Unary(UnOp::Not, cond));
                    frame.cond = Some(self.and_path(saved, nc));
                }
                let b = self.expr(frame, &i.orelse);
                frame.cond = saved;
                self.select(cond, a, b)
            }
            E::Call(c) => self.call(frame, c)?,
            E::Attribute(a) => {
                let E::Name(base) = a.value.as_ref() else {
                    return Err(());
                };
                if self.resolve_module(frame, base.id.as_str(), &a.value)? {
                    let attr = a.attr.as_str();
                    if let Some((_, value)) = MATH_CONSTANTS.iter().find(|(n, _)| *n == attr) {
                        return Ok(self.konst(Const::Float(*value)));
                    }
                    self.error_at(
                        frame,
                        DiagnosticKind::UnsupportedExpression,
                        crate::suggest::math_attribute(attr),
                        e,
                    );
                    return Err(());
                }
                self.error_at(
                    frame,
                    DiagnosticKind::UnsupportedExpression,
                    "attribute access is supported only on the `math` module".into(),
                    e,
                );
                return Err(());
            }
            E::Subscript(s) => {
                let t = self.expr(frame, &s.value);
                let i = self.expr(frame, &s.slice);
                let tuple_ok = matches!(self.const_of(t), Some(Const::Tuple(_)));
                let index_ok = self.shape(i) == Shape::Scalar
                    && matches!(self.kind(i), Kind::Int | Kind::Bool);
                if !tuple_ok || !index_ok {
                    if !self.poisoned.contains(&t) && !self.poisoned.contains(&i) {
                        self.error_at(
                            frame,
                            DiagnosticKind::UnsupportedExpression,
                            "only a constant tuple indexed by a loop index or a constant can be subscripted".into(),
                            e,
                        );
                    }
                    return Err(());
                }
                self.emit(Op::Index(t, i))
            }
            _ => return Err(()),
        })
    }

    fn not(&mut self, a: Value) -> Value {
        if self.kind(a) == Kind::Bool {
            self.emit(Op::Unary(UnOp::Not, a))
        } else {
            // D2: `not x` is `x == 0` for numbers.
            let zero = self.konst(Const::Int(0));
            self.emit(Op::Compare(CmpOp::Eq, a, zero))
        }
    }

    /// D2: `a and b` is `b if a else a` per element; logical ops only for provable booleans.
    fn bool_op(&mut self, is_and: bool, a: Value, b: Value) -> Value {
        if let Some(c) = self.const_of(a) {
            let t = truthy(&c);
            return if t == is_and { b } else { a };
        }
        if self.kind(a) == Kind::Bool && self.kind(b) == Kind::Bool {
            let op = if is_and { LogicOp::And } else { LogicOp::Or };
            return self.emit(Op::Logic(op, a, b));
        }
        let truth = if self.kind(a) == Kind::Bool {
            a
        } else {
            self.emit(Op::Cast(CastOp::Bool, a))
        };
        if is_and {
            self.select(truth, b, a)
        } else {
            self.select(truth, a, b)
        }
    }

    /// A conversion. `int()`/`round()` of nan or inf raises in CPython, and a float beyond 64
    /// bits has no int array form; on a Python scalar that would raise for every element (D3
    /// gives a value), so a float scalar not known to be in range is converted as a 0-d array.
    fn cast(&mut self, op: CastOp, v: Value) -> Value {
        let partial = self.shape(v) == Shape::Scalar
            && crate::kinds::partial_cast(op, self.kind(v), self.const_of(v).as_ref());
        let v = if partial {
            self.emit(Op::AsArray(v))
        } else {
            v
        };
        self.emit(Op::Cast(op, v))
    }

    fn select(&mut self, c: Value, a: Value, b: Value) -> Value {
        self.emit(Op::Select(c, a, b))
    }

    fn binary(&mut self, frame: &Frame, op: BinOp, a: Value, b: Value) -> Value {
        let b = match op {
            BinOp::Div | BinOp::FloorDiv | BinOp::Mod => self.protect(frame, b, SafeValue::One),
            _ => b,
        };
        let a = if op == BinOp::Pow {
            self.protect(frame, a, SafeValue::One)
        } else {
            a
        };
        // D3 for Python scalars too: a division or power of loop indices and constants that can
        // fail (a divisor or base that is not a known safe constant) is computed on a 0-d array,
        // so it gives the IEEE value where CPython would raise (or go complex) instead of
        // raising for every element, including those whose path never reaches it.
        let partial = crate::kinds::partial_binary(op, a, b, &|v| self.const_of(v));
        let a = if partial && self.shape(a) == Shape::Scalar && self.shape(b) == Shape::Scalar {
            self.emit(Op::AsArray(a))
        } else {
            a
        };
        self.emit(Op::Binary(op, a, b))
    }

    /// D1 with protect_domains: on lanes this code does not run for, give a partial function a
    /// value in its domain, so no floating-point error is raised for a lane whose result is
    /// discarded. Never changes a live lane.
    fn protect(&mut self, frame: &Frame, v: Value, safe: SafeValue) -> Value {
        if !self.opts.protect_domains || self.shape(v) == Shape::Scalar {
            return v;
        }
        let mut live = self.and_opt(frame.outer_live, frame.cond);
        if let Done::Mask(m) = frame.flow.done {
            let not_done = self.emit(Op::Unary(UnOp::Not, m));
            live = Some(self.and_path(live, not_done));
        }
        let Some(live) = live else { return v };
        let safe = match (safe, self.kind(v)) {
            (SafeValue::One, Kind::Float) => Const::Float(1.0),
            (SafeValue::One, _) => Const::Int(1),
            (SafeValue::Zero, Kind::Float) => Const::Float(0.0),
            (SafeValue::Zero, _) => Const::Int(0),
        };
        let s = self.konst(safe);
        self.emit(Op::Select(live, v, s))
    }

    /// A name missing from the environment may still be bound by a star import, which only the
    /// live function can tell: the static compile defers instead of reporting it.
    fn star_imported(&mut self, frame: &Frame, name: &str) -> bool {
        if frame.env.contains_key("*") {
            self.deferred.insert(name.to_string());
            true
        } else {
            false
        }
    }

    fn is_builtin(&self, frame: &Frame, name: &str, which: &str) -> bool {
        name == which
            && !frame.vars.contains_key(name)
            && !frame.locals.contains(name)
            && matches!(frame.env.get(name), Some(Binding::Builtin(b)) if b == which)
    }

    /// Resolves `name` to `math`; Err after reporting when it is something unusable.
    fn resolve_module(&mut self, frame: &Frame, name: &str, node: &ast::Expr) -> R<bool> {
        if frame.vars.contains_key(name) || frame.locals.contains(name) {
            return Ok(false);
        }
        match frame.env.get(name) {
            Some(Binding::MathModule) => {
                self.used
                    .insert(name.to_string(), AssumedBinding::MathModule);
                Ok(true)
            }
            Some(Binding::Unresolved(_)) => {
                self.deferred.insert(name.to_string());
                Err(())
            }
            None => {
                if self.star_imported(frame, name) {
                    return Err(());
                }
                self.error_at(
                    frame,
                    DiagnosticKind::UndefinedName,
                    format!("name `{name}` is not defined"),
                    node,
                );
                Err(())
            }
            _ => Ok(false),
        }
    }

    fn read_name(&mut self, frame: &mut Frame, name: &str, node: &ast::Expr) -> Value {
        match frame.vars.get(name).or_else(|| {
            if frame.locals.contains(name) {
                None
            } else {
                frame.outer.get(name)
            }
        }) {
            Some(Var::Def(v)) if !self.undefined_phis.contains(v) => return *v,
            Some(Var::Def(_)) | Some(Var::MaybeUndef) => {
                self.error_at(
                    frame,
                    DiagnosticKind::MaybeUndefined,
                    format!("`{name}` may be undefined here: it is not assigned on every path before this read"),
                    node,
                );
                return self.poison();
            }
            None => {}
        }
        if frame.locals.contains(name) {
            self.error_at(
                frame,
                DiagnosticKind::MaybeUndefined,
                format!("local variable `{name}` is read before it is assigned"),
                node,
            );
            return self.poison();
        }
        let binding = frame.env.get(name).cloned();
        match binding {
            Some(Binding::Const(c)) => {
                self.used
                    .insert(name.to_string(), AssumedBinding::Const(c.clone()));
                self.emit_hint(Op::Const(c), Some(name.to_string()))
            }
            Some(Binding::MathMember(m)) => {
                if let Some((_, value)) = MATH_CONSTANTS.iter().find(|(n, _)| *n == m) {
                    self.used
                        .insert(name.to_string(), AssumedBinding::MathMember(m.clone()));
                    return self.konst(Const::Float(*value));
                }
                self.not_a_value(frame, name, &format!("the function `math.{m}`"), node)
            }
            Some(Binding::Array) => {
                let hidden = Hidden::Array(name.to_string());
                let idx = match self.hidden.iter().position(|h| *h == hidden) {
                    Some(i) => i,
                    None => {
                        self.hidden.push(hidden);
                        self.hidden.len() - 1
                    }
                };
                let v = self.emit_hint(
                    Op::Param(self.f.declared_params + idx),
                    Some(name.to_string()),
                );
                frame.vars.insert(name.to_string(), Var::Def(v));
                v
            }
            Some(Binding::Unresolved(_)) => {
                self.deferred.insert(name.to_string());
                self.poison()
            }
            Some(Binding::MathModule) => self.not_a_value(frame, name, "the `math` module", node),
            Some(Binding::Builtin(b)) => {
                self.not_a_value(frame, name, &format!("the builtin `{b}`"), node)
            }
            Some(Binding::Function(_)) | Some(Binding::OpaqueCallable(_)) => {
                self.not_a_value(frame, name, "a function", node)
            }
            Some(Binding::Unsupported(what)) => {
                self.error_at(
                    frame,
                    DiagnosticKind::UndefinedName,
                    format!("`{name}` is {what}, which cannot be frozen into vectorized code (D8): only numbers, tuples of numbers and arrays can"),
                    node,
                );
                self.poison()
            }
            None => {
                if self.star_imported(frame, name) {
                    return self.poison();
                }
                self.error_at(
                    frame,
                    DiagnosticKind::UndefinedName,
                    format!("name `{name}` is not defined"),
                    node,
                );
                self.poison()
            }
        }
    }

    fn not_a_value(&mut self, frame: &Frame, name: &str, what: &str, node: &ast::Expr) -> Value {
        self.error_at(
            frame,
            DiagnosticKind::UnsupportedExpression,
            format!("`{name}` is {what}; it can be called but not used as a value"),
            node,
        );
        self.poison()
    }

    // ---- calls ----

    fn call(&mut self, frame: &mut Frame, c: &ast::ExprCall) -> R<Value> {
        use ast::Expr as E;
        // Resolve the callee.
        let callee: Callee = match c.func.as_ref() {
            E::Attribute(a) => {
                let E::Name(base) = a.value.as_ref() else {
                    return Err(());
                };
                if self.resolve_module(frame, base.id.as_str(), &a.value)? {
                    Callee::Math(a.attr.to_string())
                } else {
                    self.error_at(
                        frame,
                        DiagnosticKind::UnknownCall,
                        format!("cannot call `{}.{}`: only functions of the `math` module can be called as attributes", base.id, a.attr),
                        &*c.func,
                    );
                    return Err(());
                }
            }
            E::Name(n) => {
                let name = n.id.as_str();
                if let Some(local) = frame.local_fns.get(name) {
                    Callee::Local(local.clone())
                } else if frame.vars.contains_key(name) || frame.locals.contains(name) {
                    self.error_at(
                        frame,
                        DiagnosticKind::UnknownCall,
                        format!("`{name}` is a variable, not a function"),
                        &*c.func,
                    );
                    return Err(());
                } else {
                    match frame.env.get(name).cloned() {
                        Some(Binding::Builtin(b)) => {
                            self.used
                                .insert(name.to_string(), AssumedBinding::Builtin(b.clone()));
                            Callee::Builtin(b)
                        }
                        Some(Binding::MathMember(m)) => {
                            self.used
                                .insert(name.to_string(), AssumedBinding::MathMember(m.clone()));
                            Callee::Math(m)
                        }
                        Some(Binding::Function(fs)) => {
                            let line = fs.first_line;
                            self.used.insert(
                                name.to_string(),
                                AssumedBinding::Function {
                                    name: fs.name.clone(),
                                    line,
                                },
                            );
                            Callee::Helper(fs)
                        }
                        Some(Binding::OpaqueCallable(what)) => {
                            if self.opts.fallback {
                                Callee::Opaque(name.to_string())
                            } else {
                                self.error_at(
                                    frame,
                                    DiagnosticKind::UnknownCall,
                                    format!("cannot vectorize a call of `{name}` ({what}): only `math` functions, supported builtins and pure Python functions can be called (D7); pass fallback=True to call it element by element"),
                                    &*c.func,
                                );
                                return Err(());
                            }
                        }
                        Some(Binding::Unresolved(_)) => {
                            self.deferred.insert(name.to_string());
                            return Err(());
                        }
                        None => {
                            if self.star_imported(frame, name) {
                                return Err(());
                            }
                            self.error_at(
                                frame,
                                DiagnosticKind::UnknownCall,
                                format!("cannot call `{name}`: name is not defined"),
                                &*c.func,
                            );
                            return Err(());
                        }
                        Some(Binding::MathModule) => {
                            self.error_at(
                                frame,
                                DiagnosticKind::UnknownCall,
                                "a module is not callable".into(),
                                &*c.func,
                            );
                            return Err(());
                        }
                        Some(Binding::Const(_))
                        | Some(Binding::Array)
                        | Some(Binding::Unsupported(_)) => {
                            self.error_at(
                                frame,
                                DiagnosticKind::UnknownCall,
                                format!("`{name}` is not a function"),
                                &*c.func,
                            );
                            return Err(());
                        }
                    }
                }
            }
            _ => return Err(()),
        };
        match callee {
            Callee::Math(m) => self.call_math(frame, c, &m),
            Callee::Builtin(b) => self.call_builtin(frame, c, &b),
            Callee::Helper(fs) => self.call_helper(frame, c, &fs),
            Callee::Local(l) => {
                let args = self.call_args(frame, c, &l.parsed)?;
                let outer: HashMap<String, Var> = frame
                    .outer
                    .iter()
                    .chain(frame.vars.iter())
                    .map(|(k, v)| (k.clone(), *v))
                    .collect();
                // The enclosing function's local functions, as they are at the call, are the
                // callee's too (Python's closure), unless the callee binds the name itself.
                let own = locals_of(&l.parsed);
                let fns: HashMap<String, LocalFn> = frame
                    .local_fns
                    .iter()
                    .filter(|(k, _)| !own.contains(*k))
                    .map(|(k, v)| (k.clone(), v.clone()))
                    .collect();
                let env = frame.env;
                let source = frame.source;
                self.inline(frame, &l.parsed, env, source, args, (outer, fns), c)
            }
            Callee::Opaque(name) => {
                if !c.keywords.is_empty() {
                    self.error_at(
                        frame,
                        DiagnosticKind::BadArguments,
                        "keyword arguments are not supported in element-loop calls".into(),
                        c,
                    );
                    return Err(());
                }
                let args: Vec<Value> = c.args.iter().map(|a| self.expr(frame, a)).collect();
                let hidden = Hidden::Callee(name);
                let idx = match self.hidden.iter().position(|h| *h == hidden) {
                    Some(i) => i,
                    None => {
                        self.hidden.push(hidden);
                        self.hidden.len() - 1
                    }
                };
                Ok(self.emit(Op::ElementCall {
                    callee: self.f.declared_params + idx,
                    args,
                }))
            }
        }
    }

    fn positional(
        &mut self,
        frame: &mut Frame,
        c: &ast::ExprCall,
        what: &str,
        min: usize,
        max: usize,
    ) -> R<Vec<Value>> {
        if !c.keywords.is_empty() {
            self.error_at(
                frame,
                DiagnosticKind::BadArguments,
                format!("{what} takes no keyword arguments here"),
                c,
            );
            return Err(());
        }
        let n = c.args.len();
        if n < min || n > max {
            let expected = if min == max {
                format!("{min}")
            } else if max == usize::MAX {
                format!("at least {min}")
            } else {
                format!("{min} to {max}")
            };
            self.error_at(
                frame,
                DiagnosticKind::BadArguments,
                format!(
                    "{what} takes {expected} argument{}, got {n}",
                    if max == 1 { "" } else { "s" }
                ),
                c,
            );
            return Err(());
        }
        Ok(c.args.iter().map(|a| self.expr(frame, a)).collect())
    }

    fn call_math(&mut self, frame: &mut Frame, c: &ast::ExprCall, name: &str) -> R<Value> {
        let what = format!("math.{name}()");
        match name {
            "log" => {
                let args = self.positional(frame, c, &what, 1, 2)?;
                let f = ir::math_fn("log").ok_or(())?;
                let x = self.math_arg(frame, args[0], Some(SafeValue::One));
                let lx = self.emit(Op::Math(f, vec![x]));
                if args.len() == 1 {
                    return Ok(lx);
                }
                let base = self.math_arg(frame, args[1], Some(SafeValue::One));
                let lb = self.emit(Op::Math(f, vec![base]));
                let lb = self.protect(frame, lb, SafeValue::One);
                return Ok(self.emit(Op::Binary(BinOp::Div, lx, lb)));
            }
            "degrees" | "radians" => {
                let args = self.positional(frame, c, &what, 1, 1)?;
                let x = self.math_arg(frame, args[0], None);
                // CPython multiplies by the constant 180/pi (or pi/180).
                let factor = if name == "degrees" {
                    180.0 / std::f64::consts::PI
                } else {
                    std::f64::consts::PI / 180.0
                };
                let k = self.konst(Const::Float(factor));
                return Ok(self.emit(Op::Binary(BinOp::Mul, x, k)));
            }
            _ => {}
        }
        let Some(f) = ir::math_fn(name) else {
            self.error_at(
                frame,
                DiagnosticKind::UnknownCall,
                crate::suggest::math_call(name),
                &*c.func,
            );
            return Err(());
        };
        let args = self.positional(frame, c, &what, f.arity, f.arity)?;
        let safe = match name {
            "sqrt" | "log2" | "log10" | "acosh" => Some(SafeValue::One),
            "log1p" | "asin" | "acos" | "atanh" | "exp" | "expm1" | "sinh" | "cosh" => {
                Some(SafeValue::Zero)
            }
            "pow" => None,
            _ => None,
        };
        // floor/ceil/trunc keep an int argument as it is (codegen gives the int back
        // unchanged); every other function takes floats.
        let integral = matches!(name, "floor" | "ceil" | "trunc");
        let mut vals: Vec<Value> = args
            .iter()
            .map(|a| {
                if integral {
                    *a
                } else {
                    self.math_arg(frame, *a, safe)
                }
            })
            .collect();
        if name == "pow" {
            vals[0] = self.protect(frame, vals[0], SafeValue::One);
        }
        let v = self.emit(Op::Math(f, vals));
        // math.floor/ceil/trunc return ints.
        Ok(match name {
            "floor" | "ceil" | "trunc" => {
                let v = self.protect(frame, v, SafeValue::Zero);
                self.cast(CastOp::Int, v)
            }
            _ => v,
        })
    }

    /// A `math` argument: converted to float (math functions take floats) and protected.
    fn math_arg(&mut self, frame: &Frame, a: Value, safe: Option<SafeValue>) -> Value {
        let a = if self.kind(a) == Kind::Float {
            a
        } else {
            self.emit(Op::Cast(CastOp::Float, a))
        };
        match safe {
            Some(s) => self.protect(frame, a, s),
            None => a,
        }
    }

    fn call_builtin(&mut self, frame: &mut Frame, c: &ast::ExprCall, name: &str) -> R<Value> {
        let what = format!("{name}()");
        match name {
            "abs" => {
                let a = self.positional(frame, c, &what, 1, 1)?;
                Ok(self.emit(Op::Unary(UnOp::Abs, a[0])))
            }
            "min" | "max" => {
                let args = self.positional(frame, c, &what, 2, usize::MAX)?;
                // CPython keeps the first of equal items and replaces only on a strict win; a NaN
                // never wins and is kept when first. Exactly `b if b < a else a`, left to right.
                let cmp = if name == "min" { CmpOp::Lt } else { CmpOp::Gt };
                let mut acc = args[0];
                for &b in &args[1..] {
                    let wins = self.emit(Op::Compare(cmp, b, acc));
                    acc = self.select(wins, b, acc);
                }
                Ok(acc)
            }
            "float" | "int" | "bool" | "round" => {
                let a = self.positional(frame, c, &what, 1, 1)?;
                let op = match name {
                    "float" => CastOp::Float,
                    "int" => CastOp::Int,
                    "bool" => CastOp::Bool,
                    _ => CastOp::Round,
                };
                // Float to int is partial (NaN, inf); ints and bools need no guard.
                let v = if matches!(op, CastOp::Int | CastOp::Round)
                    && !matches!(self.kind(a[0]), Kind::Int | Kind::Bool)
                {
                    self.protect(frame, a[0], SafeValue::Zero)
                } else {
                    a[0]
                };
                Ok(self.cast(op, v))
            }
            "pow" => {
                let a = self.positional(frame, c, &what, 2, 2)?;
                Ok(self.binary(frame, BinOp::Pow, a[0], a[1]))
            }
            "range" => {
                self.error_at(
                    frame,
                    DiagnosticKind::UnsupportedExpression,
                    "range() is supported only as the iterable of a `for` loop".into(),
                    c,
                );
                Err(())
            }
            "print" => {
                self.error_at(
                    frame,
                    DiagnosticKind::SideEffect,
                    "print() has side effects and cannot be vectorized; remove it".into(),
                    c,
                );
                Err(())
            }
            _ => {
                let hint = if self.opts.fallback {
                    ""
                } else {
                    "; pass fallback=True to call it element by element"
                };
                if self.opts.fallback {
                    // Builtins without an array form are called per element too.
                    let args: Vec<Value> = c.args.iter().map(|a| self.expr(frame, a)).collect();
                    let hidden = Hidden::Callee(name.to_string());
                    let idx = match self.hidden.iter().position(|h| *h == hidden) {
                        Some(i) => i,
                        None => {
                            self.hidden.push(hidden);
                            self.hidden.len() - 1
                        }
                    };
                    return Ok(self.emit(Op::ElementCall {
                        callee: self.f.declared_params + idx,
                        args,
                    }));
                }
                self.error_at(
                    frame,
                    DiagnosticKind::UnknownCall,
                    format!("the builtin `{name}` cannot be vectorized{hint}"),
                    &*c.func,
                );
                Err(())
            }
        }
    }

    fn parse_helper(
        &mut self,
        frame: &Frame,
        fs: &FunctionSource,
        c: &ast::ExprCall,
    ) -> R<Rc<ParsedFunction>> {
        let key = (fs.path.clone(), fs.first_line, fs.name.clone());
        if let Some(p) = self.helpers.get(&key) {
            return Ok(p.clone());
        }
        let text = &fs.source[..crate::source::block_len(&fs.source, fs.name == "<lambda>")];
        let parsed = extract::parse_text(self.sources, &fs.path, text, fs.first_line)
            .and_then(|(id, body)| extract::find_function(id, self.sources, &body, &fs.name));
        match parsed {
            Ok(p) => {
                validate::validate(&p, &mut self.diags);
                let p = Rc::new(p);
                self.helpers.insert(key, p.clone());
                Ok(p)
            }
            Err(mut d) => {
                d.message = format!("in helper `{}`: {}", fs.name, d.message);
                self.diags.push(d);
                let _ = (frame, c);
                Err(())
            }
        }
    }

    fn call_helper(
        &mut self,
        frame: &mut Frame,
        c: &ast::ExprCall,
        fs: &FunctionSource,
    ) -> R<Value> {
        let parsed = self.parse_helper(frame, fs, c)?;
        let args = self.call_args(frame, c, &parsed)?;
        let env = fs.env.as_ref().unwrap_or(frame.env);
        self.inline(
            frame,
            &parsed,
            env,
            parsed.source,
            args,
            (HashMap::default(), HashMap::default()),
            c,
        )
    }

    /// Binds call arguments to the callee's parameters (positional, then keywords).
    fn call_args(
        &mut self,
        frame: &mut Frame,
        c: &ast::ExprCall,
        callee: &ParsedFunction,
    ) -> R<Vec<Value>> {
        let mut bound: Vec<Option<Value>> = vec![None; callee.params.len()];
        let positional_max = callee.params.len() - callee.kwonly;
        if c.args.len() > positional_max {
            self.error_at(
                frame,
                DiagnosticKind::BadArguments,
                format!(
                    "`{}` takes {} positional arguments, got {}",
                    callee.name,
                    positional_max,
                    c.args.len()
                ),
                c,
            );
            return Err(());
        }
        for (i, a) in c.args.iter().enumerate() {
            bound[i] = Some(self.expr(frame, a));
        }
        for k in &c.keywords {
            let Some(name) = &k.arg else { return Err(()) };
            let Some(i) = callee.params.iter().position(|p| p == name.as_str()) else {
                self.error_at(
                    frame,
                    DiagnosticKind::BadArguments,
                    format!("`{}` has no parameter `{name}`", callee.name),
                    k,
                );
                return Err(());
            };
            if bound[i].is_some() {
                self.error_at(
                    frame,
                    DiagnosticKind::BadArguments,
                    format!("`{}` got two values for `{name}`", callee.name),
                    k,
                );
                return Err(());
            }
            bound[i] = Some(self.expr(frame, &k.value));
        }
        let mut out = vec![];
        for (i, b) in bound.into_iter().enumerate() {
            match b {
                Some(v) => out.push(v),
                None => {
                    self.error_at(
                        frame,
                        DiagnosticKind::BadArguments,
                        format!("call of `{}` is missing argument `{}` (helper defaults are not supported; pass every argument)", callee.name, callee.params[i]),
                        c,
                    );
                    return Err(());
                }
            }
        }
        Ok(out)
    }

    /// Inlines a call of `callee`; `(outer, local_fns)` are the variables and local functions
    /// of the enclosing function it sees (both empty for a module-level helper).
    #[allow(clippy::too_many_arguments)]
    fn inline(
        &mut self,
        frame: &mut Frame,
        callee: &ParsedFunction,
        env: &Env,
        source: SourceId,
        args: Vec<Value>,
        (outer, local_fns): (HashMap<String, Var>, HashMap<String, LocalFn>),
        c: &ast::ExprCall,
    ) -> R<Value> {
        let id = identity(callee, self.sources);
        if self.call_stack.contains(&id) {
            self.error_at(
                frame,
                DiagnosticKind::Recursion,
                format!("`{}` calls itself (directly or through other helpers); recursion cannot be vectorized", callee.name),
                c,
            );
            return Err(());
        }
        if self.call_stack.len() >= MAX_CALL_DEPTH {
            self.error_at(
                frame,
                DiagnosticKind::TooComplex,
                "helper calls nested too deeply".into(),
                c,
            );
            return Err(());
        }
        // The callee's returns are its own; the caller's live lanes matter only for
        // protect_domains.
        let mut caller_live = self.and_opt(frame.outer_live, frame.cond);
        if let Done::Mask(m) = frame.flow.done {
            let not_done = self.emit(Op::Unary(UnOp::Not, m));
            caller_live = Some(self.and_path(caller_live, not_done));
        }
        let mut inner = Frame {
            env,
            source,
            vars: HashMap::default(),
            outer,
            locals: locals_of(callee),
            local_fns,
            flow: Flow {
                done: Done::Never,
                returns: vec![],
            },
            cond: None,
            outer_live: if self.opts.protect_domains {
                caller_live
            } else {
                None
            },
        };
        for (p, v) in callee.params.iter().zip(args) {
            inner.vars.insert(p.clone(), Var::Def(v));
        }
        self.call_stack.push(id);
        self.body(&mut inner, &callee.body);
        self.call_stack.pop();
        match inner.flow.done {
            Done::Always => {
                let returns = inner.flow.returns.clone();
                self.chain(&returns).ok_or(())
            }
            _ => {
                let (start, end) = (callee.start, callee.start + 3);
                self.error(
                    DiagnosticKind::MissingReturn,
                    format!("helper `{}` can reach the end of its body without returning; add a final `return`", callee.name),
                    callee.source,
                    start,
                    end,
                );
                Err(())
            }
        }
    }
}

#[derive(Clone, Copy)]
enum SafeValue {
    One,
    Zero,
}

enum Callee {
    Math(String),
    Builtin(String),
    Helper(Box<FunctionSource>),
    Local(LocalFn),
    Opaque(String),
}

fn binop(op: &ast::Operator) -> Option<BinOp> {
    Some(match op {
        ast::Operator::Add => BinOp::Add,
        ast::Operator::Sub => BinOp::Sub,
        ast::Operator::Mult => BinOp::Mul,
        ast::Operator::Div => BinOp::Div,
        ast::Operator::FloorDiv => BinOp::FloorDiv,
        ast::Operator::Mod => BinOp::Mod,
        ast::Operator::Pow => BinOp::Pow,
        _ => return None,
    })
}

fn truthy(c: &Const) -> bool {
    match c {
        Const::Bool(b) => *b,
        Const::Int(i) => *i != 0,
        Const::Float(f) => *f != 0.0,
        Const::Tuple(t) => !t.is_empty(),
    }
}

fn trip_count(start: i128, stop: i128, step: i128) -> i128 {
    if step > 0 && start < stop {
        (stop - start + step - 1) / step
    } else if step < 0 && start > stop {
        (start - stop + (-step) - 1) / (-step)
    } else {
        0
    }
}

fn locals_of(func: &ParsedFunction) -> BTreeSet<String> {
    let mut names = vec![];
    extract::assigned_names(&func.body, &mut names);
    let mut set: BTreeSet<String> = names.into_iter().collect();
    set.extend(func.params.iter().cloned());
    set
}

fn identity(func: &ParsedFunction, sources: &[SourceText]) -> (String, usize, String) {
    let path = sources
        .get(func.source)
        .map(|s| s.path.clone())
        .unwrap_or_default();
    let line = sources
        .get(func.source)
        .map_or(0, |s| s.position(func.start).0);
    (path, line, func.name.clone())
}

fn contains_return(body: &[ast::Stmt]) -> bool {
    body.iter().any(|s| match s {
        ast::Stmt::Return(_) => true,
        ast::Stmt::If(i) => contains_return(&i.body) || contains_return(&i.orelse),
        ast::Stmt::For(f) => contains_return(&f.body),
        _ => false,
    })
}
