//! namedtuple results (issue 27 part 2 item 4, D13): a call of a namedtuple class
//! (`collections.namedtuple`, a `typing.NamedTuple` class without defaults) makes a tuple of its
//! arguments, matched to the fields as CPython's `__new__` matches them; `p.x` reads the item of
//! field `x`, and unpacking and constant indices read it as any tuple's. The marked function
//! returning one returns an instance of the class with arrays in its fields (the class a global
//! of the generated module: `result_class_param`), when every return gives that class.
//!
//! ```python
//! Polar = namedtuple("Polar", "r theta")
//! def to_polar(x, y):
//!     return Polar(math.hypot(x, y), math.atan2(y, x))   # a tuple (r, theta)
//! def radius(x):
//!     return to_polar(x, 1.0).r                           # its item 0
//! ```

use rustpython_parser::ast;

use crate::diagnostics::DiagnosticKind;
use crate::env::{Binding, Hidden};
use crate::ir::Value;
use crate::lower::values::handles::Container;
use crate::lower::{Frame, Lowerer, R};

impl Lowerer<'_> {
    /// `Class(a, b, field=c)`: a tuple of the arguments in the order of `fields`.
    pub(in crate::lower) fn named_tuple(
        &mut self,
        frame: &mut Frame,
        c: &ast::ExprCall,
        class: &str,
        fields: &[String],
    ) -> R<Value> {
        let mut items: Vec<Option<Value>> = vec![None; fields.len()];
        if c.args.len() > fields.len() {
            let why = format!(
                "`{class}` takes {} arguments ({} given)",
                fields.len(),
                c.args.len()
            );
            return self.bad_named_tuple(frame, c, why);
        }
        for (k, a) in c.args.iter().enumerate() {
            if matches!(a, ast::Expr::Starred(_)) {
                let why = "a namedtuple's arguments are written one by one here".to_string();
                return self.bad_named_tuple(frame, c, why);
            }
            items[k] = Some(self.expr(frame, a));
        }
        for kw in &c.keywords {
            let at = kw
                .arg
                .as_ref()
                .and_then(|n| fields.iter().position(|f| f == n.as_str()));
            match at {
                Some(k) if items[k].is_none() => items[k] = Some(self.expr(frame, &kw.value)),
                _ => {
                    let why = format!(
                        "`{class}` has the fields {}: each is given once, by position or by name",
                        fields.join(", ")
                    );
                    return self.bad_named_tuple(frame, c, why);
                }
            }
        }
        let Some(items) = items.into_iter().collect::<Option<Vec<Value>>>() else {
            let why = format!(
                "`{class}` needs a value for each of its fields ({})",
                fields.join(", ")
            );
            return self.bad_named_tuple(frame, c, why);
        };
        if items.iter().any(|v| self.poisoned.contains(v)) {
            return Err(());
        }
        let (start, end) = crate::frontend::extract::span(c);
        let t = self.new_container(Container::Tuple, items, (frame.source, start, end));
        self.values
            .function
            .named
            .insert(t, (class.to_string(), fields.to_vec()));
        Ok(t)
    }

    /// `p.field` of a namedtuple made by [`Self::named_tuple`]: its item; None when `base` is
    /// not one.
    pub(in crate::lower) fn named_field(
        &mut self,
        frame: &Frame,
        base: Value,
        a: &ast::ExprAttribute,
    ) -> Option<R<Value>> {
        let (class, fields) = self.values.function.named.get(&base)?.clone();
        let items = self.values.function.tuples.get(&base)?.items.clone();
        match fields.iter().position(|f| f == a.attr.as_str()) {
            Some(k) => Some(Ok(items[k])),
            None => {
                let why = format!(
                    "`{class}` has no field `{}` (its fields: {})",
                    a.attr,
                    fields.join(", ")
                );
                Some(self.bad_named_tuple(frame, a, why))
            }
        }
    }

    /// Issue 27 (D13): a return of the marked function. A namedtuple result is made of its
    /// class, a global of the generated module, so the class must be bound by its own name where
    /// the function is (the static compile assumes it there), and every return must return it.
    pub(in crate::lower) fn note_result_class(
        &mut self,
        frame: &Frame,
        v: Value,
        at: &ast::Expr,
    ) -> R<()> {
        let named = self.values.function.named.get(&v).cloned();
        if let Some((class, fields)) = &named {
            let bound = matches!(frame.env.get(class), Some(Binding::NamedTuple(c, f)) if c == class && f == fields);
            if !bound || !self.values.function.compiled_reads.contains(class) {
                let why = format!("this result is a `{class}` (a namedtuple), which the decorated function does not name itself: the result is made of the class its module binds by that name, so call it there with the fields (`p = helper(x); return {class}(p[0], p[1])`), or return its fields as a tuple display (D13), `return p.x, p.y`");
                return self.bad_named_tuple(frame, at, why);
            }
        }
        let class = named.map(|(c, _)| c);
        match &self.values.function.result_class {
            Some(before) if *before != class => {
                let what = |c: &Option<String>| {
                    c.as_ref()
                        .map_or("another result".to_string(), |c| format!("a `{c}`"))
                };
                let why = format!("this returns {} where another return gives {}: an array result cannot be a namedtuple on some elements only (D13); return one kind of result", what(&class), what(before));
                self.bad_named_tuple(frame, at, why)
            }
            _ => {
                self.values.function.result_class = Some(class);
                Ok(())
            }
        }
    }

    /// Records the names the marked function's own body reads (`note_result_class`).
    pub(in crate::lower) fn note_compiled_reads(&mut self, body: &[ast::Stmt]) {
        let mut names = std::collections::BTreeSet::new();
        crate::lower::values::uniform::expr_walk::walk_stmts(body, &mut |e| {
            if let ast::Expr::Name(n) = e {
                names.insert(n.id.to_string());
            }
        });
        self.values.function.compiled_reads = names;
    }

    /// The hidden parameter holding the namedtuple class every return of the marked function
    /// gave (`note_result_class`), for a tuple result; None otherwise.
    pub(in crate::lower) fn result_class_param(&mut self) -> Option<usize> {
        let class = self.values.function.result_class.clone().flatten()?;
        Some(self.hidden_param(Hidden::Object(class)))
    }

    fn bad_named_tuple<T: rustpython_parser::ast::Ranged, V>(
        &mut self,
        frame: &Frame,
        at: &T,
        why: String,
    ) -> R<V> {
        self.error_at(frame, DiagnosticKind::UnsupportedExpression, why, at);
        Err(())
    }
}
