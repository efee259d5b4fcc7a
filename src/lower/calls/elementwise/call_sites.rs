//! Element-wise call sites (D23, `fallback="calls"`; `fallback=True` too): a call the compiler
//! cannot vectorize (another library's function, a method of an object, a `math` function
//! without an array form) runs element by element where it stands, as written, on the lanes
//! that reach it (`scalar_call`), while the rest of the function stays vectorized.
//!
//! ```text
//! def price(s, k, v):                       values, raised = _vec_call_site(xp,
//!     d = (math.log(s / k) + ...) / v    ->     (lambda _vec_a0: ND.cdf(_vec_a0)), lanes, d)
//!     return s * ND.cdf(d) - ...
//! ```
//!
//! The callee expression is kept as written, inside a lambda whose parameters are the
//! function's own variables it reads (each lane's value) and the call's arguments (computed
//! vectorized); the module-level names it reads are globals of the generated module, bound from
//! the function's module (D8: assumptions of the static compile where it resolves them).
//! A helper the compiler rejects is called the same way, by its name (`inline`).

use std::collections::BTreeMap;

use rustpython_parser::ast;

use crate::diagnostics::DiagnosticKind;
use crate::env::{AssumedBinding, Binding};
use crate::frontend::extract::span;
use crate::ir::{ScalarFn, Value};
use crate::lower::exceptions::RaiseMark;
use crate::lower::{Flow, Frame, Hidden, Lowerer, Var, R};
use crate::Map as HashMap;

