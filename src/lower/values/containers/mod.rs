//! Local containers (D18): a list, tuple or dict the function builds from numbers is a
//! sequence of per-lane values whose length is known when compiling.
//!
//! A container exists only while lowering, as a handle whose items are ordinary values (the
//! handle of D13's several results, `handles::TupleValue`, with what it is in [`Container`]).
//! Nothing of it reaches the generated code but its items:
//!
//! ```python
//! n = [0.5, -1.2, x]                 items: const 0.5, const -1.2, %x
//! n.append(x * x)                    items: ..., %mul
//! s = n[0] + n[-1]                   add const 0.5, %mul
//! ```
//!
//! Where every item is a constant, the container is a constant table (D15, `tables.rs`): a
//! per-lane index gathers, `bisect` searches it. A loop over a container, or building one, is
//! unrolled (`loops/unrolled.rs`), so every index into it is a constant. Lists and dicts are
//! mutable objects: each has an identity, and a change through one name changes every variable
//! holding it (`b = a; b.append(1)` changes `a` too, as in CPython). A change is exact or
//! rejected (D10): a list changed by a helper it was passed to, or after it was stored in
//! another container, or inside a loop that is not unrolled, is refused; so is a length that
//! differs between elements (an `append` under a per-element `if`), at the change that makes it.

pub(in crate::lower) mod calls;
pub(in crate::lower) mod ops;

use std::collections::BTreeSet;

use rustpython_parser::ast;

use crate::diagnostics::DiagnosticKind;
use crate::ir::eval::dict_of;
use crate::ir::{Const, Value};
use crate::lower::values::handles::{insert_entry, Container, Key, Site, TupleValue, MAX_ITEMS};
use crate::lower::{Frame, Lowerer, Var, R};

/// The lists and dicts made so far.
#[derive(Debug, Default)]
pub(in crate::lower) struct Containers {
    /// Where each list or dict was made, by identity: the depth of helper calls and of loops
    /// lowered as loops around it. Only code at that place changes it.
    pub(in crate::lower::values) owners: Vec<(usize, usize)>,
    /// Lists and dicts stored inside another container: never changed again (the container
    /// holding one would have to change with it).
    pub(in crate::lower::values) escaped: BTreeSet<usize>,
}

