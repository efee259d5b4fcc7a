//! Marked functions made by a factory (issue 31): a `def` marked inside a top-level function,
//!
//! ```python
//! def _converter(scale, offset=0.0):
//!     @vectorize
//!     def convert(x):
//!         return x * scale + offset
//!     return convert
//!
//! to_fahrenheit = _converter(1.8, 32.0)     # one precompiled entry per call in the module's
//! to_kelvin = _converter(1.0, offset=273.15)  # top-level code whose arguments the text gives
//! ```
//!
//! is decorated once per call of the factory, each time with other closure values. The static
//! compile finds the calls of the factory in the module's top-level code (class bodies
//! included: they run at import too) and, for each, binds the factory's parameters to the
//! call's arguments (or the defaults), each a constant the text gives (`text::literal`,
//! `pipeline::constant`); every other local of the factory, and a parameter whose argument
//! the text does not give, stays unresolved. The nested function is compiled once per call
//! with those bindings over the module's environment; each closure value it reads is an
//! assumption the decorator checks against the live function's closure cell
//! (`precompiled.py`), so each entry serves the call whose values it was compiled for. A
//! factory called nowhere in the top-level code (or only by running code) leaves its function
//! to the decorator.

use rustpython_parser::ast;

use crate::env::{Binding, Env};
use crate::frontend::extract::assigned_names;
use crate::frontend::tree::ParsedModule;
use crate::pipeline::constant::constant_value;
use crate::static_module::text::literal;

/// The environment of a function nested in `factory` for each call of `factory` in the
/// module's top-level code, in source order: `env` with the factory's locals bound.
pub fn closures(module: &ParsedModule, factory: &ast::StmtFunctionDef, env: &Env) -> Vec<Env> {
    let mut calls = vec![];
    for stmt in &module.body {
        calls_in_stmt(stmt, factory.name.as_str(), &mut calls);
    }
    let mut locals = vec![];
    assigned_names(&factory.body, &mut locals);
    calls
        .into_iter()
        .filter_map(|call| {
            let mut closure = env.clone();
            for name in &locals {
                let why = format!("a local of `{}`, computed when it runs", factory.name);
                closure.insert(name.clone(), Binding::Unresolved(why));
            }
            for (param, value) in bind_arguments(module, &factory.args, call, env)? {
                closure.insert(param, value);
            }
            Some(closure)
        })
        .collect()
}

/// The factory's parameters bound to `call`'s arguments, or their defaults; None when the call
/// would raise TypeError (its module's import fails there).
fn bind_arguments(
    module: &ParsedModule,
    args: &ast::Arguments,
    call: &ast::ExprCall,
    env: &Env,
) -> Option<Vec<(String, Binding)>> {
    let positional: Vec<&ast::ArgWithDefault> = args.posonlyargs.iter().chain(&args.args).collect();
    let value = |e: &ast::Expr| match literal(e).or_else(|| constant_value(e, module, env)) {
        Some(c) => Binding::Const(c),
        None => Binding::Unresolved("an argument of the factory the build cannot evaluate".into()),
    };
    let unpacked = call.args.iter().any(|a| matches!(a, ast::Expr::Starred(_)))
        || call.keywords.iter().any(|k| k.arg.is_none());
    let all = positional.iter().copied().chain(&args.kwonlyargs);
    if unpacked || args.vararg.is_some() || args.kwarg.is_some() {
        let why = "a parameter of a factory called with `*`/`**` arguments";
        return Some(
            all.map(|a| (a.def.arg.to_string(), Binding::Unresolved(why.into())))
                .collect(),
        );
    }
    let keyword_params = &positional[args.posonlyargs.len()..];
    let known = |n: &str| {
        keyword_params
            .iter()
            .copied()
            .chain(&args.kwonlyargs)
            .any(|a| a.def.arg.as_str() == n)
    };
    let keywords_known = call
        .keywords
        .iter()
        .all(|k| k.arg.as_ref().is_some_and(|n| known(n.as_str())));
    if call.args.len() > positional.len() || !keywords_known {
        return None;
    }
    let mut out = vec![];
    for (i, a) in all.enumerate() {
        let name = a.def.arg.as_str();
        let by_position = call.args.get(i).filter(|_| i < positional.len());
        let by_keyword = call
            .keywords
            .iter()
            .filter(|_| i >= args.posonlyargs.len())
            .find(|k| k.arg.as_ref().is_some_and(|n| n.as_str() == name))
            .map(|k| &k.value);
        let bound = match (by_position, by_keyword, a.default.as_deref()) {
            (Some(_), Some(_), _) => return None,
            (Some(e), None, _) | (None, Some(e), _) | (None, None, Some(e)) => value(e),
            (None, None, None) => return None,
        };
        out.push((name.to_string(), bound));
    }
    Some(out)
}

