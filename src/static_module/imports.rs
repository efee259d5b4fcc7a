//! Static compilation of imports between the modules of one program (issue 12): a helper imported
//! from another module (`from .units import to_k`, `from pkg.units import to_k`) or read through
//! a module alias (`import pkg.units as u`, then `u.to_k(t)`), as the decorator compiles it from
//! the live objects (D7, D8).
//!
//! The caller (the import hook, the build backend) finds the other modules as the import system
//! would and hands over their source text with its sha256 ([`Imports`]); nothing here reads a
//! file. A module it did not hand over stays `Unresolved`, and so does every name that module's
//! text does not pin down: the function is deferred to the live decorator, as before.
//!
//! A helper of another module resolves its own free names in that module's environment, which
//! carries the module's name and source hash ([`SCOPE_KEY`], [`SHA_KEY`]): the assumptions read
//! there are recorded as `<module>:<name>`, and the helper itself as a `ModuleFunction`
//! assumption naming the module and its hash, which the decorator checks (`precompiled.py`).
//! The other module's own imports of the program's modules are followed the same way (its
//! constants may come from a third module: `POLE = to_rad(90.0)`, issue 31), each module read
//! once per compile; a module that imports back one being read finds nothing of it there.

use std::cell::RefCell;
use std::collections::BTreeMap;
use std::sync::Arc;

use rustpython_parser::ast;

use crate::env::{Binding, Env, FunctionCode, SCOPE_KEY, SHA_KEY};
use crate::frontend::tree::ParsedModule;

/// The source of another module of the program.
#[derive(Debug, Clone, PartialEq)]
pub struct ForeignModule {
    pub source: String,
    /// The path diagnostics name.
    pub path: String,
    /// Hex sha256 of the source bytes (what the decorator hashes again); None for a module of
    /// the standard library, whose functions the decorator checks by their own text instead
    /// (issue 31: `AssumedBinding::StdlibFunction`).
    pub sha256: Option<String>,
}

/// The modules the compiled module's imports may name, by absolute name, and the package its
/// relative imports are resolved against (its `__package__`).
#[derive(Debug, Clone, Default)]
pub struct Imports {
    pub package: String,
    pub modules: BTreeMap<String, ForeignModule>,
    /// Each module's scoped environment, built from one parse of its text per compile (issue
    /// 25 item 7); None when it does not parse or is past the module limits.
    envs: RefCell<BTreeMap<String, Option<Scoped>>>,
}

/// A module as its importers see it.
#[derive(Debug, Clone)]
struct Scoped {
    /// What its helpers read (scoped: [`SCOPE_KEY`], [`SHA_KEY`]).
    env: Env,
    /// Its plain exception classes (D11), which a module importing one by name (`from .errors
    /// import RangeError`) raises and catches through its own global of that name.
    exceptions: Env,
    /// Its parse, whose classes a binding of the importer may read (normal_dist.rs).
    module: Arc<ParsedModule>,
}

/// Builds the environment of a parsed module (mod.rs `module_env`) whose relative imports
/// resolve against the package given.
pub type EnvOfModule<'a> = &'a dyn Fn(&Arc<ParsedModule>, &str) -> Env;

/// `importlib.util.resolve_name` for `from <level dots><module> import ...` in `package`.
pub fn resolve_name(module: &str, level: u32, package: &str) -> Option<String> {
    if level == 0 {
        return (!module.is_empty()).then(|| module.to_string());
    }
    if package.is_empty() {
        return None;
    }
    let parts: Vec<&str> = package.split('.').collect();
    let keep = parts.len().checked_sub(level as usize - 1)?;
    if keep == 0 {
        return None;
    }
    let base = parts[..keep].join(".");
    Some(if module.is_empty() {
        base
    } else {
        format!("{base}.{module}")
    })
}

impl Imports {
    /// The modules `modules` (by absolute name), imported from package `package`.
    pub fn new(package: String, modules: BTreeMap<String, ForeignModule>) -> Self {
        Imports {
            package,
            modules,
            envs: RefCell::default(),
        }
    }

    /// The environment of module `name` as a helper of it sees it: scoped (its module name and
    /// source hash under [`SCOPE_KEY`] and [`SHA_KEY`]).
    fn env_of(&self, name: &str, env_of_module: EnvOfModule) -> Option<Env> {
        self.scoped(name, env_of_module).map(|s| s.env)
    }

