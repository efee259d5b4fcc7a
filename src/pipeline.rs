//! The whole compiler for one function, stage by stage, as cranelift's `Context` runs its
//! passes: front end -> lower -> analyses and rewrites -> codegen. This file only orders the
//! stages; each lives in its own module (see ARCHITECTURE.md).

pub mod constant;
mod instances;
#[cfg(test)]
pub(crate) mod testing;

use crate::analysis::kinds::{infer_kinds_with, CallKinds};
use crate::analysis::mixed::mixed_kinds;
use crate::codegen::{self, CallTargets, Generated};
use crate::diagnostics::{render, CompileError, Diagnostic, DiagnosticKind, Rendered, SourceText};
use crate::env::{Assumption, Env, Hidden};
use crate::frontend;
use crate::ir::verify::Kinds;
use crate::ir::{Function, Kind};
use crate::lower::Lowerer;
use crate::rewrite::{broadcast, cse, dce, fold, legalize};

pub use crate::lower::Options;

/// One function to compile.
pub struct Request<'a> {
    /// Where the function is: text whose first line starts the `def` (or holds the `lambda`),
    /// or a node of a module the static compile parsed once.
    pub input: frontend::Input<'a>,
    /// The function's `__qualname__` (or just its name; `<lambda>` for a lambda): the innermost
    /// class it names mangles private names.
    pub name: &'a str,
    /// What the function's free names are bound to.
    pub env: &'a Env,
    /// Options that shape the generated code.
    pub options: Options,
}

