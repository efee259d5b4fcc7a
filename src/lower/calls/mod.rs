//! Calls: builtins and `math` (`builtins`), D17 calls on arguments that are not plain floats
//! (`special`), NumPy inside scalar code (`numpy`, D16), helpers inlined (`inline`) or lowered on
//! their own and called (`callee`, D7), classes and module aliases used as namespaces
//! (`namespace`), and the did-you-mean messages for `math` names (`suggest`).

pub(in crate::lower) mod builtins;
pub(in crate::lower) mod callee;
pub(in crate::lower) mod inline;
pub(in crate::lower) mod namespace;
pub(in crate::lower) mod numpy;
pub(in crate::lower) mod special;
pub(in crate::lower) mod suggest;
