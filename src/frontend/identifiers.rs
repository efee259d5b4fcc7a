//! Identifiers as CPython's compiler sees them: NFKC-normalized (PEP 3131: the tokenizer
//! normalizes every non-ASCII identifier, so `ﬁ` and `fi` are one name) and, in code inside a
//! class, private names mangled (`__k` in a method of `class A` is `_A__k`).
//!
//! Both are rewrites of the parsed tree that keep every range, so diagnostics still point at the
//! text as written. The live decorator's environment comes from code objects (`co_names`), whose
//! names CPython has already normalized and mangled; the static compile builds its environment
//! from the same rewritten tree; so every name the compiler compares is spelled one way.

use std::convert::Infallible;

use rustpython_parser::ast::{self, fold, Fold, Identifier};
use unicode_normalization::UnicodeNormalization;

/// `name` in NFKC, as CPython's tokenizer stores it (ASCII names are already normal).
pub fn normalize(name: &str) -> Option<String> {
    if name.is_ascii() {
        return None;
    }
    let normal: String = name.nfkc().collect();
    (normal != name).then_some(normal)
}

/// CPython's `_Py_Mangle`: `__name` inside `class _A` is `_A__name`, unless the name ends in
/// `__` (a dunder), contains a dot (a dotted import), or the class name is all underscores.
pub fn mangle(class: &str, name: &str) -> Option<String> {
    if !name.starts_with("__") || name.ends_with("__") || name.contains('.') {
        return None;
    }
    let class = class.trim_start_matches('_');
    (!class.is_empty()).then(|| format!("_{class}{name}"))
}

/// The function name and the innermost enclosing class of a `__qualname__`
/// (`A.m` -> (`m`, `A`); `A.m.<locals>.g` -> (`g`, `A`): nested functions mangle with the class
/// around them; `f.<locals>.g` -> (`g`, none)). A component followed by `<locals>` is a function.
pub fn split_qualname(qualname: &str) -> (&str, Option<&str>) {
    let parts: Vec<&str> = qualname.split('.').collect();
    let Some((name, outer)) = parts.split_last() else {
        return (qualname, None);
    };
    let class = (0..outer.len())
        .rev()
        .find(|&i| outer[i] != "<locals>" && outer.get(i + 1) != Some(&"<locals>"))
        .map(|i| outer[i]);
    (name, class)
}

/// Whether a (qual)name names a lambda.
pub fn is_lambda(qualname: &str) -> bool {
    split_qualname(qualname).0 == "<lambda>"
}

/// `body` with every identifier NFKC-normalized. Cheap when the text is ASCII (the usual case):
/// nothing is rebuilt.
pub fn normalize_body(text: &str, body: Vec<ast::Stmt>) -> Vec<ast::Stmt> {
    if text.is_ascii() {
        return body;
    }
    let mut r = Rewriter {
        class: None,
        depth: 0,
    };
    body.into_iter()
        .map(|s| {
            let Ok(s) = r.fold_stmt(s);
            s
        })
        .collect()
}

/// A function's definition with private names mangled for `class`; its own name is kept (the
/// caller looks it up by `__name__`, which CPython does not mangle).
pub fn mangle_def(def: ast::StmtFunctionDef, class: &str) -> ast::StmtFunctionDef {
    let mut r = Rewriter {
        class: Some(class.to_string()),
        depth: 1,
    };
    let name = def.name.clone();
    let Ok(mut def) = fold::fold_stmt_function_def(&mut r, def);
    def.name = name;
    def
}

/// A lambda with private names mangled for `class`.
pub fn mangle_lambda(lambda: ast::ExprLambda, class: &str) -> ast::ExprLambda {
    let mut r = Rewriter {
        class: Some(class.to_string()),
        depth: 1,
    };
    let Ok(lambda) = fold::fold_expr_lambda(&mut r, lambda);
    lambda
}

struct Rewriter {
    /// The innermost enclosing class, whose name mangles private names.
    class: Option<String>,
    /// Function nesting depth: a top-level definition keeps its name.
    depth: usize,
}

impl Rewriter {
    /// A name as CPython stores it: normalized, then mangled (`_Py_Mangle` runs on the
    /// tokenizer's normalized identifiers).
    fn name(&self, id: &mut Identifier) {
        if let Some(n) = normalize(id.as_str()) {
            *id = Identifier::new(n);
        }
        self.private(id);
    }

    fn private(&self, id: &mut Identifier) {
        if let Some(m) = self.class.as_deref().and_then(|c| mangle(c, id.as_str())) {
            *id = Identifier::new(m);
        }
    }

    fn plain(id: &mut Identifier) {
        if let Some(n) = normalize(id.as_str()) {
            *id = Identifier::new(n);
        }
    }
}

type Range = rustpython_parser::text_size::TextRange;

impl Fold<Range> for Rewriter {
    type TargetU = Range;
    type Error = Infallible;
    type UserContext = ();

    fn will_map_user(&mut self, _user: &Range) {}

    fn map_user(&mut self, user: Range, _context: ()) -> Result<Range, Infallible> {
        Ok(user)
    }

    fn fold_expr_name(&mut self, mut node: ast::ExprName) -> Result<ast::ExprName, Infallible> {
        self.name(&mut node.id);
        Ok(node)
    }

