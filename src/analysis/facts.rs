//! Path facts: whether a condition (the conjunction of the comparisons that guard a point of the
//! function) can hold on no lane, because its comparisons of values with constants contradict
//! one another. Lowering asks it where a recursive function calls itself (D19): a call no lane
//! reaches needs neither another inlined level nor a scalar residue, so `normcdf(x)` returning
//! `1 - normcdf(-x)` for `x < 0` is one level deep (`x < 0` and `-x < 0` cannot both hold).
//!
//! Each comparison of a term with a constant is a set of numbers the term holds on the lanes
//! where the condition is true (`x < 0`: `[-inf, 0)`, no NaN; `not x < 0`: `[0, inf]` or NaN). A
//! term is a value the condition compares, or one computed from such values by operations whose
//! result set follows from their operands' sets: `-t`, `abs(t)`, `t + c`, `t - c`, `c - t`,
//! `t * c`, `t / c` and `c / t` for a constant `c`. Those are monotone on the sets they are
//! applied to, and rounding to nearest is monotone, so the same operation applied to a set's
//! bounds bounds its results (closed, except for the exact `-t`). Ints are taken as the numbers
//! they are: a lane whose int leaves int64 on the way is outside what the vectorized code
//! promises anyway (docs/semantics.md items 6 and 13), and the bounds of `+ - *`, computed in
//! float64, are widened by an ulp for them. A condition is never true when some value's set is
//! empty, or some term's set misses what the comparison on it requires.

use crate::ir::{BinOp, CmpOp, Const, LogicOp, Op, UnOp, Value};
use crate::Map;

/// Whether `cond` holds on no lane, as far as its comparisons with constants tell; `def` gives
/// the operation defining a value (None for a parameter of the analysis: a phi, a loop index).
pub fn never_true<'a>(def: &impl Fn(Value) -> Option<&'a Op>, cond: Value) -> bool {
    let mut atoms = vec![];
    if !collect(def, cond, true, &mut atoms, 0) {
        return true;
    }
    // The set of each value the condition compares directly.
    let mut direct: Map<Value, Set> = Map::default();
    for (term, set) in &atoms {
        let s = direct.entry(*term).or_insert(Set::ANY);
        *s = s.meet(*set);
        if s.is_empty() {
            return true;
        }
    }
    atoms
        .iter()
        .any(|(term, required)| derived(def, &direct, *term, 0).meet(*required).is_empty())
}

/// Most operations followed through one term or condition.
const MAX_DEPTH: usize = 32;

/// A set of numbers: an interval of the extended reals (bounds open or closed) and whether NaN
/// is in it.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Set {
    lo: f64,
    lo_open: bool,
    hi: f64,
    hi_open: bool,
    nan: bool,
}

impl Set {
    const ANY: Set = Set {
        lo: f64::NEG_INFINITY,
        lo_open: false,
        hi: f64::INFINITY,
        hi_open: false,
        nan: true,
    };

    fn interval(lo: f64, lo_open: bool, hi: f64, hi_open: bool, nan: bool) -> Set {
        Set {
            lo,
            lo_open,
            hi,
            hi_open,
            nan,
        }
    }

    fn no_interval(&self) -> bool {
        self.lo > self.hi || (self.lo == self.hi && (self.lo_open || self.hi_open))
    }

    fn is_empty(&self) -> bool {
        !self.nan && self.no_interval()
    }

    fn meet(self, o: Set) -> Set {
        let (lo, lo_open) = if self.lo > o.lo || (self.lo == o.lo && self.lo_open) {
            (self.lo, self.lo_open)
        } else {
            (o.lo, o.lo_open)
        };
        let (hi, hi_open) = if self.hi < o.hi || (self.hi == o.hi && self.hi_open) {
            (self.hi, self.hi_open)
        } else {
            (o.hi, o.hi_open)
        };
        Set::interval(lo, lo_open, hi, hi_open, self.nan && o.nan)
    }

    fn neg(self) -> Set {
        Set::interval(-self.hi, self.hi_open, -self.lo, self.lo_open, self.nan)
    }

