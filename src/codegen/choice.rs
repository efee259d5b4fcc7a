//! Where the operands' kinds pick the form of an operation: a plain `xp` call or operator where
//! that is exact on every backend, a runtime helper otherwise (ARCHITECTURE.md, "Generated
//! code"). Every such decision of codegen is a function of this file, on plain operand facts, so
//! it can be read and tested apart from printing.

use super::runtime::{cast_key, unary_key};
use crate::ir::{BinOp, CastOp, CmpOp, Kind, UnOp};

/// What instruction selection knows of an operand.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Operand {
    pub kind: Kind,
    /// A Python scalar (else an array).
    pub scalar: bool,
    /// An int that may lie outside int64 (`kinds::wide_ints`).
    pub wide: bool,
    /// A Python int known to lie within +-2**53 (`ranges::int_facts`): a float64 holds it.
    pub exact_in_float: bool,
    /// Its value when it is an int constant.
    pub int_const: Option<i128>,
    /// The interval of an int or bool that is not wide (`ranges::int_facts`: a bool is 0 or 1,
    /// an int64 array of no better-known interval lies in int64's).
    pub range: Option<(i128, i128)>,
}

impl Operand {
    /// An int that may not fit int64, as an operand of kind `self.kind` (a bool promoted to an int
    /// is never one).
    fn wide_int(self) -> bool {
        self.kind == Kind::Int && self.wide
    }

    /// An int scalar that converts to float exactly: one whose interval lies within +-2**53 (a
    /// constant, a loop index, arithmetic on those; not a sum of constants past int64 that did
    /// not fold, seed 220009 #1456).
    fn small_int(self) -> bool {
        match self.int_const {
            Some(n) => n.unsigned_abs() <= 1 << 53,
            None => self.exact_in_float,
        }
    }

    /// An int64 divisor no lane of which is 0 or -1. The Array API leaves those two to the
    /// library (division by zero; `INT64_MIN // -1` and `INT64_MIN % -1` overflow: NumPy
    /// wraps and warns, XLA's are "implementation-defined"); on every other divisor its
    /// `floor_divide` rounds "to the greatest integer-value number that is not greater than the
    /// division result" and its `remainder` "is equivalent to the Python modulus operator"
    /// (both for every sign), which is what CPython's `//` and `%` compute on ints. An int64
    /// quotient never overflows but by -1 (|a // b| <= |a|), a remainder lies between 0 and the
    /// divisor: each lane is Python's exactly, on every backend (NumPy, array-api-strict, JAX,
    /// Dask, and torch, whose `remainder` and `floor_divide` follow the standard).
    fn safe_divisor(self) -> bool {
        self.kind == Kind::Int
            && !self.wide
            && self.range.is_some_and(|(lo, hi)| lo >= 1 || hi <= -2)
    }

    /// An int64 shift count in [0, 63]: the standard's `bitwise_left_shift` and
    /// `bitwise_right_shift` take counts "greater than or equal to 0", and the right shift
    /// "must be an arithmetic shift ... equivalent to floor division by a power of two",
    /// which is CPython's `>>` on ints; `<<` keeps the low 64 bits of two's complement, which is
    /// CPython's value modulo 2**64 (docs/semantics.md item 6). These are the operations the
    /// helper itself applies to counts in that range (runtime/bits.py), which handles counts
    /// past 63 and negative ones (docs/semantics.md item 24) where they may occur.
    fn short_shift_count(self) -> bool {
        self.kind == Kind::Int
            && !self.wide
            && self.range.is_some_and(|(lo, hi)| lo >= 0 && hi <= 63)
    }

    /// The operand after a bool was promoted to `to` for arithmetic (`bool_promotion`).
    pub fn promoted(self, to: Kind) -> Self {
        Operand {
            kind: to,
            wide: false,
            ..self
        }
    }
}

