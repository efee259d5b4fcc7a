//! D3 partiality: which operations on Python scalars can raise where the vectorized code must
//! give the IEEE value instead.

use crate::analysis::ranges::Range;
use crate::ir::eval::fold_op;
use crate::ir::{BinOp, CastOp, Const, Kind, Op, Value};

/// D3 for Python scalars: whether `a op b`, computed by plain Python on scalars, can raise (or
/// go complex) where the vectorized code must give the IEEE value instead (docs/semantics.md
/// item 16). A division by a known non-zero finite constant, or a power that folds, cannot.
/// Such an operation runs on a 0-d array (lowering and [`legalize`] insert the `AsArray`).
pub fn partial_binary(
    op: BinOp,
    a: Value,
    b: Value,
    konst: &impl Fn(Value) -> Option<Const>,
) -> bool {
    match op {
        BinOp::Div | BinOp::FloorDiv | BinOp::Mod => {
            !matches!(konst(b), Some(Const::Int(n)) if n != 0)
                && !matches!(konst(b), Some(Const::Float(f)) if f != 0.0 && f.is_finite())
        }
        // Constants that fold (int ** non-negative int) never reach here as a failure; anything
        // else may raise or go complex (`(-1) ** 0.5`), except an int constant to a non-negative
        // int constant whose exact value leaves the 64-bit range (issue 28 item 1: `2 ** 70` on
        // a 0-d int64 array wrapped to 0): plain Python computes it exactly, and the runtime
        // then converts it to float as CPython does (`x * 2 ** 70`), compares it exactly
        // (`x < 2 ** 1100`), or raises item 17's OverflowError with an integer array.
        BinOp::Pow => {
            fold_op(&Op::Binary(op, a, b), konst).is_none() && !exact_big_power(konst(a), konst(b))
        }
        // A negative shift count raises ValueError (docs/semantics.md, shifts).
        BinOp::LShift | BinOp::RShift => {
            !matches!(konst(b), Some(Const::Int(n)) if n >= 0)
                && !matches!(konst(b), Some(Const::Bool(_)))
        }
        _ => false,
    }
}

/// Bits of the largest power of two plain Python computes for a constant `int ** int` in the
/// generated code (2**24: `10 ** 100000` is 332,193 bits, a millisecond). Beyond, the power
/// stays on a 0-d array, as any power of run-time values does.
const BIG_POWER_BITS: u128 = 1 << 24;

/// `base ** exponent` of int constants with an exponent >= 0, whose exact value CPython computes
/// without raising in bounded time: at most [`BIG_POWER_BITS`] bits.
fn exact_big_power(base: Option<Const>, exponent: Option<Const>) -> bool {
    let (Some(Const::Int(base)), Some(Const::Int(exponent))) = (base, exponent) else {
        return false;
    };
    let Ok(exponent) = u128::try_from(exponent) else {
        return false;
    };
    let bits = u128::from(128 - base.unsigned_abs().leading_zeros());
    bits.checked_mul(exponent)
        .is_some_and(|b| b <= BIG_POWER_BITS)
}

/// Whether `a op b` on Python scalars of kinds `ka`, `kb` with int intervals `ra`, `rb`
/// (`ranges::int_ranges`) never raises, so that plain Python computes it exactly as CPython does
/// (docs/semantics.md item 16): a division, floor division or remainder by an int whose interval
/// excludes zero (of a float, or of an int: within i128, a true quotient is far from float
/// overflow). Powers stay on 0-d arrays: an int power never raises, but it can take
/// unbounded time and memory (`3 ** (2**63 - 1)`), which a 0-d int64 array does not.
pub fn never_raises(op: BinOp, (ka, ra): (Kind, Range), (kb, rb): (Kind, Range)) -> bool {
    let int = |k: Kind| matches!(k, Kind::Int | Kind::Bool);
    match op {
        BinOp::Div | BinOp::FloorDiv | BinOp::Mod => {
            let nonzero = int(kb) && rb.is_some_and(|(lo, hi)| lo > 0 || hi < 0);
            let dividend = match ka {
                Kind::Float => true,
                Kind::Int | Kind::Bool => op != BinOp::Div || ra.is_some(),
                Kind::Unknown | Kind::Object => false,
            };
            nonzero && dividend
        }
        BinOp::Pow => false,
        _ => true,
    }
}

/// Whether `int()`/`round()` of a Python scalar of kind `kind` (constant `c` when known) can
/// raise: nan and inf have no int, and a float beyond 64 bits no int array form (D3).
pub fn partial_cast(op: CastOp, kind: Kind, c: Option<&Const>) -> bool {
    matches!(op, CastOp::Int | CastOp::Round)
        && !matches!(kind, Kind::Int | Kind::Bool)
        && !matches!(c, Some(Const::Float(f)) if f.abs() < 9.2e18)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn division_is_partial_unless_by_a_known_non_zero() {
        let konst = |v: Value| match v.0 {
            1 => Some(Const::Int(2)),
            2 => Some(Const::Float(0.0)),
            _ => None,
        };
        assert!(!partial_binary(BinOp::Div, Value(0), Value(1), &konst));
        assert!(partial_binary(BinOp::Div, Value(0), Value(2), &konst));
        assert!(partial_binary(BinOp::Mod, Value(0), Value(3), &konst));
        assert!(!partial_binary(BinOp::Add, Value(0), Value(3), &konst));
    }

    #[test]
    fn division_by_an_int_interval_without_zero_never_raises() {
        let (f, i) = (Kind::Float, Kind::Int);
        let index = Some((1, 5));
        assert!(never_raises(BinOp::Div, (f, None), (i, index)));
        assert!(never_raises(BinOp::Mod, (i, None), (i, Some((-3, -1)))));
        assert!(!never_raises(BinOp::Div, (f, None), (i, Some((0, 4)))));
        assert!(!never_raises(BinOp::Div, (f, None), (f, None)));
        // An int of unknown size may divide to beyond the float range.
        assert!(!never_raises(BinOp::Div, (i, None), (i, index)));
        assert!(!never_raises(BinOp::Pow, (i, None), (i, Some((0, 3)))));
    }

    #[test]
    fn int_of_a_float_is_partial_unless_known_in_range() {
        assert!(partial_cast(CastOp::Int, Kind::Float, None));
        assert!(!partial_cast(CastOp::Int, Kind::Int, None));
        assert!(!partial_cast(
            CastOp::Round,
            Kind::Float,
            Some(&Const::Float(3.5))
        ));
        assert!(!partial_cast(CastOp::Float, Kind::Float, None));
    }
}