    /// The set of `f(v)` for `v` in the set, `f` monotone (`increasing`) on it: closed bounds.
    fn map(self, increasing: bool, f: impl Fn(f64) -> f64) -> Set {
        if self.no_interval() {
            return self;
        }
        let (a, b) = (f(self.lo), f(self.hi));
        let (lo, hi) = if increasing { (a, b) } else { (b, a) };
        if lo.is_nan() || hi.is_nan() {
            return Set::ANY;
        }
        Set::interval(lo, false, hi, false, self.nan)
    }

    /// One ulp wider on each side (bounds of int arithmetic computed in float64).
    fn widened(self) -> Set {
        Set::interval(
            self.lo.next_down(),
            false,
            self.hi.next_up(),
            false,
            self.nan,
        )
    }

    fn abs(self) -> Set {
        if self.no_interval() {
            return self;
        }
        if self.lo >= 0.0 {
            return self;
        }
        if self.hi <= 0.0 {
            return self.neg();
        }
        let hi = (-self.lo).max(self.hi);
        Set::interval(0.0, false, hi, false, self.nan)
    }
}

/// The atoms of `cond` true on every lane where it holds, as (term, set of the term), into
/// `out`; false when `cond` is the constant `False` (no lane).
fn collect<'a>(
    def: &impl Fn(Value) -> Option<&'a Op>,
    cond: Value,
    positive: bool,
    out: &mut Vec<(Value, Set)>,
    depth: usize,
) -> bool {
    if depth > MAX_DEPTH {
        return true;
    }
    match def(cond) {
        Some(Op::Const(Const::Bool(b))) => *b == positive,
        Some(Op::Logic(LogicOp::And, a, b)) if positive => {
            collect(def, *a, true, out, depth + 1) && collect(def, *b, true, out, depth + 1)
        }
        Some(Op::Logic(LogicOp::Or, a, b)) if !positive => {
            collect(def, *a, false, out, depth + 1) && collect(def, *b, false, out, depth + 1)
        }
        Some(Op::Unary(UnOp::Not, a)) => collect(def, *a, !positive, out, depth + 1),
        Some(Op::AsArray(a) | Op::Broadcast(a)) => collect(def, *a, positive, out, depth + 1),
        Some(Op::Compare(op, a, b)) => {
            let (term, op, c) = match (number(def, *a), number(def, *b)) {
                (None, Some(c)) => (*a, *op, c),
                (Some(c), None) => (*b, flip(*op), c),
                _ => return true,
            };
            match compared(op, c, positive) {
                Some(s) if s.is_empty() => false,
                Some(s) => {
                    out.push((term, s));
                    true
                }
                None => true,
            }
        }
        _ => true,
    }
}

/// `c op x` as `x op' c`.
fn flip(op: CmpOp) -> CmpOp {
    match op {
        CmpOp::Lt => CmpOp::Gt,
        CmpOp::Le => CmpOp::Ge,
        CmpOp::Gt => CmpOp::Lt,
        CmpOp::Ge => CmpOp::Le,
        o => o,
    }
}

/// A constant operand as a float64 interval that holds it (an int beyond 2**53 between the two
/// floats around it).
fn number<'a>(def: &impl Fn(Value) -> Option<&'a Op>, v: Value) -> Option<(f64, f64)> {
    match def(v)? {
        Op::Const(Const::Bool(b)) => Some((f64::from(u8::from(*b)), f64::from(u8::from(*b)))),
        Op::Const(Const::Float(f)) => Some((*f, *f)),
        Op::Const(Const::Int(i)) => {
            let f = *i as f64;
            if f as i128 == *i {
                Some((f, f))
            } else if (f as i128) < *i {
                Some((f, f.next_up()))
            } else {
                Some((f.next_down(), f))
            }
        }
        Op::AsArray(a) | Op::Broadcast(a) => number(def, *a),
        _ => None,
    }
}

