//! Validate: every construct with no vectorized meaning, collected before failing (D5, D10).
//!
//! This pass is syntactic: it needs no environment. What depends on bindings (unknown calls,
//! undefined names, bare truthiness of non-boolean values, run-time `range` bounds) is found by
//! lowering, which reports into the same list, so the user sees every violation at once.

use rustpython_parser::ast::{self, Ranged};

use crate::diagnostics::{Diagnostic, DiagnosticKind, SourceId};
use crate::extract::{span, ParsedFunction};

/// Reports every unsupported construct of `func` (and of the functions nested in it) into `diags`.
pub fn validate(func: &ParsedFunction, diags: &mut Vec<Diagnostic>) {
    let mut v = Validator {
        source: func.source,
        diags,
    };
    for &(start, end) in &func.star_params {
        v.push_range(
            DiagnosticKind::UnsupportedSignature,
            "`*args` and `**kwargs` parameters are not supported; name each parameter".into(),
            start,
            end,
        );
    }
    v.block(&func.body, true, 0);
}

struct Validator<'a> {
    source: SourceId,
    diags: &'a mut Vec<Diagnostic>,
}

impl Validator<'_> {
    fn push_range(&mut self, kind: DiagnosticKind, message: String, start: usize, end: usize) {
        self.diags.push(Diagnostic {
            kind,
            message,
            source: self.source,
            start,
            end,
        });
    }

    fn push<T: Ranged>(&mut self, kind: DiagnosticKind, message: impl Into<String>, node: &T) {
        let (start, end) = span(node);
        self.push_range(kind, message.into(), start, end);
    }

    /// Points at the statement's keyword only (`while`, `try`), not its whole body.
    fn push_keyword(&mut self, kind: DiagnosticKind, message: &str, stmt: &ast::Stmt, kw: &str) {
        let (start, _) = span(stmt);
        self.push_range(kind, message.into(), start, start + kw.len());
    }

    fn block(&mut self, body: &[ast::Stmt], top: bool, loop_depth: usize) {
        for (i, stmt) in body.iter().enumerate() {
            // A docstring is the only string we accept.
            if top && i == 0 && is_docstring(stmt) {
                continue;
            }
            self.stmt(stmt, loop_depth);
        }
    }

    fn stmt(&mut self, stmt: &ast::Stmt, loop_depth: usize) {
        use ast::Stmt as S;
        use DiagnosticKind as K;
        match stmt {
            S::Assign(a) => {
                for t in &a.targets {
                    self.target(t);
                }
                if let ast::Expr::Lambda(l) = a.value.as_ref() {
                    self.lambda(l);
                } else if let ast::Expr::Tuple(t) = a.value.as_ref() {
                    t.elts.iter().for_each(|e| self.expr(e));
                } else {
                    self.expr(&a.value);
                }
            }
            S::AugAssign(a) => {
                self.target(&a.target);
                self.operator(&a.op, stmt);
                self.expr(&a.value);
            }
            S::AnnAssign(a) => {
                self.target(&a.target);
                if let Some(v) = &a.value {
                    self.expr(v);
                }
            }
            S::Return(r) => match r.value.as_deref() {
                Some(ast::Expr::Tuple(t)) => self.returned_tuple(t, stmt),
                Some(v) => self.expr(v),
                None => self.push(
                    K::MissingReturn,
                    "`return` without a value returns None, which has no array form; return a number",
                    stmt,
                ),
            },
            S::If(i) => {
                self.expr(&i.test);
                self.block(&i.body, false, loop_depth);
                self.block(&i.orelse, false, loop_depth);
            }
            S::For(f) => {
                if !matches!(f.target.as_ref(), ast::Expr::Name(_)) {
                    self.push(K::UnsupportedLoop, "the loop variable must be a single name", &*f.target);
                }
                if !f.orelse.is_empty() {
                    self.push_keyword(K::UnsupportedLoop, "`for ... else` is not supported", stmt, "for");
                }
                self.expr(&f.iter);
                self.block(&f.body, false, loop_depth + 1);
            }
            S::While(_) => self.push_keyword(
                K::WhileLoop,
                "`while` loops are not supported: their trip count differs per element; use `for i in range(N)` with N known at generation time (D6)",
                stmt,
                "while",
            ),
            S::Break(_) | S::Continue(_) => self.push(
                K::UnsupportedLoop,
                "`break` and `continue` are not supported: use a flag variable and `if`",
                stmt,
            ),
            S::Pass(_) => {}
            S::Expr(e) => {
                let what = if matches!(e.value.as_ref(), ast::Expr::Call(_)) {
                    "a call made for its side effects cannot be vectorized; remove it (its result would be discarded)"
                } else {
                    "an expression statement has no effect; remove it"
                };
                self.push(K::SideEffect, what, stmt);
            }
            S::FunctionDef(d) => {
                if !d.decorator_list.is_empty() {
                    self.push(
                        K::UnsupportedStatement,
                        "decorated nested functions are not supported; define a plain helper",
                        &d.decorator_list[0],
                    );
                }
                let nested = crate::extract::from_def(self.source, d);
                for &(start, end) in &nested.star_params {
                    self.push_range(
                        K::UnsupportedSignature,
                        "`*args` and `**kwargs` parameters are not supported; name each parameter".into(),
                        start,
                        end,
                    );
                }
                self.block(&d.body, true, 0);
            }
            S::Global(_) | S::Nonlocal(_) => self.push(
                K::NonlocalWrite,
                "`global` and `nonlocal` are not supported: a vectorized function cannot write outside itself",
                stmt,
            ),
            S::Try(_) | S::TryStar(_) => self.push_keyword(
                K::UnsupportedStatement,
                "`try` is not supported: exceptions cannot be raised per element (numeric errors become IEEE values, D3)",
                stmt,
                "try",
            ),
            S::Raise(_) => self.push(K::UnsupportedStatement, "`raise` is not supported in a vectorized function", stmt),
            S::Assert(_) => self.push(K::UnsupportedStatement, "`assert` is not supported in a vectorized function", stmt),
            S::With(_) | S::AsyncWith(_) => self.push_keyword(K::UnsupportedStatement, "`with` is not supported", stmt, "with"),
            S::Import(_) | S::ImportFrom(_) => self.push(
                K::UnsupportedStatement,
                "imports inside a vectorized function are not supported; import at module level",
                stmt,
            ),
            S::Delete(_) => self.push(K::UnsupportedStatement, "`del` is not supported", stmt),
            S::ClassDef(_) => self.push(K::UnsupportedStatement, "class definitions are not supported", stmt),
            S::AsyncFunctionDef(_) | S::AsyncFor(_) => {
                self.push(K::UnsupportedStatement, "async code is not supported", stmt);
            }
            S::Match(_) => self.push_keyword(K::UnsupportedStatement, "`match` is not supported; use if/elif", stmt, "match"),
            S::TypeAlias(_) => self.push(K::UnsupportedStatement, "type aliases are not supported here", stmt),
        }
    }

    /// `return a, b` (D13): a flat, non-empty tuple of expressions.
    fn returned_tuple(&mut self, t: &ast::ExprTuple, stmt: &ast::Stmt) {
        if t.elts.is_empty() {
            self.push(
                DiagnosticKind::UnsupportedExpression,
                "an empty tuple has no array form; return a number",
                stmt,
            );
        }
        for e in &t.elts {
            if matches!(e, ast::Expr::Tuple(_)) {
                self.push(
                    DiagnosticKind::UnsupportedExpression,
                    "a tuple inside a returned tuple is not supported; return its items in one flat tuple",
                    e,
                );
            } else {
                self.expr(e);
            }
        }
    }

    fn target(&mut self, target: &ast::Expr) {
        match target {
            ast::Expr::Name(_) => {}
            ast::Expr::Tuple(t) if t.elts.iter().all(|e| matches!(e, ast::Expr::Name(_))) => {}
            ast::Expr::Subscript(_) | ast::Expr::Attribute(_) => self.push(
                DiagnosticKind::SideEffect,
                "assignment to an item or attribute mutates an object; assign to a plain name",
                target,
            ),
            _ => self.push(
                DiagnosticKind::UnsupportedStatement,
                "only plain names and tuples of names can be assigned",
                target,
            ),
        }
    }

    fn operator<T: Ranged>(&mut self, op: &ast::Operator, node: &T) {
        use ast::Operator as O;
        let name = match op {
            O::Add | O::Sub | O::Mult | O::Div | O::FloorDiv | O::Mod | O::Pow => return,
            O::MatMult => "@",
            O::LShift => "<<",
            O::RShift => ">>",
            O::BitOr => "|",
            O::BitXor => "^",
            O::BitAnd => "&",
        };
        self.push(
            DiagnosticKind::UnsupportedOperator,
            format!("operator `{name}` is not supported"),
            node,
        );
    }

    fn lambda(&mut self, l: &ast::ExprLambda) {
        let nested = crate::extract::from_lambda(self.source, l);
        for &(start, end) in &nested.star_params {
            self.push_range(
                DiagnosticKind::UnsupportedSignature,
                "`*args` and `**kwargs` parameters are not supported; name each parameter".into(),
                start,
                end,
            );
        }
        self.expr(&l.body);
    }

    /// A call's callee shape and arguments (the callee itself is resolved by lowering).
    fn call(&mut self, c: &ast::ExprCall) {
        use ast::Expr as E;
        use DiagnosticKind as K;
        // The callee is resolved by lowering; check only the arguments here.
        if let E::Attribute(a) = c.func.as_ref() {
            if !matches!(a.value.as_ref(), E::Name(_)) {
                self.expr(&a.value);
            }
        } else if !matches!(c.func.as_ref(), E::Name(_)) {
            self.push(
                K::UnknownCall,
                "only calls of named functions are supported",
                &*c.func,
            );
        }
        // `math.fsum((a, b, c))`: lowering checks that the callee is `math.fsum` (D17).
        let fsum = match c.func.as_ref() {
            E::Attribute(a) => a.attr.as_str() == "fsum",
            E::Name(n) => n.id.as_str() == "fsum",
            _ => false,
        };
        // `np.clip(x, 0.0, None)`: lowering checks that the callee is NumPy's clip (D16).
        let clip = matches!(c.func.as_ref(), E::Attribute(a) if a.attr.as_str() == "clip");
        let none = |e: &ast::Expr| matches!(e, E::Constant(k) if k.value.is_none());
        let isinstance = matches!(c.func.as_ref(), E::Name(n) if n.id.as_str() == "isinstance");
        for (i, a) in c.args.iter().enumerate() {
            if clip && none(a) {
                continue;
            }
            if let (true, 1, E::Tuple(t)) = (isinstance, i, a) {
                // D14: the classes of `isinstance(v, (A, B))`.
                t.elts.iter().for_each(|e| self.expr(e));
            } else if let (
                true,
                E::Tuple(ast::ExprTuple { elts, .. }) | E::List(ast::ExprList { elts, .. }),
            ) = (fsum, a)
            {
                elts.iter().for_each(|e| self.expr(e));
            } else if let E::Starred(_) = a {
                self.push(K::BadArguments, "`*args` in calls is not supported", a);
            } else {
                self.expr(a);
            }
        }
        for k in &c.keywords {
            if clip && none(&k.value) {
                continue;
            }
            if k.arg.is_none() {
                self.push(
                    K::BadArguments,
                    "`**kwargs` in calls is not supported",
                    &k.value,
                );
            } else {
                self.expr(&k.value);
            }
        }
    }

    fn expr(&mut self, expr: &ast::Expr) {
        use ast::Expr as E;
        use DiagnosticKind as K;
        match expr {
            E::BoolOp(b) => b.values.iter().for_each(|v| self.expr(v)),
            E::NamedExpr(n) => {
                self.target(&n.target);
                self.expr(&n.value);
            }
            E::BinOp(b) => {
                self.operator(&b.op, expr);
                self.expr(&b.left);
                self.expr(&b.right);
            }
            E::UnaryOp(u) => {
                if matches!(u.op, ast::UnaryOp::Invert) {
                    self.push(K::UnsupportedOperator, "operator `~` is not supported", expr);
                }
                self.expr(&u.operand);
            }
            E::Lambda(_) => self.push(
                K::UnsupportedExpression,
                "a lambda must be assigned to a name before it is called",
                expr,
            ),
            E::IfExp(i) => {
                self.expr(&i.test);
                self.expr(&i.body);
                self.expr(&i.orelse);
            }
            E::Compare(c) => {
                for op in &c.ops {
                    let bad = match op {
                        ast::CmpOp::In | ast::CmpOp::NotIn => Some("`in` is not supported"),
                        _ => None,
                    };
                    if let Some(msg) = bad {
                        self.push(K::UnsupportedOperator, msg, expr);
                    }
                }
                self.expr(&c.left);
                c.comparators.iter().for_each(|e| self.expr(e));
            }
            E::Call(c) => self.call(c),
            E::Constant(c) => match &c.value {
                // D14: strings and None are uniform values (compared, used as keys); lowering
                // reports them where a number is needed.
                ast::Constant::Bool(_)
                | ast::Constant::Int(_)
                | ast::Constant::Float(_)
                | ast::Constant::Str(_)
                | ast::Constant::None => {}
                ast::Constant::Bytes(_) => {
                    self.push(K::UnsupportedExpression, "bytes are not supported in vectorized code", expr);
                }
                ast::Constant::Complex { .. } => {
                    self.push(K::UnsupportedExpression, "complex numbers are not supported", expr);
                }
                _ => self.push(K::UnsupportedExpression, "this constant is not supported", expr),
            },
            // D14: attributes of uniform values at any depth (`cfg.limits.upper`); lowering
            // reports an attribute of a number.
            E::Attribute(a) => self.expr(&a.value),
            E::Subscript(s) => {
                if matches!(s.slice.as_ref(), E::Slice(_)) {
                    self.push(K::UnsupportedExpression, "slices are not supported", expr);
                } else {
                    self.expr(&s.value);
                    self.expr(&s.slice);
                }
            }
            E::Name(_) => {}
            E::ListComp(_) | E::SetComp(_) | E::DictComp(_) | E::GeneratorExp(_) => self.push(
                K::UnsupportedExpression,
                "comprehensions are not supported: their length can differ per element; use a `for i in range(N)` loop",
                expr,
            ),
            E::List(_) | E::Set(_) | E::Dict(_) => self.push(
                K::UnsupportedExpression,
                "containers are not supported in vectorized code",
                expr,
            ),
            E::Tuple(_) => self.push(
                K::UnsupportedExpression,
                "tuples are supported only in assignments like `a, b = b, a`",
                expr,
            ),
            E::JoinedStr(_) | E::FormattedValue(_) => {
                self.push(K::UnsupportedExpression, "f-strings are not supported in vectorized code", expr);
            }
            E::Await(_) | E::Yield(_) | E::YieldFrom(_) => {
                self.push(K::UnsupportedExpression, "generators and coroutines are not supported", expr);
            }
            E::Starred(_) | E::Slice(_) => {
                self.push(K::UnsupportedExpression, "this expression is not supported", expr);
            }
        }
    }
}

/// Whether `stmt` is a string literal on its own (a docstring, when first in a body).
pub fn is_docstring(stmt: &ast::Stmt) -> bool {
    matches!(stmt, ast::Stmt::Expr(e) if matches!(
        e.value.as_ref(),
        ast::Expr::Constant(c) if matches!(c.value, ast::Constant::Str(_))
    ))
}