impl Lowerer<'_> {
    /// `c` run element by element as written (D23, module docs).
    pub(in crate::lower) fn call_site(&mut self, frame: &mut Frame, c: &ast::ExprCall) -> R<Value> {
        let (start, end) = span(&*c.func);
        let callee = self.source_text(frame, start, end);
        let what = format!("the call of `{callee}`");
        let mut names: Vec<&ast::ExprName> = vec![];
        if !self.free_names(frame, &c.func, &mut names) {
            return Err(());
        }
        let mut params: Vec<String> = vec![];
        let mut args = vec![];
        for n in names {
            let name = n.id.as_str();
            if params.iter().any(|p| p == name) {
                continue;
            }
            let local = frame.vars.contains_key(name)
                || frame.locals.contains(name)
                || frame.outer.contains_key(name);
            if !local && !self.site_global(frame, name, n)? {
                continue;
            }
            let node = ast::Expr::Name(n.clone());
            let v = self.read_name(frame, name, &node);
            if self.poisoned.contains(&v) {
                return Err(());
            }
            params.push(name.to_string());
            args.push(v);
        }
        let mut call_args = vec![];
        for (i, a) in c.args.iter().enumerate() {
            if matches!(a, ast::Expr::Starred(_)) {
                self.error_at(frame, DiagnosticKind::BadArguments, format!("{what} runs element by element (D23), and `*` arguments are not supported there; pass the arguments one by one"), a);
                return Err(());
            }
            let text = self.site_argument(frame, a, format!("_vec_a{i}"), &mut params, &mut args);
            call_args.push(text);
        }
        for (i, k) in c.keywords.iter().enumerate() {
            let Some(arg) = &k.arg else {
                self.error_at(frame, DiagnosticKind::BadArguments, format!("{what} runs element by element (D23), and `**` arguments are not supported there; pass the keywords one by one"), k);
                return Err(());
            };
            let text = self.site_argument(
                frame,
                &k.value,
                format!("_vec_k{i}"),
                &mut params,
                &mut args,
            );
            call_args.push(format!("{arg}={text}"));
        }
        if args.iter().any(|a| self.poisoned.contains(a)) {
            return Err(());
        }
        let body = format!("{callee}({})", call_args.join(", "));
        let line = self.line_of(frame, start);
        self.calls
            .recursion
            .sites
            .push(("call_site", callee.clone(), line));
        self.scalar_call(frame, ScalarFn::Lambda(params, body), args, (c, &what))
    }

    /// One argument of a call site (D23): its value, a parameter `p` of the lambda; a list or
    /// tuple display (`statistics.fmean([x, 2.0 * x])`) is built as written in the lambda from
    /// its items' values, parameters `p_0, p_1, ...`. The argument's text in the call.
    fn site_argument(
        &mut self,
        frame: &mut Frame,
        a: &ast::Expr,
        p: String,
        params: &mut Vec<String>,
        args: &mut Vec<Value>,
    ) -> String {
        let (elts, list) = match a {
            ast::Expr::List(l) => (&l.elts, true),
            ast::Expr::Tuple(t) => (&t.elts, false),
            _ => {
                params.push(p.clone());
                args.push(self.expr(frame, a));
                return p;
            }
        };
        let mut items = vec![];
        for (j, e) in elts.iter().enumerate() {
            let item = format!("{p}_{j}");
            params.push(item.clone());
            args.push(self.expr(frame, e));
            items.push(item);
        }
        let inner = items.join(", ");
        match (list, items.len()) {
            (true, _) => format!("[{inner}]"),
            (false, 1) => format!("({inner},)"),
            (false, _) => format!("({inner})"),
        }
    }

    /// What lowering stands at before a helper call under fallback (D23): all that lowering
    /// the call changes, to undo it when the compiler rejects the helper.
    pub(in crate::lower) fn site_mark(&self, frame: &Frame) -> SiteMark {
        SiteMark {
            diags: self.diags.len(),
            deferred: self.names.deferred.len(),
            blocks: self.blocks.len(),
            insts: self.blocks.last().map_or(0, |b| b.insts.len()),
            values: self.f.values.len(),
            raises: self.exceptions.mark(),
            flow: frame.flow.clone(),
            vars: frame.vars.clone(),
            hidden: self.names.hidden.len(),
            used: self.names.used.clone(),
            sites: self.calls.recursion.sites.len(),
        }
    }

    /// Whether the compiler rejected what it lowered since `mark` (it reported why, and deferred
    /// nothing to the live decorator nor ran out of budget, which lower the function again).
    pub(in crate::lower) fn rejected_since(&self, mark: &SiteMark) -> bool {
        self.diags.len() > mark.diags
            && self.names.deferred.len() == mark.deferred
            && !self.calls.over_budget()
            && self.blocks.len() == mark.blocks
    }

    /// Forgets what lowering did since `mark`: its instructions, diagnostics, raise sites, the
    /// frame's flow and variables, the hidden parameters and assumptions it added.
    pub(in crate::lower) fn rewind(&mut self, frame: &mut Frame, mark: SiteMark) {
        self.diags.truncate(mark.diags);
        if let Some(b) = self.blocks.last_mut() {
            b.insts.truncate(mark.insts);
        }
        self.poisoned.retain(|v| v.index() < mark.values);
        self.exceptions.rewind_if_raised(mark.raises);
        frame.flow = mark.flow;
        frame.vars = mark.vars;
        self.names.hidden.truncate(mark.hidden);
        self.names.used = mark.used;
        self.calls.recursion.sites.truncate(mark.sites);
    }

    /// Binds the module-level `name` a call site (D23) or an exception's message (D21) reads as a
    /// global of the generated module (D8), recording what the static compile assumed of it;
    /// Ok(true) when it is a constant, read as a value instead; Err after reporting (or
    /// deferring) a name that is not there.
    pub(in crate::lower) fn site_global(
        &mut self,
        frame: &Frame,
        name: &str,
        node: &ast::ExprName,
    ) -> R<bool> {
        let binding = frame.env.get(name).cloned();
        let assumed = match binding {
            Some(Binding::Const(_)) => return Ok(true),
            Some(Binding::Builtin(b)) if b == name => {
                self.assume(frame, name, AssumedBinding::Builtin(b));
                return Ok(false);
            }
            Some(Binding::Unresolved(_)) => {
                self.names.defer(name);
                return Err(());
            }
            None => {
                if !self.star_imported(frame, name) {
                    let e = ast::Expr::Name(node.clone());
                    self.error_at(
                        frame,
                        DiagnosticKind::UndefinedName,
                        format!("name `{name}` is not defined"),
                        &e,
                    );
                }
                return Err(());
            }
            Some(Binding::MathModule) => Some(AssumedBinding::MathModule),
            Some(Binding::NumpyModule) => Some(AssumedBinding::NumpyModule),
            Some(Binding::BisectModule) => Some(AssumedBinding::BisectModule),
            Some(Binding::MathMember(m)) => Some(AssumedBinding::MathMember(m)),
            Some(Binding::NumpyMember(m)) => Some(AssumedBinding::NumpyMember(m)),
            Some(Binding::NumbersModule) => Some(AssumedBinding::NumbersModule),
            Some(Binding::NumbersClass(c)) => Some(AssumedBinding::NumbersClass(c)),
            Some(Binding::Bisect(w)) => Some(AssumedBinding::Bisect(w)),
            Some(Binding::Function(fs)) => Some(AssumedBinding::Function {
                name: crate::lower::free_names::short_name(&fs.name),
                line: fs.first_line,
            }),
            Some(Binding::Enum(members)) => Some(AssumedBinding::Enum(members)),
            Some(Binding::Object(t)) => Some(AssumedBinding::Object(t)),
            Some(Binding::ExceptionClass(mro)) => Some(AssumedBinding::ExceptionClass(mro)),
            // What only the live function has (an object, a callable, a module of another
            // package): the static compile defers those (unresolved above).
            Some(
                Binding::Namespace(_)
                | Binding::OpaqueCallable(_)
                | Binding::Unsupported(_)
                | Binding::Array
                | Binding::ClassMethod(_)
                | Binding::Builtin(_),
            ) => None,
        };
        if let Some(a) = assumed {
            self.assume(frame, name, a);
        }
        self.hidden_param(Hidden::Object(name.to_string()));
        Ok(false)
    }

    /// The source text `start..end` of the frame's function.
    fn source_text(&self, frame: &Frame, start: usize, end: usize) -> String {
        self.sources
            .get(frame.source)
            .and_then(|s| s.text.get(start..end))
            .unwrap_or_default()
            .to_string()
    }

    /// The line of byte `at` of the frame's source.
    pub(in crate::lower) fn line_of(&self, frame: &Frame, at: usize) -> usize {
        self.sources
            .get(frame.source)
            .map_or(0, |s| s.position(at).0)
    }
}

