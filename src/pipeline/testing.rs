//! Helpers for the stage files' unit tests: compile a function and look at the IR after a pass,
//! or at the diagnostics.

use crate::diagnostics::CompileError;
use crate::env::{Binding, Env};
use crate::ir::Function;
use crate::pipeline::{compile_observed, Options, Request};

/// `math`, the builtins, and the extra bindings given.
pub fn env(extra: &[(&str, Binding)]) -> Env {
    let mut env = Env::new();
    env.insert("math".into(), Binding::MathModule);
    for b in [
        "abs",
        "bool",
        "float",
        "int",
        "max",
        "min",
        "pow",
        "range",
        "round",
        "isinstance",
        "str",
        "dict",
        "tuple",
        "list",
    ] {
        env.insert(b.into(), Binding::Builtin(b.into()));
    }
    for (name, b) in extra {
        env.insert(name.to_string(), b.clone());
    }
    env
}

fn request<'a>(source: &'a str, env: &'a Env, options: Options) -> Request<'a> {
    let name = source
        .trim_start()
        .strip_prefix("def ")
        .and_then(|s| s.split('(').next())
        .expect("a test function starts with `def name(`");
    Request {
        input: crate::frontend::Input::Text {
            source: source.trim_start(),
            path: "test.py",
            first_line: 1,
        },
        name,
        env,
        options,
    }
}

/// The IR after `pass` (see `pipeline::compile_observed` for the names).
pub fn ir_after_with(source: &str, pass: &str, env: &Env, options: Options) -> Function {
    let mut seen = None;
    let result = compile_observed(&request(source, env, options), &mut |p, f| {
        if p == pass && seen.is_none() {
            seen = Some(f.clone());
        }
    });
    if let Err(e) = result {
        panic!("does not compile: {e:?}");
    }
    seen.unwrap_or_else(|| panic!("no pass named {pass}"))
}

/// The IR after `pass`, in the default environment and options.
pub fn ir_after(source: &str, pass: &str) -> Function {
    ir_after_with(source, pass, &env(&[]), Options::default())
}

/// The IR text after lowering.
pub fn lowered(source: &str) -> String {
    ir_after(source, "lower").to_string()
}

/// The messages of the diagnostics a compile reports.
pub fn errors_with(source: &str, env: &Env) -> Vec<String> {
    match compile_observed(&request(source, env, Options::default()), &mut |_, _| {}) {
        Err(CompileError::Diagnostics(d)) => d.into_iter().map(|r| r.message).collect(),
        other => panic!("expected diagnostics, got {:?}", other.map(|c| c.source)),
    }
}

/// [`errors_with`] in the default environment.
pub fn errors(source: &str) -> Vec<String> {
    errors_with(source, &env(&[]))
}

/// Compiles module text (after `import math` and the import of `vectorize`; a text that starts with `def` is marked
/// `@vectorize`) through the whole pipeline, for the unit tests of every codegen file.
pub fn compiled(src: &str) -> crate::pipeline::Compiled {
    let mark = if src.starts_with("def ") {
        "@vectorize\n"
    } else {
        ""
    };
    let text = format!("import math\nfrom array_vectorize import vectorize\n\n{mark}{src}");
    let out = crate::static_module::compile_module(&text, "t.py", None).expect("module");
    match out.into_iter().next().map(|f| f.outcome) {
        Some(crate::static_module::Outcome::Ok(c)) => c,
        Some(crate::static_module::Outcome::Error(d)) => panic!("{src} did not compile: {d:?}"),
        _ => panic!("{src} did not compile"),
    }
}
