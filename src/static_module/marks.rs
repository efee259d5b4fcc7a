//! Which functions of a module are marked (decorated with array-vectorize's `vectorize` in a
//! spelling the text pins down), with the options the decorator passes, and where they are:
//! at the top level, in class bodies (nested classes too), under `@staticmethod` or
//! `@classmethod` in either order, and inside the functions of the module's top level (a factory
//! of functions, issue 31; `factories.rs` gives their closures).

use rustpython_parser::ast;

use crate::pipeline::Options;

/// How a marked function's decorator was spelled: the options it passes, if literal.
#[derive(Debug, Clone, PartialEq)]
pub struct MarkedOptions {
    pub options: Options,
    /// `namespace=` was given (the generated code is the same; the decorator pins it).
    pub pinned_namespace: bool,
    /// An option the static compiler cannot read (not a literal): compile at run time.
    pub dynamic: Option<String>,
}

impl MarkedOptions {
    /// The options of a function compiled without a mark (`compile_module`'s `only`).
    pub fn unmarked() -> Self {
        MarkedOptions {
            options: Options::default(),
            pinned_namespace: false,
            dynamic: None,
        }
    }
}

/// Names under which `vectorize` (or the `array_vectorize` module) is reachable.
pub struct Markers {
    /// `from array_vectorize import vectorize [as v]`: `v`.
    pub names: Vec<String>,
    /// `import array_vectorize [as av]`: `av`.
    pub modules: Vec<String>,
}

impl Markers {
    pub fn none(&self) -> bool {
        self.names.is_empty() && self.modules.is_empty()
    }

    fn is_marker(&self, e: &ast::Expr) -> bool {
        match e {
            ast::Expr::Name(n) => self.names.iter().any(|m| m == n.id.as_str()),
            ast::Expr::Attribute(a) => {
                a.attr.as_str() == "vectorize"
                    && matches!(a.value.as_ref(), ast::Expr::Name(n) if self.modules.iter().any(|m| m == n.id.as_str()))
            }
            _ => false,
        }
    }
}

pub fn decorator_spellings(body: &[ast::Stmt]) -> Markers {
    let mut m = Markers {
        names: vec![],
        modules: vec![],
    };
    for stmt in body {
        match stmt {
            ast::Stmt::ImportFrom(i) => {
                let module = i.module.as_ref().map(|m| m.to_string()).unwrap_or_default();
                if module == "array_vectorize" || module == "array_vectorize.api" {
                    for a in &i.names {
                        if a.name.as_str() == "vectorize" {
                            let bound = a.asname.as_ref().unwrap_or(&a.name).to_string();
                            m.names.push(bound);
                        }
                    }
                }
            }
            ast::Stmt::Import(i) => {
                for a in &i.names {
                    if a.name.as_str() == "array_vectorize" {
                        m.modules
                            .push(a.asname.as_ref().unwrap_or(&a.name).to_string());
                    }
                }
            }
            _ => {}
        }
    }
    m
}

/// Whether `e` is `staticmethod` or `classmethod`: decorators that leave the function the mark
/// compiles as it is, above or below the mark (the decorator unwraps them, api.py).
pub fn is_method_kind(e: &ast::Expr) -> bool {
    matches!(e, ast::Expr::Name(n) if matches!(n.id.as_str(), "staticmethod" | "classmethod"))
}

/// The decorator's options when `def` is marked: its decorators are the mark alone, or the
/// mark and `staticmethod` or `classmethod`, in either order. Any other decorator could change
/// the function, so the function is not marked (the decorator compiles what it receives).
pub fn marked(def: &ast::StmtFunctionDef, markers: &Markers) -> Option<MarkedOptions> {
    let deco = match def.decorator_list.as_slice() {
        [only] => only,
        [a, b] if is_method_kind(a) => b,
        [a, b] if is_method_kind(b) => a,
        _ => return None,
    };
    let mut opts = MarkedOptions::unmarked();
    match deco {
        e if markers.is_marker(e) => Some(opts),
        ast::Expr::Call(c) if markers.is_marker(&c.func) => {
            if !c.args.is_empty() {
                opts.dynamic = Some("positional decorator arguments".into());
            }
            for k in &c.keywords {
                let Some(arg) = &k.arg else {
                    opts.dynamic = Some("**options".into());
                    continue;
                };
                let literal_bool = match &k.value {
                    ast::Expr::Constant(c) => match c.value {
                        ast::Constant::Bool(b) => Some(b),
                        _ => None,
                    },
                    _ => None,
                };
                // D23: `fallback="calls"` compiles as `fallback=True` does (the decorator alone
                // differs, on a function the compiler rejects).
                let calls = matches!(&k.value, ast::Expr::Constant(c) if matches!(&c.value, ast::Constant::Str(s) if s == "calls"));
                match (arg.as_str(), literal_bool) {
                    ("protect_domains", Some(b)) => opts.options.protect_domains = b,
                    ("fallback", Some(b)) => opts.options.fallback = b,
                    ("fallback", None) if calls => opts.options.fallback = true,
                    ("nan_on_raise", Some(b)) => opts.options.nan_on_raise = b,
                    ("namespace", _) => opts.pinned_namespace = true,
                    // verify runs at decoration time on the live function; it shapes no code.
                    ("verify", _) => {}
                    (other, _) => opts.dynamic = Some(format!("option `{other}` is not a literal")),
                }
            }
            Some(opts)
        }
        _ => None,
    }
}

