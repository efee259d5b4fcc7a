//! The one table of NumPy inside scalar code (D16): every NumPy name the compiler accepts, through
//! the module (`np.exp(x)`, `xnp.exp(x)`) or imported by name (`from numpy import exp`, `exp as
//! e`), with what it lowers to and its semantics. The semantics are NumPy's on float64 scalars,
//! the oracle of the tests (`tests/behavior/calls/test_numpy_names.py`), not `math`'s: `np.log(-1.0)`
//! is nan where `math.log` raises, `np.round` rounds half to even to a float.
//!
//! `lower/calls/numpy/mod.rs` dispatches on [`NumpyName::lowering`]; the static compile binds
//! `from numpy import <name>` only for names of this table (the others wait for the decorator);
//! the decorator describes a live NumPy function by the same names (`_core.NUMPY_NAMES`); and the
//! table of docs/numpy.md is generated from [`numpy_names_markdown`] (`tools/numpy_table.py`,
//! checked by `tests/unit/test_numpy_table.py`).

use crate::ir::{math_fn, CastOp};

/// What a NumPy name lowers to.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Lowering {
    /// The `math` function of that name (its IR op), with NumPy's IEEE value where `math`
    /// raises (D3); int and bool arguments are converted to float first.
    Math(&'static str),
    /// `floor`, `ceil`, `trunc` or `round` with NumPy's kinds: a float for a float, an int or
    /// bool left as its int value (`ir::NUMPY_ROUNDING`); `round` also takes constant decimals.
    Rounding(&'static str),
    /// `rint`: `round` of the value converted to float.
    Rint,
    /// `abs`: the IR's `abs`.
    Abs,
    /// `x * x`.
    Square,
    /// NumPy's `power` (`numpy_power`: `sqrt` for an exponent of 0.5).
    Power,
    /// `**` of the operands converted to float.
    FloatPower,
    /// The operand converted to float, times a constant (degrees, radians).
    Scale(f64),
    /// `maximum` (true) or `minimum`: NaN on either side wins.
    Extremum(bool),
    /// `clip(x, lo, hi)`: `minimum(maximum(x, lo), hi)`.
    Clip,
    /// `where(c, a, b)`: a select in NumPy's promoted kind.
    Where,
    /// `sign`.
    Sign,
    /// The builtin conversion: `float(x)`, `int(x)` (raising as it does) or `bool(x)`.
    Cast(CastOp),
    /// A float constant.
    Constant(f64),
    /// The value itself: a 0-d array of a number computes as the number (item 19).
    AsArray,
    /// A constant (0 or 1) in the kind of the argument: `where(True, k, x)`.
    Like(bool),
    /// The fill value in the kind of the argument.
    FullLike,
    /// A conversion by dtype: `astype(x, float)` and `x.astype(float)`.
    AsType,
    /// Horner's rule over a constant coefficient table, from `zeros_like(x)` as NumPy does.
    Polyval,
    /// The arguments unchanged, as a tuple (D13).
    BroadcastArrays,
}

/// One accepted NumPy name.
#[derive(Debug, Clone, Copy)]
pub struct NumpyName {
    /// Its name in `numpy`.
    pub name: &'static str,
    /// What it lowers to.
    pub lowering: Lowering,
    /// NumPy's semantics on scalars, where they differ from `math` or the builtins.
    pub semantics: &'static str,
}

const IEEE: &str =
    "NumPy's IEEE value where `math` raises (D3: nan, ±inf); ints and bools as float64 (item 19)";
const ARC: &str = "nan outside [-1, 1] (`math` raises ValueError)";
const LOGS: &str = "-inf at 0 and nan below it (`math` raises ValueError)";
const TESTS: &str = "a bool per element, as `math`'s";
const CAST_INT: &str = "NumPy's cast, not `int()`: truncation toward zero, never raising; a float outside the int64 range (nan, ±inf, |x| ≥ 2**63) casts to an undefined value in NumPy (INT64_MIN on x86, with a RuntimeWarning), vectorized code gives the values item 7 gives with `protect_domains=True` (docs/semantics.md item 40); ints at 64 bits (item 19)";
const ROUNDING: &str =
    "a float for a float (`math`'s gives an int), an int or bool left as its int value (item 19)";

const fn n(name: &'static str, lowering: Lowering, semantics: &'static str) -> NumpyName {
    NumpyName {
        name,
        lowering,
        semantics,
    }
}

/// Every NumPy name accepted inside scalar code (D16), in the order the docs list them.
pub const NUMPY_NAMES: &[NumpyName] = &[
    n("sqrt", Lowering::Math("sqrt"), "nan below 0 (`math` raises ValueError); `sqrt(-0.0)` is -0.0"),
    n("exp", Lowering::Math("exp"), "inf on overflow (`math` raises OverflowError)"),
    n("expm1", Lowering::Math("expm1"), "inf on overflow (`math` raises OverflowError)"),
    n("log", Lowering::Math("log"), LOGS),
    n("log1p", Lowering::Math("log1p"), "-inf at -1 and nan below it (`math` raises ValueError)"),
    n("log2", Lowering::Math("log2"), LOGS),
    n("log10", Lowering::Math("log10"), LOGS),
    n("sin", Lowering::Math("sin"), "nan at ±inf (`math` raises ValueError)"),
    n("cos", Lowering::Math("cos"), "nan at ±inf (`math` raises ValueError)"),
    n("tan", Lowering::Math("tan"), "nan at ±inf (`math` raises ValueError)"),
    n("arcsin", Lowering::Math("asin"), ARC),
    n("asin", Lowering::Math("asin"), ARC),
    n("arccos", Lowering::Math("acos"), ARC),
    n("acos", Lowering::Math("acos"), ARC),
    n("arctan", Lowering::Math("atan"), IEEE),
    n("atan", Lowering::Math("atan"), IEEE),
    n("sinh", Lowering::Math("sinh"), "±inf on overflow (`math` raises OverflowError)"),
    n("cosh", Lowering::Math("cosh"), "inf on overflow (`math` raises OverflowError)"),
    n("tanh", Lowering::Math("tanh"), IEEE),
    n("arcsinh", Lowering::Math("asinh"), IEEE),
    n("asinh", Lowering::Math("asinh"), IEEE),
    n("arccosh", Lowering::Math("acosh"), "nan below 1 (`math` raises ValueError)"),
    n("acosh", Lowering::Math("acosh"), "nan below 1 (`math` raises ValueError)"),
    n("arctanh", Lowering::Math("atanh"), "±inf at ±1 and nan beyond (`math` raises ValueError)"),
    n("atanh", Lowering::Math("atanh"), "±inf at ±1 and nan beyond (`math` raises ValueError)"),
    n("arctan2", Lowering::Math("atan2"), IEEE),
    n("atan2", Lowering::Math("atan2"), IEEE),
    n("hypot", Lowering::Math("hypot"), IEEE),
    n("copysign", Lowering::Math("copysign"), IEEE),
    n("fabs", Lowering::Math("fabs"), "a float for an int (as `math.fabs`)"),
    n("isnan", Lowering::Math("isnan"), TESTS),
    n("isinf", Lowering::Math("isinf"), TESTS),
    n("isfinite", Lowering::Math("isfinite"), TESTS),
    n("floor", Lowering::Rounding("floor"), ROUNDING),
    n("ceil", Lowering::Rounding("ceil"), ROUNDING),
    n("trunc", Lowering::Rounding("trunc"), ROUNDING),
    n("round", Lowering::Rounding("round"), "half to even, a float for a float (`round()` gives an int); `round(x, d)` with a constant int `d` is NumPy's `rint(x * 10**d) / 10**d` (`np.round(2.675, 2)` is 2.68, `round()` gives 2.67), an int left as it is for `d >= 0`"),
    n("around", Lowering::Rounding("round"), "as `round`"),
    n("rint", Lowering::Rint, "half to even, always a float"),
    n("abs", Lowering::Abs, "an int for an int (a bool counts as 0 or 1, item 19)"),
    n("absolute", Lowering::Abs, "as `abs`"),
    n("square", Lowering::Square, "`x * x` (ints at 64 bits, item 19)"),
    n("power", Lowering::Power, "C's `pow`, but `sqrt` for an exponent of 0.5: `power(-0.0, 0.5)` is -0.0 and `power(-inf, 0.5)` nan (`**` gives 0.0 and inf); two ints are `**` (item 19)"),
    n("pow", Lowering::Power, "as `power`"),
    n("float_power", Lowering::FloatPower, "`**` in float64: nan for a negative base and a fractional exponent (`**` gives a complex)"),
    n("degrees", Lowering::Scale(180.0 / std::f64::consts::PI), "times the constant 180/pi, as `math.degrees`"),
    n("rad2deg", Lowering::Scale(180.0 / std::f64::consts::PI), "as `degrees`"),
    n("radians", Lowering::Scale(std::f64::consts::PI / 180.0), "times the constant pi/180, as `math.radians`"),
    n("deg2rad", Lowering::Scale(std::f64::consts::PI / 180.0), "as `radians`"),
    n("maximum", Lowering::Extremum(true), "NaN on either side wins (`max()` keeps its first argument); of 0.0 and -0.0 the second"),
    n("minimum", Lowering::Extremum(false), "NaN on either side wins (`min()` keeps its first argument); of 0.0 and -0.0 the second"),
    n("clip", Lowering::Clip, "`minimum(maximum(x, lo), hi)`: NaN propagates, `lo > hi` gives `hi`; a bound may be None or given as `a_min=`/`a_max=` or `min=`/`max=`"),
    n("where", Lowering::Where, "both sides in NumPy's promoted kind: `where(c, 1.0, 0)` is a float whichever side is taken"),
    n("sign", Lowering::Sign, "-1, 0 or 1 in the argument's kind; 0.0 for either zero; nan for nan"),
    n("float64", Lowering::Cast(CastOp::Float), "`float(x)`"),
    n("double", Lowering::Cast(CastOp::Float), "as `float64`"),
    n("int64", Lowering::Cast(CastOp::Int), CAST_INT),
    n("bool_", Lowering::Cast(CastOp::Bool), "`bool(x)`"),
    n("bool", Lowering::Cast(CastOp::Bool), "as `bool_` (NumPy 2's name of its bool type)"),
    n("asarray", Lowering::AsArray, "a number as it is: arithmetic on the 0-d array is NumPy's on scalars (item 19); `dtype=` converts as `astype`"),
    n("asanyarray", Lowering::AsArray, "as `asarray`"),
    n("ones_like", Lowering::Like(true), "1 in the argument's kind: True for a bool, 1 for an int, 1.0 for a float"),
    n("zeros_like", Lowering::Like(false), "0 in the argument's kind: False for a bool, 0 for an int, 0.0 for a float"),
    n("full_like", Lowering::FullLike, "the fill value in the argument's kind: NumPy converts it to the argument's dtype (`full_like(3, 2.7)` is 2); a fill value that may need narrowing (a float for an argument that may be an int) must be a constant"),
    n("astype", Lowering::AsType, "`astype(x, T)` and `x.astype(T)` with `T` one of `float`, `int`, `bool`, `numpy.float64`, `numpy.int64`, `numpy.bool_` (or their names as strings): NumPy's unsafe cast, not Python's `int()`: as `float64`, `int64`, `bool_`"),
    n("polyval", Lowering::Polyval, "Horner's rule from `zeros_like(x)`, `y = y * x + c` for each coefficient of a constant table, highest power first, as NumPy computes it (`polyval(p, inf)` is nan: `0 * inf`)"),
    n("broadcast_arrays", Lowering::BroadcastArrays, "its arguments unchanged, as a tuple (D13): on scalars broadcasting is the identity"),
    n("pi", Lowering::Constant(std::f64::consts::PI), "`math.pi`"),
    n("e", Lowering::Constant(std::f64::consts::E), "`math.e`"),
    n("inf", Lowering::Constant(f64::INFINITY), "`math.inf`"),
    n("nan", Lowering::Constant(f64::NAN), "`math.nan`"),
    n("euler_gamma", Lowering::Constant(0.577_215_664_901_532_9), "Euler's constant"),
];

/// The table entry of the NumPy name `name`.
pub fn numpy_name(name: &str) -> Option<&'static NumpyName> {
    NUMPY_NAMES.iter().find(|e| e.name == name)
}

