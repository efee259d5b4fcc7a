//! Sequences given per call (D14, D15; docs/semantics.md item 47) run over by Python loops in
//! the generated code: `for b in bands:`, `for lo, rate in zip(bands, rates):`,
//! `enumerate(rates)`, `sum(r * x for r in rates)` (also `any`, `all`) and
//! `bisect.bisect_right(bounds, x)`.
//!
//! A constant table's items are known when compiling, so D15 and D18 unroll over them. A table
//! given per call has its length known only at the call, so the loop stays a loop: a Python
//! `for` over `range(len(table))` whose trip count Python reads once per call and is the same on
//! every element (D12's masked loop whose lanes all leave together, `range_loop`), binding the
//! targets from the items in Python at the top of each iteration, with the lanes' state carried
//! as arrays. That is CPython's loop over the same items, so it is exact. Compiling once per
//! length instead (a specialisation keyed on `len(table)`) would make the generated code depend
//! on what the caller passes, which the frozen environment (D8) and one compiled function per
//! decoration exclude, and would compile again for every new length.
//!
//! ```python
//! tax = sum((income - lo) * rate for lo, rate in zip(bands, rates) if income > lo)
//! # ->  _sum_acc = 0
//! #     for _items_k in range(min(len(bands), len(rates))):      # Python, once per call
//! #         lo, rate = bands[_items_k], rates[_items_k]         # Python numbers
//! #         if income > lo: _sum_acc = _sum_acc + (income - lo) * rate   # per element
//! ```
//!
//! `bisect` is CPython's own binary search (`while lo < hi: mid = (lo + hi) // 2 ...`) as a
//! masked `while` (D12) gathering `table[mid]` per element (`_vec_take_param`): exact for any
//! table, sorted or not, NaN or not, as CPython's search is what it runs.

use rustpython_parser::ast;
use rustpython_parser::ast::Ranged;
use rustpython_parser::text_size::TextRange;

use crate::diagnostics::DiagnosticKind;
use crate::env::AssumedBinding;
use crate::ir::{CmpOp, Const, Op, UniformOp, Value};
use crate::lower::loops::for_unpack::{assign, counter_plus, name_expr};
use crate::lower::{Frame, Lowerer, Var, R};

/// What a loop over sequences given per call runs over.
pub(in crate::lower) enum Given {
    /// `for t in seq` (a parameter, or a local bound to one).
    One(Value),
    /// `zip(a, b, ...)`: sequences given per call and constant tables, one given at least.
    Zip(Vec<Value>),
    /// `enumerate(seq, start)` with a constant int start; `enumerate(zip(a, b, ...), start)`
    /// when `zipped` (its items are `(k, (a[k], b[k], ...))`: issue 27, semantics item 47).
    Enumerate {
        columns: Vec<Value>,
        zipped: bool,
        start: i128,
    },
}

