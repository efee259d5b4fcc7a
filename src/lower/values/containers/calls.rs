//! Calls that make or change local containers (D18): `list()`, `tuple()`, `dict()`, `zip()` and
//! `enumerate()` as values, comprehensions that are not reduced, and the methods of lists
//! (`append`, `extend`, `insert`, `pop`, `copy`, `index`, `count`, `reverse`, `clear`) and dicts
//! (`get`, `keys`, `values`, `items`, `copy`, `pop`).
//!
//! ```python
//! terms = []                                  terms: []
//! for k in range(3):                          (the loop is unrolled: its trip count is known)
//!     terms.append(c[k] * x**k)         ->    terms: [c0 * x**0, c1 * x**1, c2 * x**2]
//! return sum(terms)                           add(add(add(0, t0), t1), t2)
//! ```
//!
//! A change whose effect would differ between elements (a length that depends on the data) is
//! rejected where it is made (`containers.rs`).

use rustpython_parser::ast;

use crate::diagnostics::DiagnosticKind;
use crate::ir::{CmpOp, Const, Op, Value};
use crate::lower::values::handles::{insert_entry, Container, Key, Site, TupleValue, MAX_ITEMS};
use crate::lower::values::reduce::Elem;
use crate::lower::{Frame, Lowerer, R};

