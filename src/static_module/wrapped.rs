//! Helpers wrapped by a decorator of the module (issue 27, "Decorated helpers"; D7, D8), read
//! from module text for the static compile: the twin of `hook_py/array_vectorize/wrapped.py`,
//! which the live decorator uses. A top-level `def` decorated by a top-level decorator of this
//! shape,
//!
//! ```python
//! def unit_interval(fn):
//!     @functools.wraps(fn)                       # or `@wraps(fn)`, `from functools import wraps`
//!     def wrapper(t, *args, **kwargs):
//!         if not 0.0 <= t <= 1.0:
//!             raise ValueError(f"t must lie in [0, 1], got {t}")
//!         return fn(t, *args, **kwargs)
//!     return wrapper
//!
//! @unit_interval
//! def ease_in(t, power=2): ...
//! ```
//!
//! binds `ease_in` to the function CPython's call of the wrapper runs (wrapped.py's text: the
//! wrapped function's parameters, the wrapper's checks, the forward by position), whose `fn` is
//! the bare `def`. The assumptions the decorator checks at import (precompiled.py): `ease_in` is
//! a function named `ease_in` whose code is the wrapper's (its line: `_same_def`), and
//! `ease_in.__wrapped__` (what the forward calls, recorded under that name through
//! [`ALIAS_PREFIX`]) is the bare `def` at its line; a name bound otherwise at run time fails
//! them, and the decorator compiles the live function. A decorator that wraps with
//! `functools.wraps` in another shape leaves the name unresolved with the reason (the function
//! reading it is deferred, wrapped.py's reason); any other decorator keeps the bare `def`'s
//! binding, which the live object must match.

use std::sync::Arc;

use rustpython_parser::ast::{self, Ranged};

use crate::env::{Binding, Env, FunctionCode, FunctionSource, ALIAS_PREFIX, NOT_THE_PATTERN};
use crate::frontend::extract::assigned_names;
use crate::frontend::tree::{FunctionTree, ParsedModule};
use crate::static_module::text::literal;

/// Rebinds each top-level `def` decorated by one `functools.wraps` decorator of the module (see
/// the module's comment). `bindings` is the module's environment, builtins included.
pub fn bind_wrapped_helpers(module: &Arc<ParsedModule>, bindings: &mut Env) {
    let base = bindings.clone();
    // Each helper's text reads the helpers (itself included: its messages name it) as the
    // wrapped bindings, held without an environment of their own (what the assumption needs).
    let mut shallow = Env::new();
    for pass in 0..2 {
        for (at, stmt) in module.body.iter().enumerate() {
            let Some((def, bound)) = wrapped_binding(module, &base, &shallow, at, stmt) else {
                continue;
            };
            if pass == 0 {
                if let Binding::Function(fs) = &bound {
                    let mut fs = fs.clone();
                    fs.env = None;
                    shallow.insert(def.name.to_string(), Binding::Function(fs));
                }
            } else {
                bindings.insert(def.name.to_string(), bound);
            }
        }
    }
}

/// What the top-level statement `stmt` (number `at`) binds when it is a `def` decorated by one
/// `functools.wraps` decorator of the module: the helper, or unresolved with the reason.
fn wrapped_binding<'m>(
    module: &'m Arc<ParsedModule>,
    base: &Env,
    shallow: &Env,
    at: usize,
    stmt: &'m ast::Stmt,
) -> Option<(&'m ast::StmtFunctionDef, Binding)> {
    let ast::Stmt::FunctionDef(def) = stmt else {
        return None;
    };
    let [ast::Expr::Name(deco)] = def.decorator_list.as_slice() else {
        return None;
    };
    // Bound once (a name bound twice is unresolved by now), by a `def` of the module.
    if !matches!(base.get(def.name.as_str()), Some(Binding::Function(_))) {
        return None;
    }
    let factory = decorator_def(module, base, deco.id.as_str())?;
    // Not a `functools.wraps` decorator: the bare def's binding, which the live object must match.
    let (w_at, wrapper) = wraps_wrapper(module, base, factory)?;
    let mut env = base.clone();
    env.extend(shallow.clone());
    let binding = match helper(module, env, at, def, factory, w_at, wrapper) {
        Ok(b) => b,
        Err(why) => Binding::Unresolved(format!(
            "`{}`, wrapped by `{}.<locals>.{}`{NOT_THE_PATTERN}{why}",
            def.name, factory.name, wrapper.name
        )),
    };
    Some((def, binding))
}

