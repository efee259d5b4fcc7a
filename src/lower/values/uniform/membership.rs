//! `flag in ("c", "p")` on a uniform value (D14): compared once per call in Python.

use rustpython_parser::ast;

use crate::ir::{ObjCmp, Shape, UniformOp, Value};
use crate::lower::{Frame, Lowerer};

impl Lowerer<'_> {
    /// `mode in ("a", "b")`, `mode not in (...)` ending a comparison chain (`last`), with `mode`
    /// a uniform value and a display of literals on the right: `mode == "a" or mode == "b"`,
    /// compared once per call in Python, as CPython's membership compares a string (D14).
    /// None when it does not apply; else the membership, twice (no operand follows it).
    pub(in crate::lower) fn object_in_literals(
        &mut self,
        frame: &mut Frame,
        x: Value,
        right: &ast::Expr,
        last: bool,
    ) -> Option<(Value, Value)> {
        let elts = match right {
            ast::Expr::Tuple(t) => &t.elts,
            ast::Expr::List(l) => &l.elts,
            ast::Expr::Set(s) => &s.elts,
            _ => return None,
        };
        let literals = elts.iter().all(|e| matches!(e, ast::Expr::Constant(_)));
        if !last || !literals || !self.is_object(x) || self.shape(x) != Shape::Scalar {
            return None;
        }
        let mut acc = self.konst(crate::ir::Const::Bool(false));
        for e in elts {
            let item = self.expr(frame, e);
            let eq = self.uniform(UniformOp::Compare(ObjCmp::Eq), vec![x, item]);
            acc = self.bool_op(false, acc, eq);
        }
        Some((acc, acc))
    }
}
