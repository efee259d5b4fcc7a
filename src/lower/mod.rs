//! Lower: the validated AST of one function (and of every helper it calls) to the SSA IR.
//!
//! Lowering is a symbolic execution of the function over whole arrays:
//! - D1: both sides of an array `if` are lowered; variables assigned on either side merge with
//!   `Select` (xp.where). Early returns track the lanes already done and the value they returned.
//! - D2: `and`/`or`/`not` keep Python's value semantics; only provably boolean operands use logic.
//! - D4: a number as a condition (`if`, ternary, `and`/`or`/`not`) is its truth value, `!= 0`.
//! - D6: `for i in range(...)` with bounds known now becomes a real loop with phis; a condition on
//!   loop indices and constants only is a Python `if` in the generated code.
//! - D7: helper functions are inlined at each call (parsed once per compile).
//! - D8: free names come from the [`Env`]; arrays become hidden parameters.
//!
//! Semantic violations are reported into the same diagnostic list as validation's (D5).
//!
//! One construct per file, grouped by family: at the top, `builder` (emitting instructions with
//! on-the-fly folding, constants, placeholders, the block stack), `stmt` (statement dispatch,
//! assignments), `expr` (operators, ternaries, subscripts, D3/protect_domains guards), `bits`
//! (bitwise operators), `divmod`, `syntax` (questions about the syntax tree) and `free_names`
//! (the environment: free names, assumptions, deferrals, hidden parameters); then the families,
//! each a folder whose `mod.rs` says what its files hold: `control/` (array and Python-level
//! `if`, early returns, merges), `loops/` (D6, D12), `exceptions/` (D11), `calls/` (builtins,
//! `math`, D16, D17, helpers: D7) and `values/` (tables, tuples, uniform values: D13-D15).
//! Each family owns its state, a struct declared in its `mod.rs` whose fields only its files
//! see (`LoopState`, `ExceptionState`, `CallState`, `ValueState`); the others ask through its
//! methods. A new construct arrives as a new file in its family (ARCHITECTURE.md, "Adding a
//! construct").

mod bits;
mod builder;
mod calls;
mod control;
mod divmod;
mod exceptions;
mod expr;
mod free_names;
mod loops;
mod stmt;
mod syntax;
mod values;

use std::collections::{BTreeMap, BTreeSet};
use std::rc::Rc;

use rustpython_parser::ast;

use crate::diagnostics::{Diagnostic, DiagnosticKind, SourceId, SourceText};
use crate::env::{AssumedBinding, Env, Hidden};
use crate::frontend::extract::{self, ParsedFunction};
use crate::frontend::validate;
use crate::ir::{Block, Const, Function, Op, ParamMode, Raises, UniformOp, Value};
use crate::Map as HashMap;

use free_names::Resolved;

pub use calls::callee::CalleeFn;
pub use calls::numpy::table::{numpy_name, numpy_names_markdown, NumpyName, NUMPY_NAMES};
pub use exceptions::classes::builtin_mro;

/// Options that shape the generated code (part of every cache key).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Options {
    /// Give partial functions a value in their domain on lanes whose result is discarded (D1).
    pub protect_domains: bool,
    /// Call what has no array form element by element instead of refusing it.
    pub fallback: bool,
    /// Python runs with `-O`: `assert` statements are compiled out (D11).
    pub optimize: bool,
    /// Lanes that raise give NaN instead of the call raising (D11, `nan_on_raise=True`).
    pub nan_on_raise: bool,
}

/// The result of lowering one function.
pub struct Lowered {
    /// The function in SSA form.
    pub func: Function,
    /// What the parameters after the declared ones carry.
    pub hidden: Vec<Hidden>,
    /// Bindings read, for static compilation's assumptions.
    pub used: BTreeMap<String, AssumedBinding>,
    /// Names the static environment could not resolve.
    pub deferred: BTreeSet<String>,
    /// Helpers lowered on their own, which `Op::Call` names by index (D7).
    pub callees: Vec<CalleeFn>,
    /// The calls run element by element: `residue` (a recursion past the levels inlined, D19)
    /// or `call_site` (D23), the function or callee as written, and the call's line.
    pub element_sites: Vec<(&'static str, String, usize)>,
}

/// Deepest expression nesting lowered.
const MAX_EXPR_DEPTH: usize = 1200;

/// Which lanes have returned.
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
    /// The lanes that left the innermost loop's iteration by `break`/`continue` (D12).
    exits: loops::exits::Exits,
    /// Every lane of the path has returned or left, though neither `done` nor `exits.left`
    /// alone says so (`Lowerer::stopped`): the statements from here on are dead.
    dead: bool,
}