/// Every call of `name` in the code a module's import runs: its statements and class bodies,
/// not the bodies of its functions and lambdas.
fn calls_in_stmt<'m>(stmt: &'m ast::Stmt, name: &str, out: &mut Vec<&'m ast::ExprCall>) {
    use ast::Stmt as S;
    match stmt {
        S::Assign(a) => calls_in_expr(&a.value, name, out),
        S::AnnAssign(a) => {
            if let Some(v) = &a.value {
                calls_in_expr(v, name, out);
            }
        }
        S::Expr(e) => calls_in_expr(&e.value, name, out),
        S::ClassDef(c) => c.body.iter().for_each(|s| calls_in_stmt(s, name, out)),
        S::If(i) => {
            calls_in_expr(&i.test, name, out);
            i.body
                .iter()
                .chain(&i.orelse)
                .for_each(|s| calls_in_stmt(s, name, out));
        }
        _ => {}
    }
}

fn calls_in_expr<'m>(e: &'m ast::Expr, name: &str, out: &mut Vec<&'m ast::ExprCall>) {
    use ast::Expr as E;
    match e {
        E::Call(c) => {
            if matches!(c.func.as_ref(), E::Name(n) if n.id.as_str() == name) {
                out.push(c);
            }
            calls_in_expr(&c.func, name, out);
            c.args.iter().for_each(|a| calls_in_expr(a, name, out));
            c.keywords
                .iter()
                .for_each(|k| calls_in_expr(&k.value, name, out));
        }
        E::Tuple(t) => t.elts.iter().for_each(|a| calls_in_expr(a, name, out)),
        E::List(t) => t.elts.iter().for_each(|a| calls_in_expr(a, name, out)),
        E::Dict(d) => d
            .keys
            .iter()
            .flatten()
            .chain(&d.values)
            .for_each(|a| calls_in_expr(a, name, out)),
        E::Attribute(a) => calls_in_expr(&a.value, name, out),
        E::Subscript(s) => {
            calls_in_expr(&s.value, name, out);
            calls_in_expr(&s.slice, name, out);
        }
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use crate::env::{AssumedBinding, Const};
    use crate::static_module::{assumptions_of, compile_module, Outcome};

    const FACTORY: &str = "from array_vectorize import vectorize\n\nSCALE = 2.0\n\ndef _make(k, offset=0.5, *, sign=1.0):\n    half = k / 2.0\n\n    @vectorize\n    def f(x):\n        return sign * (x * k + offset)\n\n    @vectorize\n    def g(x):\n        return x * half\n\n    return f\n\n";

    fn closure_of(outcome: &Outcome, name: &str) -> Option<Const> {
        assumptions_of(outcome).remove(name).map(|b| match b {
            AssumedBinding::Const(c) => c,
            other => panic!("{name} assumed as {other:?}"),
        })
    }

    #[test]
    fn a_factorys_function_is_compiled_once_per_top_level_call_with_its_arguments() {
        let source = format!(
            "{FACTORY}a = _make(SCALE * 2)\nb = _make(3.0, sign=-1.0)\nTABLE = (_make(1.0, offset=0.0),)\n"
        );
        let functions = compile_module(&source, "m.py", None).expect("parses");
        let f: Vec<_> = functions
            .iter()
            .filter(|f| f.qualname == "_make.<locals>.f")
            .collect();
        assert_eq!(f.len(), 3);
        assert!(f.iter().all(|f| f.line == 8));
        let k = |i: usize| closure_of(&f[i].outcome, "k");
        assert_eq!(
            [k(0), k(1), k(2)],
            [
                Some(Const::Float(4.0)),
                Some(Const::Float(3.0)),
                Some(Const::Float(1.0))
            ]
        );
        assert_eq!(closure_of(&f[1].outcome, "sign"), Some(Const::Float(-1.0)));
        assert_eq!(closure_of(&f[2].outcome, "offset"), Some(Const::Float(0.0)));
        assert_eq!(closure_of(&f[0].outcome, "offset"), Some(Const::Float(0.5)));
        // A local the factory computes when it runs: left to the decorator.
        let g: Vec<_> = functions
            .iter()
            .filter(|f| f.qualname == "_make.<locals>.g")
            .collect();
        assert!(g
            .iter()
            .all(|g| matches!(&g.outcome, Outcome::Deferred(n) if n == &["half"])));
    }

    #[test]
    fn a_factory_the_text_never_calls_with_known_arguments_leaves_its_function_deferred() {
        for calls in ["", "a = _make(compute())\n", "a = _make(*ARGS)\n"] {
            let source = format!("{FACTORY}{calls}");
            let functions = compile_module(&source, "m.py", None).expect("parses");
            let f = functions
                .iter()
                .find(|f| f.qualname == "_make.<locals>.f")
                .expect("marked");
            assert!(
                matches!(&f.outcome, Outcome::Deferred(_)),
                "{calls}: {:?}",
                f.outcome
            );
        }
        // A call that would raise TypeError at import is no call the build serves.
        let source = format!("{FACTORY}a = _make(1.0, nope=2.0)\n");
        let functions = compile_module(&source, "m.py", None).expect("parses");
        let f = functions.iter().find(|f| f.qualname == "_make.<locals>.f");
        assert!(
            matches!(&f.expect("marked").outcome, Outcome::Deferred(why) if why[0].contains("`_make`"))
        );
    }
}
