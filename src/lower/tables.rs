//! Constant tables indexed per lane (D15): `RATES[bracket]` where `bracket` is an int array
//! becomes a gather (`_vec_take`), with Python's negative indices and a call-time IndexError
//! for an index outside the table on a lane the scalar function reaches.

use rustpython_parser::ast;

use super::{Frame, Lowerer, R};
use crate::diagnostics::DiagnosticKind;
use crate::ir::{CmpOp, Const, Kind, Op, Value};

/// Largest int an int64 array holds.
const INT64_MAX: i128 = i64::MAX as i128;

impl Lowerer<'_> {
    /// `table[i]` for a constant tuple `table` and an array `i`.
    pub(super) fn gather(&mut self, frame: &Frame, t: Value, i: Value, e: &ast::Expr) -> R<Value> {
        let Some(Const::Tuple(items)) = self.const_of(t) else {
            return Err(());
        };
        if let Some(why) = table_problem(&items) {
            self.error_at(frame, DiagnosticKind::UnsupportedExpression, why, e);
            return Err(());
        }
        if self.kind(i) == Kind::Float {
            self.error_at(
                frame,
                DiagnosticKind::UnsupportedExpression,
                "a tuple index must be an integer (CPython raises TypeError for a float); \
                 convert it with int(...)"
                    .into(),
                e,
            );
            return Err(());
        }
        // D1: a lane that does not run this code reads item 0, so its index cannot raise.
        let i = match self.live_lanes(frame) {
            Some(live) => {
                let zero = self.konst(Const::Int(0));
                self.emit(Op::Select(live, i, zero))
            }
            None => i,
        };
        Ok(self.emit(Op::Index(t, i)))
    }
}

impl Lowerer<'_> {
    /// `x in TABLE` for a constant tuple (a literal or a frozen name): `x == c1 or x == c2 ...`
    /// as bools, which is CPython's membership for numbers (equality across int, float and
    /// bool; a NaN element is never equal, and an element is never identical to a constant).
    /// Returns the membership and the tuple (the next left operand of a chain).
    pub(super) fn membership(
        &mut self,
        frame: &mut Frame,
        x: Value,
        right: &ast::Expr,
    ) -> R<(Value, Value)> {
        let t = match right {
            ast::Expr::Tuple(tt) => self.literal_table(frame, tt, right)?,
            other => self.expr(frame, other),
        };
        let Some(Const::Tuple(items)) = self.const_of(t) else {
            if !self.poisoned.contains(&t) {
                self.error_at(
                    frame,
                    DiagnosticKind::UnsupportedOperator,
                    "`in` needs a constant tuple of numbers on the right (a literal, or a module \
                     global or closure bound to one)"
                        .into(),
                    right,
                );
            }
            return Err(());
        };
        if items.iter().any(|c| matches!(c, Const::Tuple(_))) {
            self.error_at(
                frame,
                DiagnosticKind::UnsupportedOperator,
                "`in` is supported on tuples of numbers only".into(),
                right,
            );
            return Err(());
        }
        let mut acc = self.konst(Const::Bool(false));
        for c in items {
            let c = self.konst(c);
            let eq = self.emit(Op::Compare(CmpOp::Eq, x, c));
            acc = self.bool_op(false, acc, eq);
        }
        Ok((acc, t))
    }

    /// A tuple literal indexed (`(10, 20, 30)[k]`): its items must be constants.
    pub(super) fn literal_table(
        &mut self,
        frame: &mut Frame,
        t: &ast::ExprTuple,
        e: &ast::Expr,
    ) -> R<Value> {
        let mut items = vec![];
        for elt in &t.elts {
            let v = self.expr(frame, elt);
            match self.const_of(v) {
                Some(c) => items.push(c),
                None => {
                    self.error_at(
                        frame,
                        DiagnosticKind::UnsupportedExpression,
                        "a tuple literal indexed must hold constants; bind the table to a \
                         module-level tuple of numbers"
                            .into(),
                        e,
                    );
                    return Err(());
                }
            }
        }
        Ok(self.konst(Const::Tuple(items)))
    }
}

/// Why a tuple cannot be a per-lane table: empty, not all numbers, or ints that no one 64-bit
/// integer array holds.
fn table_problem(items: &[Const]) -> Option<String> {
    if items.is_empty() {
        return Some("indexing an empty tuple always raises IndexError".into());
    }
    let mut ints = vec![];
    for c in items {
        match c {
            Const::Int(n) => ints.push(*n),
            Const::Bool(_) | Const::Float(_) => {}
            Const::Tuple(_) => {
                return Some(
                    "a table indexed per element must hold numbers, not tuples; index each \
                     column with its own tuple"
                        .into(),
                )
            }
        }
    }
    let has_float = items.iter().any(|c| matches!(c, Const::Float(_)));
    let negative = ints.iter().any(|&n| n < 0);
    let wide = ints.iter().any(|&n| n > INT64_MAX);
    if !has_float && negative && wide {
        return Some(
            "this table mixes negative ints with ints of 2**63 or more, which no 64-bit integer \
             array holds"
                .into(),
        );
    }
    None
}
