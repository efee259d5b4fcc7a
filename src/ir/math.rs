//! The `math` functions and constants the IR knows, with the domain facts lowering needs.

use super::types::Kind;

/// A value inside a partial function's domain, given on lanes whose result is discarded so that
/// no floating-point error is raised for them (protect_domains, D1).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum SafeValue {
    One,
    Zero,
}

/// A `math` function with an Array API counterpart.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct MathFn {
    /// Name in `math`.
    pub name: &'static str,
    /// Name in the Array API namespace.
    pub xp_name: &'static str,
    /// Number of arguments.
    pub arity: usize,
    /// Kind of the result.
    pub result: Kind,
    /// For a function partial on floats (or one that overflows): an argument value in its
    /// domain, for lanes the code does not run for.
    pub safe: Option<SafeValue>,
    /// For a function the Array API lacks (D17): the key of the runtime helper computing it
    /// (src/codegen/runtime.rs), which gives the IEEE value where CPython raises (D3).
    pub runtime: Option<&'static str>,
    /// How many leading arguments are float arrays; the others (`isclose`'s tolerances,
    /// `round`'s digits) are passed as they are.
    pub floats: usize,
    /// NumPy's rounding (D16): a float is rounded to a float, an int or bool comes back with its
    /// value (as an int); this is the `_vec_unary` op doing so for an argument of unknown kind.
    pub keeps_ints: Option<&'static str>,
}

const fn f(name: &'static str, safe: Option<SafeValue>) -> MathFn {
    MathFn {
        name,
        xp_name: name,
        arity: 1,
        result: Kind::Float,
        safe,
        runtime: None,
        floats: 1,
        keeps_ints: None,
    }
}

const fn f2(name: &'static str) -> MathFn {
    MathFn {
        name,
        xp_name: name,
        arity: 2,
        result: Kind::Float,
        safe: None,
        runtime: None,
        floats: 2,
        keeps_ints: None,
    }
}

const fn test(name: &'static str) -> MathFn {
    MathFn {
        name,
        xp_name: name,
        arity: 1,
        result: Kind::Bool,
        safe: None,
        runtime: None,
        floats: 1,
        keeps_ints: None,
    }
}

/// A function of `arity` float arguments computed by the runtime helper `key` (D17).
const fn special(name: &'static str, key: &'static str, arity: usize, result: Kind) -> MathFn {
    MathFn {
        name,
        xp_name: name,
        arity,
        result,
        safe: None,
        runtime: Some(key),
        floats: arity,
        keeps_ints: None,
    }
}

const ONE: Option<SafeValue> = Some(SafeValue::One);
const ZERO: Option<SafeValue> = Some(SafeValue::Zero);

/// Every supported `math` function, by its name in `math`.
pub const MATH_FUNCTIONS: &[MathFn] = &[
    f("sqrt", ONE),
    f("exp", ZERO),
    f("expm1", ZERO),
    f("log", ONE),
    f("log1p", ZERO),
    f("log2", ONE),
    f("log10", ONE),
    f("sin", None),
    f("cos", None),
    f("tan", None),
    f("asin", ZERO),
    f("acos", ZERO),
    f("atan", None),
    f("sinh", ZERO),
    f("cosh", ZERO),
    f("tanh", None),
    f("asinh", None),
    f("acosh", ONE),
    f("atanh", ZERO),
    f2("atan2"),
    f2("hypot"),
    f2("copysign"),
    // The base of `pow` is protected by lowering as a power's is.
    f2("pow"),
    MathFn {
        name: "fabs",
        xp_name: "abs",
        ..f("fabs", None)
    },
    // floor/ceil/trunc return ints in Python; lowering adds the int conversion.
    f("floor", None),
    f("ceil", None),
    f("trunc", None),
    test("isnan"),
    test("isinf"),
    test("isfinite"),
    // D17: computed by runtime helpers (runtime/special.py), quiet on every lane.
    special("erf", "erf", 1, Kind::Float),
    special("erfc", "erfc", 1, Kind::Float),
    special("gamma", "gamma", 1, Kind::Float),
    special("lgamma", "lgamma", 1, Kind::Float),
    special("fmod", "fmod", 2, Kind::Float),
    special("remainder", "remainder", 2, Kind::Float),
    // `a, b, rel_tol, abs_tol`: lowering fills in the defaults; the tolerances are passed as
    // they are, so a negative constant raises as in CPython.
    MathFn {
        floats: 2,
        ..special("isclose", "isclose", 4, Kind::Bool)
    },
    // Any number of values (lowering checks the fixed sequence).
    special("fsum", "fsum", usize::MAX, Kind::Float),
];

