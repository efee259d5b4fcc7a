//! What module text binds, read without running it (the static compile: `mod.rs`, and the
//! classes used as namespaces, `namespace_class.rs`): literal constants.

use rustpython_parser::ast;

use crate::env::Const;

/// A literal number, bool, negated number, or tuple, list or dict of those.
pub fn literal(e: &ast::Expr) -> Option<Const> {
    match e {
        ast::Expr::Constant(c) => match &c.value {
            ast::Constant::Bool(b) => Some(Const::Bool(*b)),
            ast::Constant::Int(i) => i
                .to_string()
                .parse::<i128>()
                .ok()
                .filter(|n| n.unsigned_abs() < (1u128 << 64))
                .map(Const::Int),
            ast::Constant::Float(f) => Some(Const::Float(*f)),
            _ => None,
        },
        ast::Expr::UnaryOp(u) if matches!(u.op, ast::UnaryOp::USub) => match literal(&u.operand)? {
            Const::Int(i) => Some(Const::Int(-i)),
            Const::Float(f) => Some(Const::Float(-f)),
            _ => None,
        },
        ast::Expr::Tuple(t) => t
            .elts
            .iter()
            .map(literal)
            .collect::<Option<Vec<_>>>()
            .map(Const::Tuple),
        ast::Expr::List(t) => t
            .elts
            .iter()
            .map(literal)
            .collect::<Option<Vec<_>>>()
            .map(Const::List),
        ast::Expr::Dict(d) => dict_literal(d),
        _ => None,
    }
}

/// A dict display of numbers, as CPython builds it (`eval::dict_of`).
fn dict_literal(d: &ast::ExprDict) -> Option<Const> {
    let pairs = d
        .keys
        .iter()
        .zip(&d.values)
        .map(|(k, v)| Some((literal(k.as_ref()?)?, literal(v)?)))
        .collect::<Option<Vec<_>>>()?;
    crate::ir::eval::dict_of(pairs)
}
