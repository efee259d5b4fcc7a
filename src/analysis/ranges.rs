//! Int ranges: which int values may lie outside int64 (the wide ints codegen must not hand to
//! a plain operator), and the interval of every int and bool value where one is known (the
//! divisors, shift counts and indices codegen can prove harmless).

use crate::ir::eval::{int_floordiv, trip_count};
use crate::ir::{
    walk_insts, walk_steps, BinOp, Block, CastOp, CmpOp, Const, Function, Inst, Kind, Op, Shape,
    Step, UnOp, Value,
};

/// Which int values may lie outside int64: a Python int scalar beyond int64 (a literal in
/// [2**63, 2**64) or beyond, arithmetic on constants that did not fold), or an integer array
/// that may be uint64 at run time (in the exact body an int derived from a parameter of unknown
/// kind: `round(u)` of a uint64 array stays uint64; the uint64 lattice of the helpers). Codegen
/// prints a plain operator or `xp.where` on two ints only when neither is wide: NumPy promotes
/// int64 with uint64 to float64 (inexact) and turns a Python int beyond int64 into an error, and
/// strict backends refuse both (docs/semantics.md items 13 and 17).
///
/// Python int scalars get an interval (constants, loop indices, `+ - *`, `//` and `%` by
/// constants, ternaries, merges); arrays are int64 when every int they derive from is. An int64
/// array's operations wrap at 64 bits (docs/semantics.md item 6), so its interval is computed
/// from its operands' (an int64 array of unknown interval lies in int64's) and kept only where
/// it fits int64: `y % 4` is in [0, 3] whatever `y` holds, `y + 1` has no interval.
pub fn wide_ints(func: &Function) -> Vec<bool> {
    wide_ints_with(func, &[])
}

/// [`wide_ints`] of a function whose parameters `i` with `wide_params[i]` may be wide (the
/// arguments of an out-of-line helper's instance, D7).
pub fn wide_ints_with(func: &Function, wide_params: &[bool]) -> Vec<bool> {
    int_facts(func, wide_params).wide
}

/// What codegen reads of a function's ints (`int_facts`).
pub struct IntFacts {
    /// Per value, [`wide_ints_with`].
    pub wide: Vec<bool>,
    /// Per value, a Python int scalar known to lie within +-2**53, so that a float64 holds it
    /// exactly (a comparison with a float array may convert it).
    pub exact_in_float: Vec<bool>,
    /// Per value, the interval of an int or bool value that is not wide: a bool is 0 or 1, an
    /// int64 array of unknown interval lies in int64's; None for every other value.
    pub range: Vec<Range>,
}

/// [`IntFacts`] of `func`, its parameters wide as [`wide_ints_with`] takes them.
pub fn int_facts(func: &Function, wide_params: &[bool]) -> IntFacts {
    let st = WideState::solve(func, wide_params);
    let wide: Vec<bool> = (0..func.values.len())
        .map(|i| {
            let info = &func.values[i];
            match (info.kind, info.shape) {
                (Kind::Float | Kind::Bool, _) => false,
                (_, Shape::Scalar) => !st.range[i].is_some_and(fits_int64),
                (_, Shape::Array) => st.wide[i] || info.kind == Kind::Unknown,
            }
        })
        .collect();
    let limit = 1i128 << 53;
    let exact_in_float = st
        .range
        .iter()
        .enumerate()
        .map(|(i, r)| {
            func.values[i].shape == Shape::Scalar
                && r.is_some_and(|(lo, hi)| lo >= -limit && hi <= limit)
        })
        .collect();
    let range = (0..func.values.len())
        .map(|i| {
            (!wide[i])
                .then(|| st.operand_range(func, Value(i as u32)))
                .flatten()
        })
        .collect();
    IntFacts {
        wide,
        exact_in_float,
        range,
    }
}

/// The interval of every Python int (or bool) scalar that has one (the ranges `wide_ints`
/// reads); None for every other value.
pub fn int_ranges(func: &Function) -> Vec<Range> {
    WideState::solve(func, &[]).range
}