/// What a variable holds at a point of the function.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Var {
    Def(Value),
    /// Assigned on some paths only (or not yet in this iteration).
    MaybeUndef,
}

/// A masked loop's counter kept as a Python int in its body (`while_loop`, `is_counter_step`):
/// the phi of its per-lane value, which the variable holds after the loop, and that phi's next
/// value.
struct Uniform {
    name: String,
    lanes: Value,
    next: Value,
}

/// A nested `def` or a lambda assigned in the function: inlined where called, reading the
/// enclosing variables as they are at the call.
#[derive(Clone)]
struct LocalFn {
    parsed: Rc<ParsedFunction>,
}

/// The state of one function being lowered (the compiled function or an inlined helper).
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
    /// The Python scalar conditions (a loop index, a uniform value) under which CPython evaluates
    /// the operand being lowered (`expr::on_lanes`: the right side of `and`/`or`, a comparison
    /// chain's link, a ternary's side), ANDed; None outside them. A raise site there raises
    /// only where it holds (D11, `raise_on`).
    guard: Option<Value>,
    /// For an inlined helper: the lanes its caller runs it for (protect_domains, D1).
    outer_live: Option<Value>,
    /// The raises inside the `try` bodies being lowered, with the variables they saw (D11).
    catching: exceptions::try_stmt::Snapshots,
}

/// Lowers one function (with the helpers it calls) to the IR.
///
/// The core state is the builder's (the function being built, its blocks, constants and
/// poisoned values), the sources, the diagnostics, the options and the names resolved; each
/// family of constructs keeps its own state in its own struct, whose fields only that family
/// reads (`loops::LoopState`, `exceptions::ExceptionState`, `calls::CallState`,
/// `values::ValueState`): the others ask through its methods.
pub struct Lowerer<'s> {
    f: Function,
    /// The blocks being built, innermost last (see `builder::OpenBlock`).
    blocks: Vec<Block>,
    sources: &'s mut Vec<SourceText>,
    diags: Vec<Diagnostic>,
    opts: Options,
    names: Resolved,
    poisoned: BTreeSet<Value>,
    consts: HashMap<Value, Const>,
    /// The definitions of the conditions of the function being built (comparisons, `and`/`or`,
    /// `not`), by value: what `expr::tests_for_zero` reads to tell whether a guard compares a
    /// divisor with zero (D1). Set aside with `consts` while a helper is lowered on its own.
    conditions: HashMap<Value, Op>,
    /// How deeply the expression being lowered is nested (`MAX_EXPR_DEPTH`).
    depth: usize,
    loops: loops::LoopState,
    exceptions: exceptions::ExceptionState,
    calls: calls::CallState,
    values: values::ValueState,
    control: control::ControlState,
}

type R<T> = Result<T, ()>;

impl<'e> Frame<'e> {
    /// The frame of a function whose free names resolve in `env`, with nothing assigned yet.
    fn new(env: &'e Env, source: SourceId, func: &ParsedFunction) -> Self {
        Frame {
            env,
            source,
            vars: HashMap::default(),
            outer: HashMap::default(),
            locals: locals_of(func),
            local_fns: HashMap::default(),
            flow: Flow {
                done: Done::Never,
                returns: vec![],
                exits: loops::exits::Exits::default(),
                dead: false,
            },
            cond: None,
            guard: None,
            outer_live: None,
            catching: vec![],
        }
    }
}

impl<'s> Lowerer<'s> {
    /// A lowerer that adds the sources of inlined helpers to `sources`.
    pub fn new(sources: &'s mut Vec<SourceText>, opts: Options) -> Self {
        Lowerer {
            f: Function::default(),
            blocks: vec![],
            sources,
            diags: vec![],
            opts,
            names: Resolved::default(),
            poisoned: BTreeSet::new(),
            consts: HashMap::default(),
            conditions: HashMap::default(),
            depth: 0,
            loops: loops::LoopState::default(),
            exceptions: exceptions::ExceptionState::default(),
            calls: calls::CallState::default(),
            values: values::ValueState::default(),
            control: control::ControlState::default(),
        }
    }

