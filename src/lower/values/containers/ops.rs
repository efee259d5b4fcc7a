//! Reading and changing local containers (D18): subscripts and slices, `a[k] = v`, the methods
//! of lists and dicts, and `+`/`*` on sequences.
//!
//! A constant index or key is the item itself. A per-lane index is checked as CPython checks
//! it (an index outside the list raises IndexError on that lane, D11; a float index raises
//! TypeError, as for tables) and picks the item with a select per position:
//!
//! ```python
//! v = [a, b, c][k]     ->   bad = (k < -3) | (k >= 3)           # IndexError on those lanes
//!                           p = _vec_take(xp, (0, 1, 2), where(bad, 0, k), "list")
//!                           v = where(p == 0, a, where(p == 1, b, c))
//! ```
//!
//! A container of constants read per lane is a table (D15, `tables.rs`): a gather.

use rustpython_parser::ast;

use crate::ir::{BinOp, CmpOp, Const, Kind, LogicOp, Op, Value};
use crate::lower::exceptions::classes::builtin_mro;
use crate::lower::values::handles::{insert_entry, Container, Key, TupleValue, MAX_ITEMS};
use crate::lower::{Frame, Lowerer, Var, R};

impl Lowerer<'_> {
    /// `t[i]` when `t` is a container (None when it is not: a table or a uniform value).
    pub(in crate::lower) fn container_index(
        &mut self,
        frame: &mut Frame,
        t: Value,
        (slice, i): (&ast::Expr, Value),
        e: &ast::Expr,
    ) -> Option<R<Value>> {
        let c = self.container(t)?;
        if self.poisoned.contains(&i) {
            return Some(Err(()));
        }
        Some(match &c.container {
            Container::View => {
                self.container_error_at(frame, "this view (zip, enumerate, keys, values, items) cannot be indexed (CPython raises TypeError); make a list of it first: `list(...)`", e);
                Err(())
            }
            Container::MaybeNone => {
                self.container_error_at(frame, "this value is None on some elements (D20), which cannot be indexed (CPython raises TypeError)", e);
                Err(())
            }
            Container::Dict(_, keys) => {
                let keys = keys.clone();
                self.dict_item(frame, &keys, &c.items, (slice, i), e)
            }
            Container::Tuple | Container::List(_) => {
                let what = if c.container == Container::Tuple {
                    "tuple"
                } else {
                    "list"
                };
                self.sequence_item(frame, &c.items, i, what, e)
            }
        })
    }

    /// `items[i]` of a list or tuple: the item for a constant `i`, a select per position else.
    fn sequence_item(
        &mut self,
        frame: &mut Frame,
        items: &[Value],
        i: Value,
        what: &str,
        e: &ast::Expr,
    ) -> R<Value> {
        let n = items.len() as i128;
        if let Some(k) = self.const_index(frame, i, what, e)? {
            let k = if k < 0 { k + n } else { k };
            if !(0..n).contains(&k) {
                self.container_error_at(
                    frame,
                    &format!("{what} index out of range: the {what} has {n} items (CPython raises IndexError here)"),
                    e,
                );
                return Err(());
            }
            return Ok(items[k as usize]);
        }
        let p = self.checked_position(frame, n, i, &format!("{what} index out of range"), e)?;
        Ok(self.pick(p, items))
    }

    /// A constant index (None for one per lane); Err after reporting one that is not an int.
    fn const_index(
        &mut self,
        frame: &Frame,
        i: Value,
        what: &str,
        e: &ast::Expr,
    ) -> R<Option<i128>> {
        match self.const_of(i) {
            Some(Const::Int(k)) => Ok(Some(k)),
            Some(Const::Bool(b)) => Ok(Some(i128::from(b))),
            Some(_) => {
                self.container_error_at(
                    frame,
                    &format!(
                        "{what} indices must be integers (CPython raises TypeError for a float)"
                    ),
                    e,
                );
                Err(())
            }
            None if self.kind(i) == Kind::Float || self.is_object(i) => {
                self.container_error_at(frame, &format!("{what} indices must be integers (CPython raises TypeError for this index); convert it with int(...)"), e);
                Err(())
            }
            None => Ok(None),
        }
    }

    /// The position `i` (per lane) stands for among `n`: lanes outside `[-n, n)` raise
    /// `IndexError(message)` (D11), a float index raises TypeError (the table gather's check).
    fn checked_position(
        &mut self,
        frame: &mut Frame,
        n: i128,
        i: Value,
        message: &str,
        e: &ast::Expr,
    ) -> R<Value> {
        let lo = self.konst(Const::Int(-n));
        let hi = self.konst(Const::Int(n));
        let below = self.emit(Op::Compare(CmpOp::Lt, i, lo));
        let above = self.emit(Op::Compare(CmpOp::Ge, i, hi));
        let bad = self.emit(Op::Logic(LogicOp::Or, below, above));
        self.raise_where(
            frame,
            bad,
            &format!("IndexError({message:?})"),
            "IndexError",
            e,
        )?;
        let zero = self.konst(Const::Int(0));
        let inside = self.select(bad, zero, i);
        let positions = self.konst(Const::Tuple((0..n).map(Const::Int).collect()));
        self.table_index(frame, positions, inside, e)
    }

    /// Ends the lanes of the current path where `mask` holds with the exception `text` of the
    /// builtin class `class` (D11), raised at `e`.
    pub(in crate::lower) fn raise_where<T: ast::Ranged>(
        &mut self,
        frame: &mut Frame,
        mask: Value,
        text: &str,
        class: &str,
        e: &T,
    ) -> R<()> {
        let site = (text.replace('"', "'"), vec![], vec![]);
        self.raise_site_where(frame, mask, site, class, e)
    }

    /// Ends the lanes of the current path where `mask` holds with the exception the raise site
    /// `(text, params, args)` builds, of the builtin class `class` (D11), raised at `e`.
    pub(in crate::lower) fn raise_site_where<T: ast::Ranged>(
        &mut self,
        frame: &mut Frame,
        mask: Value,
        site: (String, Vec<String>, Vec<Value>),
        class: &str,
        e: &T,
    ) -> R<()> {
        if matches!(self.const_of(mask), Some(Const::Bool(false))) {
            return Ok(());
        }
        let at = crate::frontend::extract::span(e);
        let code = self
            .push_site(frame, site, builtin_mro(class), Some(at))
            .ok_or(())?;
        let mask = match self.const_of(mask) {
            Some(_) => None,
            None => Some(mask),
        };
        self.raise_on(frame, mask, code);
        Ok(())
    }

    /// `where(p == 0, items[0], where(p == 1, items[1], ...))` for a position `p` per lane.
    fn pick(&mut self, p: Value, items: &[Value]) -> Value {
        let Some((&last, rest)) = items.split_last() else {
            return self.konst(Const::Float(0.0));
        };
        let mut acc = last;
        for (k, &item) in rest.iter().enumerate().rev() {
            let at = self.konst(Const::Int(k as i128));
            let hit = self.emit(Op::Compare(CmpOp::Eq, p, at));
            acc = self.select(hit, item, acc);
        }
        acc
    }

    /// `d[key]` of a dict the function made.
    fn dict_item(
        &mut self,
        frame: &mut Frame,
        keys: &[Key],
        items: &[Value],
        (slice, i): (&ast::Expr, Value),
        e: &ast::Expr,
    ) -> R<Value> {
        if let Some(key) = self.known_key(slice, i) {
            return match keys.iter().position(|k| k.same(&key)) {
                Some(p) => Ok(items[p]),
                None => {
                    self.container_error_at(
                        frame,
                        &format!(
                            "the key {} is not in this dict: CPython raises KeyError here",
                            key.repr()
                        ),
                        e,
                    );
                    Err(())
                }
            };
        }
        let p = self.key_position(frame, keys, i, e)?;
        Ok(self.pick(p, items))
    }

    /// The key a subscript names when it is known when compiling: a string or a constant number.
    fn known_key(&self, slice: &ast::Expr, i: Value) -> Option<Key> {
        if let ast::Expr::Constant(ast::ExprConstant {
            value: ast::Constant::Str(s),
            ..
        }) = slice
        {
            return Some(Key::Str(s.clone()));
        }
        match self.const_of(i)? {
            c @ (Const::Bool(_) | Const::Int(_) | Const::Float(_)) => Some(Key::Num(c)),
            _ => None,
        }
    }

    /// The position of a per-lane key among `keys`: a lookup in the constant dict of positions
    /// (D15: KeyError as for a table).
    fn key_position(
        &mut self,
        frame: &mut Frame,
        keys: &[Key],
        i: Value,
        e: &ast::Expr,
    ) -> R<Value> {
        let mut entries = vec![];
        for (p, k) in keys.iter().enumerate() {
            match k {
                Key::Num(c) => entries.push((c.clone(), Const::Int(p as i128))),
                Key::Str(_) => {
                    self.container_error_at(
                        frame,
                        "a dict with string keys can be read only with a constant key (D18)",
                        e,
                    );
                    return Err(());
                }
            }
        }
        let positions = self.konst(Const::Dict(entries));
        self.table_index(frame, positions, i, e)
    }

    /// A container whose items are all constants (a slice of a constant table, `reversed` of
    /// one: D15, D18) as the constant tuple of its items.
    pub(in crate::lower) fn constant_items(&self, v: Value) -> Option<Const> {
        let items = self.container(v)?.items;
        let consts = items.iter().map(|&i| self.const_of(i));
        consts
            .collect::<Option<Vec<_>>>()
            .filter(|c| {
                !c.iter()
                    .any(|k| matches!(k, Const::Tuple(_) | Const::List(_) | Const::Dict(_)))
            })
            .map(Const::Tuple)
    }

    /// `c[a:b:s]` with constant bounds: a new list or tuple.
    pub(in crate::lower) fn container_slice(
        &mut self,
        frame: &mut Frame,
        t: Value,
        s: &ast::ExprSlice,
        e: &ast::Expr,
    ) -> R<Value> {
        let (items, kind) = match (self.container(t), self.const_of(t)) {
            (
                Some(
                    c @ TupleValue {
                        container: Container::Tuple | Container::List(_),
                        ..
                    },
                ),
                _,
            ) => (c.items, c.container),
            (_, Some(Const::Tuple(items))) => (
                items.into_iter().map(|c| self.konst(c)).collect(),
                Container::Tuple,
            ),
            (_, Some(Const::List(items))) => (
                items.into_iter().map(|c| self.konst(c)).collect(),
                Container::List(None),
            ),
            _ => {
                if !self.poisoned.contains(&t) {
                    self.container_error_at(frame, "only a list or tuple (the function's own, or a constant table) can be sliced, with constant bounds (D18)", e);
                }
                return Err(());
            }
        };
        let mut bound = |l: &mut Self, b: &Option<Box<ast::Expr>>| -> R<Option<i128>> {
            let Some(b) = b else { return Ok(None) };
            let v = l.expr(frame, b);
            match l.const_of(v) {
                Some(Const::Int(k)) => Ok(Some(k)),
                Some(Const::Bool(k)) => Ok(Some(i128::from(k))),
                _ => {
                    if !l.poisoned.contains(&v) {
                        l.container_error_at(frame, "a slice's bounds and step must be constant ints: its length must be known when compiling (D18)", &**b);
                    }
                    Err(())
                }
            }
        };
        let lower = bound(self, &s.lower)?;
        let upper = bound(self, &s.upper)?;
        let step = bound(self, &s.step)?.unwrap_or(1);
        if step == 0 {
            self.container_error_at(
                frame,
                "slice step cannot be zero (CPython raises ValueError)",
                e,
            );
            return Err(());
        }
        let picked: Vec<Value> = slice_positions(items.len() as i128, lower, upper, step)
            .into_iter()
            .map(|k| items[k])
            .collect();
        let (start, end) = crate::frontend::extract::span(e);
        Ok(self.new_container(kind, picked, (frame.source, start, end)))
    }

    /// `name[k] = v` (and `name[k] op= v`, with `v` the new value) for a list or dict the
    /// function made.
    pub(in crate::lower) fn store_item(
        &mut self,
        frame: &mut Frame,
        target: &ast::ExprSubscript,
        v: Value,
        key: Option<Value>,
    ) {
        let ast::Expr::Name(n) = target.value.as_ref() else {
            self.container_error_at(
                frame,
                "only an item of a list or dict held by a name can be assigned (`a[k] = v`, D18)",
                target,
            );
            return;
        };
        let base = self.read_name(frame, n.id.as_str(), &target.value);
        let i = key.unwrap_or_else(|| self.expr(frame, &target.slice));
        if self.poisoned.contains(&base) || self.poisoned.contains(&i) || self.poisoned.contains(&v)
        {
            return;
        }
        if self.container(base).is_none() {
            self.container_error_at(frame, "assignment to an item changes an object: only a list or dict the function made can be changed (D18); assign to a plain name", target);
            return;
        }
        self.escape(v);
        let slice = target.slice.as_ref();
        let _ = self.change_container(frame, base, target, |l, frame, t| match &mut t.container {
            Container::Dict(_, keys) => {
                let Some(key) = l.known_key(slice, i) else {
                    l.container_error_at(frame, "a dict entry assigned with a key that differs per element would give the dict a different size on different elements (D18); use a constant key", target);
                    return Err(());
                };
                let mut entries: Vec<(Key, Value)> = keys.drain(..).zip(t.items.drain(..)).collect();
                insert_entry(&mut entries, key, v);
                (*keys, t.items) = entries.into_iter().unzip();
                Ok(())
            }
            _ => l.store_position(frame, &mut t.items, i, v, target),
        });
    }

    /// `items[i] = v` of a list: the item for a constant `i`, a select per position else.
    fn store_position(
        &mut self,
        frame: &mut Frame,
        items: &mut [Value],
        i: Value,
        v: Value,
        target: &ast::ExprSubscript,
    ) -> R<()> {
        let n = items.len() as i128;
        let e = &*target.slice;
        if let Some(k) = self.const_index(frame, i, "list", e)? {
            let k = if k < 0 { k + n } else { k };
            if !(0..n).contains(&k) {
                self.container_error_at(frame, &format!("list assignment index out of range: the list has {n} items (CPython raises IndexError here)"), target);
                return Err(());
            }
            items[k as usize] = v;
            return Ok(());
        }
        let p = self.checked_position(frame, n, i, "list assignment index out of range", e)?;
        for (k, item) in items.iter_mut().enumerate() {
            let at = self.konst(Const::Int(k as i128));
            let hit = self.emit(Op::Compare(CmpOp::Eq, p, at));
            *item = self.select(hit, v, *item);
        }
        Ok(())
    }

    /// `a op b` when either is a sequence: `+` joins two lists or two tuples, `*` repeats one a
    /// constant number of times (None when neither is a container).
    pub(in crate::lower) fn container_binop(
        &mut self,
        frame: &Frame,
        op: BinOp,
        (a, b): (Value, Value),
        e: &ast::Expr,
    ) -> Option<R<Value>> {
        // A value that may be None (D20) is not a container: `binary_at` checks it.
        let real = |t: TupleValue| (t.container != Container::MaybeNone).then_some(t);
        let (ca, cb) = (
            self.container(a).and_then(real),
            self.container(b).and_then(real),
        );
        if ca.is_none() && cb.is_none() {
            return None;
        }
        let (start, end) = crate::frontend::extract::span(e);
        let site = (frame.source, start, end);
        let seq = |c: &Option<TupleValue>| {
            c.as_ref()
                .filter(|c| matches!(c.container, Container::Tuple | Container::List(_)))
                .cloned()
        };
        let times = |l: &Self, v: Value| match l.const_of(v) {
            Some(Const::Int(k)) => Some(k.max(0) as usize),
            Some(Const::Bool(k)) => Some(usize::from(k)),
            _ => None,
        };
        let made = match (op, seq(&ca), seq(&cb)) {
            (BinOp::Add, Some(x), Some(y))
                if std::mem::discriminant(&x.container) == std::mem::discriminant(&y.container) =>
            {
                let items = x.items.iter().chain(&y.items).copied().collect();
                Some((x.container, items))
            }
            (BinOp::Mul, Some(x), None) | (BinOp::Mul, None, Some(x)) => {
                let k = times(self, if ca.is_some() { b } else { a });
                k.filter(|k| k * x.items.len() <= MAX_ITEMS).map(|k| {
                    let items = std::iter::repeat_n(x.items.clone(), k).flatten().collect();
                    (x.container, items)
                })
            }
            _ => None,
        };
        Some(match made {
            Some((kind, items)) => {
                let items: Vec<Value> = items;
                items.iter().for_each(|&i| self.escape(i));
                Ok(self.new_container(kind, items, site))
            }
            None => {
                self.container_error_at(frame, "a list or tuple supports `+` with another of its kind and `*` by a constant int (at most 4096 items); anything else on it is not supported (D18)", e);
                Err(())
            }
        })
    }

    /// `a += seq` and `a *= k` on a list: the same list, changed in place (None when `cur` is
    /// not a list).
    pub(in crate::lower) fn extend_in_place(
        &mut self,
        frame: &mut Frame,
        op: BinOp,
        cur: Value,
        rhs: Value,
        e: &ast::Expr,
    ) -> Option<R<Value>> {
        let c = self.container(cur)?;
        if !matches!(c.container, Container::List(_)) || !matches!(op, BinOp::Add | BinOp::Mul) {
            return None;
        }
        let added: Vec<Value> = if op == BinOp::Add {
            match (self.container(rhs), self.const_of(rhs)) {
                (Some(t), _) if !matches!(t.container, Container::Dict(..)) => t.items,
                (_, Some(Const::Tuple(items) | Const::List(items))) => {
                    items.into_iter().map(|i| self.konst(i)).collect()
                }
                _ => {
                    self.container_error_at(
                        frame,
                        "`+=` on a list takes a list, tuple or table (D18)",
                        e,
                    );
                    return Some(Err(()));
                }
            }
        } else {
            let k = match self.const_of(rhs) {
                Some(Const::Int(k)) => k.max(0) as usize,
                Some(Const::Bool(k)) => usize::from(k),
                _ => {
                    self.container_error_at(frame, "`*=` on a list takes a constant int (D18)", e);
                    return Some(Err(()));
                }
            };
            let items = c.items.clone();
            std::iter::repeat_n(items, k.saturating_sub(1))
                .flatten()
                .collect()
        };
        if op == BinOp::Mul
            && self
                .const_of(rhs)
                .is_some_and(|k| matches!(k, Const::Int(k) if k <= 0) || k == Const::Bool(false))
        {
            return Some(self.change_container(frame, cur, e, |_, _, t| {
                t.items.clear();
                Ok(())
            }));
        }
        added.iter().for_each(|&a| self.escape(a));
        Some(self.change_container(frame, cur, e, |_, _, t| {
            t.items.extend(added);
            if t.items.len() > MAX_ITEMS {
                return Err(());
            }
            Ok(())
        }))
    }

    /// Python's truth value of a container: whether it has items, known when compiling.
    pub(in crate::lower) fn container_truth(&mut self, v: Value) -> Option<Value> {
        let n = self.sized(v)?;
        Some(self.konst(Const::Bool(n > 0)))
    }

    /// `len(c)` of a container.
    pub(in crate::lower) fn container_len(&mut self, v: Value) -> Option<Value> {
        let n = self.sized(v)?;
        Some(self.konst(Const::Int(n as i128)))
    }

    /// How many items the container `v` holds (None when `v` is none, or may be None: D20).
    fn sized(&self, v: Value) -> Option<usize> {
        let t = self.values.function.tuples.get(&v)?;
        (t.container != Container::MaybeNone).then_some(t.items.len())
    }

    /// The container a name holds, when it holds one, for a method call on it.
    pub(in crate::lower) fn named_container(&self, frame: &Frame, e: &ast::Expr) -> Option<Value> {
        let ast::Expr::Name(n) = e else { return None };
        match frame.vars.get(n.id.as_str()) {
            Some(Var::Def(v)) if self.values.function.tuples.contains_key(v) => Some(*v),
            _ => None,
        }
    }

    /// Whether `v` is a list or dict (a value an array cannot hold as an element).
    pub(in crate::lower) fn is_mutable_container(&self, v: Value) -> bool {
        matches!(
            self.values.function.tuples.get(&v).map(|t| &t.container),
            Some(Container::List(_) | Container::Dict(..) | Container::View)
        )
    }
}

