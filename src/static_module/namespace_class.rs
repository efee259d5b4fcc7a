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
//! An attribute computed in the body (`HALF = tuple(c / 2 for c in COEFFS)`, `N = len(COEFFS)`)
//! is a constant when the static compile computes it exactly (`pipeline::constant`, issue 27),
//! from the module's bindings and the attributes bound above it; a class whose one base is
//! another such class of the module (or `object`) starts from the base's attributes (D15).
//! Anything else in the body (an instance method, an attribute computed from what the text does
//! not pin) leaves that attribute unresolved, so a function reading it is deferred to the live
//! decorator; each attribute read is an assumption under its dotted name (`Units.K0`), checked
//! against the live class, so a value computed here is never trusted unchecked.

use std::collections::BTreeMap;

use std::sync::Arc;

use rustpython_parser::ast;

use crate::env::{Binding, Env, FunctionCode, FunctionSource};
use crate::frontend::tree::{FunctionTree, ParsedModule};
use crate::static_module::text::literal;

/// Binds each plain top-level class of `body` (not already bound, as an Enum is) to its
/// namespace. A class with keywords, decorators, several bases or a base that is not such a
/// class of the module stays unresolved: its attributes may come from elsewhere.
pub fn bind_namespaces(module: &Arc<ParsedModule>, bindings: &mut BTreeMap<String, Binding>) {
    for (i, stmt) in module.body.iter().enumerate() {
        let ast::Stmt::ClassDef(c) = stmt else {
            continue;
        };
        let inherited = match c.bases.as_slice() {
            [] => Some(Env::new()),
            [ast::Expr::Name(b)] if b.id.as_str() == "object" => Some(Env::new()),
            // One base, a namespace class bound above: its attributes first, as the MRO reads.
            [ast::Expr::Name(b)] => match bindings.get(b.id.as_str()) {
                Some(Binding::Namespace(attrs)) => Some(attrs.clone()),
                _ => None,
            },
            _ => None,
        };
        let plain = c.keywords.is_empty() && c.decorator_list.is_empty();
        let unresolved = matches!(bindings.get(c.name.as_str()), Some(Binding::Unresolved(_)));
        if let (Some(inherited), true, true) = (inherited, plain, unresolved) {
            let attrs = class_attributes(module, i, c, bindings, inherited);
            bindings.insert(c.name.to_string(), Binding::Namespace(attrs));
        }
    }
}

/// Binds `NAME = Cls()` at the top level (issue 27 part 2 item 3, D8), `Cls` a namespace class
/// of the module whose `__init__(self)` only assigns `self.attr = value` with values the static
/// compile computes exactly: a namespace of the class's attributes and the instance's. Any other
/// instance stays unresolved, with the reason, for the decorator to freeze from the live object.
pub fn bind_instances(module: &Arc<ParsedModule>, bindings: &mut BTreeMap<String, Binding>) {
    for stmt in module.body.iter() {
        let ast::Stmt::Assign(a) = stmt else {
            continue;
        };
        let ([ast::Expr::Name(target)], ast::Expr::Call(call)) =
            (a.targets.as_slice(), a.value.as_ref())
        else {
            continue;
        };
        let ast::Expr::Name(class) = call.func.as_ref() else {
            continue;
        };
        let Some(Binding::Namespace(class_attrs)) = bindings.get(class.id.as_str()) else {
            continue;
        };
        if !matches!(
            bindings.get(target.id.as_str()),
            Some(Binding::Unresolved(_))
        ) {
            continue;
        }
        let def = module.body.iter().find_map(|s| match s {
            ast::Stmt::ClassDef(c) if c.name == class.id => Some(c),
            _ => None,
        });
        let own = match (call.args.is_empty() && call.keywords.is_empty(), def) {
            (true, Some(def)) => instance_attributes(module, def, bindings, class_attrs),
            _ => None,
        };
        let binding = match own {
            Some(own) => {
                let mut attrs = class_attrs.clone();
                attrs.extend(own);
                Binding::Namespace(attrs)
            }
            None => Binding::Unresolved(format!(
                "an instance of `{}` made by a call whose `__init__` the module's text does not pin to constants (`self.attr = constant` only, no arguments): the decorator freezes the live object's attributes",
                class.id
            )),
        };
        bindings.insert(target.id.to_string(), binding);
    }
}