/// An int interval `(lo, hi)`, both included; None when unknown.
pub type Range = Option<(i128, i128)>;

fn fits_int64((lo, hi): (i128, i128)) -> bool {
    lo >= -(1i128 << 63) && hi < (1i128 << 63)
}

/// Every int64 value.
const INT64: (i128, i128) = (-(1i128 << 63), (1i128 << 63) - 1);

/// A value and an interval it lies in on some lanes (`WideState::range_given`).
type Fact = (Value, i128, i128);

/// How many nested selects a clamp's interval is followed through.
const CLAMP_DEPTH: u8 = 4;

/// The comparison that holds where `op` does not (ints: no NaN).
fn negated(op: CmpOp) -> CmpOp {
    match op {
        CmpOp::Lt => CmpOp::Ge,
        CmpOp::Le => CmpOp::Gt,
        CmpOp::Gt => CmpOp::Le,
        CmpOp::Ge => CmpOp::Lt,
        CmpOp::Eq => CmpOp::Ne,
        CmpOp::Ne => CmpOp::Eq,
    }
}

/// The value of an int or bool constant as a range; None for any other constant.
fn const_range(c: &Const) -> Range {
    match c {
        Const::Int(n) => Some((*n, *n)),
        Const::Bool(b) => Some((i128::from(*b), i128::from(*b))),
        _ => None,
    }
}

/// The range of a constant tuple's items, when they are all ints or bools.
fn items_range(items: &[Const]) -> Range {
    items.iter().map(const_range).reduce(hull).flatten()
}

/// The largest value with the bit length of `n` (`n >= 0`): `|` and `^` stay below it.
fn low_mask(n: i128) -> i128 {
    match 128 - n.max(0).leading_zeros() {
        0 => 0,
        bits if bits >= 127 => i128::MAX,
        bits => (1i128 << bits) - 1,
    }
}

fn hull(a: Range, b: Range) -> Range {
    let ((a0, a1), (b0, b1)) = (a?, b?);
    Some((a0.min(b0), a1.max(b1)))
}

struct WideState<'f> {
    range: Vec<Range>,
    /// Values whose range has been computed once: a loop phi's value from the body is not
    /// before the first round reaches it, and the phi starts from its initial value alone.
    computed: Vec<bool>,
    wide: Vec<bool>,
    /// The defining operation of each value defined by a `Let` (borrowed: cloning every
    /// operation of the function cost a tenth of this analysis).
    defs: Vec<Option<&'f Op>>,
    wide_params: Vec<bool>,
}

impl<'f> WideState<'f> {
    /// Ranges and wideness of every value, iterated to a fixpoint (widened after three rounds).
    fn solve(func: &'f Function, wide_params: &[bool]) -> Self {
        let mut st = WideState {
            range: vec![None; func.values.len()],
            computed: vec![false; func.values.len()],
            wide: vec![false; func.values.len()],
            defs: vec![None; func.values.len()],
            wide_params: wide_params.to_vec(),
        };
        let mut loops = false;
        walk_insts(&func.body, &mut |inst| match inst {
            Inst::Let { dst, op } => st.defs[dst.index()] = Some(op),
            Inst::Loop { .. } => loops = true,
            Inst::If { .. } => {}
        });
        for round in 0..8 {
            // Without loops every operand is solved before its first read (SSA in program
            // order; a merge after both its sides): one round is the fixpoint.
            if !loops {
                st.block(func, &func.body, false);
                break;
            }
            let (range, wide) = (st.range.clone(), st.wide.clone());
            st.block(func, &func.body, round >= 3);
            if range == st.range && wide == st.wide {
                break;
            }
        }
        st
    }

