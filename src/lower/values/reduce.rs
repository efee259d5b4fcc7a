//! Reductions over constant tables (D15): `sum`, `min`, `max`, `any`, `all` of a generator
//! expression or list comprehension (`sum(c * x**k for k, c in enumerate(COEFFS))`) or of a
//! constant table, unrolled at compile time. The iterables are constant tables, tuple and list
//! displays (of per-lane values too), `range` with constant bounds, and `zip`/`enumerate` of
//! those; each unrolled item binds the loop variables to its values. A filter (`if ...`) that depends on the lanes masks the item per lane for
//! `sum`, `any` and `all`. `sum` adds left to right from the int 0, as CPython 3.11.

use rustpython_parser::ast;

use crate::diagnostics::DiagnosticKind;
use crate::env::AssumedBinding;
use crate::ir::eval::truthy;
use crate::ir::{BinOp, CastOp, CmpOp, Const, Kind, LogicOp, Op, UnOp, UniformOp, Value};
use crate::lower::loops::for_loop::Bounds;
use crate::lower::{Frame, Lowerer, Var, R};

/// Most items one reduction unrolls to.
const MAX_UNROLLED: usize = 4096;

/// One unrolled item: its value, and the lanes its filters keep (None: every lane).
type Item = (Value, Option<Value>);

/// What a comprehension's `for` binds per iteration: a value, or a tuple of them (`zip`,
/// `enumerate`, a table of tuples) unpacked by a tuple target.
#[derive(Clone)]
pub(in crate::lower) enum Elem {
    One(Value),
    Tuple(Vec<Elem>),
}

