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
    Str(&'static str),
    /// A string literal of the user's (printed as Python's repr prints it).
    Text(String),
    None,
    Tuple(Vec<Expr>),
    List(Vec<Expr>),
    Attr(Box<Expr>, &'static str),
    /// `base.name` with a name from the user's code.
    Field(Box<Expr>, String),
    Call(Box<Expr>, Vec<Expr>, Vec<(String, Expr)>),
    Bin(&'static str, Box<Expr>, Box<Expr>),
    Neg(Box<Expr>),
    /// Unary `+`: on a Python bool it gives an int (`+True == 1`).
    Pos(Box<Expr>),
    Not(Box<Expr>),
    Cmp(&'static str, Box<Expr>, Box<Expr>),
    /// `and` / `or` on Python scalars.
    BoolOp(&'static str, Box<Expr>, Box<Expr>),
    IfExp(Box<Expr>, Box<Expr>, Box<Expr>),
    Subscript(Box<Expr>, Box<Expr>),
    /// `lambda params: (text)`, with `text` an expression copied from the user's source (an
    /// exception raised per element, D11): it reads only its parameters and builtins.
    Lambda(Vec<String>, String),
}

#[derive(Debug, Clone, PartialEq)]
pub enum Stmt {
    /// `a = e`, or `a, b = e1, e2` with several targets.
    Assign(Vec<String>, Vec<Expr>),
    /// `a op= e` (`op` one of `+ - * /`): in place on an array that allows it.
    AugAssign(String, &'static str, Expr),
    Return(Expr),
    /// `del a, b`: frees arrays no later statement reads.
    Del(Vec<String>),
    If(Expr, Vec<Stmt>, Vec<Stmt>),
    For(String, Expr, Vec<Stmt>),
    /// `while test: body`.
    While(Expr, Vec<Stmt>),
    /// An expression evaluated for its effect (a runtime check).
    Expr(Expr),
    /// `def name(params[..posonly], /, params[posonly..], *, kwonly):`
    Def {
        name: String,
        params: Vec<String>,
        posonly: usize,
        kwonly: Vec<String>,
        body: Vec<Stmt>,
    },
}

/// Adds to `out` every name `s` reads (nested blocks included).
pub fn reads<'a>(s: &'a Stmt, out: &mut std::collections::BTreeSet<&'a str>) {
    match s {
        Stmt::Assign(_, values) => values.iter().for_each(|e| expr_reads(e, out)),
        Stmt::AugAssign(target, _, e) => {
            out.insert(target);
            expr_reads(e, out);
        }
        Stmt::Return(e) | Stmt::Expr(e) => expr_reads(e, out),
        Stmt::Del(_) => {}
        Stmt::If(c, then, other) => {
            expr_reads(c, out);
            then.iter().chain(other).for_each(|s| reads(s, out));
        }
        Stmt::For(_, iter, body) | Stmt::While(iter, body) => {
            expr_reads(iter, out);
            body.iter().for_each(|s| reads(s, out));
        }
        Stmt::Def { body, .. } => body.iter().for_each(|s| reads(s, out)),
    }
}

/// Adds to `out` the name of every global `s` calls by name (`f(...)`, nested blocks and
/// arguments included; not `xp.f(...)` nor a method): the runtime helpers, out-of-line helpers
/// (D7) and builtins a body calls.
pub fn called<'a>(s: &'a Stmt, out: &mut std::collections::BTreeSet<&'a str>) {
    calls(s, &mut |n, _| {
        out.insert(n);
    });
}

/// Shows `f` every call of a global by name in `s` (as [`called`] finds them), with its
/// positional arguments.
pub fn calls<'a>(s: &'a Stmt, f: &mut impl FnMut(&'a str, &'a [Expr])) {
    let mut exprs: Vec<&'a Expr> = vec![];
    let mut stmts = vec![s];
    while let Some(s) = stmts.pop() {
        match s {
            Stmt::Assign(_, values) => exprs.extend(values),
            Stmt::AugAssign(_, _, e) | Stmt::Return(e) | Stmt::Expr(e) => exprs.push(e),
            Stmt::Del(_) => {}
            Stmt::If(c, then, other) => {
                exprs.push(c);
                stmts.extend(then.iter().chain(other));
            }
            Stmt::For(_, e, body) | Stmt::While(e, body) => {
                exprs.push(e);
                stmts.extend(body);
            }
            Stmt::Def { body, .. } => stmts.extend(body),
        }
    }
    while let Some(e) = exprs.pop() {
        match e {
            Expr::Call(callee, args, kwargs) => {
                if let Expr::Name(n) = callee.as_ref() {
                    f(n, args);
                }
                exprs.push(callee);
                exprs.extend(args);
                exprs.extend(kwargs.iter().map(|(_, e)| e));
            }
            Expr::Name(_)
            | Expr::Int(_)
            | Expr::Float(_)
            | Expr::Bool(_)
            | Expr::Str(_)
            | Expr::Text(_)
            | Expr::None
            | Expr::Lambda(..) => {}
            Expr::Tuple(items) | Expr::List(items) => exprs.extend(items),
            Expr::Attr(a, _) | Expr::Field(a, _) | Expr::Neg(a) | Expr::Pos(a) | Expr::Not(a) => {
                exprs.push(a)
            }
            Expr::Bin(_, a, b)
            | Expr::Cmp(_, a, b)
            | Expr::BoolOp(_, a, b)
            | Expr::Subscript(a, b) => exprs.extend([a.as_ref(), b.as_ref()]),
            Expr::IfExp(c, a, b) => exprs.extend([c.as_ref(), a.as_ref(), b.as_ref()]),
        }
    }
}

fn expr_reads<'a>(e: &'a Expr, out: &mut std::collections::BTreeSet<&'a str>) {
    match e {
        Expr::Name(n) => {
            out.insert(n);
        }
        Expr::Int(_)
        | Expr::Float(_)
        | Expr::Bool(_)
        | Expr::Str(_)
        | Expr::Text(_)
        | Expr::None
        | Expr::Lambda(..) => {}
        Expr::Tuple(items) | Expr::List(items) => items.iter().for_each(|e| expr_reads(e, out)),
        Expr::Attr(base, _) | Expr::Field(base, _) => expr_reads(base, out),
        Expr::Call(f, args, kwargs) => {
            expr_reads(f, out);
            args.iter().for_each(|e| expr_reads(e, out));
            kwargs.iter().for_each(|(_, e)| expr_reads(e, out));
        }
        Expr::Neg(a) | Expr::Pos(a) | Expr::Not(a) => expr_reads(a, out),
        Expr::Bin(_, a, b) | Expr::Cmp(_, a, b) | Expr::BoolOp(_, a, b) | Expr::Subscript(a, b) => {
            expr_reads(a, out);
            expr_reads(b, out);
        }
        Expr::IfExp(c, a, b) => {
            expr_reads(c, out);
            expr_reads(a, out);
            expr_reads(b, out);
        }
    }
}

/// `e` with `f` applied to each of its direct subexpressions (the tree rewrites of
/// `loop_fn.rs` and `sincos.rs` recurse through it).
pub fn map_children(e: Expr, f: &mut impl FnMut(Expr) -> Expr) -> Expr {
    let mut b = |e: Box<Expr>| Box::new(f(*e));
    match e {
        Expr::Tuple(items) => Expr::Tuple(items.into_iter().map(&mut *f).collect()),
        Expr::List(items) => Expr::List(items.into_iter().map(&mut *f).collect()),
        Expr::Attr(a, n) => Expr::Attr(b(a), n),
        Expr::Field(a, n) => Expr::Field(b(a), n),
        Expr::Call(g, args, kwargs) => {
            let g = b(g);
            let args = args.into_iter().map(&mut *f).collect();
            Expr::Call(
                g,
                args,
                kwargs.into_iter().map(|(k, v)| (k, f(v))).collect(),
            )
        }
        Expr::Bin(op, x, y) => Expr::Bin(op, b(x), b(y)),
        Expr::Cmp(op, x, y) => Expr::Cmp(op, b(x), b(y)),
        Expr::BoolOp(op, x, y) => Expr::BoolOp(op, b(x), b(y)),
        Expr::IfExp(c, x, y) => Expr::IfExp(b(c), b(x), b(y)),
        Expr::Subscript(x, y) => Expr::Subscript(b(x), b(y)),
        Expr::Neg(a) => Expr::Neg(b(a)),
        Expr::Pos(a) => Expr::Pos(b(a)),
        Expr::Not(a) => Expr::Not(b(a)),
        e @ (Expr::Name(_)
        | Expr::Int(_)
        | Expr::Float(_)
        | Expr::Bool(_)
        | Expr::Str(_)
        | Expr::Text(_)
        | Expr::None
        | Expr::Lambda(..)) => e,
    }
}

pub fn name(n: &str) -> Expr {
    Expr::Name(n.to_string())
}

pub fn attr(base: Expr, a: &'static str) -> Expr {
    Expr::Attr(Box::new(base), a)
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
const P_BOR: u8 = 6;
const P_BXOR: u8 = 7;
const P_BAND: u8 = 8;
const P_SHIFT: u8 = 9;
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
        Expr::Bin(op, ..) => bin_prec(op),
        Expr::Neg(_) | Expr::Pos(_) => P_UNARY,
        Expr::Int(i) if *i < 0 => P_UNARY,
        Expr::Float(f) if f.is_sign_negative() => P_UNARY,
        _ => P_ATOM,
    }
}

