//! Names: the environment resolver. A name is a variable of the function (or of the one it is
//! nested in), else a binding of the frozen environment (D8): a constant, a `math` member, an
//! array (a hidden parameter), a callee. It records the bindings it read (the static
//! compiler's assumptions) and the names it left to the live decorator.

use std::collections::{BTreeMap, BTreeSet};

use rustpython_parser::ast;

use crate::diagnostics::DiagnosticKind;
use crate::env::{
    AssumedBinding, Binding, FunctionSource, Hidden, ALIAS_PREFIX, LIVE_OBJECT, NOT_THE_PATTERN,
    SCOPE_KEY, SHA_KEY,
};
use crate::ir::{Const, Op, UniformOp, Value, MATH_CONSTANTS};
use crate::lower::calls::builtins::Callee;
use crate::lower::{Frame, Lowerer, Var, R};

/// What the function's free names resolved to.
#[derive(Default)]
pub(in crate::lower) struct Resolved {
    /// The bindings read, for static compilation's assumptions.
    pub(in crate::lower) used: BTreeMap<String, AssumedBinding>,
    /// Names the static environment could not resolve: the live decorator compiles instead.
    pub(in crate::lower) deferred: BTreeSet<String>,
    /// What the parameters after the declared ones carry, in order.
    pub(in crate::lower) hidden: Vec<Hidden>,
}

impl Resolved {
    /// Records that `name` was read as `binding`.
    pub(in crate::lower) fn assume(&mut self, name: String, binding: AssumedBinding) {
        self.used.insert(name, binding);
    }

    /// Records that `name` could not be resolved statically.
    pub(in crate::lower) fn defer(&mut self, name: &str) {
        self.deferred.insert(name.to_string());
    }
}