/// The top-level `def` of the decorator `name`, bound once.
fn decorator_def<'m>(
    module: &'m ParsedModule,
    base: &Env,
    name: &str,
) -> Option<&'m ast::StmtFunctionDef> {
    if !matches!(base.get(name), Some(Binding::Function(_))) {
        return None;
    }
    module.body.iter().find_map(|s| match s {
        ast::Stmt::FunctionDef(d) if d.name.as_str() == name => Some(d),
        _ => None,
    })
}

/// The nested `def` of `factory` decorated by `functools.wraps(...)`, and its index in the
/// factory's body, when there is one.
fn wraps_wrapper<'m>(
    module: &ParsedModule,
    base: &Env,
    factory: &'m ast::StmtFunctionDef,
) -> Option<(usize, &'m ast::StmtFunctionDef)> {
    factory.body.iter().enumerate().find_map(|(i, s)| match s {
        ast::Stmt::FunctionDef(w)
            if w.decorator_list.iter().any(|d| match d {
                ast::Expr::Call(c) => is_wraps(module, base, &c.func),
                _ => false,
            }) =>
        {
            Some((i, w))
        }
        _ => None,
    })
}

/// Whether `e` names `functools.wraps`: `functools.wraps` after `import functools` (or its
/// alias), or the name `from functools import wraps` binds, each bound once (whatever the
/// static compile reads that module as: the live wrapper's `__wrapped__` is the assumption).
fn is_wraps(module: &ParsedModule, base: &Env, e: &ast::Expr) -> bool {
    let once = |name: &str| !matches!(base.get(name), Some(Binding::Unresolved(w)) if w == "bound more than once");
    let imports = |bound: &str, from: Option<&str>| {
        module.body.iter().any(|s| match (s, from) {
            (ast::Stmt::Import(i), None) => i.names.iter().any(|a| {
                a.name.as_str() == "functools"
                    && a.asname.as_ref().unwrap_or(&a.name).as_str() == bound
            }),
            (ast::Stmt::ImportFrom(i), Some(name)) => {
                i.module.as_deref() == Some("functools")
                    && i.level.is_none_or(|l| l.to_u32() == 0)
                    && i.names.iter().any(|a| {
                        a.name.as_str() == name
                            && a.asname.as_ref().unwrap_or(&a.name).as_str() == bound
                    })
            }
            _ => false,
        })
    };
    match e {
        ast::Expr::Attribute(a) => match a.value.as_ref() {
            ast::Expr::Name(m) => {
                a.attr.as_str() == "wraps" && once(m.id.as_str()) && imports(m.id.as_str(), None)
            }
            _ => false,
        },
        ast::Expr::Name(n) => once(n.id.as_str()) && imports(n.id.as_str(), Some("wraps")),
        _ => false,
    }
}