    fn block(&mut self, func: &Function, block: &Block, widen: bool) {
        walk_steps(block, &mut |at| match at {
            Step::Enter(Inst::Let { dst, op }) => {
                self.range[dst.index()] = self.op_range(func, *dst, op);
                self.computed[dst.index()] = true;
                self.wide[dst.index()] = self.op_wide(func, op);
            }
            Step::Enter(Inst::Loop {
                index,
                start,
                stop,
                step,
                items,
                phis,
                ..
            }) => {
                self.computed[index.index()] = true;
                self.range[index.index()] = match items {
                    Some(Const::Tuple(items)) => items_range(items),
                    Some(_) => None,
                    None => {
                        let trips = trip_count(*start, *stop, *step);
                        let last = start + (trips.max(1) - 1) * step;
                        Some(((*start).min(last), (*start).max(last)))
                    }
                };
                for p in phis {
                    // The first round: the phi holds its initial value (the body then widens
                    // it, to a fixpoint: `month = k + 1` over `range(1, 12)` from `month = 1`
                    // is in [1, 12]).
                    let next = if self.computed[p.next.index()] {
                        p.next
                    } else {
                        p.init
                    };
                    self.merge_into(func, p.dst, p.init, next, widen);
                }
            }
            Step::Leave(Inst::Loop { phis, .. }) => {
                for p in phis {
                    self.merge_into(func, p.dst, p.init, p.next, widen);
                }
            }
            Step::Leave(Inst::If { outs, .. }) => {
                for o in outs {
                    self.merge_into(func, o.dst, o.then, o.other, widen);
                }
            }
            _ => {}
        });
    }

    /// `dst` is `a` or `b`; with `widen`, a range that still grows is given up. `dst` is wide
    /// when either may be out of int64: a wide array, or a scalar without a safe range (a
    /// constant of 2**63 or more entering an array phi, fuzz campaign 36).
    fn merge_into(&mut self, func: &Function, dst: Value, a: Value, b: Value, widen: bool) {
        let joined = hull(self.range[a.index()], self.range[b.index()]);
        self.computed[dst.index()] = true;
        let old = self.range[dst.index()];
        self.range[dst.index()] = if widen && old.is_some() && old != joined {
            None
        } else {
            joined
        };
        let wide = self.value_wide(func, a) || self.value_wide(func, b);
        self.wide[dst.index()] |= wide;
    }

    /// An int value that may be out of int64: a wide array, a scalar without a safe range, or
    /// a value of unknown kind.
    fn value_wide(&self, func: &Function, v: Value) -> bool {
        match (func.info(v).kind, func.info(v).shape) {
            (Kind::Float | Kind::Bool, _) => false,
            (Kind::Unknown | Kind::Object, _) => true,
            (Kind::Int, Shape::Scalar) => !self.range[v.index()].is_some_and(fits_int64),
            (Kind::Int, Shape::Array) => self.wide[v.index()],
        }
    }

    /// The interval `v` is read with as an operand: its own; a bool's 0 or 1; an int array's
    /// int64 when it has none (an array that may hold uint64 lanes is wide, and an operation
    /// on a wide value gives a wide value, whose interval nothing reads).
    fn operand_range(&self, func: &Function, v: Value) -> Range {
        let own = self.range[v.index()];
        match (func.info(v).kind, func.info(v).shape) {
            (Kind::Bool, _) => own.or(Some((0, 1))),
            (Kind::Int, Shape::Array) => own.or(Some(INT64)),
            _ => own,
        }
    }

    /// The interval of `dst = op`: Python's on Python ints; on arrays the same, kept only where
    /// it fits int64 (an array wraps beyond: docs/semantics.md item 6).
    fn op_range(&self, func: &Function, dst: Value, op: &Op) -> Range {
        let range = self.exact_op_range(func, op);
        if func.info(dst).shape == Shape::Array {
            range.filter(|r| fits_int64(*r))
        } else {
            range
        }
    }

