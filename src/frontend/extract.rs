//! Extract: parse source text and find the function to compile, its parameters and its body.
//!
//! The text may be indented (a method, a nested function): it is parsed inside an `if 1:` block so
//! that positions keep their columns and lose only the one synthetic line, which [`SourceText`]'s
//! line offset absorbs.

use rustpython_parser::ast::{self, Ranged};
use rustpython_parser::{parse, Mode};

use crate::diagnostics::{Diagnostic, DiagnosticKind, SourceId, SourceText};
use crate::frontend::identifiers;
use crate::frontend::source::{check_nesting, Limits};

/// A function ready for validation and lowering.
#[derive(Debug, Clone)]
pub struct ParsedFunction {
    pub source: SourceId,
    pub name: String,
    /// Positional-only, positional and keyword-only parameter names, in order.
    pub params: Vec<String>,
    /// How many of `params` are keyword-only.
    pub kwonly: usize,
    /// How many of `params` are positional-only.
    pub posonly: usize,
    pub body: Vec<ast::Stmt>,
    /// Byte range of the `def` (or `lambda`) for diagnostics about the whole function.
    pub start: usize,
    pub end: usize,
    /// `*args`/`**kwargs` ranges: the wrapper cannot reproduce them per lane.
    pub star_params: Vec<(usize, usize)>,
    /// Each parameter's default expression, if it has one (for helpers called without it).
    pub defaults: Vec<Option<ast::Expr>>,
    /// Per parameter: its annotation, and whether its default is `None` (D14 reads both).
    pub hints: Vec<(Option<ast::Expr>, bool)>,
}

/// What an indented text is parsed inside of (its columns are kept).
pub const WRAP_PREFIX: &str = "if 1:\n";

/// Parses `text` (first line at `first_line` of `path`) into a module body.
///
/// Returns the registered source and the statements, or a positioned diagnostic.
pub fn parse_text(
    sources: &mut Vec<SourceText>,
    path: &str,
    text: &str,
    first_line: usize,
) -> Result<(SourceId, Vec<ast::Stmt>), Diagnostic> {
    let indented = text.starts_with([' ', '\t', '\x0c']);
    let (wrapped, line0) = if indented {
        (format!("{WRAP_PREFIX}{text}"), first_line.saturating_sub(1))
    } else {
        (text.to_string(), first_line)
    };
    let id = sources.len();
    sources.push(SourceText::new(path, &wrapped, line0.max(1)));
    // A function at line 1 of its file wrapped in `if 1:` would map to line 0: keep the
    // synthetic line out of the way by shifting one line down in that corner case only.
    if indented && first_line <= 1 {
        sources[id] = SourceText::new(path, &wrapped, 1);
    }
    if let Err((offset, message)) = check_nesting(&wrapped, &Limits::FUNCTION) {
        return Err(Diagnostic {
            kind: DiagnosticKind::TooComplex,
            message,
            source: id,
            start: offset,
            end: offset + 1,
        });
    }
    match parse(&wrapped, Mode::Module, path) {
        Ok(ast::Mod::Module(m)) => {
            let body = if indented {
                match m.body.into_iter().next() {
                    Some(ast::Stmt::If(stmt_if)) => stmt_if.body,
                    _ => Vec::new(),
                }
            } else {
                m.body
            };
            Ok((id, identifiers::normalize_body(&wrapped, body)))
        }
        Ok(_) => Ok((id, Vec::new())),
        Err(err) => {
            let offset = usize::from(err.offset);
            Err(Diagnostic {
                kind: DiagnosticKind::Syntax,
                message: format!("cannot parse this source: {}", err.error),
                source: id,
                start: offset,
                end: offset + 1,
            })
        }
    }
}

