//! What module text binds, read without running it (the static compile: `module`, and the
//! classes used as namespaces, `static_class`): literal constants, and the text of a `def`.

use rustpython_parser::ast::{self, Ranged};

use crate::diagnostics::LineIndex;
use crate::env::Const;

pub(crate) fn def_start(def: &ast::StmtFunctionDef) -> (usize, usize) {
    let start = match def
        .decorator_list
        .iter()
        .map(|d| usize::from(d.range().start()))
        .min()
    {
        // A decorator's range starts after the `@`.
        Some(decorator) => decorator.saturating_sub(1),
        None => usize::from(def.range.start()),
    };
    (start, usize::from(def.range.end()))
}

/// The text of a function from the start of its first decorator's line to its end: what
/// `inspect.getsource` returns for it.
pub(crate) fn function_text(source: &str, index: &LineIndex, def: &ast::StmtFunctionDef) -> String {
    let (start, end) = def_start(def);
    let (line, _) = index.line_col(source, start);
    let line_start = source[..start].rfind('\n').map_or(0, |i| i + 1);
    let _ = line;
    let end = source[end..]
        .find('\n')
        .map_or(source.len(), |i| end + i + 1);
    source[line_start..end].to_string()
}

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
