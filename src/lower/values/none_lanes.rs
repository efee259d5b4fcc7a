//! Values that are None on some lanes (D20): a helper lane that falls off its end, or runs a
//! bare `return` or `return None`, returns None, as CPython does.
//!
//! Such a result is a handle (`handles::TupleValue` of kind [`Container::MaybeNone`]) holding
//! the value on the other lanes and the mask of the None lanes. Nothing reads the handle
//! itself: the uses CPython defines on None are lowered per lane, and any other use is rejected
//! after lowering (as a tuple read as a number is, D10).
//!
//! - arithmetic, ordering comparisons, `math` functions and the numeric builtins raise
//!   CPython's TypeError on the None lanes (D11): the raise site evaluates the very operation
//!   with None in Python, so the message is CPython's own;
//!   `h + x`  ->  raise `(None if _b0 else _a0) + _a1` on the lanes `none`, then `_a0 + _a1`
//! - `h is None`, `h is not None`, `==`, `!=` and truth tests (`if h:`, `not h`, `h or 0.0`)
//!   give CPython's answers per lane (None is falsy and equal to nothing but None);
//! - a merge (an `if`, a ternary, returns) merges the values and the masks;
//! - returned by the marked function, a None lane is an error naming the element: an array
//!   cannot hold None (docs/semantics.md).

use rustpython_parser::ast;

use crate::ir::{CmpOp, Const, LogicOp, Op, UnOp, Value};
use crate::lower::values::handles::{Container, Site, TupleValue};
use crate::lower::{Frame, Lowerer, R};

