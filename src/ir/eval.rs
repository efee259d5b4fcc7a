//! Constant evaluation with CPython's semantics: the one place that computes what an operation
//! gives on known values. The folder, lowering's on-the-fly folding and the analyses all use it.
//!
//! Only what Rust computes bit-for-bit like CPython is evaluated: integer arithmetic that does
//! not overflow i128, IEEE `+ - * /` on floats (never a division by zero: CPython raises there),
//! exact int/float comparisons, correctly rounded `sqrt`. Transcendentals are left to run time,
//! since libm results may differ by an ulp.

use super::constant::Const;
use super::op::{BinOp, CastOp, CmpOp, LogicOp, Op, UnOp};
use super::types::Value;

/// 2**53: integers up to this magnitude convert to float exactly.
const EXACT_INT_LIMIT: i128 = 1 << 53;

enum Num {
    Int(i128),
    Float(f64),
}

fn num(c: &Const) -> Option<Num> {
    match c {
        Const::Bool(b) => Some(Num::Int(i128::from(*b))),
        Const::Int(i) => Some(Num::Int(*i)),
        Const::Float(f) => Some(Num::Float(*f)),
        Const::Tuple(_) => None,
    }
}

fn exact_float(i: i128) -> Option<f64> {
    (i.abs() <= EXACT_INT_LIMIT).then_some(i as f64)
}

/// Keeps folded ints within what an integer array can hold; beyond, CPython's exact value is
/// left to run time.
fn in_int64_range(c: Option<Const>) -> Option<Const> {
    match c {
        Some(Const::Int(i)) if !(-(1i128 << 63)..(1i128 << 64)).contains(&i) => None,
        other => other,
    }
}

/// Python's floor division on ints (divisor non-zero); None on overflow.
pub fn int_floordiv(a: i128, b: i128) -> Option<i128> {
    let q = a.checked_div(b)?;
    Some(if (a % b != 0) && ((a < 0) != (b < 0)) {
        q - 1
    } else {
        q
    })
}

/// Python's modulo on ints (divisor non-zero); None on overflow.
pub fn int_mod(a: i128, b: i128) -> Option<i128> {
    let r = a.checked_rem(b)?;
    Some(if r != 0 && ((r < 0) != (b < 0)) {
        r + b
    } else {
        r
    })
}

