//! Helper inlining (D7): a helper of the environment is parsed and validated once per compile
//! through the shared front end, then lowered in place of each call; a nested `def` or lambda
//! likewise, reading the enclosing variables. Recursion and runaway nesting are refused.

use std::rc::Rc;

use rustpython_parser::ast;

use super::{
    callee, identity, locals_of, Done, Frame, LocalFn, Lowerer, Var, MAX_CALL_DEPTH,
    MAX_INLINED_VALUES, R,
};
use crate::diagnostics::DiagnosticKind;
use crate::env::{Env, FunctionSource};
use crate::extract::ParsedFunction;
use crate::frontend;
use crate::ir::Value;
use crate::Map as HashMap;

impl Lowerer<'_> {
    /// The parsed and validated helper `fs`, through the shared front end (once per compile).
    pub(super) fn parse_helper(&mut self, fs: &FunctionSource) -> R<Rc<ParsedFunction>> {
        let key = (fs.path.clone(), fs.first_line, fs.name.clone());
        if let Some(p) = self.helpers.get(&key) {
            return Ok(p.clone());
        }
        let parsed = frontend::parse_function(
            self.sources,
            &fs.path,
            &fs.source,
            fs.first_line,
            &fs.name,
            &mut self.diags,
        );
        match parsed {
            Ok((p, _)) => {
                let p = Rc::new(p);
                self.helpers.insert(key, p.clone());
                Ok(p)
            }
            Err(mut d) => {
                d.message = format!("in helper `{}`: {}", fs.name, d.message);
                self.diags.push(d);
                Err(())
            }
        }
    }

    /// A call of a helper function of the environment.
    pub(super) fn call_helper(
        &mut self,
        frame: &mut Frame,
        c: &ast::ExprCall,
        fs: &FunctionSource,
    ) -> R<Value> {
        let parsed = self.parse_helper(fs)?;
        let args = self.call_args(frame, c, &parsed)?;
        let env = fs.env.as_ref().unwrap_or(frame.env);
        if let Some(called) = self.call_out_of_line(frame, &parsed, env, &args) {
            return called;
        }
        self.inline(frame, &parsed, env, args, Default::default(), c)
    }

    /// A call of a function nested in the one being lowered: it reads the enclosing variables
    /// as they are at the call.
    pub(super) fn call_local(
        &mut self,
        frame: &mut Frame,
        c: &ast::ExprCall,
        local: &LocalFn,
    ) -> R<Value> {
        let args = self.call_args(frame, c, &local.parsed)?;
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

    /// Binds call arguments to the callee's parameters (positional, then keywords).
    pub(super) fn call_args(
        &mut self,
        frame: &mut Frame,
        c: &ast::ExprCall,
        callee: &ParsedFunction,
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
            match b {
                Some(v) => out.push(v),
                None => {
                    self.error_at(
                        frame,
                        DiagnosticKind::BadArguments,
                        format!("call of `{}` is missing argument `{}` (helper defaults are not supported; pass every argument)", callee.name, callee.params[i]),
                        c,
                    );
                    return Err(());
                }
            }
        }
        Ok(out)
    }

    /// Lowers `callee`'s body in place of a call, its parameters bound to `args`, its free
    /// names resolved in `env` (and `outer`, for a nested function); its value is its returns
    /// chained. `(outer, local_fns)` are the variables and local functions of the enclosing
    /// function it sees (both empty for a module-level helper).
    fn inline(
        &mut self,
        frame: &mut Frame,
        callee: &ParsedFunction,
        env: &Env,
        args: Vec<Value>,
        (outer, local_fns): (HashMap<String, Var>, HashMap<String, LocalFn>),
        c: &ast::ExprCall,
    ) -> R<Value> {
        let id = identity(callee, self.sources);
        if self.call_stack.contains(&id) {
            self.error_at(
                frame,
                DiagnosticKind::Recursion,
                format!("`{}` calls itself (directly or through other helpers); recursion cannot be vectorized", callee.name),
                c,
            );
            return Err(());
        }
        if self.call_stack.len() >= MAX_CALL_DEPTH {
            self.error_at(
                frame,
                DiagnosticKind::TooComplex,
                "helper calls nested too deeply".into(),
                c,
            );
            return Err(());
        }
        if self.over_budget || self.lowered_values() > MAX_INLINED_VALUES {
            if !self.over_budget {
                self.over_budget = true;
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
        self.call_stack.push(id);
        self.body(&mut inner, &callee.body);
        self.call_stack.pop();
        match inner.flow.done {
            Done::Always => {
                let returns = inner.flow.returns.clone();
                self.chain(&returns).ok_or(())
            }
            _ => {
                let (start, end) = (callee.start, callee.start + 3);
                self.error(
                    DiagnosticKind::MissingReturn,
                    format!("helper `{}` can reach the end of its body without returning; add a final `return`", callee.name),
                    callee.source,
                    start,
                    end,
                );
                Err(())
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::env::{Binding, FunctionSource};
    use crate::pipeline::Options;
    use crate::testing::{env, errors_with, ir_after_with, lowered};

    fn helper(name: &str, source: &str) -> (&'static str, Binding) {
        let fs = FunctionSource {
            source: source.into(),
            path: "helpers.py".into(),
            first_line: 1,
            name: name.into(),
            env: None,
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
    fn recursion_is_refused() {
        let env = env(&[helper("g", "def g(v):\n    return g(v)\n")]);
        let e = errors_with("def f(x):\n    return g(x)\n", &env);
        assert!(e.iter().any(|m| m.contains("calls itself")), "{e:?}");
    }

    #[test]
    fn a_nested_function_reads_the_enclosing_variables() {
        let ir = lowered(
            "def f(x):\n    k = 2.0\n    def g(v):\n        return v * k\n    return g(x)\n",
        );
        assert!(ir.contains("mul %0, %1"), "{ir}");
    }
}
