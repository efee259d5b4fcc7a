//! Calls whose lanes run element by element in CPython's scalar code: a recursion past the
//! levels it is inlined to (D19, `recursion.rs`), a call the compiler cannot vectorize
//! (D23, `call_sites.rs`), and the `Op::ScalarCall` both lower to (`scalar_call.rs`).

pub(in crate::lower) mod call_sites;
pub(in crate::lower) mod recursion;
pub(in crate::lower) mod scalar_call;
