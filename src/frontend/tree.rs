//! A module parsed once, and its functions found in its tree (issue 25 item 7): the static
//! compile (import hook, build backend) parses each module of a compile once, and the front end
//! takes every function it compiles from that module (the marked function, the helpers of the
//! same module, those of another module of the program) as a node of the module's tree, where
//! the decorator parses the function's own text (`extract::parse_text`).
//!
//! Each function still gets a source id of its own (sharing the module's text and line index),
//! so that positions, and everything ordered by them, are those of the decorator's parse.

use std::fmt;
use std::sync::Arc;

use rustpython_parser::ast::{self, Ranged};
use rustpython_parser::{parse, Mode};

use crate::diagnostics::{Diagnostic, DiagnosticKind, LineIndex, SourceId, SourceText};
use crate::frontend::extract::{self, ParsedFunction, WRAP_PREFIX};
use crate::frontend::identifiers;
use crate::frontend::source::{block_len, check_nesting, Limits};

/// A module's text and its syntax tree (identifiers NFKC-normalized, as the front end's).
pub struct ParsedModule {
    pub path: String,
    pub text: Arc<str>,
    pub index: Arc<LineIndex>,
    pub body: Vec<ast::Stmt>,
}

impl fmt::Debug for ParsedModule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "ParsedModule({:?})", self.path)
    }
}

impl ParsedModule {
    /// Parses module text held to the module limits (`Limits::MODULE`); Err is the offset and
    /// message of the first problem.
    pub fn parse(text: &str, path: &str) -> Result<Self, (usize, String)> {
        check_nesting(text, &Limits::MODULE)?;
        let body = match parse(text, Mode::Module, path) {
            Ok(ast::Mod::Module(m)) => identifiers::normalize_body(text, m.body),
            Ok(_) => vec![],
            Err(e) => {
                let message = format!("cannot parse this module: {}", e.error);
                return Err((usize::from(e.offset), message));
            }
        };
        Ok(ParsedModule {
            path: path.to_string(),
            text: Arc::from(text),
            index: Arc::new(LineIndex::new(text)),
            body,
        })
    }

    /// 1-based line of a byte offset.
    pub fn line_of(&self, offset: usize) -> usize {
        self.index.line_col(&self.text, offset).0
    }

    /// The statement at `at` (indices into the module's body, then into the body of the class
    /// or function each one names).
    fn statement(&self, at: &[usize]) -> Option<&ast::Stmt> {
        let (first, rest) = at.split_first()?;
        let mut stmt = self.body.get(*first)?;
        for i in rest {
            stmt = match stmt {
                ast::Stmt::ClassDef(c) => c.body.get(*i)?,
                ast::Stmt::FunctionDef(d) => d.body.get(*i)?,
                _ => return None,
            };
        }
        Some(stmt)
    }
}

/// A function of a parsed module: a `def`, or the lambda a statement binds (`wrap = lambda d:
/// ...`), found by the statement indices `at`.
#[derive(Clone)]
pub struct FunctionTree {
    pub module: Arc<ParsedModule>,
    pub at: Vec<usize>,
}

impl fmt::Debug for FunctionTree {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "FunctionTree({:?} at {:?})", self.module.path, self.at)
    }
}

impl PartialEq for FunctionTree {
    fn eq(&self, other: &Self) -> bool {
        Arc::ptr_eq(&self.module, &other.module) && self.at == other.at
    }
}

/// A function node of a module's tree.
pub enum FunctionNode<'m> {
    Def(&'m ast::StmtFunctionDef),
    Lambda(&'m ast::ExprLambda),
}

impl FunctionTree {
    pub fn node(&self) -> Option<FunctionNode<'_>> {
        match self.module.statement(&self.at)? {
            ast::Stmt::FunctionDef(d) => Some(FunctionNode::Def(d)),
            ast::Stmt::Assign(a) => lambda_of(&a.value),
            ast::Stmt::AnnAssign(a) => lambda_of(a.value.as_deref()?),
            _ => None,
        }
    }

    /// Byte offset where the function's text starts: its first decorator's `@`, its `def`, or
    /// its lambda's line.
    fn start(&self) -> Option<usize> {
        Some(match self.node()? {
            FunctionNode::Def(d) => d
                .decorator_list
                .iter()
                .map(|e| usize::from(e.range().start()).saturating_sub(1))
                .min()
                .unwrap_or_else(|| usize::from(d.range.start())),
            FunctionNode::Lambda(l) => usize::from(l.range.start()),
        })
    }

    /// 1-based line of the function's first line (CPython's `co_firstlineno`).
    pub fn first_line(&self) -> usize {
        self.start().map_or(1, |s| self.module.line_of(s))
    }

    /// The function's text as the decorator cuts it from its file: from the start of its first
    /// line to the end of its block (`source::block_len`).
    pub fn text(&self) -> &str {
        let text: &str = &self.module.text;
        let Some(start) = self.start() else {
            return "";
        };
        let line_start = text[..start].rfind('\n').map_or(0, |i| i + 1);
        let lambda = matches!(self.node(), Some(FunctionNode::Lambda(_)));
        let rest = &text[line_start..];
        &rest[..block_len(rest, lambda)]
    }
}

