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
    /// `a.method(b, ...)`: a method of a string (`lower`, `strip`, `startswith`, ...).
    StrMethod(String),
    /// `a op b`.
    Compare(ObjCmp),
    /// `isinstance(a, b)`.
    IsInstance,
    /// `type(a)`, of a uniform value (D14: `type(mode) is str`).
    TypeOf,
    /// `bool(a)`: the truth of a uniform value, for an `if`, `not`, `and`, `or`.
    Truth,
    /// `a` used as a number: a Python scalar of unknown kind (CPython semantics).
    Number,
    /// `a` used as a number, `False` when it is None: an item of a tuple given per call that may
    /// be None, read on the paths its `is None` test guards (D14, docs/semantics.md item 31).
    NumberOrFalse,
    /// `len(a)`: a Python int (D14: the length of a sequence given per call).
    Len,
    /// `a` itself when it is a tuple or list, a TypeError otherwise: what a loop over a value
    /// given per call runs over by index (D14).
    Sequence,
    /// `sum(a)`, `min(a)`, `max(a)`, `any(a)` or `all(a)` (the builtin named) of a sequence given
    /// per call: CPython's own reduction, once per call (D14, D15: `max(bands)`), a Python object
    /// read as a number or a truth where it is used.
    Reduce(String),
    /// The `n` items of `a`, unpacked as CPython unpacks them into `n` targets (its TypeError
    /// or ValueError otherwise): a tuple (D14: `lower, upper = limits`).
    Unpack(usize),
    /// D22: whether the Python type of every element of `a` (a per-element parameter, all of
    /// whose elements have the type its dtype gives: bool, int or float) is one of these. What
    /// `isinstance(x, int)` and `type(x) is float` ask of such a parameter, once per call.
    ElementIs(ElementTypes),
}

/// A set of the Python types an element can have (D22): bool, int, float. `isinstance(x, int)`
/// is `{bool, int}` (a bool is an int), `type(x) is int` is `{int}`.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct ElementTypes(u8);

impl ElementTypes {
    pub const BOOL: ElementTypes = ElementTypes(1);
    pub const INT: ElementTypes = ElementTypes(2);
    pub const FLOAT: ElementTypes = ElementTypes(4);
    /// Every type an element can have.
    pub const ALL: ElementTypes = ElementTypes(7);
    /// No type an element can have (`isinstance(x, str)`).
    pub const NONE: ElementTypes = ElementTypes(0);

    /// The types in either set.
    pub fn union(self, other: ElementTypes) -> ElementTypes {
        ElementTypes(self.0 | other.0)
    }

    /// The types not in this set.
    pub fn complement(self) -> ElementTypes {
        ElementTypes(!self.0 & Self::ALL.0)
    }

    /// Whether `t` is in this set.
    pub fn contains(self, t: ElementTypes) -> bool {
        self.0 & t.0 == t.0
    }

    /// The set's types by their Python names, in the order bool, int, float.
    pub fn names(self) -> Vec<&'static str> {
        [
            (Self::BOOL, "bool"),
            (Self::INT, "int"),
            (Self::FLOAT, "float"),
        ]
        .into_iter()
        .filter(|(t, _)| self.contains(*t))
        .map(|(_, n)| n)
        .collect()
    }

    /// The Python type of an element named `name` (`bool`, `int`, `float`).
    pub fn of_name(name: &str) -> Option<ElementTypes> {
        match name {
            "bool" => Some(Self::BOOL),
            "int" => Some(Self::INT),
            "float" => Some(Self::FLOAT),
            _ => None,
        }
    }
}

impl std::fmt::Debug for ElementTypes {
    /// `bool|int`, as the IR prints it (the fuzz model reads it back).
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let names = self.names();
        if names.is_empty() {
            return write!(f, "none");
        }
        write!(f, "{}", names.join("|"))
    }
}

impl UniformOp {
    /// Whether the result is a Python object (else a bool or, for `Number`, a number).
    pub fn gives_object(&self) -> bool {
        !matches!(
            self,
            UniformOp::Compare(_)
                | UniformOp::IsInstance
                | UniformOp::Truth
                | UniformOp::Number
                | UniformOp::NumberOrFalse
                | UniformOp::Len
                | UniformOp::ElementIs(_)
        )
    }
}
