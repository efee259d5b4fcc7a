//! Exception classes of `raise` and `except` (D11): builtin classes, and the program's own plain
//! classes (`class RangeError(ValueError): pass`) that the environment resolves (D8). A class is
//! known by its MRO, itself first: an `except` clause catches a raise site when the clause's
//! class is in the site's MRO, which is how CPython matches. The program's classes are named
//! `.Qualname` in an MRO, so a class of the program never passes for a builtin of the same name.

use rustpython_parser::ast;

use crate::diagnostics::DiagnosticKind;
use crate::env::{AssumedBinding, Binding};
use crate::lower::{Frame, Hidden, Lowerer};

/// An exception class's MRO, itself first, `object` left out.
pub(in crate::lower) type Mro = Vec<String>;

impl Lowerer<'_> {
    /// The exception class `e` names (builtin, or a plain class of the program), recorded as an
    /// assumption of the static compile; None when `e` names no class the compiler knows (the
    /// caller reports it; an unresolved name is deferred here). `raised`: the class is
    /// constructed by the generated code, which then reads it as a global (D8).
    pub(in crate::lower) fn exception_class(
        &mut self,
        frame: &Frame,
        e: &ast::Expr,
        raised: bool,
    ) -> Option<Mro> {
        let ast::Expr::Name(n) = e else { return None };
        let name = n.id.as_str();
        if frame.vars.contains_key(name)
            || frame.locals.contains(name)
            || frame.outer.contains_key(name)
        {
            return None;
        }
        match frame.env.get(name) {
            Some(Binding::Builtin(b)) if b == name => {
                let mro = builtin_mro(name)?;
                self.assume(frame, name, AssumedBinding::Builtin(b.clone()));
                Some(mro)
            }
            Some(Binding::ExceptionClass(mro)) => {
                self.assume(frame, name, AssumedBinding::ExceptionClass(mro.clone()));
                if raised {
                    self.hidden_param(Hidden::Object(name.to_string()));
                }
                Some(mro.clone())
            }
            Some(Binding::Unresolved(_)) => {
                self.names.defer(name);
                None
            }
            _ => None,
        }
    }

    /// Reports `e`, named in an `except` clause, as no exception class the compiler can match
    /// (a deferred name is not reported: the live decorator compiles the function).
    pub(in crate::lower) fn unknown_except_class(&mut self, frame: &Frame, e: &ast::Expr) {
        if let ast::Expr::Name(n) = e {
            if matches!(frame.env.get(n.id.as_str()), Some(Binding::Unresolved(_))) {
                return;
            }
        }
        let message = self.refused_class(frame, e, "caught").unwrap_or_else(|| "an `except` clause of a vectorized function names exception classes: builtin ones (`ValueError`, `(ZeroDivisionError, OverflowError)`, `ArithmeticError`, `Exception`) or the program's own whose body is only `pass` or a docstring (`class RangeError(ValueError): pass`), or nothing (D11: docs/decisions.md#d11)".into());
        self.error_at(frame, DiagnosticKind::UnsupportedExpression, message, e);
    }

    /// The message for `e` when it names an exception class the environment refused (one whose
    /// body defines `__init__`, say), which cannot be `verb` per element.
    pub(in crate::lower) fn refused_class(
        &self,
        frame: &Frame,
        e: &ast::Expr,
        verb: &str,
    ) -> Option<String> {
        let ast::Expr::Name(n) = e else { return None };
        match frame.env.get(n.id.as_str()) {
            Some(Binding::Unsupported(what)) if what.starts_with("the exception class") => {
                Some(format!(
                    "`{}` cannot be {verb} per element: it is {what} (D11: docs/decisions.md#d11)",
                    n.id
                ))
            }
            _ => None,
        }
    }
}

/// Whether a site of class `mro` is caught by an `except` naming the class whose MRO is `base`.
pub(in crate::lower) fn is_subclass(mro: &[String], base: &[String]) -> bool {
    base.first().is_some_and(|b| mro.contains(b))
}