/// The set of `x` where `x op c` is `positive` (None: not one interval, as `!=`).
fn compared(op: CmpOp, (clo, chi): (f64, f64), positive: bool) -> Option<Set> {
    let inf = f64::INFINITY;
    if clo.is_nan() {
        // Every comparison with NaN is false, but `!=`.
        return match (op, positive) {
            (CmpOp::Ne, _) => None,
            (_, true) => Some(Set::interval(1.0, false, 0.0, false, false)),
            (_, false) => None,
        };
    }
    let exact = clo == chi;
    Some(match (op, positive) {
        (CmpOp::Lt, true) => Set::interval(-inf, false, chi, exact, false),
        (CmpOp::Le, true) => Set::interval(-inf, false, chi, false, false),
        (CmpOp::Gt, true) => Set::interval(clo, exact, inf, false, false),
        (CmpOp::Ge, true) => Set::interval(clo, false, inf, false, false),
        (CmpOp::Eq, true) | (CmpOp::Ne, false) => Set::interval(clo, false, chi, false, false),
        (CmpOp::Lt, false) => Set::interval(clo, false, inf, false, true),
        (CmpOp::Le, false) => Set::interval(clo, exact, inf, false, true),
        (CmpOp::Gt, false) => Set::interval(-inf, false, chi, false, true),
        (CmpOp::Ge, false) => Set::interval(-inf, false, chi, exact, true),
        (CmpOp::Eq, false) | (CmpOp::Ne, true) => return None,
    })
}

/// The set `term` holds where the condition is true, from the sets of the values compared
/// directly (`direct`): every number and NaN where nothing follows.
fn derived<'a>(
    def: &impl Fn(Value) -> Option<&'a Op>,
    direct: &Map<Value, Set>,
    term: Value,
    depth: usize,
) -> Set {
    let own = direct.get(&term).copied().unwrap_or(Set::ANY);
    if depth > MAX_DEPTH {
        return own;
    }
    let operand = |a: &Value| derived(def, direct, *a, depth + 1);
    let computed = match def(term) {
        Some(Op::Unary(UnOp::Neg, a)) => Some(operand(a).neg()),
        Some(Op::Unary(UnOp::Pos, a) | Op::AsArray(a) | Op::Broadcast(a)) => Some(operand(a)),
        Some(Op::Unary(UnOp::Abs, a)) => Some(operand(a).abs()),
        Some(Op::Binary(op, a, b)) => match (number(def, *a), number(def, *b)) {
            (None, Some((lo, hi))) if lo == hi && lo.is_finite() => {
                with_constant_right(*op, operand(a), lo)
            }
            (Some((lo, hi)), None) if lo == hi && lo.is_finite() => {
                with_constant_left(*op, lo, operand(b))
            }
            _ => None,
        },
        _ => None,
    };
    computed.map_or(own, |s| own.meet(s))
}

/// The set of `t op c` for `t` in `s`.
fn with_constant_right(op: BinOp, s: Set, c: f64) -> Option<Set> {
    Some(match op {
        BinOp::Add => s.map(true, |v| v + c).widened(),
        BinOp::Sub => s.map(true, |v| v - c).widened(),
        BinOp::Mul if c != 0.0 => s.map(c > 0.0, |v| v * c).widened(),
        BinOp::Div if c != 0.0 => s.map(c > 0.0, |v| v / c),
        _ => return None,
    })
}

/// The set of `c op t` for `t` in `s`.
fn with_constant_left(op: BinOp, c: f64, s: Set) -> Option<Set> {
    Some(match op {
        BinOp::Add => s.map(true, |v| c + v).widened(),
        BinOp::Sub => s.map(false, |v| c - v).widened(),
        BinOp::Mul if c != 0.0 => s.map(c > 0.0, |v| c * v).widened(),
        // `c / t` is monotone on a set of one sign without zero (a zero's sign picks the
        // infinity, D3).
        BinOp::Div if c != 0.0 && positive_or_negative(&s) => s.map(c < 0.0, |v| c / v),
        _ => return None,
    })
}