    /// Lowers `func` with free names from `env`. Diagnostics accumulate in `self.diags`.
    pub fn lower(mut self, func: &ParsedFunction, env: &Env) -> (Option<Lowered>, Vec<Diagnostic>) {
        let mark = self.sources.len();
        let mut tracked = BTreeSet::new();
        let (mut out_of_line, mut levels) = (false, calls::elementwise::recursion::MAX_LEVELS);
        loop {
            self.calls = calls::CallState::attempt(out_of_line, levels);
            self.control.unbound.tracked.clone_from(&tracked);
            self.lower_function(func, env);
            // D7: inlining every helper call would grow past the budget; start over with
            // helpers lowered on their own and called (`callee.rs`).
            let over = !out_of_line && self.calls.over_budget();
            // D19: the inlined levels of a recursion outgrew their budget: fewer.
            let fewer = !over && levels > 0 && self.calls.recursion_over_budget();
            // D20: names some lanes may read unassigned; start over with a flag for each.
            let more = !self.control.unbound.found.is_subset(&tracked);
            if !over && !fewer && !more {
                return self.finish();
            }
            out_of_line |= over;
            if fewer {
                levels /= 2;
            }
            tracked.extend(std::mem::take(&mut self.control.unbound.found));
            self.sources.truncate(mark);
            let opts = self.opts;
            self = Lowerer::new(self.sources, opts);
        }
    }

    fn lower_function(&mut self, func: &ParsedFunction, env: &Env) {
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
        self.f.modes = self.modes_of(func, env, 0);
        let root = self.open_block(Block::default());
        let mut frame = Frame::new(env, func.source, func);
        for (i, p) in func.params.iter().enumerate() {
            let op = match self.f.mode(i) {
                ParamMode::Uniform => Op::Uniform(UniformOp::Arg(i), vec![]),
                ParamMode::Number | ParamMode::Optional => Op::Param(i),
            };
            let v = self.emit_hint(op, Some(p.clone()));
            match self.f.mode(i) {
                ParamMode::Optional => {
                    self.values.add_optional_param(v, i);
                    self.add_type_exact(v);
                }
                ParamMode::Uniform => {
                    self.values.add_uniform_arg(v);
                }
                ParamMode::Number => self.add_type_exact(v),
            }
            frame.vars.insert(p.clone(), Var::Def(v));
        }
        self.start_unbound(&mut frame);
        self.calls.enter_compiled(identity(func, self.sources), env);
        self.note_compiled_reads(&func.body);
        self.body(&mut frame, &func.body);
        let ret = self.finish_function(&mut frame, func);
        (self.f.ret, self.f.tuple) = self.result_positions(ret);
        if self.f.tuple {
            self.f.result_class = self.result_class_param();
        }
        self.f.body = self.close_block(root);
        self.reject_tuple_uses();
        // Hidden parameters follow the declared ones.
        for h in &self.names.hidden {
            self.f.params.push(h.global());
        }
        self.refuse_unexplained_poison(func);
    }

    /// What [`Self::lower_function`] lowered, or its diagnostics.
    fn finish(mut self) -> (Option<Lowered>, Vec<Diagnostic>) {
        let mut diags = std::mem::take(&mut self.diags);
        // A name deferred to the live compile wins over diagnostics: they may come of the
        // poisoned value standing for it (`l.append(L0(0))` then `l[0]` read a list left
        // empty), and the decorator reports what holds (D8: static compilation defers).
        if !diags.is_empty() && self.names.deferred.is_empty() {
            // A helper inlined at several calls (a recursion's levels, D19) reports once.
            let mut seen = vec![];
            diags.retain(|d| {
                let new = !seen.contains(d);
                if new {
                    seen.push(d.clone());
                }
                new
            });
            return (None, diags);
        }
        let (callees, element_sites) = self.calls.into_results();
        (
            Some(Lowered {
                func: self.f,
                hidden: self.names.hidden,
                used: self.names.used,
                deferred: self.names.deferred,
                callees,
                element_sites,
            }),
            diags,
        )
    }

    /// A poisoned value stands in for an expression lowering gave up on; it must never reach
    /// generated code. Every give-up reports a diagnostic (here, or before lowering in validation,
    /// which the pipeline then reports alone) or defers a name (the static compile
    /// then compiles the live function); one that did neither is a compiler bug, and the
    /// function is rejected instead of computing with the stand-in (D10).
    fn refuse_unexplained_poison(&mut self, func: &ParsedFunction) {
        if !self.diags.is_empty() || !self.names.deferred.is_empty() || self.poisoned.is_empty() {
            return;
        }
        let mut reached = false;
        crate::ir::walk_insts(&self.f.body, &mut |inst| {
            if let crate::ir::Inst::Let { dst, .. } = inst {
                reached |= self.poisoned.contains(dst);
            }
        });
        if reached {
            self.error(
                DiagnosticKind::Unexplained,
                format!("internal error: part of `{}` could not be compiled and the compiler did not say why; this is a bug in array-vectorize (please report it with this function); use fallback=True or leave the function undecorated meanwhile", func.name),
                func.source,
                func.start,
                func.start + 3,
            );
        }
    }

