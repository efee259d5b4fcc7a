//! Classes used as namespaces and modules reached through an alias (D7, D8): `Const.R` (a class
//! attribute bound once), `Units.to_k(t)` (a staticmethod, or a function of a module imported as
//! `import pkg.units as u`), `Units.scale(t)` (a classmethod: its first parameter is bound to the
//! class, whose attributes it reads as `cls.R`).
//!
//! ```python
//! class Const:                     # env: Const -> Namespace {R: Const(8.314), ...}
//!     R = 8.314
//! def f(t):
//!     return Const.R * t           # lowered as the constant 8.314, assumption `Const.R`
//! ```
//!
//! An attribute resolves as a free name would, under its dotted name, which the static compile
//! records as its assumption (`("Const.R", ("const", 8.314))`) and the decorator checks.

use rustpython_parser::ast;

use crate::diagnostics::DiagnosticKind;
use crate::env::{AssumedBinding, Binding, Env, FunctionCode, FunctionSource, SCOPE_KEY, SHA_KEY};
use crate::ir::Value;
use crate::lower::calls::builtins::Callee;
use crate::lower::free_names::short_name;
use crate::lower::{Frame, Lowerer, R};

/// The functions of `bisect` that read a table (`insort` writes one, which D15 cannot).
const BISECT_FUNCTIONS: &[(&str, &str)] = &[
    ("bisect_left", "bisect_left"),
    ("bisect_right", "bisect_right"),
    ("bisect", "bisect_right"),
];

/// What the static compile assumes of a method it calls through a namespace: a classmethod of a
/// class of the module at its line (D7), or a method of a standard library class bound to an
/// instance of it (issue 27: `IQ.cdf` of `IQ = NormalDist(100, 15)`, normal_dist.rs), pinned by
/// the instance's type and the hash of its module's text.
fn method_assumption(fs: &FunctionSource) -> AssumedBinding {
    let env = fs.env.as_ref();
    match (
        env.and_then(|e| e.get(SCOPE_KEY)),
        env.and_then(|e| e.get(SHA_KEY)),
        &fs.code,
    ) {
        (Some(Binding::Unresolved(module)), None, FunctionCode::Tree(tree)) => {
            let (class, name) = fs.name.rsplit_once('.').unwrap_or(("", &fs.name));
            AssumedBinding::StdlibMethod {
                class: class.to_string(),
                name: name.to_string(),
                module: module.clone(),
                module_text_sha256: crate::host::cache::sha256_hex(tree.module.text.as_bytes()),
            }
        }
        _ => AssumedBinding::ClassMethod {
            name: short_name(&fs.name),
            line: fs.first_line,
        },
    }
}