    fn scoped(&self, name: &str, env_of_module: EnvOfModule) -> Option<Scoped> {
        if let Some(known) = self.envs.borrow().get(name) {
            return known.clone();
        }
        // Being read: a module importing it back (a cycle) finds nothing of it.
        self.envs.borrow_mut().insert(name.to_string(), None);
        let scoped = self.scope(name, env_of_module);
        self.envs
            .borrow_mut()
            .insert(name.to_string(), scoped.clone());
        scoped
    }

    fn scope(&self, name: &str, env_of_module: EnvOfModule) -> Option<Scoped> {
        let m = self.modules.get(name)?;
        let module = Arc::new(ParsedModule::parse(&m.source, &m.path).ok()?);
        let is_package = m.path.ends_with("__init__.py");
        let package = if is_package {
            name
        } else {
            name.rsplit_once('.').map_or("", |(p, _)| p)
        };
        let mut env = env_of_module(&module, package);
        let mut exceptions = Env::new();
        let replaced_below = m
            .sha256
            .is_none()
            .then(|| last_star_import(&module.body))
            .flatten();
        for (k, b) in env.iter_mut() {
            if let Binding::ExceptionClass(_) = b {
                exceptions.insert(k.clone(), b.clone());
            }
            if !plain(b) {
                // Enum and exception classes, classes used as namespaces: globals the generated
                // code would bind from the importer's module, or assumptions checked against its
                // file; the live decorator compiles those.
                *b = Binding::Unresolved(format!("`{k}` of the module {name}"));
            }
            if matches!(&*b, Binding::Function(fs) if matches!(fs.code, FunctionCode::Text(_))) {
                // A helper wrapped by a decorator of that module (wrapped.rs): its forward's
                // assumption names the importer's globals; the live decorator compiles it.
                *b = Binding::Unresolved(format!(
                    "`{k}` of the module {name}, a helper wrapped by a decorator there"
                ));
                continue;
            }
            if let (Binding::Function(fs), true) = (&mut *b, m.sha256.is_none()) {
                // A lambda of the standard library: its assumption would pin its line's text.
                if fs.name == "<lambda>" {
                    *b = Binding::Unresolved(format!("`{k}`, a lambda of the module {name}"));
                    continue;
                }
                // Another library's: its problems are reported at the call, as the decorator
                // reports them (`FunctionSource::library`).
                fs.library = true;
            }
            if let (Binding::Function(fs), Some(star)) = (&*b, replaced_below) {
                // A standard library module replaces its Python functions by its C
                // accelerator's (`from _heapq import *` below them): the live ones are not these.
                let defined = match &fs.code {
                    FunctionCode::Tree(t) => t.at.first().copied(),
                    FunctionCode::Text(_) => None,
                };
                if defined.is_none_or(|at| at < star) {
                    *b = Binding::Unresolved(format!(
                        "`{k}` of the module {name}, which a star import may replace"
                    ));
                }
            }
        }
        env.insert(SCOPE_KEY.into(), Binding::Unresolved(name.to_string()));
        if let Some(sha256) = &m.sha256 {
            env.insert(SHA_KEY.into(), Binding::Unresolved(sha256.clone()));
        }
        Some(Scoped {
            env,
            exceptions,
            module,
        })
    }

    /// Module `name`'s parse, its scoped environment and its plain exception classes (D11),
    /// when it was handed over and parses: what a method of one of its classes reads
    /// (`statistics.NormalDist.cdf`, normal_dist.rs).
    pub(crate) fn parsed(
        &self,
        name: &str,
        env_of_module: EnvOfModule,
    ) -> Option<(Arc<ParsedModule>, Env, Env)> {
        self.scoped(name, env_of_module)
            .map(|s| (s.module, s.env, s.exceptions))
    }

    /// The names `stmt` binds to something of another module of the program that its text pins
    /// down; names it leaves out keep the caller's binding (unresolved).
    pub fn bindings(
        &self,
        stmt: &ast::Stmt,
        package: &str,
        env_of_module: EnvOfModule,
    ) -> Vec<(String, Binding)> {
        let mut out = vec![];
        match stmt {
            ast::Stmt::Import(i) => {
                for a in &i.names {
                    // `import pkg.units` binds `pkg`, a package whose attributes the text does
                    // not pin down; `import pkg.units as u` and `import units` bind the module.
                    if a.asname.is_none() && a.name.contains('.') {
                        continue;
                    }
                    let bound = a.asname.as_ref().unwrap_or(&a.name).to_string();
                    if let Some(env) = self.env_of(a.name.as_str(), env_of_module) {
                        out.push((bound, module_namespace(&env)));
                    }
                }
            }
            ast::Stmt::ImportFrom(i) => {
                let module = i.module.as_ref().map(|m| m.to_string()).unwrap_or_default();
                let level = i.level.map_or(0, |l| l.to_u32());
                let Some(absolute) = resolve_name(&module, level, package) else {
                    return out;
                };
                let scoped = self.scoped(&absolute, env_of_module);
                for a in &i.names {
                    let bound = a.asname.as_ref().unwrap_or(&a.name).to_string();
                    let member = scoped.as_ref().and_then(|s| {
                        member(&s.env, a.name.as_str())
                            .or_else(|| s.exceptions.get(a.name.as_str()).cloned())
                    });
                    let sub = format!("{absolute}.{}", a.name);
                    if let Some(b) = member {
                        out.push((bound, b));
                    } else if let Some(sub_env) = self.env_of(&sub, env_of_module) {
                        out.push((bound, module_namespace(&sub_env)));
                    }
                }
            }
            _ => {}
        }
        out
    }
}