impl Lowerer<'_> {
    /// `name(arg)` for a reduction `name` whose single argument is a comprehension or a
    /// constant table; None when the call is not of that form (the caller lowers it as usual).
    pub(in crate::lower) fn reduction(
        &mut self,
        frame: &mut Frame,
        c: &ast::ExprCall,
        name: &str,
    ) -> Option<R<Value>> {
        let [arg] = c.args.as_slice() else {
            return None;
        };
        if let Some(r) = self.given_reduce(frame, c, name, arg) {
            return Some(r);
        }
        let items = match arg {
            ast::Expr::GeneratorExp(g) => self.unroll(frame, &g.generators, &g.elt, arg),
            ast::Expr::ListComp(l) => self.unroll(frame, &l.generators, &l.elt, arg),
            // `min(a, b)` is the usual call; `min(TABLE)` the items of a table or container.
            _ => {
                let (start, end) = crate::frontend::extract::span(arg);
                let site = (frame.source, start, end);
                self.iterable(frame, arg).map(|elems| {
                    elems
                        .into_iter()
                        .map(|el| (self.elem_value(el, site), None))
                        .collect()
                })
            }
        };
        if !c.keywords.is_empty() {
            self.error_at(
                frame,
                DiagnosticKind::BadArguments,
                format!("{name}() of a comprehension takes no keyword arguments here"),
                c,
            );
            return Some(Err(()));
        }
        Some(items.and_then(|items| self.reduce(frame, name, items, c)))
    }

    /// `sum(seq)`, `max(seq)`, ... of a sequence given per call: CPython's reduction in Python,
    /// once per call (D14, D15); of a comprehension over one, a loop (`given_reduction`). None
    /// when `arg` is neither.
    fn given_reduce(
        &mut self,
        frame: &mut Frame,
        c: &ast::ExprCall,
        name: &str,
        arg: &ast::Expr,
    ) -> Option<R<Value>> {
        let given = self.given_name(frame, arg);
        let over_given = match arg {
            ast::Expr::GeneratorExp(g) => self.runs_over_given(frame, &g.generators[0].iter),
            ast::Expr::ListComp(l) => self.runs_over_given(frame, &l.generators[0].iter),
            _ => false,
        };
        if given.is_none() && !over_given {
            return None;
        }
        if !c.keywords.is_empty() {
            self.error_at(
                frame,
                DiagnosticKind::BadArguments,
                format!(
                    "{name}() of a sequence given per call takes no keyword arguments here (D14)"
                ),
                c,
            );
            return Some(Err(()));
        }
        match (given, arg) {
            (Some(seq), _) => {
                let seq = self.uniform(UniformOp::Sequence, vec![seq]);
                Some(Ok(self.uniform(UniformOp::Reduce(name.into()), vec![seq])))
            }
            (None, ast::Expr::GeneratorExp(g)) => {
                self.given_reduction(frame, name, &g.generators, &g.elt, c)
            }
            (None, ast::Expr::ListComp(l)) => {
                self.given_reduction(frame, name, &l.generators, &l.elt, c)
            }
            _ => None,
        }
    }

    fn reduce(
        &mut self,
        frame: &mut Frame,
        name: &str,
        items: Vec<Item>,
        c: &ast::ExprCall,
    ) -> R<Value> {
        match name {
            "sum" => {
                let mut acc = self.konst(Const::Int(0));
                for (v, keep) in items {
                    let added = self.binary(frame, BinOp::Add, acc, v);
                    acc = match keep {
                        Some(k) => self.select(k, added, acc),
                        None => added,
                    };
                }
                Ok(acc)
            }
            "any" | "all" => {
                let is_any = name == "any";
                let mut acc = self.konst(Const::Bool(!is_any));
                for (v, keep) in items {
                    let mut t = self.truth_bool(v);
                    if let Some(k) = keep {
                        // A filtered-out item neither makes `any` true nor `all` false.
                        t = if is_any {
                            self.emit(Op::Logic(LogicOp::And, k, t))
                        } else {
                            let dropped = self.emit(Op::Unary(UnOp::Not, k));
                            self.emit(Op::Logic(LogicOp::Or, dropped, t))
                        };
                    }
                    let op = if is_any { LogicOp::Or } else { LogicOp::And };
                    acc = match self.const_of(acc) {
                        Some(a) if truthy(&a) == is_any => acc,
                        Some(_) => t,
                        None => self.emit(Op::Logic(op, acc, t)),
                    };
                }
                Ok(acc)
            }
            _ => {
                if items.iter().any(|(_, keep)| keep.is_some()) || items.is_empty() {
                    let why = if items.is_empty() {
                        format!("{name}() of an empty sequence raises ValueError")
                    } else {
                        format!(
                            "{name}() of a comprehension whose filter depends on the elements \
                             can be empty on some of them; use a loop with a start value"
                        )
                    };
                    self.error_at(frame, DiagnosticKind::UnsupportedExpression, why, c);
                    return Err(());
                }
                // CPython's strict-win rule, as `min(a, b, ...)` (calls.rs).
                let cmp = if name == "min" { CmpOp::Lt } else { CmpOp::Gt };
                let mut acc = items[0].0;
                for &(b, _) in &items[1..] {
                    let wins = self.emit(Op::Compare(cmp, b, acc));
                    acc = self.select(wins, b, acc);
                }
                Ok(acc)
            }
        }
    }

    /// Python's truth value of `v` as a bool (D4).
    fn truth_bool(&mut self, v: Value) -> Value {
        if self.kind(v) == Kind::Bool {
            v
        } else {
            self.emit(Op::Cast(CastOp::Bool, v))
        }
    }

    /// The items of a comprehension, in CPython's order: the generators nest left to right.
    pub(in crate::lower) fn unroll(
        &mut self,
        frame: &mut Frame,
        gens: &[ast::Comprehension],
        elt: &ast::Expr,
        e: &ast::Expr,
    ) -> R<Vec<Item>> {
        let mut out = vec![];
        self.unroll_into(frame, gens, elt, None, e, &mut out)?;
        Ok(out)
    }

    fn unroll_into(
        &mut self,
        frame: &mut Frame,
        gens: &[ast::Comprehension],
        elt: &ast::Expr,
        keep: Option<Value>,
        e: &ast::Expr,
        out: &mut Vec<Item>,
    ) -> R<()> {
        let Some((g, rest)) = gens.split_first() else {
            let v = self.expr(frame, elt);
            if self.poisoned.contains(&v) {
                return Err(());
            }
            out.push((v, keep));
            return Ok(());
        };
        let items = self.iterable(frame, &g.iter)?;
        let saved = Self::comprehension_scope(frame, &g.target);
        let mut result = Ok(());
        for item in items {
            if out.len() >= MAX_UNROLLED {
                self.error_at(
                    frame,
                    DiagnosticKind::TooComplex,
                    format!(
                        "this comprehension unrolls to more than {MAX_UNROLLED} items; use a loop"
                    ),
                    e,
                );
                result = Err(());
                break;
            }
            if let Err(()) = self.bind_target(frame, &g.target, item, e) {
                result = Err(());
                break;
            }
            let mut k = keep;
            let mut skipped = false;
            for cond in &g.ifs {
                let c = self.expr(frame, cond);
                match self.const_of(c) {
                    Some(cv) if !truthy(&cv) => skipped = true,
                    Some(_) => {}
                    None => {
                        let t = self.truth_bool(c);
                        k = Some(match k {
                            Some(prev) => self.emit(Op::Logic(LogicOp::And, prev, t)),
                            None => t,
                        });
                    }
                }
            }
            if skipped {
                continue;
            }
            if let Err(()) = self.unroll_into(frame, rest, elt, k, e, out) {
                result = Err(());
                break;
            }
        }
        Self::end_comprehension_scope(frame, saved);
        result
    }

    /// The names a comprehension target binds, with what they held before.
    pub(in crate::lower) fn comprehension_scope(
        frame: &Frame,
        t: &ast::Expr,
    ) -> Vec<(String, Option<Var>)> {
        target_names(t)
            .into_iter()
            .map(|n| {
                let old = frame.vars.get(&n).copied();
                (n, old)
            })
            .collect()
    }

    /// The comprehension's variables are its own (Python 3 scoping): what they held before.
    pub(in crate::lower) fn end_comprehension_scope(
        frame: &mut Frame,
        saved: Vec<(String, Option<Var>)>,
    ) {
        for (n, old) in saved {
            match old {
                Some(v) => frame.vars.insert(n, v),
                None => frame.vars.remove(&n),
            };
        }
    }

    /// Binds a comprehension target (a name or a tuple of names) to an item.
    pub(in crate::lower) fn bind_target(
        &mut self,
        frame: &mut Frame,
        t: &ast::Expr,
        item: Elem,
        e: &ast::Expr,
    ) -> R<()> {
        match (t, item) {
            (ast::Expr::Name(n), Elem::One(v)) => {
                frame.vars.insert(n.id.to_string(), Var::Def(v));
                Ok(())
            }
            (ast::Expr::Tuple(tt), Elem::One(v)) if self.container(v).is_some() => {
                let parts = self.container_elems(frame, v, e).unwrap_or(Err(()))?;
                self.bind_target(frame, t, Elem::Tuple(parts), e)
            }
            (ast::Expr::Tuple(tt), Elem::Tuple(parts)) if parts.len() == tt.elts.len() => {
                for (sub, part) in tt.elts.iter().zip(parts) {
                    self.bind_target(frame, sub, part, e)?;
                }
                Ok(())
            }
            (ast::Expr::Name(_), Elem::Tuple(_)) => {
                self.error_at(
                    frame,
                    DiagnosticKind::UnsupportedExpression,
                    "an item of several values must be unpacked into as many names".into(),
                    e,
                );
                Err(())
            }
            _ => {
                self.error_at(
                    frame,
                    DiagnosticKind::UnsupportedExpression,
                    "the names of this `for` do not match its items".into(),
                    e,
                );
                Err(())
            }
        }
    }

    /// The items a comprehension's `for` runs over: a constant table, a tuple or list display
    /// (its items may be per-lane values), `range` with constant bounds, `enumerate(T[, start])`,
    /// `zip(T1, T2, ...)`.
    pub(in crate::lower) fn iterable(&mut self, frame: &mut Frame, it: &ast::Expr) -> R<Vec<Elem>> {
        match it {
            ast::Expr::Call(call) => {
                if let ast::Expr::Name(n) = call.func.as_ref() {
                    let name = n.id.as_str();
                    for which in ["range", "enumerate", "zip"] {
                        if self.is_builtin(frame, name, which) {
                            self.assume(frame, name, AssumedBinding::Builtin(which.into()));
                            return self.builtin_iterable(frame, which, call);
                        }
                    }
                }
            }
            ast::Expr::GeneratorExp(g) => {
                let items = self.comprehension_items(frame, &g.generators, &g.elt, it)?;
                return Ok(items.into_iter().map(Elem::One).collect());
            }
            _ => {}
        }
        let v = self.expr(frame, it);
        if self.poisoned.contains(&v) {
            return Err(());
        }
        if let Some(elems) = self.container_elems(frame, v, it) {
            return elems;
        }
        let items = self.iterable_items(frame, v, it)?;
        Ok(items.into_iter().map(|c| self.elem(c)).collect())
    }

    /// A constant item: a tuple of numbers is unpacked item by item.
    fn elem(&mut self, c: Const) -> Elem {
        match c {
            Const::Tuple(parts) | Const::List(parts) => {
                Elem::Tuple(parts.into_iter().map(|p| self.elem(p)).collect())
            }
            c => Elem::One(self.konst(c)),
        }
    }

    fn builtin_iterable(
        &mut self,
        frame: &mut Frame,
        which: &str,
        call: &ast::ExprCall,
    ) -> R<Vec<Elem>> {
        match which {
            "range" => {
                let (start, stop, step) = match self.range_bounds(frame, call) {
                    Some(Bounds::Known(start, stop, step)) => (start, stop, step),
                    Some(Bounds::PerLane(..)) => {
                        return self.bad_iterable(frame, "a reduction over a `range` whose bounds differ per element cannot be unrolled; use a loop", call);
                    }
                    None => return Err(()),
                };
                let n = crate::ir::eval::trip_count(start, stop, step);
                if n > MAX_UNROLLED as i128 {
                    self.error_at(
                        frame,
                        DiagnosticKind::TooComplex,
                        format!("this range has more than {MAX_UNROLLED} items; use a loop"),
                        call,
                    );
                    return Err(());
                }
                Ok((0..n)
                    .map(|k| Elem::One(self.konst(Const::Int(start + k * step))))
                    .collect())
            }
            "enumerate" => {
                let (Some(first), true) = (
                    call.args.first(),
                    call.args.len() <= 2 && call.keywords.is_empty(),
                ) else {
                    return self.bad_iterable(
                        frame,
                        "enumerate() takes a table and a constant start",
                        call,
                    );
                };
                let start = match call.args.get(1) {
                    None => 0,
                    Some(s) => {
                        let v = self.expr(frame, s);
                        match self.const_of(v) {
                            Some(Const::Int(i)) => i,
                            Some(Const::Bool(b)) => i128::from(b),
                            _ => {
                                return self.bad_iterable(
                                    frame,
                                    "enumerate()'s start must be a constant int",
                                    call,
                                )
                            }
                        }
                    }
                };
                let items = self.iterable(frame, first)?;
                Ok(items
                    .into_iter()
                    .enumerate()
                    .map(|(k, item)| {
                        let index = self.konst(Const::Int(start + k as i128));
                        Elem::Tuple(vec![Elem::One(index), item])
                    })
                    .collect())
            }
            _ => {
                if call.args.is_empty() || !call.keywords.is_empty() {
                    return self.bad_iterable(
                        frame,
                        "zip() takes tables and no keywords here",
                        call,
                    );
                }
                let columns = call
                    .args
                    .iter()
                    .map(|a| self.iterable(frame, a))
                    .collect::<R<Vec<_>>>()?;
                let n = columns.iter().map(Vec::len).min().unwrap_or(0);
                Ok((0..n)
                    .map(|k| Elem::Tuple(columns.iter().map(|col| col[k].clone()).collect()))
                    .collect())
            }
        }
    }

    fn bad_iterable(&mut self, frame: &Frame, why: &str, call: &ast::ExprCall) -> R<Vec<Elem>> {
        self.error_at(frame, DiagnosticKind::BadArguments, why.into(), call);
        Err(())
    }

    /// The items of the constant table `t` as iterated (a dict: its keys).
    pub(in crate::lower) fn iterable_items(
        &mut self,
        frame: &Frame,
        t: Value,
        e: &ast::Expr,
    ) -> R<Vec<Const>> {
        match self.const_of(t) {
            Some(Const::Tuple(items) | Const::List(items)) => Ok(items),
            Some(Const::Dict(entries)) => Ok(entries.into_iter().map(|(k, _)| k).collect()),
            _ => {
                if !self.poisoned.contains(&t) {
                    self.error_at(
                        frame,
                        DiagnosticKind::UnsupportedExpression,
                        "this must run over a constant table (tuples, lists, dicts of numbers), \
                         a list, tuple or dict the function made (D18), range() with constant \
                         bounds, or zip() or enumerate() of those"
                            .into(),
                        e,
                    );
                }
                Err(())
            }
        }
    }
}

/// The names a comprehension target binds.
fn target_names(t: &ast::Expr) -> Vec<String> {
    match t {
        ast::Expr::Name(n) => vec![n.id.to_string()],
        ast::Expr::Tuple(tt) => tt.elts.iter().flat_map(target_names).collect(),
        _ => vec![],
    }
}
