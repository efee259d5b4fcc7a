//! Helper inlining (D7): a helper of the environment is parsed and validated once per compile
//! through the shared front end, then lowered in place of each call; a nested `def` or lambda
//! likewise, reading the enclosing variables. A function calling itself is inlined to a bounded
//! depth (`elementwise::recursion`, D19); runaway nesting is refused.

use std::rc::Rc;

use rustpython_parser::ast;

use crate::diagnostics::DiagnosticKind;
use crate::env::{Binding, Env, FunctionSource};
use crate::frontend;
use crate::frontend::extract::{span, ParsedFunction};
use crate::ir::Value;
use crate::lower::calls::elementwise::recursion::Recursion;
use crate::lower::calls::elementwise::scalar_call::CallerLanes;
use crate::lower::calls::{callee, MAX_CALL_DEPTH, MAX_INLINED_VALUES};
use crate::lower::{identity, locals_of, Done, Frame, LocalFn, Lowerer, Var, R};
use crate::Map as HashMap;

impl Lowerer<'_> {
    /// The parsed and validated helper `fs`, through the shared front end (once per compile);
    /// Err after reporting what its text holds that cannot be compiled, again at each call (a
    /// call under fallback forgets the report and calls the helper per element, D23). Another
    /// library's problems are kept for its calls to report (`call_helper`).
    pub(in crate::lower) fn parse_helper(&mut self, fs: &FunctionSource) -> R<Rc<ParsedFunction>> {
        let key = (fs.path.clone(), fs.first_line, fs.name.clone());
        if let Some(p) = self.calls.helpers.get(&key) {
            return Ok(p.clone());
        }
        if let Some(found) = self.calls.rejected_helpers.get(&key) {
            if !fs.library {
                self.diags.extend(found.iter().cloned());
            }
            return Err(());
        }
        let mut found = vec![];
        let parsed = frontend::parse_function(self.sources, fs.input(), &fs.name, &mut found);
        match parsed {
            Ok((p, _)) if found.is_empty() => {
                let p = Rc::new(p);
                self.calls.helpers.insert(key, p.clone());
                return Ok(p);
            }
            Ok(_) => {}
            Err(mut d) => {
                d.message = format!("in helper `{}`: {}", fs.name, d.message);
                found.push(d);
            }
        }
        if fs.library {
            self.calls
                .library_problems
                .insert(key.clone(), found.clone());
        } else {
            self.diags.extend(found.iter().cloned());
        }
        self.calls.rejected_helpers.insert(key, found);
        Err(())
    }

    /// A call of a helper function of the environment; under fallback, one the compiler
    /// rejects runs element by element where it is called (D23).
    pub(in crate::lower) fn call_helper(
        &mut self,
        frame: &mut Frame,
        c: &ast::ExprCall,
        fs: &FunctionSource,
    ) -> R<Value> {
        let fallback = self.opts.fallback
            && site_callee(frame, &c.func)
            && !self.exceptions.in_try_statement();
        let mark = fallback.then(|| self.site_mark(frame));
        let value = self.call_helper_reported(frame, c, fs);
        match mark {
            Some(mark) if self.rejected_since(&mark) => {
                self.rewind(frame, mark);
                self.call_site(frame, c)
            }
            _ => value,
        }
    }

    /// [`Self::call_helper`] without fallback. Problems inside another library's function
    /// (`statistics.fmean`), whose source the user does not edit, become one problem at the call
    /// ([`Lowerer::library_call_problem`]).
    fn call_helper_reported(
        &mut self,
        frame: &mut Frame,
        c: &ast::ExprCall,
        fs: &FunctionSource,
    ) -> R<Value> {
        if !fs.library {
            return self.call_helper_inlined(frame, c, fs);
        }
        let mark = self.diags.len();
        let value = self.call_helper_inlined(frame, c, fs);
        let (lowered, own): (Vec<_>, Vec<_>) = self
            .diags
            .drain(mark..)
            .partition(|d| d.source != frame.source);
        self.diags.extend(own);
        let key = (fs.path.clone(), fs.first_line, fs.name.clone());
        let mut inside = self
            .calls
            .library_problems
            .get(&key)
            .cloned()
            .unwrap_or_default();
        inside.extend(lowered);
        if !inside.is_empty() {
            self.library_call_problem(frame, c, fs, &inside);
            return Err(());
        }
        value
    }

    /// The one problem reported at a call of another library's function whose code does not
    /// compile (`inside`: its problems): where the function is, the first of them, and that
    /// `fallback="calls"` runs what cannot be vectorized element by element (D23).
    fn library_call_problem(
        &mut self,
        frame: &Frame,
        c: &ast::ExprCall,
        fs: &FunctionSource,
        inside: &[crate::diagnostics::Diagnostic],
    ) {
        let callee = dotted(&c.func).unwrap_or_else(|| fs.name.clone());
        let first = &inside[0];
        let at = self.sources.get(first.source).map_or(String::new(), |s| {
            let (line, col) = s.position(first.start);
            format!("{}:{line}:{col}: ", s.path)
        });
        let more = match inside.len() {
            1 => String::new(),
            2 => "; 1 more problem there".into(),
            n => format!("; {} more problems there", n - 1),
        };
        self.error_at(
            frame,
            DiagnosticKind::UnknownCall,
            format!(
                "cannot vectorize this call of `{callee}`, a function of another library ({}:{}) whose code does not compile ({at}{}{more}); with `@vectorize(fallback=\"calls\")` what cannot be vectorized runs element by element, calling `{callee}` as it is (D23)",
                fs.path, fs.first_line, first.message
            ),
            c,
        );
    }

    /// [`Self::call_helper`], inlined (or lowered on its own and called, D7).
    fn call_helper_inlined(
        &mut self,
        frame: &mut Frame,
        c: &ast::ExprCall,
        fs: &FunctionSource,
    ) -> R<Value> {
        let parsed = self.parse_helper(fs)?;
        // A function the live environment was still describing when it met this call (a
        // cycle, D19) has the environment it was first lowered in.
        let cycle = match &fs.env {
            None => self
                .calls
                .envs
                .get(&identity(&parsed, self.sources))
                .cloned(),
            Some(_) => None,
        };
        let env = fs.env.as_ref().or(cycle.as_ref()).unwrap_or(frame.env);
        let args = self.call_args(frame, c, &parsed, Some(env))?;
        if let Some(called) = self.call_out_of_line(frame, &parsed, env, &args) {
            return called;
        }
        self.inline(frame, &parsed, env, args, Default::default(), c)
    }

    /// A call of a function nested in the one being lowered: it reads the enclosing variables
    /// as they are at the call.
    pub(in crate::lower) fn call_local(
        &mut self,
        frame: &mut Frame,
        c: &ast::ExprCall,
        local: &LocalFn,
    ) -> R<Value> {
        let args = self.call_args(frame, c, &local.parsed, None)?;
        let outer: HashMap<String, Var> = frame
            .outer
            .iter()
            .chain(frame.vars.iter())
            .map(|(k, v)| (k.clone(), *v))
            .collect();
        // The enclosing function's local functions, as they are at the call, are the callee's
        // too (Python's closure), unless the callee binds the name itself.
        let own = locals_of(&local.parsed);
        let fns: HashMap<String, LocalFn> = frame
            .local_fns
            .iter()
            .filter(|(k, _)| !own.contains(*k))
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect();
        let env = frame.env;
        self.inline(frame, &local.parsed, env, args, (outer, fns), c)
    }

    /// Binds call arguments to the callee's parameters (positional, then keywords, then the
    /// defaults: evaluated in `defaults_env`, the helper's module, or for a nested function
    /// (None) literals only, as its defaults were evaluated where its `def` ran).
    pub(in crate::lower) fn call_args(
        &mut self,
        frame: &mut Frame,
        c: &ast::ExprCall,
        callee: &ParsedFunction,
        defaults_env: Option<&Env>,
    ) -> R<Vec<Value>> {
        let mut bound: Vec<Option<Value>> = vec![None; callee.params.len()];
        let positional_max = callee.params.len() - callee.kwonly;
        if c.args.len() > positional_max {
            self.error_at(
                frame,
                DiagnosticKind::BadArguments,
                format!(
                    "`{}` takes {} positional arguments, got {}",
                    callee.name,
                    positional_max,
                    c.args.len()
                ),
                c,
            );
            return Err(());
        }
        for (i, a) in c.args.iter().enumerate() {
            bound[i] = Some(self.expr(frame, a));
        }
        for k in &c.keywords {
            let Some(name) = &k.arg else { return Err(()) };
            let Some(i) = callee.params.iter().position(|p| p == name.as_str()) else {
                self.error_at(
                    frame,
                    DiagnosticKind::BadArguments,
                    format!("`{}` has no parameter `{name}`", callee.name),
                    k,
                );
                return Err(());
            };
            if bound[i].is_some() {
                self.error_at(
                    frame,
                    DiagnosticKind::BadArguments,
                    format!("`{}` got two values for `{name}`", callee.name),
                    k,
                );
                return Err(());
            }
            bound[i] = Some(self.expr(frame, &k.value));
        }
        let mut out = vec![];
        for (i, b) in bound.into_iter().enumerate() {
            match (b, callee.defaults.get(i).and_then(Option::as_ref)) {
                (Some(v), _) => out.push(v),
                (None, Some(default)) => {
                    out.push(self.default_value(frame, callee, defaults_env, default)?)
                }
                (None, None) => {
                    self.error_at(
                        frame,
                        DiagnosticKind::BadArguments,
                        format!(
                            "call of `{}` is missing argument `{}`",
                            callee.name, callee.params[i]
                        ),
                        c,
                    );
                    return Err(());
                }
            }
        }
        Ok(out)
    }

    /// A parameter's default: a number, or for a module-level helper also a name or `mod.attr`
    /// of its module (frozen, D8); Err after reporting anything else.
    fn default_value(
        &mut self,
        frame: &Frame,
        callee: &ParsedFunction,
        env: Option<&Env>,
        default: &ast::Expr,
    ) -> R<Value> {
        use ast::Expr as E;
        let number = |e: &E| matches!(e, E::Constant(k) if matches!(k.value, ast::Constant::Int(_) | ast::Constant::Float(_) | ast::Constant::Bool(_)));
        // The live decorator passes the value the `def` computed, as `=<param>` (D8).
        let param = callee
            .defaults
            .iter()
            .position(|d| d.as_ref() == Some(default));
        let live = param.and_then(|i| env?.get(&format!("={}", callee.params[i])));
        if let Some(Binding::Const(c)) = live {
            return Ok(self.konst(c.clone()));
        }
        let named = |e: &E| match e {
            E::Name(_) => env.is_some(),
            E::Attribute(a) => env.is_some() && matches!(a.value.as_ref(), E::Name(_)),
            e => number(e),
        };
        let signed = |e: &E| match e {
            E::UnaryOp(u) => {
                matches!(u.op, ast::UnaryOp::USub | ast::UnaryOp::UAdd) && number(&u.operand)
            }
            e => number(e),
        };
        // D15: a table of numbers written as the default (`table=(0.1, 0.2)`), frozen as the
        // live decorator freezes the tuple the `def` computed.
        let table = match default {
            E::Tuple(t) => t.elts.iter().all(signed),
            E::List(l) => l.elts.iter().all(signed),
            E::Dict(d) => {
                d.keys.iter().all(|k| k.as_ref().is_some_and(signed)) && d.values.iter().all(signed)
            }
            _ => false,
        };
        if table {
            let mut scope = Frame::new(env.unwrap_or(frame.env), callee.source, callee);
            scope.locals.clear();
            return self.table(&mut scope, default, default, false);
        }
        let ok = match default {
            E::UnaryOp(u) => {
                matches!(u.op, ast::UnaryOp::USub | ast::UnaryOp::UAdd) && named(&u.operand)
            }
            // D14: a string or None default (`when="end"`) is a uniform value, immutable.
            E::Constant(k) => {
                matches!(k.value, ast::Constant::Str(_) | ast::Constant::None) || named(default)
            }
            e => named(e),
        };
        if !ok {
            let what = if env.is_some() {
                "a number, a string, `None`, a table of numbers, a name or `module.attr`"
            } else {
                "a number (a nested function's defaults are evaluated where its `def` runs)"
            };
            self.error(
                DiagnosticKind::BadArguments,
                format!(
                    "a default of `{}` used by this call must be {what}; pass the argument",
                    callee.name
                ),
                callee.source,
                span(default).0,
                span(default).1,
            );
            return Err(());
        }
        // Python evaluates a default where the `def` is, in the helper's module: no parameter
        // or local of the helper is visible to it.
        let mut scope = Frame::new(env.unwrap_or(frame.env), callee.source, callee);
        scope.locals.clear();
        Ok(self.expr(&mut scope, default))
    }

    /// Lowers `callee`'s body in place of a call, its parameters bound to `args`, its free
    /// names resolved in `env` (and `outer`, for a nested function); its value is its returns
    /// chained. `(outer, local_fns)` are the variables and local functions of the enclosing
    /// function it sees (both empty for a module-level helper).
    pub(in crate::lower) fn inline(
        &mut self,
        frame: &mut Frame,
        callee: &ParsedFunction,
        env: &Env,
        args: Vec<Value>,
        (outer, local_fns): (HashMap<String, Var>, HashMap<String, LocalFn>),
        c: &ast::ExprCall,
    ) -> R<Value> {
        let statement = self.calls.statement_call == Some(std::ptr::from_ref(c) as usize);
        if statement {
            self.calls.statement_call = None;
        }
        let id = identity(callee, self.sources);
        // D19: a function already being inlined around this call recurses.
        let level = self.calls.call_stack.iter().filter(|f| **f == id).count();
        if level > 0 {
            if let Recursion::Value(v) = self.recursive_call(frame, callee, level, &args, c) {
                return v;
            }
        }
        if self.calls.call_stack.len() >= MAX_CALL_DEPTH {
            self.error_at(
                frame,
                DiagnosticKind::TooComplex,
                "helper calls nested too deeply".into(),
                c,
            );
            return Err(());
        }
        if self.calls.over_budget || self.lowered_values() > MAX_INLINED_VALUES {
            if !self.calls.over_budget {
                self.calls.over_budget = true;
                // Outside out-of-line mode this starts lowering over, and the message is
                // dropped (`callee.rs`).
                let message = callee::over_budget_message(&callee.name);
                self.error_at(frame, DiagnosticKind::TooComplex, message, c);
            }
            return Err(());
        }
        // The callee's returns are its own; the caller's live lanes matter only for
        // protect_domains.
        let caller_live = self.live_lanes(frame);
        let mut inner = Frame::new(env, callee.source, callee);
        inner.outer = outer;
        inner.local_fns = local_fns;
        if self.opts.protect_domains {
            inner.outer_live = caller_live;
        }
        for (p, v) in callee.params.iter().zip(args) {
            inner.vars.insert(p.clone(), Var::Def(v));
        }
        if !self.calls.envs.contains_key(&id) {
            self.calls.envs.insert(id.clone(), env.clone());
        }
        self.start_unbound(&mut inner);
        self.calls.recursion.callers.push(CallerLanes::of(frame));
        self.enter_level(level);
        self.calls.call_stack.push(id);
        self.body(&mut inner, &callee.body);
        self.calls.call_stack.pop();
        self.leave_level(level);
        self.calls.recursion.callers.pop();
        let complete = inner.flow.ended();
        let returns = inner.flow.returns.clone();
        let raises_always = complete && returns.iter().all(|(_, v)| self.exceptions.is_code(*v));
        if let Some(code) = self.raise_chain(&returns, complete) {
            if raises_always {
                // D11: every path of the helper raises, so the call raises on every lane it
                // runs on, as a `raise` there (unpacking its result reads nothing: seed 670010
                // #57, a tuple-returning helper called with a constant its `int()` cannot hold).
                self.raise_on(frame, None, code);
            } else {
                self.raise_from_callee(frame, code);
            }
        }
        let value = self.chain(&returns);
        if complete || statement {
            // A result on no lane (the helper raises on every path, or its result is
            // discarded): any value will do.
            return Ok(value.unwrap_or_else(|| self.konst(crate::ir::Const::Float(0.0))));
        }
        // D20: the lanes that fall off the helper's end return None.
        let site = (callee.source, callee.start, callee.start + 3);
        let none = self.none_everywhere(site);
        Ok(match (value, inner.flow.done) {
            (Some(v), Done::Mask(done)) => self.select(done, v, none),
            _ => none,
        })
    }
}

