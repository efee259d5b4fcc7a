//! The stand-in of a function compiled at its first call (issue 31): decorated while a name it
//! reads was not bound yet (a helper defined further down the module, the class whose body is
//! running), it cannot be compiled, nor its precompiled code checked, until it is called. The
//! stand-in declares the original's parameters (so the decorated function's signature is final
//! from the start) and hands them to `_vec_first_call`, which compiles and takes its place.
//! Built as a Python AST like all generated code (src/codegen/pyast.rs).

use crate::codegen::pyast::{self, call, name, Expr, Stmt};

/// The global the stand-in calls with every parameter, in order.
pub const FIRST_CALL: &str = "_vec_first_call";

/// ```python
/// def entry(a, b, /, c, *, d):
///     'note'
///     return _vec_first_call(a, b, c, d)
/// ```
/// `params` are the positional parameters (the first `posonly` positional-only), `kwonly` the
/// keyword-only ones; `note` says why the function waits for its first call.
pub fn first_call_stub(
    entry: &str,
    params: &[String],
    posonly: usize,
    kwonly: &[String],
    note: &str,
) -> String {
    let args = params.iter().chain(kwonly).map(|p| name(p)).collect();
    pyast::module(&[Stmt::Def {
        name: entry.to_string(),
        params: params.to_vec(),
        posonly,
        kwonly: kwonly.to_vec(),
        body: vec![
            Stmt::Expr(Expr::Text(note.to_string())),
            Stmt::Return(call(name(FIRST_CALL), args)),
        ],
    }])
}

#[cfg(test)]
mod tests {
    use super::first_call_stub;

    #[test]
    fn the_stub_keeps_the_signature_and_forwards_every_parameter() {
        let owned = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        let src = first_call_stub("f", &owned(&["a", "b", "c"]), 1, &owned(&["d"]), "why");
        assert_eq!(
            src,
            "def f(a, /, b, c, *, d):\n    'why'\n    return _vec_first_call(a, b, c, d)\n"
        );
        let none = first_call_stub("g", &[], 0, &[], "it's later");
        assert_eq!(
            none,
            "def g():\n    'it\\'s later'\n    return _vec_first_call()\n"
        );
    }
}
