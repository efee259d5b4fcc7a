//! Constant evaluation with CPython's semantics: the one place that computes what an operation
//! gives on known values. The folder, lowering's on-the-fly folding and the analyses all use it.
//!
//! Only what Rust computes bit-for-bit like CPython is evaluated: integer arithmetic that does
//! not overflow i128, IEEE `+ - * /` and CPython's `//` and `%` on floats (never a division by
//! zero: CPython raises there), exact int/float comparisons, correctly rounded `sqrt`.
//! Transcendentals are left to run time, since libm results may differ by an ulp.

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
        Const::Tuple(_) | Const::List(_) | Const::Dict(_) => None,
    }
}

/// CPython's `a == b` on numbers, exactly across bool, int and float (None for containers).
pub fn num_eq(a: &Const, b: &Const) -> Option<bool> {
    let int_eq_float = |i: i128, f: f64| {
        // Every float of magnitude below 2**127 with no fraction is an i128 exactly.
        f.fract() == 0.0 && f.abs() < 2f64.powi(127) && f as i128 == i
    };
    Some(match (num(a)?, num(b)?) {
        (Num::Int(x), Num::Int(y)) => x == y,
        (Num::Float(x), Num::Float(y)) => x == y,
        (Num::Int(x), Num::Float(y)) | (Num::Float(y), Num::Int(x)) => int_eq_float(x, y),
    })
}

/// The dict CPython builds from `pairs` in order: a key equal to an earlier one (`1`, `1.0`,
/// `True`) keeps the earlier key and takes the later value. None when a key is not a number.
pub fn dict_of(pairs: Vec<(Const, Const)>) -> Option<Const> {
    let mut entries: Vec<(Const, Const)> = vec![];
    for (k, v) in pairs {
        num(&k)?;
        match entries
            .iter_mut()
            .find(|(e, _)| num_eq(e, &k) == Some(true))
        {
            Some(entry) => entry.1 = v,
            None => entries.push((k, v)),
        }
    }
    Some(Const::Dict(entries))
}

/// `table[key]` for a constant dict: the value of the key equal to `key`, None when missing.
pub fn dict_get(entries: &[(Const, Const)], key: &Const) -> Option<Const> {
    entries
        .iter()
        .find(|(k, _)| num_eq(k, key) == Some(true))
        .map(|(_, v)| v.clone())
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
                (UnOp::Invert, Num::Int(i)) => Some(Const::Int(!i)),
                (UnOp::Invert, Num::Float(_)) => None,
            }
        }
        Op::Binary(b, x, y) => {
            let (x, y) = (konst(*x)?, konst(*y)?);
            if let (Const::Bool(p), Const::Bool(q), true) = (&x, &y, b.is_bitwise()) {
                return Some(Const::Bool(match b {
                    BinOp::BitAnd => p & q,
                    BinOp::BitOr => p | q,
                    _ => p ^ q,
                }));
            }
            fold_binary(*b, num(&x)?, num(&y)?)
        }
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
                (CastOp::Int | CastOp::Round | CastOp::Index, Num::Int(i)) => Some(Const::Int(i)),
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
            (Const::Dict(entries), key) => dict_get(&entries, &key),
            (Const::Tuple(items) | Const::List(items), Const::Int(i)) => {
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
            BinOp::BitAnd => Some(Const::Int(a & c)),
            BinOp::BitOr => Some(Const::Int(a | c)),
            BinOp::BitXor => Some(Const::Int(a ^ c)),
            // A negative count is CPython's ValueError: left to run time.
            BinOp::LShift if (0..127).contains(&c) => a.checked_mul(1i128 << c).map(Const::Int),
            BinOp::RShift if c >= 0 => Some(Const::Int(a >> c.min(127))),
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
                BinOp::FloorDiv if c != 0.0 => Some(Const::Float(float_divmod(a, c).0)),
                BinOp::Mod if c != 0.0 => Some(Const::Float(float_divmod(a, c).1)),
                _ => None,
            }
        }
    }
}

/// CPython's `(a // b, a % b)` on floats (`b` non-zero), step by step as `float_divmod` in
/// Objects/floatobject.c computes it: `fmod` (Rust's `%`), a division and `floor` are exact
/// IEEE operations, so the fold is bit-for-bit CPython's, signed zeros, inf and nan included
/// (fuzz seed 690005 #1216: `1.0 // 1 < 0` was left to run time, so a conditional on it
/// merged its int and float sides, item 8).
fn float_divmod(a: f64, b: f64) -> (f64, f64) {
    let mut m = a % b;
    let mut div = (a - m) / b;
    if m != 0.0 {
        if (b < 0.0) != (m < 0.0) {
            m += b;
            div -= 1.0;
        }
    } else {
        m = 0f64.copysign(b);
    }
    let floordiv = if div != 0.0 {
        let f = div.floor();
        if div - f > 0.5 {
            f + 1.0
        } else {
            f
        }
    } else {
        0f64.copysign(a / b)
    };
    (floordiv, m)
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
        Const::Tuple(t) | Const::List(t) => !t.is_empty(),
        Const::Dict(d) => !d.is_empty(),
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
    fn float_division_and_modulo_follow_python() {
        let f = |op, a: f64, b: f64| match fold2(op, Const::Float(a), Const::Float(b)) {
            Some(Const::Float(x)) => x,
            other => panic!("{other:?}"),
        };
        let inf = f64::INFINITY;
        // (a, b, CPython's a // b, CPython's a % b)
        let cases = [
            (1.0, 1.0, 1.0, 0.0),
            (-7.5, 2.0, -4.0, 0.5),
            (7.5, -2.0, -4.0, -0.5),
            (-0.0, 3.0, -0.0, 0.0),
            (0.0, -3.0, -0.0, -0.0),
            (1.0, 0.1, 9.0, 0.09999999999999995),
            (-1e-300, 1e300, -1.0, 1e300),
            (5.0, inf, 0.0, 5.0),
            (-5.0, inf, -1.0, inf),
        ];
        for (a, b, q, r) in cases {
            let (fq, fr) = (f(BinOp::FloorDiv, a, b), f(BinOp::Mod, a, b));
            assert!(
                fq == q && fq.is_sign_negative() == q.is_sign_negative(),
                "{a} // {b}: {fq}"
            );
            assert!(
                fr == r && fr.is_sign_negative() == r.is_sign_negative(),
                "{a} % {b}: {fr}"
            );
        }
        assert!(f(BinOp::FloorDiv, inf, 2.0).is_nan() && f(BinOp::Mod, inf, 2.0).is_nan());
        assert!(f(BinOp::FloorDiv, f64::NAN, 2.0).is_nan());
        // An int operand converts exactly; CPython raises ZeroDivisionError: left to run time.
        assert_eq!(
            fold2(BinOp::FloorDiv, Const::Float(1.0), Const::Int(1)),
            Some(Const::Float(1.0))
        );
        assert_eq!(
            fold2(BinOp::FloorDiv, Const::Float(1.0), Const::Float(-0.0)),
            None
        );
        assert_eq!(fold2(BinOp::Mod, Const::Int(1), Const::Float(0.0)), None);
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