    fn exact_op_range(&self, func: &Function, op: &Op) -> Range {
        let r = |v: &Value| self.operand_range(func, *v);
        match op {
            Op::Const(c @ (Const::Int(_) | Const::Bool(_))) => const_range(c),
            Op::Unary(UnOp::Pos, a) | Op::Cast(CastOp::Int | CastOp::Round, a) => {
                if func.info(*a).kind == Kind::Float {
                    None
                } else {
                    r(a)
                }
            }
            Op::Unary(UnOp::Neg, a) => {
                let (lo, hi) = r(a)?;
                Some((-hi, -lo))
            }
            // `~x` is `-1 - x`.
            Op::Unary(UnOp::Invert, a) if func.info(*a).kind != Kind::Float => {
                let (lo, hi) = r(a)?;
                Some((-1 - hi, -1 - lo))
            }
            Op::Unary(UnOp::Abs, a) => {
                let (lo, hi) = r(a)?;
                let m = lo.abs().max(hi.abs());
                Some((
                    if lo <= 0 && hi >= 0 {
                        0
                    } else {
                        lo.abs().min(hi.abs())
                    },
                    m,
                ))
            }
            Op::Binary(b, x, y)
                if func.info(*x).kind != Kind::Float && func.info(*y).kind != Kind::Float =>
            {
                let ((x0, x1), (y0, y1)) = (r(x)?, r(y)?);
                let corners = |f: fn(i128, i128) -> Option<i128>| -> Range {
                    let c = [f(x0, y0)?, f(x0, y1)?, f(x1, y0)?, f(x1, y1)?];
                    Some((*c.iter().min()?, *c.iter().max()?))
                };
                match b {
                    BinOp::Add => Some((x0.checked_add(y0)?, x1.checked_add(y1)?)),
                    BinOp::Sub => Some((x0.checked_sub(y1)?, x1.checked_sub(y0)?)),
                    BinOp::Mul => corners(i128::checked_mul),
                    // By a divisor range without zero: floor division is monotone in each
                    // argument between the corners.
                    BinOp::FloorDiv if y0 > 0 || y1 < 0 => corners(int_floordiv),
                    BinOp::Mod if y0 > 0 => Some((0, y1 - 1)),
                    BinOp::Mod if y1 < 0 => Some((y0 + 1, 0)),
                    BinOp::BitAnd if x0 >= 0 && y0 >= 0 => Some((0, x1.min(y1))),
                    // `&` with a non-negative value (two's complement, any width) keeps only
                    // bits it has: `n & 0x3F` is in [0, 63] whatever `n` holds.
                    BinOp::BitAnd if y0 >= 0 => Some((0, y1)),
                    BinOp::BitAnd if x0 >= 0 => Some((0, x1)),
                    BinOp::BitOr | BinOp::BitXor if x0 >= 0 && y0 >= 0 => {
                        Some((0, low_mask(x1.max(y1))))
                    }
                    // Bit operations of two int64 values are int64 values.
                    _ if b.is_bitwise() && fits_int64((x0, x1)) && fits_int64((y0, y1)) => {
                        Some((-(1i128 << 63), (1i128 << 63) - 1))
                    }
                    BinOp::RShift if y0 >= 0 => Some((x0.min(0), x1.max(0))),
                    BinOp::LShift if y0 >= 0 && y1 < 64 => {
                        corners(|a, c| a.checked_mul(1i128 << c))
                    }
                    _ => None,
                }
            }
            // Each lane takes `a` where `c` holds and `b` where it does not: a clamp
            // (`min(max(i, 1), 8)`, `if i < 1: i = 1 elif i > 8: i = 8`) bounds its result.
            Op::Select(c, a, b) => hull(
                self.range_given(func, *a, *c, true, &[], CLAMP_DEPTH),
                self.range_given(func, *b, *c, false, &[], CLAMP_DEPTH),
            ),
            // A Python int lifted to a 0-d array, or a value broadcast: the same values.
            Op::AsArray(a) | Op::Broadcast(a) => r(a),
            Op::Index(t, _) => match self.defs[t.index()] {
                Some(Op::Const(c)) => c.readable().and_then(|items| items_range(&items)),
                _ => None,
            },
            _ => None,
        }
    }

