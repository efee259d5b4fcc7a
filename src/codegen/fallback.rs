//! The generated module of `fallback=True` for a function that cannot be compiled at all: one
//! element loop (D7) behind the same argument prologue as every generated function. Built as a
//! Python AST like all generated code (src/codegen/pyast.rs), never from a text template.

use crate::codegen::pyast::{self, call, name, Stmt};
use crate::codegen::runtime::{ELEMENTWISE, LOOP_ARGS};

/// The global the scalar function is bound to in the generated module.
pub const ORIGINAL: &str = "_vec_original";

/// ```python
/// def entry(a, b, /, c, *, d):
///     xp, a, b, c, d = _vec_loop_args(a, b, c, d)
///     return _vec_elementwise(xp, _vec_original, a, b, c, d)
/// ```
/// `params` are the positional parameters (the first `posonly` positional-only), `kwonly` the
/// keyword-only ones; `_vec_original` takes them all positionally, in this order. None without
/// parameters: there is nothing to loop over.
pub fn element_loop(
    entry: &str,
    params: &[String],
    posonly: usize,
    kwonly: &[String],
) -> Option<String> {
    let all: Vec<&String> = params.iter().chain(kwonly).collect();
    if all.is_empty() {
        return None;
    }
    let xp = crate::codegen::unique("xp", &all.iter().map(|s| s.to_string()).collect());
    let args: Vec<pyast::Expr> = all.iter().map(|p| name(p)).collect();
    let mut unpack = vec![xp.clone()];
    unpack.extend(all.iter().map(|p| p.to_string()));
    let mut loop_args = vec![name(&xp), name(ORIGINAL)];
    loop_args.extend(args.iter().cloned());
    let body = vec![
        Stmt::Assign(unpack, vec![call(name(LOOP_ARGS.name), args)]),
        Stmt::Return(call(name(ELEMENTWISE.name), loop_args)),
    ];
    Some(pyast::module(&[Stmt::Def {
        name: entry.to_string(),
        params: params.to_vec(),
        posonly,
        kwonly: kwonly.to_vec(),
        body,
    }]))
}

#[cfg(test)]
mod tests {
    use super::element_loop;

    fn owned(v: &[&str]) -> Vec<String> {
        v.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn element_loop_keeps_the_signature_and_passes_every_parameter_in_order() {
        let src = element_loop("f", &owned(&["a", "b", "c"]), 2, &owned(&["d"])).unwrap();
        assert_eq!(
            src,
            "def f(a, b, /, c, *, d):\n    xp, a, b, c, d = _vec_loop_args(a, b, c, d)\n    \
             return _vec_elementwise(xp, _vec_original, a, b, c, d)\n"
        );
    }

    #[test]
    fn element_loop_avoids_a_parameter_named_xp() {
        let src = element_loop("f", &owned(&["xp"]), 0, &[]).unwrap();
        assert!(src.contains("xp_1, xp = _vec_loop_args(xp)"), "{src}");
    }

    #[test]
    fn element_loop_needs_a_parameter() {
        assert!(element_loop("f", &[], 0, &[]).is_none());
    }
}
