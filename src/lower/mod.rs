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
//! A new construct arrives as a new file in its family.

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
use crate::env::{AssumedBinding, Env};
use crate::frontend::extract::{self, span, ParsedFunction};
use crate::frontend::validate;
use crate::ir::{Block, Const, Function, Op, ParamMode, RaiseSite, Raises, UniformOp, Value};
use crate::Map as HashMap;

use free_names::Resolved;

pub use calls::callee::CalleeFn;
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

/// What a hidden parameter carries.
#[derive(Debug, Clone, PartialEq)]
pub enum Hidden {
    /// A global array (D8).
    Array(String),
    /// A callable called per element (fallback=True, D7).
    Callee(String),
    /// A module-level object read as a global (an Enum class, D14).
    Object(String),
    /// The scalar original of the recursive function of this name, which finishes the lanes
    /// that recurse deeper than it was inlined (D19): global [`Hidden::scalar_global`].
    Scalar(String),
}

impl Hidden {
    /// The global of the generated module holding the scalar original of function `name` (D19;
    /// emit.py `SCALAR_PREFIX`).
    pub fn scalar_global(name: &str) -> String {
        format!("_vec_scalar_{name}")
    }

    /// The global of the generated module holding this value.
    pub fn global(&self) -> String {
        match self {
            Hidden::Array(n) | Hidden::Callee(n) | Hidden::Object(n) => n.clone(),
            Hidden::Scalar(n) => Hidden::scalar_global(n),
        }
    }
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

/// Most helper calls nested inside one another; deeper is almost surely runaway inlining.
const MAX_CALL_DEPTH: usize = 32;
/// Deepest expression nesting lowered.
const MAX_EXPR_DEPTH: usize = 1200;
/// Most IR values a function may grow to while helpers are inlined (D7): every call is a copy of
/// the helper's body, so helpers that call one another twice copy the innermost `2**depth` times.
/// Real functions stay far below (a few thousand); past it the compile stops with a diagnostic
/// rather than running out of time or memory.
const MAX_INLINED_VALUES: usize = 100_000;

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
    /// For an inlined helper: the lanes its caller runs it for (protect_domains, D1).
    outer_live: Option<Value>,
    /// The raises inside the `try` bodies being lowered, with the variables they saw (D11).
    catching: exceptions::try_stmt::Snapshots,
}

/// A raise site's class, by its MRO, when known (D11: `except` matches on it), and where its
/// `raise` stands (None for a numeric error of a `try` body).
struct SiteInfo {
    class: Option<exceptions::classes::Mro>,
    at: Option<(SourceId, (usize, usize))>,
}

/// Lowers one function (with the helpers it calls) to the IR.
pub struct Lowerer<'s> {
    f: Function,
    /// The blocks being built, innermost last (see `builder::OpenBlock`).
    blocks: Vec<Block>,
    sources: &'s mut Vec<SourceText>,
    diags: Vec<Diagnostic>,
    opts: Options,
    names: Resolved,
    helpers: HashMap<(String, usize, String), Rc<ParsedFunction>>,
    call_stack: Vec<(String, usize, String)>,
    poisoned: BTreeSet<Value>,
    consts: HashMap<Value, Const>,
    /// The values of the parameters that may be `None` (D14), with their index.
    optional: HashMap<Value, usize>,
    /// The values of the uniform parameters as passed (D14): a namespace passed in (`xnp`) is one.
    uniform_args: BTreeSet<Value>,
    /// Where each `None` or string literal is (D14: reported if a number is needed there).
    /// (The flag: a string, else `None`.)
    literals: HashMap<Value, (SourceId, usize, usize, bool)>,
    /// Phis of variables first assigned inside a loop: reading one before the body assigns it
    /// would read the previous iteration's value, or nothing in the first.
    undefined_phis: BTreeSet<Value>,
    /// How the `Done` masks were built (`loops::exits::MaskOp`): what [`Lowerer::stopped`] reads.
    mask_ops: HashMap<Value, loops::exits::MaskOp>,
    /// Values computed from a uniform value (D14): a condition among them stays a Python `if`.
    uniform_derived: BTreeSet<Value>,
    depth: usize,
    /// The inlining budget ran out (reported once; every later call fails at once).
    over_budget: bool,
    /// Loops around the statement being lowered (`break` outside one was reported by validation).
    loop_depth: usize,
    /// Helpers called with arrays or constants are lowered on their own (`callee.rs`, D7).
    out_of_line: bool,
    /// Helpers lowered on their own, in the order they were first called.
    callees: Vec<CalleeFn>,
    /// Index in `callees` per helper signature; None for one that is inlined.
    callee_memo: HashMap<String, Option<usize>>,
    /// The classmethods being inlined: the name of each one's first parameter and the dotted
    /// name of the class bound to it, under which reads through it are assumed (D8).
    class_params: Vec<(String, String)>,
    /// The parameter modes of each helper (D14), by helper, computed once per compile.
    helper_modes: HashMap<(String, usize, String), Vec<ParamMode>>,
    /// Values of every helper in `callees`, for the budget.
    callee_values: usize,
    /// Tuples being lowered, by their handle value (D13).
    tuples: HashMap<Value, values::tuples::TupleValue>,
    /// Where each single returned value was returned, for the arity errors of D13.
    return_sites: HashMap<Value, (SourceId, usize, usize)>,
    /// Every `raise`/`assert` lowered so far; site `k` has code `k + 1` (D11).
    raise_sites: Vec<RaiseSite>,
    /// The values in a returns list that are raise codes, not returned values.
    raise_codes: BTreeSet<Value>,
    /// How many loops around the code being lowered do not carry raises (their body holds no
    /// `raise`, `assert` or `try`, `loop_raise`): a raise there (a helper's) is reported (D11).
    loops_without_raises: usize,
    /// A raise was met inside a loop that does not carry raises (a helper's `raise` or
    /// `assert`): the innermost such loop is lowered again carrying them (`loops::for_loop::lower_loop`).
    raise_in_unprepared_loop: bool,
    /// How many blocks were open at the outermost `try` body around the code being lowered.
    try_block_depth: usize,
    /// The call of the expression statement being lowered (by address): a helper called for its
    /// checks, whose result is discarded, may fall off its end.
    statement_call: Option<usize>,
    /// What each raise site's exception is and where it stands (`SiteInfo`).
    site_info: Vec<SiteInfo>,
    /// How many `try` bodies enclose the code being lowered (numeric errors raise there).
    in_try: usize,
    /// How many `finally` clauses enclose the code being lowered (nothing may raise there).
    in_finally: usize,
    /// Where each enclosing `try` statement stands.
    try_spans: Vec<(SourceId, (usize, usize))>,
    /// The per-lane raise code of each enclosing `except` clause, for a bare `raise`.
    handling: Vec<Value>,
    /// Recursive functions inlined within themselves, and the lanes callers bring (D19).
    recursion: calls::recursion::RecursionState,
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
            outer_live: None,
            catching: vec![],
        }
    }
}