impl Lowerer<'_> {
    /// The value of `name` when it holds a sequence given per call (D14: a parameter, or a
    /// local bound to one).
    pub(in crate::lower) fn given_name(&self, frame: &Frame, e: &ast::Expr) -> Option<Value> {
        let ast::Expr::Name(n) = e else {
            return None;
        };
        match frame.vars.get(n.id.as_str()) {
            Some(Var::Def(v)) if self.is_object(*v) => Some(*v),
            _ => None,
        }
    }

    /// Whether `iter` runs over a sequence given per call: its name, or `zip`/`enumerate` with
    /// one among their arguments, or `enumerate` of such a `zip`.
    pub(in crate::lower) fn runs_over_given(&self, frame: &Frame, iter: &ast::Expr) -> bool {
        if self.given_name(frame, iter).is_some() {
            return true;
        }
        let Some((which, c)) = self.zip_or_enumerate(frame, iter) else {
            return false;
        };
        let zipped = |a: &ast::Expr| {
            which == "enumerate"
                && matches!(self.zip_or_enumerate(frame, a), Some(("zip", _)))
                && self.runs_over_given(frame, a)
        };
        c.args.iter().any(|a| self.given_name(frame, a).is_some())
            || c.args.first().is_some_and(zipped)
    }

    /// `iter` as a call of the builtin `zip` or `enumerate`, with which.
    fn zip_or_enumerate<'e>(
        &self,
        frame: &Frame,
        iter: &'e ast::Expr,
    ) -> Option<(&'static str, &'e ast::ExprCall)> {
        let ast::Expr::Call(c) = iter else {
            return None;
        };
        let ast::Expr::Name(n) = c.func.as_ref() else {
            return None;
        };
        ["zip", "enumerate"]
            .into_iter()
            .find(|w| self.is_builtin(frame, n.id.as_str(), w))
            .map(|w| (w, c))
    }

    /// What `iter` runs over when `runs_over_given` holds; an error (reported) for arguments of
    /// `zip`/`enumerate` that are neither sequences given per call nor constant tables.
    pub(in crate::lower) fn given_sequence(
        &mut self,
        frame: &mut Frame,
        iter: &ast::Expr,
    ) -> R<Given> {
        if let Some(v) = self.given_name(frame, iter) {
            return Ok(Given::One(v));
        }
        let ast::Expr::Call(c) = iter else {
            return Err(());
        };
        let ast::Expr::Name(n) = c.func.as_ref() else {
            return Err(());
        };
        let which = n.id.to_string();
        self.assume(frame, &which, AssumedBinding::Builtin(which.clone()));
        if !c.keywords.is_empty() {
            return self.bad_given(frame, c, format!("{which}() over a sequence given per call takes no keyword arguments here (D14)"));
        }
        if which == "enumerate" {
            let first = c.args.first();
            let (columns, zipped) = match first.and_then(|a| self.given_name(frame, a)) {
                Some(seq) => (vec![seq], false),
                // `enumerate(zip(bands, rates))`: the zip's columns, numbered.
                None => match first.and_then(|a| self.zip_or_enumerate(frame, a)) {
                    Some(("zip", z)) => {
                        self.assume(frame, "zip", AssumedBinding::Builtin("zip".into()));
                        if !z.keywords.is_empty() {
                            return self.bad_given(frame, z, "zip() over a sequence given per call takes no keyword arguments here (D14)".into());
                        }
                        (self.zip_columns(frame, z)?, true)
                    }
                    _ => {
                        return self.bad_given(
                            frame,
                            c,
                            "enumerate() runs over a sequence given per call (a parameter, or `zip` of parameters and constant tables) and a constant start".into(),
                        )
                    }
                },
            };
            let start = match c.args.get(1) {
                None => Some(0),
                Some(s) => {
                    let v = self.expr(frame, s);
                    match self.const_of(v) {
                        Some(Const::Int(i)) => Some(i),
                        Some(Const::Bool(b)) => Some(i128::from(b)),
                        _ => None,
                    }
                }
            };
            return match (start, c.args.len()) {
                (Some(start), 1 | 2) => Ok(Given::Enumerate {
                    columns,
                    zipped,
                    start,
                }),
                _ => self.bad_given(
                    frame,
                    c,
                    "enumerate() takes a sequence given per call and a constant int start".into(),
                ),
            };
        }
        Ok(Given::Zip(self.zip_columns(frame, c)?))
    }

    /// The columns `zip(a, b, ...)` runs over: sequences given per call and constant tables.
    fn zip_columns(&mut self, frame: &mut Frame, c: &ast::ExprCall) -> R<Vec<Value>> {
        let mut columns = vec![];
        for a in &c.args {
            // A display of constants is a constant table (`table`).
            let v = self.table(frame, a, a, false)?;
            let constant = matches!(self.const_of(v), Some(Const::Tuple(_) | Const::List(_)));
            if !self.is_object(v) && !constant {
                return self.bad_given(frame, a, "zip() over a sequence given per call runs over sequences given per call (parameters) and constant tables only (D14, D15); a container of per-element values has a length known when compiling: zip it with a constant table instead".into());
            }
            columns.push(v);
        }
        Ok(columns)
    }

    fn bad_given<T: Ranged, V>(&mut self, frame: &Frame, at: &T, why: String) -> R<V> {
        self.error_at(frame, DiagnosticKind::UnsupportedLoop, why, at);
        Err(())
    }

    /// `for target in <given>:` (D14, D15; module doc): a loop over `range(n)` whose trip count
    /// `n` Python reads once per call (`range_loop`), whose body first binds the targets from
    /// the items (`lo, rate = bands[_k], rates[_k]`, read in Python, once per iteration).
    pub(in crate::lower) fn given_sequence_for(
        &mut self,
        frame: &mut Frame,
        f: &ast::StmtFor,
        given: Given,
        stmt: &ast::Stmt,
    ) {
        let range = f.target.range();
        let (columns, zipped, start) = match given {
            Given::One(v) => (vec![v], false, None),
            Given::Zip(vs) => (vs, true, None),
            Given::Enumerate {
                columns,
                zipped,
                start,
            } => (columns, zipped, Some(start)),
        };
        let mut hidden = vec![];
        let mut stop: Option<Value> = None;
        for v in columns {
            let (seq, len) = if self.is_object(v) {
                let seq = self.uniform(UniformOp::Sequence, vec![v]);
                (seq, self.uniform(UniformOp::Len, vec![seq]))
            } else {
                let n = self.container_len(v).unwrap_or_else(|| {
                    let n = self
                        .const_of(v)
                        .and_then(|c| c.readable())
                        .map_or(0, |i| i.len());
                    self.konst(Const::Int(n as i128))
                });
                (v, n)
            };
            let name = self.fresh_name(frame, "_items");
            frame.vars.insert(name.clone(), Var::Def(seq));
            hidden.push(name);
            // zip stops at the shortest: `min` of Python ints, once per call.
            stop = Some(match stop {
                None => len,
                Some(s) => {
                    let shorter = self.emit(Op::Compare(CmpOp::Lt, len, s));
                    self.emit(Op::Select(shorter, len, s))
                }
            });
        }
        let target = self.fresh_name(frame, &format!("{}_k", hidden[0]));
        // The loop's counter (`range_loop`), a Python int the same on every lane still looping:
        // the items are read in Python (a name no source can spell, as the counter's own).
        let counter = format!("{target}.range");
        let mut items: Vec<ast::Expr> = hidden
            .iter()
            .map(|h| subscript(name_expr(h, range), name_expr(&counter, range), range))
            .collect();
        let item = if zipped {
            tuple(items, range)
        } else {
            items.remove(0)
        };
        let bind = |target: &ast::Expr, value: ast::Expr| {
            ast::Stmt::Assign(ast::StmtAssign {
                targets: vec![target.clone()],
                value: Box::new(value),
                type_comment: None,
                range,
            })
        };
        let binds = match (start, f.target.as_ref()) {
            // `for i, (lo, rate) in enumerate(zip(...))`: `i = k + start`, then `(lo, rate) =
            // (bands[k], rates[k])`, each part bound as a plain target is (CPython binds them in
            // that order; the parts do not read one another).
            (Some(start), ast::Expr::Tuple(ast::ExprTuple { elts, .. }))
                if elts.len() == 2 && !elts.iter().any(|e| matches!(e, ast::Expr::Starred(_))) =>
            {
                vec![
                    bind(&elts[0], counter_plus(&counter, start, range)),
                    bind(&elts[1], item),
                ]
            }
            (Some(start), t) => vec![bind(
                t,
                tuple(vec![counter_plus(&counter, start, range), item], range),
            )],
            (None, t) => vec![bind(t, item)],
        };
        let looped = ast::StmtFor {
            target: Box::new(name_expr(&target, range)),
            iter: f.iter.clone(),
            body: binds.into_iter().chain(f.body.iter().cloned()).collect(),
            orelse: f.orelse.clone(),
            type_comment: None,
            range: f.range,
        };
        let zero = self.konst(Const::Int(0));
        let stop = stop.unwrap_or(zero);
        self.range_loop(frame, &looped, stmt, (zero, stop, 1));
        for h in hidden {
            frame.vars.remove(&h);
        }
    }

    /// `sum`, `any` or `all` of a comprehension whose one `for` runs over a sequence given per
    /// call (module doc): an accumulating loop, with CPython's order and short cuts (`any` and
    /// `all` evaluate no item, nor its filters, after the one that decides). None when the
    /// comprehension does not run over one.
    pub(in crate::lower) fn given_reduction(
        &mut self,
        frame: &mut Frame,
        name: &str,
        gens: &[ast::Comprehension],
        elt: &ast::Expr,
        c: &ast::ExprCall,
    ) -> Option<R<Value>> {
        let [g] = gens else {
            return None;
        };
        if !self.runs_over_given(frame, &g.iter) {
            return None;
        }
        let range = c.range;
        let init = match name {
            "sum" => Const::Int(0),
            "any" => Const::Bool(false),
            "all" => Const::Bool(true),
            _ => {
                return Some(self.bad_given(frame, c, format!("{name}() of a comprehension over a sequence given per call is not supported: the sequence may be empty, where CPython raises ValueError; use a loop with a start value, or {name}() of the sequence itself (D14)")));
            }
        };
        let acc = self.fresh_name(frame, &format!("_{name}_acc"));
        let init = self.konst(init);
        frame.vars.insert(acc.clone(), Var::Def(init));
        let update = match name {
            "sum" => {
                let added = ast::Expr::BinOp(ast::ExprBinOp {
                    left: Box::new(name_expr(&acc, range)),
                    op: ast::Operator::Add,
                    right: Box::new(elt.clone()),
                    range,
                });
                assign(&acc, added, range)
            }
            // `any`: `if elt: acc = True`; `all`: `if not elt: acc = False`.
            _ => {
                let is_any = name == "any";
                let test = if is_any {
                    elt.clone()
                } else {
                    not(elt.clone(), range)
                };
                if_(
                    test,
                    vec![assign(&acc, boolean(is_any, range), range)],
                    range,
                )
            }
        };
        let mut body = update;
        for cond in g.ifs.iter().rev() {
            body = if_(cond.clone(), vec![body], range);
        }
        if name != "sum" {
            // Once decided, no later item is evaluated (CPython stops iterating).
            let open = name_expr(&acc, range);
            let open = if name == "any" {
                not(open, range)
            } else {
                open
            };
            body = if_(open, vec![body], range);
        }
        let f = ast::StmtFor {
            target: g.target.clone().into(),
            iter: Box::new(g.iter.clone()),
            body: vec![body],
            orelse: vec![],
            type_comment: None,
            range,
        };
        let bound = Self::comprehension_scope(frame, &g.target);
        let before = self.diags.len();
        let stmt = ast::Stmt::For(f.clone());
        self.for_stmt(frame, &f, &stmt);
        let result = match frame.vars.remove(&acc) {
            Some(Var::Def(v)) if self.diags.len() == before => Ok(v),
            _ => Err(()),
        };
        Self::end_comprehension_scope(frame, bound);
        Some(result)
    }

    /// `bisect.bisect_left(seq, x)` / `bisect_right(seq, x)` for a sequence given per call
    /// (module doc): CPython's binary search, a masked `while` (D12) gathering per element.
    pub(in crate::lower) fn given_bisect(
        &mut self,
        frame: &mut Frame,
        c: &ast::ExprCall,
        which: &str,
        seq: Value,
        x: &ast::Expr,
        bounded: bool,
    ) -> R<Value> {
        if bounded {
            return self.bad_given(frame, c, format!("{which}() of a sequence given per call searches the whole sequence here: `lo` and `hi` are not supported (D14); bind the table to a module global (D15) to search part of it"));
        }
        let key = self.expr(frame, x);
        if self.poisoned.contains(&key) {
            return Err(());
        }
        if self.is_object(key) {
            return self.bad_given(frame, x, format!("{which}() of a uniform value (D14) is not supported: the key must be a number per element"));
        }
        let range = c.range;
        let seq = self.uniform(UniformOp::Sequence, vec![seq]);
        let len = self.uniform(UniformOp::Len, vec![seq]);
        let zero = self.konst(Const::Int(0));
        let mut bound = vec![];
        for (base, v) in [
            ("_bisect_a", seq),
            ("_bisect_x", key),
            ("_bisect_lo", zero),
            ("_bisect_hi", len),
        ] {
            let n = self.fresh_name(frame, base);
            frame.vars.insert(n.clone(), Var::Def(v));
            bound.push(n);
        }
        let mid = self.fresh_name(frame, "_bisect_mid");
        let [a, xk, lo, hi] = [0, 1, 2, 3].map(|k| name_expr(&bound[k], range));
        let int = |n: u32| {
            ast::Expr::Constant(ast::ExprConstant {
                value: ast::Constant::Int(ast::bigint::BigInt::from(n)),
                kind: None,
                range,
            })
        };
        let binop = |l: ast::Expr, op: ast::Operator, r: ast::Expr| {
            ast::Expr::BinOp(ast::ExprBinOp {
                left: Box::new(l),
                op,
                right: Box::new(r),
                range,
            })
        };
        // mid = (lo + hi) // 2; then CPython's comparison, `<` only.
        let halve = binop(
            binop(lo.clone(), ast::Operator::Add, hi.clone()),
            ast::Operator::FloorDiv,
            int(2),
        );
        let item = subscript(a, name_expr(&mid, range), range);
        let (test, if_true, if_false) = if which == "bisect_left" {
            // if a[mid] < x: lo = mid + 1 else: hi = mid
            (
                less(item, xk, range),
                (
                    &bound[2],
                    binop(name_expr(&mid, range), ast::Operator::Add, int(1)),
                ),
                (&bound[3], name_expr(&mid, range)),
            )
        } else {
            // if x < a[mid]: hi = mid else: lo = mid + 1
            (
                less(xk, item, range),
                (&bound[3], name_expr(&mid, range)),
                (
                    &bound[2],
                    binop(name_expr(&mid, range), ast::Operator::Add, int(1)),
                ),
            )
        };
        let step = ast::Stmt::If(ast::StmtIf {
            test: Box::new(test),
            body: vec![assign(if_true.0, if_true.1, range)],
            orelse: vec![assign(if_false.0, if_false.1, range)],
            range,
        });
        let w = ast::StmtWhile {
            test: Box::new(less(lo, hi, range)),
            body: vec![assign(&mid, halve, range), step],
            orelse: vec![],
            range,
        };
        let before = self.diags.len();
        let stmt = ast::Stmt::While(w.clone());
        self.while_stmt(frame, &w, &stmt);
        let result = match frame.vars.get(&bound[2]) {
            Some(Var::Def(v)) if self.diags.len() == before => Ok(*v),
            _ => Err(()),
        };
        for n in bound.iter().chain([&mid]) {
            frame.vars.remove(n);
        }
        result
    }
}

