//! A small Python AST and its printer: codegen builds trees, never text (STYLE: no templates).
//!
//! The printer parenthesises by Python's precedence table, so every printed expression parses
//! back to the same tree (`tests/golden` compares `ast.dump`s).

use crate::env::float_repr;

#[derive(Debug, Clone, PartialEq)]
pub enum Expr {
    Name(String),
    Int(i128),
    Float(f64),
    Bool(bool),
    Str(String),
    None,
    Tuple(Vec<Expr>),
    Attr(Box<Expr>, String),
    Call(Box<Expr>, Vec<Expr>, Vec<(String, Expr)>),
    Bin(&'static str, Box<Expr>, Box<Expr>),
    Neg(Box<Expr>),
    Not(Box<Expr>),
    Cmp(&'static str, Box<Expr>, Box<Expr>),
    /// `and` / `or` on Python scalars.
    BoolOp(&'static str, Box<Expr>, Box<Expr>),
    IfExp(Box<Expr>, Box<Expr>, Box<Expr>),
    Subscript(Box<Expr>, Box<Expr>),
}

#[derive(Debug, Clone, PartialEq)]
pub enum Stmt {
    /// `a = e`, or `a, b = e1, e2` with several targets.
    Assign(Vec<String>, Vec<Expr>),
    Return(Expr),
    If(Expr, Vec<Stmt>, Vec<Stmt>),
    For(String, Expr, Vec<Stmt>),
    Def {
        name: String,
        params: Vec<String>,
        kwonly: Vec<String>,
        body: Vec<Stmt>,
    },
}

pub fn name(n: &str) -> Expr {
    Expr::Name(n.to_string())
}

pub fn attr(base: Expr, a: &str) -> Expr {
    Expr::Attr(Box::new(base), a.to_string())
}

pub fn call(f: Expr, args: Vec<Expr>) -> Expr {
    Expr::Call(Box::new(f), args, vec![])
}

pub fn bin(op: &'static str, a: Expr, b: Expr) -> Expr {
    Expr::Bin(op, Box::new(a), Box::new(b))
}

pub fn cmp(op: &'static str, a: Expr, b: Expr) -> Expr {
    Expr::Cmp(op, Box::new(a), Box::new(b))
}

// Python's precedence, lowest first.
const P_TEST: u8 = 1; // a if b else c
const P_OR: u8 = 2;
const P_AND: u8 = 3;
const P_NOT: u8 = 4;
const P_CMP: u8 = 5;
const P_ARITH: u8 = 10; // + -
const P_TERM: u8 = 11; // * / // %
const P_UNARY: u8 = 12; // -x
const P_POW: u8 = 13;
const P_ATOM: u8 = 16;

fn prec(e: &Expr) -> u8 {
    match e {
        Expr::IfExp(..) => P_TEST,
        Expr::BoolOp("or", ..) => P_OR,
        Expr::BoolOp(..) => P_AND,
        Expr::Not(_) => P_NOT,
        Expr::Cmp(..) => P_CMP,
        Expr::Bin("+" | "-", ..) => P_ARITH,
        Expr::Bin("**", ..) => P_POW,
        Expr::Bin(..) => P_TERM,
        Expr::Neg(_) => P_UNARY,
        Expr::Int(i) if *i < 0 => P_UNARY,
        Expr::Float(f) if f.is_sign_negative() => P_UNARY,
        _ => P_ATOM,
    }
}

fn bin_prec(op: &str) -> u8 {
    match op {
        "+" | "-" => P_ARITH,
        "**" => P_POW,
        _ => P_TERM,
    }
}

fn wrap(e: &Expr, min: u8) -> String {
    let s = expr(e);
    if prec(e) < min {
        format!("({s})")
    } else {
        s
    }
}

pub fn expr(e: &Expr) -> String {
    match e {
        Expr::Name(n) => n.clone(),
        Expr::Int(i) => i.to_string(),
        Expr::Float(f) => float_repr(*f),
        Expr::Bool(b) => {
            if *b {
                "True".into()
            } else {
                "False".into()
            }
        }
        Expr::Str(s) => format!("{s:?}"),
        Expr::None => "None".into(),
        Expr::Tuple(items) => {
            let inner: Vec<String> = items.iter().map(|i| wrap(i, P_TEST)).collect();
            if inner.len() == 1 {
                format!("({},)", inner[0])
            } else {
                format!("({})", inner.join(", "))
            }
        }
        Expr::Attr(b, a) => format!("{}.{a}", wrap(b, P_ATOM)),
        Expr::Call(f, args, kwargs) => {
            let mut parts: Vec<String> = args.iter().map(|a| wrap(a, P_TEST)).collect();
            parts.extend(
                kwargs
                    .iter()
                    .map(|(k, v)| format!("{k}={}", wrap(v, P_TEST))),
            );
            format!("{}({})", wrap(f, P_ATOM), parts.join(", "))
        }
        Expr::Bin(op, a, b) => {
            let p = bin_prec(op);
            if *op == "**" {
                // Right-associative; the left operand must be a primary.
                format!("{} ** {}", wrap(a, P_POW + 1), wrap(b, P_UNARY))
            } else {
                format!("{} {op} {}", wrap(a, p), wrap(b, p + 1))
            }
        }
        Expr::Neg(a) => format!("-{}", wrap(a, P_UNARY)),
        Expr::Not(a) => format!("not {}", wrap(a, P_NOT)),
        Expr::Cmp(op, a, b) => format!("{} {op} {}", wrap(a, P_CMP + 1), wrap(b, P_CMP + 1)),
        Expr::BoolOp(op, a, b) => {
            let p = if *op == "or" { P_OR } else { P_AND };
            format!("{} {op} {}", wrap(a, p), wrap(b, p + 1))
        }
        Expr::IfExp(c, a, b) => format!(
            "{} if {} else {}",
            wrap(a, P_OR),
            wrap(c, P_OR),
            wrap(b, P_TEST)
        ),
        Expr::Subscript(v, i) => format!("{}[{}]", wrap(v, P_ATOM), expr(i)),
    }
}

pub fn module(stmts: &[Stmt]) -> String {
    let mut out = String::new();
    for (i, s) in stmts.iter().enumerate() {
        if i > 0 {
            out.push_str("\n\n");
        }
        stmt(s, 0, &mut out);
    }
    out
}

fn stmt(s: &Stmt, depth: usize, out: &mut String) {
    let pad = "    ".repeat(depth);
    match s {
        Stmt::Assign(targets, values) => {
            let rhs: Vec<String> = values.iter().map(|v| wrap(v, P_TEST)).collect();
            out.push_str(&format!(
                "{pad}{} = {}\n",
                targets.join(", "),
                rhs.join(", ")
            ));
        }
        Stmt::Return(e) => out.push_str(&format!("{pad}return {}\n", expr(e))),
        Stmt::If(c, then, other) => {
            out.push_str(&format!("{pad}if {}:\n", expr(c)));
            block(then, depth + 1, out);
            if !other.is_empty() {
                out.push_str(&format!("{pad}else:\n"));
                block(other, depth + 1, out);
            }
        }
        Stmt::For(t, iter, body) => {
            out.push_str(&format!("{pad}for {t} in {}:\n", expr(iter)));
            block(body, depth + 1, out);
        }
        Stmt::Def {
            name,
            params,
            kwonly,
            body,
        } => {
            let mut ps = params.clone();
            if !kwonly.is_empty() {
                ps.push("*".into());
                ps.extend(kwonly.iter().cloned());
            }
            out.push_str(&format!("{pad}def {name}({}):\n", ps.join(", ")));
            block(body, depth + 1, out);
        }
    }
}

fn block(stmts: &[Stmt], depth: usize, out: &mut String) {
    if stmts.is_empty() {
        out.push_str(&format!("{}pass\n", "    ".repeat(depth)));
    }
    for s in stmts {
        stmt(s, depth, out);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn precedence_round_trips() {
        let neg_base = bin("**", Expr::Float(-1.0), name("x"));
        assert_eq!(expr(&neg_base), "(-1.0) ** x");
        let sub = bin("-", name("a"), bin("-", name("b"), name("c")));
        assert_eq!(expr(&sub), "a - (b - c)");
        let mul = bin("*", bin("+", name("a"), name("b")), name("c"));
        assert_eq!(expr(&mul), "(a + b) * c");
        let pow = bin("**", name("a"), Expr::Neg(Box::new(name("b"))));
        assert_eq!(expr(&pow), "a ** -b");
        let neg_pow = Expr::Neg(Box::new(bin("**", name("a"), name("b"))));
        assert_eq!(expr(&neg_pow), "-a ** b");
        let cmp_chain = cmp("<", cmp("<", name("a"), name("b")), name("c"));
        assert_eq!(expr(&cmp_chain), "(a < b) < c");
    }
}
