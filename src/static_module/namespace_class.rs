//! Classes used as namespaces, read from module text for the static compile (import hook,
//! build backend; D7, D8): a top-level class with no bases, no decorators and a body of
//! constants and static or class methods binds a [`Binding::Namespace`] of its attributes.
//!
//! ```python
//! class Units:
//!     K0 = 273.15                 # Const(273.15)
//!     @staticmethod
//!     def to_k(c): ...            # Function, qualname `Units.to_k`
//!     @classmethod
//!     def to_f(cls, c): ...       # ClassMethod: `cls` binds to the namespace when called
//! ```
//!
//! Anything else in the body (an instance method, a computed attribute) leaves that attribute
//! unresolved, so a function reading it is deferred to the live decorator; each attribute read
//! is an assumption under its dotted name (`Units.K0`), checked against the live class.

use std::collections::BTreeMap;

use std::sync::Arc;

use rustpython_parser::ast;

use crate::env::{Binding, Env, FunctionCode, FunctionSource};
use crate::frontend::tree::{FunctionTree, ParsedModule};
use crate::static_module::text::literal;

/// Binds each plain top-level class of `body` (not already bound, as an Enum is) to its
/// namespace. A class with bases, keywords or decorators stays unresolved: its attributes may
/// come from elsewhere.
pub fn bind_namespaces(module: &Arc<ParsedModule>, bindings: &mut BTreeMap<String, Binding>) {
    for (i, stmt) in module.body.iter().enumerate() {
        let ast::Stmt::ClassDef(c) = stmt else {
            continue;
        };
        let plain = c.bases.is_empty() && c.keywords.is_empty() && c.decorator_list.is_empty();
        let unresolved = matches!(bindings.get(c.name.as_str()), Some(Binding::Unresolved(_)));
        if plain && unresolved {
            let attrs = class_attributes(module, i, c);
            bindings.insert(c.name.to_string(), Binding::Namespace(attrs));
        }
    }
}

/// What each attribute the class body binds is bound to.
fn class_attributes(module: &Arc<ParsedModule>, at: usize, c: &ast::StmtClassDef) -> Env {
    let mut attrs = Env::new();
    let mut count: BTreeMap<String, usize> = BTreeMap::new();
    for (j, stmt) in c.body.iter().enumerate() {
        let mut names = vec![];
        let binding = match stmt {
            ast::Stmt::Assign(a) => {
                crate::frontend::extract::assigned_names(std::slice::from_ref(stmt), &mut names);
                match (a.targets.as_slice(), literal(&a.value)) {
                    ([ast::Expr::Name(_)], Some(k)) => Binding::Const(k),
                    _ => Binding::Unresolved("computed in the class body".into()),
                }
            }
            ast::Stmt::AnnAssign(a) => {
                crate::frontend::extract::assigned_names(std::slice::from_ref(stmt), &mut names);
                match a.value.as_deref().and_then(literal) {
                    Some(k) => Binding::Const(k),
                    None => Binding::Unresolved("computed in the class body".into()),
                }
            }
            ast::Stmt::FunctionDef(def) => {
                names.push(def.name.to_string());
                let tree = FunctionTree {
                    module: module.clone(),
                    at: vec![at, j],
                };
                method(tree, c, def)
            }
            // A docstring or `pass` binds nothing.
            ast::Stmt::Expr(_) | ast::Stmt::Pass(_) => continue,
            other => {
                crate::frontend::extract::assigned_names(std::slice::from_ref(other), &mut names);
                if let ast::Stmt::ClassDef(inner) = other {
                    names.push(inner.name.to_string());
                }
                Binding::Unresolved("bound in the class body".into())
            }
        };
        for n in names {
            *count.entry(n.clone()).or_default() += 1;
            attrs.insert(n, binding.clone());
        }
    }
    for (n, k) in count {
        if k > 1 {
            let why = "bound more than once in the class body".to_string();
            attrs.insert(n, Binding::Unresolved(why));
        }
    }
    attrs
}

/// A `def` in a class body: a staticmethod is a helper, a classmethod one whose first
/// parameter is the class; an instance method (or any other decorator) is unresolved.
fn method(tree: FunctionTree, c: &ast::StmtClassDef, def: &ast::StmtFunctionDef) -> Binding {
    let decorator = match def.decorator_list.as_slice() {
        [ast::Expr::Name(n)] => n.id.as_str(),
        [] => return Binding::Unresolved("an instance method".into()),
        _ => return Binding::Unresolved("a decorated method".into()),
    };
    let fs = Box::new(FunctionSource {
        path: tree.module.path.clone(),
        first_line: tree.first_line(),
        name: format!("{}.{}", c.name, def.name),
        env: None,
        code: FunctionCode::Tree(tree),
        library: false,
    });
    match decorator {
        "staticmethod" => Binding::Function(fs),
        "classmethod" => Binding::ClassMethod(fs),
        _ => Binding::Unresolved("a decorated method".into()),
    }
}