impl Lowerer<'_> {
    /// A value that is None on the lanes `none` and `value` on the others.
    pub(in crate::lower) fn maybe_none(&mut self, value: Value, none: Value, site: Site) -> Value {
        self.make_handle(TupleValue {
            items: vec![value, none],
            site,
            container: Container::MaybeNone,
            local: false,
        })
    }

    /// None on every lane (a helper's `return None`): a bool stand-in, which joins to any kind.
    pub(in crate::lower) fn none_everywhere(&mut self, site: Site) -> Value {
        let value = self.konst(Const::Bool(false));
        let none = self.konst(Const::Bool(true));
        self.maybe_none(value, none, site)
    }

    /// The value and the None mask of `v` when it may be None.
    pub(in crate::lower) fn none_parts(&self, v: Value) -> Option<(Value, Value)> {
        match self.values.function.tuples.get(&v) {
            Some(TupleValue {
                container: Container::MaybeNone,
                items,
                ..
            }) => Some((items[0], items[1])),
            _ => None,
        }
    }

    /// The operands of an operation CPython rejects on None (`render` writes it in Python from
    /// the operands' texts): on lanes of the current path where one is None, TypeError, from
    /// the operation itself evaluated in Python on that lane; the operands' values for the
    /// other lanes.
    pub(in crate::lower) fn open_nones<T: ast::Ranged>(
        &mut self,
        frame: &mut Frame,
        operands: &[Value],
        render: impl Fn(&[String]) -> String,
        at: &T,
    ) -> R<Vec<Value>> {
        if operands.iter().all(|&v| self.none_parts(v).is_none()) {
            return Ok(operands.to_vec());
        }
        let mut params = vec![];
        let mut args = vec![];
        let mut texts = vec![];
        let mut values = vec![];
        let mut mask = self.konst(Const::Bool(false));
        // The parameters are named as the numeric sites of a `try` body's (`_a0`, and `_b0` the
        // None mask), in the order the text reads them, as the fuzz model reads a site.
        for (k, &v) in operands.iter().enumerate() {
            let p = format!("_a{k}");
            match self.none_parts(v) {
                Some((value, none)) => {
                    let flag = format!("_b{k}");
                    texts.push(format!("(None if {flag} else {p})"));
                    params.extend([flag, p]);
                    args.extend([none, value]);
                    values.push(value);
                    mask = self.emit(Op::Logic(LogicOp::Or, mask, none));
                }
                None => {
                    texts.push(p.clone());
                    params.push(p);
                    args.push(v);
                    values.push(v);
                }
            }
        }
        self.raise_site_where(frame, mask, (render(&texts), params, args), "TypeError", at)?;
        Ok(values)
    }

    /// `a == b` / `a != b` when either may be None: False (True) on the None lanes, unless both
    /// are None there.
    pub(in crate::lower) fn none_equality(
        &mut self,
        op: CmpOp,
        a: Value,
        b: Value,
    ) -> Option<Value> {
        let (pa, pb) = (self.none_parts(a), self.none_parts(b));
        if pa.is_none() && pb.is_none() {
            return None;
        }
        let f = self.konst(Const::Bool(false));
        let (va, na) = pa.unwrap_or((a, f));
        let (vb, nb) = pb.unwrap_or((b, f));
        let values = self.emit(Op::Compare(CmpOp::Eq, va, vb));
        let both = self.emit(Op::Logic(LogicOp::And, na, nb));
        let either = self.emit(Op::Logic(LogicOp::Or, na, nb));
        let eq = self.select(either, both, values);
        Some(if op == CmpOp::Eq {
            eq
        } else {
            self.emit(Op::Unary(UnOp::Not, eq))
        })
    }

    /// `v is None` (`negate`: `is not None`) for a value that may be None: its mask.
    pub(in crate::lower) fn none_identity(&mut self, v: Value, negate: bool) -> Option<Value> {
        let (_, none) = self.none_parts(v)?;
        Some(if negate { self.not(none) } else { none })
    }

    /// Python's truth value of a value that may be None: False on the None lanes.
    pub(in crate::lower) fn none_truth(&mut self, v: Value) -> Option<Value> {
        let (value, none) = self.none_parts(v)?;
        let t = self.truth(value);
        let f = self.konst(Const::Bool(false));
        Some(self.select(none, f, t))
    }

    /// The marked function returns `v`: a None lane is an error naming the element (D20: an
    /// array cannot hold None); its value otherwise.
    pub(in crate::lower) fn returned_value(
        &mut self,
        frame: &mut Frame,
        v: Value,
        at: &ast::Stmt,
    ) -> R<Value> {
        let Some((value, none)) = self.none_parts(v) else {
            return Ok(v);
        };
        self.raise_returned_none(frame, Some(none), at)?;
        Ok(value)
    }

    /// Ends the lanes of the path in `mask` (all for None) with the marked function's error
    /// for an element it returns None for (D20).
    pub(in crate::lower) fn raise_returned_none<T: ast::Ranged>(
        &mut self,
        frame: &mut Frame,
        mask: Option<Value>,
        at: &T,
    ) -> R<()> {
        let text = format!(
            "TypeError('{} returned None for this element (it ended without returning a number): an array cannot hold None (D20)')",
            self.f.name
        );
        let mask = mask.unwrap_or_else(|| self.konst(Const::Bool(true)));
        self.raise_site_where(frame, mask, (text, vec![], vec![]), "TypeError", at)
    }

    /// A merge of two values of which one at least may be None: the values and the masks,
    /// each merged with `merge` (a value that is never None has a false mask).
    pub(in crate::lower) fn merge_maybe_none(
        &mut self,
        (a, ta): (Value, Option<TupleValue>),
        (b, tb): (Value, Option<TupleValue>),
        mut merge: impl FnMut(&mut Self, Value, Value) -> Value,
    ) -> Value {
        let other = [&ta, &tb]
            .into_iter()
            .flatten()
            .find(|t| t.container != Container::MaybeNone);
        if let Some(t) = other {
            let site = t.site;
            self.container_error(site, "a container on some elements meets None on others (D18, D20): give the variable one type on every path".into());
            return self.poison();
        }
        let parts = |l: &mut Self, v: Value| match l.none_parts(v) {
            Some(p) => p,
            None => (v, l.konst(Const::Bool(false))),
        };
        let (va, na) = parts(self, a);
        let (vb, nb) = parts(self, b);
        let site = ta.or(tb).map(|t| t.site).unwrap_or_default();
        let value = merge(self, va, vb);
        let none = merge(self, na, nb);
        self.maybe_none(value, none, site)
    }

    /// A comparison where either side may be None (None when neither may): `is None`,
    /// `is not None`, `==` and `!=` per lane; an ordering raises TypeError on the None lanes.
    pub(in crate::lower) fn none_compare(
        &mut self,
        frame: &mut Frame,
        op: &ast::CmpOp,
        l: Value,
        r: Value,
        node: &ast::ExprCompare,
    ) -> R<Option<Value>> {
        if self.none_parts(l).is_none() && self.none_parts(r).is_none() {
            return Ok(None);
        }
        let none_literal = |s: &Self, v: Value| s.values.literals.get(&v).is_some_and(|lit| !lit.3);
        let (handle, other) = if self.none_parts(l).is_some() {
            (l, r)
        } else {
            (r, l)
        };
        let is_none = none_literal(self, other);
        Ok(Some(match op {
            ast::CmpOp::Is | ast::CmpOp::Eq if is_none => {
                self.values.literals.remove(&other);
                self.none_identity(handle, false).ok_or(())?
            }
            ast::CmpOp::IsNot | ast::CmpOp::NotEq if is_none => {
                self.values.literals.remove(&other);
                self.none_identity(handle, true).ok_or(())?
            }
            ast::CmpOp::Eq => self.none_equality(CmpOp::Eq, l, r).ok_or(())?,
            ast::CmpOp::NotEq => self.none_equality(CmpOp::Ne, l, r).ok_or(())?,
            _ => {
                let Some(cmp) = Self::numeric_cmp(op) else {
                    return Ok(None);
                };
                let symbol = cmp.symbol();
                let lr = self.open_nones(
                    frame,
                    &[l, r],
                    |t| format!("{} {symbol} {}", t[0], t[1]),
                    node,
                )?;
                self.emit(Op::Compare(cmp, lr[0], lr[1]))
            }
        }))
    }
}