/// `round(x, ndigits)` for float `x` and a constant int `ndigits` (a builtin, not in `math`).
pub const ROUND_DIGITS: MathFn = MathFn {
    floats: 1,
    ..special("round", "round_digits", 2, Kind::Float)
};

/// NumPy's `floor`, `ceil`, `trunc` and `round` (D16): unlike `math`'s they return a float for a
/// float and leave an int as it is (`round` halves to even).
pub const NUMPY_ROUNDING: &[MathFn] = &[
    rounding("floor", "floor", "np_floor"),
    rounding("ceil", "ceil", "np_ceil"),
    rounding("trunc", "trunc", "np_trunc"),
    rounding("round", "round", "np_round"),
];

const fn rounding(name: &'static str, xp_name: &'static str, op: &'static str) -> MathFn {
    MathFn {
        name,
        xp_name,
        arity: 1,
        result: Kind::Float,
        safe: None,
        runtime: None,
        floats: 0,
        keeps_ints: Some(op),
    }
}

/// NumPy's `power` of an exponent that may be 0.5 at run time (D16): `_vec_binary`'s `np_pow`,
/// C's `pow` but `sqrt` for an exponent of 0.5 (lower/calls/numpy.rs `numpy_power`). Two ints are
/// `**`; the result kind is `**`'s.
pub const NUMPY_POWER: MathFn = MathFn {
    name: "numpy.power",
    xp_name: "pow",
    arity: 2,
    result: Kind::Float,
    safe: None,
    runtime: None,
    floats: 0,
    keeps_ints: None,
};

/// `math` constants.
pub const MATH_CONSTANTS: &[(&str, f64)] = &[
    ("pi", std::f64::consts::PI),
    ("e", std::f64::consts::E),
    ("tau", std::f64::consts::TAU),
    ("inf", f64::INFINITY),
    ("nan", f64::NAN),
];

impl MathFn {
    /// The name the IR text gives it: its name in `math`, and NumPy's rounding (D16) as
    /// `numpy.floor` (`math.floor` is another function: Python's, on a float).
    pub fn ir_name(&self) -> String {
        match self.keeps_ints {
            Some(_) => format!("numpy.{}", self.name),
            None => self.name.to_string(),
        }
    }
}

/// The function the IR text names `name` ([`MathFn::ir_name`]).
pub fn math_fn_by_ir_name(name: &str) -> Option<&'static MathFn> {
    if let Some(rounding) = name.strip_prefix("numpy.") {
        if let Some(f) = NUMPY_ROUNDING.iter().find(|f| f.name == rounding) {
            return Some(f);
        }
    }
    [&NUMPY_POWER, &ROUND_DIGITS]
        .into_iter()
        .chain(MATH_FUNCTIONS)
        .find(|f| f.ir_name() == name)
}

/// The `math` function called `name`, if it has an Array API counterpart.
pub fn math_fn(name: &str) -> Option<&'static MathFn> {
    MATH_FUNCTIONS.iter().find(|f| f.name == name)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_unique_and_arity_matches_kind_of_function() {
        for (i, a) in MATH_FUNCTIONS.iter().enumerate() {
            assert!(
                MATH_FUNCTIONS[i + 1..].iter().all(|b| b.name != a.name),
                "{}",
                a.name
            );
            assert!(a.arity == 1 || a.safe.is_none(), "{}", a.name);
            assert!(a.floats <= a.arity, "{}", a.name);
        }
        assert_eq!(math_fn("fabs").map(|m| m.xp_name), Some("abs"));
        assert_eq!(math_fn("log").and_then(|m| m.safe), Some(SafeValue::One));
        assert!(math_fn("lgamma").is_some_and(|m| m.runtime == Some("lgamma")));
        assert!(math_fn("factorial").is_none());
    }

    #[test]
    fn every_function_has_its_own_ir_name() {
        let all: Vec<&MathFn> = [&NUMPY_POWER, &ROUND_DIGITS]
            .into_iter()
            .chain(MATH_FUNCTIONS)
            .chain(NUMPY_ROUNDING)
            .collect();
        for f in all {
            assert_eq!(math_fn_by_ir_name(&f.ir_name()), Some(f), "{}", f.ir_name());
        }
        assert_eq!(math_fn_by_ir_name("floor"), math_fn("floor"));
        assert_eq!(math_fn_by_ir_name("round"), Some(&ROUND_DIGITS));
    }
}
