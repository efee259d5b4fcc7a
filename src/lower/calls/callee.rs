//! Out-of-line helpers (D7): a helper compiled once as a function of its own and called, rather
//! than copied into every caller.
//!
//! Lowering inlines every helper call (`inline.rs`). When that would grow the function past the
//! inlining budget (helpers that call one another twice per level copy the innermost body
//! `2**depth` times), lowering starts over in *out-of-line mode*: each helper called with
//! arguments that are arrays, constants or uniform values (D14) is lowered once per signature
//! (the constants, and the kind each array argument has while lowering) into a [`CalleeFn`]
//! whose parameters are the array and uniform arguments (a uniform one passed as the Python
//! object it is), and the call becomes `Op::Call`:
//!
//! ```text
//! def h1(x): return h2(x) + h2(x)      def _vec_helper_h1_0(xp, x):
//! def h2(x): return ... (big)    ->        h2 = _vec_helper_h2_0(xp, x)
//!                                          return h2 + h2
//! ```
//!
//! So `h_i(x) = h_{i+1}(x) + h_{i+1}(x)` costs one function per level, not `2**depth` copies.
//! A helper whose lowered body is small, a call with an argument that is a Python scalar of the
//! generated code (a loop index), or one that reads a hidden parameter (a global array, a
//! fallback callee) is still inlined, exactly as before. With protect_domains, the lanes the
//! caller runs a helper for are its last argument (D1). The budget then holds for the sum of every function lowered: what is still too big
//! is a diagnostic, in bounded time and memory.

use std::collections::BTreeSet;

use crate::diagnostics::DiagnosticKind;
use crate::env::Env;
use crate::frontend::extract::ParsedFunction;
use crate::ir::{
    walk_insts, Block, Const, Function, Inst, Kind, Op, ParamMode, ScalarFn, Shape, UniformOp,
    Value,
};
use crate::lower::calls::{MAX_CALL_DEPTH, MAX_INLINED_VALUES};
use crate::lower::loops::FunctionLoops;
use crate::lower::values::FunctionValues;
use crate::lower::{identity, Done, Frame, Lowerer, Var, R};
use crate::Map as HashMap;

/// A helper lowered on its own (D7): its array arguments are its parameters, its constant
/// arguments are folded in.
#[derive(Debug, Clone)]
pub struct CalleeFn {
    /// The helper's name (the generated function is named after it).
    pub name: String,
    /// The lowered body; `Op::Param(i)` is the i-th array argument.
    pub func: Function,
}

/// Most values a helper's body may have and still be inlined at each call in out-of-line mode.
const SMALL_CALLEE: usize = 40;
/// Most distinct helper signatures lowered on their own in one compile.
const MAX_CALLEES: usize = 1000;

/// How one argument enters a helper's signature.
enum ArgSig {
    /// Folded into the helper's body.
    Const(Const),
    /// Passed: an array of this kind (as lowering knows it); whether it is a parameter's own
    /// value, of one type on every lane (D22).
    Array(Kind, bool),
    /// Passed: a uniform value (D14: a parameter dict, an Enum member), the same on every lane,
    /// read in Python by the helper's function as by the caller.
    Object,
}

/// The state of the function being lowered, set aside while a helper is lowered on its own.
struct Outer {
    f: Function,
    blocks: Vec<Block>,
    consts: HashMap<Value, Const>,
    conditions: HashMap<Value, Op>,
    poisoned: BTreeSet<Value>,
    loops: FunctionLoops,
    values: FunctionValues,
    /// The lanes the callers of the helpers being inlined bring (D19, D23): values of `f`.
    callers: Vec<crate::lower::calls::elementwise::scalar_call::CallerLanes>,
    /// The recursive levels being inlined in `f` (D19), counted in `f`'s values.
    levels: crate::lower::calls::elementwise::recursion::LevelsAside,
}

