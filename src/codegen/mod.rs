//! Codegen: the optimized IR as a Python AST (src/codegen/pyast.rs), then as text.
//!
//! The generated module has two functions (ARCHITECTURE.md, "Generated code"): the entry, whose
//! body is the IR compiled with float parameters, and `_vec_exact_<name>`, the same IR compiled
//! with int64 parameters (the int body, taken when every argument is an int) and with
//! parameters of unknown kind (the exact body). Its parts, one file each:
//!
//! - `assemble`: the module: signatures, argument prologues, the two functions, their texts;
//! - `plan`: which values are inlined into their single use, and the name of every other one;
//! - `isel`: instruction selection, one IR operation to one expression;
//! - `choice`: the one place where the operands' kinds pick a plain `xp` form or a runtime helper;
//! - `peephole`: patterns printed the way a careful person writes them, one function each;
//! - `stmts`: blocks, loops, ifs and the conversions at their merges;
//! - `dels`: `del` of arrays after their last read;
//! - `inplace`: loop-carried float arrays of the generated code's own, updated in place;
//! - `chain`: named float arrays computed by a chain of operations into its first array;
//! - `pack`: `while` loops of the float body computing only their still-active lanes;
//! - `sincos`: a block's `sin` and `cos` of one array from one runtime call;
//! - `runtime`: the runtime helper contract (names, op keys), exported as `_core.RUNTIME_HELPERS`.

mod assemble;
mod callee;
mod chain;
mod choice;
mod dels;
pub mod fallback;
pub mod first_call;
mod horner;
mod inplace;
mod isel;
mod loop_fn;
mod pack;
mod peephole;
mod plan;
pub mod pyast;
pub mod runtime;
mod sincos;
mod stmts;

use std::collections::BTreeSet;

// What codegen reads of the rest of the core, imported here once for every file below.
use crate::analysis::ranges::int_facts;
use crate::codegen::pyast::{attr, call, name, Expr};
use crate::env::Hidden;
use crate::ir::{const_kind, Const};
use crate::ir::{Function, Kind, Op, Shape, Value};

pub use assemble::{generate, Bodies, Generated, Signature};
pub use callee::CallTargets;
pub(crate) use plan::unique;
use runtime::Helper;

/// Builtins and literals the generated code reads: never used for variables.
const PYTHON_NAMES: &[&str] = &[
    "float",
    "int",
    "bool",
    "round",
    "abs",
    "range",
    "None",
    "True",
    "False",
    "isinstance",
    "type",
    "str",
    "dict",
    "tuple",
    "list",
];

/// Deepest chain of operations inlined into one expression.
const MAX_INLINE_DEPTH: usize = 24;

/// The generation of one body (the float one or the exact one) from its IR.
struct Gen<'a> {
    f: &'a Function,
    xp: String,
    array_params: &'a [String],
    /// The local name of each parameter (hidden arrays get their own).
    locals: &'a [String],
    /// Variable name of each value, once it has one.
    names: Vec<Option<String>>,
    /// Values printed at their single use.
    inline: Vec<bool>,
    /// The defining operation of each value defined by a `Let`.
    defs: Vec<Option<&'a Op>>,
    /// Int values that may lie outside int64 (`kinds::wide_ints`).
    wide: Vec<bool>,
    /// Python int scalars known to lie within +-2**53 (`ranges::int_facts`).
    exact_in_float: Vec<bool>,
    /// The interval of each int and bool value that has one (`ranges::int_facts`).
    ranges: Vec<Option<(i128, i128)>>,
    taken: plan::FreshNames<'a>,
    /// Generating the float body: every argument is float64 (or a Python float), so a float
    /// scalar lifted to a 0-d value may be the namespace's cheapest one (`runtime::F64`).
    float_body: bool,
    /// The generated functions of out-of-line helpers this body calls (D7).
    calls: Option<&'a callee::Emitted<'a>>,
    /// A helper's body returns its value as computed (`callee.rs`); the entry's gives it one
    /// dtype.
    returns_raw: bool,
    /// Per value, in the float body: the link of the in-place chain computing it (`chain`).
    links: Vec<Option<chain::Link>>,
}