impl Lowerer<'_> {
    /// The container `v` is, if it is one.
    pub(in crate::lower) fn container(&self, v: Value) -> Option<TupleValue> {
        self.values.function.tuples.get(&v).cloned()
    }

    /// A new container of `kind` (a list or dict gets a fresh identity, owned here).
    pub(in crate::lower) fn new_container(
        &mut self,
        kind: Container,
        items: Vec<Value>,
        site: Site,
    ) -> Value {
        let fresh = |l: &mut Self| {
            let at = (l.calls.depth(), l.loops.depth());
            l.values.containers.owners.push(at);
            Some(l.values.containers.owners.len() - 1)
        };
        let container = match kind {
            Container::List(_) => Container::List(fresh(self)),
            Container::Dict(_, keys) => Container::Dict(fresh(self), keys),
            other => other,
        };
        self.make_handle(TupleValue {
            items,
            site,
            container,
            local: true,
        })
    }

    /// `v` as a constant table when it is a container of constants (D15), else `v`.
    pub(in crate::lower) fn table_value(&mut self, v: Value) -> Value {
        match self.constant_container(v) {
            Some(c) => self.konst(c),
            None => v,
        }
    }

    /// The constant a container of constants is (a dict with number keys only).
    pub(in crate::lower) fn constant_container(&self, v: Value) -> Option<Const> {
        let t = self.values.function.tuples.get(&v)?;
        let items = t
            .items
            .iter()
            .map(|&i| self.const_of(i))
            .collect::<Option<Vec<Const>>>()?;
        match &t.container {
            Container::Tuple => Some(Const::Tuple(items)),
            Container::List(_) => Some(Const::List(items)),
            Container::Dict(_, keys) => {
                let keys = keys
                    .iter()
                    .map(|k| match k {
                        Key::Num(c) => Some(c.clone()),
                        Key::Str(_) => None,
                    })
                    .collect::<Option<Vec<Const>>>()?;
                dict_of(keys.into_iter().zip(items).collect())
            }
            Container::View | Container::MaybeNone => None,
        }
    }

    /// A display or comprehension that makes a container: `(a, b)`, `[a, *b]`, `{k: v}`,
    /// `[f(k) for k in ...]`, `{k: f(k) for k in ...}`.
    pub(in crate::lower) fn display(&mut self, frame: &mut Frame, e: &ast::Expr) -> R<Value> {
        use ast::Expr as E;
        let (start, end) = crate::frontend::extract::span(e);
        let site = (frame.source, start, end);
        match e {
            E::Tuple(t) => {
                let items = self.display_items(frame, &t.elts)?;
                Ok(self.new_container(Container::Tuple, items, site))
            }
            E::List(l) => {
                let items = self.display_items(frame, &l.elts)?;
                Ok(self.new_container(Container::List(None), items, site))
            }
            E::ListComp(l) => {
                let items = self.comprehension_items(frame, &l.generators, &l.elt, e)?;
                Ok(self.new_container(Container::List(None), items, site))
            }
            E::Dict(d) => {
                let mut entries = vec![];
                for (k, v) in d.keys.iter().zip(&d.values) {
                    let Some(k) = k else {
                        let v = self.expr(frame, v);
                        self.splice_dict(frame, v, &mut entries, e)?;
                        continue;
                    };
                    let key = self.key_of(frame, k)?;
                    let v = self.item_value(frame, v)?;
                    insert_entry(&mut entries, key, v);
                }
                Ok(self.dict_container(entries, site))
            }
            E::DictComp(d) => self.dict_comprehension(frame, d, e),
            _ => Err(()),
        }
    }

    /// A dict made of `entries` (key, value), in insertion order.
    pub(in crate::lower) fn dict_container(
        &mut self,
        entries: Vec<(Key, Value)>,
        site: Site,
    ) -> Value {
        let (keys, items) = entries.into_iter().unzip();
        self.new_container(Container::Dict(None, keys), items, site)
    }

    /// `{**other}` in a dict display: the entries of another dict.
    fn splice_dict(
        &mut self,
        frame: &Frame,
        v: Value,
        entries: &mut Vec<(Key, Value)>,
        e: &ast::Expr,
    ) -> R<()> {
        match self.container(v) {
            Some(TupleValue {
                container: Container::Dict(_, keys),
                items,
                ..
            }) => {
                for (k, v) in keys.into_iter().zip(items) {
                    insert_entry(entries, k, v);
                }
                Ok(())
            }
            _ => {
                if !self.poisoned.contains(&v) {
                    self.container_error_at(
                        frame,
                        "`**` in a dict display takes a dict the function made (D18)",
                        e,
                    );
                }
                Err(())
            }
        }
    }

    /// `{key(k): value(k) for k in ...}`: every key a constant once unrolled.
    fn dict_comprehension(
        &mut self,
        frame: &mut Frame,
        d: &ast::ExprDictComp,
        e: &ast::Expr,
    ) -> R<Value> {
        let pair = ast::Expr::Tuple(ast::ExprTuple {
            elts: vec![(*d.key).clone(), (*d.value).clone()],
            ctx: ast::ExprContext::Load,
            range: d.range,
        });
        let pairs = self.comprehension_items(frame, &d.generators, &pair, e)?;
        let mut entries = vec![];
        for p in pairs {
            let Some(TupleValue { items, .. }) = self.container(p) else {
                return Err(());
            };
            let key = self.number_key(frame, items[0], &d.key)?;
            insert_entry(&mut entries, key, items[1]);
        }
        let (start, end) = crate::frontend::extract::span(e);
        Ok(self.dict_container(entries, (frame.source, start, end)))
    }

    /// The items of a display: each lowered, a `*c` spliced in.
    fn display_items(&mut self, frame: &mut Frame, elts: &[ast::Expr]) -> R<Vec<Value>> {
        let mut items = vec![];
        for elt in elts {
            if let ast::Expr::Starred(s) = elt {
                items.extend(self.sequence_values(frame, &s.value)?);
            } else {
                items.push(self.item_value(frame, elt)?);
            }
        }
        if items.len() > MAX_ITEMS {
            self.container_error_at(frame, &format!("a container of more than {MAX_ITEMS} items is not supported; bind a table of constants at module level"), &elts[0]);
            return Err(());
        }
        Ok(items)
    }

    /// An item stored in a container: a list or dict stored there is never changed again.
    fn item_value(&mut self, frame: &mut Frame, e: &ast::Expr) -> R<Value> {
        let v = self.expr(frame, e);
        if self.poisoned.contains(&v) {
            return Err(());
        }
        self.escape(v);
        Ok(v)
    }

    /// Marks the lists and dicts `v` holds (or is) as stored elsewhere.
    pub(in crate::lower) fn escape(&mut self, v: Value) {
        let Some(t) = self.container(v) else { return };
        if let Container::List(Some(id)) | Container::Dict(Some(id), _) = t.container {
            self.values.containers.escaped.insert(id);
        }
        for item in t.items {
            self.escape(item);
        }
    }

    /// The items of an expression that is a sequence (a container, a constant table, a
    /// `range` with constant bounds, `zip`/`enumerate` of those), for `*c`, `list(c)`,
    /// `c.extend(...)`.
    pub(in crate::lower) fn sequence_values(
        &mut self,
        frame: &mut Frame,
        e: &ast::Expr,
    ) -> R<Vec<Value>> {
        let elems = self.iterable(frame, e)?;
        let (start, end) = crate::frontend::extract::span(e);
        Ok(elems
            .into_iter()
            .map(|el| self.elem_value(el, (frame.source, start, end)))
            .collect())
    }

    /// A dict key written in a display or a subscript: a string literal, or a number known when
    /// compiling.
    pub(in crate::lower) fn key_of(&mut self, frame: &mut Frame, k: &ast::Expr) -> R<Key> {
        if let ast::Expr::Constant(ast::ExprConstant {
            value: ast::Constant::Str(s),
            ..
        }) = k
        {
            return Ok(Key::Str(s.clone()));
        }
        let v = self.expr(frame, k);
        self.number_key(frame, v, k)
    }

    /// `v` as a dict key: a number known when compiling.
    fn number_key(&mut self, frame: &Frame, v: Value, k: &ast::Expr) -> R<Key> {
        match self.const_of(v) {
            Some(c @ (Const::Bool(_) | Const::Int(_) | Const::Float(_))) => Ok(Key::Num(c)),
            _ => {
                if !self.poisoned.contains(&v) {
                    self.container_error_at(
                        frame,
                        "the keys of a dict the function makes must be constants (numbers or strings): a key that differs per element would give the dict a different size on different elements (D18)",
                        k,
                    );
                }
                Err(())
            }
        }
    }

    /// Replaces the container `old` by `new` wherever the frame holds it: a list or dict is one
    /// object, so every variable bound to it sees the change (D18). Err after reporting a change
    /// that cannot be made exactly.
    pub(in crate::lower) fn change_container<T: rustpython_parser::ast::Ranged>(
        &mut self,
        frame: &mut Frame,
        old: Value,
        at: &T,
        change: impl FnOnce(&mut Self, &mut Frame, &mut TupleValue) -> R<()>,
    ) -> R<Value> {
        let Some(mut t) = self.container(old) else {
            return Err(());
        };
        let id = match t.container {
            Container::List(id) | Container::Dict(id, _) => id,
            Container::Tuple | Container::View | Container::MaybeNone => {
                self.container_error_at(
                    frame,
                    "only a list or dict can be changed (a tuple cannot: CPython raises TypeError); make a list",
                    at,
                );
                return Err(());
            }
        };
        let why = match id {
            None => Some("this variable holds different lists or dicts on different elements (it was assigned under a per-element `if`), so a change to it cannot be made per element (D18); change each one before the `if`"),
            Some(id) if self.values.containers.escaped.contains(&id) => Some("this list or dict is stored inside another container, which would change with it (D18); change it before storing it, or store a copy (`list(a)`)"),
            Some(id) => match self.values.containers.owners.get(id) {
                Some(&(depth, _)) if depth != self.calls.depth() => Some("a helper cannot change a list or dict it was passed, or that its caller made (D18); return a new one instead"),
                Some(&(_, loops)) if loops != self.loops.depth() => Some("a list or dict made outside a loop whose trip count is only known per element (`while`, a `range` with per-element bounds, a loop that breaks) cannot be changed inside it: its length would depend on the elements (D18); change it in a `for` loop over a constant range or table"),
                _ => None,
            },
        };
        if let Some(why) = why {
            self.container_error_at(frame, why, at);
            return Err(());
        }
        change(self, frame, &mut t)?;
        let (start, end) = crate::frontend::extract::span(at);
        t.site = (frame.source, start, end);
        let new = self.make_handle(t);
        let names: Vec<String> = frame
            .vars
            .iter()
            .filter(|(_, var)| matches!(var, Var::Def(v) if self.same_object(*v, id)))
            .map(|(n, _)| n.clone())
            .collect();
        for n in names {
            frame.vars.insert(n, Var::Def(new));
        }
        Ok(new)
    }

    /// Whether `v` is the list or dict of identity `id`.
    fn same_object(&self, v: Value, id: Option<usize>) -> bool {
        match self.values.function.tuples.get(&v).map(|t| &t.container) {
            Some(Container::List(i) | Container::Dict(i, _)) => id.is_some() && *i == id,
            _ => false,
        }
    }

    /// `where(c, a, b)` (or a scalar `if`'s merge) of two containers, item by item. Lengths
    /// that differ are a length that depends on the elements (D18), reported where the longer
    /// changed last.
    pub(in crate::lower) fn merge_containers(
        &mut self,
        x: TupleValue,
        y: TupleValue,
        mut merge: impl FnMut(&mut Self, Value, Value) -> Value,
    ) -> Value {
        let same_kind = match (&x.container, &y.container) {
            (Container::Dict(_, a), Container::Dict(_, b)) => {
                a.len() == b.len() && a.iter().zip(b).all(|(p, q)| p.same(q))
            }
            (a, b) => std::mem::discriminant(a) == std::mem::discriminant(b),
        };
        if !same_kind || x.items.len() != y.items.len() {
            let at = if x.items.len() >= y.items.len() {
                x.site
            } else {
                y.site
            };
            let why = if same_kind {
                "this container has a different length on different elements (a change under a per-element `if`, or a different container on each side): its length must be known when compiling (D18); change it on every path, or assign a value at a fixed index".to_string()
            } else {
                "a variable holds different kinds of containers (or different dict keys) on different elements: give it one type on every path (D18)".to_string()
            };
            self.container_error(at, why);
            return self.poison();
        }
        let items = x
            .items
            .iter()
            .zip(&y.items)
            .map(|(&p, &q)| if p == q { p } else { merge(self, p, q) })
            .collect();
        let container = match (x.container, y.container) {
            (Container::List(a), Container::List(b)) => Container::List(a.filter(|_| a == b)),
            (Container::Dict(a, keys), Container::Dict(b, _)) => {
                Container::Dict(a.filter(|_| a == b), keys)
            }
            (c, _) => c,
        };
        self.make_handle(TupleValue {
            items,
            site: x.site,
            container,
            local: true,
        })
    }

    /// Reports a container that cannot be compiled (D18) at `site`.
    pub(in crate::lower) fn container_error(&mut self, (src, start, end): Site, why: String) {
        self.error(DiagnosticKind::UnsupportedExpression, why, src, start, end);
    }

    /// Reports a container that cannot be compiled (D18) at `node`.
    pub(in crate::lower) fn container_error_at<T: rustpython_parser::ast::Ranged>(
        &mut self,
        frame: &Frame,
        why: &str,
        node: &T,
    ) {
        self.error_at(
            frame,
            DiagnosticKind::UnsupportedExpression,
            why.into(),
            node,
        );
    }
}