/// The kind a bool operand of arithmetic acts as (strict backends refuse arithmetic on bools):
/// float next to a float, else int. None when neither operand is a bool or a kind is unknown
/// (the helper decides at run time).
pub(super) fn bool_promotion(op: BinOp, a: Kind, b: Kind) -> Option<Kind> {
    // `&`, `|`, `^` of two bools is a bool.
    if op.is_bitwise() && a == Kind::Bool && b == Kind::Bool {
        return None;
    }
    if a == Kind::Unknown || b == Kind::Unknown || (a != Kind::Bool && b != Kind::Bool) {
        return None;
    }
    Some(if a == Kind::Float || b == Kind::Float {
        Kind::Float
    } else {
        Kind::Int
    })
}

/// Whether `a op b` (one operand at least an array, bools already promoted) is exact as a plain
/// operator on every backend; else `_vec_binary`.
pub(super) fn plain_binary(op: BinOp, a: Operand, b: Operand) -> bool {
    if op.is_shift() {
        // A negative count or one past 63 bits has no plain array form (runtime/bits.py).
        return a.kind == Kind::Int && !a.wide && b.short_shift_count();
    }
    if op.is_bitwise() {
        return match (a.kind, b.kind) {
            (Kind::Bool, Kind::Bool) => true,
            (Kind::Int, Kind::Int) => !a.wide_int() && !b.wide_int(),
            _ => false,
        };
    }
    match (a.kind, b.kind) {
        (Kind::Float, Kind::Float) => true,
        // A Python int mixes with a float array on every backend; an int array with a float does
        // not (strict backends refuse mixed kinds).
        (Kind::Float, Kind::Int) => b.scalar,
        (Kind::Int, Kind::Float) => a.scalar,
        // Two ints within int64 (an int64 array meeting a uint64 one, or a Python int beyond
        // int64, needs the helper's lattice).
        (Kind::Int, Kind::Int) if a.wide_int() || b.wide_int() => false,
        (Kind::Int, Kind::Int) => match op {
            BinOp::Add | BinOp::Sub | BinOp::Mul => true,
            BinOp::Pow => b.scalar && b.int_const.is_some_and(|n| n >= 0),
            // `year % 4`, `n // 10`, `m % 12 + 1` as a divisor: `Operand::safe_divisor`.
            BinOp::FloorDiv | BinOp::Mod => b.safe_divisor(),
            _ => false,
        },
        _ => false,
    }
}

/// The form of a plain `a % c` (`plain_binary`) of an int64 array `a` by an int constant
/// `c >= 1`: NumPy's `remainder` takes a division per lane (3-40 ms per 1e6 int64 lanes) where
/// its `floor_divide` by a scalar multiplies by a reciprocal (libdivide, under 1 ms), so the
/// remainder is printed from the quotient (issue 30).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum IntMod {
    /// `a & (c - 1)` for `c` a power of two: Python's `a % 2**k` is the low `k` bits of `a` in
    /// two's complement, for every sign, which `bitwise_and` with a non-negative int64 gives.
    Mask(i128),
    /// `a - a // c * c`: Python's `%` is `a - (a // c) * c` by definition of floor division.
    /// `a // c` is exact (`safe_divisor`); `(a // c) * c` lies in `(a - c, a]`, so it leaves
    /// int64 only for `a` within `c` of int64's minimum, where the product and the difference
    /// wrap modulo 2**64 on every backend (NumPy, array-api-strict, JAX, Dask, torch: int64
    /// arithmetic is two's complement, as `<<`'s is, docs/semantics.md item 6) and the
    /// difference, in `[0, c)`, comes out exact.
    ByQuotient(i128),
}

pub(super) fn int_mod(a: Operand, c: Operand) -> Option<IntMod> {
    if a.kind != Kind::Int || a.wide || a.scalar || c.kind != Kind::Int || c.wide {
        return None;
    }
    let c = c.int_const.filter(|&c| c >= 1)?;
    Some(if c & (c - 1) == 0 {
        IntMod::Mask(c - 1)
    } else {
        IntMod::ByQuotient(c)
    })
}

