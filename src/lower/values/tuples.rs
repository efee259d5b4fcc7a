//! Several results (D13): `return a, b`, a helper's tuple result unpacked by its caller
//! (`s, c = sincosd(x)`) or indexed with a constant (`r[0]`).
//!
//! A tuple exists only while lowering: a handle value standing for its positions, which are
//! ordinary values. Merges of returns and of variables (`select`) go position by position, so
//! each position follows the kind rules of a single result; tuples of different lengths on two
//! paths are an error naming both `return`s. A handle still read by the IR after lowering (a
//! tuple used as a number, or carried around a loop) is rejected where the tuple was made.

use rustpython_parser::ast;

use crate::diagnostics::DiagnosticKind;
use crate::frontend::extract::span;
use crate::ir::{use_counts, Const, Kind, Shape, UniformOp, Value};
use crate::lower::values::handles::{misuse_message, Container, Site, TupleValue};
use crate::lower::{Flow, Frame, Lowerer};

impl Lowerer<'_> {
    /// `return a, b, ...`: the handle of a tuple of the lowered items.
    pub(in crate::lower) fn tuple_return(
        &mut self,
        frame: &mut Frame,
        t: &ast::ExprTuple,
        stmt: &ast::Stmt,
    ) -> Value {
        let mut items = Vec::with_capacity(t.elts.len());
        for e in &t.elts {
            let v = self.expr(frame, e);
            if self.values.function.tuples.contains_key(&v) {
                self.error_at(
                    frame,
                    DiagnosticKind::UnsupportedExpression,
                    "a tuple inside a returned tuple is not supported; return its items in one flat tuple".into(),
                    e,
                );
                return self.poison();
            }
            items.push(v);
        }
        let (start, end) = span(stmt);
        self.make_tuple(items, (frame.source, start, end))
    }

    /// A fresh handle for `items` (a value no instruction may read: see [`Self::reject_tuple_uses`]).
    /// It is defined as the constant it is written as, so the IR verifier accepts it until DCE
    /// drops it.
    pub(in crate::lower) fn make_tuple(&mut self, items: Vec<Value>, site: Site) -> Value {
        self.make_handle(TupleValue {
            items,
            site,
            container: Container::Tuple,
            local: false,
        })
    }

    /// A fresh handle for `t`.
    pub(in crate::lower) fn make_handle(&mut self, t: TupleValue) -> Value {
        let v = self.f.new_value(Kind::Float, Shape::Scalar, None);
        self.push_inst(crate::ir::Inst::Let {
            dst: v,
            op: crate::ir::Op::Const(Const::Float(0.0)),
        });
        self.values.function.tuples.insert(v, t);
        v
    }

    /// Records where a single (non-tuple) value was returned, for arity errors.
    pub(in crate::lower) fn note_return_site(&mut self, frame: &Frame, v: Value, stmt: &ast::Stmt) {
        let (start, end) = span(stmt);
        self.values
            .function
            .return_sites
            .entry(v)
            .or_insert((frame.source, start, end));
    }

    /// `where(c, a, b)` when `a` or `b` is a tuple: position by position, or an error when the
    /// two are not tuples of the same length (None when neither is a tuple).
    pub(in crate::lower) fn select_tuples(
        &mut self,
        c: Value,
        a: Value,
        b: Value,
    ) -> Option<Value> {
        self.merge_tuples(a, b, |l, p, q| l.select(c, p, q))
    }

    /// `f` of each position of `v` when `v` is a tuple (None when it is not).
    pub(in crate::lower) fn map_tuple(
        &mut self,
        v: Value,
        mut f: impl FnMut(&mut Self, Value) -> Value,
    ) -> Option<Value> {
        let mut t = self.values.function.tuples.get(&v).cloned()?;
        t.items = t.items.iter().map(|&p| f(self, p)).collect();
        Some(self.make_handle(t))
    }

    /// `merge` of `a` and `b` position by position when either is a tuple, or an error when the
    /// two are not tuples of the same length (None when neither is a tuple). A namedtuple merged
    /// stays one (issue 27): of its class when both sides are, else of none the fields can read.
    pub(in crate::lower) fn merge_tuples(
        &mut self,
        a: Value,
        b: Value,
        merge: impl FnMut(&mut Self, Value, Value) -> Value,
    ) -> Option<Value> {
        let named = |l: &Self, v: Value| l.values.function.named.get(&v).cloned();
        let (na, nb) = (named(self, a), named(self, b));
        let merged = self.merge_tuple_items(a, b, merge)?;
        let class = match (na, nb) {
            (None, None) => return Some(merged),
            (Some(x), Some(y)) if x == y => x,
            (x, y) => {
                let names: Vec<String> = x.into_iter().chain(y).map(|(c, _)| c).collect();
                (format!("{} or a plain tuple", names.join(" or ")), vec![])
            }
        };
        self.values.function.named.insert(merged, class);
        Some(merged)
    }

    fn merge_tuple_items(
        &mut self,
        a: Value,
        b: Value,
        mut merge: impl FnMut(&mut Self, Value, Value) -> Value,
    ) -> Option<Value> {
        let ta = self.values.function.tuples.get(&a).cloned();
        let tb = self.values.function.tuples.get(&b).cloned();
        if ta.is_none() && tb.is_none() {
            return None;
        }
        if self.poisoned.contains(&a) || self.poisoned.contains(&b) {
            return Some(self.poison());
        }
        let none = |t: &Option<TupleValue>| {
            t.as_ref()
                .is_some_and(|t| t.container == Container::MaybeNone)
        };
        if none(&ta) || none(&tb) {
            return Some(self.merge_maybe_none((a, ta), (b, tb), merge));
        }
        match (ta, tb) {
            (Some(x), Some(y)) if x.local || y.local => Some(self.merge_containers(x, y, merge)),
            (Some(x), Some(y)) if x.items.len() == y.items.len() => {
                let items = x
                    .items
                    .iter()
                    .zip(&y.items)
                    .map(|(&p, &q)| merge(self, p, q))
                    .collect();
                Some(self.make_tuple(items, x.site))
            }
            (x, y) if x.as_ref().or(y.as_ref()).is_some_and(|t| t.local) => {
                let t = x.or(y)?;
                self.container_error(
                    t.site,
                    "a container on some elements meets a number on others (D18): give the variable one type on every path".into(),
                );
                Some(self.poison())
            }
            (x, y) => {
                let describe =
                    |l: &Self, t: &Option<TupleValue>, v: Value| -> (usize, Option<Site>) {
                        match t {
                            Some(t) => (t.items.len(), Some(t.site)),
                            None => (1, l.values.function.return_sites.get(&v).copied()),
                        }
                    };
                let (na, sa) = describe(self, &x, a);
                let (nb, sb) = describe(self, &y, b);
                self.arity_error((na, sa), (nb, sb));
                Some(self.poison())
            }
        }
    }

    /// Two paths return tuples of different lengths (or a tuple and a single value).
    fn arity_error(&mut self, a: (usize, Option<Site>), b: (usize, Option<Site>)) {
        let line = |l: &Self, s: Option<Site>| {
            s.and_then(|(src, start, _)| l.sources.get(src).map(|t| t.position(start).0))
        };
        let values = |n: usize| {
            if n == 1 {
                "1 value".to_string()
            } else {
                format!("{n} values")
            }
        };
        let (la, lb) = (line(self, a.1), line(self, b.1));
        let message = match (la, lb) {
            (Some(la), Some(lb)) => format!(
                "every path must return the same number of values (D13): the `return` at line {la} gives {}, the `return` at line {lb} gives {}",
                values(a.0),
                values(b.0)
            ),
            _ => "these several values meet a single value on another path: every path must return the same number of values (D13), and a tuple cannot be returned from inside a loop".into(),
        };
        let Some((src, start, end)) = b.1.or(a.1) else {
            return;
        };
        self.error(
            DiagnosticKind::UnsupportedStatement,
            message,
            src,
            start,
            end,
        );
    }

    /// `a, b = value` where `value` lowered to a tuple of as many items.
    pub(in crate::lower) fn unpack(
        &mut self,
        frame: &mut Frame,
        targets: &ast::ExprTuple,
        v: Value,
        at: &ast::Expr,
    ) {
        if self.poisoned.contains(&v) {
            return;
        }
        // D15: a constant table (`low, high = LIMITS`, `cfg.limits`) unpacks into its items.
        if let Some(Const::Tuple(items) | Const::List(items)) = self.const_of(v) {
            if items.len() == targets.elts.len() {
                for (target, item) in targets.elts.iter().zip(items) {
                    let item = self.konst(item);
                    if let ast::Expr::Name(n) = target {
                        self.assign(frame, n.id.as_str(), item);
                    }
                }
                return;
            }
        }
        // D14: a tuple given per call (`lower, upper = limits`) unpacks once per call, in Python.
        if self.is_object(v) {
            let n = targets.elts.len();
            let items = self.uniform(UniformOp::Unpack(n), vec![v]);
            for (k, target) in targets.elts.iter().enumerate() {
                let key = self.konst(Const::Int(k as i128));
                let item = self.uniform(UniformOp::Item, vec![items, key]);
                self.values.function.maybe_none_items.insert(item);
                if let ast::Expr::Name(n) = target {
                    self.assign(frame, n.id.as_str(), item);
                }
            }
            return;
        }
        let Some(t) = self
            .values
            .function
            .tuples
            .get(&v)
            .filter(|t| t.container != Container::MaybeNone)
            .cloned()
        else {
            if frame.flow.ended() || self.stopped(&frame.flow) {
                // Every lane has raised before (a helper that always raises here, such as item
                // 7's `math.ceil(x - math.inf)`), or left the loop's iteration by `break` or
                // `continue` (D12) where the others raised (seed 690001 #1508): what the names
                // hold is never read.
                for target in &targets.elts {
                    if let ast::Expr::Name(n) = target {
                        let dead = self.konst(crate::ir::Const::Float(0.0));
                        self.assign(frame, n.id.as_str(), dead);
                    }
                }
                return;
            }
            self.error_at(
                frame,
                DiagnosticKind::UnsupportedStatement,
                "tuple unpacking needs a tuple of the same length on the right (a tuple literal or a call of a helper returning one)".into(),
                at,
            );
            return;
        };
        // A dict unpacks into its keys (D18).
        let items = match self.container_elems(frame, v, at) {
            Some(Ok(elems)) => elems
                .into_iter()
                .map(|el| match el {
                    crate::lower::values::reduce::Elem::One(v) => v,
                    crate::lower::values::reduce::Elem::Tuple(_) => self.poison(),
                })
                .collect(),
            Some(Err(())) => return,
            None => t.items,
        };
        if items.len() != targets.elts.len() {
            self.error_at(
                frame,
                DiagnosticKind::UnsupportedStatement,
                format!(
                    "cannot unpack {} values into {} names",
                    items.len(),
                    targets.elts.len()
                ),
                at,
            );
            return;
        }
        for (target, item) in targets.elts.iter().zip(items) {
            if let ast::Expr::Name(n) = target {
                self.assign(frame, n.id.as_str(), item);
            }
        }
    }

    /// The done mask and returned value of the returns before a loop, which the loop's phis
    /// start from. The returns before the loop keep their priority after it (`returns_after`,
    /// `exit_while`): on their lanes the returned phi's value is never read, so it only gives
    /// the phi its kind. Several values returned (D13) are no phi: the loop then starts
    /// without a returned value (a `return` in its body, of one value or several, is rejected
    /// on its own), and the tuple returns before it stay as they are (fuzz 750010 #136).
    pub(in crate::lower) fn collapse_outer(&mut self, flow: &Flow) -> (Value, Option<Value>) {
        let (done, ret) = self.collapse(flow);
        let several = ret
            .and_then(|r| self.container(r))
            .is_some_and(|t| t.container == Container::Tuple);
        (done, if several { None } else { ret })
    }

    /// The function's result: the positions of a tuple, or one value.
    pub(in crate::lower) fn result_positions(&self, ret: Value) -> (Vec<Value>, bool) {
        match self.values.function.tuples.get(&ret) {
            Some(t) => (t.items.clone(), true),
            None => (vec![ret], false),
        }
    }

    /// Reports every tuple handle the lowered function still reads (D10: never a number made up
    /// for a tuple): a tuple used in arithmetic or a condition, or returned from inside a loop.
    pub(in crate::lower) fn reject_tuple_uses(&mut self) {
        if self.values.function.tuples.is_empty() {
            return;
        }
        let counts = use_counts(&self.f);
        let mut misused: Vec<(Site, &str)> = self
            .values
            .function
            .tuples
            .iter()
            .filter(|(v, _)| counts.get(v.index()).copied().unwrap_or(0) > 0)
            .map(|(_, t)| (t.site, misuse_message(t)))
            .collect();
        misused.sort_unstable_by_key(|&((src, start, end), m)| (src, start, end, m));
        misused.dedup();
        for ((src, start, end), message) in misused {
            let message = message.to_string();
            self.error(
                DiagnosticKind::UnsupportedExpression,
                message,
                src,
                start,
                end,
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::pipeline::testing::{compiled, errors};

    #[test]
    fn a_tuple_returned_before_a_loop_that_raises_is_not_its_phi() {
        // D13, D11: the loop carries the lanes done; the tuple keeps its place in the returns.
        let src = "def f(x):\n    if x > 5.0:\n        return x, 0\n    for i in range(2):\n        if x < i:\n            raise ValueError('low')\n    return 0.0, 1\n";
        let c = compiled(src);
        assert!(c.source.contains("_vec_raises("), "{}", c.source);
        let inside = "def f(x):\n    if x > 5.0:\n        return x, 0\n    for i in range(2):\n        if x < i:\n            return x, i\n    return 0.0, 1\n";
        let e = errors(inside);
        assert!(e.iter().any(|m| m.contains("inside a loop")), "{e:?}");
    }
}
