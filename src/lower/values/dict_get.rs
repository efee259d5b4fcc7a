//! `D.get(key, default)` on a constant dict of numbers (D15: a module global, closure or class
//! attribute bound once to one) with a per-lane key: a select per entry, from the default.
//! On a uniform value (D14: a parameter dict, a module-level dict with string keys) it is the
//! Python call itself, once per call, with a key and default the same on every element.
//!
//! ```python
//! ALLOWANCE = {1: 12570.0, 2: 25140.0}
//! ALLOWANCE.get(status, 0.0)     ->   where(status == 2, 25140.0, where(status == 1, 12570.0, 0.0))
//! ```
//!
//! A dict's keys are distinct under `==` (CPython's lookup for numbers: `1`, `1.0` and `True`
//! are one key), so at most one entry matches a lane, and `==` across bool, int and float is
//! exact; a NaN key is never found, as CPython finds it only through the very same object.

use rustpython_parser::ast;

use crate::diagnostics::DiagnosticKind;
use crate::env::{AssumedBinding, Binding};
use crate::ir::{CmpOp, Const, Op, Shape, UniformOp, Value};
use crate::lower::{Frame, Lowerer, R};

impl Lowerer<'_> {
    /// `base.get(...)` when `base` names a constant dict; None when it does not (the call is
    /// resolved as any other attribute call).
    pub(in crate::lower) fn dict_get(
        &mut self,
        frame: &mut Frame,
        a: &ast::ExprAttribute,
        c: &ast::ExprCall,
    ) -> Option<R<Value>> {
        if a.attr.as_str() != "get" {
            return None;
        }
        if self.names_uniform_value(frame, &a.value) {
            return Some(self.uniform_get(frame, a, c));
        }
        let (name, entries) = self.constant_dict(frame, &a.value)?;
        Some(self.lower_dict_get(frame, c, &name, entries))
    }

    /// Whether `e` is a uniform value by its text: a name bound to one (a uniform parameter, a
    /// module-level object) or an item or attribute of one.
    pub(in crate::lower::values) fn names_uniform_value(
        &self,
        frame: &Frame,
        e: &ast::Expr,
    ) -> bool {
        match e {
            ast::Expr::Name(n) => match frame.vars.get(n.id.as_str()) {
                Some(crate::lower::Var::Def(v)) => self.is_object(*v),
                Some(crate::lower::Var::MaybeUndef) => false,
                None => {
                    !frame.locals.contains(n.id.as_str())
                        && matches!(frame.env.get(n.id.as_str()), Some(Binding::Object(_)))
                }
            },
            ast::Expr::Subscript(s) => self.names_uniform_value(frame, &s.value),
            ast::Expr::Attribute(a) => self.names_uniform_value(frame, &a.value),
            _ => false,
        }
    }

    /// `base.get(key[, default])` on a uniform value: Python's call, once per call (D14).
    fn uniform_get(
        &mut self,
        frame: &mut Frame,
        a: &ast::ExprAttribute,
        c: &ast::ExprCall,
    ) -> R<Value> {
        let base = self.expr(frame, &a.value);
        let mut operands = vec![base];
        operands.extend(self.positional(frame, c, "dict.get()", 1, 2)?);
        if let Some(i) = operands[1..]
            .iter()
            .position(|v| self.shape(*v) == Shape::Array)
        {
            self.error_at(
                frame,
                DiagnosticKind::UnsupportedExpression,
                "`.get()` on a uniform value (D14) runs once per call: its key and default must be the same on every element (a constant, a loop index, another uniform value); for a key per element, use a dict of numbers as a table (D15)".into(),
                &c.args[i],
            );
            return Err(());
        }
        if operands.iter().any(|v| self.poisoned.contains(v)) {
            return Err(());
        }
        Ok(self.uniform(UniformOp::Get, operands))
    }

    /// The dotted name and entries of the constant dict `e` names, if it does.
    fn constant_dict(&self, frame: &Frame, e: &ast::Expr) -> Option<(String, Vec<(Const, Const)>)> {
        let binding = match e {
            ast::Expr::Name(n) => {
                let name = n.id.as_str();
                // A variable holding a constant dict: a helper's parameter left to its default.
                if let Some(crate::lower::Var::Def(v)) = frame.vars.get(name) {
                    return match self.const_of(*v) {
                        Some(Const::Dict(entries)) => Some((String::new(), entries)),
                        _ => None,
                    };
                }
                if frame.locals.contains(name) {
                    return None;
                }
                (name.to_string(), frame.env.get(name)?.clone())
            }
            _ => return None,
        };
        match binding {
            (name, Binding::Const(Const::Dict(entries))) => Some((name, entries)),
            _ => None,
        }
    }

    fn lower_dict_get(
        &mut self,
        frame: &mut Frame,
        c: &ast::ExprCall,
        name: &str,
        entries: Vec<(Const, Const)>,
    ) -> R<Value> {
        let args = self.positional(frame, c, "dict.get()", 1, 2)?;
        if !name.is_empty() {
            self.assume(
                frame,
                name,
                AssumedBinding::Const(Const::Dict(entries.clone())),
            );
        }
        let key = args[0];
        if self.is_object(key) {
            self.error_at(
                frame,
                DiagnosticKind::UnsupportedExpression,
                "dict.get() on a constant dict takes a number key (per element or constant)".into(),
                &c.args[0],
            );
            return Err(());
        }
        if entries
            .iter()
            .any(|(_, v)| matches!(v, Const::Tuple(_) | Const::List(_) | Const::Dict(_)))
        {
            self.error_at(
                frame,
                DiagnosticKind::UnsupportedExpression,
                "dict.get() per element needs a dict whose values are numbers".into(),
                c,
            );
            return Err(());
        }
        let mut acc = match args.get(1) {
            Some(d) => *d,
            None => {
                self.error_at(
                    frame,
                    DiagnosticKind::UnsupportedExpression,
                    "dict.get(key) without a default gives None for a missing key, which is not a number: pass a default".into(),
                    c,
                );
                return Err(());
            }
        };
        for (k, v) in entries {
            let k = self.konst(k);
            let v = self.konst(v);
            let hit = self.emit(Op::Compare(CmpOp::Eq, key, k));
            acc = self.select(hit, v, acc);
        }
        Ok(acc)
    }
}