    /// The interval of `v` on the lanes where `cond` is `holds` and every one of `facts`
    /// (`(value, lo, hi)`: the value lies in `[lo, hi]` there) is true; a select among those
    /// lanes is followed `depth` levels down, its branches under its own condition too.
    fn range_given(
        &self,
        func: &Function,
        v: Value,
        cond: Value,
        holds: bool,
        facts: &[Fact],
        depth: u8,
    ) -> Range {
        let mut facts = facts.to_vec();
        facts.extend(self.facts_of(func, cond, holds));
        let mut own = self.operand_range(func, v);
        if depth > 0 {
            if let Some(Op::Select(c, a, b)) = &self.defs[v.index()] {
                own = hull(
                    self.range_given(func, *a, *c, true, &facts, depth - 1),
                    self.range_given(func, *b, *c, false, &facts, depth - 1),
                );
            }
        }
        let (mut lo, mut hi) = own?;
        for &(f, flo, fhi) in &facts {
            if f == v {
                lo = lo.max(flo);
                hi = hi.min(fhi);
            }
        }
        // An empty interval: no lane takes `v` here; any interval is right, `v`'s own is.
        if lo > hi {
            return own;
        }
        Some((lo, hi))
    }

    /// What `cond` being `holds` says of the intervals of its operands, when it compares two
    /// ints (or bools) of known intervals, neither of them wide: `i < 8` bounds `i` by 7.
    fn facts_of(&self, func: &Function, cond: Value, holds: bool) -> Vec<Fact> {
        let Some(Op::Compare(op, x, y)) = &self.defs[cond.index()] else {
            return vec![];
        };
        let exact = |v: &Value| {
            matches!(func.info(*v).kind, Kind::Int | Kind::Bool) && !self.value_wide(func, *v)
        };
        if !exact(x) || !exact(y) {
            return vec![];
        }
        let (Some((x0, x1)), Some((y0, y1))) =
            (self.operand_range(func, *x), self.operand_range(func, *y))
        else {
            return vec![];
        };
        let op = if holds { *op } else { negated(*op) };
        let (lo, hi) = (i128::MIN, i128::MAX);
        match op {
            CmpOp::Lt => vec![
                (*x, lo, y1.saturating_sub(1)),
                (*y, x0.saturating_add(1), hi),
            ],
            CmpOp::Le => vec![(*x, lo, y1), (*y, x0, hi)],
            CmpOp::Gt => vec![
                (*x, y0.saturating_add(1), hi),
                (*y, lo, x1.saturating_sub(1)),
            ],
            CmpOp::Ge => vec![(*x, y0, hi), (*y, lo, x1)],
            CmpOp::Eq => vec![(*x, y0, y1), (*y, x0, x1)],
            CmpOp::Ne => vec![],
        }
    }