impl Lowerer<'_> {
    /// Records that `name` was read as `binding` in `frame`: in a helper of another module of
    /// the program (static compilation), under `<module>:<name>`.
    pub(in crate::lower) fn assume(&mut self, frame: &Frame, name: &str, binding: AssumedBinding) {
        // Issue 27: the function a wrapped helper forwards to, a closure cell, is checked
        // through the helper (`ease_in.__wrapped__`, src/static_module/wrapped.rs).
        if let Some(Binding::Unresolved(alias)) = frame.env.get(&format!("{ALIAS_PREFIX}{name}")) {
            // An empty alias: pinned by another assumption (the Python `_normal_dist_inv_cdf`
            // of a NormalDist's `inv_cdf`, by `statistics.py`'s text hash: normal_dist.rs).
            if !alias.is_empty() {
                self.names.assume(alias.clone(), binding);
            }
            return;
        }
        let name = match frame.env.get(SCOPE_KEY) {
            Some(Binding::Unresolved(module)) => format!("{module}:{name}"),
            _ => name.to_string(),
        };
        self.names.assume(name, binding);
    }

    /// The parameter index of a hidden parameter, allocated on first use.
    pub(in crate::lower) fn hidden_param(&mut self, hidden: Hidden) -> usize {
        let hs = &mut self.names.hidden;
        let idx = match hs.iter().position(|h| *h == hidden) {
            Some(i) => i,
            None => {
                hs.push(hidden);
                hs.len() - 1
            }
        };
        self.f.declared_params + idx
    }

    /// What the called name `name` is: a nested function, a builtin, a `math` function, a helper
    /// (D7) or an opaque callable (fallback=True); Err after reporting anything else.
    pub(in crate::lower) fn callee_named(
        &mut self,
        frame: &Frame,
        name: &str,
        c: &ast::ExprCall,
    ) -> R<Callee> {
        if let Some(local) = frame.local_fns.get(name) {
            return Ok(Callee::Local(local.clone()));
        }
        if frame.vars.contains_key(name) || frame.locals.contains(name) {
            self.error_at(
                frame,
                DiagnosticKind::UnknownCall,
                format!("`{name}` is a variable, not a function: a function passed as an argument or held in a variable is not known when compiling (D7); call the helper by its module-level name"),
                &*c.func,
            );
            return Err(());
        }
        let binding = frame.env.get(name).cloned();
        self.callee_of_binding(frame, name, binding, c)
    }

    /// What a callee bound to `binding` is; `name` is how the call names it (dotted for an
    /// attribute of a namespace, `Units.to_k`), under which the assumption is recorded.
    pub(in crate::lower) fn callee_of_binding(
        &mut self,
        frame: &Frame,
        name: &str,
        binding: Option<Binding>,
        c: &ast::ExprCall,
    ) -> R<Callee> {
        Ok(match binding {
            Some(Binding::Builtin(b)) => {
                self.assume(frame, name, AssumedBinding::Builtin(b.clone()));
                Callee::Builtin(b)
            }
            Some(Binding::MathMember(m)) => {
                self.assume(frame, name, AssumedBinding::MathMember(m.clone()));
                Callee::Math(m)
            }
            Some(Binding::NumpyMember(m)) => {
                // D16: a NumPy function imported by name is the module's function.
                self.assume(frame, name, AssumedBinding::NumpyMember(m.clone()));
                Callee::Numpy(m)
            }
            Some(Binding::Function(fs)) => {
                self.assume(frame, name, function_assumption(&fs));
                Callee::Helper(fs)
            }
            Some(Binding::Bisect(which)) => {
                self.assume(frame, name, AssumedBinding::Bisect(which.clone()));
                Callee::Bisect(which)
            }
            Some(Binding::NumbersClass(class)) => {
                return self.numbers_class_called(frame, name, &class, c)
            }
            Some(Binding::NamedTuple(class, fields)) => {
                let assumed = AssumedBinding::NamedTuple(class.clone(), fields.clone());
                self.assume(frame, name, assumed);
                Callee::NamedTuple(class, fields)
            }
            Some(Binding::OpaqueCallable(what)) => {
                if self.opts.fallback {
                    Callee::Opaque(name.to_string())
                } else {
                    self.error_at(
                        frame,
                        DiagnosticKind::UnknownCall,
                        format!("cannot vectorize a call of `{name}` ({what}): only `math` functions, supported builtins and pure Python functions can be called (D7); pass fallback=\"calls\" to call it element by element (D23)"),
                        &*c.func,
                    );
                    return Err(());
                }
            }
            // D23: an object the compiler cannot read, called as written per element.
            Some(Binding::Unsupported(_)) if self.opts.fallback => Callee::Site,
            Some(Binding::Unsupported(what)) => {
                self.error_at(
                    frame,
                    DiagnosticKind::UnknownCall,
                    format!("cannot call `{name}`: it is {what}; pass fallback=\"calls\" to call it element by element (D23)"),
                    &*c.func,
                );
                return Err(());
            }
            Some(Binding::Unresolved(why)) => {
                self.defer_unresolved(name, &why);
                return Err(());
            }
            None => {
                if self.star_imported(frame, name) {
                    return Err(());
                }
                self.error_at(
                    frame,
                    DiagnosticKind::UnknownCall,
                    format!("cannot call `{name}`: name is not defined"),
                    &*c.func,
                );
                return Err(());
            }
            // A class called (constructed) is a callable of the element loop (fallback=True).
            Some(Binding::Namespace(_)) if self.opts.fallback && !name.contains('.') => {
                Callee::Opaque(name.to_string())
            }
            Some(
                Binding::MathModule
                | Binding::NumpyModule
                | Binding::BisectModule
                | Binding::NumbersModule
                | Binding::Namespace(_),
            ) => {
                self.error_at(
                    frame,
                    DiagnosticKind::UnknownCall,
                    format!("`{name}` is a module or a class used as a namespace: call one of its functions (D7)"),
                    &*c.func,
                );
                return Err(());
            }
            Some(Binding::Const(_))
            | Some(Binding::Array)
            | Some(Binding::Enum(_))
            | Some(Binding::Object(_))
            | Some(Binding::ExceptionClass(_))
            | Some(Binding::ClassMethod(_)) => {
                self.error_at(
                    frame,
                    DiagnosticKind::UnknownCall,
                    format!("`{name}` is not a function"),
                    &*c.func,
                );
                return Err(());
            }
        })
    }

    /// The callee `math.<name>(...)`; Err after reporting any other attribute call.
    pub(in crate::lower) fn callee_attribute(
        &mut self,
        frame: &Frame,
        a: &ast::ExprAttribute,
        c: &ast::ExprCall,
    ) -> R<Callee> {
        if let Some(callee) = self.namespace_callee(frame, a, c) {
            return callee;
        }
        let ast::Expr::Name(base) = a.value.as_ref() else {
            if self.opts.fallback {
                return Ok(Callee::Site); // D23: `NormalDist(mu, sigma).cdf(x)`
            }
            self.error_at(
                frame,
                DiagnosticKind::UnknownCall,
                "only functions of `math`, `numpy`, `bisect`, a module alias or a class used as a namespace can be called as attributes; pass fallback=\"calls\" to call it element by element (D23)".into(),
                &*c.func,
            );
            return Err(());
        };
        if self.is_numpy(frame, base.id.as_str()) || self.is_namespace_arg(frame, base.id.as_str())
        {
            return Ok(Callee::Numpy(a.attr.to_string()));
        }
        if self.resolve_module(frame, base.id.as_str(), &a.value)? {
            Ok(Callee::Math(a.attr.to_string()))
        } else if self.opts.fallback {
            Ok(Callee::Site) // D23: `ND.cdf(x)`, `special.ndtr(x)`
        } else {
            let message = method_call_problem(
                base.id.as_str(),
                a.attr.as_str(),
                frame.vars.contains_key(base.id.as_str())
                    || frame.locals.contains(base.id.as_str()),
            );
            self.error_at(frame, DiagnosticKind::UnknownCall, message, &*c.func);
            Err(())
        }
    }

    /// Defers `name`, bound to something the static compile leaves to the decorator; a reason
    /// that says why (a wrapper it does not read, a NormalDist whose parameters the text does not
    /// give: issue 27) is deferred as is, for the hook's debug log and the build to print.
    pub(in crate::lower) fn defer_unresolved(&mut self, name: &str, why: &str) {
        let told = why.contains(NOT_THE_PATTERN) || why.contains(LIVE_OBJECT);
        self.names.defer(if told { why } else { name });
    }

    /// A name missing from the environment may still be bound by a star import, which only the
    /// live function can tell: the static compile defers instead of reporting it.
    pub(in crate::lower) fn star_imported(&mut self, frame: &Frame, name: &str) -> bool {
        if frame.env.contains_key("*") {
            self.names.defer(name);
            true
        } else {
            false
        }
    }

    pub(in crate::lower) fn is_builtin(&self, frame: &Frame, name: &str, which: &str) -> bool {
        name == which
            && !frame.vars.contains_key(name)
            && !frame.locals.contains(name)
            && matches!(frame.env.get(name), Some(Binding::Builtin(b)) if b == which)
    }

    /// Resolves `name` to `math`; Err after reporting when it is something unusable.
    pub(in crate::lower) fn resolve_module(
        &mut self,
        frame: &Frame,
        name: &str,
        node: &ast::Expr,
    ) -> R<bool> {
        if frame.vars.contains_key(name) || frame.locals.contains(name) {
            return Ok(false);
        }
        match frame.env.get(name) {
            Some(Binding::MathModule) => {
                self.assume(frame, name, AssumedBinding::MathModule);
                Ok(true)
            }
            Some(Binding::Unresolved(why)) => {
                let why = why.clone();
                self.defer_unresolved(name, &why);
                Err(())
            }
            None => {
                if self.star_imported(frame, name) {
                    return Err(());
                }
                self.error_at(
                    frame,
                    DiagnosticKind::UndefinedName,
                    format!("name `{name}` is not defined"),
                    node,
                );
                Err(())
            }
            _ => Ok(false),
        }
    }

    pub(in crate::lower) fn read_name(
        &mut self,
        frame: &mut Frame,
        name: &str,
        node: &ast::Expr,
    ) -> Value {
        let var = frame.vars.get(name).copied().or_else(|| {
            if frame.locals.contains(name) {
                None
            } else {
                frame.outer.get(name).copied()
            }
        });
        // D20: lanes that never assigned it raise UnboundLocalError there.
        if self.tracks(name) && (var.is_some() || frame.locals.contains(name)) {
            if let Some(read) = self.read_tracked(frame, name, var, node) {
                return read.unwrap_or_else(|()| self.poison());
            }
        }
        match var {
            Some(Var::Def(v)) if !self.loops.is_undefined_phi(v) => return v,
            Some(Var::Def(_)) | Some(Var::MaybeUndef) => {
                // Lowered again with the name tracked (D20, `Lowerer::lower`); reported if a
                // frame cannot track it.
                self.note_unbound_read(name);
                self.error_at(
                    frame,
                    DiagnosticKind::MaybeUndefined,
                    format!("`{name}` may be undefined here: it is not assigned on every path before this read (a name first assigned in a loop is defined after it only if every way out assigns it); assign it a value before the `if` or loop that may skip it"),
                    node,
                );
                return self.poison();
            }
            None => {}
        }
        if frame.locals.contains(name) {
            self.note_unbound_read(name);
            self.error_at(
                frame,
                DiagnosticKind::MaybeUndefined,
                format!("local variable `{name}` is read before it is assigned"),
                node,
            );
            return self.poison();
        }
        let binding = frame.env.get(name).cloned();
        self.read_binding(frame, name, binding, node)
    }

    /// The value of a name bound to `binding` in the environment; `name` is how the function
    /// reads it (dotted for an attribute of a namespace, `Const.R`), under which the assumption
    /// is recorded.
    pub(in crate::lower) fn read_binding(
        &mut self,
        frame: &mut Frame,
        name: &str,
        binding: Option<Binding>,
        node: &ast::Expr,
    ) -> Value {
        match binding {
            Some(Binding::Const(c)) => {
                self.assume(frame, name, AssumedBinding::Const(c.clone()));
                self.emit_hint(Op::Const(c), Some(name.to_string()))
            }
            Some(Binding::MathMember(m)) => {
                if let Some((_, value)) = MATH_CONSTANTS.iter().find(|(n, _)| *n == m) {
                    self.assume(frame, name, AssumedBinding::MathMember(m.clone()));
                    let v = self.konst(Const::Float(*value));
                    return self.named_constant(v, name);
                }
                self.not_a_value(frame, name, &format!("the function `math.{m}`"), node)
            }
            Some(Binding::NumpyMember(m)) => {
                // D16: `from numpy import pi`.
                self.assume(frame, name, AssumedBinding::NumpyMember(m.clone()));
                match self.numpy_constant(frame, &m, node) {
                    Ok(v) => self.named_constant(v, name),
                    Err(()) => self.poison(),
                }
            }
            Some(Binding::Array) => {
                let param = self.hidden_param(Hidden::Array(name.to_string()));
                let v = self.emit_hint(Op::Param(param), Some(name.to_string()));
                frame.vars.insert(name.to_string(), Var::Def(v));
                v
            }
            Some(Binding::Enum(members)) => self.enum_class(name, &members),
            Some(Binding::Object(type_name)) => self.uniform_global(name, &type_name),
            Some(Binding::Unresolved(why)) => {
                self.defer_unresolved(name, &why);
                self.poison()
            }
            Some(Binding::MathModule) => self.not_a_value(frame, name, "the `math` module", node),
            Some(Binding::NumpyModule) => self.not_a_value(frame, name, "the `numpy` module", node),
            Some(Binding::BisectModule) => {
                self.not_a_value(frame, name, "the `bisect` module", node)
            }
            Some(Binding::NumbersModule) => {
                self.not_a_value(frame, name, "the `numbers` module", node)
            }
            Some(Binding::NumbersClass(c)) => {
                self.not_a_value(frame, name, &format!("the class `numbers.{c}`"), node)
            }
            Some(Binding::Namespace(_)) => {
                self.not_a_value(frame, name, "a module or a class used as a namespace", node)
            }
            Some(Binding::Bisect(_) | Binding::ClassMethod(_)) => {
                self.not_a_value(frame, name, "a function", node)
            }
            Some(Binding::Builtin(b)) => {
                self.not_a_value(frame, name, &format!("the builtin `{b}`"), node)
            }
            Some(Binding::Function(_)) | Some(Binding::OpaqueCallable(_)) => {
                self.not_a_value(frame, name, "a function", node)
            }
            Some(Binding::ExceptionClass(_)) => {
                self.not_a_value(frame, name, "an exception class", node)
            }
            Some(Binding::NamedTuple(..)) => {
                self.not_a_value(frame, name, "a namedtuple class", node)
            }
            Some(Binding::Unsupported(what)) => {
                self.error_at(
                    frame,
                    DiagnosticKind::UndefinedName,
                    format!("`{name}` is {what}, which cannot be frozen into vectorized code (D8): only numbers, tuples of numbers and arrays can"),
                    node,
                );
                self.poison()
            }
            None => {
                if self.star_imported(frame, name) {
                    return self.poison();
                }
                self.error_at(
                    frame,
                    DiagnosticKind::UndefinedName,
                    format!("name `{name}` is not defined"),
                    node,
                );
                self.poison()
            }
        }
    }

    /// The constant `v` (fresh, from `konst`) that a name bound to a `math` or NumPy constant
    /// reads (`from numpy import inf as big`), named after that name, as `Binding::Const` names
    /// it: the decorator sees the live number (a `const`), the static compile (src/static_module/)
    /// the import's text (a member), and their generated texts must be the same (fuzz seed 713001
    /// #1995: a merged `big` was `tmp_1` in the static compile's text).
    fn named_constant(&mut self, v: Value, name: &str) -> Value {
        self.f.values[v.index()].hint = Some(name.to_string());
        v
    }

    /// The environment's module-level object `name` (a parameter dict, `None`, a string, an Enum
    /// member: [`Binding::Object`]), as a global of the generated module (D8, D14).
    pub(in crate::lower) fn uniform_global(&mut self, name: &str, type_name: &str) -> Value {
        self.names.assume(
            name.to_string(),
            AssumedBinding::Object(type_name.to_string()),
        );
        let param = self.hidden_param(Hidden::Object(name.to_string()));
        let v = self.uniform(UniformOp::Global(param), vec![]);
        self.f.values[v.index()].hint = Some(name.to_string());
        v
    }

    pub(in crate::lower) fn not_a_value(
        &mut self,
        frame: &Frame,
        name: &str,
        what: &str,
        node: &ast::Expr,
    ) -> Value {
        self.error_at(
            frame,
            DiagnosticKind::UnsupportedExpression,
            format!("`{name}` is {what}; it can be called but not used as a value"),
            node,
        );
        self.poison()
    }
}

