//! What module text binds, read without running it (the static compile: `mod.rs`, and the
//! classes used as namespaces, `namespace_class.rs`): literal constants.

use rustpython_parser::ast;

use crate::env::{Binding, Const, Env};

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

/// A leaf of a module-level table that names a constant exactly as CPython reads it: a name
/// bound before to a constant, `math.inf`, `math.pi`, `math.e`, `math.tau` (or those names
/// imported from `math`), `float("inf")` and `float("-inf")` with `float` not rebound.
pub fn named_constant(e: &ast::Expr, before: &Env) -> Option<Const> {
    let math_constant = |name: &str| match name {
        "inf" => Some(Const::Float(f64::INFINITY)),
        "pi" => Some(Const::Float(std::f64::consts::PI)),
        "e" => Some(Const::Float(std::f64::consts::E)),
        "tau" => Some(Const::Float(std::f64::consts::TAU)),
        _ => None,
    };
    match e {
        ast::Expr::Name(n) => match before.get(n.id.as_str())? {
            Binding::Const(c) => Some(c.clone()),
            Binding::MathMember(m) => math_constant(m),
            _ => None,
        },
        ast::Expr::Attribute(a) => match a.value.as_ref() {
            ast::Expr::Name(m)
                if matches!(before.get(m.id.as_str()), Some(Binding::MathModule)) =>
            {
                math_constant(a.attr.as_str())
            }
            _ => None,
        },
        ast::Expr::Call(c) if c.keywords.is_empty() && c.args.len() == 1 => {
            let unbound_float = matches!(c.func.as_ref(), ast::Expr::Name(f) if f.id.as_str() == "float" && !before.contains_key("float"));
            let ast::Expr::Constant(k) = &c.args[0] else {
                return None;
            };
            let ast::Constant::Str(text) = &k.value else {
                return None;
            };
            match (unbound_float, text.trim().to_ascii_lowercase().as_str()) {
                (true, "inf" | "+inf" | "infinity" | "+infinity") => {
                    Some(Const::Float(f64::INFINITY))
                }
                (true, "-inf" | "-infinity") => Some(Const::Float(f64::NEG_INFINITY)),
                _ => None,
            }
        }
        _ => None,
    }
}
