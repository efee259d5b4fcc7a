//! `divmod(a, b)`: the pair `(a // b, a % b)` with the exact floor division and modulo of
//! `binary`, as a tuple result (D13): unpacked (`q, r = divmod(x, 7)`), indexed by a constant
//! (`divmod(x, 7)[1]`) or returned.

use rustpython_parser::ast;

use crate::frontend::extract::span;
use crate::ir::{BinOp, Value};
use crate::lower::{Frame, Lowerer, R};

impl Lowerer<'_> {
    /// `divmod(a, b)`.
    pub(in crate::lower) fn divmod(&mut self, frame: &mut Frame, c: &ast::ExprCall) -> R<Value> {
        let args = self.positional(frame, c, "divmod()", 2, 2)?;
        let q = self.binary(frame, BinOp::FloorDiv, args[0], args[1]);
        let r = self.binary(frame, BinOp::Mod, args[0], args[1]);
        let (start, end) = span(c);
        Ok(self.make_tuple(vec![q, r], (frame.source, start, end)))
    }
}