impl<'a> Gen<'a> {
    fn new(
        f: &'a Function,
        xp: &str,
        reserved: &'a BTreeSet<String>,
        array_params: &'a [String],
        locals: &'a [String],
        (wide_params, calls): (&[bool], Option<&'a callee::Emitted<'a>>),
    ) -> Self {
        let n = f.values.len();
        let ints = int_facts(f, wide_params);
        let mut g = Gen {
            f,
            xp: xp.to_string(),
            array_params,
            locals,
            names: vec![None; n],
            inline: vec![false; n],
            defs: vec![None; n],
            wide: ints.wide,
            exact_in_float: ints.exact_in_float,
            ranges: ints.range,
            taken: plan::FreshNames::new(reserved, BTreeSet::from([xp.to_string()])),
            float_body: false,
            calls,
            returns_raw: false,
            links: vec![],
        };
        g.plan();
        g
    }

    /// The float body's generator: patterns that exist only there (`_vec_clip`) change the plan.
    fn for_float_body(mut self) -> Self {
        self.float_body = true;
        self.plan();
        self.plan_chains();
        self
    }

    fn def(&self, v: Value) -> Option<&'a Op> {
        self.defs[v.index()]
    }

    fn kind(&self, v: Value) -> Kind {
        self.f.info(v).kind
    }

    fn scalar(&self, v: Value) -> bool {
        self.f.info(v).shape == Shape::Scalar
    }

    /// What instruction selection knows of `v` when it picks a form (`choice`).
    fn operand(&self, v: Value) -> choice::Operand {
        let int_const = match self.def(v) {
            Some(Op::Const(Const::Int(n))) => Some(*n),
            _ => None,
        };
        choice::Operand {
            kind: self.kind(v),
            scalar: self.scalar(v),
            wide: self.wide[v.index()],
            exact_in_float: self.exact_in_float[v.index()],
            int_const,
            range: self.ranges[v.index()],
        }
    }

    /// `xp.<member>`.
    fn x(&self, member: &'static str) -> Expr {
        attr(name(&self.xp), member)
    }

    /// `xp.<member>(args)`.
    fn xcall(&self, member: &'static str, args: Vec<Expr>) -> Expr {
        call(self.x(member), args)
    }

    fn dtype(&self, k: Kind) -> Expr {
        self.x(match k {
            Kind::Float => "float64",
            Kind::Int => "int64",
            Kind::Bool | Kind::Unknown | Kind::Object => "bool",
        })
    }

    /// `helper(xp, args)`.
    fn helper(&self, h: &Helper, args: Vec<Expr>) -> Expr {
        let mut all = vec![name(&self.xp)];
        all.extend(args);
        call(name(h.name), all)
    }

    /// `helper(xp, "op", args)`: an operation of `_vec_binary` or `_vec_unary`.
    fn helper_op(&self, h: &Helper, op: &'static str, args: Vec<Expr>) -> Expr {
        debug_assert!(h.ops.contains(&op), "{} has no operation {op:?}", h.name);
        let mut all = vec![Expr::Str(op)];
        all.extend(args);
        self.helper(h, all)
    }
}

#[cfg(test)]
mod tests {
    use crate::pipeline::testing::compiled;

    /// Programs touching every part of codegen: loops, scalar ifs, merges, peepholes, helpers.
    const PROGRAMS: &[&str] = &[
        "def f(x, y):\n    return x // y if x > y else -x\n",
        "def f(x):\n    acc = 0\n    for i in range(4):\n        if i % 2 == 0:\n            acc = acc + x * i\n    return acc\n",
        "def f(x, *, lo=0.0):\n    return min(max(x, -1.0), 1.0) + int(math.floor(x)) + lo\n",
        "def f(a, /, b):\n    t = a * b\n    u = t + a\n    return u * u - t\n",
        "def f(m, e):\n    E = m\n    while True:\n        d = (E - e * math.sin(E) - m) / (1.0 - e * math.cos(E))\n        E = E - d\n        if abs(d) < 1e-12:\n            return E\n",
    ];

    #[test]
    fn generated_modules_parse_and_generating_twice_gives_the_same_text() {
        for src in PROGRAMS {
            let c = compiled(src);
            assert_eq!(c.source, compiled(src).source, "{src}");
            let mut sources = vec![];
            let parsed = crate::frontend::extract::parse_text(&mut sources, "gen.py", &c.source, 1);
            let body = parsed
                .unwrap_or_else(|_| panic!("does not parse:\n{}", c.source))
                .1;
            assert_eq!(body.len(), 2, "{}", c.source);
        }
    }
}
