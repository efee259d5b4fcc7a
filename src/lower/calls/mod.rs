//! Calls: builtins and `math` (`builtins`), D17 calls on arguments that are not plain floats
//! (`special`), NumPy inside scalar code (`numpy`, D16: the accepted names in `numpy::table`, the
//! array-aware calls in `numpy::arrays`), helpers inlined (`inline`) or lowered on their own and
//! called (`callee`, D7), recursion inlined to a bounded depth with a scalar residue and the calls
//! run element by element on the lanes that reach them, such as those the compiler cannot
//! vectorize under `fallback="calls"` (`elementwise`, D19, D23), classes and module aliases used
//! as namespaces (`namespace`), the did-you-mean messages for `math` names (`suggest`), and
//! builtins as people write them (`written`: `round`'s keywords and a uniform ndigits,
//! `math.modf`).

pub(in crate::lower) mod builtins;
pub(in crate::lower) mod callee;
pub(in crate::lower) mod elementwise;
pub(in crate::lower) mod inline;
pub(in crate::lower) mod namespace;
pub mod numpy;
pub(in crate::lower) mod special;
pub(in crate::lower) mod suggest;
pub(in crate::lower) mod written;

use std::rc::Rc;

use crate::diagnostics::Diagnostic;
use crate::env::Env;
use crate::frontend::extract::ParsedFunction;
use crate::Map as HashMap;

/// Most helper calls nested inside one another; deeper is almost surely runaway inlining.
const MAX_CALL_DEPTH: usize = 32;
/// Most IR values a function may grow to while helpers are inlined (D7): every call is a copy of
/// the helper's body, so helpers that call one another twice copy the innermost `2**depth` times.
/// Real functions stay far below (a few thousand); past it the compile stops with a diagnostic
/// rather than running out of time or memory.
const MAX_INLINED_VALUES: usize = 100_000;

/// A call run element by element (D19, D23): `residue` or `call_site`, what it calls as
/// written, and the call's line.
pub(in crate::lower) type ElementSite = (&'static str, String, usize);

/// What identifies a function on the call stack: its file, line and name.
pub(in crate::lower) type FunctionId = (String, usize, String);

/// The state of the calls of helpers (D7). Its fields are this family's; the others ask
/// through the methods below.
#[derive(Default)]
pub(in crate::lower) struct CallState {
    /// Every helper parsed so far, by its identity.
    pub(in crate::lower::calls) helpers: HashMap<FunctionId, Rc<ParsedFunction>>,
    /// What the front end reported of each helper it rejected.
    pub(in crate::lower::calls) rejected_helpers: HashMap<FunctionId, Vec<Diagnostic>>,
    /// What the front end found wrong in another library's functions (`FunctionSource::library`),
    /// kept for the one problem each call reports instead (`inline.rs`).
    pub(in crate::lower::calls) library_problems: HashMap<FunctionId, Vec<Diagnostic>>,
    /// The compiled function, then the helpers being inlined into it, innermost last.
    pub(in crate::lower::calls) call_stack: Vec<FunctionId>,
    /// The inlining budget ran out (reported once; every later call fails at once).
    pub(in crate::lower::calls) over_budget: bool,
    /// Helpers called with arrays or constants are lowered on their own (`callee.rs`, D7).
    pub(in crate::lower::calls) out_of_line: bool,
    /// Helpers lowered on their own, in the order they were first called.
    pub(in crate::lower::calls) callees: Vec<callee::CalleeFn>,
    /// Index in `callees` per helper signature; None for one that is inlined.
    pub(in crate::lower::calls) callee_memo: HashMap<String, Option<usize>>,
    /// Values of every helper in `callees`, for the budget.
    pub(in crate::lower::calls) callee_values: usize,
    /// The classmethods being inlined: the name of each one's first parameter and the dotted
    /// name of the class bound to it, under which reads through it are assumed (D8).
    pub(in crate::lower::calls) class_params: Vec<(String, String)>,
    /// The call of the expression statement being lowered (by address): a helper called for its
    /// checks, whose result is discarded, may fall off its end.
    pub(in crate::lower::calls) statement_call: Option<usize>,
    /// Recursive functions inlined within themselves, the lanes the callers of the helpers being
    /// inlined bring, and the calls run element by element (D19, D23).
    pub(in crate::lower::calls) recursion: elementwise::recursion::RecursionState,
    /// The environment each function was lowered in, for a call that closes a cycle (D19: the
    /// live environment describes a function it is still describing without one).
    pub(in crate::lower::calls) envs: HashMap<FunctionId, Env>,
}

impl CallState {
    /// The state of one attempt at lowering a function: with `out_of_line`, helpers called with
    /// arrays or constants are lowered on their own (D7, `callee.rs`: the attempt after inlining
    /// every call ran over the budget); recursive functions are inlined within themselves at
    /// most `levels` times (D19, `elementwise/recursion.rs`).
    pub(in crate::lower) fn attempt(out_of_line: bool, levels: usize) -> Self {
        let mut state = CallState {
            out_of_line,
            ..CallState::default()
        };
        state.recursion.levels = levels;
        state
    }

    /// Whether the inlined levels of recursive functions outgrew their budget: lowering starts
    /// over with fewer (D19).
    pub(in crate::lower) fn recursion_over_budget(&self) -> bool {
        self.recursion.over
    }

    /// Enters the compiled function `id`, lowered in `env`: the bottom of the call stack.
    pub(in crate::lower) fn enter_compiled(&mut self, id: FunctionId, env: &Env) {
        self.envs.insert(id.clone(), env.clone());
        self.call_stack.push(id);
    }

    /// Whether the code being lowered is the compiled function's own, not a helper's.
    pub(in crate::lower) fn in_compiled_function(&self) -> bool {
        self.call_stack.len() == 1
    }

    /// How many functions are being lowered, one inside the other: 1 in the compiled function.
    pub(in crate::lower) fn depth(&self) -> usize {
        self.call_stack.len()
    }

    /// Takes up the expression statement's call `id` when it is the one being lowered (a
    /// method changing a container, D18, is made for its effect).
    pub(in crate::lower) fn claim_statement_call(&mut self, id: usize) {
        if self.statement_call == Some(id) {
            self.statement_call = None;
        }
    }

    /// Whether the inlining budget ran out: lowering starts over with helpers out of line.
    pub(in crate::lower) fn over_budget(&self) -> bool {
        self.over_budget
    }

    /// The call at address `id` is an expression statement's: its result is discarded.
    pub(in crate::lower) fn expect_statement_call(&mut self, id: usize) {
        self.statement_call = Some(id);
    }

    /// Whether the expression statement's call `id` was not taken up by an inlined helper (which
    /// may then fall off its end); forgets it either way.
    pub(in crate::lower) fn statement_call_unclaimed(&mut self, id: usize) -> bool {
        self.statement_call.take() == Some(id)
    }

    /// The helpers lowered on their own, which `Op::Call` names by index, and the calls run
    /// element by element (D19, D23).
    pub(in crate::lower) fn into_results(self) -> (Vec<callee::CalleeFn>, Vec<ElementSite>) {
        (self.callees, self.recursion.sites)
    }
}