/// The binding of the helper `def` (top-level statement `at`) wrapped by `factory`'s `wrapper`
/// (statement `w_at` of the factory), or why the wrapper is not the pattern (wrapped.py's
/// reasons).
fn helper(
    module: &Arc<ParsedModule>,
    base: Env,
    at: usize,
    def: &ast::StmtFunctionDef,
    factory: &ast::StmtFunctionDef,
    w_at: usize,
    wrapper: &ast::StmtFunctionDef,
) -> Result<Binding, String> {
    let fn_name = factory_parameter(factory, wrapper)?;
    let a = &wrapper.args;
    let plain = |p: &ast::ArgWithDefault| p.default.is_none();
    if !a.posonlyargs.is_empty() || !a.kwonlyargs.is_empty() || !a.args.iter().all(plain) {
        return Err("its parameters are more than names, `*args` and `**kwargs`".into());
    }
    let named: Vec<String> = a.args.iter().map(|p| p.def.arg.to_string()).collect();
    let star = a.vararg.as_ref().map(|v| v.arg.to_string());
    let stars = a.kwarg.as_ref().map(|v| v.arg.to_string());
    let Some((last, checks)) = wrapper.body.split_last() else {
        return Err("it does not end by returning the call of the function it wraps".into());
    };
    let forward = forwarded(last, &named, star.as_deref(), stars.as_deref())?;
    if forward != fn_name {
        return Err(format!(
            "the `{forward}` it calls is not the function it closes over"
        ));
    }
    let params = positional_parameters(def)?;
    let helper_name = def.name.to_string();
    if params.contains(&helper_name) || named.contains(&helper_name) {
        return Err(format!("a parameter is named `{helper_name}`"));
    }
    if params.len() < named.len() {
        return Err(format!(
            "it names {} parameters, and `{}` takes {}",
            named.len(),
            def.name,
            params.len()
        ));
    }
    let mut banned = vec![fn_name.as_str()];
    banned.extend(star.as_deref());
    banned.extend(stars.as_deref());
    for check in checks {
        check_uses(module, check, &banned, &fn_name)?;
    }
    let mut assigned = vec![];
    assigned_names(checks, &mut assigned);
    if let Some(n) = assigned
        .iter()
        .find(|n| params.contains(n) || named.contains(n))
    {
        return Err(format!("it assigns `{n}`"));
    }
    let defaults = default_bindings(def)?;
    let text = helper_text(module, def, checks, &named, &params, &fn_name, &defaults)?;
    let tree = |at: Vec<usize>| FunctionTree {
        module: module.clone(),
        at,
    };
    let inner = tree(vec![at]);
    let inner = Binding::Function(Box::new(FunctionSource {
        path: module.path.clone(),
        first_line: inner.first_line(),
        name: def.name.to_string(),
        env: Some(base.clone()),
        code: FunctionCode::Tree(inner),
        library: false,
    }));
    let mut env = base;
    env.extend(defaults);
    env.insert(fn_name.clone(), inner);
    // What the forward calls is checked as `<helper>.__wrapped__` (precompiled.py
    // `_attribute_of`): the closure cell `fn` is no global of the marked function.
    let wrapped = Binding::Unresolved(format!("{}.__wrapped__", def.name));
    env.insert(format!("{ALIAS_PREFIX}{fn_name}"), wrapped);
    let factory_at = module
        .body
        .iter()
        .position(|s| matches!(s, ast::Stmt::FunctionDef(d) if std::ptr::eq(d, factory)));
    let first_line = factory_at.map_or(1, |f| tree(vec![f, w_at]).first_line());
    Ok(Binding::Function(Box::new(FunctionSource {
        path: module.path.clone(),
        first_line,
        name: def.name.to_string(),
        env: Some(env),
        code: FunctionCode::Text(text),
        library: false,
    })))
}

/// The factory's one parameter (the function it wraps), when its body is the wrapper's `def`
/// (after a docstring) and `return wrapper`, the wrapper decorated by `wraps(<parameter>)` alone.
fn factory_parameter(
    factory: &ast::StmtFunctionDef,
    wrapper: &ast::StmtFunctionDef,
) -> Result<String, String> {
    let a = &factory.args;
    let one = a.args.len() == 1
        && a.args[0].default.is_none()
        && a.posonlyargs.is_empty()
        && a.kwonlyargs.is_empty()
        && a.vararg.is_none()
        && a.kwarg.is_none();
    if !one || !factory.decorator_list.is_empty() {
        return Err(format!(
            "`{}` takes more than the function it wraps",
            factory.name
        ));
    }
    let param = a.args[0].def.arg.to_string();
    let body: Vec<&ast::Stmt> = factory
        .body
        .iter()
        .filter(|s| !crate::frontend::validate::is_string_statement(s))
        .collect();
    let returns_wrapper = matches!(body.as_slice(), [ast::Stmt::FunctionDef(w), ast::Stmt::Return(r)]
        if std::ptr::eq(w, wrapper)
            && matches!(r.value.as_deref(), Some(ast::Expr::Name(n)) if n.id == wrapper.name));
    if !returns_wrapper {
        return Err(format!(
            "`{}` does more than define the wrapper and return it",
            factory.name
        ));
    }
    let wraps_param = matches!(wrapper.decorator_list.as_slice(), [ast::Expr::Call(c)]
        if c.keywords.is_empty()
            && matches!(c.args.as_slice(), [ast::Expr::Name(n)] if n.id.as_str() == param));
    if !wraps_param {
        return Err(format!(
            "the wrapper is decorated by more than `wraps({param})`"
        ));
    }
    Ok(param)
}