/// Finds the function `qualname` names (a `def`, or the first `lambda` when its name is
/// `<lambda>`); inside a class, its private names are mangled as CPython does.
pub fn find_function(
    source: SourceId,
    sources: &[SourceText],
    body: &[ast::Stmt],
    qualname: &str,
) -> Result<ParsedFunction, Diagnostic> {
    let (name, class) = identifiers::split_qualname(qualname);
    if name == "<lambda>" {
        if let Some(lambda) = body.iter().find_map(first_lambda_in_stmt) {
            return Ok(match class {
                Some(class) => {
                    from_lambda(source, &identifiers::mangle_lambda(lambda.clone(), class))
                }
                None => from_lambda(source, lambda),
            });
        }
    } else if let Some(def) = body.iter().find_map(|s| match s {
        ast::Stmt::FunctionDef(def) if def.name.as_str() == name => Some(def),
        _ => None,
    }) {
        return Ok(match class {
            Some(class) => from_def(source, &identifiers::mangle_def(def.clone(), class)),
            None => from_def(source, def),
        });
    }
    let len = sources.get(source).map_or(0, |s| s.text.len());
    Err(Diagnostic {
        kind: DiagnosticKind::UnsupportedStatement,
        message: format!("cannot find the definition of `{name}` in its source"),
        source,
        start: 0,
        end: len.min(1),
    })
}

/// The parsed form of a `def` found in source `source`.
pub fn from_def(source: SourceId, def: &ast::StmtFunctionDef) -> ParsedFunction {
    let (start, end) = span(def);
    parsed(
        source,
        def.name.to_string(),
        &def.args,
        def.body.clone(),
        start,
        end,
    )
}

/// The parsed form of a lambda (its body is one `return`).
pub fn from_lambda(source: SourceId, lambda: &ast::ExprLambda) -> ParsedFunction {
    let ret = ast::Stmt::Return(ast::StmtReturn {
        range: lambda.body.range(),
        value: Some(lambda.body.clone()),
    });
    let (start, end) = span(lambda);
    parsed(
        source,
        "<lambda>".into(),
        &lambda.args,
        vec![ret],
        start,
        end,
    )
}

fn parsed(
    source: SourceId,
    name: String,
    args: &ast::Arguments,
    body: Vec<ast::Stmt>,
    start: usize,
    end: usize,
) -> ParsedFunction {
    let mut params: Vec<String> = args
        .posonlyargs
        .iter()
        .chain(&args.args)
        .map(|a| a.def.arg.to_string())
        .collect();
    params.extend(args.kwonlyargs.iter().map(|a| a.def.arg.to_string()));
    let star_params = args
        .vararg
        .iter()
        .chain(args.kwarg.iter())
        .map(|a| (usize::from(a.range.start()), usize::from(a.range.end())))
        .collect();
    let hints = args
        .posonlyargs
        .iter()
        .chain(&args.args)
        .chain(&args.kwonlyargs)
        .map(|a| {
            let none_default = matches!(
                a.default.as_deref(),
                Some(ast::Expr::Constant(c)) if matches!(c.value, ast::Constant::None)
            );
            (a.def.annotation.as_deref().cloned(), none_default)
        })
        .collect();
    let defaults = args
        .posonlyargs
        .iter()
        .chain(&args.args)
        .chain(&args.kwonlyargs)
        .map(|a| a.default.as_deref().cloned())
        .collect();
    ParsedFunction {
        hints,
        source,
        name,
        params,
        defaults,
        kwonly: args.kwonlyargs.len(),
        posonly: args.posonlyargs.len(),
        body,
        start,
        end,
        star_params,
    }
}

fn first_lambda_in_stmt(stmt: &ast::Stmt) -> Option<&ast::ExprLambda> {
    match stmt {
        ast::Stmt::Assign(a) => first_lambda(&a.value),
        ast::Stmt::AnnAssign(a) => a.value.as_deref().and_then(first_lambda),
        ast::Stmt::Expr(e) => first_lambda(&e.value),
        ast::Stmt::Return(r) => r.value.as_deref().and_then(first_lambda),
        _ => None,
    }
}

fn first_lambda(expr: &ast::Expr) -> Option<&ast::ExprLambda> {
    match expr {
        ast::Expr::Lambda(l) => Some(l),
        ast::Expr::Call(c) => c
            .args
            .iter()
            .find_map(first_lambda)
            .or_else(|| c.keywords.iter().find_map(|k| first_lambda(&k.value))),
        ast::Expr::Tuple(t) => t.elts.iter().find_map(first_lambda),
        ast::Expr::List(t) => t.elts.iter().find_map(first_lambda),
        _ => None,
    }
}

