//! Static compilation of a whole module (DESIGN.md section 4), for the import hook and the build
//! backend: find the marked functions, resolve free names from module text alone, and compile
//! each function, recording the bindings it relied on as assumptions.
//!
//! Nothing is executed. A name the text does not pin down (a value computed at import time, a
//! name bound twice, an import of anything but `math`) is `Unresolved`; a function that reads one
//! is reported `deferred`, and the decorator compiles it from the live function instead.

pub mod exception_classes;
pub mod imports;
pub mod namespace_class;
pub mod objects;
pub mod text;

use std::collections::BTreeMap;

use crate::Map as HashMap;

use rustpython_parser::ast;
use rustpython_parser::{parse, Mode};

use crate::diagnostics::LineIndex;
use crate::diagnostics::{CompileError, Rendered, SourceText};
use crate::env::{Binding, Env, FunctionSource};
use crate::frontend::source::{check_nesting, Limits};
use crate::pipeline::{compile_function, Compiled, Options, Request};
use crate::static_module::imports::Imports;
use crate::static_module::text::{def_start, function_text, literal};

/// Builtins the compiler gives meaning to.
pub const KNOWN_BUILTINS: &[&str] = &[
    "abs",
    "min",
    "max",
    "int",
    "float",
    "bool",
    "round",
    "pow",
    "range",
    "print",
    "divmod",
    "len",
    "sum",
    "any",
    "all",
    "zip",
    "enumerate",
    "isinstance",
    "str",
    "dict",
    "tuple",
    "list",
];

/// Builtins an exception raised per element may name (D11): the exception classes and the
/// functions messages are built with. The decorator accepts every builtin exception class.
pub const RAISE_BUILTINS: &[&str] = &[
    "ArithmeticError",
    "AssertionError",
    "BaseException",
    "Exception",
    "FloatingPointError",
    "IndexError",
    "KeyError",
    "LookupError",
    "NotImplementedError",
    "OverflowError",
    "RuntimeError",
    "TypeError",
    "ValueError",
    "ZeroDivisionError",
    "format",
    "repr",
    "str",
];

/// Builtins without a vectorized meaning (`dir(builtins)`, lowercase, Python 3.9-3.13).
const OTHER_BUILTINS: &[&str] = &[
    "aiter",
    "anext",
    "ascii",
    "bin",
    "breakpoint",
    "bytearray",
    "bytes",
    "callable",
    "chr",
    "classmethod",
    "compile",
    "complex",
    "copyright",
    "credits",
    "delattr",
    "dir",
    "eval",
    "exec",
    "exit",
    "filter",
    "format",
    "frozenset",
    "getattr",
    "globals",
    "hasattr",
    "hash",
    "help",
    "hex",
    "id",
    "input",
    "issubclass",
    "iter",
    "license",
    "locals",
    "map",
    "memoryview",
    "next",
    "object",
    "oct",
    "open",
    "ord",
    "property",
    "quit",
    "repr",
    "reversed",
    "set",
    "setattr",
    "slice",
    "sorted",
    "staticmethod",
    "super",
    "type",
    "vars",
];

/// How a marked function's decorator was spelled: the options it passes, if literal.
#[derive(Debug, Clone, PartialEq)]
pub struct MarkedOptions {
    pub options: Options,
    /// `namespace=` was given (the generated code is the same; the decorator pins it).
    pub pinned_namespace: bool,
    /// An option the static compiler cannot read (not a literal): compile at run time.
    pub dynamic: Option<String>,
}

#[derive(Debug, Clone)]
#[allow(clippy::large_enum_variant)] // one per marked function; boxing buys nothing
/// What became of one marked function.
pub enum Outcome {
    Ok(Compiled),
    Deferred(Vec<String>),
    Error(Vec<Rendered>),
}

#[derive(Debug, Clone)]
/// One marked function of a module, and what became of it.
pub struct MarkedFunction {
    pub qualname: String,
    pub name: String,
    /// Line of the first decorator: CPython's `co_firstlineno`.
    pub line: usize,
    pub options: MarkedOptions,
    pub outcome: Outcome,
}

