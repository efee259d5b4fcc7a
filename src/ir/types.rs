//! The scalar vocabulary of the IR: value names, the Python kind of a value, its shape.

use std::fmt;

/// An SSA value, printed `%n`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Value(pub u32);

impl Value {
    /// Position in [`super::Function::values`].
    // The accessors every pass calls per operand are `#[inline]`: without LTO (the dev and
    // test builds) they are otherwise calls wherever codegen units split them from their users.
    #[inline]
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
    /// A uniform value (D14): a Python object, the same on every lane (always a scalar).
    Object,
}

impl Kind {
    /// Kind of a value that is `a` on some lanes and `b` on others (one array holds both, so the
    /// narrower kind is promoted: the documented divergence for mixed-kind results).
    pub fn join(a: Kind, b: Kind) -> Kind {
        use Kind::{Bool, Float, Int, Unknown};
        match (a, b) {
            (x, y) if x == y => x,
            (Unknown | Kind::Object, _) | (_, Unknown | Kind::Object) => Unknown,
            (Float, _) | (_, Float) => Float,
            (Int, Bool) | (Bool, Int) => Int,
            _ => Unknown,
        }
    }

    /// Whether every value of kind `self` is also one of kind `wider` (`join` gives `wider`).
    pub fn within(self, wider: Kind) -> bool {
        Kind::join(self, wider) == wider
    }

    /// Kind of `a op b` for `+ - * // %` in Python: bools act as ints.
    pub fn arith(a: Kind, b: Kind) -> Kind {
        use Kind::{Bool, Float, Int, Unknown};
        match (a, b) {
            (Float, _) | (_, Float) => Float,
            (Int | Bool, Int | Bool) => Int,
            _ => Unknown,
        }
    }

    /// The name the IR printer shows.
    pub fn name(self) -> &'static str {
        match self {
            Kind::Bool => "bool",
            Kind::Int => "int",
            Kind::Float => "float",
            Kind::Unknown => "num",
            Kind::Object => "obj",
        }
    }
}

/// Whether a value is a Python scalar or an array in the generated code.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Shape {
    /// A Python scalar, the same on every lane.
    Scalar,
    /// An array of the namespace.
    Array,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kinds_form_a_chain_under_unknown() {
        assert_eq!(Kind::join(Kind::Bool, Kind::Int), Kind::Int);
        assert_eq!(Kind::join(Kind::Int, Kind::Float), Kind::Float);
        assert_eq!(Kind::join(Kind::Float, Kind::Unknown), Kind::Unknown);
        assert!(Kind::Bool.within(Kind::Float) && !Kind::Float.within(Kind::Int));
        assert_eq!(Kind::arith(Kind::Bool, Kind::Bool), Kind::Int);
    }
}
