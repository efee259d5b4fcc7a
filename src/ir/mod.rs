//! The intermediate representation: a function in SSA form over whole arrays.
//!
//! Array control flow is gone by the time the IR exists: lowering turned `if`/`else` and early
//! returns into [`Op::Select`] merges (D1). What remains structured is what runs as Python control
//! flow in the generated code: constant-trip loops ([`Inst::Loop`], D6) with explicit phis, and
//! branches whose condition depends only on loop indices and constants ([`Inst::If`]).
//!
//! Every value has a [`Kind`] (the Python type it has per lane) and a [`Shape`]: `Scalar` values are
//! ordinary Python numbers in the generated code (constants, loop indices, arithmetic on them), so
//! they follow CPython exactly; `Array` values are arrays of the namespace `xp`.
//!
//! Files: `types` (values, kinds, shapes), `constant` (Python constants), `math` (the `math`
//! functions and their domains), `op` (operations and their result-kind and result-shape rules),
//! `eval` (constant evaluation with CPython's semantics), `print` (the text form) and `read` (its
//! reader, with the grammar), `verify` (the invariants every pass keeps), `walk` (visiting nested
//! regions: every pass's way down). This file holds the function, block and instruction types.

pub mod constant;
pub mod eval;
pub mod math;
pub mod op;
mod print;
pub mod read;
pub mod types;
pub mod uniform;
pub mod verify;
mod walk;

pub use constant::{const_kind, float_repr, Const};
pub use math::{
    math_fn, MathFn, SafeValue, MATH_CONSTANTS, MATH_FUNCTIONS, NUMPY_POWER, NUMPY_ROUNDING,
    ROUND_DIGITS,
};
pub use op::{
    result_kind, result_shape, BinOp, CastOp, CmpOp, LogicOp, Op, OpKey, Operands, ScalarFn, UnOp,
};
pub use types::{Kind, Shape, Value};
pub use uniform::{ElementTypes, ObjCmp, ObjLit, UniformOp};
pub use walk::{
    insert_before, retain_insts, try_walk_steps, walk_blocks_mut, walk_insts, walk_insts_mut,
    walk_insts_rev, walk_steps, walk_steps_mut, Step,
};

/// A loop-carried variable: `dst` is `init` on entry, and `next` at the end of each iteration.
#[derive(Debug, Clone, PartialEq)]
pub struct Phi {
    pub dst: Value,
    pub init: Value,
    pub next: Value,
}

/// A value merged after a scalar `if`: `then` on one side, `other` on the other.
#[derive(Debug, Clone, PartialEq)]
pub struct IfOut {
    pub dst: Value,
    pub then: Value,
    pub other: Value,
}

/// One instruction of a block.
#[derive(Debug, Clone, PartialEq)]
pub enum Inst {
    /// `dst = op`.
    Let { dst: Value, op: Op },
    /// `for index in range(start, stop, step)`, a real loop over whole arrays (D6); with `items`,
    /// `for index in items` over a constant tuple (`start..stop` then indexes it).
    Loop {
        index: Value,
        start: i128,
        stop: i128,
        step: i128,
        items: Option<Const>,
        phis: Vec<Phi>,
        body: Block,
        /// A data-dependent loop (D12): the phi of the lanes still active; the loop runs while
        /// any lane of it is true, and `index`/`start..stop` are unused. None: a counted loop.
        active: Option<Value>,
    },
    /// A branch on a scalar condition (loop indices and constants only): a Python `if`.
    If {
        cond: Value,
        then: Block,
        other: Block,
        outs: Vec<IfOut>,
    },
}

/// Instructions run in order.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Block {
    pub insts: Vec<Inst>,
}

/// What the compiler knows about one value.
#[derive(Debug, Clone, PartialEq)]
pub struct ValueInfo {
    pub kind: Kind,
    pub shape: Shape,
    /// The source variable this value was assigned to, if any: codegen names it after it.
    pub hint: Option<String>,
    /// Defined by [`Op::Placeholder`]: its kind follows the merge it feeds.
    pub placeholder: bool,
}

/// One `raise` or `assert` of the function or of a helper it inlines (D11): the exception
/// expression's source text, evaluated in Python on the first raising lane with `params` bound
/// to that lane's values of `args`.
#[derive(Debug, Clone, PartialEq)]
pub struct RaiseSite {
    /// The exception expression as written (`ValueError(f"bad {x}")`, or a class).
    pub expr: String,
    /// The free names of `expr` that are values (variables, frozen constants).
    pub params: Vec<String>,
    /// The values of `params` where the `raise` stands.
    pub args: Vec<Value>,
    /// The cause of `raise ... from cause`, as written, over the same `params`.
    pub cause: Option<String>,
}