fn positive_or_negative(s: &Set) -> bool {
    (s.lo > 0.0 || (s.lo == 0.0 && s.lo_open)) || (s.hi < 0.0 || (s.hi == 0.0 && s.hi_open))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `never_true` of the conjunction of `atoms` over values `%0` (and `%1`) defined by `ops`.
    fn never(ops: Vec<Op>) -> bool {
        let cond = Value((ops.len() - 1) as u32);
        let def = |v: Value| ops.get(v.index());
        never_true(&def, cond)
    }

    fn c(f: f64) -> Op {
        Op::Const(Const::Float(f))
    }

    #[test]
    fn a_negated_argument_contradicts_the_sign_test() {
        // %0 = x; %1 = 0.0; %2 = x < 0; %3 = -x; %4 = -x < 0; %5 = %2 and %4
        let ops = vec![
            Op::Param(0),
            c(0.0),
            Op::Compare(CmpOp::Lt, Value(0), Value(1)),
            Op::Unary(UnOp::Neg, Value(0)),
            Op::Compare(CmpOp::Lt, Value(3), Value(1)),
            Op::Logic(LogicOp::And, Value(2), Value(4)),
        ];
        assert!(never(ops));
    }

    #[test]
    fn a_step_toward_the_base_case_is_no_contradiction() {
        // x > 2 and x - 1 > 2 holds for x = 4.
        let ops = vec![
            Op::Param(0),
            c(2.0),
            Op::Compare(CmpOp::Gt, Value(0), Value(1)),
            c(1.0),
            Op::Binary(BinOp::Sub, Value(0), Value(3)),
            Op::Compare(CmpOp::Gt, Value(4), Value(1)),
            Op::Logic(LogicOp::And, Value(2), Value(5)),
        ];
        assert!(!never(ops));
    }

    #[test]
    fn a_reciprocal_above_one_contradicts_its_argument_above_one() {
        // x > 1 and 1 / x > 1: no float x.
        let ops = vec![
            Op::Param(0),
            c(1.0),
            Op::Compare(CmpOp::Gt, Value(0), Value(1)),
            Op::Binary(BinOp::Div, Value(1), Value(0)),
            Op::Compare(CmpOp::Gt, Value(3), Value(1)),
            Op::Logic(LogicOp::And, Value(2), Value(4)),
        ];
        assert!(never(ops));
    }

    #[test]
    fn a_negated_test_admits_nan() {
        // not (x < 0) and not (-x < 0): x = 0 or NaN.
        let ops = vec![
            Op::Param(0),
            c(0.0),
            Op::Compare(CmpOp::Lt, Value(0), Value(1)),
            Op::Unary(UnOp::Not, Value(2)),
            Op::Unary(UnOp::Neg, Value(0)),
            Op::Compare(CmpOp::Lt, Value(4), Value(1)),
            Op::Unary(UnOp::Not, Value(5)),
            Op::Logic(LogicOp::And, Value(3), Value(6)),
        ];
        assert!(!never(ops));
    }

    #[test]
    fn an_absolute_value_is_never_negative() {
        let ops = vec![
            Op::Param(0),
            Op::Unary(UnOp::Abs, Value(0)),
            c(0.0),
            Op::Compare(CmpOp::Lt, Value(1), Value(2)),
        ];
        assert!(never(ops));
    }

    #[test]
    fn an_int_bound_beyond_two_to_the_53_stays_sound() {
        // n < 2**53 + 1 and n > 2**53 - 1: n = 2**53 holds.
        let big = 1i128 << 53;
        let ops = vec![
            Op::Param(0),
            Op::Const(Const::Int(big + 1)),
            Op::Compare(CmpOp::Lt, Value(0), Value(1)),
            Op::Const(Const::Int(big - 1)),
            Op::Compare(CmpOp::Gt, Value(0), Value(3)),
            Op::Logic(LogicOp::And, Value(2), Value(4)),
        ];
        assert!(!never(ops));
    }

    #[test]
    fn the_constant_false_holds_nowhere() {
        assert!(never(vec![Op::Const(Const::Bool(false))]));
        assert!(!never(vec![Op::Const(Const::Bool(true))]));
    }
}
