//! `for i, c in enumerate(T)` and `for a, b in zip(T1, T2)` over constant tables (D6, D15): a
//! counted loop over the items' positions whose body first binds the targets.
//!
//! ```python
//! for k, c in enumerate(COEFFS, 1):        for _k_c in range(len(COEFFS)):
//!     acc += c * x ** k              ->        k = _k_c + 1
//!                                              c = COEFFS[_k_c]
//!                                              acc += c * x ** k
//! ```
//!
//! Binding the targets at the top of each iteration is exact: CPython rebinds them from the
//! iterator whatever the body assigned; after the loop they hold the last items, as in CPython.
//!
//! A loop over a sequence given per call (D14: `for lo, hi, rate in brackets` with `brackets` a
//! parameter) is the same with a trip count Python reads once per call (`given`).

use rustpython_parser::ast;
use rustpython_parser::ast::Ranged;
use rustpython_parser::text_size::TextRange;

use crate::diagnostics::DiagnosticKind;
use crate::env::AssumedBinding;
use crate::ir::Const;
use crate::lower::loops::for_loop::LoopSpec;
use crate::lower::{Frame, Lowerer, R};

impl Lowerer<'_> {
    /// `for (a, b, ...) in enumerate(...) / zip(...):`.
    pub(in crate::lower) fn for_unpacking(
        &mut self,
        frame: &mut Frame,
        f: &ast::StmtFor,
        target: &ast::ExprTuple,
        stmt: &ast::Stmt,
    ) {
        let Ok((counter, prefix, len)) = self.unpacking_prefix(frame, f, target) else {
            return;
        };
        let body: Vec<ast::Stmt> = prefix.into_iter().chain(f.body.iter().cloned()).collect();
        let mut spec: LoopSpec =
            self.carried_spec(frame, counter, (0, len as i128, 1), None, &body);
        spec.orelse = &f.orelse;
        self.counted_for(frame, spec, stmt);
    }

    /// The loop counter, the assignments binding the targets from it, and the trip count.
    fn unpacking_prefix(
        &mut self,
        frame: &mut Frame,
        f: &ast::StmtFor,
        target: &ast::ExprTuple,
    ) -> R<(String, Vec<ast::Stmt>, usize)> {
        let names: Vec<String> = target
            .elts
            .iter()
            .filter_map(|e| match e {
                ast::Expr::Name(n) => Some(n.id.to_string()),
                _ => None,
            })
            .collect();
        let which = match f.iter.as_ref() {
            ast::Expr::Call(call) => match call.func.as_ref() {
                ast::Expr::Name(n) => ["enumerate", "zip"]
                    .into_iter()
                    .find(|w| self.is_builtin(frame, n.id.as_str(), w))
                    .map(|w| (w, call)),
                _ => None,
            },
            _ => None,
        };
        let Some((which, call)) = which else {
            return self.rows_prefix(frame, f, target, &names);
        };
        self.assume(frame, which, AssumedBinding::Builtin(which.to_string()));
        if !call.keywords.is_empty() {
            return self.bad_unpacking(
                frame,
                call,
                format!("{which}() takes no keyword arguments here"),
            );
        }
        let (start, tables): (Option<i128>, &[ast::Expr]) = match (which, call.args.as_slice()) {
            ("enumerate", [t]) => (Some(0), std::slice::from_ref(t)),
            ("enumerate", [t, s]) => {
                let v = self.expr(frame, s);
                match self.const_of(v) {
                    Some(Const::Int(i)) => (Some(i), std::slice::from_ref(t)),
                    Some(Const::Bool(b)) => (Some(i128::from(b)), std::slice::from_ref(t)),
                    _ => {
                        return self.bad_unpacking(
                            frame,
                            s,
                            "enumerate()'s start must be a constant int".into(),
                        )
                    }
                }
            }
            ("zip", args) if !args.is_empty() => (None, args),
            _ => {
                return self.bad_unpacking(
                    frame,
                    call,
                    format!("{which}() takes a table (and for enumerate a constant start) here"),
                )
            }
        };
        let columns = usize::from(start.is_some()) + tables.len();
        if names.len() != target.elts.len() || names.len() != columns {
            let why = format!(
                "{which}() gives {columns} values per item here: unpack them into as many names"
            );
            return self.bad_unpacking(frame, f.target.as_ref(), why);
        }
        // The items come from the tables as they are when the loop starts: a body that rebinds
        // a table's name would make `T[k]` read the new one.
        let mut assigned = vec![];
        crate::frontend::extract::assigned_names(&f.body, &mut assigned);
        for t in tables {
            if let ast::Expr::Name(n) = t {
                if assigned.iter().any(|a| a == n.id.as_str()) {
                    let why = format!("this loop's body rebinds `{}`, which it runs over: iterate over a copy bound to another name", n.id);
                    return self.bad_unpacking(frame, t, why);
                }
            }
        }
        let mut len = usize::MAX;
        for t in tables {
            let v = self.table(frame, t, t, false)?;
            match self.const_of(v) {
                Some(Const::Tuple(items) | Const::List(items)) => len = len.min(items.len()),
                _ => {
                    if !self.poisoned.contains(&v) {
                        self.bad_unpacking(frame, t, format!("{which}() in a `for` loop runs over constant tuples or lists (D15)"))?;
                    }
                    return Err(());
                }
            }
        }
        let counter = self.fresh_name(frame, &format!("_{}", names.join("_")));
        let range = f.target.range();
        let mut prefix = vec![];
        let mut targets = names.iter();
        if let Some(start) = start {
            let index = counter_plus(&counter, start, range);
            prefix.push(assign(
                targets.next().map_or("", String::as_str),
                index,
                range,
            ));
        }
        for (name, t) in targets.zip(tables) {
            let item = ast::Expr::Subscript(ast::ExprSubscript {
                value: Box::new(t.clone()),
                slice: Box::new(name_expr(&counter, range)),
                ctx: ast::ExprContext::Load,
                range,
            });
            prefix.push(assign(name, item, range));
        }
        Ok((counter, prefix, len))
    }

    /// `for lo, rate in BRACKETS:` over a constant table of rows of equal length (D15): each
    /// target is bound from a column of the table, a constant table held by a hidden local
    /// (`lo = _lo_rate_0[_lo_rate]`), as `zip` of the columns would bind it.
    fn rows_prefix(
        &mut self,
        frame: &mut Frame,
        f: &ast::StmtFor,
        target: &ast::ExprTuple,
        names: &[String],
    ) -> R<(String, Vec<ast::Stmt>, usize)> {
        let why = "a loop with several targets runs over `enumerate(T)` or `zip(T1, T2, ...)` of constant tables, or over a constant table of rows as long as the targets (D15)";
        let v = self.table(frame, &f.iter, &f.iter, false)?;
        let rows = match self.const_of(v) {
            Some(Const::Tuple(rows) | Const::List(rows)) => rows,
            _ => return self.bad_unpacking(frame, f.iter.as_ref(), why.into()),
        };
        let width = names.len();
        let mut columns: Vec<Vec<Const>> = vec![vec![]; width];
        for row in &rows {
            match row {
                Const::Tuple(items) | Const::List(items)
                    if items.len() == width && names.len() == target.elts.len() =>
                {
                    for (column, item) in columns.iter_mut().zip(items) {
                        column.push(item.clone());
                    }
                }
                _ => {
                    let why = format!("each row of the table this loop runs over must be a tuple or list of {} values, one per target (D15)", target.elts.len());
                    return self.bad_unpacking(frame, f.iter.as_ref(), why);
                }
            }
        }
        let counter = self.fresh_name(frame, &format!("_{}", names.join("_")));
        let range = f.target.range();
        let mut prefix = vec![];
        for (k, (name, column)) in names.iter().zip(columns).enumerate() {
            let hidden = self.fresh_name(frame, &format!("{counter}_{k}"));
            let table = self.konst(Const::Tuple(column));
            frame
                .vars
                .insert(hidden.clone(), crate::lower::Var::Def(table));
            let item = ast::Expr::Subscript(ast::ExprSubscript {
                value: Box::new(name_expr(&hidden, range)),
                slice: Box::new(name_expr(&counter, range)),
                ctx: ast::ExprContext::Load,
                range,
            });
            prefix.push(assign(name, item, range));
        }
        Ok((counter, prefix, rows.len()))
    }

    /// `base`, or `base_`, `base__`, ...: a name the function does not use.
    pub(in crate::lower) fn fresh_name(&self, frame: &Frame, base: &str) -> String {
        let mut name = base.to_string();
        while frame.vars.contains_key(&name)
            || frame.locals.contains(&name)
            || frame.env.contains_key(&name)
        {
            name.push('_');
        }
        name
    }

    fn bad_unpacking<T: Ranged, V>(&mut self, frame: &Frame, at: &T, why: String) -> R<V> {
        self.error_at(frame, DiagnosticKind::UnsupportedLoop, why, at);
        Err(())
    }
}