/// The name `return fn(a, b, *args, **kwargs)` calls, the wrapper's parameters forwarded in
/// order.
fn forwarded(
    last: &ast::Stmt,
    named: &[String],
    star: Option<&str>,
    stars: Option<&str>,
) -> Result<String, String> {
    let not_forward =
        || "it does not end by returning the call of the function it wraps".to_string();
    let ast::Stmt::Return(ast::StmtReturn { value: Some(v), .. }) = last else {
        return Err(not_forward());
    };
    let ast::Expr::Call(call) = v.as_ref() else {
        return Err(not_forward());
    };
    let got: Vec<(&str, Option<&str>)> = call
        .args
        .iter()
        .map(|arg| match arg {
            ast::Expr::Name(n) => ("name", Some(n.id.as_str())),
            ast::Expr::Starred(s) => match s.value.as_ref() {
                ast::Expr::Name(n) => ("star", Some(n.id.as_str())),
                _ => ("other", None),
            },
            _ => ("other", None),
        })
        .collect();
    let mut want: Vec<(&str, Option<&str>)> =
        named.iter().map(|n| ("name", Some(n.as_str()))).collect();
    if let Some(s) = star {
        want.push(("star", Some(s)));
    }
    let keywords: Vec<(Option<&str>, Option<&str>)> = call
        .keywords
        .iter()
        .map(|k| {
            let value = match &k.value {
                ast::Expr::Name(n) => Some(n.id.as_str()),
                _ => None,
            };
            (k.arg.as_ref().map(|a| a.as_str()), value)
        })
        .collect();
    let want_keywords: Vec<(Option<&str>, Option<&str>)> =
        stars.map(|s| (None, Some(s))).into_iter().collect();
    match call.func.as_ref() {
        ast::Expr::Name(f) if got == want && keywords == want_keywords => Ok(f.id.to_string()),
        _ => Err("its last statement does not forward its arguments as it received them".into()),
    }
}

/// The wrapped function's parameters, when all are named (positional or keyword).
fn positional_parameters(def: &ast::StmtFunctionDef) -> Result<Vec<String>, String> {
    let a = &def.args;
    if !a.posonlyargs.is_empty()
        || !a.kwonlyargs.is_empty()
        || a.vararg.is_some()
        || a.kwarg.is_some()
    {
        return Err(format!("`{}` takes more than named parameters", def.name));
    }
    Ok(a.args.iter().map(|p| p.def.arg.to_string()).collect())
}

/// `=<param>` for each default of the wrapped function (the live decorator's
/// `default_bindings`): a number or a table of numbers, else why not.
fn default_bindings(def: &ast::StmtFunctionDef) -> Result<Env, String> {
    let mut out = Env::new();
    for p in &def.args.args {
        let Some(d) = p.default.as_deref() else {
            continue;
        };
        match literal(d) {
            Some(c) => out.insert(format!("={}", p.def.arg), Binding::Const(c)),
            None => {
                return Err(format!(
                    "whose default of `{}` is not a number or a table of numbers",
                    p.def.arg
                ))
            }
        };
    }
    Ok(out)
}

