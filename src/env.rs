//! What a free name of the compiled function is bound to (D8: the frozen environment).
//!
//! The decorator fills an [`Env`] from the live function (closure cells, globals, builtins); the
//! static compiler (import hook, build backend) fills it from module text and records every binding it
//! relied on as an [`Assumption`] that the decorator re-checks at run time (DESIGN.md section 4).

use std::collections::BTreeMap;

/// A Python constant that can be frozen into generated code.
#[derive(Debug, Clone, PartialEq)]
pub enum Const {
    Bool(bool),
    /// Python ints are unbounded; we keep what fits in i128 and refuse the rest.
    Int(i128),
    Float(f64),
    Tuple(Vec<Const>),
}

impl Const {
    /// Identity for hashing and CSE: floats by bit pattern, so `0.0` and `-0.0` stay apart.
    pub fn key(&self) -> String {
        match self {
            Const::Bool(b) => format!("b{b}"),
            Const::Int(i) => format!("i{i}"),
            Const::Float(f) => format!("f{:016x}", f.to_bits()),
            Const::Tuple(items) => {
                let inner: Vec<String> = items.iter().map(Const::key).collect();
                format!("t({})", inner.join(","))
            }
        }
    }

    /// Python's `repr` of the value.
    pub fn python_repr(&self) -> String {
        match self {
            Const::Bool(true) => "True".into(),
            Const::Bool(false) => "False".into(),
            Const::Int(i) => i.to_string(),
            Const::Float(f) => float_repr(*f),
            Const::Tuple(items) => {
                let inner: Vec<String> = items.iter().map(Const::python_repr).collect();
                if inner.len() == 1 {
                    format!("({},)", inner[0])
                } else {
                    format!("({})", inner.join(", "))
                }
            }
        }
    }
}

/// Python's `repr(float)`: the shortest digits that round-trip, in fixed notation for exponents
/// in [-4, 16) and scientific (`1e-09`, `1.5e+16`) otherwise.
pub fn float_repr(f: f64) -> String {
    if f.is_nan() {
        return "nan".into();
    }
    if f.is_infinite() {
        return if f > 0.0 { "inf".into() } else { "-inf".into() };
    }
    if f == 0.0 {
        return if f.is_sign_negative() {
            "-0.0".into()
        } else {
            "0.0".into()
        };
    }
    // Rust's `{:e}` gives the shortest round-trip digits: "1.2345e-7".
    let sci = format!("{:e}", f.abs());
    let (mantissa, exp) = sci.split_once('e').unwrap_or((&sci, "0"));
    let exp: i32 = exp.parse().unwrap_or(0);
    let digits: String = mantissa.chars().filter(char::is_ascii_digit).collect();
    let sign = if f < 0.0 { "-" } else { "" };
    let n = digits.len() as i32;
    let body = if (-4..16).contains(&exp) {
        if exp >= 0 {
            let int_len = exp + 1;
            if n <= int_len {
                format!("{}{}.0", digits, "0".repeat((int_len - n) as usize))
            } else {
                format!(
                    "{}.{}",
                    &digits[..int_len as usize],
                    &digits[int_len as usize..]
                )
            }
        } else {
            format!("0.{}{}", "0".repeat((-exp - 1) as usize), digits)
        }
    } else {
        let frac = if n > 1 {
            format!(".{}", &digits[1..])
        } else {
            String::new()
        };
        let esign = if exp < 0 { '-' } else { '+' };
        format!("{}{}e{}{:02}", &digits[..1], frac, esign, exp.abs())
    };
    format!("{sign}{body}")
}

/// The source of a helper function (D7) and the environment its own free names resolve in.
#[derive(Debug, Clone, PartialEq)]
pub struct FunctionSource {
    /// Text that contains the `def` (or the `lambda`) at its first line.
    pub source: String,
    /// File it came from, for diagnostics.
    pub path: String,
    /// 1-based line of `source`'s first line in `path`.
    pub first_line: usize,
    /// Name the helper is defined under (`<lambda>` for lambdas).
    pub name: String,
    /// Where its free names resolve; `None` when that is the caller's environment (a helper of
    /// the same module, and the way the decorator breaks cycles between helpers).
    pub env: Option<Env>,
}

/// What one free name is bound to.
#[derive(Debug, Clone, PartialEq)]
pub enum Binding {
    /// A frozen scalar or tuple of scalars.
    Const(Const),
    /// The stdlib `math` module.
    MathModule,
    /// A member of `math` bound directly (`from math import sqrt as s` binds `s` to `sqrt`).
    MathMember(String),
    /// A builtin (`abs`, `min`, `range`, ...), not shadowed.
    Builtin(String),
    /// A pure Python function to vectorize with the caller (D7).
    Function(Box<FunctionSource>),
    /// An array: passed as a hidden keyword parameter (D8).
    Array,
    /// Another callable: only usable through an element loop with `fallback=True`.
    OpaqueCallable(String),
    /// Bound to something the compiler cannot use; the text says what.
    Unsupported(String),
    /// Static compilation only: the name could not be resolved from module text.
    Unresolved(String),
}

pub type Env = BTreeMap<String, Binding>;

/// One binding the static compiler relied on; the decorator checks it against the live function.
#[derive(Debug, Clone, PartialEq)]
pub struct Assumption {
    pub name: String,
    pub binding: AssumedBinding,
}

/// The checkable part of a [`Binding`].
#[derive(Debug, Clone, PartialEq)]
pub enum AssumedBinding {
    Const(Const),
    MathModule,
    MathMember(String),
    Builtin(String),
    /// A function defined in the same module, named `name`, whose `def` is at `line`.
    Function {
        name: String,
        line: usize,
    },
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn float_repr_matches_python() {
        let cases = [
            (1e-9, "1e-09"),
            (0.1, "0.1"),
            (1.0, "1.0"),
            (100.0, "100.0"),
            (1e16, "1e+16"),
            (1.5e16, "1.5e+16"),
            (123456789012345.6, "123456789012345.6"),
            (0.0001, "0.0001"),
            (0.00001, "1e-05"),
            (-2.5, "-2.5"),
            (-0.0, "-0.0"),
            (5e-324, "5e-324"),
            (1.7976931348623157e308, "1.7976931348623157e+308"),
            (9999999999999998.0, "9999999999999998.0"),
            (3.141592653589793, "3.141592653589793"),
        ];
        for (value, expected) in cases {
            assert_eq!(float_repr(value), expected, "{value:e}");
        }
    }

    #[test]
    fn const_key_separates_signed_zero() {
        assert_ne!(Const::Float(0.0).key(), Const::Float(-0.0).key());
    }
}