fn lambda_of(e: &ast::Expr) -> Option<FunctionNode<'_>> {
    match e {
        ast::Expr::Lambda(l) => Some(FunctionNode::Lambda(l)),
        _ => None,
    }
}

/// The function `tree` (its `__qualname__` `name`, whose innermost class mangles private names)
/// as the front end's parse of its text gives it, positioned in the module's text registered
/// as a new source. Nothing is parsed: the function is held to `Limits::FUNCTION` by a scan of
/// its text, as the decorator's parse is.
pub fn function_of_tree<'t>(
    sources: &mut Vec<SourceText>,
    tree: &'t FunctionTree,
    name: &str,
) -> Result<(ParsedFunction, &'t str), Diagnostic> {
    let module = &tree.module;
    let id: SourceId = sources.len();
    sources.push(SourceText::shared(
        &module.path,
        module.text.clone(),
        module.index.clone(),
    ));
    let text = tree.text();
    let offset = text.as_ptr() as usize - module.text.as_ptr() as usize;
    check_function_limits(text).map_err(|(at, message)| Diagnostic {
        kind: DiagnosticKind::TooComplex,
        message,
        source: id,
        start: offset + at,
        end: offset + at + 1,
    })?;
    let (_, class) = identifiers::split_qualname(name);
    let func = match (tree.node(), class) {
        (Some(FunctionNode::Def(d)), Some(class)) => {
            extract::from_def(id, &identifiers::mangle_def(d.clone(), class))
        }
        (Some(FunctionNode::Def(d)), None) => extract::from_def(id, d),
        (Some(FunctionNode::Lambda(l)), Some(class)) => {
            extract::from_lambda(id, &identifiers::mangle_lambda(l.clone(), class))
        }
        (Some(FunctionNode::Lambda(l)), None) => extract::from_lambda(id, l),
        (None, _) => {
            return Err(Diagnostic {
                kind: DiagnosticKind::UnsupportedStatement,
                message: format!("cannot find the definition of `{name}` in its source"),
                source: id,
                start: offset,
                end: offset + 1,
            })
        }
    };
    Ok((func, text))
}

/// `Limits::FUNCTION` on a function's text as the decorator's parse checks it (an indented
/// text inside the `if 1:` it is parsed in); Err's offset is into `text`.
fn check_function_limits(text: &str) -> Result<(), (usize, String)> {
    if !text.starts_with([' ', '\t', '\x0c']) {
        return check_nesting(text, &Limits::FUNCTION);
    }
    let wrapped = format!("{WRAP_PREFIX}{text}");
    check_nesting(&wrapped, &Limits::FUNCTION)
        .map_err(|(at, message)| (at.saturating_sub(WRAP_PREFIX.len()), message))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_method_and_a_lambda_are_found_with_the_text_the_decorator_cuts() {
        let text = "K = 2.0\nwrap = lambda d: (d + 180.0) % 360.0\n\n\nclass Geo:\n    @staticmethod\n    def sq(x):\n        return x * x\n\n    # after\nprint(1)\n";
        let module = Arc::new(ParsedModule::parse(text, "m.py").expect("parses"));
        let method = FunctionTree {
            module: module.clone(),
            at: vec![2, 0],
        };
        assert_eq!(method.first_line(), 6);
        // What `block_len` keeps of the file from the first line on (a comment indented as
        // the block goes with it), as for the decorator's text.
        assert_eq!(
            method.text(),
            "    @staticmethod\n    def sq(x):\n        return x * x\n\n    # after\n"
        );
        let mut sources = vec![];
        let (func, _) = function_of_tree(&mut sources, &method, "Geo.sq").expect("found");
        assert_eq!((func.name.as_str(), func.params.len()), ("sq", 1));
        assert_eq!(sources[0].position(func.start), (7, 5));
        let lambda = FunctionTree {
            module,
            at: vec![1],
        };
        assert_eq!(lambda.first_line(), 2);
        assert_eq!(lambda.text(), "wrap = lambda d: (d + 180.0) % 360.0\n");
        let (func, _) = function_of_tree(&mut sources, &lambda, "<lambda>").expect("found");
        assert_eq!(func.name, "<lambda>");
    }
}