/// Compiles every marked function of `source` (and the function `only`, marked or not).
/// `Err` only when the module does not parse.
pub fn compile_module(
    source: &str,
    path: &str,
    only: Option<&str>,
) -> Result<Vec<MarkedFunction>, Rendered> {
    compile_module_with(source, path, only, false)
}

/// [`compile_module`] for a Python running with `-O` when `optimize` (asserts compiled out, D11).
pub fn compile_module_with(
    source: &str,
    path: &str,
    only: Option<&str>,
    optimize: bool,
) -> Result<Vec<MarkedFunction>, Rendered> {
    compile_module_in(source, path, only, optimize, &Imports::default())
}

/// [`compile_module_with`] where the module's imports of `imports.modules` resolve to those
/// modules' text (src/static_module/imports.rs).
pub fn compile_module_in(
    source: &str,
    path: &str,
    only: Option<&str>,
    optimize: bool,
    imports: &Imports,
) -> Result<Vec<MarkedFunction>, Rendered> {
    let text_err = |offset: usize, message: String| {
        let src = SourceText::new(path, source, 1);
        let d = crate::diagnostics::Diagnostic {
            kind: crate::diagnostics::DiagnosticKind::Syntax,
            message,
            source: 0,
            start: offset,
            end: offset + 1,
        };
        crate::diagnostics::render(&d, &[src])
    };
    if let Err((offset, message)) = check_nesting(source, &Limits::MODULE) {
        return Err(text_err(offset, message));
    }
    let module = match parse(source, Mode::Module, path) {
        Ok(ast::Mod::Module(mut m)) => {
            m.body = crate::frontend::identifiers::normalize_body(source, m.body);
            m
        }
        Ok(_) => return Ok(vec![]),
        Err(e) => {
            return Err(text_err(
                usize::from(e.offset),
                format!("cannot parse this module: {}", e.error),
            ))
        }
    };
    let index = LineIndex::new(source);
    let markers = decorator_spellings(&module.body);
    if markers.names.is_empty() && markers.modules.is_empty() && only.is_none() {
        return Ok(vec![]);
    }
    let env = module_env(source, path, &index, &module.body, imports);

    let mut out = vec![];
    let mut visit = |def: &ast::StmtFunctionDef, qualname: String| {
        let mut opts = match marked(def, &markers) {
            Some(o) => o,
            None if only == Some(qualname.as_str()) => MarkedOptions {
                options: Options::default(),
                pinned_namespace: false,
                dynamic: None,
            },
            None => return,
        };
        opts.options.optimize = optimize;
        let (start, _) = def_start(def);
        let (line, _) = index.line_col(source, start);
        let text = function_text(source, &index, def);
        let outcome = if let Some(why) = &opts.dynamic {
            Outcome::Deferred(vec![why.clone()])
        } else {
            let req = Request {
                source: &text,
                path,
                first_line: line,
                name: &qualname,
                env: &env,
                options: opts.options,
            };
            match compile_function(&req) {
                Ok(c) => Outcome::Ok(c),
                Err(CompileError::Deferred(names)) => Outcome::Deferred(names),
                Err(CompileError::Diagnostics(d)) => Outcome::Error(d),
                Err(CompileError::Internal(m)) => Outcome::Deferred(vec![format!("internal: {m}")]),
            }
        };
        out.push(MarkedFunction {
            qualname,
            name: def.name.to_string(),
            line,
            options: opts,
            outcome,
        });
    };
    for stmt in &module.body {
        match stmt {
            ast::Stmt::FunctionDef(def) => visit(def, def.name.to_string()),
            ast::Stmt::ClassDef(class) => {
                for s in &class.body {
                    if let ast::Stmt::FunctionDef(def) = s {
                        visit(def, format!("{}.{}", class.name, def.name));
                    }
                }
            }
            _ => {}
        }
    }
    Ok(out)
}

/// Names under which `vectorize` (or the `array_vectorize` module) is reachable.
struct Markers {
    /// `from array_vectorize import vectorize [as v]`: `v`.
    names: Vec<String>,
    /// `import array_vectorize [as av]`: `av`.
    modules: Vec<String>,
}