/// The constant `op` computes, when it is exactly what CPython computes.
pub fn fold_op(op: &Op, konst: &impl Fn(Value) -> Option<Const>) -> Option<Const> {
    match op {
        Op::Unary(u, a) => {
            let a = konst(*a)?;
            match (u, num(&a)?) {
                (UnOp::Not, _) => match a {
                    Const::Bool(b) => Some(Const::Bool(!b)),
                    _ => None,
                },
                (UnOp::Neg, Num::Int(i)) => i.checked_neg().map(Const::Int),
                (UnOp::Neg, Num::Float(f)) => Some(Const::Float(-f)),
                (UnOp::Pos, Num::Int(i)) => Some(Const::Int(i)),
                (UnOp::Pos, Num::Float(f)) => Some(Const::Float(f)),
                (UnOp::Abs, Num::Int(i)) => i.checked_abs().map(Const::Int),
                (UnOp::Abs, Num::Float(f)) => Some(Const::Float(f.abs())),
            }
        }
        Op::Binary(b, x, y) => fold_binary(*b, num(&konst(*x)?)?, num(&konst(*y)?)?),
        Op::Compare(cmp, x, y) => {
            let (x, y) = (num(&konst(*x)?)?, num(&konst(*y)?)?);
            let ord = match (x, y) {
                (Num::Int(a), Num::Int(c)) => a.partial_cmp(&c),
                (Num::Float(a), Num::Float(c)) => a.partial_cmp(&c),
                (Num::Int(a), Num::Float(c)) => exact_float(a)?.partial_cmp(&c),
                (Num::Float(a), Num::Int(c)) => a.partial_cmp(&exact_float(c)?),
            };
            use std::cmp::Ordering::{Equal, Greater, Less};
            let r = match (cmp, ord) {
                (CmpOp::Ne, None) => true,
                (_, None) => false,
                (CmpOp::Lt, Some(o)) => o == Less,
                (CmpOp::Le, Some(o)) => o != Greater,
                (CmpOp::Gt, Some(o)) => o == Greater,
                (CmpOp::Ge, Some(o)) => o != Less,
                (CmpOp::Eq, Some(o)) => o == Equal,
                (CmpOp::Ne, Some(o)) => o != Equal,
            };
            Some(Const::Bool(r))
        }
        Op::Logic(l, a, b) => match (konst(*a)?, konst(*b)?) {
            (Const::Bool(a), Const::Bool(b)) => Some(Const::Bool(match l {
                LogicOp::And => a && b,
                LogicOp::Or => a || b,
            })),
            _ => None,
        },
        Op::Cast(c, a) => {
            let a = konst(*a)?;
            match (c, num(&a)?) {
                (CastOp::Float, Num::Int(i)) => Some(Const::Float(i as f64)),
                (CastOp::Float, Num::Float(f)) => Some(Const::Float(f)),
                (CastOp::Int, Num::Int(i)) | (CastOp::Round, Num::Int(i)) => Some(Const::Int(i)),
                (CastOp::Int, Num::Float(f)) if f.is_finite() && f.abs() < 1e30 => {
                    Some(Const::Int(f.trunc() as i128))
                }
                (CastOp::Round, Num::Float(f)) if f.is_finite() && f.abs() < 1e30 => {
                    Some(Const::Int(f.round_ties_even() as i128))
                }
                (CastOp::Bool, Num::Int(i)) => Some(Const::Bool(i != 0)),
                (CastOp::Bool, Num::Float(f)) => Some(Const::Bool(f != 0.0)),
                _ => None,
            }
        }
        Op::Index(t, i) => match (konst(*t)?, konst(*i)?) {
            (Const::Tuple(items), Const::Int(i)) => {
                let len = items.len() as i128;
                let idx = if i < 0 { i + len } else { i };
                (0..len).contains(&idx).then(|| items[idx as usize].clone())
            }
            _ => None,
        },
        // NumPy's rounding keeps an int's kind, which `fold_math` (math's) does not.
        Op::Math(m, args) if m.keeps_ints.is_none() => fold_math(m.name, args, konst),
        _ => None,
    }
}

/// `x op y` on numbers, when exactly what CPython computes.
fn fold_binary(b: BinOp, x: Num, y: Num) -> Option<Const> {
    match (x, y) {
        (Num::Int(a), Num::Int(c)) => in_int64_range(match b {
            BinOp::Add => a.checked_add(c).map(Const::Int),
            BinOp::Sub => a.checked_sub(c).map(Const::Int),
            BinOp::Mul => a.checked_mul(c).map(Const::Int),
            BinOp::FloorDiv if c != 0 => int_floordiv(a, c).map(Const::Int),
            BinOp::Mod if c != 0 => int_mod(a, c).map(Const::Int),
            BinOp::Div if c != 0 => Some(Const::Float(exact_float(a)? / exact_float(c)?)),
            BinOp::Pow if (0..=256).contains(&c) => {
                a.checked_pow(u32::try_from(c).ok()?).map(Const::Int)
            }
            _ => None,
        }),
        (x, y) => {
            let to_f = |n: Num| match n {
                Num::Int(i) => exact_float(i),
                Num::Float(f) => Some(f),
            };
            let (a, c) = (to_f(x)?, to_f(y)?);
            match b {
                BinOp::Add => Some(Const::Float(a + c)),
                BinOp::Sub => Some(Const::Float(a - c)),
                BinOp::Mul => Some(Const::Float(a * c)),
                BinOp::Div if c != 0.0 => Some(Const::Float(a / c)),
                _ => None,
            }
        }
    }
}