impl Lowerer<'_> {
    /// `list(...)`, `tuple(...)`, `dict(...)`, and `zip(...)`/`enumerate(...)` used as values.
    pub(in crate::lower) fn container_builtin(
        &mut self,
        frame: &mut Frame,
        c: &ast::ExprCall,
        name: &str,
    ) -> R<Value> {
        let (start, end) = crate::frontend::extract::span(c);
        let site = (frame.source, start, end);
        if name == "dict" {
            return self.dict_call(frame, c, site);
        }
        if name == "reversed" && (!c.keywords.is_empty() || c.args.len() != 1) {
            self.error_at(
                frame,
                DiagnosticKind::BadArguments,
                "reversed() takes one sequence and no keywords".into(),
                c,
            );
            return Err(());
        }
        if matches!(name, "list" | "tuple") && (!c.keywords.is_empty() || c.args.len() > 1) {
            self.error_at(
                frame,
                DiagnosticKind::BadArguments,
                format!("{name}() takes one iterable and no keywords"),
                c,
            );
            return Err(());
        }
        let call = ast::Expr::Call(c.clone());
        let items = match (name, c.args.first()) {
            ("list" | "tuple", None) => vec![],
            ("list" | "tuple", Some(arg)) => self.sequence_values(frame, arg)?,
            // `reversed(TABLE)`: the items last first, an iterator (a view, D18).
            ("reversed", Some(arg)) => {
                let mut items = self.sequence_values(frame, arg)?;
                items.reverse();
                items
            }
            _ => self.sequence_values(frame, &call)?,
        };
        items.iter().for_each(|&i| self.escape(i));
        let kind = match name {
            "list" => Container::List(None),
            "tuple" => Container::Tuple,
            _ => Container::View,
        };
        Ok(self.new_container(kind, items, site))
    }

    /// `dict()`, `dict(a=1.0, b=x)`, `dict(other)`, `dict(zip(KEYS, values))`.
    fn dict_call(&mut self, frame: &mut Frame, c: &ast::ExprCall, site: Site) -> R<Value> {
        let mut entries = vec![];
        if let Some(arg) = c.args.first() {
            let v = self.expr(frame, arg);
            match self.container(v) {
                Some(TupleValue {
                    container: Container::Dict(_, keys),
                    items,
                    ..
                }) => {
                    entries.extend(keys.into_iter().zip(items));
                }
                _ => {
                    let pairs = self.sequence_values(frame, arg)?;
                    for p in pairs {
                        match self.container(p).map(|t| t.items) {
                            Some(kv) if kv.len() == 2 => {
                                let key = self.pair_key(frame, kv[0], arg)?;
                                insert_entry(&mut entries, key, kv[1]);
                            }
                            _ => {
                                self.container_error_at(frame, "dict() takes a dict, or pairs (key, value) whose keys are constants (D18)", arg);
                                return Err(());
                            }
                        }
                    }
                }
            }
        }
        if c.args.len() > 1 {
            self.error_at(
                frame,
                DiagnosticKind::BadArguments,
                "dict() takes at most one positional argument".into(),
                c,
            );
            return Err(());
        }
        for k in &c.keywords {
            let Some(name) = &k.arg else {
                self.error_at(
                    frame,
                    DiagnosticKind::BadArguments,
                    "`**` in dict() is not supported".into(),
                    k,
                );
                return Err(());
            };
            let v = self.expr(frame, &k.value);
            self.escape(v);
            insert_entry(&mut entries, Key::Str(name.to_string()), v);
        }
        Ok(self.dict_container(entries, site))
    }

    /// The key of a (key, value) pair: a constant number.
    fn pair_key(&mut self, frame: &Frame, k: Value, at: &ast::Expr) -> R<Key> {
        match self.const_of(k) {
            Some(c @ (Const::Bool(_) | Const::Int(_) | Const::Float(_))) => Ok(Key::Num(c)),
            _ => {
                self.container_error_at(frame, "the keys of a dict the function makes must be constants (numbers or strings): a key that differs per element would give the dict a different size on different elements (D18)", at);
                Err(())
            }
        }
    }

    /// The items a comprehension makes as a list (or the pairs of a dict comprehension): a
    /// filter that depends on the elements would give lists of different lengths (D18).
    pub(in crate::lower) fn comprehension_items(
        &mut self,
        frame: &mut Frame,
        gens: &[ast::Comprehension],
        elt: &ast::Expr,
        e: &ast::Expr,
    ) -> R<Vec<Value>> {
        let items = self.unroll(frame, gens, elt, e)?;
        if items.iter().any(|(_, keep)| keep.is_some()) {
            self.container_error_at(frame, "a comprehension whose `if` depends on the elements makes lists of different lengths on different elements (D18); reduce it directly (`sum(... if ...)`), or keep every item and test it where it is used", e);
            return Err(());
        }
        if items.len() > MAX_ITEMS {
            return Err(());
        }
        let items: Vec<Value> = items.into_iter().map(|(v, _)| v).collect();
        items.iter().for_each(|&i| self.escape(i));
        Ok(items)
    }

    /// A value for an iterated item: a tuple of several values (`zip`, `enumerate`) is a tuple.
    pub(in crate::lower) fn elem_value(&mut self, el: Elem, site: Site) -> Value {
        match el {
            Elem::One(v) => v,
            Elem::Tuple(parts) => {
                let items = parts
                    .into_iter()
                    .map(|p| self.elem_value(p, site))
                    .collect();
                self.new_container(Container::Tuple, items, site)
            }
        }
    }

    /// The items a loop or comprehension over the container `v` runs over (a dict: its keys).
    pub(in crate::lower) fn container_elems(
        &mut self,
        frame: &Frame,
        v: Value,
        at: &ast::Expr,
    ) -> Option<R<Vec<Elem>>> {
        let t = self.container(v)?;
        if t.container == Container::MaybeNone {
            self.container_error_at(frame, "this value is None on some elements (D20), which cannot be iterated over (CPython raises TypeError)", at);
            return Some(Err(()));
        }
        let Container::Dict(_, keys) = &t.container else {
            return Some(Ok(t.items.into_iter().map(Elem::One).collect()));
        };
        let mut out = vec![];
        for k in keys {
            match k {
                Key::Num(c) => out.push(Elem::One(self.konst(c.clone()))),
                Key::Str(_) => {
                    self.container_error_at(frame, "iterating over a dict with string keys is not supported (D18): its keys are not numbers; iterate over its values()", at);
                    return Some(Err(()));
                }
            }
        }
        Some(Ok(out))
    }

    /// A method of a list or dict held by a name (None when `a.value` holds none).
    pub(in crate::lower) fn container_method(
        &mut self,
        frame: &mut Frame,
        a: &ast::ExprAttribute,
        c: &ast::ExprCall,
    ) -> Option<R<Value>> {
        let v = self.named_container(frame, &a.value)?;
        let t = self.container(v)?;
        // A method called as a statement changes its list; the call is not a side effect lost.
        self.calls
            .claim_statement_call(std::ptr::from_ref(c) as usize);
        let method = a.attr.as_str();
        Some(match (&t.container, method) {
            (Container::List(_), "append" | "extend" | "insert" | "reverse" | "clear") => self
                .list_change(frame, v, method, c)
                .map(|()| self.none_value()),
            (Container::List(_), "pop") | (Container::Dict(..), "pop") => self.pop(frame, v, c),
            (Container::List(_) | Container::Dict(..), "copy") => {
                let (start, end) = crate::frontend::extract::span(c);
                t.items.iter().for_each(|&i| self.escape(i));
                Ok(self.new_container(
                    t.container.clone(),
                    t.items.clone(),
                    (frame.source, start, end),
                ))
            }
            (Container::List(_) | Container::Tuple, "count" | "index") => {
                self.search(frame, &t, method, c)
            }
            (Container::Dict(_, keys), "keys" | "values" | "items") => {
                let keys = keys.clone();
                self.dict_view(frame, &t, &keys, method, c)
            }
            (Container::Dict(_, keys), "get") => {
                let keys = keys.clone();
                self.container_get(frame, &keys, &t.items, c)
            }
            _ => {
                self.error_at(frame, DiagnosticKind::UnknownCall, format!("`.{method}()` is not supported on this container (D18: lists support append, extend, insert, pop, copy, count, index, reverse, clear; dicts get, keys, values, items, copy, pop)"), c);
                Err(())
            }
        })
    }

    /// The value of a method that returns None (`a.append(x)`): only a statement may call it.
    fn none_value(&mut self) -> Value {
        self.konst(Const::Float(0.0))
    }

    /// `a.append(v)`, `a.extend(seq)`, `a.insert(i, v)`, `a.reverse()`, `a.clear()`.
    fn list_change(
        &mut self,
        frame: &mut Frame,
        v: Value,
        method: &str,
        c: &ast::ExprCall,
    ) -> R<()> {
        let (min, max) = match method {
            "append" | "extend" => (1, 1),
            "insert" => (2, 2),
            _ => (0, 0),
        };
        if !c.keywords.is_empty() || c.args.len() < min || c.args.len() > max {
            self.error_at(
                frame,
                DiagnosticKind::BadArguments,
                format!(
                    "list.{method}() takes {min} argument{} here",
                    if min == 1 { "" } else { "s" }
                ),
                c,
            );
            return Err(());
        }
        let added = match method {
            "append" => vec![self.expr(frame, &c.args[0])],
            "extend" => self.sequence_values(frame, &c.args[0])?,
            "insert" => vec![self.expr(frame, &c.args[1])],
            _ => vec![],
        };
        let at = match method {
            "insert" => {
                let i = self.expr(frame, &c.args[0]);
                match self.const_of(i) {
                    Some(Const::Int(k)) => Some(k),
                    Some(Const::Bool(k)) => Some(i128::from(k)),
                    _ => {
                        if !self.poisoned.contains(&i) {
                            self.container_error_at(frame, "list.insert() needs a constant position: the list's layout must be known when compiling (D18)", &c.args[0]);
                        }
                        return Err(());
                    }
                }
            }
            _ => None,
        };
        if added.iter().any(|a| self.poisoned.contains(a)) {
            return Err(());
        }
        added.iter().for_each(|&a| self.escape(a));
        self.change_container(frame, v, c, |_, _, t| {
            match method {
                "append" | "extend" => t.items.extend(added),
                "insert" => {
                    let n = t.items.len() as i128;
                    let k = at.unwrap_or(0);
                    let k = if k < 0 { (k + n).max(0) } else { k.min(n) };
                    t.items.insert(k as usize, added[0]);
                }
                "reverse" => t.items.reverse(),
                _ => t.items.clear(),
            }
            if t.items.len() > MAX_ITEMS {
                return Err(());
            }
            Ok(())
        })
        .map(|_| ())
    }

    /// `a.pop()`, `a.pop(k)` (a constant position), `d.pop(key[, default])` (a constant key).
    fn pop(&mut self, frame: &mut Frame, v: Value, c: &ast::ExprCall) -> R<Value> {
        let args = self.positional(frame, c, "pop()", 0, 2)?;
        let mut taken = None;
        self.change_container(frame, v, c, |l, frame, t| {
            let n = t.items.len() as i128;
            match &mut t.container {
                Container::Dict(_, keys) => {
                    let Some(key) = args.first().and_then(|&k| l.const_key(k)) else {
                        l.container_error_at(frame, "dict.pop() needs a constant key (D18)", c);
                        return Err(());
                    };
                    match keys.iter().position(|k| k.same(&key)) {
                        Some(p) => {
                            keys.remove(p);
                            taken = Some(t.items.remove(p));
                        }
                        None if args.len() == 2 => taken = Some(args[1]),
                        None => {
                            l.container_error_at(frame, &format!("the key {} is not in this dict: CPython raises KeyError here", key.repr()), c);
                            return Err(());
                        }
                    }
                    Ok(())
                }
                _ => {
                    let k = match args.first().map(|&k| l.const_of(k)) {
                        None => Some(n - 1),
                        Some(Some(Const::Int(k))) => Some(if k < 0 { k + n } else { k }),
                        _ => None,
                    };
                    match k {
                        Some(k) if (0..n).contains(&k) && args.len() <= 1 => {
                            taken = Some(t.items.remove(k as usize));
                            Ok(())
                        }
                        _ => {
                            l.container_error_at(frame, "list.pop() takes a constant position inside the list (D18; CPython raises IndexError outside it)", c);
                            Err(())
                        }
                    }
                }
            }
        })?;
        taken.ok_or(())
    }

    /// `x == item` as CPython's containers test it: an item that is `x` itself (the same value
    /// of the function) is found by identity, a NaN too; any other by `==`.
    pub(in crate::lower) fn same_or_equal(&mut self, x: Value, item: Value) -> Value {
        if x == item {
            return self.konst(Const::Bool(true));
        }
        self.emit(Op::Compare(CmpOp::Eq, x, item))
    }

    /// A constant key given as a value.
    fn const_key(&self, k: Value) -> Option<Key> {
        match self.const_of(k)? {
            c @ (Const::Bool(_) | Const::Int(_) | Const::Float(_)) => Some(Key::Num(c)),
            _ => None,
        }
    }

    /// `a.count(v)` (how many items equal `v`, per lane) and `a.index(v)` (the first position
    /// of an item equal to `v`; ValueError on lanes where none is).
    fn search(
        &mut self,
        frame: &mut Frame,
        t: &TupleValue,
        method: &str,
        c: &ast::ExprCall,
    ) -> R<Value> {
        let args = self.positional(frame, c, &format!("{method}()"), 1, 1)?;
        let x = args[0];
        let hits: Vec<Value> = t.items.iter().map(|&i| self.same_or_equal(x, i)).collect();
        if method == "count" {
            let mut acc = self.konst(Const::Int(0));
            for h in hits {
                acc = self.binary(frame, crate::ir::BinOp::Add, acc, h);
            }
            return Ok(acc);
        }
        let mut found = self.konst(Const::Bool(false));
        let mut at = self.konst(Const::Int(0));
        for (k, h) in hits.into_iter().enumerate().rev() {
            let p = self.konst(Const::Int(k as i128));
            at = self.select(h, p, at);
            found = self.bool_op(false, h, found);
        }
        let missing = self.not(found);
        // CPython's messages: `1.5 is not in list`, `tuple.index(x): x not in tuple`.
        let site = if t.container == Container::Tuple {
            (
                "ValueError('tuple.index(x): x not in tuple')".into(),
                vec![],
                vec![],
            )
        } else {
            (
                "ValueError(f'{value!r} is not in list')".into(),
                vec!["value".into()],
                vec![x],
            )
        };
        self.raise_site_where(frame, missing, site, "ValueError", c)?;
        Ok(at)
    }

    /// `d.keys()`, `d.values()`, `d.items()`: views to iterate over.
    fn dict_view(
        &mut self,
        frame: &mut Frame,
        t: &TupleValue,
        keys: &[Key],
        method: &str,
        c: &ast::ExprCall,
    ) -> R<Value> {
        self.positional(frame, c, &format!("dict.{method}()"), 0, 0)?;
        let (start, end) = crate::frontend::extract::span(c);
        let site = (frame.source, start, end);
        let mut items = vec![];
        for (k, &v) in keys.iter().zip(&t.items) {
            let key = match k {
                Key::Num(c) => Some(self.konst(c.clone())),
                Key::Str(_) => None,
            };
            items.push(match (method, key) {
                ("values", _) => v,
                ("keys", Some(key)) => key,
                ("items", Some(key)) => self.new_container(Container::Tuple, vec![key, v], site),
                _ => {
                    self.container_error_at(frame, "the keys of a dict with string keys are not numbers: iterate over its values() (D18)", c);
                    return Err(());
                }
            });
        }
        items.iter().for_each(|&i| self.escape(i));
        Ok(self.new_container(Container::View, items, site))
    }

    /// `d.get(key, default)` of a dict the function made: the value of a constant key, or a
    /// select per entry for a per-lane key (a table's `get`, D15, when every value is constant).
    pub(in crate::lower) fn container_get(
        &mut self,
        frame: &mut Frame,
        keys: &[Key],
        items: &[Value],
        c: &ast::ExprCall,
    ) -> R<Value> {
        let args = self.positional(frame, c, "dict.get()", 1, 2)?;
        let Some(&default) = args.get(1) else {
            self.error_at(frame, DiagnosticKind::UnsupportedExpression, "dict.get(key) without a default gives None for a missing key, which is not a number: pass a default".into(), c);
            return Err(());
        };
        let key = args[0];
        if let Some(k) = self.known_key_of(&c.args[0], key) {
            return Ok(keys
                .iter()
                .position(|q| q.same(&k))
                .map_or(default, |p| items[p]));
        }
        let mut acc = default;
        for (k, &v) in keys.iter().zip(items) {
            let Key::Num(kc) = k else { continue };
            let kv = self.konst(kc.clone());
            let hit = self.emit(Op::Compare(CmpOp::Eq, key, kv));
            acc = self.select(hit, v, acc);
        }
        Ok(acc)
    }

    /// The key `e` (lowered to `v`) names when known when compiling.
    fn known_key_of(&self, e: &ast::Expr, v: Value) -> Option<Key> {
        if let ast::Expr::Constant(ast::ExprConstant {
            value: ast::Constant::Str(s),
            ..
        }) = e
        {
            return Some(Key::Str(s.clone()));
        }
        self.const_key(v)
    }
}