/// `name` or `a.b.c`: how a call names its callee, when it is a plain name or attribute chain.
fn dotted(e: &ast::Expr) -> Option<String> {
    match e {
        ast::Expr::Name(n) => Some(n.id.to_string()),
        ast::Expr::Attribute(a) => Some(format!("{}.{}", dotted(&a.value)?, a.attr)),
        _ => None,
    }
}

/// Whether a rejected helper called as `callee` can run element by element as written (D23):
/// a name, or an attribute of a module or class (`statistics.fmean`, `Units.to_k`), not of a
/// variable of the function (`cls.other`).
fn site_callee(frame: &Frame, callee: &ast::Expr) -> bool {
    match callee {
        ast::Expr::Name(_) => true,
        ast::Expr::Attribute(a) => match a.value.as_ref() {
            ast::Expr::Name(base) => {
                let base = base.id.as_str();
                !(frame.vars.contains_key(base)
                    || frame.locals.contains(base)
                    || frame.outer.contains_key(base))
            }
            _ => false,
        },
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use crate::env::{Binding, FunctionCode, FunctionSource};
    use crate::pipeline::testing::{env, ir_after_with, lowered};
    use crate::pipeline::Options;

    fn helper(name: &str, source: &str) -> (&'static str, Binding) {
        let fs = FunctionSource {
            code: FunctionCode::Text(source.into()),
            path: "helpers.py".into(),
            first_line: 1,
            name: name.into(),
            env: None,
            library: false,
        };
        (
            if name == "sq" { "sq" } else { "g" },
            Binding::Function(Box::new(fs)),
        )
    }

    #[test]
    fn a_helper_is_inlined() {
        let env = env(&[helper("sq", "def sq(v):\n    return v * v\n")]);
        let src = "def f(x):\n    return sq(x) + 1.0\n";
        let ir = ir_after_with(src, "lower", &env, Options::default()).to_string();
        assert!(ir.contains("mul %0, %0"), "{ir}");
    }

    #[test]
    fn recursion_of_a_nested_function_past_the_levels_is_refused() {
        let e = crate::pipeline::testing::errors(
            "def f(x):\n    def g(v):\n        return g(v - 1.0) if v > 0.0 else v\n    return g(x)\n",
        );
        assert!(
            e.iter().any(|m| m.contains("`g` calls itself deeper than")
                && m.contains("not a function of the module")),
            "{e:?}"
        );
    }

    #[test]
    fn a_nested_function_reads_the_enclosing_variables() {
        let ir = lowered(
            "def f(x):\n    k = 2.0\n    def g(v):\n        return v * k\n    return g(x)\n",
        );
        assert!(ir.contains("mul %0, %1"), "{ir}");
    }
}