/// The last component of a qualname: what the live function's `__name__` is.
pub(in crate::lower) fn short_name(qualname: &str) -> String {
    qualname.rsplit('.').next().unwrap_or(qualname).to_string()
}

/// Why `base.attr(...)` cannot be called: `base` is a value (`local`: a variable of the
/// function) or a global that is no module or class, and only the functions of `math`, NumPy,
/// `bisect`, a module alias or a class used as a namespace are called through an attribute. For
/// a method that collects values (`vals.append(x)`), a rewrite that computes without a list.
/// What the static compile assumes of a helper it reads (D8): a function of this module at its
/// line, of another module of the program (its file's hash), or of the standard library (its
/// text's hash).
fn function_assumption(fs: &FunctionSource) -> AssumedBinding {
    let line = fs.first_line;
    match (
        fs.env.as_ref().and_then(|e| e.get(SCOPE_KEY)),
        fs.env.as_ref().and_then(|e| e.get(SHA_KEY)),
    ) {
        (Some(Binding::Unresolved(module)), Some(Binding::Unresolved(sha256))) => {
            AssumedBinding::ModuleFunction {
                name: short_name(&fs.name),
                line,
                module: module.clone(),
                sha256: sha256.clone(),
            }
        }
        (Some(Binding::Unresolved(module)), None) => AssumedBinding::StdlibFunction {
            name: short_name(&fs.name),
            module: module.clone(),
            text_sha256: crate::host::cache::sha256_hex(fs.text().as_bytes()),
        },
        _ => AssumedBinding::Function {
            name: short_name(&fs.name),
            line,
        },
    }
}