/// Whether the int64 array operand of `a op b` (one operand a float) is converted to float64
/// with `astype` for a plain float operation: CPython's `float + int`, `-` and `*` convert the
/// int to the nearest float (ties to even) first, as `astype` does, then compute in floats;
/// strict backends refuse to mix the kinds. These three are the operations the helper computes
/// so too (`runtime/arith.py`: `_to_float`, then the plain operator), warnings included; its
/// quiet D3 forms (`/`, `//`, `%`, `**`) stay with it. A wide int (uint64 lanes) is converted
/// by the helper.
pub(super) fn int_to_float(op: BinOp, int: Operand, other: Operand) -> bool {
    matches!(op, BinOp::Add | BinOp::Sub | BinOp::Mul)
        && int.kind == Kind::Int
        && !int.wide
        && !int.scalar
        && other.kind == Kind::Float
}

/// `x op c` for an int `x` and a finite float constant `c`, as a comparison with an int
/// constant: CPython compares an int with a float exactly (by value, not by converting the
/// int), and for an integer `x`, `x < c` is `x < ceil(c)`, `x <= c` is `x <= floor(c)`, `x > c`
/// is `x > floor(c)`, `x >= c` is `x >= ceil(c)`; `x == c` and `x != c` compare with `c` itself
/// when it is integral. None where that does not hold or the int would not be int64's.
pub(super) fn int_bound(op: CmpOp, c: f64) -> Option<i128> {
    if !c.is_finite() || c.abs() >= 4.0e18 {
        return None;
    }
    let bound = match op {
        CmpOp::Lt | CmpOp::Ge => c.ceil(),
        CmpOp::Le | CmpOp::Gt => c.floor(),
        CmpOp::Eq | CmpOp::Ne if c.fract() == 0.0 => c,
        CmpOp::Eq | CmpOp::Ne => return None,
    };
    // |bound| < 4e18 < 2**63: an int64 value, which the float holds exactly.
    Some(bound as i128)
}

/// Whether `a op b` is exact as a plain comparison; else `_vec_binary`.
pub(super) fn plain_compare(op: CmpOp, a: Operand, b: Operand) -> bool {
    (a.scalar && b.scalar)
        || match (a.kind, b.kind) {
            (Kind::Int, Kind::Int) => !a.wide && !b.wide,
            (Kind::Float, Kind::Float) => true,
            // A Python int meets a float array through float conversion: exact only up to 2**53
            // (CPython compares int and float exactly).
            (Kind::Float, Kind::Int) => b.scalar && b.small_int(),
            (Kind::Int, Kind::Float) => a.scalar && a.small_int(),
            (Kind::Bool, Kind::Bool) => matches!(op, CmpOp::Eq | CmpOp::Ne),
            _ => false,
        }
}

/// Whether a select on an array condition is exact as `xp.where(c, a, b)`; else `_vec_select`,
/// which promotes the operands to one dtype first.
pub(super) fn plain_select(a: Operand, b: Operand) -> bool {
    !(a.scalar && b.scalar)
        && match (a.kind, b.kind) {
            (Kind::Int, Kind::Int) => !a.wide && !b.wide,
            (Kind::Float, Kind::Float) | (Kind::Bool, Kind::Bool) => true,
            (Kind::Float, Kind::Int) => b.scalar,
            (Kind::Int, Kind::Float) => a.scalar,
            _ => false,
        }
}

/// The kind a select on an array condition joins operands of two known kinds in, each
/// converted to it first (an array by `astype`, a Python bool as the number it is), for a plain
/// `xp.where`: what `_vec_select` computes (it promotes bool < int64 < float64 with the same
/// conversions, `runtime/select.py`). None where the kinds are one (`plain_select`), unknown,
/// or an int may hold uint64 lanes, or both operands are Python scalars.
pub(super) fn select_join(a: Operand, b: Operand, merged: Kind) -> Option<Kind> {
    let known =
        |o: Operand| matches!(o.kind, Kind::Bool | Kind::Float) || o.kind == Kind::Int && !o.wide;
    (!(a.scalar && b.scalar)
        && a.kind != b.kind
        && known(a)
        && known(b)
        && Kind::join(a.kind, b.kind) == merged)
        .then_some(merged)
}