fn subscript(value: ast::Expr, index: ast::Expr, range: TextRange) -> ast::Expr {
    ast::Expr::Subscript(ast::ExprSubscript {
        value: Box::new(value),
        slice: Box::new(index),
        ctx: ast::ExprContext::Load,
        range,
    })
}

fn tuple(elts: Vec<ast::Expr>, range: TextRange) -> ast::Expr {
    ast::Expr::Tuple(ast::ExprTuple {
        elts,
        ctx: ast::ExprContext::Load,
        range,
    })
}

fn less(l: ast::Expr, r: ast::Expr, range: TextRange) -> ast::Expr {
    ast::Expr::Compare(ast::ExprCompare {
        left: Box::new(l),
        ops: vec![ast::CmpOp::Lt],
        comparators: vec![r],
        range,
    })
}

fn not(e: ast::Expr, range: TextRange) -> ast::Expr {
    ast::Expr::UnaryOp(ast::ExprUnaryOp {
        op: ast::UnaryOp::Not,
        operand: Box::new(e),
        range,
    })
}

fn boolean(b: bool, range: TextRange) -> ast::Expr {
    ast::Expr::Constant(ast::ExprConstant {
        value: ast::Constant::Bool(b),
        kind: None,
        range,
    })
}

fn if_(test: ast::Expr, body: Vec<ast::Stmt>, range: TextRange) -> ast::Stmt {
    ast::Stmt::If(ast::StmtIf {
        test: Box::new(test),
        body,
        orelse: vec![],
        range,
    })
}