fn method_call_problem(base: &str, attr: &str, local: bool) -> String {
    let what = if local {
        format!("`{base}` is a variable of the function, and the methods of values cannot be vectorized")
    } else {
        format!("`{base}` is not a module or a class used as a namespace")
    };
    let rewrite = match attr {
        "append" | "extend" | "insert" | "add" | "update" => format!(
            "; instead of collecting values in `{base}`, combine them as they are computed (`total = total + v` in the loop, or `sum(...)`, `min(...)`, `max(...)`, `any(...)`, `all(...)` of a generator over a range or a table) or give each its own variable"
        ),
        _ => String::new(),
    };
    // D23: an object's method runs element by element where it stands under fallback="calls".
    let fallback = if local {
        ""
    } else {
        "; pass fallback=\"calls\" to call it element by element (D23)"
    };
    format!(
        "cannot call `{base}.{attr}`: {what} (the functions of `math`, NumPy, `bisect`, a module alias or a class used as a namespace can be called through an attribute){rewrite}{fallback}"
    )
}

#[cfg(test)]
mod tests {
    use crate::env::Binding;
    use crate::pipeline::testing::{env, errors, ir_after_with};
    use crate::pipeline::Options;

    #[test]
    fn an_undefined_name_is_reported() {
        let e = errors("def f(x):\n    return x + y\n");
        assert!(
            e.iter().any(|m| m.contains("name `y` is not defined")),
            "{e:?}"
        );
    }

    #[test]
    fn a_global_array_becomes_one_hidden_parameter() {
        let env = env(&[("table", Binding::Array)]);
        let src = "def f(x):\n    return x + table + table\n";
        let f = ir_after_with(src, "lower", &env, Options::default());
        assert_eq!(f.params, ["x", "table"]);
        assert_eq!(f.declared_params, 1);
        assert!(f.to_string().contains("param 1"), "{f}");
    }
}
