//! Operations: what one `Let` computes, with the rules for the kind and shape of its result.

use super::constant::{const_kind, Const};
use super::math::{MathFn, NUMPY_POWER};
use super::types::{Kind, Shape, Value};
use super::uniform::UniformOp;

/// A unary operation.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum UnOp {
    Neg,
    Pos,
    /// Logical not of a boolean (numeric `not` is lowered to `== 0`, D2).
    Not,
    Abs,
    /// `~x` on an int or bool (an int: `~True == -2`).
    Invert,
}

/// An arithmetic operation with Python's meaning.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum BinOp {
    Add,
    Sub,
    Mul,
    Div,
    FloorDiv,
    Mod,
    Pow,
    /// `&`, `|`, `^` on ints and bools (a bool when both are bools).
    BitAnd,
    BitOr,
    BitXor,
    /// `<<`, `>>` on ints and bools (an int).
    LShift,
    RShift,
}

impl BinOp {
    /// `&`, `|` or `^`.
    pub fn is_bitwise(self) -> bool {
        matches!(self, BinOp::BitAnd | BinOp::BitOr | BinOp::BitXor)
    }

    /// `<<` or `>>`.
    pub fn is_shift(self) -> bool {
        matches!(self, BinOp::LShift | BinOp::RShift)
    }

    /// The Python operator.
    pub fn symbol(self) -> &'static str {
        match self {
            BinOp::Add => "+",
            BinOp::Sub => "-",
            BinOp::Mul => "*",
            BinOp::Div => "/",
            BinOp::FloorDiv => "//",
            BinOp::Mod => "%",
            BinOp::Pow => "**",
            BinOp::BitAnd => "&",
            BinOp::BitOr => "|",
            BinOp::BitXor => "^",
            BinOp::LShift => "<<",
            BinOp::RShift => ">>",
        }
    }
}

/// A comparison.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum CmpOp {
    Lt,
    Le,
    Gt,
    Ge,
    Eq,
    Ne,
}

impl CmpOp {
    /// The Python operator.
    pub fn symbol(self) -> &'static str {
        match self {
            CmpOp::Lt => "<",
            CmpOp::Le => "<=",
            CmpOp::Gt => ">",
            CmpOp::Ge => ">=",
            CmpOp::Eq => "==",
            CmpOp::Ne => "!=",
        }
    }

    /// The comparison with its operands swapped: `a < b` is `b > a`.
    pub fn swapped(self) -> CmpOp {
        match self {
            CmpOp::Lt => CmpOp::Gt,
            CmpOp::Le => CmpOp::Ge,
            CmpOp::Gt => CmpOp::Lt,
            CmpOp::Ge => CmpOp::Le,
            CmpOp::Eq => CmpOp::Eq,
            CmpOp::Ne => CmpOp::Ne,
        }
    }
}

/// Elementwise logic on booleans (D2).
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
    /// `operator.index(x)`, as `range()` takes its bounds: an int as itself (a bool as 0 or 1),
    /// `TypeError` for a float (D12).
    Index,
}

