//! Analyses: facts about an IR function, computed without rewriting it (the rewrites are in
//! [`crate::rewrite`]).
//!
//! `kinds` (the Python type of every value), `shapes` (Python scalar or array), `partial` (D3:
//! which scalar operations can raise), `ranges` (which ints may lie outside int64), `coverage`
//! (which parameters' shapes a value is sure to carry), `facts` (whether a path condition can
//! hold on no lane: D19's recursion bound), `mixed` (which parameters a mixed int/float call's
//! body takes as floats, issue 30).

pub mod coverage;
pub mod facts;
pub mod kinds;
pub mod mixed;
pub mod partial;
pub mod ranges;
pub mod shapes;