/// Targets of `:=` anywhere in an expression (they bind in the enclosing function).
fn walrus_targets(e: &ast::Expr, out: &mut Vec<String>) {
    use ast::Expr as E;
    match e {
        E::NamedExpr(n) => {
            if let E::Name(t) = n.target.as_ref() {
                out.push(t.id.to_string());
            }
            walrus_targets(&n.value, out);
        }
        E::BoolOp(b) => b.values.iter().for_each(|v| walrus_targets(v, out)),
        E::BinOp(b) => {
            walrus_targets(&b.left, out);
            walrus_targets(&b.right, out);
        }
        E::UnaryOp(u) => walrus_targets(&u.operand, out),
        E::IfExp(i) => {
            walrus_targets(&i.test, out);
            walrus_targets(&i.body, out);
            walrus_targets(&i.orelse, out);
        }
        E::Compare(c) => {
            walrus_targets(&c.left, out);
            c.comparators.iter().for_each(|v| walrus_targets(v, out));
        }
        E::Call(c) => {
            c.args.iter().for_each(|v| walrus_targets(v, out));
            c.keywords
                .iter()
                .for_each(|k| walrus_targets(&k.value, out));
        }
        E::Subscript(s) => {
            walrus_targets(&s.value, out);
            walrus_targets(&s.slice, out);
        }
        E::Tuple(t) => t.elts.iter().for_each(|v| walrus_targets(v, out)),
        _ => {}
    }
}

/// Python's rule: a name assigned anywhere in a function body is local to it.
pub fn assigned_names(body: &[ast::Stmt], out: &mut Vec<String>) {
    for stmt in body {
        match stmt {
            ast::Stmt::Assign(a) => walrus_targets(&a.value, out),
            ast::Stmt::AugAssign(a) => walrus_targets(&a.value, out),
            ast::Stmt::AnnAssign(a) => {
                if let Some(v) = &a.value {
                    walrus_targets(v, out);
                }
            }
            ast::Stmt::Return(r) => {
                if let Some(v) = &r.value {
                    walrus_targets(v, out);
                }
            }
            ast::Stmt::If(i) => walrus_targets(&i.test, out),
            ast::Stmt::While(w) => walrus_targets(&w.test, out),
            ast::Stmt::For(f) => walrus_targets(&f.iter, out),
            ast::Stmt::Expr(e) => walrus_targets(&e.value, out),
            _ => {}
        }
    }
    assigned_statement_targets(body, out);
}

fn assigned_statement_targets(body: &[ast::Stmt], out: &mut Vec<String>) {
    fn target(e: &ast::Expr, out: &mut Vec<String>) {
        match e {
            ast::Expr::Name(n) => out.push(n.id.to_string()),
            ast::Expr::Tuple(t) => t.elts.iter().for_each(|e| target(e, out)),
            ast::Expr::List(t) => t.elts.iter().for_each(|e| target(e, out)),
            ast::Expr::Starred(s) => target(&s.value, out),
            _ => {}
        }
    }
    for stmt in body {
        match stmt {
            ast::Stmt::Assign(a) => a.targets.iter().for_each(|t| target(t, out)),
            ast::Stmt::AugAssign(a) => target(&a.target, out),
            ast::Stmt::AnnAssign(a) => target(&a.target, out),
            ast::Stmt::For(f) => {
                target(&f.target, out);
                assigned_names(&f.body, out);
                assigned_names(&f.orelse, out);
            }
            ast::Stmt::While(w) => {
                assigned_names(&w.body, out);
                assigned_names(&w.orelse, out);
            }
            ast::Stmt::If(i) => {
                assigned_names(&i.body, out);
                assigned_names(&i.orelse, out);
            }
            ast::Stmt::FunctionDef(d) => out.push(d.name.to_string()),
            ast::Stmt::With(w) => assigned_names(&w.body, out),
            ast::Stmt::Try(t) => {
                assigned_names(&t.body, out);
                for h in &t.handlers {
                    let ast::ExceptHandler::ExceptHandler(h) = h;
                    out.extend(h.name.iter().map(|n| n.to_string()));
                    assigned_names(&h.body, out);
                }
                assigned_names(&t.orelse, out);
                assigned_names(&t.finalbody, out);
            }
            _ => {}
        }
    }
}

/// Byte range of any node.
pub fn span<T: Ranged>(node: &T) -> (usize, usize) {
    let r = node.range();
    (usize::from(r.start()), usize::from(r.end()))
}
