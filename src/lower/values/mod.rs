//! Values beyond numbers: constant tables (`tables`, D15), `dict.get` on them (`dict_get`),
//! `bisect` over them (`bisect`), reductions over tables unrolled (`reduce`), tuples and several
//! results (`tuples`, D13), local containers (`containers/`: `ops` reads and changes them,
//! `calls` their methods and builtins, D18; the handles of tuples and containers in
//! `handles`), values None on some lanes (`none_lanes`, D20), and uniform per-call values
//! (`uniform/`, D14; the parameter uses it reads, found by `uniform/expr_walk`; the methods of
//! strings given per call, `uniform/str_methods`), and the type of a
//! parameter's elements (`type_tests`, D22).

pub(in crate::lower) mod bisect;
pub(in crate::lower) mod containers;
pub(in crate::lower) mod dict_get;
pub(in crate::lower) mod handles;
pub(in crate::lower) mod named_tuples;
pub(in crate::lower) mod none_lanes;
pub(in crate::lower) mod reduce;
pub(in crate::lower) mod tables;
pub(in crate::lower) mod tuples;
pub(in crate::lower) mod type_tests;
pub(in crate::lower) mod uniform;

use std::collections::BTreeSet;

use crate::diagnostics::SourceId;
use crate::ir::{ParamMode, Value};
use crate::Map as HashMap;

/// The state of the values beyond numbers: tuples (D13) and uniform values (D14). Its fields
/// are this family's; the others ask through the methods below.
#[derive(Default)]
pub(in crate::lower) struct ValueState {
    /// The values of the uniform parameters as passed (D14): a namespace passed in (`xnp`) is one.
    pub(in crate::lower::values) uniform_args: BTreeSet<Value>,
    /// Where each `None` or string literal is (D14: reported if a number is needed there).
    /// (The flag: a string, else `None`.)
    pub(in crate::lower::values) literals: HashMap<Value, (SourceId, usize, usize, bool)>,
    /// The parameter modes of each helper (D14), by helper, computed once per compile.
    pub(in crate::lower::values) helper_modes: HashMap<(String, usize, String), Vec<ParamMode>>,
    /// The lists and dicts made so far (D18).
    pub(in crate::lower::values) containers: containers::Containers,
    /// What belongs to the function being built.
    pub(in crate::lower::values) function: FunctionValues,
}

/// The value state that describes values of the function being built, set aside while a
/// helper is lowered on its own (`calls::callee`).
#[derive(Default)]
pub(in crate::lower) struct FunctionValues {
    /// Values computed from a uniform value (D14): a condition among them stays a Python `if`.
    pub(in crate::lower::values) uniform_derived: BTreeSet<Value>,
    /// Tuples being lowered, by their handle value (D13), local containers (D18) and values
    /// None on some lanes (D20).
    pub(in crate::lower::values) tuples: HashMap<Value, handles::TupleValue>,
    /// Where each single returned value was returned, for the arity errors of D13.
    pub(in crate::lower::values) return_sites: HashMap<Value, (SourceId, usize, usize)>,
    /// The values of the parameters that may be `None` (D14), with their index.
    pub(in crate::lower::values) optional: HashMap<Value, usize>,
    /// The parameters' own values: each has the type its dtype gives on every lane (D22).
    pub(in crate::lower::values) type_exact: BTreeSet<Value>,
    /// Tuples made by calling a namedtuple class: the class's name and fields (issue 27).
    pub(in crate::lower::values) named: HashMap<Value, (String, Vec<String>)>,
    /// The namedtuple class of the marked function's returns so far, or None for another
    /// result (issue 27, D13): every return must agree.
    pub(in crate::lower::values) result_class: Option<Option<String>>,
    /// The names the marked function's own body reads (a namedtuple result's class must be one).
    pub(in crate::lower::values) compiled_reads: BTreeSet<String>,
    /// Items of a tuple given per call, unpacked (D14): each may be None.
    pub(in crate::lower::values) maybe_none_items: BTreeSet<Value>,
}

impl ValueState {
    /// Records that parameter `i`, whose value is `v`, may be `None` (D14).
    pub(in crate::lower) fn add_optional_param(&mut self, v: Value, i: usize) {
        self.function.optional.insert(v, i);
    }

    /// Records that `v` is a uniform parameter's value as passed (D14).
    pub(in crate::lower) fn add_uniform_arg(&mut self, v: Value) {
        self.uniform_args.insert(v);
    }

    /// Whether `v` is a uniform parameter's value as passed (D14).
    pub(in crate::lower) fn is_uniform_arg(&self, v: Value) -> bool {
        self.uniform_args.contains(&v)
    }

    /// Whether `v` was computed from a uniform value (D14).
    pub(in crate::lower) fn is_uniform_derived(&self, v: Value) -> bool {
        self.function.uniform_derived.contains(&v)
    }

    /// Records that `v` was computed from a uniform value (D14).
    pub(in crate::lower) fn add_uniform_derived(&mut self, v: Value) {
        self.function.uniform_derived.insert(v);
    }

    /// Whether `v` is the handle of a tuple (D13), not a number.
    pub(in crate::lower) fn is_tuple(&self, v: Value) -> bool {
        self.function.tuples.contains_key(&v)
    }

    /// Sets aside what belongs to the function being built, for a fresh one.
    pub(in crate::lower) fn set_aside(&mut self) -> FunctionValues {
        std::mem::take(&mut self.function)
    }

    /// Restores what [`Self::set_aside`] set aside.
    pub(in crate::lower) fn restore(&mut self, function: FunctionValues) {
        self.function = function;
    }
}