/// See [`Lowerer::site_mark`].
pub(in crate::lower) struct SiteMark {
    diags: usize,
    deferred: usize,
    blocks: usize,
    insts: usize,
    values: usize,
    raises: RaiseMark,
    flow: Flow,
    vars: HashMap<String, Var>,
    hidden: usize,
    used: BTreeMap<String, AssumedBinding>,
    sites: usize,
}

#[cfg(test)]
mod tests {
    use crate::env::Binding;
    use crate::pipeline::testing::{env, errors_with, ir_after_with};
    use crate::pipeline::Options;

    fn calls() -> Options {
        Options {
            fallback: true,
            ..Options::default()
        }
    }

    #[test]
    fn a_method_of_an_object_runs_per_element_with_its_receiver_as_written() {
        let e = env(&[("ND", Binding::Unsupported("a NormalDist".into()))]);
        let src = "def f(x):\n    return 2.0 * ND.cdf(x)\n";
        let text = ir_after_with(src, "lower", &e, calls()).to_string();
        assert!(
            text.contains("call_site (lambda _vec_a0: ND.cdf(_vec_a0))"),
            "{text}"
        );
        assert_eq!(text.matches("call_site").count(), 1, "{text}");
    }

    #[test]
    fn a_constructed_receiver_reads_the_lanes_variables() {
        let e = env(&[("NormalDist", Binding::OpaqueCallable("a type".into()))]);
        let src = "def f(x, mu, sigma):\n    return NormalDist(mu, sigma).cdf(x)\n";
        let text = ir_after_with(src, "lower", &e, calls()).to_string();
        assert!(
            text.contains("(lambda mu, sigma, _vec_a0: NormalDist(mu, sigma).cdf(_vec_a0))"),
            "{text}"
        );
    }

    #[test]
    fn a_helper_the_compiler_rejects_runs_per_element_by_its_name() {
        let fs = crate::env::FunctionSource {
            code: crate::env::FunctionCode::Text("def g(v):\n    return len(str(v))\n".into()),
            path: "helpers.py".into(),
            first_line: 1,
            name: "g".into(),
            env: None,
            library: false,
        };
        let e = env(&[
            ("g", Binding::Function(Box::new(fs))),
            ("len", Binding::Builtin("len".into())),
            ("str", Binding::Builtin("str".into())),
        ]);
        let src = "def f(x):\n    return x + g(x)\n";
        let text = ir_after_with(src, "lower", &e, calls()).to_string();
        assert!(
            text.contains("call_site (lambda _vec_a0: g(_vec_a0))"),
            "{text}"
        );
        assert!(!errors_with(src, &e).is_empty());
    }

    #[test]
    fn without_fallback_the_call_is_rejected_naming_the_option() {
        let e = env(&[("ND", Binding::Unsupported("a NormalDist".into()))]);
        let msgs = errors_with("def f(x):\n    return ND.cdf(x)\n", &e);
        assert!(
            msgs.iter().any(|m| m.contains("fallback=\"calls\"")),
            "{msgs:?}"
        );
    }
}