/// The form of a unary operator on an array.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum UnaryForm {
    LogicalNot,
    /// `a == 0` (`not` of an int64 or float64 array: Python's truth value, D4, is `a != 0`,
    /// NaN true and -0.0 false, which `==` with 0 negates exactly).
    IsZero,
    Negate,
    Identity,
    Abs,
    /// `xp.bitwise_invert` of an int64 array.
    Invert,
    /// `_vec_unary` with this key.
    Helper(&'static str),
}

pub(super) fn unary(op: UnOp, a: Operand) -> UnaryForm {
    // `-u` of a uint64 array wraps as uint64: the helper follows the lattice.
    let k = if a.wide_int() { Kind::Unknown } else { a.kind };
    match (op, k) {
        (UnOp::Not, Kind::Bool) => UnaryForm::LogicalNot,
        (UnOp::Not, Kind::Int | Kind::Float) => UnaryForm::IsZero,
        (UnOp::Neg, Kind::Float | Kind::Int) => UnaryForm::Negate,
        (UnOp::Pos, Kind::Float | Kind::Int) => UnaryForm::Identity,
        (UnOp::Abs, Kind::Float | Kind::Int) => UnaryForm::Abs,
        (UnOp::Invert, Kind::Int) => UnaryForm::Invert,
        (op, _) => UnaryForm::Helper(unary_key(op)),
    }
}

/// The form of a conversion of an array.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum CastForm {
    /// The value already has the kind.
    Same,
    AsType(Kind),
    /// `a != 0` (`bool()` of a number).
    NonZero,
    /// `_vec_unary` with this key.
    Helper(&'static str),
}

pub(super) fn cast(op: CastOp, k: Kind) -> CastForm {
    match (op, k) {
        (CastOp::Float, Kind::Float)
        | (CastOp::Int | CastOp::Round | CastOp::Index, Kind::Int)
        | (CastOp::Bool, Kind::Bool) => CastForm::Same,
        (CastOp::Float, Kind::Int | Kind::Bool) => CastForm::AsType(Kind::Float),
        (CastOp::Int | CastOp::Round | CastOp::Index, Kind::Bool) => CastForm::AsType(Kind::Int),
        // Float to int: NaN and infinities have no int; the helper's documented values (0,
        // saturation) rather than whatever the backend's cast gives, and no warning.
        (CastOp::Int | CastOp::Round | CastOp::Index, Kind::Float) => {
            CastForm::Helper(cast_key(op))
        }
        (CastOp::Bool, Kind::Float | Kind::Int) => CastForm::NonZero,
        (op, Kind::Unknown | Kind::Object) => CastForm::Helper(cast_key(op)),
    }
}

/// The form of an argument of a math function, which takes a float64 array.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum FloatArg {
    /// A Python scalar: `xp.asarray(v, dtype=xp.float64)`.
    AsArray,
    Same,
    AsType,
    /// `_vec_unary(xp, "float", v)`.
    Helper,
}

pub(super) fn float_arg(a: Operand) -> FloatArg {
    match (a.scalar, a.kind) {
        (true, _) => FloatArg::AsArray,
        (false, Kind::Float) => FloatArg::Same,
        // A wide int array may hold lattice lanes (runtime/intops.py): the helper converts.
        (false, Kind::Int) if a.wide => FloatArg::Helper,
        (false, Kind::Int | Kind::Bool) => FloatArg::AsType,
        (false, Kind::Unknown | Kind::Object) => FloatArg::Helper,
    }
}

/// The form of a Python scalar made a 0-d array of kind `k`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum ScalarArray {
    AsArray(Kind),
    /// An int constant in [2**63, 2**64): `xp.asarray(v, dtype=xp.uint64)`.
    Uint64,
    /// An int that may not fit int64: `_vec_unary(xp, "pos", v)`, which picks uint64 or raises
    /// the OverflowError of docs/semantics.md item 17 rather than the backend's.
    Helper,
}

pub(super) fn scalar_array(a: Operand, k: Kind) -> ScalarArray {
    if k == Kind::Int && a.kind != Kind::Bool && a.wide {
        return match a.int_const {
            Some(n) if (1 << 63..1 << 64).contains(&n) => ScalarArray::Uint64,
            _ => ScalarArray::Helper,
        };
    }
    ScalarArray::AsArray(k)
}