fn bin_prec(op: &str) -> u8 {
    match op {
        "|" => P_BOR,
        "^" => P_BXOR,
        "&" => P_BAND,
        "<<" | ">>" => P_SHIFT,
        "+" | "-" => P_ARITH,
        "**" => P_POW,
        _ => P_TERM,
    }
}

/// Writes `e`, parenthesised when its precedence is below `min`.
fn wrap(e: &Expr, min: u8, out: &mut String) {
    if prec(e) < min {
        out.push('(');
        write_expr(e, out);
        out.push(')');
    } else {
        write_expr(e, out);
    }
}

/// The source text of an expression.
pub fn expr(e: &Expr) -> String {
    let mut out = String::new();
    write_expr(e, &mut out);
    out
}

fn write_list(items: &[Expr], out: &mut String) {
    for (i, item) in items.iter().enumerate() {
        if i > 0 {
            out.push_str(", ");
        }
        wrap(item, P_TEST, out);
    }
}

/// A float literal: its `repr`, except that the repr of an infinity or a NaN (`inf`, `nan`) is
/// no Python literal but a name the generated module does not define; `float("...")` is valid
/// without an import. (Codegen prints IR constants as `xp.inf`/`xp.nan`; this keeps any other
/// path valid.)
fn write_float(f: f64, out: &mut String) {
    use std::fmt::Write as _;
    if f.is_finite() {
        out.push_str(&float_repr(f));
    } else {
        let sign = if f.is_sign_negative() { "-" } else { "" };
        let word = if f.is_nan() { "nan" } else { "inf" };
        let _ = write!(out, "float(\"{sign}{word}\")");
    }
}

