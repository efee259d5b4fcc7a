//! Calls: builtins and `math` (`builtins`), D17 calls on arguments that are not plain floats
//! (`special`), NumPy inside scalar code (`numpy`, D16), helpers inlined (`inline`) or lowered on
//! their own and called (`callee`, D7), recursion inlined to a bounded depth with a scalar
//! residue (`recursion`, D19), calls run element by element on the lanes that reach them
//! (`scalar_call`, D19, D23) such as the calls the compiler cannot vectorize under
//! `fallback="calls"` (`call_sites`, D23), classes and module aliases used as namespaces (`namespace`), and
//! the did-you-mean messages for `math` names (`suggest`).

pub(in crate::lower) mod builtins;
pub(in crate::lower) mod call_sites;
pub(in crate::lower) mod callee;
pub(in crate::lower) mod inline;
pub(in crate::lower) mod namespace;
pub(in crate::lower) mod numpy;
pub(in crate::lower) mod recursion;
pub(in crate::lower) mod scalar_call;
pub(in crate::lower) mod special;
pub(in crate::lower) mod suggest;