impl Lowerer<'_> {
    /// In out-of-line mode, the call of `callee` with `args` as a call of its own generated
    /// function (or the constant it returns); None when it is to be inlined instead.
    pub(in crate::lower) fn call_out_of_line(
        &mut self,
        frame: &Frame,
        callee: &ParsedFunction,
        env: &Env,
        args: &[Value],
    ) -> Option<R<Value>> {
        // Inside a `try` body its numeric errors must raise into the caller's clauses (D11).
        if !self.calls.out_of_line || self.calls.over_budget || self.exceptions.in_try() {
            return None;
        }
        // D1 with protect_domains: the helper guards its partial operations on the lanes its
        // caller runs it for, passed as a last argument.
        let live = if self.opts.protect_domains {
            self.live_lanes(frame)
        } else {
            None
        };
        let id = identity(callee, self.sources);
        // Recursion and runaway nesting: inlining reports them.
        if self.calls.call_stack.contains(&id) || self.calls.call_stack.len() >= MAX_CALL_DEPTH {
            return None;
        }
        let mut sig = vec![];
        let mut key = format!("{}:{}:{}", id.0, id.1, id.2);
        for &a in args {
            if let Some(c) = self.const_of(a) {
                key.push_str(&format!("|c{}", c.key()));
                sig.push(ArgSig::Const(c));
            } else if self.is_object(a) && !self.poisoned.contains(&a) {
                key.push_str("|o");
                sig.push(ArgSig::Object);
            } else if self.shape(a) == Shape::Array && !self.poisoned.contains(&a) {
                let exact = self.is_type_exact(a);
                key.push_str(&format!(
                    "|a{}{}",
                    self.kind(a).name(),
                    if exact { "=" } else { "" }
                ));
                sig.push(ArgSig::Array(self.kind(a), exact));
            } else {
                return None;
            }
        }
        if live.is_some() {
            key.push_str("|live");
        }
        let index = match self.calls.callee_memo.get(&key) {
            Some(i) => *i,
            None => {
                let i = self.lower_callee_unless_raising(callee, env, (&sig, live.is_some()), id);
                self.calls.callee_memo.insert(key, i);
                i
            }
        }?;
        let func = &self.calls.callees[index].func;
        // A helper that folded to a constant is that constant, as inlined.
        let constant = func.body.insts.iter().find_map(|inst| match inst {
            Inst::Let {
                dst,
                op: Op::Const(c),
            } if func.ret == [*dst] => Some(c.clone()),
            _ => None,
        });
        if let Some(c) = constant {
            return Some(Ok(self.konst(c)));
        }
        // A small helper is inlined, as within the budget; so is one whose value is a Python
        // scalar (a loop index's), which a call would turn into an array.
        let ret = func.info(func.ret[0]).clone();
        if func.values.len() <= SMALL_CALLEE || ret.shape == Shape::Scalar {
            return None;
        }
        let passed = args
            .iter()
            .zip(&sig)
            .filter(|(_, s)| matches!(s, ArgSig::Array(..) | ArgSig::Object))
            .map(|(a, _)| *a)
            .chain(live)
            .collect();
        let v = self.emit(Op::Call {
            callee: index,
            args: passed,
        });
        // Lowering knows of the value what it knows of the helper's (a comparison's is a bool,
        // D4), as when it is inlined.
        self.f.values[v.index()].kind = ret.kind;
        Some(Ok(v))
    }

    /// Lowers `callee` on its own for `sig` (and, with `live`, a last parameter holding the
    /// lanes its caller runs it for); None (with nothing reported, unless the budget ran out)
    /// when it cannot be: inlining it then reports what is wrong, as before.
    fn lower_callee(
        &mut self,
        callee: &ParsedFunction,
        env: &Env,
        (sig, live): (&[ArgSig], bool),
        id: (String, usize, String),
    ) -> Option<usize> {
        if self.calls.callees.len() >= MAX_CALLEES {
            self.calls.over_budget = true;
            self.error(
                DiagnosticKind::TooComplex,
                format!("`{}` is too big to vectorize: its helpers would be compiled as more than {MAX_CALLEES} functions of their own (one per signature of constant arguments); pass values that vary from call to call as arguments of the vectorized function", callee.name),
                callee.source,
                callee.start,
                callee.start + 3,
            );
            return None;
        }
        let reported = self.diags.len();
        let outer = self.enter(&callee.name);
        let root = self.open_block(Block::default());
        let mut frame = Frame::new(env, callee.source, callee);
        for (p, s) in callee.params.iter().zip(sig) {
            let v = match s {
                ArgSig::Const(c) => self.konst(c.clone()),
                ArgSig::Array(k, exact) => {
                    let v = self.emit_hint(Op::Param(self.f.params.len()), Some(p.clone()));
                    self.f.values[v.index()].kind = *k;
                    self.f.params.push(p.clone());
                    if *exact {
                        self.add_type_exact(v);
                    }
                    v
                }
                ArgSig::Object => {
                    let i = self.f.params.len();
                    self.f.params.push(p.clone());
                    self.f.modes.resize(i, ParamMode::Number);
                    self.f.modes.push(ParamMode::Uniform);
                    self.uniform(UniformOp::Arg(i), vec![])
                }
            };
            frame.vars.insert(p.clone(), Var::Def(v));
        }
        if live {
            let name = (0..)
                .map(|i| format!("live{}", if i == 0 { String::new() } else { i.to_string() }))
                .find(|n| !callee.params.contains(n))
                .unwrap_or_default();
            let m = self.emit_hint(Op::Param(self.f.params.len()), Some(name.clone()));
            self.f.values[m.index()].kind = Kind::Bool;
            self.f.params.push(name);
            frame.outer_live = Some(m);
        }
        self.f.declared_params = self.f.params.len();
        self.start_unbound(&mut frame);
        self.calls.call_stack.push(id);
        self.body(&mut frame, &callee.body);
        self.calls.call_stack.pop();
        let ret = match frame.flow.done {
            Done::Always => {
                let returns = frame.flow.returns.clone();
                self.chain(&returns)
            }
            _ => None,
        };
        // A helper returning a tuple (D13) is inlined: its handle exists only while lowering.
        let single = ret.is_some_and(|r| !self.values.is_tuple(r));
        self.f.body = self.close_block(root);
        self.reject_tuple_uses();
        let clean = single && self.poisoned.is_empty() && self.diags.len() == reported;
        let mut func = self.leave(outer);
        if !clean || reads_hidden(&func) {
            if !self.calls.over_budget {
                self.diags.truncate(reported);
            }
            return None;
        }
        func.ret = vec![ret?];
        self.calls.callee_values += func.values.len();
        self.calls.callees.push(CalleeFn {
            name: callee.name.clone(),
            func,
        });
        Some(self.calls.callees.len() - 1)
    }

    /// [`Self::lower_callee`], or None for a helper that can raise (D11): its lanes must end in
    /// the caller, so it is inlined; what lowering it out of line recorded is forgotten.
    fn lower_callee_unless_raising(
        &mut self,
        callee: &ParsedFunction,
        env: &Env,
        sig: (&[ArgSig], bool),
        id: (String, usize, String),
    ) -> Option<usize> {
        let mark = self.exceptions.mark();
        let i = self.lower_callee(callee, env, sig, id);
        if !self.exceptions.rewind_if_raised(mark) {
            return i;
        }
        if let Some(i) = i {
            self.calls.callees.truncate(i);
        }
        None
    }

    /// Sets the function being lowered aside for a fresh one named `name`.
    fn enter(&mut self, name: &str) -> Outer {
        let fresh = Function {
            name: name.to_string(),
            params: vec![],
            declared_params: 0,
            modes: vec![],
            values: vec![],
            body: Block::default(),
            ret: vec![],
            tuple: false,
            result_class: None,
            raises: None,
        };
        Outer {
            f: std::mem::replace(&mut self.f, fresh),
            blocks: std::mem::take(&mut self.blocks),
            consts: std::mem::take(&mut self.consts),
            conditions: std::mem::take(&mut self.conditions),
            poisoned: std::mem::take(&mut self.poisoned),
            loops: self.loops.set_aside(),
            values: self.values.set_aside(),
            callers: std::mem::take(&mut self.calls.recursion.callers),
            levels: self.set_aside_levels(),
        }
    }

    /// Takes the function lowered since [`Self::enter`] back out, restoring `outer`.
    fn leave(&mut self, outer: Outer) -> Function {
        self.blocks = outer.blocks;
        self.consts = outer.consts;
        self.conditions = outer.conditions;
        self.poisoned = outer.poisoned;
        self.loops.restore(outer.loops);
        self.values.restore(outer.values);
        self.calls.recursion.callers = outer.callers;
        self.restore_levels(outer.levels);
        std::mem::replace(&mut self.f, outer.f)
    }

    /// Values lowered so far, in every function of the compile: what the inlining budget holds.
    pub(in crate::lower) fn lowered_values(&self) -> usize {
        self.f.values.len() + self.calls.callee_values
    }
}