/// The positions `[lower:upper:step]` selects from a sequence of `n` items (CPython's
/// `slice.indices`).
fn slice_positions(n: i128, lower: Option<i128>, upper: Option<i128>, step: i128) -> Vec<usize> {
    let clamp = |b: Option<i128>, default: i128, lo: i128, hi: i128| match b {
        None => default,
        Some(b) if b < 0 => (b + n).max(lo),
        Some(b) => b.min(hi),
    };
    let (start, stop) = if step > 0 {
        (clamp(lower, 0, 0, n), clamp(upper, n, 0, n))
    } else {
        (clamp(lower, n - 1, -1, n - 1), clamp(upper, -1, -1, n - 1))
    };
    let mut out = vec![];
    let mut k = start;
    while (step > 0 && k < stop) || (step < 0 && k > stop) {
        out.push(k as usize);
        k += step;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::slice_positions;

    #[test]
    fn slices_select_what_cpython_selects() {
        assert_eq!(slice_positions(5, Some(1), None, 1), vec![1, 2, 3, 4]);
        assert_eq!(slice_positions(5, None, Some(-1), 1), vec![0, 1, 2, 3]);
        assert_eq!(slice_positions(5, None, None, -1), vec![4, 3, 2, 1, 0]);
        assert_eq!(slice_positions(5, Some(-2), Some(-10), -2), vec![3, 1]);
        assert_eq!(slice_positions(5, Some(7), None, 1), Vec::<usize>::new());
        assert_eq!(slice_positions(5, None, None, 2), vec![0, 2, 4]);
    }
}
