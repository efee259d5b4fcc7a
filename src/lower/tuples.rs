//! Expressions of tuple value that are not constants: `divmod(a, b)`, which is the pair
//! `(a // b, a % b)` with the exact floor division and modulo of `binary`. Such a pair is
//! unpacked (`q, r = divmod(x, 7)`) or indexed by a constant (`divmod(x, 7)[1]`); returning it
//! whole needs tuple returns.

use rustpython_parser::ast;

use super::{Frame, Lowerer, R};
use crate::diagnostics::DiagnosticKind;
use crate::env::AssumedBinding;
use crate::ir::{BinOp, Const, Value};

impl Lowerer<'_> {
    /// The items of `e` when it is a tuple-valued call this file knows (`divmod`), else None.
    pub(super) fn tuple_items(
        &mut self,
        frame: &mut Frame,
        e: &ast::Expr,
    ) -> Option<R<Vec<Value>>> {
        let ast::Expr::Call(c) = e else {
            return None;
        };
        let ast::Expr::Name(n) = c.func.as_ref() else {
            return None;
        };
        let name = n.id.as_str();
        if frame.local_fns.contains_key(name) || !self.is_builtin(frame, name, "divmod") {
            return None;
        }
        self.names
            .assume(name.to_string(), AssumedBinding::Builtin(name.to_string()));
        Some(self.divmod(frame, c))
    }

    /// `divmod(a, b)`: `[a // b, a % b]`.
    fn divmod(&mut self, frame: &mut Frame, c: &ast::ExprCall) -> R<Vec<Value>> {
        let args = self.positional(frame, c, "divmod()", 2, 2)?;
        let q = self.binary(frame, BinOp::FloorDiv, args[0], args[1]);
        let r = self.binary(frame, BinOp::Mod, args[0], args[1]);
        Ok(vec![q, r])
    }

    /// `divmod(...)[k]` for a constant `k`; None when `s` is not such a subscript.
    pub(super) fn tuple_item(
        &mut self,
        frame: &mut Frame,
        s: &ast::ExprSubscript,
        e: &ast::Expr,
    ) -> Option<R<Value>> {
        let items = self.tuple_items(frame, &s.value)?;
        Some(items.and_then(|items| {
            let k = self.expr(frame, &s.slice);
            let n = items.len() as i128;
            match self.const_of(k) {
                Some(Const::Int(k)) if (-n..n).contains(&k) => {
                    Ok(items[if k < 0 { k + n } else { k } as usize])
                }
                _ => {
                    self.error_at(
                        frame,
                        DiagnosticKind::UnsupportedExpression,
                        format!("the result of divmod() can be indexed only by a constant in [-{n}, {n})"),
                        e,
                    );
                    Err(())
                }
            }
        }))
    }
}
