//! Uniform values (D14): per-call Python objects (dicts, Enum members, strings, `None`,
//! namespaces, any object whose attributes are read) that are the same on every lane. They are
//! Python scalars of kind [`Kind::Object`](super::Kind::Object); every operation on them runs
//! once per call in Python, exactly as CPython runs it.

/// A literal that is not a number.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum ObjLit {
    None,
    Str(String),
}

/// A comparison Python evaluates on uniform values.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ObjCmp {
    Eq,
    Ne,
    Is,
    IsNot,
    /// `a in b`, `b` a uniform container (`"bonus" in params`).
    In,
}

impl ObjCmp {
    /// The Python operator.
    pub fn symbol(self) -> &'static str {
        match self {
            ObjCmp::Eq => "==",
            ObjCmp::Ne => "!=",
            ObjCmp::Is => "is",
            ObjCmp::IsNot => "is not",
            ObjCmp::In => "in",
        }
    }
}

/// An operation on uniform values, run once per call in Python.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum UniformOp {
    /// Declared parameter `i` as the caller passed it (no operands).
    Arg(usize),
    /// Hidden parameter `i`: a module-level object (an Enum class, D8) that the generated module
    /// reads as a global of that name (no operands).
    Global(usize),
    /// A builtin type (`int`, `float`, `bool`, `str`, `dict`, `tuple`, `list`) for `isinstance`.
    Builtin(String),
    /// A literal `None` or string.
    Lit(ObjLit),
    /// A tuple of its operands (the classes of `isinstance(v, (A, B))`).
    Tuple,
    /// `a.name`.
    Attr(String),
    /// `a[b]`.
    Item,
    /// `a.get(b)` or `a.get(b, c)`.
    Get,
    /// `a op b`.
    Compare(ObjCmp),
    /// `isinstance(a, b)`.
    IsInstance,
    /// `bool(a)`: the truth of a uniform value, for an `if`, `not`, `and`, `or`.
    Truth,
    /// `a` used as a number: a Python scalar of unknown kind (CPython semantics).
    Number,
}

impl UniformOp {
    /// Whether the result is a Python object (else a bool or, for `Number`, a number).
    pub fn gives_object(&self) -> bool {
        !matches!(
            self,
            UniformOp::Compare(_) | UniformOp::IsInstance | UniformOp::Truth | UniformOp::Number
        )
    }
}