pub(super) fn name_expr(name: &str, range: TextRange) -> ast::Expr {
    ast::Expr::Name(ast::ExprName {
        id: ast::Identifier::new(name),
        ctx: ast::ExprContext::Load,
        range,
    })
}

/// `counter + start` (`counter` when `start` is 0).
pub(super) fn counter_plus(counter: &str, start: i128, range: TextRange) -> ast::Expr {
    if start == 0 {
        return name_expr(counter, range);
    }
    let magnitude = ast::Expr::Constant(ast::ExprConstant {
        value: ast::Constant::Int(ast::bigint::BigInt::from(start.unsigned_abs())),
        kind: None,
        range,
    });
    ast::Expr::BinOp(ast::ExprBinOp {
        left: Box::new(name_expr(counter, range)),
        op: if start < 0 {
            ast::Operator::Sub
        } else {
            ast::Operator::Add
        },
        right: Box::new(magnitude),
        range,
    })
}

pub(super) fn assign(name: &str, value: ast::Expr, range: TextRange) -> ast::Stmt {
    ast::Stmt::Assign(ast::StmtAssign {
        targets: vec![ast::Expr::Name(ast::ExprName {
            id: ast::Identifier::new(name),
            ctx: ast::ExprContext::Store,
            range,
        })],
        value: Box::new(value),
        type_comment: None,
        range,
    })
}