    /// The function's result: its returns chained. A lane that ends without returning raises
    /// (D20: an array cannot hold the None it returns), so every lane has left by a return or
    /// a raise.
    fn finish_function(&mut self, frame: &mut Frame, func: &ParsedFunction) -> Value {
        if let Some(last) = func.body.last() {
            if !frame.flow.ended() {
                self.fall_off_end(frame, last);
            }
        }
        let returns = frame.flow.returns.clone();
        if let Some(code) = self.raise_chain(&returns, true) {
            // An array code has the shape of every parameter, so that `_vec_raises` names the
            // element CPython's loop raises at; a Python int code (a check of uniform values,
            // D14) is every lane's, checked in a Python `if` (codegen/stmts.rs).
            let code = if self.f.info(code).shape == crate::ir::Shape::Scalar {
                code
            } else {
                self.emit(Op::Broadcast(code))
            };
            let mut sites = self.exceptions.take_sites();
            if self.opts.nan_on_raise {
                // D11: with nan_on_raise no exception is built, so the sites read no values: one
                // read only by a message is not computed, and one that raises item 17's
                // OverflowError at call time stays as a dead statement (rewrite/dce.rs) instead
                // of being inlined into a message never printed (fuzz finding 670002 #902).
                for site in &mut sites {
                    site.params.clear();
                    site.args.clear();
                }
            }
            self.f.raises = Some(Raises {
                code,
                sites,
                nan: self.opts.nan_on_raise,
            });
        }
        // A function that raises on every path returns nothing: any value will do.
        self.chain(&returns)
            .unwrap_or_else(|| self.konst(Const::Float(0.0)))
    }

    /// Lowers a statement list, stopping after a return (or loop exit) that covers every lane.
    fn body(&mut self, frame: &mut Frame, stmts: &[ast::Stmt]) {
        for (k, stmt) in stmts.iter().enumerate() {
            if self.ends_here(&mut frame.flow) {
                break;
            }
            if validate::is_string_statement(stmt) {
                continue;
            }
            if let ast::Stmt::If(i) = stmt {
                // The statements after it may run inside one of its sides (`if_stmt`).
                if self.if_stmt(frame, i, &stmts[k + 1..]) {
                    break;
                }
                continue;
            }
            self.stmt(frame, stmt);
        }
        self.ends_here(&mut frame.flow);
    }
}

/// The function's local names: its parameters and every name it assigns.
fn locals_of(func: &ParsedFunction) -> BTreeSet<String> {
    let mut names = vec![];
    extract::assigned_names(&func.body, &mut names);
    let mut set: BTreeSet<String> = names.into_iter().collect();
    set.extend(func.params.iter().cloned());
    set
}

/// What identifies a function on the call stack: its file, line and name.
fn identity(func: &ParsedFunction, sources: &[SourceText]) -> calls::FunctionId {
    let path = sources
        .get(func.source)
        .map(|s| s.path.clone())
        .unwrap_or_default();
    let line = sources
        .get(func.source)
        .map_or(0, |s| s.position(func.start).0);
    (path, line, func.name.clone())
}

#[cfg(test)]
mod tests {
    use crate::pipeline::testing::errors;

    #[test]
    fn a_lane_that_ends_without_returning_raises() {
        // D20: an array cannot hold the None it returns; the error names the element.
        let c =
            crate::pipeline::testing::compiled("def f(x):\n    if x > 0.0:\n        return 1.0\n");
        assert!(
            c.source.contains("returned None for this element"),
            "{}",
            c.source
        );
    }

    #[test]
    fn a_give_up_without_a_reason_is_refused_not_compiled_as_a_stand_in() {
        // `@` is rejected by validation before lowering; lowered anyway, the expression gives up
        // without a diagnostic, which must not leave the stand-in 0.0 in the function.
        let mut sources = vec![];
        let (id, body) = crate::frontend::extract::parse_text(
            &mut sources,
            "t.py",
            "def f(x):\n    return x @ x + 1\n",
            1,
        )
        .expect("parses");
        let func =
            crate::frontend::extract::find_function(id, &sources, &body, "f").expect("found");
        let env = crate::pipeline::testing::env(&[]);
        let (lowered, diags) =
            super::Lowerer::new(&mut sources, crate::pipeline::Options::default())
                .lower(&func, &env);
        assert!(lowered.is_none());
        assert_eq!(diags.len(), 1, "{diags:?}");
        assert_eq!(
            diags[0].kind,
            crate::diagnostics::DiagnosticKind::Unexplained
        );
    }

    #[test]
    fn a_function_needs_a_parameter() {
        let e = errors("def f():\n    return 1.0\n");
        assert!(
            e.iter().any(|m| m.contains("at least one parameter")),
            "{e:?}"
        );
    }
}