/// What the messages list as supported.
pub fn supported_list() -> String {
    let names: Vec<&str> = NUMPY_NAMES.iter().map(|e| e.name).collect();
    format!("{} (docs/numpy.md)", names.join(", "))
}

impl NumpyName {
    /// What it lowers to, as the docs say it: the IR operation and the Array API call it prints.
    pub fn lowers_to(&self) -> String {
        match self.lowering {
            Lowering::Math(m) => {
                let xp = math_fn(m).map_or(m, |f| f.xp_name);
                format!("`math.{m}`: `xp.{xp}`")
            }
            Lowering::Rounding(r) => format!("NumPy's `{r}`: `xp.{r}` (an int kept)"),
            Lowering::Rint => "`float(x)`, then NumPy's `round`: `xp.round`".into(),
            Lowering::Abs => "`abs(x)`: `xp.abs`".into(),
            Lowering::Square => "`x * x`".into(),
            Lowering::Power => "NumPy's power: `xp.pow` (`xp.sqrt` for an exponent of 0.5)".into(),
            Lowering::FloatPower => "`float(x) ** float(y)`: `xp.pow`".into(),
            Lowering::Scale(k) => format!("`float(x) * {k:?}`"),
            Lowering::Extremum(max) => {
                let op = if max { ">" } else { "<" };
                format!("`xp.where((a {op} b) | (a != a), a, b)`")
            }
            Lowering::Clip => "two of `maximum`/`minimum`: `xp.where`".into(),
            Lowering::Where => "`xp.where` of the promoted operands".into(),
            Lowering::Sign => "comparisons and `xp.where`".into(),
            Lowering::Cast(op) => {
                let (call, dtype) = match op {
                    CastOp::Int => ("int", "int64"),
                    CastOp::Bool => ("bool", "bool"),
                    _ => ("float", "float64"),
                };
                format!("`{call}(x)`: `astype({dtype})`")
            }
            Lowering::Constant(v) => format!("the constant `{v:?}`"),
            Lowering::AsArray => "the value".into(),
            Lowering::Like(one) => format!(
                "`xp.where(True, {}, x)`",
                if one { "True" } else { "False" }
            ),
            Lowering::FullLike => {
                "the fill value converted to the argument's kind: `xp.where`, `astype`".into()
            }
            Lowering::AsType => "`float(x)`, `int(x)` or `bool(x)`: `astype`".into(),
            Lowering::Polyval => "`y = x * 0`, then `y = y * x + c` per coefficient".into(),
            Lowering::BroadcastArrays => "a tuple of the values (D13)".into(),
        }
    }
}

/// The table of docs/numpy.md: one row per accepted name.
pub fn numpy_names_markdown() -> String {
    let mut out =
        String::from("| NumPy name | lowers to (Array API) | NumPy's semantics |\n|---|---|---|\n");
    for e in NUMPY_NAMES {
        out.push_str(&format!(
            "| `{}` | {} | {} |\n",
            e.name,
            e.lowers_to(),
            e.semantics
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::MATH_FUNCTIONS;

    #[test]
    fn names_are_unique_and_math_entries_name_known_functions() {
        for (i, a) in NUMPY_NAMES.iter().enumerate() {
            assert!(
                NUMPY_NAMES[i + 1..].iter().all(|b| b.name != a.name),
                "{}",
                a.name
            );
            if let Lowering::Math(m) = a.lowering {
                assert!(MATH_FUNCTIONS.iter().any(|f| f.name == m), "{m}");
            }
        }
        assert!(numpy_names_markdown().contains("| `arctan2` | `math.atan2`: `xp.atan2` |"));
    }
}