fn write_expr(e: &Expr, out: &mut String) {
    use std::fmt::Write as _;
    match e {
        Expr::Name(n) => out.push_str(n),
        Expr::Int(i) => {
            let _ = write!(out, "{i}");
        }
        Expr::Float(f) => write_float(*f, out),
        Expr::Bool(b) => out.push_str(if *b { "True" } else { "False" }),
        Expr::Str(s) => {
            let _ = write!(out, "{s:?}");
        }
        Expr::Text(s) => python_str_repr(s, out),
        Expr::None => out.push_str("None"),
        Expr::Lambda(params, text) => {
            // A comment in the copied text would swallow the closing parentheses.
            let end = if text.contains('#') { "\n))" } else { "))" };
            let _ = write!(out, "(lambda {}: ({text}{end}", params.join(", "));
        }
        Expr::Tuple(items) => {
            out.push('(');
            write_list(items, out);
            if items.len() == 1 {
                out.push(',');
            }
            out.push(')');
        }
        Expr::List(items) => {
            out.push('[');
            write_list(items, out);
            out.push(']');
        }
        Expr::Attr(b, a) => {
            wrap(b, P_ATOM, out);
            out.push('.');
            out.push_str(a);
        }
        Expr::Field(b, a) => {
            wrap(b, P_ATOM, out);
            out.push('.');
            out.push_str(a);
        }
        Expr::Call(f, args, kwargs) => {
            wrap(f, P_ATOM, out);
            out.push('(');
            write_list(args, out);
            for (i, (k, v)) in kwargs.iter().enumerate() {
                if i > 0 || !args.is_empty() {
                    out.push_str(", ");
                }
                out.push_str(k);
                out.push('=');
                wrap(v, P_TEST, out);
            }
            out.push(')');
        }
        Expr::Bin(op, a, b) => {
            if *op == "**" {
                // Right-associative; the left operand must be a primary.
                wrap(a, P_POW + 1, out);
                out.push_str(" ** ");
                wrap(b, P_UNARY, out);
            } else {
                let p = bin_prec(op);
                wrap(a, p, out);
                out.push(' ');
                out.push_str(op);
                out.push(' ');
                wrap(b, p + 1, out);
            }
        }
        Expr::Neg(a) => {
            out.push('-');
            wrap(a, P_UNARY, out);
        }
        Expr::Pos(a) => {
            out.push('+');
            wrap(a, P_UNARY, out);
        }
        Expr::Not(a) => {
            out.push_str("not ");
            wrap(a, P_NOT, out);
        }
        Expr::Cmp(op, a, b) => {
            wrap(a, P_CMP + 1, out);
            out.push(' ');
            out.push_str(op);
            out.push(' ');
            wrap(b, P_CMP + 1, out);
        }
        Expr::BoolOp(op, a, b) => {
            let p = if *op == "or" { P_OR } else { P_AND };
            wrap(a, p, out);
            out.push(' ');
            out.push_str(op);
            out.push(' ');
            wrap(b, p + 1, out);
        }
        Expr::IfExp(c, a, b) => {
            wrap(a, P_OR, out);
            out.push_str(" if ");
            wrap(c, P_OR, out);
            out.push_str(" else ");
            wrap(b, P_TEST, out);
        }
        Expr::Subscript(v, i) => {
            wrap(v, P_ATOM, out);
            out.push('[');
            write_expr(i, out);
            out.push(']');
        }
    }
}

