//! The static compile's view of a module's own exception classes (D8, D11, D21): a top-level
//! `class RangeError(ValueError): ...` with one base (a builtin exception class or another such
//! class of the module), whatever its body (`pass`, a docstring, an `__init__` taking extra
//! arguments, methods), is an exception class whose MRO the text pins down, so
//! `raise RangeError(...)` and `except RangeError:` compile from module text alone, as the
//! decorator compiles them from the live class: the exception is built in Python as written,
//! and `except` matches by the MRO. The MRO is an assumption the decorator checks against the
//! live class at import. Anything else (several bases, a keyword such as `metaclass=`, a
//! decorator, a base the text does not pin) leaves the class `Unresolved`: the live decorator
//! decides.

use std::collections::BTreeMap;

use rustpython_parser::ast;

use crate::env::Binding;
use crate::lower::builtin_mro;

/// Binds each exception class of the module's top level to its MRO. `bindings` holds the
/// module's other top-level names (a builtin shadowed there is no base).
pub fn bind_exception_classes(body: &[ast::Stmt], bindings: &mut BTreeMap<String, Binding>) {
    let classes: BTreeMap<&str, &ast::StmtClassDef> = body
        .iter()
        .filter_map(|s| match s {
            ast::Stmt::ClassDef(c) => Some((c.name.as_str(), c)),
            _ => None,
        })
        .collect();
    let mut resolved = BTreeMap::new();
    for name in classes.keys() {
        if let Some(mro) = mro_of(name, &classes, bindings, &mut vec![]) {
            resolved.insert(name.to_string(), mro);
        }
    }
    for (name, mro) in resolved {
        bindings.insert(name, Binding::ExceptionClass(mro));
    }
}

/// The MRO of the module's class `name` when it is an exception class of one base whose MRO the
/// text pins (`seen`: the classes being resolved, against a cycle).
fn mro_of(
    name: &str,
    classes: &BTreeMap<&str, &ast::StmtClassDef>,
    bindings: &BTreeMap<String, Binding>,
    seen: &mut Vec<String>,
) -> Option<Vec<String>> {
    let c = classes.get(name)?;
    if seen.iter().any(|s| s == name) || !is_simple(c) {
        return None;
    }
    let [ast::Expr::Name(base)] = c.bases.as_slice() else {
        return None;
    };
    let base = base.id.as_str();
    let rest = if classes.contains_key(base) {
        seen.push(name.to_string());
        let rest = mro_of(base, classes, bindings, seen);
        seen.pop();
        rest?
    } else if bindings.contains_key(base) {
        return None; // bound by the module to something else
    } else {
        builtin_mro(base)?
    };
    let mut mro = vec![format!(".{name}")];
    mro.extend(rest);
    Some(mro)
}

/// A class statement with no keyword (`metaclass=` could change the MRO) and no decorator (which
/// could replace the class).
fn is_simple(c: &ast::StmtClassDef) -> bool {
    c.keywords.is_empty() && c.decorator_list.is_empty()
}

#[cfg(test)]
mod tests {
    use super::*;
    use rustpython_parser::{parse, Mode};

    fn bound(src: &str) -> BTreeMap<String, Binding> {
        let ast::Mod::Module(m) = parse(src, Mode::Module, "t.py").expect("parses") else {
            panic!("a module")
        };
        let mut b = BTreeMap::new();
        bind_exception_classes(&m.body, &mut b);
        b
    }

    #[test]
    fn a_chain_of_plain_classes_gets_its_mro() {
        let b = bound("class A(ValueError):\n    \"\"\"doc\"\"\"\n\nclass B(A):\n    pass\n");
        assert_eq!(
            b.get("B"),
            Some(&Binding::ExceptionClass(
                [".B", ".A", "ValueError", "Exception", "BaseException"]
                    .map(String::from)
                    .to_vec()
            ))
        );
    }

    #[test]
    fn a_class_with_its_own_init_gets_its_mro() {
        let b = bound(
            "class A(ValueError):\n    def __init__(self, v, lo):\n        super().__init__(f'{v} < {lo}')\n        self.v = v\n\nclass D(A):\n    pass\n",
        );
        assert_eq!(
            b.get("D"),
            Some(&Binding::ExceptionClass(
                [".D", ".A", "ValueError", "Exception", "BaseException"]
                    .map(String::from)
                    .to_vec()
            ))
        );
    }

    #[test]
    fn a_class_with_two_bases_a_metaclass_or_a_decorator_is_not_resolved() {
        let b = bound(
            "class C(ValueError, KeyError):\n    pass\n\nclass M(ValueError, metaclass=Meta):\n    pass\n\n@register\nclass R(ValueError):\n    pass\n\nclass D(C):\n    pass\n",
        );
        assert!(b.is_empty(), "{b:?}");
    }
}