/// The top-level statement of the last star import (`from _bisect import *`, also inside a
/// `try` or an `if`), if any.
fn last_star_import(body: &[ast::Stmt]) -> Option<usize> {
    fn has_star(stmt: &ast::Stmt) -> bool {
        match stmt {
            ast::Stmt::ImportFrom(i) => i.names.iter().any(|a| a.name.as_str() == "*"),
            ast::Stmt::Try(t) => {
                let handlers = t.handlers.iter().flat_map(|h| {
                    let ast::ExceptHandler::ExceptHandler(h) = h;
                    h.body.iter()
                });
                t.body
                    .iter()
                    .chain(handlers)
                    .chain(&t.orelse)
                    .chain(&t.finalbody)
                    .any(has_star)
            }
            ast::Stmt::If(i) => i.body.iter().chain(&i.orelse).any(has_star),
            _ => false,
        }
    }
    body.iter().rposition(has_star)
}

/// A binding a helper of another module can read: it needs no global of the generated module
/// and no check against the importer's own file.
fn plain(b: &Binding) -> bool {
    matches!(
        b,
        Binding::Const(_)
            | Binding::MathModule
            | Binding::NumpyModule
            | Binding::MathMember(_)
            | Binding::NumpyMember(_)
            | Binding::Builtin(_)
            | Binding::Function(_)
            | Binding::BisectModule
            | Binding::Bisect(_)
            | Binding::NumbersModule
            | Binding::NumbersClass(_)
            | Binding::Unresolved(_)
    )
}

/// What the name `name` of a module (its scoped environment `env`) is to a module importing it:
/// a function of that module (resolving its free names there), a constant, a `math` or NumPy
/// member (a module re-exporting them, `from . import numeric as math`, D16);
/// None for anything else (the importer's binding stays unresolved).
fn member(env: &Env, name: &str) -> Option<Binding> {
    match env.get(name)? {
        Binding::Function(fs) => {
            let mut fs = fs.clone();
            if fs.env.is_none() {
                fs.env = Some(env.clone());
            }
            Some(Binding::Function(fs))
        }
        b @ (Binding::Const(_) | Binding::MathMember(_) | Binding::NumpyMember(_)) => {
            Some(b.clone())
        }
        _ => None,
    }
}