    fn op_wide(&self, func: &Function, op: &Op) -> bool {
        let w = |v: &Value| self.value_wide(func, *v);
        match op {
            Op::Param(i) => self.wide_params.get(*i).copied().unwrap_or(false),
            Op::Placeholder(_) | Op::Const(_) => false,
            // A helper's int result (D7) may be anything its instance computes.
            Op::Call { .. } => true,
            // math.floor/ceil/trunc of an int return it unchanged (codegen passes the argument).
            Op::Cast(CastOp::Int, a) => match self.defs[a.index()] {
                Some(Op::Math(m, args)) if matches!(m.name, "floor" | "ceil" | "trunc") => {
                    args.first().is_some_and(&w)
                }
                _ => w(a),
            },
            Op::Cast(CastOp::Round, a) | Op::AsArray(a) | Op::Broadcast(a) => w(a),
            // NumPy's floor/ceil/trunc/round keep an int as it is (D16): as wide as it was
            // (`np.floor(2**63)` is uint64; seed 160004 #1135).
            Op::Math(m, args) if m.keeps_ints.is_some() => args.iter().any(&w),
            Op::Unary(_, a) => w(a),
            Op::Binary(_, x, y) | Op::Select(_, x, y) => w(x) || w(y),
            // A table with an int of 2**63 or more gathers into a uint64 array.
            Op::Index(t, _) => match self.defs[t.index()] {
                Some(Op::Const(c)) => !c
                    .readable()
                    .and_then(|items| items_range(&items))
                    .is_some_and(fits_int64),
                _ => true,
            },
            _ => false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pipeline::testing::ir_after;

    #[test]
    fn only_ints_beyond_int64_are_wide() {
        let f = ir_after("def f(x):\n    return x * 2.0 + 2 ** 63 + 7\n", "lower");
        let wide = wide_ints(&f);
        let mut seen = vec![];
        walk_insts(&f.body, &mut |inst| {
            if let Inst::Let {
                dst,
                op: Op::Const(Const::Int(n)),
            } = inst
            {
                assert_eq!(wide[dst.index()], *n >= 1 << 63, "{n}");
                seen.push(*n);
            }
        });
        assert!(seen.contains(&(1 << 63)) && seen.contains(&7), "{seen:?}");
    }

    /// The intervals `int_facts` gives the values of the int body (int64 parameters) defined
    /// by a binary operation `op`, in program order.
    fn binary_ranges(src: &str, op: BinOp) -> Vec<Range> {
        let f = ir_after(src, "int broadcast");
        let facts = int_facts(&f, &[]);
        let mut out = vec![];
        walk_insts(&f.body, &mut |inst| {
            if let Inst::Let {
                dst,
                op: Op::Binary(b, _, _),
            } = inst
            {
                if *b == op {
                    out.push(facts.range[dst.index()]);
                }
            }
        });
        out
    }

    #[test]
    fn int64_arrays_have_intervals_only_where_they_fit_int64() {
        // `y % 4` whatever `y` holds; `+ 1` of it stays small; `y + 1` may wrap: no interval.
        let src = "def f(y):\n    a = y % 4 + 1\n    return a * (y + 1)\n";
        assert_eq!(binary_ranges(src, BinOp::Mod), vec![Some((0, 3))]);
        let adds = binary_ranges(src, BinOp::Add);
        assert!(adds.contains(&Some((1, 4))), "{adds:?}");
        assert!(adds.contains(&Some(INT64)), "{adds:?}");
        // `&` with a non-negative constant, whatever the other operand's sign.
        let ands = binary_ranges("def f(n):\n    return n & 0x3F\n", BinOp::BitAnd);
        assert_eq!(ands, vec![Some((0, 63))]);
    }

    #[test]
    fn a_clamp_bounds_the_selected_value() {
        // `i` an int64 array of any value; clamped to [1, 8] by an if/elif, then by min/max:
        // `i - 1` and `i + 2` index an 11-item table.
        let src = "def f(i):\n    if i < 1:\n        i = 1\n    elif i > 8:\n        i = 8\n    return i - 1\n";
        assert_eq!(binary_ranges(src, BinOp::Sub), vec![Some((0, 7))]);
        let src = "def f(i):\n    return min(max(i, 1), 8) + 2\n";
        assert_eq!(binary_ranges(src, BinOp::Add), vec![Some((3, 10))]);
        // A condition on another value says nothing of `i`: any int64 (`i - 1` wraps).
        let src = "def f(i, j):\n    if j < 1:\n        i = 1\n    return i - 1\n";
        assert_eq!(binary_ranges(src, BinOp::Sub), vec![Some(INT64)]);
    }

    #[test]
    fn a_loop_phi_starts_from_its_initial_value() {
        // `month` is 1, then some `k + 1` of `range(1, 12)`: [1, 12], so `month - 1` is an
        // index of a 12-item table.
        let src = "def f(n):\n    month = 1\n    for k in range(1, 12):\n        if n >= 30 * k:\n            month = k + 1\n    return month - 1\n";
        let subs = binary_ranges(src, BinOp::Sub);
        assert_eq!(subs, vec![Some((0, 11))]);
        // A value that grows every iteration has no interval (widened).
        let src = "def f(n):\n    s = n % 4\n    for k in range(100):\n        s = s + k\n    return s * 2\n";
        assert_eq!(binary_ranges(src, BinOp::Mul), vec![Some(INT64)]);
    }
}