/// Conservative, on the check's text: it reads none of `banned` (the wrapped function, `*args`,
/// `**kwargs`), but the wrapped function in a raise's message (D21), and defines no function
/// or class and binds nothing but through plain assignment (wrapped.py `_check_uses`).
fn check_uses(
    module: &ParsedModule,
    check: &ast::Stmt,
    banned: &[&str],
    fn_name: &str,
) -> Result<(), String> {
    match check {
        ast::Stmt::If(i) => {
            uses_in(module, i.test.range(), banned)?;
            for s in i.body.iter().chain(&i.orelse) {
                check_uses(module, s, banned, fn_name)?;
            }
            Ok(())
        }
        ast::Stmt::Raise(r) => {
            let without_fn: Vec<&str> = banned.iter().copied().filter(|b| *b != fn_name).collect();
            if let Some(e) = r.exc.as_deref() {
                uses_in(module, e.range(), &without_fn)?;
            }
            match r.cause.as_deref() {
                Some(c) => uses_in(module, c.range(), banned),
                None => Ok(()),
            }
        }
        other => uses_in(module, other.range(), banned),
    }
}

fn uses_in(
    module: &ParsedModule,
    range: rustpython_parser::text_size::TextRange,
    banned: &[&str],
) -> Result<(), String> {
    let text = &module.text[usize::from(range.start())..usize::from(range.end())];
    let mut words = text.split(|c: char| !(c.is_alphanumeric() || c == '_'));
    if let Some(w) = words.find(|w| {
        banned.contains(w) || matches!(*w, "def" | "lambda" | "class" | "global" | "nonlocal")
    }) {
        return Err(match w {
            w if banned.contains(&w) => format!("it reads `{w}` before the forward (name the parameter it checks: `def wrapper(t, *args, **kwargs)`)"),
            "global" | "nonlocal" => format!("it declares a name `{w}`"),
            _ => "it defines a function or class".into(),
        });
    }
    if text.contains(":=") || text.contains("\"\"\"") || text.contains("'''") {
        return Err("a check binds a name in an expression or spans a multi-line string".into());
    }
    Ok(())
}

/// The attributes of the wrapped function a message may read: `functools.wraps` copied them
/// to the wrapper, which the helper's own name is bound to.
const COPIED: &[&str] = &["__name__", "__qualname__", "__module__", "__doc__"];

/// `text` with each `<fn>.<attr>` (`attr` one of [`COPIED`]) read through `helper` instead
/// (wrapped.py `_through_helper`): a message then reads a global of its own helper, not the
/// closure cell `fn` that the other helpers of the same decorator name alike (D21).
pub fn through_helper(text: &str, fn_name: &str, helper: &str) -> String {
    let word = |c: char| c.is_alphanumeric() || c == '_';
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    while i < text.len() {
        let rest = &text[i..];
        let before = text[..i].chars().next_back();
        let starts = rest.starts_with(fn_name) && !before.is_some_and(|c| word(c) || c == '.');
        if starts {
            let after = &rest[fn_name.len()..];
            let attr = COPIED.iter().find(|a| {
                after
                    .strip_prefix('.')
                    .and_then(|t| t.strip_prefix(**a))
                    .is_some_and(|t| !t.starts_with(word))
            });
            if let Some(a) = attr {
                out.push_str(helper);
                out.push('.');
                out.push_str(a);
                i += fn_name.len() + 1 + a.len();
                continue;
            }
        }
        let c = rest.chars().next().unwrap_or(' ');
        out.push(c);
        i += c.len_utf8();
    }
    out
}