/// The attributes `__init__(self)` of `def` binds, when it only assigns constants to `self`
/// (computed from the module's names and `self`'s attributes bound so far, `class_attrs` first).
fn instance_attributes(
    module: &Arc<ParsedModule>,
    def: &ast::StmtClassDef,
    module_env: &Env,
    class_attrs: &Env,
) -> Option<Env> {
    let mut own = Env::new();
    let init = def.body.iter().find_map(|s| match s {
        ast::Stmt::FunctionDef(f) if f.name.as_str() == "__init__" => Some(f),
        _ => None,
    });
    let Some(init) = init else {
        return Some(own); // `object.__init__`: the class's attributes only
    };
    let plain = init.decorator_list.is_empty()
        && init.args.args.len() == 1
        && init.args.posonlyargs.is_empty()
        && init.args.kwonlyargs.is_empty()
        && init.args.vararg.is_none()
        && init.args.kwarg.is_none();
    if !plain {
        return None;
    }
    let this = init.args.args[0].def.arg.as_str();
    for stmt in &init.body {
        match stmt {
            ast::Stmt::Assign(a) => match a.targets.as_slice() {
                [ast::Expr::Attribute(t)] if matches!(t.value.as_ref(), ast::Expr::Name(n) if n.id.as_str() == this) =>
                {
                    let mut seen = class_attrs.clone();
                    seen.extend(own.clone());
                    let scope = Env::from([(this.to_string(), Binding::Namespace(seen))]);
                    let value = match computed(module, &a.value, module_env, &scope) {
                        b @ Binding::Const(_) => b,
                        _ => return None,
                    };
                    if own.insert(t.attr.to_string(), value).is_some() {
                        return None; // bound twice: the last one wins only if nothing reads between
                    }
                }
                _ => return None,
            },
            ast::Stmt::Expr(e) if matches!(e.value.as_ref(), ast::Expr::Constant(_)) => {}
            ast::Stmt::Pass(_) => {}
            _ => return None,
        }
    }
    Some(own)
}

