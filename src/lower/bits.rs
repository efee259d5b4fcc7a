//! Bitwise operators (D15): `& | ^ << >>` and `~` on ints and bools with CPython's meaning
//! (`True & False` is a bool, `~True == -2`). A float operand is CPython's TypeError: rejected
//! here when lowering knows the kind; otherwise `_vec_binary`/`_vec_unary` raise it at run time.

use rustpython_parser::ast;

use crate::diagnostics::DiagnosticKind;
use crate::ir::{BinOp, Kind, Op, UnOp, Value};
use crate::lower::{Frame, Lowerer, R};

impl Lowerer<'_> {
    /// `a op b` for the operator at `e`: bit operations check their operands first.
    pub(in crate::lower) fn binary_at(
        &mut self,
        frame: &mut Frame,
        op: BinOp,
        a: Value,
        b: Value,
        e: &ast::Expr,
    ) -> R<Value> {
        // D20: TypeError on the lanes where an operand is None.
        let symbol = op.symbol();
        let ab = self.open_nones(frame, &[a, b], |t| format!("{} {symbol} {}", t[0], t[1]), e)?;
        let (a, b) = (ab[0], ab[1]);
        if op.is_bitwise() || op.is_shift() {
            self.int_operands(frame, &[a, b], e)?;
        }
        Ok(self.binary(frame, op, a, b))
    }

    /// `~a`.
    pub(in crate::lower) fn invert(
        &mut self,
        frame: &mut Frame,
        a: Value,
        e: &ast::Expr,
    ) -> R<Value> {
        let a = self.open_nones(frame, &[a], |t| format!("~{}", t[0]), e)?[0];
        self.int_operands(frame, &[a], e)?;
        Ok(self.emit(Op::Unary(UnOp::Invert, a)))
    }

    fn int_operands(&mut self, frame: &Frame, vs: &[Value], e: &ast::Expr) -> R<()> {
        if vs.iter().any(|v| self.poisoned.contains(v)) {
            return Err(());
        }
        if vs.iter().any(|v| self.kind(*v) == Kind::Float) {
            self.error_at(
                frame,
                DiagnosticKind::UnsupportedOperator,
                "bitwise operators take ints and bools; on a float CPython raises TypeError \
                 (convert with int(...) first)"
                    .into(),
                e,
            );
            return Err(());
        }
        Ok(())
    }
}
