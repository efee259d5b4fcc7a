//! Constant tables (D15): tuples, lists and dicts of numbers (displays, or module globals and
//! closures bound to one) indexed by a per-lane int or key, and membership in them.
//! An array index is a gather (`_vec_take`) with Python's negative indices and a call-time
//! IndexError; an array key a lookup (`_vec_lookup`) with a call-time KeyError. Only lanes the
//! scalar function reaches are checked (through its callers, for an inlined helper): the others
//! index with a key that is surely present.

use rustpython_parser::ast;

use crate::diagnostics::DiagnosticKind;
use crate::ir::eval::num_eq;
use crate::ir::{CmpOp, Const, Kind, LogicOp, ObjCmp, Op, Shape, UniformOp, Value};
use crate::lower::{Frame, Lowerer, R};

/// Largest int an int64 array holds.
const INT64_MAX: i128 = i64::MAX as i128;
/// Ints up to this magnitude are floats exactly.
const EXACT_FLOAT_INT: i128 = 1 << 53;

impl Lowerer<'_> {
    /// The table a subscript, `in`, `len` or a reduction reads: a constant table when its items
    /// are constants (a display, a container of constants the function made: D18), else the
    /// value (a container of per-lane values, a uniform value). A set display only for `in`
    /// (`set_ok`): CPython cannot subscript a set, and a set's length and order depend on its
    /// duplicates and hashes.
    pub(in crate::lower) fn table(
        &mut self,
        frame: &mut Frame,
        value: &ast::Expr,
        e: &ast::Expr,
        set_ok: bool,
    ) -> R<Value> {
        let v = match (value, set_ok) {
            (ast::Expr::Set(_), false) => {
                self.error_at(
                    frame,
                    DiagnosticKind::UnsupportedExpression,
                    "a set display is supported only on the right of `in`; use a tuple".into(),
                    e,
                );
                return Err(());
            }
            // A set is only ever a membership test's right side: its items, like a tuple's.
            (ast::Expr::Set(s), true) => {
                let (start, end) = crate::frontend::extract::span(value);
                let items = s.elts.iter().map(|x| self.expr(frame, x)).collect();
                let site = (frame.source, start, end);
                self.new_container(crate::lower::values::handles::Container::Tuple, items, site)
            }
            (other, _) => self.expr(frame, other),
        };
        if self.poisoned.contains(&v) {
            return Err(());
        }
        Ok(self.table_value(v))
    }

    /// `len(T)` of a constant table: its length, a constant.
    pub(in crate::lower) fn table_len(&mut self, frame: &mut Frame, c: &ast::ExprCall) -> R<Value> {
        let [arg] = c.args.as_slice() else {
            self.error_at(
                frame,
                DiagnosticKind::BadArguments,
                format!("len() takes exactly one argument ({} given)", c.args.len()),
                c,
            );
            return Err(());
        };
        let t = self.table(frame, arg, arg, false)?;
        if let Some(n) = self.container_len(t) {
            return Ok(n);
        }
        // D14: the length of a sequence given per call, once per call.
        if self.is_object(t) {
            return Ok(self.uniform(UniformOp::Len, vec![t]));
        }
        match self.const_of(t) {
            Some(Const::Tuple(items) | Const::List(items)) => {
                Ok(self.konst(Const::Int(items.len() as i128)))
            }
            Some(Const::Dict(entries)) => Ok(self.konst(Const::Int(entries.len() as i128))),
            _ => {
                if !self.poisoned.contains(&t) {
                    self.error_at(
                        frame,
                        DiagnosticKind::UnsupportedExpression,
                        "len() is supported on constant tables only (tuples, lists, dicts of \
                         numbers): an array's elements are numbers, which have no length"
                            .into(),
                        c,
                    );
                }
                Err(())
            }
        }
    }

    /// `t[i]` for a table value `t` and an index or key `i`.
    pub(in crate::lower) fn table_index(
        &mut self,
        frame: &mut Frame,
        t: Value,
        i: Value,
        e: &ast::Expr,
    ) -> R<Value> {
        let table = self.const_of(t);
        let is_table = matches!(
            table,
            Some(Const::Tuple(_) | Const::List(_) | Const::Dict(_))
        );
        if is_table && self.shape(i) == Shape::Array {
            return self.gather(frame, t, i, e);
        }
        if let (Some(Const::Dict(entries)), Some(key)) = (&table, self.const_of(i)) {
            if !entries.iter().any(|(k, _)| num_eq(k, &key) == Some(true)) {
                self.error_at(
                    frame,
                    DiagnosticKind::UnsupportedExpression,
                    format!(
                        "the key {} is not in this dict: CPython raises KeyError here",
                        key.python_repr()
                    ),
                    e,
                );
                return Err(());
            }
        }
        let index_ok = self.shape(i) == Shape::Scalar
            && (matches!(table, Some(Const::Dict(_)))
                || matches!(self.kind(i), Kind::Int | Kind::Bool));
        if !is_table || !index_ok {
            if !self.poisoned.contains(&t) && !self.poisoned.contains(&i) {
                self.error_at(
                    frame,
                    DiagnosticKind::UnsupportedExpression,
                    "only a constant tuple, list or dict of numbers (a literal, or a module \
                     global or closure bound to one) can be subscripted, by an \
                     integer or a key"
                        .into(),
                    e,
                );
            }
            return Err(());
        }
        Ok(self.emit(Op::Index(t, i)))
    }

    /// `table[i]` for a constant table and an array `i`.
    fn gather(&mut self, frame: &mut Frame, t: Value, i: Value, e: &ast::Expr) -> R<Value> {
        let Some(table) = self.const_of(t) else {
            return Err(());
        };
        if let Some(why) = table_problem(&table) {
            self.error_at(frame, DiagnosticKind::UnsupportedExpression, why, e);
            return Err(());
        }
        let Const::Dict(entries) = &table else {
            let i = self.sequence_index(frame, i, e)?;
            let i = self.index_raise_in_loop(frame, &table, i, e)?;
            return Ok(self.emit(Op::Index(t, i)));
        };
        let Some(present) = present_key(entries, self.kind(i)) else {
            self.error_at(
                frame,
                DiagnosticKind::UnsupportedExpression,
                "no key of this dict can equal a key of this type, so every element reaching \
                 this lookup raises KeyError"
                    .into(),
                e,
            );
            return Err(());
        };
        let i = self.reached_index(frame, i, present);
        Ok(self.emit(Op::Index(t, i)))
    }

    /// The index array `i` of a tuple or list, a constant table (D15) or a sequence given per
    /// call (D14) alike: a float index is rejected (CPython raises TypeError); the lanes that do
    /// not run this code read index 0 (`reached_index`).
    fn sequence_index(&mut self, frame: &Frame, i: Value, e: &ast::Expr) -> R<Value> {
        if self.kind(i) == Kind::Float {
            self.error_at(
                frame,
                DiagnosticKind::UnsupportedExpression,
                "a tuple or list index must be an integer (CPython raises TypeError for a \
                 float); convert it with int(...)"
                    .into(),
                e,
            );
            return Err(());
        }
        Ok(self.reached_index(frame, i, Const::Int(0)))
    }

    /// Inside a loop (D12), the lanes whose index `i` lies outside the tuple or list `table`
    /// end at a raise site of CPython's IndexError (D11), carried through the loop as a `raise`
    /// is (`loops/raises.rs`): the element named is CPython's first raising one in C order,
    /// whatever the iteration it raises in, not the first bad lane of the first iteration with
    /// one (the gather's own check). Those lanes then read index 0. Outside loops the gather's
    /// call-time check names CPython's element already.
    fn index_raise_in_loop(
        &mut self,
        frame: &mut Frame,
        table: &Const,
        i: Value,
        e: &ast::Expr,
    ) -> R<Value> {
        if !self.loop_read_raises() {
            return Ok(i);
        }
        let what = if matches!(table, Const::List(_)) {
            "list"
        } else {
            "tuple"
        };
        let n = table.items().map_or(0, |items| items.len()) as i128;
        let lo = self.konst(Const::Int(-n));
        let hi = self.konst(Const::Int(n));
        let below = self.emit(Op::Compare(CmpOp::Lt, i, lo));
        let above = self.emit(Op::Compare(CmpOp::Ge, i, hi));
        let bad = self.emit(Op::Logic(LogicOp::Or, below, above));
        let text = format!("IndexError('{what} index out of range')");
        self.raise_where(frame, bad, &text, "IndexError", e)?;
        let zero = self.konst(Const::Int(0));
        Ok(self.select(bad, zero, i))
    }

    /// The index array `i` with `present` (a key the table surely has) on the lanes that do not
    /// run this code (D1, D11: they cannot raise): in an inlined helper also the lanes its callers
    /// do not run it for, such as those a caller's masked loop has finished (D12).
    fn reached_index(&mut self, frame: &Frame, i: Value, present: Const) -> Value {
        match self.reaching_lanes(frame) {
            Some(live) => {
                let present = self.konst(present);
                self.emit(Op::Select(live, i, present))
            }
            None => i,
        }
    }

    /// `table[i]` for a tuple or list given per call (a parameter, D14) and an array `i`: the
    /// items converted once per call and gathered (`_vec_take_param`), with Python's negative
    /// indices and IndexError as for a constant table (D15).
    pub(in crate::lower) fn gather_given(
        &mut self,
        frame: &Frame,
        t: Value,
        i: Value,
        e: &ast::Expr,
    ) -> R<Value> {
        // Index 0 off the reached lanes: an empty sequence raises at the call (item 47).
        let i = self.sequence_index(frame, i, e)?;
        Ok(self.emit(Op::Index(t, i)))
    }

    /// `key in container` with a uniform container (D14: `"bonus" in params`): Python's test,
    /// once per call, for a key the same on every element.
    fn object_membership(
        &mut self,
        frame: &Frame,
        x: Value,
        t: Value,
        right: &ast::Expr,
    ) -> R<(Value, Value)> {
        if self.shape(x) == Shape::Array {
            self.error_at(
                frame,
                DiagnosticKind::UnsupportedOperator,
                "`in` on a uniform value (D14) runs once per call: the left side must be the same on every element (a constant, another uniform value); for a key per element, use a constant table of numbers (D15)".into(),
                right,
            );
            return Err(());
        }
        Ok((self.uniform(UniformOp::Compare(ObjCmp::In), vec![x, t]), t))
    }

    /// `x in TABLE` for a constant tuple, list, set or dict (its keys), a display or a frozen
    /// name: `x == c1 or x == c2 ...` as bools, which is CPython's membership for numbers
    /// (equality across int, float and bool; a NaN element is never equal, and an element is
    /// never identical to a constant). Returns the membership and the table (the next left
    /// operand of a chain).
    pub(in crate::lower) fn membership(
        &mut self,
        frame: &mut Frame,
        x: Value,
        right: &ast::Expr,
    ) -> R<(Value, Value)> {
        let t = self.table(frame, right, right, true)?;
        if self.is_object(t) {
            return self.object_membership(frame, x, t, right);
        }
        if let Some(elems) = self.container_elems(frame, t, right) {
            return self.lane_membership(x, t, elems?, right, frame);
        }
        let items = match self.const_of(t) {
            Some(Const::Tuple(items) | Const::List(items)) => items,
            Some(Const::Dict(entries)) => entries.into_iter().map(|(k, _)| k).collect(),
            _ => {
                if !self.poisoned.contains(&t) {
                    self.error_at(
                        frame,
                        DiagnosticKind::UnsupportedOperator,
                        "`in` needs a constant tuple, list, set or dict of numbers on the right \
                         (a display, or a module global or closure bound to one)"
                            .into(),
                        right,
                    );
                }
                return Err(());
            }
        };
        if items
            .iter()
            .any(|c| matches!(c, Const::Tuple(_) | Const::List(_) | Const::Dict(_)))
        {
            self.error_at(
                frame,
                DiagnosticKind::UnsupportedOperator,
                "`in` is supported on tables of numbers only".into(),
                right,
            );
            return Err(());
        }
        let mut acc = self.konst(Const::Bool(false));
        for c in items {
            let c = self.konst(c);
            let eq = self.emit(Op::Compare(CmpOp::Eq, x, c));
            acc = self.bool_op(false, acc, eq);
        }
        Ok((acc, t))
    }
}