/// Whether `func` reads a parameter past its own: a hidden one of the function being compiled
/// (a global array, a fallback callee, D8, an Enum class of the module, D14, or the scalar
/// original a residue calls, D19), which only that function has.
fn reads_hidden(func: &Function) -> bool {
    let mut hidden = false;
    walk_insts(&func.body, &mut |inst| match inst {
        Inst::Let {
            op: Op::Param(i), ..
        } => hidden |= *i >= func.declared_params,
        // D19, D23: seed 650003 #1803, a residue in a helper lowered out of line named the
        // function's hidden parameter by an index the helper's own parameters do not reach.
        Inst::Let {
            op:
                Op::ScalarCall {
                    callee: ScalarFn::Residue(i) | ScalarFn::Callable(i),
                    ..
                },
            ..
        } => hidden |= *i >= func.declared_params,
        Inst::Let {
            op: Op::Uniform(UniformOp::Global(_), _),
            ..
        } => hidden = true,
        _ => {}
    });
    hidden
}

/// The budget's message in out-of-line mode.
pub(in crate::lower) fn over_budget_message(name: &str) -> String {
    format!("`{name}` is too big to vectorize: with its helpers compiled as functions of their own (each once per signature of its arguments), the compile grows past the inlining budget of {MAX_INLINED_VALUES} operations; split the work into fewer, smaller helpers")
}

