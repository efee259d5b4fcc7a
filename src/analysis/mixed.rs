//! The parameter kinds of the mixed body (issue 30): a body of its own, in the exact body's
//! function, for calls that pass some parameters as int64 and the others as float64 (a calendar
//! function of int dates and a float hour). Only which signature gets a body is guessed here: the
//! body is compiled for these kinds as the float and int bodies are for theirs, and its prologue
//! (`_vec_mixed_args`) takes only calls of exactly these kinds; any other call runs the exact
//! body as before.

use crate::ir::{
    walk_insts, walk_insts_rev, BinOp, Const, Function, Inst, Kind, Op, ParamMode, Value,
};
use crate::Map;

/// The mixed body's parameter kinds, read from `int` (the IR optimized with int parameters): a
/// declared number parameter that the code meets with a float constant (`hour - 12.0`,
/// `hour / 24.0`, `frac < 0.5`) is a float, every other parameter an int, as in the int body.
/// None unless some parameter is a float and another is used as only an int is (an operand of
/// `//`, `%`, a bitwise operator or a shift, or a table index, itself or through `+ - *` and
/// selects: `year // 100`, `(days + 29) // 30`), so that float
/// functions, whose parameters are all floats in practice, get no body they never run. A
/// parameter that may be `None` (D14) stays an int.
pub fn mixed_kinds(int: &Function) -> Option<Vec<Kind>> {
    let mut params: Map<Value, usize> = Map::default();
    let mut float_consts: Map<Value, ()> = Map::default();
    walk_insts(&int.body, &mut |inst| match inst {
        Inst::Let {
            dst,
            op: Op::Param(i),
        } => {
            params.insert(*dst, *i);
        }
        Inst::Let {
            dst,
            op: Op::Const(Const::Float(_)),
        } => {
            float_consts.insert(*dst, ());
        }
        _ => {}
    });
    let number = |i: usize| i < int.declared_params && int.mode(i) == ParamMode::Number;
    let mut floats = vec![false; int.params.len()];
    // Values used as only ints are, and what `+ - *` and selects make them of (`(day + 29) //
    // 30`, `year` merged with `year - 1`): uses come after definitions, so one walk backwards.
    let mut int_used: Map<Value, ()> = Map::default();
    walk_insts_rev(&int.body, &mut |inst| {
        let Inst::Let { dst, op } = inst else {
            return;
        };
        let operands = match op {
            Op::Binary(
                BinOp::FloorDiv
                | BinOp::Mod
                | BinOp::BitAnd
                | BinOp::BitOr
                | BinOp::BitXor
                | BinOp::LShift
                | BinOp::RShift,
                a,
                b,
            ) => vec![*a, *b],
            Op::Index(_, i) => vec![*i],
            Op::Binary(BinOp::Add | BinOp::Sub | BinOp::Mul, a, b) | Op::Select(_, a, b)
                if int_used.contains_key(dst) =>
            {
                vec![*a, *b]
            }
            _ => vec![],
        };
        for v in operands {
            int_used.insert(v, ());
        }
    });
    let mut ints = vec![false; int.params.len()];
    for (v, &i) in &params {
        ints[i] |= int_used.contains_key(v);
    }
    walk_insts(&int.body, &mut |inst| {
        let Inst::Let { op, .. } = inst else {
            return;
        };
        let (a, b) = match op {
            Op::Binary(BinOp::Add | BinOp::Sub | BinOp::Mul | BinOp::Div, a, b)
            | Op::Compare(_, a, b) => (*a, *b),
            _ => return,
        };
        for (p, c) in [(a, b), (b, a)] {
            if let (Some(&i), true) = (params.get(&p), float_consts.contains_key(&c)) {
                if number(i) {
                    floats[i] = true;
                }
            }
        }
    });
    let declared = (0..int.declared_params).filter(|&i| number(i));
    if !declared.clone().any(|i| floats[i]) || !declared.clone().any(|i| ints[i] && !floats[i]) {
        return None;
    }
    Some(
        floats
            .iter()
            .map(|&f| if f { Kind::Float } else { Kind::Int })
            .collect(),
    )
}

#[cfg(test)]
mod tests {
    use super::mixed_kinds;
    use crate::ir::Kind::{Float as F, Int as I};
    use crate::pipeline::testing::compiled;

    fn kinds(src: &str) -> Option<Vec<crate::ir::Kind>> {
        mixed_kinds(&compiled(src).int_ir)
    }

    #[test]
    fn a_parameter_met_with_a_float_constant_is_a_float_the_others_ints() {
        assert_eq!(
            kinds("def f(day, hour):\n    return day // 7 + (hour - 12.0) / 24.0\n"),
            Some(vec![I, F])
        );
        // A parameter of no telling use is an int, as in the int body.
        assert_eq!(
            kinds("def f(year, day, hour):\n    return year // 4 + day + hour * 0.5\n"),
            Some(vec![I, I, F])
        );
        assert_eq!(
            kinds("def f(days, balance):\n    return balance * 0.015 * ((days + 29) // 30)\n"),
            Some(vec![I, F])
        );
        assert_eq!(
            kinds("def f(year, frac):\n    return year % 4 == 0 and frac < 0.5\n"),
            Some(vec![I, F])
        );
    }

    #[test]
    fn no_mixed_body_without_an_int_parameter_and_a_float_one() {
        assert_eq!(kinds("def f(x, y):\n    return x * 2.0 + y / 3.0\n"), None);
        assert_eq!(kinds("def f(y, m):\n    return y % 4 + m // 2\n"), None);
        // A float function: no parameter is used as only an int is.
        assert_eq!(
            kinds("def f(s, k, t):\n    if t <= 0.0:\n        return max(s - k, 0.0)\n    return 2 * s - k\n"),
            None
        );
    }
}