/// The runtime helper a raise site of a call run element by element calls (D19, D23): it
/// calls the callee again on the raising lane's values and gives the exception it raises
/// (the runtime contract's `rerun`, src/codegen/runtime.rs).
pub const RERUN_HELPER: &str = "_vec_rerun";

/// The lanes that raised (D11): `code` is 0 on lanes that returned and `k` on lanes that reached
/// `sites[k - 1]` first.
#[derive(Debug, Clone, PartialEq)]
pub struct Raises {
    pub code: Value,
    pub sites: Vec<RaiseSite>,
    /// The raising lanes give NaN instead of the call raising (`nan_on_raise=True`).
    pub nan: bool,
}

/// How a declared parameter is passed (D14, `lower::uniform` decides).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ParamMode {
    /// A number or an array: converted by the argument prologue.
    #[default]
    Number,
    /// A per-call Python object, the same on every lane: never converted.
    Uniform,
    /// `None` or a number/array (`limit=None` tested `is None`): `is None` reads the argument
    /// as passed, numeric uses read it converted (a stand-in when it is `None`).
    Optional,
}

/// One compiled function (helpers are inlined into it); the default is an empty one, which
/// lowering fills.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Function {
    pub name: String,
    /// Declared parameters, then hidden array parameters (D8) and callees (fallback).
    pub params: Vec<String>,
    /// How many of `params` the user declared.
    pub declared_params: usize,
    /// How each declared parameter is passed (D14); empty means every one is a number.
    pub modes: Vec<ParamMode>,
    pub values: Vec<ValueInfo>,
    pub body: Block,
    /// The result: one value, or the positions of a tuple when `tuple` (D13).
    pub ret: Vec<Value>,
    /// Whether the function returns a tuple of `ret` (`return a, b`) rather than `ret[0]`.
    pub tuple: bool,
    /// The namedtuple class a tuple result is made of (`return Point(x, y)`, D13, issue 27): the
    /// hidden parameter holding it, a global of the generated module. None: a plain tuple.
    pub result_class: Option<usize>,
    /// Where lanes raise, when any can (D11).
    pub raises: Option<Raises>,
}

impl Function {
    /// How declared parameter `i` is passed.
    pub fn mode(&self, i: usize) -> ParamMode {
        self.modes.get(i).copied().unwrap_or_default()
    }

    /// What is known about `v`.
    #[inline]
    pub fn info(&self, v: Value) -> &ValueInfo {
        &self.values[v.index()]
    }

    /// The values read after the body: the result's positions, then the raise code and the raise
    /// sites' values.
    pub fn exit_values(&self) -> Vec<Value> {
        let mut out = self.ret.clone();
        if let Some(r) = &self.raises {
            out.push(r.code);
            for site in &r.sites {
                out.extend(site.args.iter().copied());
            }
        }
        out
    }

    /// Renames every value read after the body.
    pub fn map_exit_values(&mut self, mut f: impl FnMut(Value) -> Value) {
        for r in self.ret.iter_mut() {
            *r = f(*r);
        }
        if let Some(r) = &mut self.raises {
            r.code = f(r.code);
            for site in &mut r.sites {
                for a in &mut site.args {
                    *a = f(*a);
                }
            }
        }
    }

    /// A fresh value (not yet defined by any instruction).
    pub fn new_value(&mut self, kind: Kind, shape: Shape, hint: Option<String>) -> Value {
        self.values.push(ValueInfo {
            kind,
            shape,
            hint,
            placeholder: false,
        });
        Value((self.values.len() - 1) as u32)
    }
}

/// How many times each value is read (operands, phi inputs, if-merge inputs, the return).
pub fn use_counts(func: &Function) -> Vec<usize> {
    let mut counts = vec![0usize; func.values.len()];
    walk_insts(&func.body, &mut |inst| {
        for v in inst.reads() {
            counts[v.index()] += 1;
        }
    });
    for v in func.exit_values() {
        counts[v.index()] += 1;
    }
    counts
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pipeline::testing::ir_after;

    #[test]
    fn use_counts_count_every_read() {
        let f = ir_after("def f(x):\n    return x * x + 1.0\n", "dce");
        let counts = use_counts(&f);
        assert_eq!(counts[0], 2, "{f}");
        assert_eq!(counts[f.ret[0].index()], 1, "{f}");
    }
}