/// A builtin exception class's MRO.
pub fn builtin_mro(name: &str) -> Option<Mro> {
    bases(name).map(|b| b.iter().map(|s| (*s).to_string()).collect())
}

/// A builtin exception class and the classes it derives from, itself first (CPython's MRO).
fn bases(name: &str) -> Option<&'static [&'static str]> {
    const B: &str = "BaseException";
    const E: &str = "Exception";
    const A: &str = "ArithmeticError";
    const L: &str = "LookupError";
    const R: &str = "RuntimeError";
    Some(match name {
        "BaseException" => &[B],
        "Exception" => &[E, B],
        "ArithmeticError" => &[A, E, B],
        "ZeroDivisionError" => &["ZeroDivisionError", A, E, B],
        "OverflowError" => &["OverflowError", A, E, B],
        "FloatingPointError" => &["FloatingPointError", A, E, B],
        "AssertionError" => &["AssertionError", E, B],
        "LookupError" => &[L, E, B],
        "IndexError" => &["IndexError", L, E, B],
        "KeyError" => &["KeyError", L, E, B],
        "ValueError" => &["ValueError", E, B],
        "TypeError" => &["TypeError", E, B],
        "NameError" => &["NameError", E, B],
        "UnboundLocalError" => &["UnboundLocalError", "NameError", E, B],
        "RuntimeError" => &[R, E, B],
        "NotImplementedError" => &["NotImplementedError", R, E, B],
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use crate::env::Binding;
    use crate::pipeline::testing::{env, errors_with, ir_after_with};
    use crate::pipeline::Options;

    fn range_error() -> Binding {
        Binding::ExceptionClass(vec![
            ".RangeError".into(),
            "ValueError".into(),
            "Exception".into(),
            "BaseException".into(),
        ])
    }

    /// The body of the optimized IR (the signature, which names hidden globals, left out).
    fn body_of(source: &str, e: &crate::env::Env) -> String {
        let ir = ir_after_with(source, "dce", e, Options::default()).to_string();
        // The body: past the version header and the signature (which names hidden globals).
        ir.lines().skip(2).collect::<Vec<_>>().join("\n")
    }

    const TRY: &str = "def f(x):\n    try:\n        if x < 0.0:\n            raise RAISED(x)\n        y = x\n    except CAUGHT:\n        y = 0.0\n    return y\n";

    /// The IR of `TRY` raising `raised` and catching `caught`.
    fn try_body(raised: &str, caught: &str) -> String {
        let e = env(&[
            ("RangeError", range_error()),
            ("ValueError", Binding::Builtin("ValueError".into())),
            ("KeyError", Binding::Builtin("KeyError".into())),
        ]);
        body_of(&TRY.replace("RAISED", raised).replace("CAUGHT", caught), &e)
            .replace("RangeError", "ValueError")
    }

    #[test]
    fn a_class_of_the_program_is_caught_by_its_builtin_base() {
        // As a builtin ValueError caught by its own clause, not as one no clause catches.
        let ours = try_body("RangeError", "ValueError");
        assert_eq!(ours, try_body("ValueError", "ValueError"));
        assert_ne!(ours, try_body("ValueError", "KeyError"));
    }

    #[test]
    fn a_builtin_base_is_not_caught_by_the_subclass() {
        assert_eq!(
            try_body("ValueError", "RangeError"),
            try_body("ValueError", "KeyError")
        );
        assert_eq!(
            try_body("RangeError", "RangeError"),
            try_body("ValueError", "ValueError")
        );
    }

    #[test]
    fn a_refused_class_is_named_in_the_message() {
        let e = env(&[(
            "Bad",
            Binding::Unsupported("the exception class `Bad`, whose body defines `__init__`".into()),
        )]);
        let msgs = errors_with(
            "def f(x):\n    try:\n        y = 1.0 / x\n    except Bad:\n        y = 0.0\n    return y\n",
            &e,
        );
        assert!(msgs.iter().any(|m| m.contains("`Bad` cannot be caught per element: it is the exception class `Bad`, whose body defines `__init__`")), "{msgs:?}");
    }
}