#[cfg(test)]
mod tests {
    use crate::env::{Binding, FunctionCode, FunctionSource};
    use crate::pipeline::testing::{env, errors_with, ir_after_with};
    use crate::pipeline::Options;

    fn helpers(source: &str, names: &[&'static str]) -> crate::env::Env {
        let bindings: Vec<(&'static str, Binding)> = names
            .iter()
            .map(|n| {
                let first = source
                    .lines()
                    .position(|l| l.starts_with(&format!("def {n}(")))
                    .expect("helper defined");
                let text: String = source
                    .lines()
                    .skip(first)
                    .map(|l| format!("{l}\n"))
                    .collect();
                let fs = FunctionSource {
                    code: FunctionCode::Text(text),
                    path: "helpers.py".into(),
                    first_line: first + 1,
                    name: (*n).into(),
                    env: None,
                    library: false,
                };
                (*n, Binding::Function(Box::new(fs)))
            })
            .collect();
        env(&bindings)
    }

    /// `h0 .. h{depth}`: each calls the next twice; the last one branches.
    fn fan_out(depth: usize) -> (String, Vec<&'static str>) {
        let mut src = String::new();
        let mut names = vec![];
        for i in 0..depth {
            src.push_str(&format!(
                "def h{i}(x):\n    return h{}(x) + h{}(x)\n",
                i + 1,
                i + 1
            ));
        }
        src.push_str(&format!(
            "def h{depth}(x):\n    return x * 0.5 if x > 1.0 else x\n"
        ));
        for i in 0..=depth {
            names.push(&*Box::leak(format!("h{i}").into_boxed_str()));
        }
        (src, names)
    }

    #[test]
    fn within_the_budget_helpers_are_inlined_as_before() {
        let (src, names) = fan_out(6);
        let env = helpers(&src, &names);
        let ir = ir_after_with(
            "def f(x):\n    return h0(x)\n",
            "lower",
            &env,
            Options::default(),
        )
        .to_string();
        assert!(!ir.contains("call @"), "{ir}");
    }

    #[test]
    fn past_the_budget_a_helper_is_called_and_lowered_once() {
        let (src, names) = fan_out(23);
        let env = helpers(&src, &names);
        let ir = ir_after_with(
            "def f(x):\n    return h0(x)\n",
            "lower",
            &env,
            Options::default(),
        )
        .to_string();
        assert!(ir.contains("call @"), "{ir}");
        assert!(ir.lines().count() < 20, "{ir}");
    }

    #[test]
    fn with_protect_domains_the_callers_live_lanes_are_passed() {
        let (src, names) = fan_out(23);
        let src = src.replace("x * 0.5", "math.sqrt(x - 1.0)");
        let env = helpers(&src, &names);
        let opts = Options {
            protect_domains: true,
            ..Options::default()
        };
        let f = "def f(x):\n    if x > 2.0:\n        return h0(x)\n    return 0.0\n";
        let ir = ir_after_with(f, "lower", &env, opts).to_string();
        let call = ir
            .lines()
            .find(|l| l.contains("call @"))
            .unwrap_or_default();
        assert!(
            call.contains(", %"),
            "the live lanes are a second argument: {ir}"
        );
    }

    #[test]
    fn a_program_still_too_big_is_refused() {
        // Every level doubles the number of distinct constant arguments: 2**depth signatures.
        let mut src = String::new();
        let mut names = vec![];
        for i in 0..20 {
            src.push_str(&format!(
                "def g{i}(x, c):\n    return g{}(x, 2 * c) + g{}(x, 2 * c + 1)\n",
                i + 1,
                i + 1
            ));
            names.push(&*Box::leak(format!("g{i}").into_boxed_str()));
        }
        src.push_str("def g20(x, c):\n    return x * c if x > c else x - c\n");
        names.push("g20");
        let env = helpers(&src, &names);
        let e = errors_with("def f(x):\n    return g0(x, 1)\n", &env);
        assert!(
            e.iter().any(|m| m.contains("too big to vectorize")),
            "{e:?}"
        );
    }
}