/// What an [`Op::ScalarCall`] calls per element.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum ScalarFn {
    /// The scalar original of a recursive function, for the lanes that recurse deeper than the
    /// compiler inlined it (D19, the residue): the callable of hidden parameter `0`.
    Residue(usize),
    /// A callable the compiler cannot vectorize, called as written with positional arguments
    /// (D23, `fallback="calls"`): hidden parameter `0`.
    Callable(usize),
    /// A call the compiler cannot vectorize, as written: `lambda params: body`, reading the
    /// generated module's globals (D23).
    Lambda(Vec<String>, String),
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
    /// A constant table (tuple, list, dict) indexed by an int or key, scalar or per lane (D15).
    Index(Value, Value),
    /// A call run in Python element by element (D19, D23): `callee` on the lanes of `args[0]`
    /// (those that reach the call: a bool) only, with the other arguments' values of the lane;
    /// an array of the results, `False` on the other lanes. Which lanes raised is
    /// [`Op::ScalarRaised`] of it.
    ScalarCall {
        callee: ScalarFn,
        args: Vec<Value>,
    },
    /// The lanes on which the [`Op::ScalarCall`] `v` raised (D11): a bool array, computed by the
    /// same call (codegen assigns both from it).
    ScalarRaised(Value),
    /// A call of out-of-line helper `callee`, compiled as its own generated function (D7); its
    /// result is an array whose kind the callee's instance for the arguments' kinds gives.
    Call {
        callee: usize,
        args: Vec<Value>,
    },
    /// The value spread to the broadcast shape of all parameters, as an array.
    Broadcast(Value),
    /// A scalar as a 0-d array (where a merge needs an array on both sides).
    AsArray(Value),
    /// An operation on uniform values, run once per call in Python (D14).
    Uniform(UniformOp, Vec<Value>),
    /// A value never observed on a live lane (the initial value of a variable first assigned
    /// inside a loop, or of the return value): a 0-d array of the merge's kind.
    Placeholder(Const),
}

/// The values an operation or an instruction reads ([`Op::operands`], `Inst::reads`), as a
/// slice (`Deref`) or, by value, an iterator of values; an operation's without allocating.
#[derive(Debug, Clone)]
pub enum Operands<'a> {
    /// Up to three values, the first `.1` of them.
    Inline([Value; 3], u8),
    /// An operation's argument list.
    Borrowed(&'a [Value]),
    /// Collected (a loop's or a branch's reads).
    Owned(Vec<Value>),
}

impl std::ops::Deref for Operands<'_> {
    type Target = [Value];

    #[inline]
    fn deref(&self) -> &[Value] {
        match self {
            Operands::Inline(held, n) => &held[..usize::from(*n)],
            Operands::Borrowed(vs) => vs,
            Operands::Owned(vs) => vs,
        }
    }
}

impl<'a> IntoIterator for Operands<'a> {
    type Item = Value;
    type IntoIter = OperandsIter<'a>;

    #[inline]
    fn into_iter(self) -> OperandsIter<'a> {
        OperandsIter { of: self, at: 0 }
    }
}

/// [`Operands`] by value, in order.
pub struct OperandsIter<'a> {
    of: Operands<'a>,
    at: usize,
}

impl Iterator for OperandsIter<'_> {
    type Item = Value;

    #[inline]
    fn next(&mut self) -> Option<Value> {
        let v = self.of.get(self.at).copied();
        self.at += 1;
        v
    }
}

