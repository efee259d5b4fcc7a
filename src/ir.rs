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

use std::fmt::{self, Write as _};

use crate::env::Const;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Value(pub u32);

impl Value {
    pub fn index(self) -> usize {
        self.0 as usize
    }
}

impl fmt::Display for Value {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "%{}", self.0)
    }
}

/// The Python type a value has on every lane, as far as the compiler can prove.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Kind {
    Bool,
    Int,
    Float,
    /// Any of the above, decided by the arguments' dtypes at run time.
    Unknown,
}

impl Kind {
    /// Kind of a value that is `a` on some lanes and `b` on others (one array holds both, so the
    /// narrower kind is promoted: the documented divergence for mixed-kind results).
    pub fn join(a: Kind, b: Kind) -> Kind {
        use Kind::{Bool, Float, Int, Unknown};
        match (a, b) {
            (Unknown, _) | (_, Unknown) => Unknown,
            (x, y) if x == y => x,
            (Float, _) | (_, Float) => Float,
            (Int, Bool) | (Bool, Int) => Int,
            _ => Unknown,
        }
    }

    /// Kind of `a op b` for `+ - * // %` in Python: bools act as ints.
    pub fn arith(a: Kind, b: Kind) -> Kind {
        use Kind::{Bool, Float, Int, Unknown};
        match (a, b) {
            (Float, _) | (_, Float) => Float,
            (Unknown, _) | (_, Unknown) => Unknown,
            (Int | Bool, Int | Bool) => Int,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Kind::Bool => "bool",
            Kind::Int => "int",
            Kind::Float => "float",
            Kind::Unknown => "num",
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Shape {
    /// A Python scalar, the same on every lane.
    Scalar,
    /// An array of the namespace.
    Array,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum UnOp {
    Neg,
    Pos,
    /// Logical not of a boolean (numeric `not` is lowered to `== 0`, D2).
    Not,
    Abs,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum BinOp {
    Add,
    Sub,
    Mul,
    Div,
    FloorDiv,
    Mod,
    Pow,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum CmpOp {
    Lt,
    Le,
    Gt,
    Ge,
    Eq,
    Ne,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum LogicOp {
    And,
    Or,
}

/// Conversions, each with CPython's meaning.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum CastOp {
    /// `float(x)`.
    Float,
    /// `int(x)`: truncation toward zero.
    Int,
    /// `bool(x)`, and the `!= 0` coercion of D2/D4.
    Bool,
    /// `round(x)`: half to even, to an int.
    Round,
}

/// A `math` function with an Array API counterpart.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct MathFn {
    /// Name in `math`.
    pub name: &'static str,
    /// Name in the Array API namespace.
    pub xp_name: &'static str,
    pub arity: usize,
    pub result: Kind,
}

/// Every supported `math` function, by its name in `math`.
pub const MATH_FUNCTIONS: &[MathFn] = &[
    MathFn {
        name: "sqrt",
        xp_name: "sqrt",
        arity: 1,
        result: Kind::Float,
    },
    MathFn {
        name: "exp",
        xp_name: "exp",
        arity: 1,
        result: Kind::Float,
    },
    MathFn {
        name: "expm1",
        xp_name: "expm1",
        arity: 1,
        result: Kind::Float,
    },
    MathFn {
        name: "log",
        xp_name: "log",
        arity: 1,
        result: Kind::Float,
    },
    MathFn {
        name: "log1p",
        xp_name: "log1p",
        arity: 1,
        result: Kind::Float,
    },
    MathFn {
        name: "log2",
        xp_name: "log2",
        arity: 1,
        result: Kind::Float,
    },
    MathFn {
        name: "log10",
        xp_name: "log10",
        arity: 1,
        result: Kind::Float,
    },
    MathFn {
        name: "sin",
        xp_name: "sin",
        arity: 1,
        result: Kind::Float,
    },
    MathFn {
        name: "cos",
        xp_name: "cos",
        arity: 1,
        result: Kind::Float,
    },
    MathFn {
        name: "tan",
        xp_name: "tan",
        arity: 1,
        result: Kind::Float,
    },
    MathFn {
        name: "asin",
        xp_name: "asin",
        arity: 1,
        result: Kind::Float,
    },
    MathFn {
        name: "acos",
        xp_name: "acos",
        arity: 1,
        result: Kind::Float,
    },
    MathFn {
        name: "atan",
        xp_name: "atan",
        arity: 1,
        result: Kind::Float,
    },
    MathFn {
        name: "sinh",
        xp_name: "sinh",
        arity: 1,
        result: Kind::Float,
    },
    MathFn {
        name: "cosh",
        xp_name: "cosh",
        arity: 1,
        result: Kind::Float,
    },
    MathFn {
        name: "tanh",
        xp_name: "tanh",
        arity: 1,
        result: Kind::Float,
    },
    MathFn {
        name: "asinh",
        xp_name: "asinh",
        arity: 1,
        result: Kind::Float,
    },
    MathFn {
        name: "acosh",
        xp_name: "acosh",
        arity: 1,
        result: Kind::Float,
    },
    MathFn {
        name: "atanh",
        xp_name: "atanh",
        arity: 1,
        result: Kind::Float,
    },
    MathFn {
        name: "atan2",
        xp_name: "atan2",
        arity: 2,
        result: Kind::Float,
    },
    MathFn {
        name: "hypot",
        xp_name: "hypot",
        arity: 2,
        result: Kind::Float,
    },
    MathFn {
        name: "copysign",
        xp_name: "copysign",
        arity: 2,
        result: Kind::Float,
    },
    MathFn {
        name: "pow",
        xp_name: "pow",
        arity: 2,
        result: Kind::Float,
    },
    MathFn {
        name: "fabs",
        xp_name: "abs",
        arity: 1,
        result: Kind::Float,
    },
    // floor/ceil/trunc return ints in Python; lowering adds the int conversion.
    MathFn {
        name: "floor",
        xp_name: "floor",
        arity: 1,
        result: Kind::Float,
    },
    MathFn {
        name: "ceil",
        xp_name: "ceil",
        arity: 1,
        result: Kind::Float,
    },
    MathFn {
        name: "trunc",
        xp_name: "trunc",
        arity: 1,
        result: Kind::Float,
    },
    MathFn {
        name: "isnan",
        xp_name: "isnan",
        arity: 1,
        result: Kind::Bool,
    },
    MathFn {
        name: "isinf",
        xp_name: "isinf",
        arity: 1,
        result: Kind::Bool,
    },
    MathFn {
        name: "isfinite",
        xp_name: "isfinite",
        arity: 1,
        result: Kind::Bool,
    },
];

/// `math` constants.
pub const MATH_CONSTANTS: &[(&str, f64)] = &[
    ("pi", std::f64::consts::PI),
    ("e", std::f64::consts::E),
    ("tau", std::f64::consts::TAU),
    ("inf", f64::INFINITY),
    ("nan", f64::NAN),
];

pub fn math_fn(name: &str) -> Option<&'static MathFn> {
    MATH_FUNCTIONS.iter().find(|f| f.name == name)
}

/// A pure operation producing one value.
#[derive(Debug, Clone, PartialEq)]
pub enum Op {
    /// The i-th parameter (hidden array parameters come after the declared ones).
    Param(usize),
    Const(Const),
    Unary(UnOp, Value),
    Binary(BinOp, Value, Value),
    Compare(CmpOp, Value, Value),
    /// Elementwise logic on booleans (D2).
    Logic(LogicOp, Value, Value),
    /// `xp.where(cond, then, else)`: the merge of both sides of a branch (D1).
    Select(Value, Value, Value),
    Math(&'static MathFn, Vec<Value>),
    Cast(CastOp, Value),
    /// A scalar tuple constant indexed by a scalar int (`COEFFS[i]`).
    Index(Value, Value),
    /// An element loop over a callable passed as hidden parameter `callee` (fallback=True, D7).
    ElementCall {
        callee: usize,
        args: Vec<Value>,
    },
    /// The value spread to the broadcast shape of all parameters, as an array.
    Broadcast(Value),
    /// A scalar as a 0-d array (where a merge needs an array on both sides).
    AsArray(Value),
    /// A value never observed on a live lane (the initial value of a variable first assigned
    /// inside a loop, or of the return value): a 0-d array of the merge's kind.
    Placeholder(Const),
}

impl Op {
    /// Operand values, in order.
    pub fn operands(&self) -> Vec<Value> {
        match self {
            Op::Param(_) | Op::Const(_) | Op::Placeholder(_) => vec![],
            Op::Unary(_, a) | Op::Cast(_, a) | Op::Broadcast(a) | Op::AsArray(a) => vec![*a],
            Op::Binary(_, a, b) | Op::Compare(_, a, b) | Op::Logic(_, a, b) | Op::Index(a, b) => {
                vec![*a, *b]
            }
            Op::Select(c, a, b) => vec![*c, *a, *b],
            Op::Math(_, args) | Op::ElementCall { args, .. } => args.clone(),
        }
    }

    /// The same operation over renamed operands.
    pub fn map_operands(&self, mut f: impl FnMut(Value) -> Value) -> Op {
        match self {
            Op::Param(_) | Op::Const(_) | Op::Placeholder(_) => self.clone(),
            Op::AsArray(a) => Op::AsArray(f(*a)),
            Op::Unary(o, a) => Op::Unary(*o, f(*a)),
            Op::Cast(o, a) => Op::Cast(*o, f(*a)),
            Op::Broadcast(a) => Op::Broadcast(f(*a)),
            Op::Binary(o, a, b) => Op::Binary(*o, f(*a), f(*b)),
            Op::Compare(o, a, b) => Op::Compare(*o, f(*a), f(*b)),
            Op::Logic(o, a, b) => Op::Logic(*o, f(*a), f(*b)),
            Op::Index(a, b) => Op::Index(f(*a), f(*b)),
            Op::Select(c, a, b) => Op::Select(f(*c), f(*a), f(*b)),
            Op::Math(m, args) => Op::Math(m, args.iter().map(|v| f(*v)).collect()),
            Op::ElementCall { callee, args } => Op::ElementCall {
                callee: *callee,
                args: args.iter().map(|v| f(*v)).collect(),
            },
        }
    }

    /// A key identifying the operation for common-subexpression elimination: equal keys
    /// compute equal values. `None` for operations never merged.
    pub fn cse_key(&self) -> Option<OpKey> {
        let key = |tag: u8, sub: u128, vs: &[Value]| {
            let mut operands = [u32::MAX; 3];
            for (slot, v) in operands.iter_mut().zip(vs) {
                *slot = v.0;
            }
            Some(OpKey { tag, sub, operands })
        };
        match self {
            Op::Param(i) => key(0, *i as u128, &[]),
            Op::Const(Const::Bool(b)) => key(1, u128::from(*b), &[]),
            Op::Const(Const::Int(i)) => key(2, *i as u128, &[]),
            Op::Const(Const::Float(f)) => key(3, u128::from(f.to_bits()), &[]),
            Op::Unary(o, a) => key(4, *o as u128, &[*a]),
            Op::Binary(o, a, b) => key(5, *o as u128, &[*a, *b]),
            Op::Compare(o, a, b) => key(6, *o as u128, &[*a, *b]),
            Op::Logic(o, a, b) => key(7, *o as u128, &[*a, *b]),
            Op::Select(c, a, b) => key(8, 0, &[*c, *a, *b]),
            Op::Math(m, args) if args.len() <= 3 => {
                key(9, std::ptr::from_ref::<MathFn>(m) as usize as u128, args)
            }
            Op::Cast(o, a) => key(10, *o as u128, &[*a]),
            Op::Index(a, b) => key(11, 0, &[*a, *b]),
            Op::Broadcast(a) => key(12, 0, &[*a]),
            Op::AsArray(a) => key(13, 0, &[*a]),
            // Tuples are rare and cheap; placeholders stand for distinct variables; element
            // loops call user code.
            Op::Const(Const::Tuple(_))
            | Op::Math(..)
            | Op::Placeholder(_)
            | Op::ElementCall { .. } => None,
        }
    }
}

/// See [`Op::cse_key`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct OpKey {
    tag: u8,
    sub: u128,
    operands: [u32; 3],
}

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

#[derive(Debug, Clone, PartialEq)]
pub enum Inst {
    Let {
        dst: Value,
        op: Op,
    },
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
    },
    /// A branch on a scalar condition (loop indices and constants only): a Python `if`.
    If {
        cond: Value,
        then: Block,
        other: Block,
        outs: Vec<IfOut>,
    },
}

#[derive(Debug, Clone, Default, PartialEq)]
pub struct Block {
    pub insts: Vec<Inst>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct ValueInfo {
    pub kind: Kind,
    pub shape: Shape,
    /// The source variable this value was assigned to, if any: codegen names it after it.
    pub hint: Option<String>,
    /// Defined by [`Op::Placeholder`]: its kind follows the merge it feeds.
    pub placeholder: bool,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Function {
    pub name: String,
    /// Declared parameters, then hidden array parameters (D8) and callees (fallback).
    pub params: Vec<String>,
    /// How many of `params` the user declared.
    pub declared_params: usize,
    pub values: Vec<ValueInfo>,
    pub body: Block,
    pub ret: Value,
}

impl Function {
    pub fn info(&self, v: Value) -> &ValueInfo {
        &self.values[v.index()]
    }

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

// ---- printer: a stable text form for snapshots and ARRAY_VECTORIZE_DEBUG=ir ----

impl fmt::Display for Function {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "fn {}({}) {{", self.name, self.params.join(", "))?;
        let mut out = String::new();
        print_block(self, &self.body, 1, &mut out);
        f.write_str(&out)?;
        writeln!(f, "  return {}", self.ret)?;
        writeln!(f, "}}")
    }
}

fn ty(func: &Function, v: Value) -> String {
    let info = func.info(v);
    let shape = if info.shape == Shape::Scalar {
        "scalar "
    } else {
        ""
    };
    format!("{shape}{}", info.kind.name())
}

fn print_block(func: &Function, block: &Block, depth: usize, out: &mut String) {
    let pad = "  ".repeat(depth);
    for inst in &block.insts {
        match inst {
            Inst::Let { dst, op } => {
                let _ = writeln!(out, "{pad}{dst}: {} = {}", ty(func, *dst), print_op(op));
            }
            Inst::Loop {
                index,
                start,
                stop,
                step,
                items,
                phis,
                body,
            } => {
                match items {
                    Some(t) => {
                        let _ = writeln!(out, "{pad}for {index} in {} {{", t.python_repr());
                    }
                    None => {
                        let _ =
                            writeln!(out, "{pad}for {index} in range({start}, {stop}, {step}) {{");
                    }
                }
                for phi in phis {
                    let _ = writeln!(
                        out,
                        "{pad}  {}: {} = phi({}, {})",
                        phi.dst,
                        ty(func, phi.dst),
                        phi.init,
                        phi.next
                    );
                }
                print_block(func, body, depth + 1, out);
                let _ = writeln!(out, "{pad}}}");
            }
            Inst::If {
                cond,
                then,
                other,
                outs,
            } => {
                let _ = writeln!(out, "{pad}if {cond} {{");
                print_block(func, then, depth + 1, out);
                let _ = writeln!(out, "{pad}}} else {{");
                print_block(func, other, depth + 1, out);
                let _ = writeln!(out, "{pad}}}");
                for o in outs {
                    let _ = writeln!(
                        out,
                        "{pad}{}: {} = if_merge({}, {})",
                        o.dst,
                        ty(func, o.dst),
                        o.then,
                        o.other
                    );
                }
            }
        }
    }
}

fn print_op(op: &Op) -> String {
    let list = |vs: &[Value]| {
        vs.iter()
            .map(ToString::to_string)
            .collect::<Vec<_>>()
            .join(", ")
    };
    match op {
        Op::Param(i) => format!("param {i}"),
        Op::Const(c) => format!("const {}", c.python_repr()),
        Op::Unary(o, a) => format!("{} {a}", format!("{o:?}").to_lowercase()),
        Op::Binary(o, a, b) => format!("{} {a}, {b}", format!("{o:?}").to_lowercase()),
        Op::Compare(o, a, b) => format!("{} {a}, {b}", format!("{o:?}").to_lowercase()),
        Op::Logic(o, a, b) => format!("{} {a}, {b}", format!("{o:?}").to_lowercase()),
        Op::Select(c, a, b) => format!("select {c}, {a}, {b}"),
        Op::Math(m, args) => format!("math.{}({})", m.name, list(args)),
        Op::Cast(o, a) => format!("cast.{} {a}", format!("{o:?}").to_lowercase()),
        Op::Index(a, b) => format!("index {a}[{b}]"),
        Op::ElementCall { callee, args } => format!("element_call #{callee}({})", list(args)),
        Op::Broadcast(a) => format!("broadcast {a}"),
        Op::AsArray(a) => format!("asarray {a}"),
        Op::Placeholder(c) => format!("placeholder {}", c.python_repr()),
    }
}

/// Calls `f` on every instruction, depth first, in program order.
pub fn walk_insts<'a>(block: &'a Block, f: &mut impl FnMut(&'a Inst)) {
    for inst in &block.insts {
        f(inst);
        match inst {
            Inst::Let { .. } => {}
            Inst::Loop { body, .. } => walk_insts(body, f),
            Inst::If { then, other, .. } => {
                walk_insts(then, f);
                walk_insts(other, f);
            }
        }
    }
}

/// How many times each value is read (operands, phi inputs, if-merge inputs, the return).
pub fn use_counts(func: &Function) -> Vec<usize> {
    let mut counts = vec![0usize; func.values.len()];
    walk_insts(&func.body, &mut |inst| match inst {
        Inst::Let { op, .. } => {
            for v in op.operands() {
                counts[v.index()] += 1;
            }
        }
        Inst::Loop { phis, .. } => {
            for phi in phis {
                counts[phi.init.index()] += 1;
                counts[phi.next.index()] += 1;
            }
        }
        Inst::If { cond, outs, .. } => {
            counts[cond.index()] += 1;
            for o in outs {
                counts[o.then.index()] += 1;
                counts[o.other.index()] += 1;
            }
        }
    });
    counts[func.ret.index()] += 1;
    counts
}