/// A compiled function.
#[derive(Debug, Clone)]
pub struct Compiled {
    /// The generated module text (`generated.source()`).
    pub source: String,
    /// The function in `source` to call.
    pub entry: String,
    /// The generated module as the entry's text and the exact body's text.
    pub generated: Generated,
    /// Values the generated module reads as globals (global arrays, fallback callees).
    pub hidden: Vec<Hidden>,
    /// Every binding the compile read (the static compiler's assumptions).
    pub assumptions: Vec<Assumption>,
    /// The optimized IR (with unknown parameter kinds); printed only when asked for.
    pub ir: Function,
    /// The same IR with float64 parameters (the fast path's); printed only when asked for.
    pub float_ir: Function,
    /// The same IR with int64 parameters (the int body's); printed only when asked for.
    pub int_ir: Function,
    /// The same IR with the mixed body's int64 and float64 parameters (issue 30), when the
    /// function has kinds for one (`mixed_kinds`); printed only when asked for (the fuzz model).
    pub mixed_ir: Option<Function>,
    /// The scalar function's own text (decorators, header, body), for its docstring.
    pub scalar_source: String,
    /// The calls run element by element (D19, D23): `residue` or `call_site`, what is called,
    /// and the call's line.
    pub element_sites: Vec<(&'static str, String, usize)>,
}

/// `ARRAY_VECTORIZE_DEBUG=ir` prints the IR after every pass to stderr.
fn debug_ir() -> bool {
    std::env::var("ARRAY_VECTORIZE_DEBUG").is_ok_and(|v| v.split(',').any(|p| p.trim() == "ir"))
}

/// Compiles one function.
pub fn compile_function(req: &Request) -> Result<Compiled, CompileError> {
    compile_observed(req, &mut |_, _| {})
}

/// [`compile_function`], showing `observe` the IR after every pass (named as [`Passes`] names
/// them: `lower`, `kinds`, `fold`, `cse`, `dce`, `legalize`, `broadcast`, then the same with a
/// `float ` prefix for the float fast path, an `int ` prefix for the int body and a `mixed `
/// prefix for the mixed body, when there is one).
pub fn compile_observed(
    req: &Request,
    observe: &mut dyn FnMut(&str, &Function),
) -> Result<Compiled, CompileError> {
    let mut sources: Vec<SourceText> = vec![];
    let mut diags = vec![];
    let parsed = frontend::parse_function(&mut sources, req.input, req.name, &mut diags);
    let (func, text) = match parsed {
        Ok(x) => x,
        Err(d) => return Err(CompileError::Diagnostics(vec![render(&d, &sources)])),
    };

    let (lowered, lower_diags) = Lowerer::new(&mut sources, req.options).lower(&func, req.env);
    diags.extend(lower_diags);
    // A give-up lowering could not explain is explained by any other diagnostic (validation
    // reports constructs before lowering meets them).
    if diags.iter().any(|d| d.kind != DiagnosticKind::Unexplained) {
        diags.retain(|d| d.kind != DiagnosticKind::Unexplained);
    }
    if let Some(l) = &lowered {
        if !l.deferred.is_empty() {
            return Err(CompileError::Deferred(l.deferred.iter().cloned().collect()));
        }
    }
    let lowered = match lowered {
        Some(l) if diags.is_empty() => l,
        _ => return Err(CompileError::Diagnostics(render_all(diags, &sources))),
    };

    let mut passes = Passes {
        debug: debug_ir(),
        observe,
        prefix: "",
    };
    let mut exact = lowered.func;
    passes.after("lower", Kinds::Fresh, &exact)?;
    // Out-of-line helpers (D7) are optimized once per kinds of their arguments, as needed.
    let mut instances = instances::Instances::new(&lowered.callees, passes.debug);
    let unknown = vec![Kind::Unknown; exact.params.len()];
    passes.optimize(&mut exact, &unknown, &mut |c, k| instances.ret_kind(c, k))?;

    // The float fast path: the same IR with float parameters, simplified again (with float
    // kinds, simplification can drop a dependency: `1.0 if x else 1.0`).
    let mut float = exact.clone();
    let float_params = vec![Kind::Float; float.params.len()];
    passes.prefix = "float ";
    passes.optimize(&mut float, &float_params, &mut |c, k| {
        instances.ret_kind(c, k)
    })?;

    // The int body: the same IR with int64 parameters, for calls whose arguments are all ints
    // (`_vec_int_args`). Knowing the kinds, codegen prints the integer operations that are
    // exactly Python's on every lane as the library's own operators (codegen/choice.rs).
    let mut int = exact.clone();
    let int_params = vec![Kind::Int; int.params.len()];
    passes.prefix = "int ";
    passes.optimize(&mut int, &int_params, &mut |c, k| instances.ret_kind(c, k))?;

    let mixed = mixed_body(&exact, &int, &mut passes, &mut instances)?;

    instances.resolve(&float)?;
    instances.resolve(&int)?;
    if let Some((mixed, _)) = &mixed {
        instances.resolve(mixed)?;
    }
    instances.resolve(&exact)?;
    let targets: CallTargets = instances.into_targets();
    let generated = codegen::generate(
        codegen::Bodies {
            float: &float,
            int: &int,
            mixed: mixed.as_ref().map(|(f, k)| (f, k.as_slice())),
            exact: &exact,
        },
        &lowered.hidden,
        codegen::Signature {
            posonly: func.posonly,
            kwonly: func.kwonly,
        },
        &targets,
    );
    let assumptions = lowered
        .used
        .into_iter()
        .map(|(name, binding)| Assumption { name, binding })
        .collect();
    Ok(Compiled {
        source: generated.source(),
        entry: generated.entry.clone(),
        generated,
        hidden: lowered.hidden,
        assumptions,
        ir: exact,
        float_ir: float,
        int_ir: int,
        mixed_ir: mixed.map(|(f, _)| f),
        scalar_source: text.to_string(),
        element_sites: lowered.element_sites,
    })
}

/// The mixed body (issue 30): the IR optimized for calls of int64 and float64 arguments in the
/// kinds `mixed_kinds` reads from the int body, so that they too avoid the exact body's helpers
/// and may be evaluated in blocks (runtime/blocked.py); None unless both kinds occur.
fn mixed_body(
    exact: &Function,
    int: &Function,
    passes: &mut Passes<'_>,
    instances: &mut instances::Instances<'_>,
) -> Result<Option<(Function, Vec<Kind>)>, CompileError> {
    let Some(kinds) = mixed_kinds(int) else {
        return Ok(None);
    };
    let mut mixed = exact.clone();
    passes.prefix = "mixed ";
    passes.optimize(&mut mixed, &kinds, &mut |c, k| instances.ret_kind(c, k))?;
    Ok(Some((mixed, kinds)))
}

/// Runs the passes after lowering, and after each one dumps the IR when asked for, shows it to
/// the observer, and verifies it (in tests and debug builds; a broken invariant is an internal
/// error, never an abort).
struct Passes<'o> {
    debug: bool,
    observe: &'o mut dyn FnMut(&str, &Function),
    /// Prepended to every pass name (`float ` for the float fast path, `int ` for the int body,
    /// `mixed ` for the mixed body).
    prefix: &'static str,
}