/// `math.<name>(args)` on constants, for the functions Rust computes exactly like CPython.
fn fold_math(name: &str, args: &[Value], konst: &impl Fn(Value) -> Option<Const>) -> Option<Const> {
    let vals: Vec<f64> = args
        .iter()
        .map(|v| match num(&konst(*v)?)? {
            Num::Int(i) => exact_float(i),
            Num::Float(f) => Some(f),
        })
        .collect::<Option<_>>()?;
    match (name, vals.as_slice()) {
        ("sqrt", [x]) if *x >= 0.0 => Some(Const::Float(x.sqrt())),
        ("fabs", [x]) => Some(Const::Float(x.abs())),
        ("copysign", [x, y]) => Some(Const::Float(x.copysign(*y))),
        ("floor", [x]) => Some(Const::Float(x.floor())),
        ("ceil", [x]) => Some(Const::Float(x.ceil())),
        ("trunc", [x]) => Some(Const::Float(x.trunc())),
        ("isnan", [x]) => Some(Const::Bool(x.is_nan())),
        ("isinf", [x]) => Some(Const::Bool(x.is_infinite())),
        ("isfinite", [x]) => Some(Const::Bool(x.is_finite())),
        _ => None,
    }
}

/// Python's truthiness of a constant.
pub fn truthy(c: &Const) -> bool {
    match c {
        Const::Bool(b) => *b,
        Const::Int(i) => *i != 0,
        Const::Float(f) => *f != 0.0,
        Const::Tuple(t) => !t.is_empty(),
    }
}

/// How many values `range(start, stop, step)` yields (`step` non-zero).
pub fn trip_count(start: i128, stop: i128, step: i128) -> i128 {
    if step > 0 && start < stop {
        (stop - start + step - 1) / step
    } else if step < 0 && start > stop {
        (start - stop + (-step) - 1) / (-step)
    } else {
        0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fold2(op: BinOp, a: Const, b: Const) -> Option<Const> {
        let vals = [a, b];
        fold_op(&Op::Binary(op, Value(0), Value(1)), &|v| {
            vals.get(v.index()).cloned()
        })
    }

    #[test]
    fn integer_division_follows_python() {
        assert_eq!(
            fold2(BinOp::FloorDiv, Const::Int(-7), Const::Int(2)),
            Some(Const::Int(-4))
        );
        assert_eq!(
            fold2(BinOp::Mod, Const::Int(-7), Const::Int(2)),
            Some(Const::Int(1))
        );
        assert_eq!(
            fold2(BinOp::Mod, Const::Int(7), Const::Int(-2)),
            Some(Const::Int(-1))
        );
        // CPython raises ZeroDivisionError: left to run time.
        assert_eq!(fold2(BinOp::FloorDiv, Const::Int(1), Const::Int(0)), None);
        assert_eq!(
            fold2(BinOp::Div, Const::Float(1.0), Const::Float(0.0)),
            None
        );
    }

    #[test]
    fn bools_act_as_ints() {
        assert_eq!(
            fold2(BinOp::Add, Const::Bool(true), Const::Bool(true)),
            Some(Const::Int(2))
        );
    }

    #[test]
    fn truthiness_and_trip_counts_follow_python() {
        assert!(!truthy(&Const::Float(-0.0)));
        assert!(truthy(&Const::Float(f64::NAN)));
        assert!(!truthy(&Const::Tuple(vec![])));
        assert_eq!(trip_count(0, 10, 3), 4);
        assert_eq!(trip_count(10, 0, -3), 4);
        assert_eq!(trip_count(5, 5, 1), 0);
        assert_eq!(trip_count(0, 5, -1), 0);
    }

    #[test]
    fn big_ints_are_not_compared_through_floats() {
        let vals = [Const::Int((1 << 53) + 1), Const::Float(9007199254740992.0)];
        let op = Op::Compare(CmpOp::Gt, Value(0), Value(1));
        assert_eq!(fold_op(&op, &|v| vals.get(v.index()).cloned()), None);
    }
}
