//! Methods of a string given per call (D14): `model.lower()`, `name.strip()`,
//! `unit.startswith("k")` are Python's own call, once per call, on the uniform value, with
//! arguments the same on every element; the result is a uniform value too.
//!
//! ```python
//! model = model.lower()          ->   model = model.lower()      (once per call)
//! if model == "kasten1966": ...  ->   a Python `if` (D14)
//! ```

use rustpython_parser::ast;

use crate::diagnostics::DiagnosticKind;
use crate::ir::{Shape, UniformOp, Value};
use crate::lower::{Frame, Lowerer, R};

/// The methods of `str` that return a string or a bool and read nothing but their arguments.
const STR_METHODS: &[&str] = &[
    "lower",
    "upper",
    "casefold",
    "strip",
    "lstrip",
    "rstrip",
    "title",
    "capitalize",
    "startswith",
    "endswith",
    "replace",
    "removeprefix",
    "removesuffix",
];

impl Lowerer<'_> {
    /// `base.method(...)` when `base` is a uniform value and `method` one of [`STR_METHODS`];
    /// None otherwise (the call is resolved as any other attribute call).
    pub(in crate::lower) fn str_method(
        &mut self,
        frame: &mut Frame,
        a: &ast::ExprAttribute,
        c: &ast::ExprCall,
    ) -> Option<R<Value>> {
        let method = a.attr.as_str();
        if !STR_METHODS.contains(&method) || !self.names_uniform_string(frame, &a.value) {
            return None;
        }
        let base = self.expr(frame, &a.value);
        let what = format!("str.{method}()");
        let args = match self.positional(frame, c, &what, 0, 3) {
            Ok(args) => args,
            Err(()) => return Some(Err(())),
        };
        if let Some(i) = args.iter().position(|v| self.shape(*v) == Shape::Array) {
            self.error_at(
                frame,
                DiagnosticKind::UnsupportedExpression,
                format!("`.{method}()` of a uniform value (D14: docs/decisions.md#d14) runs once per call: its arguments must be the same on every element (a constant, a loop index, another uniform value)"),
                &c.args[i],
            );
            return Some(Err(()));
        }
        let mut operands = vec![base];
        operands.extend(args);
        if operands.iter().any(|v| self.poisoned.contains(v)) {
            return Some(Err(()));
        }
        Some(Ok(
            self.uniform(UniformOp::StrMethod(method.to_string()), operands)
        ))
    }

    /// Whether `e` is a uniform value by its text, or one of [`STR_METHODS`] called on one
    /// (`terrain.strip().lower()`).
    fn names_uniform_string(&self, frame: &Frame, e: &ast::Expr) -> bool {
        match e {
            ast::Expr::Call(c) => match c.func.as_ref() {
                ast::Expr::Attribute(a) => {
                    STR_METHODS.contains(&a.attr.as_str())
                        && self.names_uniform_string(frame, &a.value)
                }
                _ => false,
            },
            _ => self.names_uniform_value(frame, e),
        }
    }
}