/// What each attribute the class body binds is bound to, over the `inherited` ones; `module_env`
/// is what the module's names are bound to, for attributes computed from them.
fn class_attributes(
    module: &Arc<ParsedModule>,
    at: usize,
    c: &ast::StmtClassDef,
    module_env: &Env,
    inherited: Env,
) -> Env {
    let mut attrs = inherited;
    let mut own = Env::new();
    let mut count: BTreeMap<String, usize> = BTreeMap::new();
    for (j, stmt) in c.body.iter().enumerate() {
        let mut names = vec![];
        let value = match stmt {
            ast::Stmt::Assign(a) if matches!(a.targets.as_slice(), [ast::Expr::Name(_)]) => {
                Some(a.value.as_ref())
            }
            ast::Stmt::AnnAssign(a) if matches!(*a.target, ast::Expr::Name(_)) => {
                a.value.as_deref()
            }
            _ => None,
        };
        let binding = match stmt {
            ast::Stmt::Assign(_) | ast::Stmt::AnnAssign(_) => {
                crate::frontend::extract::assigned_names(std::slice::from_ref(stmt), &mut names);
                match value {
                    Some(v) => computed(module, v, module_env, &own),
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
            own.insert(n, binding.clone());
        }
    }
    for (n, k) in count {
        if k > 1 {
            let why = "bound more than once in the class body".to_string();
            own.insert(n, Binding::Unresolved(why));
        }
    }
    attrs.extend(own);
    attrs
}

/// `NAME = value` in a class body: a literal, or a constant computed exactly from the module's
/// bindings and the class's own attributes bound above (`own`: the class body's scope, which its
/// comprehensions see only in their first iterable, as CPython's; a value read wrongly here
/// differs from the live attribute, which the decorator checks).
fn computed(module: &Arc<ParsedModule>, value: &ast::Expr, module_env: &Env, own: &Env) -> Binding {
    if let Some(k) = literal(value) {
        return Binding::Const(k);
    }
    let mut env = module_env.clone();
    env.extend(own.clone());
    crate::static_module::add_builtins(&mut env);
    match crate::pipeline::constant::constant_value(value, module, &env) {
        Some(k) => Binding::Const(k),
        None => Binding::Unresolved("computed in the class body".into()),
    }
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

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use crate::env::{Binding, Const};
    use crate::frontend::tree::ParsedModule;
    use crate::static_module::{module_env, Imports};

    fn namespace(source: &str, class: &str) -> crate::env::Env {
        let module = Arc::new(ParsedModule::parse(source, "m.py").expect("parses"));
        match module_env(&module, &Imports::default(), "").remove(class) {
            Some(Binding::Namespace(attrs)) => attrs,
            other => panic!("{class} is not a namespace: {other:?}"),
        }
    }

    #[test]
    fn attributes_computed_in_the_body_and_inherited_from_a_namespace_base_resolve() {
        let source = "SCALE = 2.0\n\nclass Base:\n    W = (0.25, 0.5)\n    K = 1.0\n\nclass Fit(Base):\n    CP = (4.0, 2.0)\n    HALF = tuple(c / SCALE for c in CP)\n    N = len(CP)\n    K = 3.0\n    SQ = [k * k for k in range(2)]\n\nclass Other(dict):\n    A = 1.0\n";
        let fit = namespace(source, "Fit");
        let konst = |n: &str| match fit.get(n) {
            Some(Binding::Const(c)) => Some(c.clone()),
            _ => None,
        };
        assert_eq!(
            konst("W"),
            Some(Const::Tuple(vec![Const::Float(0.25), Const::Float(0.5)]))
        );
        assert_eq!(
            konst("HALF"),
            Some(Const::Tuple(vec![Const::Float(2.0), Const::Float(1.0)]))
        );
        assert_eq!(konst("N"), Some(Const::Int(2)));
        // The class's own binding wins over its base's, as the MRO reads.
        assert_eq!(konst("K"), Some(Const::Float(3.0)));
        // A list the static compile does not fold stays the decorator's to read.
        assert!(
            matches!(fit.get("SQ"), Some(Binding::Unresolved(_))),
            "{:?}",
            fit.get("SQ")
        );
        // A base the module's text does not pin (a builtin class here) leaves the class unresolved.
        let module = Arc::new(ParsedModule::parse(source, "m.py").expect("parses"));
        let env = module_env(&module, &Imports::default(), "");
        assert!(
            matches!(env.get("Other"), Some(Binding::Unresolved(_))),
            "{:?}",
            env.get("Other")
        );
    }

    #[test]
    fn an_instance_whose_init_assigns_constants_is_a_namespace_any_other_is_unresolved() {
        let source = "class Line:\n    NOMINAL = 500.0\n\n    def __init__(self):\n        \"\"\"Bounds.\"\"\"\n        self.band = self.NOMINAL * 0.015\n        self.limits = (480.0, 520.0)\n\n    def width(self):\n        return self.band\n\nclass Sensor:\n    def __init__(self, gain):\n        self.gain = gain\n\nline = Line()\nsensor = Sensor(2.0)\nother = Line(1)\n";
        let module = Arc::new(ParsedModule::parse(source, "m.py").expect("parses"));
        let env = module_env(&module, &Imports::default(), "");
        let Some(Binding::Namespace(line)) = env.get("line") else {
            panic!("line is not a namespace: {:?}", env.get("line"));
        };
        assert_eq!(line.get("band"), Some(&Binding::Const(Const::Float(7.5))));
        assert_eq!(
            line.get("NOMINAL"),
            Some(&Binding::Const(Const::Float(500.0)))
        );
        assert!(matches!(line.get("width"), Some(Binding::Unresolved(_))));
        for name in ["sensor", "other"] {
            let Some(Binding::Unresolved(why)) = env.get(name) else {
                panic!("{name} is resolved: {:?}", env.get(name));
            };
            assert!(
                why.contains("the decorator freezes the live object"),
                "{why}"
            );
        }
    }
}
