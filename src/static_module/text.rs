//! What module text binds, read without running it (the static compile: `mod.rs`, and the
//! classes used as namespaces, `namespace_class.rs`): literal constants.

use rustpython_parser::ast;

use crate::env::Const;

/// A literal number, bool, negated number, or tuple, list or dict of those.
pub fn literal(e: &ast::Expr) -> Option<Const> {
    literal_with(e, &|_| None)
}

/// [`literal`], with `leaf` giving the value of any other leaf it meets (a name of a constant,
/// `math.inf`, `float("inf")`: [`crate::static_module`]'s `named_constant`).
pub fn literal_with(e: &ast::Expr, leaf: &dyn Fn(&ast::Expr) -> Option<Const>) -> Option<Const> {
    let items = |elts: &[ast::Expr]| {
        elts.iter()
            .map(|x| literal_with(x, leaf))
            .collect::<Option<Vec<_>>>()
    };
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
        ast::Expr::UnaryOp(u) if matches!(u.op, ast::UnaryOp::USub) => {
            match literal_with(&u.operand, leaf)? {
                Const::Int(i) => Some(Const::Int(-i)),
                Const::Float(f) => Some(Const::Float(-f)),
                _ => None,
            }
        }
        ast::Expr::Tuple(t) => items(&t.elts).map(Const::Tuple),
        ast::Expr::List(t) => items(&t.elts).map(Const::List),
        ast::Expr::Dict(d) => {
            let pairs = d
                .keys
                .iter()
                .zip(&d.values)
                .map(|(k, v)| Some((literal_with(k.as_ref()?, leaf)?, literal_with(v, leaf)?)))
                .collect::<Option<Vec<_>>>()?;
            crate::ir::eval::dict_of(pairs)
        }
        other => leaf(other),
    }
}