/// A Python string literal of `s`: single quotes, backslash escapes for quotes, backslashes and
/// characters that are not printable (what `repr` does, up to the choice of quotes).
fn python_str_repr(s: &str, out: &mut String) {
    use std::fmt::Write as _;
    out.push('\'');
    for ch in s.chars() {
        match ch {
            '\\' => out.push_str("\\\\"),
            '\'' => out.push_str("\\'"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if (c as u32) < 0x20 || c as u32 == 0x7f => {
                let _ = write!(out, "\\x{:02x}", c as u32);
            }
            c if c.is_control() => {
                let _ = write!(out, "\\U{:08x}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push('\'');
}

/// The text of a module of top-level statements (two blank lines between them).
pub fn module(stmts: &[Stmt]) -> String {
    stmts
        .iter()
        .enumerate()
        .map(|(i, s)| module_part(s, i == 0))
        .collect()
}

/// The text of one top-level statement of a module: after the blank lines that separate it from
/// the one before unless it is the `first`, so consecutive parts concatenate to `module`.
pub fn module_part(s: &Stmt, first: bool) -> String {
    let mut out = String::with_capacity(2048);
    if !first {
        out.push_str("\n\n");
    }
    stmt(s, 0, &mut out);
    out
}

fn pad(depth: usize, out: &mut String) {
    for _ in 0..depth {
        out.push_str("    ");
    }
}

fn stmt(s: &Stmt, depth: usize, out: &mut String) {
    pad(depth, out);
    match s {
        Stmt::Assign(targets, values) => {
            out.push_str(&targets.join(", "));
            out.push_str(" = ");
            write_list(values, out);
            out.push('\n');
        }
        Stmt::AugAssign(target, op, e) => {
            out.push_str(target);
            out.push(' ');
            out.push_str(op);
            out.push_str("= ");
            write_expr(e, out);
            out.push('\n');
        }
        Stmt::Return(e) => {
            out.push_str("return ");
            write_expr(e, out);
            out.push('\n');
        }
        Stmt::Expr(e) => {
            write_expr(e, out);
            out.push('\n');
        }
        Stmt::Del(names) => {
            out.push_str("del ");
            out.push_str(&names.join(", "));
            out.push('\n');
        }
        Stmt::If(c, then, other) => {
            out.push_str("if ");
            write_expr(c, out);
            out.push_str(":\n");
            block(then, depth + 1, out);
            if !other.is_empty() {
                pad(depth, out);
                out.push_str("else:\n");
                block(other, depth + 1, out);
            }
        }
        Stmt::For(t, iter, body) => {
            out.push_str("for ");
            out.push_str(t);
            out.push_str(" in ");
            write_expr(iter, out);
            out.push_str(":\n");
            block(body, depth + 1, out);
        }
        Stmt::While(test, body) => {
            out.push_str("while ");
            write_expr(test, out);
            out.push_str(":\n");
            block(body, depth + 1, out);
        }
        Stmt::Def {
            name,
            params,
            posonly,
            kwonly,
            body,
        } => {
            out.push_str("def ");
            out.push_str(name);
            out.push('(');
            for (i, p) in params.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                out.push_str(p);
                if i + 1 == *posonly {
                    out.push_str(", /");
                }
            }
            if !kwonly.is_empty() {
                if !params.is_empty() {
                    out.push_str(", ");
                }
                out.push_str("*, ");
                out.push_str(&kwonly.join(", "));
            }
            out.push_str("):\n");
            block(body, depth + 1, out);
        }
    }
}

fn block(stmts: &[Stmt], depth: usize, out: &mut String) {
    if stmts.is_empty() {
        pad(depth, out);
        out.push_str("pass\n");
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

    #[test]
    fn non_finite_floats_print_as_float_calls() {
        // `inf` and `nan` (their repr) would be undefined names in the generated module.
        let e = bin(
            "*",
            Expr::Float(f64::INFINITY),
            Expr::Float(f64::NEG_INFINITY),
        );
        assert_eq!(expr(&e), "float(\"inf\") * float(\"-inf\")");
        assert_eq!(expr(&Expr::Float(f64::NAN)), "float(\"nan\")");
        assert_eq!(expr(&Expr::Float(-f64::NAN)), "float(\"-nan\")");
    }

    #[test]
    fn module_parts_concatenate_to_the_module() {
        let def = |n: &str| Stmt::Def {
            name: n.into(),
            params: vec![],
            posonly: 0,
            kwonly: vec![],
            body: vec![],
        };
        let (f, g) = (def("f"), def("g"));
        let text = module(&[f.clone(), g.clone()]);
        assert_eq!(text, "def f():\n    pass\n\n\ndef g():\n    pass\n");
        assert_eq!(module_part(&f, true) + &module_part(&g, false), text);
    }
}
