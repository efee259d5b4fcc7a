//! Syntactic questions about statements, answered before lowering them.

use rustpython_parser::ast;

/// Whether a loop test is a constant Python takes as true (`while True:`, `while 1:`).
pub(in crate::lower) fn is_forever(test: &ast::Expr) -> bool {
    match test {
        ast::Expr::Constant(c) => match &c.value {
            ast::Constant::Bool(b) => *b,
            ast::Constant::Int(i) => i.to_string() != "0",
            _ => false,
        },
        _ => false,
    }
}

/// Whether `body` holds a `return` (in nested `if`s and loops too).
pub(in crate::lower) fn contains_return(body: &[ast::Stmt]) -> bool {
    body.iter().any(|s| match s {
        ast::Stmt::Return(_) => true,
        ast::Stmt::If(i) => contains_return(&i.body) || contains_return(&i.orelse),
        ast::Stmt::For(f) => contains_return(&f.body) || contains_return(&f.orelse),
        ast::Stmt::While(w) => contains_return(&w.body) || contains_return(&w.orelse),
        _ => false,
    })
}
