//! Validate: every construct with no vectorized meaning, collected before failing (D5, D10).
//!
//! This pass is syntactic: it needs no environment. What depends on bindings (unknown calls,
//! undefined names, bare truthiness of non-boolean values, run-time `range` bounds) is found by
//! lowering, which reports into the same list, so the user sees every violation at once.

use rustpython_parser::ast::{self, Ranged};

use crate::diagnostics::{Diagnostic, DiagnosticKind, SourceId};
use crate::frontend::extract::{span, ParsedFunction};

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
    v.block(&func.body, 0);
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

    fn block(&mut self, body: &[ast::Stmt], loop_depth: usize) {
        for stmt in body {
            // A string literal on its own (a docstring, or a block comment anywhere) does
            // nothing: it is the only string accepted.
            if is_string_statement(stmt) {
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
                // D20: None per lane (lowering: an error naming the element in the marked
                // function, None in a helper).
                None => {}
            },
            S::If(i) => {
                self.expr(&i.test);
                self.block(&i.body, loop_depth);
                self.block(&i.orelse, loop_depth);
            }
            S::For(f) => self.for_stmt(f, loop_depth),
            S::While(w) => {
                self.expr(&w.test);
                self.block(&w.body, loop_depth + 1);
                self.block(&w.orelse, loop_depth);
            }
            S::Break(_) | S::Continue(_) if loop_depth == 0 => self.push(
                K::UnsupportedLoop,
                "`break` and `continue` must be inside a loop",
                stmt,
            ),
            S::Break(_) | S::Continue(_) => {}
            S::Pass(_) => {}
            // A helper called for its checks (D11, `check_range(t, 0, 100)`): lowering accepts
            // it when the callee is inlined, and reports any other call.
            S::Expr(e) if matches!(e.value.as_ref(), ast::Expr::Call(_)) => self.expr(&e.value),
            S::Expr(_) => self.push(K::SideEffect, "an expression statement has no effect; remove it", stmt),
            S::FunctionDef(d) => {
                if !d.decorator_list.is_empty() {
                    self.push(
                        K::UnsupportedStatement,
                        "decorated nested functions are not supported; define a plain helper",
                        &d.decorator_list[0],
                    );
                }
                let nested = crate::frontend::extract::from_def(self.source, d);
                for &(start, end) in &nested.star_params {
                    self.push_range(
                        K::UnsupportedSignature,
                        "`*args` and `**kwargs` parameters are not supported; name each parameter".into(),
                        start,
                        end,
                    );
                }
                self.block(&d.body, 0);
            }
            S::Global(_) | S::Nonlocal(_) => self.push(
                K::NonlocalWrite,
                "`global` and `nonlocal` are not supported: a vectorized function cannot write outside itself",
                stmt,
            ),
            S::Try(t) => self.try_stmt(t, loop_depth),
            S::TryStar(_) => self.push_keyword(
                K::UnsupportedStatement,
                "`try ... except*` (exception groups) is not supported; use plain `except`",
                stmt,
                "try",
            ),
            // D11: the exception expression runs in Python on one lane; lowering checks its names.
            S::Raise(r) => self.raise_stmt(r),
            S::Assert(a) => self.expr(&a.test),
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

    /// `try` (D11): every clause is checked like any block; lowering resolves and matches the
    /// classes.
    fn try_stmt(&mut self, t: &ast::StmtTry, loop_depth: usize) {
        self.block(&t.body, loop_depth);
        for h in &t.handlers {
            let ast::ExceptHandler::ExceptHandler(h) = h;
            self.block(&h.body, loop_depth);
        }
        self.block(&t.orelse, loop_depth);
        self.block(&t.finalbody, loop_depth);
    }

    /// `raise` (D11): the exception expression (and the cause of `raise ... from ...`) runs in
    /// Python on one lane; lowering checks their names, and that a bare `raise` stands in an
    /// `except` clause.
    fn raise_stmt(&mut self, _r: &ast::StmtRaise) {}

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

    /// A `for` loop: one target name, or names (nested tuples of names) unpacking its items:
    /// `enumerate`/`zip` of tables, a container of tuples (D18). Lowering checks the iterable.
    fn for_stmt(&mut self, f: &ast::StmtFor, loop_depth: usize) {
        if !names_only(&f.target) {
            self.push(DiagnosticKind::UnsupportedLoop, "the loop variable must be a single name, or names unpacking its items (`for i, c in enumerate(T)`, `for a, b in zip(T1, T2)`)", &*f.target);
        }
        match f.iter.as_ref() {
            // The tables `enumerate` and `zip` run over (lower/loops/for_unpack.rs).
            ast::Expr::Call(c) if matches!(c.func.as_ref(), ast::Expr::Name(n) if matches!(n.id.as_str(), "enumerate" | "zip")) =>
            {
                for (i, a) in c.args.iter().enumerate() {
                    let is_start = i == 1
                        && matches!(c.func.as_ref(), ast::Expr::Name(n) if n.id.as_str() == "enumerate");
                    if is_start {
                        self.expr(a);
                    } else {
                        self.table(a);
                    }
                }
                c.keywords.iter().for_each(|k| self.expr(&k.value));
            }
            iter => self.table(iter),
        }
        self.block(&f.body, loop_depth + 1);
        self.block(&f.orelse, loop_depth);
    }

    fn target(&mut self, target: &ast::Expr) {
        match target {
            ast::Expr::Name(_) => {}
            ast::Expr::Tuple(t) if t.elts.iter().all(|e| matches!(e, ast::Expr::Name(_))) => {}
            // D18: an item of a list or dict the function made (lowering checks which).
            ast::Expr::Subscript(s) => {
                self.expr(&s.value);
                self.expr(&s.slice);
            }
            ast::Expr::Attribute(_) => self.push(
                DiagnosticKind::SideEffect,
                "assignment to an attribute mutates an object; assign to a plain name",
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
        if !matches!(op, O::MatMult) {
            return;
        }
        let name = "@";
        self.push(
            DiagnosticKind::UnsupportedOperator,
            format!("operator `{name}` is not supported"),
            node,
        );
    }

    fn lambda(&mut self, l: &ast::ExprLambda) {
        let nested = crate::frontend::extract::from_lambda(self.source, l);
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

    /// A comparison chain: `is` is rejected; `in` takes a table display of constants.
    /// `is` is lowering's to judge: it compares uniform values (D14), never numbers.
    fn compare(&mut self, c: &ast::ExprCompare) {
        self.expr(&c.left);
        for (op, e) in c.ops.iter().zip(&c.comparators) {
            // `x in (1, 2, 3)`: a table display (lower/values/tables.rs checks its items).
            match op {
                ast::CmpOp::In | ast::CmpOp::NotIn => self.table(e),
                _ => self.expr(e),
            }
        }
    }

    /// A generator expression or list comprehension reduced by `sum`, `min`, `max`, `any` or
    /// `all` (lower/values/reduce.rs unrolls it over constant iterables).
    fn comprehension(&mut self, e: &ast::Expr) {
        let (elt, generators) = match e {
            ast::Expr::GeneratorExp(g) => (&g.elt, &g.generators),
            ast::Expr::ListComp(l) => (&l.elt, &l.generators),
            ast::Expr::DictComp(d) => {
                self.expr(&d.key);
                (&d.value, &d.generators)
            }
            _ => return,
        };
        for g in generators {
            if g.is_async {
                self.push(
                    DiagnosticKind::UnsupportedExpression,
                    "`async for` is not supported",
                    e,
                );
            }
            if !names_only(&g.target) {
                self.push(
                    DiagnosticKind::UnsupportedExpression,
                    "a comprehension's variable must be a name, or names unpacking its items",
                    &g.target,
                );
            }
            self.iterable(&g.iter);
            g.ifs.iter().for_each(|c| self.expr(c));
        }
        self.expr(elt);
    }

    /// A comprehension's iterable: a table, or `zip`/`enumerate` of tables.
    fn iterable(&mut self, e: &ast::Expr) {
        if let ast::Expr::Call(c) = e {
            if matches!(c.func.as_ref(), ast::Expr::Name(n) if matches!(n.id.as_str(), "zip" | "enumerate"))
            {
                c.args.iter().for_each(|a| self.iterable(a));
                c.keywords.iter().for_each(|k| self.expr(&k.value));
                return;
            }
        }
        self.table(e);
    }

    /// A table display (tuple, list, set, dict) read by a subscript, `in`, `len` or a reduction:
    /// its items only; lowering (`lower/values/tables.rs`) requires them to be constants.
    fn table(&mut self, e: &ast::Expr) {
        use ast::Expr as E;
        match e {
            E::Tuple(ast::ExprTuple { elts, .. })
            | E::List(ast::ExprList { elts, .. })
            | E::Set(ast::ExprSet { elts, .. }) => elts.iter().for_each(|e| self.expr(e)),
            E::Dict(d) => {
                d.keys.iter().flatten().for_each(|e| self.expr(e));
                d.values.iter().for_each(|e| self.expr(e));
            }
            other => self.expr(other),
        }
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
        // `np.clip(x, 0.0, None)`: lowering checks that the callee is NumPy's clip (D16).
        let clip = matches!(c.func.as_ref(), E::Attribute(a) if a.attr.as_str() == "clip");
        let none = |e: &ast::Expr| matches!(e, E::Constant(k) if k.value.is_none());
        // `sum(c * x for c in T)`, `len(T)`: lowering checks the callee and the table (D15).
        let callee = match c.func.as_ref() {
            E::Name(n) => n.id.as_str(),
            _ => "",
        };
        let reduces = REDUCERS.contains(&callee);
        let isinstance = callee == "isinstance";
        // `bisect_right((0.0, 1e4), x)`: the table searched (D15, lower/values/bisect.rs).
        let searched = match c.func.as_ref() {
            E::Name(n) => n.id.as_str(),
            E::Attribute(a) => a.attr.as_str(),
            _ => "",
        };
        let bisect = matches!(searched, "bisect_left" | "bisect_right" | "bisect");
        // `np.polyval((1.0, 0.5), x)`: the coefficient table (D16, lower/calls/numpy/arrays.rs).
        let polyval = searched == "polyval";
        for (i, a) in c.args.iter().enumerate() {
            if clip && none(a) {
                continue;
            }
            if let (true, 1, E::Tuple(t)) = (isinstance, i, a) {
                // D14: the classes of `isinstance(v, (A, B))`.
                t.elts.iter().for_each(|e| self.expr(e));
            } else if reduces && matches!(a, E::GeneratorExp(_) | E::ListComp(_)) {
                self.comprehension(a);
            } else if ((reduces || callee == "len") && !matches!(a, E::Starred(_)))
                || ((bisect || polyval) && i == 0)
            {
                self.table(a);
            } else if let E::Starred(_) = a {
                self.push(K::BadArguments, "`*args` in calls is not supported", a);
            } else {
                self.argument(a);
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
                self.argument(&k.value);
            }
        }
    }

    /// An argument of a call. A list or tuple display there is checked item by item: it is
    /// `math.fsum((a, b, c))`'s (D17) or that of a call run element by element
    /// (`statistics.fmean([x, y])`, D23); lowering checks the callee.
    fn argument(&mut self, a: &ast::Expr) {
        match a {
            ast::Expr::Tuple(ast::ExprTuple { elts, .. })
            | ast::Expr::List(ast::ExprList { elts, .. }) => elts.iter().for_each(|e| self.expr(e)),
            _ => self.expr(a),
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
            E::UnaryOp(u) => self.expr(&u.operand),
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
            E::Compare(c) => self.compare(c),
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
                    self.push(
                        K::UnsupportedExpression,
                        "bytes are not supported in vectorized code",
                        expr,
                    );
                }
                ast::Constant::Complex { .. } => {
                    self.push(
                        K::UnsupportedExpression,
                        "complex numbers are not supported",
                        expr,
                    );
                }
                _ => self.push(
                    K::UnsupportedExpression,
                    "this constant is not supported",
                    expr,
                ),
            },
            // D14: attributes of uniform values at any depth (`cfg.limits.upper`); lowering
            // reports an attribute of a number.
            E::Attribute(a) => self.expr(&a.value),
            E::Subscript(s) => {
                self.table(&s.value);
                match s.slice.as_ref() {
                    // D18: a slice with constant bounds (lowering checks them).
                    E::Slice(sl) => [&sl.lower, &sl.upper, &sl.step]
                        .into_iter()
                        .flatten()
                        .for_each(|b| self.expr(b)),
                    slice => self.expr(slice),
                }
            }
            E::Name(_) => {}
            // D18: a comprehension makes a list or dict (unrolled: lowering checks its iterables).
            E::ListComp(_) | E::DictComp(_) | E::GeneratorExp(_) => self.comprehension(expr),
            E::SetComp(_) | E::Set(_) => self.push(
                K::UnsupportedExpression,
                "a set is supported only as a display on the right of `in`; use a tuple or list",
                expr,
            ),
            // D18: a container the function makes (lowering checks how it is used).
            E::List(ast::ExprList { elts, .. }) | E::Tuple(ast::ExprTuple { elts, .. }) => {
                elts.iter().for_each(|e| match e {
                    E::Starred(s) => self.expr(&s.value),
                    e => self.expr(e),
                });
            }
            E::Dict(d) => {
                d.keys.iter().flatten().for_each(|k| self.expr(k));
                d.values.iter().for_each(|v| self.expr(v));
            }
            E::JoinedStr(_) | E::FormattedValue(_) => {
                self.push(
                    K::UnsupportedExpression,
                    "f-strings are not supported in vectorized code",
                    expr,
                );
            }
            E::Await(_) | E::Yield(_) | E::YieldFrom(_) => {
                self.push(
                    K::UnsupportedExpression,
                    "generators and coroutines are not supported",
                    expr,
                );
            }
            E::Starred(_) | E::Slice(_) => {
                self.push(
                    K::UnsupportedExpression,
                    "this expression is not supported",
                    expr,
                );
            }
        }
    }
}

/// Whether a loop or comprehension target is a name or (nested) tuples of names.
fn names_only(t: &ast::Expr) -> bool {
    match t {
        ast::Expr::Name(_) => true,
        ast::Expr::Tuple(tt) => tt.elts.iter().all(names_only),
        _ => false,
    }
}

/// The builtins whose argument may be a comprehension (unrolled, lower/values/reduce.rs).
const REDUCERS: &[&str] = &["sum", "min", "max", "any", "all"];

/// Whether `stmt` is a string literal on its own: a docstring when first in a body, else a
/// block comment; either does nothing.
pub fn is_string_statement(stmt: &ast::Stmt) -> bool {
    matches!(stmt, ast::Stmt::Expr(e) if matches!(
        e.value.as_ref(),
        ast::Expr::Constant(c) if matches!(c.value, ast::Constant::Str(_))
    ))
}
