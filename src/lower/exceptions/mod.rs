//! Raising, per lane (D11): `raise` and `assert` (`raise`), `try`/`except`/`else`/`finally`
//! (`try_stmt`), and the exception classes they name, by their MRO (`classes`).

pub(in crate::lower) mod classes;
pub(in crate::lower) mod raise;
pub(in crate::lower) mod try_stmt;