impl Lowerer<'_> {
    /// `x in c` for a container of per-lane values (D18): `x == c[0] or x == c[1] ...` as bools
    /// (an item that is `x` itself is found, as CPython finds an object by identity first).
    fn lane_membership(
        &mut self,
        x: Value,
        t: Value,
        elems: Vec<crate::lower::values::reduce::Elem>,
        right: &ast::Expr,
        frame: &Frame,
    ) -> R<(Value, Value)> {
        let mut acc = self.konst(Const::Bool(false));
        for el in elems {
            let crate::lower::values::reduce::Elem::One(item) = el else {
                return Err(());
            };
            if self.container(item).is_some() {
                self.error_at(
                    frame,
                    DiagnosticKind::UnsupportedOperator,
                    "`in` is supported on containers of numbers only".into(),
                    right,
                );
                return Err(());
            }
            let eq = self.same_or_equal(x, item);
            acc = self.bool_op(false, acc, eq);
        }
        Ok((acc, t))
    }
}

/// A key of `entries` that lanes of kind `k` not reaching a lookup can hold without changing
/// the key array's kind or exactness: 0 or 1 as a bool (exact in every kind), else a float
/// key for float lanes and an int key for the others.
fn present_key(entries: &[(Const, Const)], k: Kind) -> Option<Const> {
    for bit in [false, true] {
        if entries
            .iter()
            .any(|(key, _)| num_eq(key, &Const::Bool(bit)) == Some(true))
        {
            return Some(Const::Bool(bit));
        }
    }
    entries.iter().find_map(|(key, _)| match (key, k) {
        (Const::Float(f), Kind::Float) => Some(Const::Float(*f)),
        (Const::Int(n), Kind::Float) if n.abs() <= EXACT_FLOAT_INT => Some(Const::Float(*n as f64)),
        (Const::Int(n), Kind::Int | Kind::Bool | Kind::Unknown)
            if (-INT64_MAX - 1..=INT64_MAX).contains(n) =>
        {
            Some(Const::Int(*n))
        }
        (Const::Float(f), Kind::Int | Kind::Bool | Kind::Unknown)
            if f.fract() == 0.0 && f.abs() <= EXACT_FLOAT_INT as f64 =>
        {
            Some(Const::Int(*f as i128))
        }
        _ => None,
    })
}