impl<'s> Lowerer<'s> {
    /// A lowerer that adds the sources of inlined helpers to `sources`.
    pub fn new(sources: &'s mut Vec<SourceText>, opts: Options) -> Self {
        Lowerer {
            f: Function {
                name: String::new(),
                params: vec![],
                declared_params: 0,
                modes: vec![],
                values: vec![],
                body: Block::default(),
                ret: vec![],
                tuple: false,
                raises: None,
            },
            blocks: vec![],
            sources,
            diags: vec![],
            opts,
            names: Resolved::default(),
            helpers: HashMap::default(),
            call_stack: vec![],
            poisoned: BTreeSet::new(),
            consts: HashMap::default(),
            optional: HashMap::default(),
            uniform_args: BTreeSet::new(),
            literals: HashMap::default(),
            undefined_phis: BTreeSet::new(),
            mask_ops: HashMap::default(),
            uniform_derived: BTreeSet::new(),
            depth: 0,
            over_budget: false,
            loop_depth: 0,
            out_of_line: false,
            callees: vec![],
            callee_memo: HashMap::default(),
            class_params: Vec::new(),
            helper_modes: HashMap::default(),
            callee_values: 0,
            tuples: HashMap::default(),
            return_sites: HashMap::default(),
            raise_sites: vec![],
            raise_codes: BTreeSet::new(),
            loops_without_raises: 0,
            raise_in_unprepared_loop: false,
            try_block_depth: 0,
            statement_call: None,
            site_info: vec![],
            in_try: 0,
            in_finally: 0,
            try_spans: vec![],
            handling: vec![],
            recursion: calls::recursion::RecursionState::default(),
        }
    }

    /// Lowers `func` with free names from `env`. Diagnostics accumulate in `self.diags`.
    pub fn lower(self, func: &ParsedFunction, env: &Env) -> (Option<Lowered>, Vec<Diagnostic>) {
        let Lowerer { sources, opts, .. } = self;
        let mark = sources.len();
        let (mut out_of_line, mut levels) = (false, calls::recursion::MAX_LEVELS);
        loop {
            sources.truncate(mark);
            let mut l = Lowerer::new(&mut *sources, opts);
            l.out_of_line = out_of_line;
            l.recursion.levels = levels;
            l.lower_function(func, env);
            if l.over_budget && !out_of_line {
                // D7: inlining every helper call would grow past the budget; start over with
                // helpers lowered on their own and called (`callee.rs`).
                out_of_line = true;
            } else if l.recursion.over && levels > 0 {
                // D19: the inlined levels of a recursion outgrew their budget: fewer.
                levels /= 2;
            } else {
                return l.finish();
            }
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
                    self.optional.insert(v, i);
                }
                ParamMode::Uniform => {
                    self.uniform_args.insert(v);
                }
                ParamMode::Number => {}
            }
            frame.vars.insert(p.clone(), Var::Def(v));
        }
        self.call_stack.push(identity(func, self.sources));
        self.body(&mut frame, &func.body);
        let ret = self.finish_function(&mut frame, func);
        (self.f.ret, self.f.tuple) = self.result_positions(ret);
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
        let diags = std::mem::take(&mut self.diags);
        if !diags.is_empty() {
            return (None, diags);
        }
        (
            Some(Lowered {
                func: self.f,
                hidden: self.names.hidden,
                used: self.names.used,
                deferred: self.names.deferred,
                callees: self.callees,
                element_sites: self.recursion.sites,
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

    /// The function's result: its returns chained, or an error when it can fall off its end.
    fn finish_function(&mut self, frame: &mut Frame, func: &ParsedFunction) -> Value {
        match frame.flow.done {
            Done::Always => {
                let returns = frame.flow.returns.clone();
                if let Some(code) = self.raise_chain(&returns, true) {
                    let code = self.emit(Op::Broadcast(code));
                    self.f.raises = Some(Raises {
                        code,
                        sites: std::mem::take(&mut self.raise_sites),
                        nan: self.opts.nan_on_raise,
                    });
                }
                // A function that raises on every path returns nothing: any value will do.
                self.chain(&returns)
                    .unwrap_or_else(|| self.konst(Const::Float(0.0)))
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

#[cfg(test)]
mod tests {
    use crate::pipeline::testing::errors;

    #[test]
    fn a_function_must_return_on_every_path() {
        let e = errors("def f(x):\n    if x > 0.0:\n        return 1.0\n");
        assert!(e.iter().any(|m| m.contains("without returning")), "{e:?}");
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