#[cfg(test)]
mod tests {
    use crate::env::Binding;
    use crate::pipeline::testing::{compiled, env, errors_with};

    #[test]
    fn enumerate_and_zip_loop_over_positions() {
        let c = compiled(
            "T = (1.0, 2.0)\nU = [3, 4, 5]\n\n@vectorize\ndef f(x):\n    acc = 0.0\n    for k, c in enumerate(T, 1):\n        acc += k * c * x\n    for a, b in zip(T, U):\n        acc += a * b\n    return acc\n",
        );
        assert!(c.source.contains("for _k_c in range(2):"), "{}", c.source);
        assert!(c.source.contains("for _a_b in range(2):"), "{}", c.source);
    }

    #[test]
    fn a_body_rebinding_a_local_table_runs_over_the_items_it_started_with() {
        // D18: the loop over a local container is unrolled; `zip` read `t` once, as CPython.
        let c = compiled(
            "@vectorize\ndef f(x):\n    t = (1.0, 2.0)\n    for a, b in zip(t, t):\n        t = (3.0, 4.0)\n        x += a\n    return x\n",
        );
        assert!(c.source.contains("x + 1.0 + 2.0"), "{}", c.source);
    }

    #[test]
    fn rows_of_a_constant_table_bind_the_targets_from_its_columns() {
        let c = compiled(
            "B = ((0, 10.0, 0.0), (10, 20.0, 0.1))\n\n@vectorize\ndef f(x):\n    tax = 0.0\n    for lo, hi, rate in B:\n        if x <= lo:\n            break\n        tax += (min(x, hi) - lo) * rate\n    return tax\n",
        );
        assert!(
            c.source.contains("for _lo_hi_rate in range(2):"),
            "{}",
            c.source
        );
        assert!(c.source.contains("(0, 10)[_lo_hi_rate]"), "{}", c.source);
        let table = env(&[(
            "B",
            Binding::Const(crate::ir::Const::Tuple(vec![
                crate::ir::Const::Tuple(vec![crate::ir::Const::Int(1)]),
                crate::ir::Const::Int(2),
            ])),
        )]);
        let e = errors_with(
            "def f(x):\n    for a, b in B:\n        x += a\n    return x\n",
            &table,
        );
        assert!(
            e.iter()
                .any(|m| m.contains("a tuple or list of 2 values, one per target")),
            "{e:?}"
        );
    }

    #[test]
    fn as_many_names_as_values_per_item() {
        let zip = env(&[("zip", Binding::Builtin("zip".into()))]);
        let e = errors_with(
            "def f(x):\n    for a, b, c in zip((1, 2), (3, 4)):\n        x += a\n    return x\n",
            &zip,
        );
        assert!(
            e.iter().any(|m| m.contains("gives 2 values per item")),
            "{e:?}"
        );
    }
}