/// A module reached through an alias: a namespace of its members (D7, D8).
fn module_namespace(env: &Env) -> Binding {
    let attrs = env
        .keys()
        .filter(|k| !k.starts_with('@'))
        .map(|k| {
            let b = member(env, k)
                .unwrap_or_else(|| Binding::Unresolved(format!("`{k}` of another module")));
            (k.clone(), b)
        })
        .collect();
    Binding::Namespace(attrs)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::env::{AssumedBinding, Const};
    use crate::static_module::{assumptions_of, compile_module_in, Outcome};

    fn foreign(source: &str, path: &str, sha256: Option<&str>) -> ForeignModule {
        ForeignModule {
            source: source.into(),
            path: path.into(),
            sha256: sha256.map(str::to_string),
        }
    }

    /// name -> assumed binding of the marked functions of `source` (module `pkg.m`).
    fn assumed(
        source: &str,
        modules: &[(&str, ForeignModule)],
    ) -> Vec<BTreeMap<String, AssumedBinding>> {
        let modules = modules
            .iter()
            .map(|(n, m)| (n.to_string(), m.clone()))
            .collect();
        let imports = Imports::new("pkg".into(), modules);
        let functions =
            compile_module_in(source, "pkg/m.py", None, false, &imports).expect("parses");
        functions
            .iter()
            .map(|f| assumptions_of(&f.outcome))
            .collect()
    }

    #[test]
    fn constants_computed_by_a_helper_of_a_third_module_and_exception_classes_resolve() {
        let units =
            "from math import pi\n\nRAD = pi / 180.0\n\ndef to_rad(d):\n    return d * RAD\n";
        let consts = "from .units import to_rad\n\nPOLE = to_rad(90.0)\n";
        let errors = "class GeoError(ValueError):\n    pass\n";
        let source = "from array_vectorize import vectorize\nfrom .consts import POLE\nfrom .errors import GeoError\n\n@vectorize\ndef f(lat):\n    if lat > POLE:\n        raise GeoError('beyond a pole')\n    return lat\n";
        let a = assumed(
            source,
            &[
                ("pkg.units", foreign(units, "pkg/units.py", Some("u"))),
                ("pkg.consts", foreign(consts, "pkg/consts.py", Some("c"))),
                ("pkg.errors", foreign(errors, "pkg/errors.py", Some("e"))),
            ],
        );
        assert_eq!(
            a[0]["POLE"],
            AssumedBinding::Const(Const::Float(90.0 * (std::f64::consts::PI / 180.0)))
        );
        let mro = [".GeoError", "ValueError", "Exception", "BaseException"].map(String::from);
        assert_eq!(
            a[0]["GeoError"],
            AssumedBinding::ExceptionClass(mro.to_vec())
        );
    }

    #[test]
    fn a_standard_library_function_is_pinned_by_its_own_text() {
        let calendar = "def isleap(year):\n    return year % 4 == 0 and (year % 100 != 0 or year % 400 == 0)\n\ndef _accelerated(x):\n    return x\n\ntry:\n    from _calendar import *\nexcept ImportError:\n    pass\n\ndef after(x):\n    return x\n";
        let source = "from array_vectorize import vectorize\nfrom calendar import isleap, after\n\n@vectorize\ndef f(y):\n    return 1.0 if isleap(y) else 0.0\n\n@vectorize\ndef g(y):\n    return after(y)\n";
        let modules = [(
            "calendar",
            foreign(calendar, "/usr/lib/python3/calendar.py", None),
        )];
        let text = "def isleap(year):\n    return year % 4 == 0 and (year % 100 != 0 or year % 400 == 0)\n";
        // Defined above the star import: the accelerator may replace it, so f is deferred...
        let imports = Imports::new(
            "pkg".into(),
            modules
                .iter()
                .map(|(n, m)| (n.to_string(), m.clone()))
                .collect(),
        );
        let functions =
            compile_module_in(source, "pkg/m.py", None, false, &imports).expect("parses");
        assert!(matches!(&functions[0].outcome, Outcome::Deferred(n) if n == &["isleap"]));
        // ... and a function below it is the module's own, pinned by its text, not its file.
        let Outcome::Ok(g) = &functions[1].outcome else {
            panic!("g not compiled: {:?}", functions[1].outcome);
        };
        let after = g
            .assumptions
            .iter()
            .find(|a| a.name == "after")
            .expect("assumed");
        let sha = crate::host::cache::sha256_hex(b"def after(x):\n    return x\n");
        assert_eq!(
            after.binding,
            AssumedBinding::StdlibFunction {
                name: "after".into(),
                module: "calendar".into(),
                text_sha256: sha
            }
        );
        let plain = calendar.replace(
            "try:\n    from _calendar import *\nexcept ImportError:\n    pass\n",
            "",
        );
        let a = assumed(
            &source[..source.find("\n@vectorize\ndef g").unwrap_or(source.len())],
            &[("calendar", foreign(&plain, "calendar.py", None))],
        );
        // What the decorator hashes: the function's text as the front end cuts it from its
        // first line (a blank line after it included).
        let own = &plain[..crate::frontend::source::block_len(&plain, false)];
        assert!(own.starts_with(text), "{own:?}");
        let sha = crate::host::cache::sha256_hex(own.as_bytes());
        assert!(
            matches!(&a[0]["isleap"], AssumedBinding::StdlibFunction { text_sha256, .. } if *text_sha256 == sha)
        );
    }

    #[test]
    fn relative_names_resolve_as_importlib_does() {
        assert_eq!(
            resolve_name("units", 1, "pkg").as_deref(),
            Some("pkg.units")
        );
        assert_eq!(
            resolve_name("units", 2, "pkg.sub").as_deref(),
            Some("pkg.units")
        );
        assert_eq!(resolve_name("", 1, "pkg").as_deref(), Some("pkg"));
        assert_eq!(resolve_name("units", 2, "pkg"), None);
        assert_eq!(resolve_name("units", 1, ""), None);
        assert_eq!(
            resolve_name("pkg.units", 0, "x").as_deref(),
            Some("pkg.units")
        );
    }
}