/// wrapped.py's text of the helper: the wrapped function's signature (its defaults as `=0`,
/// bound through `=<param>`), the wrapper's parameters bound to the wrapped one's where their
/// names differ, the checks as written (each line without the statement's own indentation; the
/// wrapped function's name read through the helper), and the forward by position. Err when the
/// checks read the wrapped function otherwise.
fn helper_text(
    module: &ParsedModule,
    def: &ast::StmtFunctionDef,
    checks: &[ast::Stmt],
    named: &[String],
    params: &[String],
    fn_name: &str,
    defaults: &Env,
) -> Result<String, String> {
    let mut body: Vec<String> = named
        .iter()
        .zip(params)
        .filter(|(p, q)| p != q)
        .map(|(p, q)| format!("{p} = {q}"))
        .collect();
    let text: &str = &module.text;
    for check in checks {
        let start = usize::from(check.range().start());
        let end = usize::from(check.range().end());
        let line_start = text[..start].rfind('\n').map_or(0, |i| i + 1);
        let indent = start - line_start;
        for line in text[line_start..end].lines() {
            let cut = line.len() - line.trim_start().len();
            if line.trim().is_empty() {
                body.push(String::new()); // as `textwrap.dedent` leaves it
                continue;
            }
            let line = through_helper(&line[cut.min(indent)..], fn_name, def.name.as_str());
            if line
                .split(|c: char| !(c.is_alphanumeric() || c == '_'))
                .any(|w| w == fn_name)
            {
                return Err(format!(
                    "it reads `{fn_name}` other than as `{fn_name}.__name__` in a message"
                ));
            }
            body.push(line);
        }
    }
    body.push(format!("return {fn_name}({})", params.join(", ")));
    let signature: Vec<String> = params
        .iter()
        .map(|q| {
            if defaults.contains_key(&format!("={q}")) {
                format!("{q}=0")
            } else {
                q.clone()
            }
        })
        .collect();
    let mut out = format!("def {}({}):\n", def.name, signature.join(", "));
    for line in body {
        // As `textwrap.indent`: a line of blanks is left as it is.
        if !line.trim().is_empty() {
            out.push_str("    ");
        }
        out.push_str(&line);
        out.push('\n');
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use crate::env::AssumedBinding;
    use crate::static_module::{assumptions_of, compile_module, Outcome};

    const MODULE: &str = "import functools\nfrom array_vectorize import vectorize\n\ndef unit_interval(fn):\n    @functools.wraps(fn)\n    def wrapper(t, *args, **kwargs):\n        if not 0.0 <= t <= 1.0:\n            raise ValueError(f\"{fn.__name__}: {t}\")\n        return fn(t, *args, **kwargs)\n    return wrapper\n\n@unit_interval\ndef ease_in(t, power=2):\n    return t**power\n\n@vectorize\ndef f(t):\n    return ease_in(t, 3)\n";

    #[test]
    fn a_wrapped_helper_is_assumed_as_the_wrapper_and_the_def_it_wraps() {
        let functions = compile_module(MODULE, "m.py", None).expect("parses");
        let assumed = assumptions_of(&functions[0].outcome);
        // The wrapper's code (its decorator's line), named as the function it wraps.
        let wrapper = AssumedBinding::Function {
            name: "ease_in".into(),
            line: 5,
        };
        assert_eq!(assumed.get("ease_in"), Some(&wrapper));
        let def = AssumedBinding::Function {
            name: "ease_in".into(),
            line: 12,
        };
        assert_eq!(assumed.get("ease_in.__wrapped__"), Some(&def));
        assert!(!assumed.contains_key("fn"), "{assumed:?}");
    }

    #[test]
    fn a_wrapper_of_another_shape_defers_with_the_reason() {
        for (edit, why) in [
            (
                "        if not 0.0",
                "        if kwargs:\n            raise TypeError()\n        if not 0.0",
            ),
            ("return fn(t, *args, **kwargs)", "return fn(t, *args)"),
            ("def ease_in(t, power=2)", "def ease_in(t, power=None)"),
        ] {
            let source = MODULE.replacen(edit, why, 1);
            let functions = compile_module(&source, "m.py", None).expect("parses");
            let Outcome::Deferred(names) = &functions[0].outcome else {
                panic!("{edit}: {:?}", functions[0].outcome);
            };
            assert!(
                names.len() == 1
                    && names[0].contains(
                        "wrapped by `unit_interval.<locals>.wrapper`, a wrapper that is not"
                    ),
                "{names:?}"
            );
        }
    }
}