    fn fold_expr_attribute(
        &mut self,
        node: ast::ExprAttribute,
    ) -> Result<ast::ExprAttribute, Infallible> {
        let mut node = fold::fold_expr_attribute(self, node)?;
        self.name(&mut node.attr);
        Ok(node)
    }

    fn fold_arg(&mut self, node: ast::Arg) -> Result<ast::Arg, Infallible> {
        let mut node = fold::fold_arg(self, node)?;
        self.name(&mut node.arg);
        Ok(node)
    }

    /// Keyword names in a call are normalized but never mangled (CPython passes `__k=` as is).
    fn fold_keyword(&mut self, node: ast::Keyword) -> Result<ast::Keyword, Infallible> {
        let mut node = fold::fold_keyword(self, node)?;
        if let Some(arg) = node.arg.as_mut() {
            Self::plain(arg);
        }
        Ok(node)
    }

    fn fold_alias(&mut self, node: ast::Alias) -> Result<ast::Alias, Infallible> {
        let mut node = fold::fold_alias(self, node)?;
        Self::plain(&mut node.name);
        if let Some(a) = node.asname.as_mut() {
            Self::plain(a);
        }
        Ok(node)
    }

    fn fold_stmt_import_from(
        &mut self,
        node: ast::StmtImportFrom,
    ) -> Result<ast::StmtImportFrom, Infallible> {
        let mut node = fold::fold_stmt_import_from(self, node)?;
        if let Some(m) = node.module.as_mut() {
            Self::plain(m);
        }
        Ok(node)
    }

    fn fold_stmt_global(
        &mut self,
        mut node: ast::StmtGlobal,
    ) -> Result<ast::StmtGlobal, Infallible> {
        node.names.iter_mut().for_each(|n| self.name(n));
        Ok(node)
    }

    fn fold_stmt_nonlocal(
        &mut self,
        mut node: ast::StmtNonlocal,
    ) -> Result<ast::StmtNonlocal, Infallible> {
        node.names.iter_mut().for_each(|n| self.name(n));
        Ok(node)
    }

    fn fold_stmt_function_def(
        &mut self,
        node: ast::StmtFunctionDef,
    ) -> Result<ast::StmtFunctionDef, Infallible> {
        self.depth += 1;
        let mut node = fold::fold_stmt_function_def(self, node)?;
        self.depth -= 1;
        if self.depth == 0 {
            Self::plain(&mut node.name);
        } else {
            self.name(&mut node.name);
        }
        Ok(node)
    }

    fn fold_stmt_async_function_def(
        &mut self,
        node: ast::StmtAsyncFunctionDef,
    ) -> Result<ast::StmtAsyncFunctionDef, Infallible> {
        self.depth += 1;
        let mut node = fold::fold_stmt_async_function_def(self, node)?;
        self.depth -= 1;
        if self.depth == 0 {
            Self::plain(&mut node.name);
        } else {
            self.name(&mut node.name);
        }
        Ok(node)
    }

    /// A class's body mangles with its own name; the name it binds with the enclosing one.
    fn fold_stmt_class_def(
        &mut self,
        node: ast::StmtClassDef,
    ) -> Result<ast::StmtClassDef, Infallible> {
        let mut name = node.name.clone();
        Self::plain(&mut name);
        let outer = self.class.replace(name.to_string());
        let mut node = fold::fold_stmt_class_def(self, node)?;
        self.class = outer;
        node.name = name;
        self.private(&mut node.name);
        Ok(node)
    }

    fn fold_excepthandler_except_handler(
        &mut self,
        node: ast::ExceptHandlerExceptHandler,
    ) -> Result<ast::ExceptHandlerExceptHandler, Infallible> {
        let mut node = fold::fold_excepthandler_except_handler(self, node)?;
        if let Some(n) = node.name.as_mut() {
            self.name(n);
        }
        Ok(node)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mangling_follows_cpython() {
        assert_eq!(mangle("A", "__k").as_deref(), Some("_A__k"));
        assert_eq!(mangle("__A", "__k").as_deref(), Some("_A__k"));
        assert_eq!(mangle("A", "__init__"), None);
        assert_eq!(mangle("A", "_k"), None);
        assert_eq!(mangle("A", "__a.b"), None);
        assert_eq!(mangle("___", "__k"), None);
    }

    #[test]
    fn qualnames_name_the_innermost_class() {
        assert_eq!(split_qualname("f"), ("f", None));
        assert_eq!(split_qualname("A.m"), ("m", Some("A")));
        assert_eq!(split_qualname("A.B.m"), ("m", Some("B")));
        assert_eq!(split_qualname("A.m.<locals>.g"), ("g", Some("A")));
        assert_eq!(split_qualname("f.<locals>.g"), ("g", None));
        assert_eq!(
            split_qualname("f.<locals>.A.<lambda>"),
            ("<lambda>", Some("A"))
        );
    }

    #[test]
    fn identifiers_are_nfkc() {
        assert_eq!(normalize("\u{FB01}").as_deref(), Some("fi"));
        assert_eq!(normalize("x"), None);
        assert_eq!(normalize("é"), None);
    }
}