/// How a value enters a merge or phi that holds kind `to`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Coerce {
    /// A Python scalar into an array-valued variable whose kind is decided at run time:
    /// `_vec_broadcast(xp, v)` (bool, int64, uint64 or float64).
    Broadcast,
    /// A Python scalar into an array-valued variable: a 0-d array of this kind.
    ScalarArray(Kind),
    Same,
    /// A narrower Python scalar into a wider one: `float(v)` or `int(v)`.
    PyCast(Kind),
    /// A narrower array into a wider one (a bool flowing into a float phi would otherwise stay
    /// a bool array: `xp.sqrt` of it is float16 on NumPy, and strict backends refuse mixing).
    AsType(Kind),
    /// An int array that may hold uint64-lattice lanes into a float: `_vec_unary` with this key.
    Helper(&'static str),
}

/// `v` (of `from`) as the value of a merge or phi of kind `to`; `into_array` when the merge is
/// an array, `placeholder` when `v` only stands in for a value a path never defines.
pub(super) fn coerce(from: Operand, to: Kind, into_array: bool, placeholder: bool) -> Coerce {
    // A Python scalar flowing into an array-valued variable (a loop variable reassigned to a
    // constant) becomes a 0-d array: conditions and xp functions need arrays.
    if from.scalar && into_array {
        return match (to, from.kind) {
            (Kind::Unknown, Kind::Unknown) => Coerce::Broadcast,
            (Kind::Unknown, k) | (k, _) => Coerce::ScalarArray(k),
        };
    }
    if from.kind == to || from.kind == Kind::Unknown || to == Kind::Unknown || placeholder {
        return Coerce::Same;
    }
    match (from.kind, to) {
        (Kind::Bool, Kind::Int | Kind::Float) | (Kind::Int, Kind::Float) if from.scalar => {
            Coerce::PyCast(to)
        }
        (Kind::Int, Kind::Float) if from.wide => Coerce::Helper(cast_key(CastOp::Float)),
        (Kind::Bool, Kind::Int | Kind::Float) | (Kind::Int, Kind::Float) => Coerce::AsType(to),
        _ => Coerce::Same,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn array(kind: Kind) -> Operand {
        Operand {
            kind,
            scalar: false,
            wide: false,
            exact_in_float: false,
            int_const: None,
            range: None,
        }
    }

    fn in_range(o: Operand, lo: i128, hi: i128) -> Operand {
        Operand {
            range: Some((lo, hi)),
            ..o
        }
    }

    fn scalar(kind: Kind) -> Operand {
        Operand {
            scalar: true,
            ..array(kind)
        }
    }

    fn int(n: i128) -> Operand {
        Operand {
            int_const: Some(n),
            range: Some((n, n)),
            ..scalar(Kind::Int)
        }
    }

    #[test]
    fn int_division_is_plain_by_a_divisor_that_is_never_0_or_minus_1() {
        let i = array(Kind::Int);
        for op in [BinOp::FloorDiv, BinOp::Mod] {
            assert!(plain_binary(op, i, int(4)), "{op:?} 4");
            assert!(plain_binary(op, i, int(1)), "{op:?} 1");
            assert!(plain_binary(op, i, int(-7)), "{op:?} -7");
            assert!(!plain_binary(op, i, int(0)), "{op:?} 0");
            assert!(!plain_binary(op, i, int(-1)), "{op:?} -1");
            // `m % 12 + 1` as a divisor; a divisor whose interval reaches 0 or -1.
            assert!(plain_binary(op, i, in_range(i, 1, 12)), "{op:?} [1, 12]");
            assert!(!plain_binary(op, i, in_range(i, 0, 12)), "{op:?} [0, 12]");
            assert!(!plain_binary(op, i, in_range(i, -3, -1)), "{op:?} [-3, -1]");
            assert!(!plain_binary(op, i, i), "{op:?} unknown");
            // A dividend or divisor that may hold uint64 lanes keeps the lattice's helper.
            let wide = Operand { wide: true, ..i };
            assert!(!plain_binary(op, wide, int(4)), "{op:?} wide");
            // A float operand is the float rule's (the float body's `%` is the library's).
            assert!(!plain_binary(
                op,
                i,
                Operand {
                    kind: Kind::Float,
                    ..int(4)
                }
            ));
        }
    }

    #[test]
    fn int_remainders_by_constants_are_masks_or_come_from_the_quotient() {
        let i = array(Kind::Int);
        assert_eq!(int_mod(i, int(4)), Some(IntMod::Mask(3)));
        assert_eq!(int_mod(i, int(1)), Some(IntMod::Mask(0)));
        assert_eq!(int_mod(i, int(1 << 62)), Some(IntMod::Mask((1 << 62) - 1)));
        assert_eq!(int_mod(i, int(100)), Some(IntMod::ByQuotient(100)));
        assert_eq!(int_mod(i, int(0)), None);
        assert_eq!(int_mod(i, int(-4)), None);
        assert_eq!(int_mod(i, in_range(i, 1, 12)), None, "not a constant");
        assert_eq!(int_mod(Operand { wide: true, ..i }, int(4)), None);
        assert_eq!(int_mod(scalar(Kind::Int), int(4)), None);
        let f = Operand {
            kind: Kind::Float,
            ..i
        };
        assert_eq!(int_mod(f, int(4)), None);
    }

    #[test]
    fn ints_meet_floats_converted_in_add_sub_mul_only() {
        let (i, f) = (array(Kind::Int), array(Kind::Float));
        assert!(int_to_float(BinOp::Add, i, f));
        assert!(int_to_float(BinOp::Mul, i, scalar(Kind::Float)));
        assert!(!int_to_float(BinOp::Div, i, f));
        assert!(!int_to_float(BinOp::Pow, i, f));
        assert!(!int_to_float(BinOp::Add, i, i));
        assert!(!int_to_float(BinOp::Add, scalar(Kind::Int), f));
        assert!(!int_to_float(BinOp::Add, Operand { wide: true, ..i }, f));
    }

    #[test]
    fn an_int_compared_with_a_float_constant_compares_with_an_int() {
        assert_eq!(int_bound(CmpOp::Gt, 1e-9), Some(0));
        assert_eq!(int_bound(CmpOp::Ge, 1e-9), Some(1));
        assert_eq!(int_bound(CmpOp::Lt, 2.5), Some(3));
        assert_eq!(int_bound(CmpOp::Le, 2.5), Some(2));
        assert_eq!(int_bound(CmpOp::Le, -2.5), Some(-3));
        assert_eq!(int_bound(CmpOp::Lt, -2.0), Some(-2));
        assert_eq!(int_bound(CmpOp::Eq, 3.0), Some(3));
        assert_eq!(int_bound(CmpOp::Eq, 3.5), None);
        assert_eq!(int_bound(CmpOp::Lt, f64::NAN), None);
        assert_eq!(int_bound(CmpOp::Lt, f64::INFINITY), None);
        assert_eq!(int_bound(CmpOp::Lt, 1e19), None);
    }

    #[test]
    fn shifts_are_plain_by_counts_in_0_to_63() {
        let i = array(Kind::Int);
        assert!(plain_binary(BinOp::RShift, i, int(3)));
        assert!(plain_binary(BinOp::LShift, i, int(63)));
        assert!(plain_binary(BinOp::LShift, i, in_range(i, 0, 63)));
        assert!(!plain_binary(BinOp::LShift, i, int(64)));
        assert!(!plain_binary(BinOp::RShift, i, int(-1)));
        assert!(!plain_binary(BinOp::RShift, i, i));
        let wide = Operand { wide: true, ..i };
        assert!(!plain_binary(BinOp::RShift, wide, int(3)));
    }

    #[test]
    fn not_of_a_number_array_is_a_comparison_with_zero() {
        assert_eq!(unary(UnOp::Not, array(Kind::Int)), UnaryForm::IsZero);
        assert_eq!(unary(UnOp::Not, array(Kind::Float)), UnaryForm::IsZero);
        let wide = Operand {
            wide: true,
            ..array(Kind::Int)
        };
        assert_eq!(unary(UnOp::Not, wide), UnaryForm::Helper("not"));
    }

    #[test]
    fn float_arithmetic_is_plain_and_int_division_is_not() {
        let (f, i) = (array(Kind::Float), array(Kind::Int));
        assert!(plain_binary(BinOp::Div, f, f));
        assert!(plain_binary(BinOp::Add, i, i));
        assert!(!plain_binary(BinOp::FloorDiv, i, i));
        assert!(!plain_binary(BinOp::Div, i, i));
        // An int array meets a float only through the helper; a Python int meets a float array.
        assert!(!plain_binary(BinOp::Mul, i, f));
        assert!(plain_binary(BinOp::Mul, f, scalar(Kind::Int)));
    }

    #[test]
    fn int_power_is_plain_only_for_a_non_negative_constant_exponent() {
        let i = array(Kind::Int);
        assert!(plain_binary(BinOp::Pow, i, int(3)));
        assert!(!plain_binary(BinOp::Pow, i, int(-1)));
        assert!(!plain_binary(BinOp::Pow, i, scalar(Kind::Int)));
    }

    #[test]
    fn ints_that_may_leave_int64_go_through_the_helper() {
        let wide = Operand {
            wide: true,
            ..array(Kind::Int)
        };
        assert!(!plain_binary(BinOp::Add, wide, array(Kind::Int)));
        assert!(!plain_compare(CmpOp::Lt, wide, array(Kind::Int)));
        assert!(!plain_select(wide, array(Kind::Int)));
        assert_eq!(unary(UnOp::Neg, wide), UnaryForm::Helper("neg"));
        // A promoted bool is never wide.
        let promoted = Operand {
            wide: true,
            ..array(Kind::Bool)
        }
        .promoted(Kind::Int);
        assert!(plain_binary(BinOp::Add, promoted, array(Kind::Int)));
    }

    #[test]
    fn bools_act_as_the_other_operands_number() {
        assert_eq!(
            bool_promotion(BinOp::Add, Kind::Bool, Kind::Float),
            Some(Kind::Float)
        );
        assert_eq!(
            bool_promotion(BinOp::Add, Kind::Int, Kind::Bool),
            Some(Kind::Int)
        );
        assert_eq!(
            bool_promotion(BinOp::Add, Kind::Bool, Kind::Bool),
            Some(Kind::Int)
        );
        assert_eq!(bool_promotion(BinOp::Add, Kind::Bool, Kind::Unknown), None);
        assert_eq!(bool_promotion(BinOp::Add, Kind::Int, Kind::Float), None);
    }

    #[test]
    fn an_int_meets_a_float_array_exactly_only_within_2_pow_53() {
        let f = array(Kind::Float);
        assert!(plain_compare(CmpOp::Lt, f, int(1 << 53)));
        assert!(!plain_compare(CmpOp::Lt, f, int((1 << 53) + 1)));
        let index = Operand {
            exact_in_float: true,
            ..scalar(Kind::Int)
        };
        assert!(plain_compare(CmpOp::Lt, f, index), "a loop index");
        // A Python int whose interval is unknown or reaches past 2**53 (`10 + (2**64 - 1)`,
        // which did not fold): the helper compares it exactly, or raises item 17's error.
        assert!(!plain_compare(CmpOp::Lt, f, scalar(Kind::Int)));
        assert!(!plain_compare(CmpOp::Lt, f, array(Kind::Int)));
        assert!(plain_compare(
            CmpOp::Eq,
            array(Kind::Bool),
            array(Kind::Bool)
        ));
        assert!(!plain_compare(
            CmpOp::Lt,
            array(Kind::Bool),
            array(Kind::Bool)
        ));
    }

    #[test]
    fn selects_of_one_kind_are_plain_and_of_two_scalars_never() {
        assert!(plain_select(array(Kind::Float), array(Kind::Float)));
        assert!(plain_select(array(Kind::Float), scalar(Kind::Int)));
        assert!(!plain_select(array(Kind::Int), scalar(Kind::Float)));
        assert!(!plain_select(scalar(Kind::Float), scalar(Kind::Float)));
        assert!(!plain_select(array(Kind::Unknown), array(Kind::Float)));
    }

    #[test]
    fn selects_of_two_known_kinds_join_them_first() {
        let (b, i, f) = (array(Kind::Bool), array(Kind::Int), array(Kind::Float));
        assert_eq!(select_join(f, i, Kind::Float), Some(Kind::Float));
        assert_eq!(select_join(i, b, Kind::Int), Some(Kind::Int));
        assert_eq!(
            select_join(scalar(Kind::Bool), f, Kind::Float),
            Some(Kind::Float)
        );
        assert_eq!(select_join(f, f, Kind::Float), None);
        assert_eq!(select_join(f, array(Kind::Unknown), Kind::Unknown), None);
        assert_eq!(
            select_join(f, Operand { wide: true, ..i }, Kind::Float),
            None
        );
        assert_eq!(
            select_join(scalar(Kind::Int), scalar(Kind::Float), Kind::Float),
            None
        );
    }

    #[test]
    fn conversions_of_known_kinds_are_plain_except_float_to_int() {
        assert_eq!(cast(CastOp::Float, Kind::Float), CastForm::Same);
        assert_eq!(
            cast(CastOp::Float, Kind::Bool),
            CastForm::AsType(Kind::Float)
        );
        assert_eq!(cast(CastOp::Round, Kind::Bool), CastForm::AsType(Kind::Int));
        assert_eq!(cast(CastOp::Int, Kind::Float), CastForm::Helper("int"));
        assert_eq!(cast(CastOp::Bool, Kind::Int), CastForm::NonZero);
        assert_eq!(cast(CastOp::Bool, Kind::Unknown), CastForm::Helper("bool"));
        assert_eq!(unary(UnOp::Not, array(Kind::Bool)), UnaryForm::LogicalNot);
        assert_eq!(
            unary(UnOp::Not, array(Kind::Unknown)),
            UnaryForm::Helper("not")
        );
        assert_eq!(float_arg(array(Kind::Unknown)), FloatArg::Helper);
        assert_eq!(float_arg(scalar(Kind::Unknown)), FloatArg::AsArray);
    }

    #[test]
    fn scalars_beyond_int64_become_arrays_through_uint64_or_the_helper() {
        let big = Operand {
            wide: true,
            ..int(1 << 63)
        };
        assert_eq!(scalar_array(big, Kind::Int), ScalarArray::Uint64);
        let index = Operand {
            wide: true,
            ..scalar(Kind::Int)
        };
        assert_eq!(scalar_array(index, Kind::Int), ScalarArray::Helper);
        assert_eq!(
            scalar_array(int(5), Kind::Float),
            ScalarArray::AsArray(Kind::Float)
        );
    }

    #[test]
    fn merges_convert_narrower_values_and_scalars_entering_arrays() {
        let into = |from, to| coerce(from, to, true, false);
        assert_eq!(
            into(scalar(Kind::Unknown), Kind::Unknown),
            Coerce::Broadcast
        );
        assert_eq!(
            into(scalar(Kind::Int), Kind::Unknown),
            Coerce::ScalarArray(Kind::Int)
        );
        assert_eq!(
            into(scalar(Kind::Int), Kind::Float),
            Coerce::ScalarArray(Kind::Float)
        );
        assert_eq!(
            coerce(array(Kind::Bool), Kind::Float, true, false),
            Coerce::AsType(Kind::Float)
        );
        assert_eq!(
            coerce(scalar(Kind::Bool), Kind::Int, false, false),
            Coerce::PyCast(Kind::Int)
        );
        assert_eq!(
            coerce(array(Kind::Bool), Kind::Float, true, true),
            Coerce::Same
        );
        assert_eq!(
            coerce(array(Kind::Float), Kind::Int, true, false),
            Coerce::Same
        );
    }
}
