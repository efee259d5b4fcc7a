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
//! Only one level is followed: the other module's own imports of the program's modules stay
//! unresolved.

use std::collections::BTreeMap;

use rustpython_parser::ast;

use crate::env::{Binding, Env, SCOPE_KEY, SHA_KEY};

/// The source of another module of the program.
#[derive(Debug, Clone, PartialEq)]
pub struct ForeignModule {
    pub source: String,
    /// The path diagnostics name.
    pub path: String,
    /// Hex sha256 of the source bytes (what the decorator hashes again).
    pub sha256: String,
}

/// The modules the compiled module's imports may name, by absolute name, and the package its
/// relative imports are resolved against (its `__package__`).
#[derive(Debug, Clone, Default)]
pub struct Imports {
    pub package: String,
    pub modules: BTreeMap<String, ForeignModule>,
}

/// Builds the environment of a module's text (module.rs `module_env`, without imports of the
/// program's modules); None when the text does not parse.
pub type EnvOfText<'a> = &'a dyn Fn(&str, &str) -> Option<Env>;

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
    /// The environment of module `name` as a helper of it sees it: scoped (its module name and
    /// source hash under [`SCOPE_KEY`] and [`SHA_KEY`]).
    fn env_of(&self, name: &str, env_of_text: EnvOfText) -> Option<Env> {
        let m = self.modules.get(name)?;
        let mut env = env_of_text(&m.source, &m.path)?;
        for (k, b) in env.iter_mut() {
            if !plain(b) {
                // Enum and exception classes, classes used as namespaces: globals the generated
                // code would bind from the importer's module, or assumptions checked against its
                // file; the live decorator compiles those.
                *b = Binding::Unresolved(format!("`{k}` of the module {name}"));
            }
        }
        env.insert(SCOPE_KEY.into(), Binding::Unresolved(name.to_string()));
        env.insert(SHA_KEY.into(), Binding::Unresolved(m.sha256.clone()));
        Some(env)
    }

    /// The names `stmt` binds to something of another module of the program that its text pins
    /// down; names it leaves out keep the caller's binding (unresolved).
    pub fn bindings(&self, stmt: &ast::Stmt, env_of_text: EnvOfText) -> Vec<(String, Binding)> {
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
                    if let Some(env) = self.env_of(a.name.as_str(), env_of_text) {
                        out.push((bound, module_namespace(&env)));
                    }
                }
            }
            ast::Stmt::ImportFrom(i) => {
                let module = i.module.as_ref().map(|m| m.to_string()).unwrap_or_default();
                let level = i.level.map_or(0, |l| l.to_u32());
                let Some(absolute) = resolve_name(&module, level, &self.package) else {
                    return out;
                };
                let env = self.env_of(&absolute, env_of_text);
                for a in &i.names {
                    let bound = a.asname.as_ref().unwrap_or(&a.name).to_string();
                    let member = env.as_ref().and_then(|e| member(e, a.name.as_str()));
                    let sub = format!("{absolute}.{}", a.name);
                    if let Some(b) = member {
                        out.push((bound, b));
                    } else if let Some(sub_env) = self.env_of(&sub, env_of_text) {
                        out.push((bound, module_namespace(&sub_env)));
                    }
                }
            }
            _ => {}
        }
        out
    }
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