impl Passes<'_> {
    /// [`Self::simplify`], then a raise code made uniform unwrapped and the result broadcast
    /// where needed.
    fn optimize(
        &mut self,
        f: &mut Function,
        params: &[Kind],
        calls: &mut CallKinds,
    ) -> Result<(), CompileError> {
        self.simplify(f, params, calls)?;
        self.run("broadcast", Kinds::Fresh, f, |f| {
            broadcast::uniform_raise_code(f);
            broadcast::broadcast_result(f);
        })
    }

    /// Kinds for `params` (a call's from its callee's instance, `calls`), then fold, CSE and
    /// DCE; then kinds and shapes recomputed on the simplified IR (simplification changes both:
    /// a select of one value is that value) and legalized, so codegen's choices match it.
    fn simplify(
        &mut self,
        f: &mut Function,
        params: &[Kind],
        calls: &mut CallKinds,
    ) -> Result<(), CompileError> {
        use Kinds::{Fresh, Operations};
        self.run("kinds", Fresh, f, |f| infer_kinds_with(f, params, calls))?;
        self.run("fold", Fresh, f, |f| fold::run(f, params, calls))?;
        self.run("cse", Operations, f, cse::run)?;
        self.run("dce", Operations, f, dce::run)?;
        self.run("legalize", Fresh, f, |f| {
            legalize::legalize(f, params, calls);
        })
    }

    fn run(
        &mut self,
        pass: &str,
        kinds: Kinds,
        f: &mut Function,
        p: impl FnOnce(&mut Function),
    ) -> Result<(), CompileError> {
        p(f);
        self.after(pass, kinds, f)
    }

    fn after(&mut self, pass: &str, kinds: Kinds, f: &Function) -> Result<(), CompileError> {
        #[cfg(not(any(test, debug_assertions)))]
        let _ = kinds;
        let name = format!("{}{pass}", self.prefix);
        if self.debug {
            eprintln!("--- {} after {name} ---\n{f}", f.name);
        }
        (self.observe)(&name, f);
        #[cfg(any(test, debug_assertions))]
        crate::ir::verify::verify(f, kinds).map_err(|e| {
            CompileError::Internal(format!("invalid IR after {name} in `{}`: {e}", f.name))
        })?;
        Ok(())
    }
}

/// Diagnostics in source order, each once.
fn render_all(mut diags: Vec<Diagnostic>, sources: &[SourceText]) -> Vec<Rendered> {
    diags.sort_by_key(|d| (d.source, d.start, d.end));
    diags.dedup_by(|a, b| a.source == b.source && a.start == b.start && a.kind == b.kind);
    diags.iter().map(|d| render(d, sources)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pipeline::testing::env;

    #[test]
    fn every_pass_is_observed_in_order() {
        let env = env(&[]);
        let req = Request {
            input: frontend::Input::Text {
                source: "def f(x):\n    return x * 2.0\n",
                path: "t.py",
                first_line: 1,
            },
            name: "f",
            env: &env,
            options: Options::default(),
        };
        let mut names = vec![];
        let compiled = compile_observed(&req, &mut |p, _| names.push(p.to_string()));
        assert!(compiled.is_ok());
        let passes = ["kinds", "fold", "cse", "dce", "legalize", "broadcast"];
        let mut expected = vec!["lower".to_string()];
        expected.extend(passes.iter().map(|p| p.to_string()));
        expected.extend(passes.iter().map(|p| format!("float {p}")));
        expected.extend(passes.iter().map(|p| format!("int {p}")));
        assert_eq!(names, expected);
    }

    #[test]
    fn folding_leaves_phi_kinds_recomputed() {
        // In the float body `isinstance(y, float)` is decided only by folding (D22), so
        // `k if isinstance(y, float) else 2.5` is a float-promoted select until folding resolves
        // it to the int `k`; the sum it feeds becomes an int, and so must the loop's phi before
        // any later simplification reads its kind (D10).
        let src = "def f(x, y):\n    k = 10\n    for i in range(1):\n        v = abs((k if isinstance(y, float) else 2.5) + (3 if y < 2.0 else 10))\n    return v\n";
        let kinds = crate::pipeline::testing::ir_after(src, "float kinds").to_string();
        assert!(kinds.contains(": float = phi("), "{kinds}");
        let folded = crate::pipeline::testing::ir_after(src, "float fold").to_string();
        assert!(folded.contains(": int = phi("), "{folded}");
    }
}