/// A `def` the static compile may compile, where the module defines it.
pub struct Site<'m> {
    pub def: &'m ast::StmtFunctionDef,
    /// Its `__qualname__`.
    pub qualname: String,
    /// Statement indices from the module's body (frontend/tree.rs `FunctionTree::at`).
    pub at: Vec<usize>,
    /// The top-level function it is defined in (a factory), by name.
    pub factory: Option<&'m ast::StmtFunctionDef>,
}

/// Every `def` of the module where a mark can stand, in source order: the top level, class
/// bodies (nested classes included), and the direct statements of a top-level function.
pub fn sites(body: &[ast::Stmt]) -> Vec<Site<'_>> {
    let mut out = vec![];
    for (i, stmt) in body.iter().enumerate() {
        match stmt {
            ast::Stmt::FunctionDef(def) => {
                out.push(Site {
                    def,
                    qualname: def.name.to_string(),
                    at: vec![i],
                    factory: None,
                });
                for (j, inner) in def.body.iter().enumerate() {
                    if let ast::Stmt::FunctionDef(nested) = inner {
                        out.push(Site {
                            def: nested,
                            qualname: format!("{}.<locals>.{}", def.name, nested.name),
                            at: vec![i, j],
                            factory: Some(def),
                        });
                    }
                }
            }
            ast::Stmt::ClassDef(class) => {
                class_sites(class, class.name.to_string(), vec![i], &mut out)
            }
            _ => {}
        }
    }
    out
}

fn class_sites<'m>(
    class: &'m ast::StmtClassDef,
    prefix: String,
    at: Vec<usize>,
    out: &mut Vec<Site<'m>>,
) {
    for (j, stmt) in class.body.iter().enumerate() {
        let mut here = at.clone();
        here.push(j);
        match stmt {
            ast::Stmt::FunctionDef(def) => out.push(Site {
                def,
                qualname: format!("{prefix}.{}", def.name),
                at: here,
                factory: None,
            }),
            ast::Stmt::ClassDef(inner) => {
                class_sites(inner, format!("{prefix}.{}", inner.name), here, out);
            }
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::static_module::{compile_module, Outcome};

    #[test]
    fn marks_under_staticmethod_or_classmethod_in_either_order_and_in_nested_classes() {
        let source = "import functools\nfrom array_vectorize import vectorize\n\nclass Geo:\n    K = 2.0\n\n    @staticmethod\n    @vectorize\n    def a(x):\n        return x * 2.0\n\n    @vectorize\n    @staticmethod\n    def b(x):\n        return x + 1.0\n\n    @classmethod\n    @vectorize\n    def c(cls, x):\n        return x * cls.K\n\n    @vectorize\n    @classmethod\n    def d(cls, x):\n        return x - cls.K\n\n    class Inner:\n        @staticmethod\n        @vectorize\n        def e(x):\n            return -x\n\n    @functools.cache\n    @vectorize\n    def not_marked(x):\n        return x\n";
        let functions = compile_module(source, "m.py", None).expect("parses");
        let found: Vec<(&str, usize)> = functions
            .iter()
            .map(|f| (f.qualname.as_str(), f.line))
            .collect();
        assert_eq!(
            found,
            [
                ("Geo.a", 7),
                ("Geo.b", 12),
                ("Geo.c", 17),
                ("Geo.d", 22),
                ("Geo.Inner.e", 28)
            ]
        );
        for f in &functions {
            assert!(
                matches!(f.outcome, Outcome::Ok(_)),
                "{}: {:?}",
                f.qualname,
                f.outcome
            );
        }
    }
}