impl Lowerer<'_> {
    /// The dotted name and attributes of `e` when it names a namespace of the environment
    /// (`Const`, `pkg.units`); None for anything else.
    fn namespace_path(&self, frame: &Frame, e: &ast::Expr) -> Option<(String, Env)> {
        match e {
            ast::Expr::Name(n) => {
                let name = n.id.as_str();
                if frame.vars.contains_key(name) || frame.locals.contains(name) {
                    return None;
                }
                let Some(Binding::Namespace(attrs)) = frame.env.get(name) else {
                    return None;
                };
                // A classmethod's `cls` reads its class, under the class's name.
                let path = self
                    .calls
                    .class_params
                    .iter()
                    .rev()
                    .find(|(param, _)| param == name)
                    .map_or(name, |(_, path)| path.as_str());
                Some((path.to_string(), attrs.clone()))
            }
            ast::Expr::Attribute(a) => {
                let (path, attrs) = self.namespace_path(frame, &a.value)?;
                match attrs.get(a.attr.as_str()) {
                    Some(Binding::Namespace(inner)) => {
                        Some((format!("{path}.{}", a.attr), inner.clone()))
                    }
                    _ => None,
                }
            }
            _ => None,
        }
    }

    fn no_attribute(&mut self, frame: &Frame, path: &str, attr: &str, e: &ast::Expr) {
        self.error_at(
            frame,
            DiagnosticKind::UndefinedName,
            format!(
                "`{path}` has no attribute `{attr}` that vectorized code can read: CPython \
                 raises AttributeError here, or the attribute is not bound once in the class \
                 or module (D8)"
            ),
            e,
        );
    }

    /// `ns.attr` as a value, when `ns` is a namespace of the environment; None otherwise.
    pub(in crate::lower) fn namespace_attribute(
        &mut self,
        frame: &mut Frame,
        a: &ast::ExprAttribute,
        e: &ast::Expr,
    ) -> Option<Value> {
        let (path, attrs) = self.namespace_path(frame, &a.value)?;
        let dotted = format!("{path}.{}", a.attr);
        Some(match attrs.get(a.attr.as_str()).cloned() {
            None => {
                self.no_attribute(frame, &path, a.attr.as_str(), e);
                self.poison()
            }
            binding => self.read_binding(frame, &dotted, binding, e),
        })
    }

    /// The callee `ns.f(...)` for a namespace `ns` of the environment, or `bisect.f(...)`; None
    /// when the base is neither.
    pub(in crate::lower) fn namespace_callee(
        &mut self,
        frame: &Frame,
        a: &ast::ExprAttribute,
        c: &ast::ExprCall,
    ) -> Option<R<Callee>> {
        if let ast::Expr::Name(n) = a.value.as_ref() {
            let name = n.id.as_str();
            let shadowed = frame.vars.contains_key(name) || frame.locals.contains(name);
            if !shadowed && matches!(frame.env.get(name), Some(Binding::BisectModule)) {
                self.assume(frame, name, AssumedBinding::BisectModule);
                return Some(self.bisect_member(frame, a.attr.as_str(), c));
            }
        }
        let (path, attrs) = self.namespace_path(frame, &a.value)?;
        let dotted = format!("{path}.{}", a.attr);
        Some(match attrs.get(a.attr.as_str()).cloned() {
            Some(Binding::ClassMethod(fs)) => {
                self.assume(frame, &dotted, method_assumption(&fs));
                Ok(Callee::ClassMethod(fs, attrs, path))
            }
            None => {
                self.no_attribute(frame, &path, a.attr.as_str(), &c.func);
                Err(())
            }
            binding => self.callee_of_binding(frame, &dotted, binding, c),
        })
    }

    fn bisect_member(&mut self, frame: &Frame, attr: &str, c: &ast::ExprCall) -> R<Callee> {
        match BISECT_FUNCTIONS.iter().find(|(n, _)| *n == attr) {
            Some((_, which)) => Ok(Callee::Bisect((*which).to_string())),
            None => {
                self.error_at(
                    frame,
                    DiagnosticKind::UnknownCall,
                    format!(
                        "`bisect.{attr}` cannot be vectorized: only `bisect_left`, \
                         `bisect_right` and `bisect` on a constant sorted table can (D15)"
                    ),
                    &*c.func,
                );
                Err(())
            }
        }
    }

    /// A call of a classmethod: its first parameter is the class (a namespace bound in its
    /// environment, not a value), the call's arguments bind the others.
    pub(in crate::lower) fn call_classmethod(
        &mut self,
        frame: &mut Frame,
        c: &ast::ExprCall,
        fs: &FunctionSource,
        (class, path): (&Env, String),
    ) -> R<Value> {
        let parsed = self.parse_helper(fs)?;
        if parsed.params.len() == parsed.kwonly {
            self.error_at(
                frame,
                DiagnosticKind::BadArguments,
                format!(
                    "classmethod `{}` takes no positional parameter to bind the class to",
                    parsed.name
                ),
                c,
            );
            return Err(());
        }
        let mut unbound = (*parsed).clone();
        let cls = unbound.params.remove(0);
        unbound.defaults.remove(0);
        unbound.hints.remove(0);
        unbound.posonly = unbound.posonly.saturating_sub(1);
        let mut env = fs.env.clone().unwrap_or_else(|| frame.env.clone());
        env.insert(cls.clone(), Binding::Namespace(class.clone()));
        let args = self.call_args(frame, c, &unbound, Some(&env))?;
        self.calls.class_params.push((cls, path));
        let value = match self.call_out_of_line(frame, &unbound, &env, &args) {
            Some(called) => called,
            None => self.inline(frame, &unbound, &env, args, Default::default(), c),
        };
        self.calls.class_params.pop();
        value
    }
}

#[cfg(test)]
mod tests {
    use crate::env::{AssumedBinding, Binding, Env};
    use crate::ir::Const;
    use crate::pipeline::testing::compiled;

    #[test]
    fn a_class_attribute_is_a_constant_assumed_under_its_dotted_name() {
        let c = compiled(
            "class Const:\n    R = 8.5\n\n    @classmethod\n    def scaled(cls, x):\n        return x * cls.R\n\n@vectorize\ndef f(x):\n    return Const.scaled(x) + Const.R\n",
        );
        assert!(
            c.source.contains("8.5") && !c.source.contains("Const"),
            "{}",
            c.source
        );
        let names: Vec<&str> = c.assumptions.iter().map(|a| a.name.as_str()).collect();
        assert!(
            names.contains(&"Const.R") && names.contains(&"Const.scaled"),
            "{names:?}"
        );
        assert!(!names.iter().any(|n| n.starts_with("cls")), "{names:?}");
        let scaled = c.assumptions.iter().find(|a| a.name == "Const.scaled");
        assert!(matches!(
            scaled.map(|a| &a.binding),
            Some(AssumedBinding::ClassMethod { name, .. }) if name == "scaled"
        ));
    }

    #[test]
    fn a_missing_attribute_is_reported() {
        let mut attrs = Env::new();
        attrs.insert("R".into(), Binding::Const(Const::Float(1.0)));
        let e = crate::pipeline::testing::errors_with(
            "def f(x):\n    return x * K.G\n",
            &crate::pipeline::testing::env(&[("K", Binding::Namespace(attrs))]),
        );
        assert!(
            e.iter().any(|m| m.contains("`K` has no attribute `G`")),
            "{e:?}"
        );
    }
}