impl Op {
    /// Operand values, in order: held inline up to three, else borrowed (every pass asks
    /// for them, per operation and per walk: no allocation).
    #[inline]
    pub fn operands(&self) -> Operands<'_> {
        let inline = |vs: &[Value]| {
            let mut held = [Value(0); 3];
            held[..vs.len()].copy_from_slice(vs);
            Operands::Inline(held, vs.len() as u8)
        };
        match self {
            Op::Param(_) | Op::Const(_) | Op::Placeholder(_) => inline(&[]),
            Op::Unary(_, a)
            | Op::Cast(_, a)
            | Op::Broadcast(a)
            | Op::AsArray(a)
            | Op::ScalarRaised(a) => inline(&[*a]),
            Op::Binary(_, a, b) | Op::Compare(_, a, b) | Op::Logic(_, a, b) | Op::Index(a, b) => {
                inline(&[*a, *b])
            }
            Op::Select(c, a, b) => inline(&[*c, *a, *b]),
            Op::Math(_, args)
            | Op::ScalarCall { args, .. }
            | Op::Call { args, .. }
            | Op::Uniform(_, args) => Operands::Borrowed(args),
        }
    }

    /// Renames the operands in place, in order ([`Self::map_operands`] without building a new
    /// operation: the renaming passes rename every operation of the body).
    pub fn rename_operands(&mut self, mut f: impl FnMut(Value) -> Value) {
        let mut each = |v: &mut Value| *v = f(*v);
        match self {
            Op::Param(_) | Op::Const(_) | Op::Placeholder(_) => {}
            Op::Unary(_, a)
            | Op::Cast(_, a)
            | Op::Broadcast(a)
            | Op::AsArray(a)
            | Op::ScalarRaised(a) => each(a),
            Op::Binary(_, a, b) | Op::Compare(_, a, b) | Op::Logic(_, a, b) | Op::Index(a, b) => {
                each(a);
                each(b);
            }
            Op::Select(c, a, b) => {
                each(c);
                each(a);
                each(b);
            }
            Op::Math(_, args)
            | Op::ScalarCall { args, .. }
            | Op::Call { args, .. }
            | Op::Uniform(_, args) => args.iter_mut().for_each(each),
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
            Op::ScalarCall { callee, args } => Op::ScalarCall {
                callee: callee.clone(),
                args: args.iter().map(|v| f(*v)).collect(),
            },
            Op::ScalarRaised(a) => Op::ScalarRaised(f(*a)),
            Op::Uniform(u, args) => Op::Uniform(u.clone(), args.iter().map(|v| f(*v)).collect()),
            Op::Call { callee, args } => Op::Call {
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
            // Helpers are pure (D7): a second call with the same arguments is the first's value.
            Op::Call { callee, args } if args.len() <= 3 => key(14, *callee as u128, args),
            // Tuples are rare and cheap; placeholders stand for distinct variables; element
            // loops call user code; reads of uniform values stay where the source has them (a
            // key missing from a dict raises only on the path that reads it).
            Op::Const(Const::Tuple(_) | Const::List(_) | Const::Dict(_))
            | Op::Uniform(..)
            | Op::Math(..)
            | Op::Placeholder(_)
            | Op::Call { .. }
            | Op::ScalarCall { .. }
            | Op::ScalarRaised(_) => None,
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

/// The kind of `op`'s result given its operands' kinds.
pub fn result_kind(op: &Op, kind: &impl Fn(Value) -> Kind, param_kinds: &[Kind]) -> Kind {
    match op {
        Op::Param(i) => param_kinds.get(*i).copied().unwrap_or(Kind::Unknown),
        Op::Const(c) | Op::Placeholder(c) => const_kind(c),
        Op::Unary(UnOp::Not, _) | Op::Compare(..) | Op::Logic(..) => Kind::Bool,
        Op::Unary(UnOp::Invert, a) => match kind(*a) {
            Kind::Bool | Kind::Int => Kind::Int,
            _ => Kind::Unknown,
        },
        Op::Unary(_, a) => match kind(*a) {
            Kind::Bool => Kind::Int,
            k => k,
        },
        Op::Binary(BinOp::Div, ..) => Kind::Float,
        Op::Binary(BinOp::Pow, a, b) => match (kind(*a), kind(*b)) {
            (Kind::Float, _) | (_, Kind::Float) => Kind::Float,
            // int ** int is an int only for non-negative exponents; resolved at run time.
            _ => Kind::Unknown,
        },
        Op::Binary(op, a, b) if op.is_bitwise() => match (kind(*a), kind(*b)) {
            (Kind::Bool, Kind::Bool) => Kind::Bool,
            (Kind::Bool | Kind::Int, Kind::Bool | Kind::Int) => Kind::Int,
            // A float operand is CPython's TypeError: raised at run time (the exact body).
            _ => Kind::Unknown,
        },
        Op::Binary(op, a, b) if op.is_shift() => match (kind(*a), kind(*b)) {
            (Kind::Bool | Kind::Int, Kind::Bool | Kind::Int) => Kind::Int,
            _ => Kind::Unknown,
        },
        Op::Binary(_, a, b) => Kind::arith(kind(*a), kind(*b)),
        Op::Select(_, a, b) => Kind::join(kind(*a), kind(*b)),
        Op::Math(m, args) if m.name == NUMPY_POWER.name => match (kind(args[0]), kind(args[1])) {
            (Kind::Float, _) | (_, Kind::Float) => Kind::Float,
            _ => Kind::Unknown,
        },
        Op::Math(m, args) => match (m.keeps_ints, args.first()) {
            (Some(_), Some(a)) => match kind(*a) {
                Kind::Bool => Kind::Int,
                k => k,
            },
            _ => m.result,
        },
        Op::Cast(CastOp::Float, _) => Kind::Float,
        Op::Cast(CastOp::Int | CastOp::Round | CastOp::Index, _) => Kind::Int,
        Op::Cast(CastOp::Bool, _) => Kind::Bool,
        // D14, D15: a sequence given per call, gathered per lane: its items' kind is the call's.
        Op::Index(t, _) if kind(*t) == Kind::Object => Kind::Unknown,
        Op::Index(t, _) => kind(*t),
        // The callee's instance decides (kinds::infer_kinds_with).
        Op::Call { .. } => Kind::Unknown,
        // D19, D23: the callee's results decide, per call (`_vec_residue`).
        Op::ScalarCall { .. } => Kind::Unknown,
        Op::ScalarRaised(_) => Kind::Bool,
        Op::Uniform(UniformOp::Number | UniformOp::NumberOrFalse, _) => Kind::Unknown,
        Op::Uniform(UniformOp::Len, _) => Kind::Int,
        Op::Uniform(u, _) if u.gives_object() => Kind::Object,
        Op::Uniform(..) => Kind::Bool,
        Op::Broadcast(a) | Op::AsArray(a) => kind(*a),
    }
}

/// Whether `op` gives a Python scalar (all operands scalar, computed by plain Python) or an array.
pub fn result_shape(op: &Op, shape: &impl Fn(Value) -> Shape) -> Shape {
    match op {
        Op::Const(_) | Op::Uniform(..) => Shape::Scalar,
        Op::Param(_)
        | Op::Math(..)
        | Op::ScalarCall { .. }
        | Op::ScalarRaised(_)
        | Op::Call { .. }
        | Op::Broadcast(_)
        | Op::AsArray(_)
        | Op::Placeholder(_) => Shape::Array,
        _ => {
            if op.operands().into_iter().all(|v| shape(v) == Shape::Scalar) {
                Shape::Scalar
            } else {
                Shape::Array
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn result_kinds_follow_python() {
        let kinds = [Kind::Int, Kind::Bool, Kind::Float];
        let kind = |v: Value| kinds[v.index()];
        let (i, b, f) = (Value(0), Value(1), Value(2));
        assert_eq!(
            result_kind(&Op::Binary(BinOp::Add, i, b), &kind, &[]),
            Kind::Int
        );
        assert_eq!(
            result_kind(&Op::Binary(BinOp::Div, i, i), &kind, &[]),
            Kind::Float
        );
        assert_eq!(
            result_kind(&Op::Binary(BinOp::Pow, i, i), &kind, &[]),
            Kind::Unknown
        );
        assert_eq!(result_kind(&Op::Unary(UnOp::Neg, b), &kind, &[]), Kind::Int);
        assert_eq!(result_kind(&Op::Select(b, i, f), &kind, &[]), Kind::Float);
        assert_eq!(
            result_shape(&Op::Const(Const::Int(1)), &|_| Shape::Array),
            Shape::Scalar
        );
        assert_eq!(
            result_shape(&Op::Binary(BinOp::Add, i, b), &|_| Shape::Scalar),
            Shape::Scalar
        );
        assert_eq!(
            result_shape(&Op::AsArray(i), &|_| Shape::Scalar),
            Shape::Array
        );
    }
}