/// Why a table cannot be indexed per element: empty, not all numbers, or ints that no one
/// 64-bit integer array holds.
fn table_problem(table: &Const) -> Option<String> {
    let (what, raises) = match table {
        Const::List(_) => ("list", "IndexError"),
        Const::Dict(_) => ("dict", "KeyError"),
        _ => ("tuple", "IndexError"),
    };
    let items = table.readable().unwrap_or_default();
    if items.is_empty() {
        return Some(format!("indexing an empty {what} always raises {raises}"));
    }
    let mut ints = vec![];
    for c in &items {
        match c {
            Const::Int(n) => ints.push(*n),
            Const::Bool(_) | Const::Float(_) => {}
            Const::Tuple(_) | Const::List(_) | Const::Dict(_) => {
                return Some(format!(
                    "a {what} indexed per element must hold numbers, not containers; index \
                     each column with its own table"
                ))
            }
        }
    }
    let has_float = items.iter().any(|c| matches!(c, Const::Float(_)));
    let negative = ints.iter().any(|&n| n < 0);
    let wide = ints.iter().any(|&n| n > INT64_MAX);
    if !has_float && negative && wide {
        return Some(format!(
            "this {what} mixes negative ints with ints of 2**63 or more, which no 64-bit \
             integer array holds"
        ));
    }
    None
}