fn decorator_spellings(body: &[ast::Stmt]) -> Markers {
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

/// The decorator's options when `def` is marked.
fn marked(def: &ast::StmtFunctionDef, markers: &Markers) -> Option<MarkedOptions> {
    let is_marker = |e: &ast::Expr| match e {
        ast::Expr::Name(n) => markers.names.iter().any(|m| m == n.id.as_str()),
        ast::Expr::Attribute(a) => {
            a.attr.as_str() == "vectorize"
                && matches!(a.value.as_ref(), ast::Expr::Name(n) if markers.modules.iter().any(|m| m == n.id.as_str()))
        }
        _ => false,
    };
    // Only a function whose sole decorator is ours: another decorator could change the function.
    if def.decorator_list.len() != 1 {
        return None;
    }
    let deco = &def.decorator_list[0];
    let mut opts = MarkedOptions {
        options: Options::default(),
        pinned_namespace: false,
        dynamic: None,
    };
    match deco {
        e if is_marker(e) => Some(opts),
        ast::Expr::Call(c) if is_marker(&c.func) => {
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

/// Free names resolvable from module text: `math` imports, literal constants bound once,
/// functions defined once; builtins when not shadowed.
fn module_env(
    source: &str,
    path: &str,
    index: &LineIndex,
    body: &[ast::Stmt],
    imports: &Imports,
) -> Env {
    let mut bind_count: HashMap<String, usize> = HashMap::default();
    let mut bindings: BTreeMap<String, Binding> = BTreeMap::new();
    let count = |n: &str, c: &mut HashMap<String, usize>| *c.entry(n.to_string()).or_default() += 1;
    for stmt in body {
        match stmt {
            ast::Stmt::Import(_) | ast::Stmt::ImportFrom(_) => {
                for (bound, b) in import_bindings(stmt) {
                    count(&bound, &mut bind_count);
                    bindings.insert(bound, b);
                }
                if !imports.modules.is_empty() {
                    bindings.extend(imports.bindings(stmt, &env_of_text));
                }
            }
            ast::Stmt::Assign(a) => {
                for t in &a.targets {
                    let mut names = vec![];
                    target_names(t, &mut names);
                    for n in names {
                        count(&n, &mut bind_count);
                        let b = match (t, literal(&a.value)) {
                            (ast::Expr::Name(_), Some(c)) => Binding::Const(c),
                            (ast::Expr::Name(_), None) => {
                                crate::static_module::objects::object_binding(&a.value)
                            }
                            _ => Binding::Unresolved("computed at import time".into()),
                        };
                        bindings.insert(n, b);
                    }
                }
            }
            ast::Stmt::AnnAssign(a) => {
                let mut names = vec![];
                target_names(&a.target, &mut names);
                for n in names {
                    count(&n, &mut bind_count);
                    let b = match (a.value.as_deref(), a.value.as_deref().and_then(literal)) {
                        (_, Some(c)) => Binding::Const(c),
                        (Some(v), None) if matches!(*a.target, ast::Expr::Name(_)) => {
                            crate::static_module::objects::object_binding(v)
                        }
                        _ => Binding::Unresolved("computed at import time".into()),
                    };
                    bindings.insert(n, b);
                }
            }
            ast::Stmt::FunctionDef(def) => {
                count(def.name.as_str(), &mut bind_count);
                let (start, _) = def_start(def);
                let (line, _) = index.line_col(source, start);
                bindings.insert(
                    def.name.to_string(),
                    Binding::Function(Box::new(FunctionSource {
                        source: function_text(source, index, def),
                        path: path.to_string(),
                        first_line: line,
                        name: def.name.to_string(),
                        env: None,
                        library: false,
                    })),
                );
            }
            other => {
                // Anything else that binds (class, for, with, augmented assignment, ...) makes
                // the name unresolvable.
                let mut names = vec![];
                crate::frontend::extract::assigned_names(std::slice::from_ref(other), &mut names);
                if let ast::Stmt::ClassDef(c) = other {
                    names.push(c.name.to_string());
                }
                for n in names {
                    count(&n, &mut bind_count);
                    bindings.insert(n, Binding::Unresolved("bound at import time".into()));
                }
            }
        }
    }
    crate::static_module::objects::bind_enums(body, &mut bindings);
    crate::static_module::objects::bind_enum_members(&mut bindings);
    crate::static_module::exception_classes::bind_exception_classes(body, &mut bindings);
    crate::static_module::namespace_class::bind_namespaces(
        source,
        path,
        index,
        body,
        &mut bindings,
    );
    // A name bound twice (or written by `global` in a function) is not pinned by the text.
    let mut globals_written = vec![];
    collect_global_writes(body, &mut globals_written);
    for (name, n) in &bind_count {
        if *n > 1 || globals_written.contains(name) {
            bindings.insert(
                name.clone(),
                Binding::Unresolved("bound more than once".into()),
            );
        }
    }
    for b in KNOWN_BUILTINS.iter().chain(RAISE_BUILTINS) {
        bindings
            .entry((*b).to_string())
            .or_insert_with(|| Binding::Builtin((*b).to_string()));
    }
    // Other builtins: the live decorator reports them (or calls them per element under
    // fallback=True, which needs the live object), so the static compile defers.
    for b in OTHER_BUILTINS {
        bindings
            .entry((*b).to_string())
            .or_insert_with(|| Binding::Unresolved(format!("the builtin `{b}`")));
    }
    bindings
}

/// The environment of another module's text, without imports of the program's modules (one
/// level, src/static_module/imports.rs); None when it does not parse or is past the module limits.
fn env_of_text(source: &str, path: &str) -> Option<Env> {
    check_nesting(source, &Limits::MODULE).ok()?;
    let Ok(ast::Mod::Module(mut m)) = parse(source, Mode::Module, path) else {
        return None;
    };
    m.body = crate::frontend::identifiers::normalize_body(source, m.body);
    let index = LineIndex::new(source);
    Some(module_env(
        source,
        path,
        &index,
        &m.body,
        &Imports::default(),
    ))
}

/// The names an `import` or `from ... import` statement binds, with what each is (D8, D15,
/// D16): `math`, `numpy`, `bisect` and their members; anything else is unresolved.
fn import_bindings(stmt: &ast::Stmt) -> Vec<(String, Binding)> {
    let mut out = vec![];
    match stmt {
        ast::Stmt::Import(i) => {
            for a in &i.names {
                let bound = a.asname.as_ref().map_or_else(
                    || a.name.split('.').next().unwrap_or("").to_string(),
                    |n| n.to_string(),
                );
                let b = match a.name.as_str() {
                    "math" => Binding::MathModule,
                    "bisect" => Binding::BisectModule,
                    // D16: assumed to be NumPy; the decorator checks the live module.
                    "numpy" => Binding::NumpyModule,
                    other => Binding::Unresolved(format!("module {other}")),
                };
                out.push((bound, b));
            }
        }
        ast::Stmt::ImportFrom(i) => {
            let module = i.module.as_ref().map(|m| m.to_string()).unwrap_or_default();
            let absolute = i.level.is_none_or(|l| l.to_u32() == 0);
            for a in &i.names {
                let bound = a.asname.as_ref().unwrap_or(&a.name).to_string();
                let b = match (module.as_str(), absolute, bisect_function(a.name.as_str())) {
                    ("math", true, _) => Binding::MathMember(a.name.to_string()),
                    ("bisect", true, Some(which)) => Binding::Bisect(which.to_string()),
                    _ => Binding::Unresolved(format!("imported from {module}")),
                };
                out.push((bound, b));
            }
        }
        _ => {}
    }
    out
}

/// The function `from bisect import <name>` binds, when it reads a table (D15).
fn bisect_function(name: &str) -> Option<&'static str> {
    match name {
        "bisect_left" => Some("bisect_left"),
        "bisect_right" | "bisect" => Some("bisect_right"),
        _ => None,
    }
}

/// Binds every Enum class of the module's top level (D14) to its member names.
fn collect_global_writes(body: &[ast::Stmt], out: &mut Vec<String>) {
    for stmt in body {
        match stmt {
            ast::Stmt::Global(g) => out.extend(g.names.iter().map(|n| n.to_string())),
            ast::Stmt::FunctionDef(d) => collect_global_writes(&d.body, out),
            ast::Stmt::ClassDef(c) => collect_global_writes(&c.body, out),
            ast::Stmt::If(i) => {
                collect_global_writes(&i.body, out);
                collect_global_writes(&i.orelse, out);
            }
            ast::Stmt::For(f) => collect_global_writes(&f.body, out),
            ast::Stmt::While(w) => collect_global_writes(&w.body, out),
            _ => {}
        }
    }
}

fn target_names(t: &ast::Expr, out: &mut Vec<String>) {
    match t {
        ast::Expr::Name(n) => out.push(n.id.to_string()),
        ast::Expr::Tuple(tt) => tt.elts.iter().for_each(|e| target_names(e, out)),
        ast::Expr::List(tt) => tt.elts.iter().for_each(|e| target_names(e, out)),
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse_body(source: &str) -> Vec<ast::Stmt> {
        match parse(source, Mode::Module, "m.py") {
            Ok(ast::Mod::Module(m)) => m.body,
            _ => panic!("does not parse"),
        }
    }

    fn outcome(source: &str) -> Outcome {
        let mut functions = compile_module(source, "m.py", None).expect("parses");
        functions.remove(0).outcome
    }

    #[test]
    fn names_only_the_live_function_knows_are_deferred() {
        let star = "from array_vectorize import vectorize\nfrom consts import *\n\n@vectorize\ndef f(x):\n    return x * SCALE\n";
        assert!(matches!(outcome(star), Outcome::Deferred(n) if n == ["SCALE"]));
        let builtin =
            "from array_vectorize import vectorize\n\n@vectorize\ndef f(x):\n    return sorted(x)\n";
        assert!(matches!(outcome(builtin), Outcome::Deferred(n) if n == ["sorted"]));
        let computed = "from array_vectorize import vectorize\nK = compute()\n\n@vectorize\ndef f(x):\n    return x * K\n";
        assert!(matches!(outcome(computed), Outcome::Deferred(n) if n == ["K"]));
        let twice = "from array_vectorize import vectorize\nK = 1.0\nK = 2.0\n\n@vectorize\ndef f(x):\n    return x * K\n";
        assert!(matches!(outcome(twice), Outcome::Deferred(n) if n == ["K"]));
    }

    #[test]
    fn undecorated_helper_starts_on_its_def_line() {
        // co_firstlineno of an undecorated function is its `def` line; the assumption that the
        // decorator checks against the live helper must say the same.
        let source = "from array_vectorize import vectorize\nK = 2.0\n\ndef helper(x):\n    return x * K\n\n@vectorize\ndef f(x):\n    return helper(x)\n";
        let functions = compile_module(source, "m.py", None).expect("parses");
        let Outcome::Ok(compiled) = &functions[0].outcome else {
            panic!("f did not compile: {:?}", functions[0].outcome);
        };
        let helper = compiled
            .assumptions
            .iter()
            .find(|a| a.name == "helper")
            .expect("assumed");
        assert_eq!(
            helper.binding,
            crate::env::AssumedBinding::Function {
                name: "helper".into(),
                line: 4
            }
        );
        assert_eq!(functions[0].line, 7);
        let env = module_env(
            source,
            "m.py",
            &LineIndex::new(source),
            &parse_body(source),
            &Imports::default(),
        );
        let Some(Binding::Function(f)) = env.get("helper") else {
            panic!("helper is not a function binding");
        };
        assert!(f.source.starts_with("def helper"), "{:?}", f.source);
    }

    #[test]
    fn module_level_objects_compile_statically_as_uniform_globals() {
        let source = "import enum\nfrom array_vectorize import vectorize\n\nclass Regime(enum.Enum):\n    FLAT = 1\n    BANDED = 2\n\nPARAMS = {\"rate\": 0.2}\nREGIME = Regime.BANDED\nCAP = None\nOTHER = Regime.MISSING\n\n@vectorize\ndef f(x):\n    if REGIME == Regime.FLAT and CAP is None:\n        return x * PARAMS[\"rate\"]\n    return x\n\n@vectorize\ndef g(x):\n    if OTHER == Regime.FLAT:\n        return x\n    return x\n";
        let functions = compile_module(source, "m.py", None).expect("parses");
        let Outcome::Ok(compiled) = &functions[0].outcome else {
            panic!("f did not compile: {:?}", functions[0].outcome);
        };
        let assumed = |name: &str| {
            compiled
                .assumptions
                .iter()
                .find(|a| a.name == name)
                .map(|a| a.binding.clone())
        };
        use crate::env::AssumedBinding::Object;
        assert_eq!(assumed("PARAMS"), Some(Object("dict".into())));
        assert_eq!(assumed("REGIME"), Some(Object("Regime".into())));
        assert_eq!(assumed("CAP"), Some(Object("NoneType".into())));
        assert!(
            compiled.source.contains("PARAMS['rate']"),
            "{}",
            compiled.source
        );
        // `Regime.MISSING` is no member: only the live module can say what it is.
        assert!(
            matches!(functions[1].outcome, Outcome::Deferred(_)),
            "{:?}",
            functions[1].outcome
        );
    }

    #[test]
    fn an_enum_class_compiles_statically_with_its_members_assumed() {
        let source = "from enum import Enum\nfrom array_vectorize import vectorize\n\nclass Unit(Enum):\n    SI = 1\n    IMPERIAL = 2\n\n@vectorize\ndef f(x, unit):\n    if unit == Unit.SI:\n        return x\n    return x * 0.3048\n";
        let functions = compile_module(source, "m.py", None).expect("parses");
        let Outcome::Ok(compiled) = &functions[0].outcome else {
            panic!("f did not compile: {:?}", functions[0].outcome);
        };
        let unit = compiled
            .assumptions
            .iter()
            .find(|a| a.name == "Unit")
            .expect("assumed");
        assert_eq!(
            unit.binding,
            crate::env::AssumedBinding::Enum(vec!["SI".into(), "IMPERIAL".into()])
        );
        assert!(
            compiled.source.contains("if unit == Unit.SI:"),
            "{}",
            compiled.source
        );
    }

    #[test]
    fn a_helper_of_another_module_compiles_with_its_file_pinned() {
        use crate::static_module::imports::ForeignModule;
        let units = "K = 273.15\n\ndef to_k(c):\n    return c + K\n\nto_r = make()\n";
        let mut imports = Imports {
            package: "pkg".into(),
            ..Imports::default()
        };
        imports.modules.insert(
            "pkg.units".into(),
            ForeignModule {
                source: units.into(),
                path: "pkg/units.py".into(),
                sha256: "ab".into(),
            },
        );
        let source = "from array_vectorize import vectorize\nfrom .units import to_k, to_r\nimport pkg.units as u\n\n@vectorize\ndef f(c):\n    return to_k(c) * u.K\n\n@vectorize\ndef g(c):\n    return to_r(c)\n";
        let functions =
            compile_module_in(source, "pkg/m.py", None, false, &imports).expect("parses");
        let Outcome::Ok(compiled) = &functions[0].outcome else {
            panic!("f did not compile: {:?}", functions[0].outcome);
        };
        let assumed: BTreeMap<_, _> = compiled
            .assumptions
            .iter()
            .map(|a| (a.name.as_str(), a.binding.clone()))
            .collect();
        assert_eq!(
            assumed["to_k"],
            crate::env::AssumedBinding::ModuleFunction {
                name: "to_k".into(),
                line: 3,
                module: "pkg.units".into(),
                sha256: "ab".into()
            }
        );
        let k = crate::env::AssumedBinding::Const(crate::env::Const::Float(273.15));
        assert_eq!(assumed["pkg.units:K"], k);
        assert_eq!(assumed["u.K"], k);
        // A name the other module binds at run time stays the decorator's.
        assert!(matches!(&functions[1].outcome, Outcome::Deferred(n) if n == &["to_r"]));
        // Without the other module's text, as before.
        let functions = compile_module(source, "pkg/m.py", None).expect("parses");
        assert!(matches!(&functions[0].outcome, Outcome::Deferred(_)));
    }
}
