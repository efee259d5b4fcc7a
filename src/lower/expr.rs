//! Expressions: literals, operators (D2 for `and`/`or`/`not`), comparisons, ternaries (D4),
//! `math` constants, tuple subscripts, and the guards around partial operations (D3 on Python
//! scalars, protect_domains on arrays). Names are in `names`, calls in `calls` and `inline`.

use rustpython_parser::ast;

use crate::analysis::partial::{partial_binary, partial_cast};
use crate::diagnostics::DiagnosticKind;
use crate::ir::eval::truthy;
use crate::ir::MATH_CONSTANTS;
use crate::ir::{BinOp, CastOp, CmpOp, Const, Kind, LogicOp, Op, SafeValue, Shape, UnOp, Value};
use crate::lower::{Frame, Lowerer, MAX_EXPR_DEPTH, R};

impl Lowerer<'_> {
    /// Lowers an expression; a failure is reported and gives a poisoned value.
    pub(in crate::lower) fn expr(&mut self, frame: &mut Frame, e: &ast::Expr) -> Value {
        self.depth += 1;
        let v = if self.depth > MAX_EXPR_DEPTH {
            self.error_at(
                frame,
                DiagnosticKind::TooComplex,
                "expression nested too deeply; split it into several assignments".into(),
                e,
            );
            self.poison()
        } else {
            self.expr_inner(frame, e).unwrap_or_else(|()| self.poison())
        };
        self.depth -= 1;
        v
    }

    /// One expression node.
    fn expr_inner(&mut self, frame: &mut Frame, e: &ast::Expr) -> R<Value> {
        use ast::Expr as E;
        Ok(match e {
            E::Constant(c) => self.literal(frame, &c.value, e)?,
            E::Name(n) => self.read_name(frame, n.id.as_str(), e),
            E::NamedExpr(n) => {
                let v = self.expr(frame, &n.value);
                if let E::Name(t) = n.target.as_ref() {
                    self.assign(frame, t.id.as_str(), v);
                }
                v
            }
            E::BinOp(b) => {
                let l = self.expr(frame, &b.left);
                let r = self.expr(frame, &b.right);
                let Some(op) = binop(&b.op) else {
                    return Err(());
                };
                if let Some(joined) = self.container_binop(frame, op, (l, r), e) {
                    return joined;
                }
                self.binary_at(frame, op, l, r, e)?
            }
            E::UnaryOp(u) => {
                let a = self.expr(frame, &u.operand);
                match u.op {
                    ast::UnaryOp::USub => {
                        let a = self.open_nones(frame, &[a], |t| format!("-{}", t[0]), e)?[0];
                        self.emit(Op::Unary(UnOp::Neg, a))
                    }
                    ast::UnaryOp::UAdd => {
                        let a = self.open_nones(frame, &[a], |t| format!("+{}", t[0]), e)?[0];
                        self.emit(Op::Unary(UnOp::Pos, a))
                    }
                    ast::UnaryOp::Not => self.not(a),
                    ast::UnaryOp::Invert => self.invert(frame, a, e)?,
                }
            }
            E::BoolOp(b) => self.bool_chain(frame, b),
            E::Compare(c) => self.compare(frame, c)?,
            E::IfExp(i) => self.ternary(frame, i),
            E::Call(c) => self.call(frame, c)?,
            E::Attribute(a) => self.math_constant(frame, a, e)?,
            E::Subscript(s) => self.subscript(frame, s, e)?,
            // D18: a container the function makes.
            E::Tuple(_) | E::List(_) | E::Dict(_) | E::ListComp(_) | E::DictComp(_) => {
                self.display(frame, e)?
            }
            E::Set(_) | E::SetComp(_) => {
                self.error_at(
                    frame,
                    DiagnosticKind::UnsupportedExpression,
                    "a set is supported only on the right of `in`; use a tuple or list".into(),
                    e,
                );
                return Err(());
            }
            E::GeneratorExp(_) => {
                self.error_at(
                    frame,
                    DiagnosticKind::UnsupportedExpression,
                    "a generator expression is supported as the argument of sum, min, max, any, all, list() or tuple(); use a list comprehension".into(),
                    e,
                );
                return Err(());
            }
            _ => return Err(()),
        })
    }

    /// A literal: bool, float, or an int that fits the 64-bit range arrays hold.
    fn literal(&mut self, frame: &Frame, c: &ast::Constant, e: &ast::Expr) -> R<Value> {
        Ok(match c {
            ast::Constant::Bool(b) => self.konst(Const::Bool(*b)),
            ast::Constant::Float(f) => self.konst(Const::Float(*f)),
            // D14: a string or None is a uniform value (compared, used as a key).
            ast::Constant::Str(_) | ast::Constant::None => self.object_literal(frame, c, e)?,
            ast::Constant::Int(i) => match i.to_string().parse::<i128>() {
                Ok(n) if n.unsigned_abs() < (1u128 << 64) => self.konst(Const::Int(n)),
                _ => {
                    self.error_at(
                        frame,
                        DiagnosticKind::ValueOutOfRange,
                        "integer literal outside the 64-bit range arrays can hold".into(),
                        e,
                    );
                    return Err(());
                }
            },
            _ => return Err(()),
        })
    }

    /// A comparison chain: `a < b < c` is `a < b and b < c`.
    fn compare(&mut self, frame: &mut Frame, c: &ast::ExprCompare) -> R<Value> {
        if let Some(test) = self.type_compare(frame, c) {
            return test;
        }
        let mut left = self.expr(frame, &c.left);
        let mut acc: Option<Value> = None;
        for (op, right) in c.ops.iter().zip(&c.comparators) {
            // A constant false ends the chain: CPython evaluates nothing after it (what the
            // rest would raise, item 7's int conversion included, is never raised).
            if acc
                .and_then(|prev| self.const_of(prev))
                .is_some_and(|k| !truthy(&k))
            {
                break;
            }
            if let ast::CmpOp::In | ast::CmpOp::NotIn = op {
                // D14: `flag in ("c", "p")` ending a chain, on a uniform value: in Python.
                let last = std::ptr::eq(right, c.comparators.last().unwrap_or(right));
                let (member, r) = match self.object_in_literals(frame, left, right, last) {
                    Some(found) => found,
                    None => self.membership(frame, left, right)?,
                };
                let member = if matches!(op, ast::CmpOp::NotIn) {
                    self.not(member)
                } else {
                    member
                };
                acc = Some(match acc {
                    None => member,
                    Some(prev) => self.emit(Op::Logic(LogicOp::And, prev, member)),
                });
                left = r;
                continue;
            }
            // `a < b < c` evaluates `c` only where `a < b` holds (as `and`).
            let r = match acc.filter(|_| self.may_raise(right)) {
                Some(prev) => self.on_lanes(frame, prev, |l, frame| l.expr(frame, right)),
                None => self.expr(frame, right),
            };
            let cmp = if let Some(cmp) = self.none_compare(frame, op, left, r, c)? {
                cmp
            } else {
                match self.object_compare(frame, op, left, r, c)? {
                    Some(cmp) => cmp,
                    None => {
                        let op = Self::numeric_cmp(op).ok_or(())?;
                        self.emit(Op::Compare(op, left, r))
                    }
                }
            };
            acc = Some(match acc {
                None => cmp,
                Some(prev) => self.emit(Op::Logic(LogicOp::And, prev, cmp)),
            });
            left = r;
        }
        acc.ok_or(())
    }

    /// Whether lowering `e` can record a raise or a call run element by element, which must then
    /// hold on the lanes that evaluate it only: it holds a call or a subscript (a helper, a
    /// table), or any operation inside a `try` body (whose numeric errors raise, D11).
    pub(in crate::lower) fn may_raise(&self, e: &ast::Expr) -> bool {
        use ast::Expr as E;
        match e {
            E::Call(_) | E::Subscript(_) => true,
            E::Name(_) | E::Constant(_) => false,
            _ if self.exceptions.in_try() => true,
            E::BoolOp(b) => b.values.iter().any(|v| self.may_raise(v)),
            E::BinOp(b) => self.may_raise(&b.left) || self.may_raise(&b.right),
            E::UnaryOp(u) => self.may_raise(&u.operand),
            E::IfExp(i) => {
                self.may_raise(&i.test) || self.may_raise(&i.body) || self.may_raise(&i.orelse)
            }
            E::Compare(c) => {
                self.may_raise(&c.left) || c.comparators.iter().any(|v| self.may_raise(v))
            }
            _ => true,
        }
    }

    /// `f` lowered on the lanes of the array condition `lanes` only (an operand Python evaluates
    /// there, D11, D19, D23): the path condition narrowed while `f` runs, and the lanes `f` ends
    /// (a helper's raise) counted as ended on those lanes only, as an array `if` merges its
    /// side's. A Python scalar `lanes` (a loop index, a uniform value) decides the whole call:
    /// `f` is lowered under it as `frame.guard`, so that what `f` raises (item 7's int
    /// conversion beyond int64, a helper's raise) is raised only when CPython evaluates `f`.
    pub(in crate::lower) fn on_lanes<T>(
        &mut self,
        frame: &mut Frame,
        lanes: Value,
        f: impl FnOnce(&mut Self, &mut Frame) -> T,
    ) -> T {
        if self.shape(lanes) != Shape::Array {
            if self.const_of(lanes).is_some() {
                return f(self, frame);
            }
            // A Python number decides as its truth (D2): a bool, to AND with a raise's lanes.
            let lanes = if self.kind(lanes) == Kind::Bool {
                lanes
            } else {
                self.emit(Op::Cast(CastOp::Bool, lanes))
            };
            let saved_guard = frame.guard;
            frame.guard = Some(self.and_path(saved_guard, lanes));
            let out = f(self, frame);
            frame.guard = saved_guard;
            return out;
        }
        let saved_cond = frame.cond;
        let saved_flow = frame.flow.clone();
        frame.cond = Some(self.and_path(saved_cond, lanes));
        let out = f(self, frame);
        frame.cond = saved_cond;
        if frame.flow.returns.len() != saved_flow.returns.len() {
            let prefix = (saved_flow.returns.len(), saved_flow.exits.snapshots.len());
            let after = std::mem::replace(&mut frame.flow, saved_flow.clone());
            let not_lanes = self.emit(Op::Unary(UnOp::Not, lanes));
            frame.flow = self.merge_flow(lanes, not_lanes, after, saved_flow, prefix);
        }
        out
    }

    /// `a and b and ...` / `a or b or ...` (D2): each operand after the first is lowered on
    /// the lanes CPython evaluates it on (those the operands before let through, `on_lanes`), so
    /// what it raises (D11: a helper's raise, an index outside a list, None in arithmetic, D20)
    /// or runs element by element (D19, D23) holds there only.
    fn bool_chain(&mut self, frame: &mut Frame, b: &ast::ExprBoolOp) -> Value {
        let is_and = matches!(b.op, ast::BoolOp::And);
        let mut acc = self.expr(frame, &b.values[0]);
        for operand in &b.values[1..] {
            // A constant that decides the result: Python never evaluates the rest
            // (`isinstance(x, str) and x.lower() == "a"` of a number, D22).
            if self.const_of(acc).is_some_and(|c| truthy(&c) != is_and) {
                break;
            }
            let t = self.truth(acc);
            let go_on = if is_and { t } else { self.not(t) };
            let rhs = self.on_lanes(frame, go_on, |l, frame| l.expr(frame, operand));
            acc = self.bool_op(is_and, acc, rhs);
        }
        acc
    }

    /// A ternary: only the taken side for a constant condition; else both, merged (D1, D4).
    fn ternary(&mut self, frame: &mut Frame, i: &ast::ExprIfExp) -> Value {
        let test = self.expr(frame, &i.test);
        let cond = self.truth(test);
        if let Some(c) = self.const_of(cond) {
            let taken = truthy(&c);
            return self.expr(frame, if taken { &i.body } else { &i.orelse });
        }
        // Each side under the condition CPython takes it on (`on_lanes`: the lanes of an array
        // condition, a Python scalar's truth otherwise).
        let a = self.on_lanes(frame, cond, |l, frame| l.expr(frame, &i.body));
        let nc = self.emit(Op::Unary(UnOp::Not, cond));
        let b = self.on_lanes(frame, nc, |l, frame| l.expr(frame, &i.orelse));
        self.select(cond, a, b)
    }

    /// `math.<name>` as a value: one of the `math` constants.
    fn math_constant(
        &mut self,
        frame: &mut Frame,
        a: &ast::ExprAttribute,
        e: &ast::Expr,
    ) -> R<Value> {
        if let Some(v) = self.namespace_attribute(frame, a, e) {
            return Ok(v);
        }
        let ast::Expr::Name(base) = a.value.as_ref() else {
            return self.attribute(frame, a, e);
        };
        if self.is_numpy(frame, base.id.as_str()) {
            return self.numpy_constant(frame, a.attr.as_str(), e);
        }
        if self.resolve_module(frame, base.id.as_str(), &a.value)? {
            let attr = a.attr.as_str();
            if let Some((_, value)) = MATH_CONSTANTS.iter().find(|(n, _)| *n == attr) {
                return Ok(self.konst(Const::Float(*value)));
            }
            self.error_at(
                frame,
                DiagnosticKind::UnsupportedExpression,
                crate::lower::calls::suggest::math_attribute(attr),
                e,
            );
            return Err(());
        }
        self.attribute(frame, a, e)
    }

    /// `T[i]`: a constant table indexed (`tables`), or an item of a tuple result (`tuples`).
    fn subscript(&mut self, frame: &mut Frame, s: &ast::ExprSubscript, e: &ast::Expr) -> R<Value> {
        if let Some(choice) = key_choice(e) {
            return Ok(self.expr(frame, &choice));
        }
        let t = self.table(frame, &s.value, e, false)?;
        if let ast::Expr::Slice(sl) = s.slice.as_ref() {
            return self.container_slice(frame, t, sl, e);
        }
        let i = self.expr(frame, &s.slice);
        if self.is_object(t) {
            return self.object_item(frame, t, i, e);
        }
        if let Some(item) = self.container_index(frame, t, (&s.slice, i), e) {
            return item;
        }
        self.table_index(frame, t, i, e)
    }

    /// Python's truth value of `v` per lane (D4 revised): `v != 0` for a number array (NaN is
    /// true, -0.0 false); a boolean, or a Python scalar (whose truth Python decides once), as is.
    pub(in crate::lower) fn truth(&mut self, v: Value) -> Value {
        if let Some(t) = self.container_truth(v) {
            return t;
        }
        if let Some(t) = self.none_truth(v) {
            return t;
        }
        let v = self.object_truth(v);
        if self.kind(v) == Kind::Bool || self.shape(v) == Shape::Scalar {
            v
        } else {
            self.emit(Op::Cast(CastOp::Bool, v))
        }
    }

    /// `not a` (D2).
    pub(in crate::lower) fn not(&mut self, a: Value) -> Value {
        let a = self.container_truth(a).unwrap_or(a);
        let a = self.none_truth(a).unwrap_or(a);
        let a = self.object_truth(a);
        if self.kind(a) == Kind::Bool {
            self.emit(Op::Unary(UnOp::Not, a))
        } else {
            // D2: `not x` is `x == 0` for numbers.
            let zero = self.konst(Const::Int(0));
            self.emit(Op::Compare(CmpOp::Eq, a, zero))
        }
    }

    /// D2: `a and b` is `b if a else a` per element; logical ops only for provable booleans.
    pub(in crate::lower) fn bool_op(&mut self, is_and: bool, a: Value, b: Value) -> Value {
        if let Some(c) = self.const_of(a) {
            let t = truthy(&c);
            return if t == is_and { b } else { a };
        }
        if self.kind(a) == Kind::Bool && self.kind(b) == Kind::Bool {
            let op = if is_and { LogicOp::And } else { LogicOp::Or };
            return self.emit(Op::Logic(op, a, b));
        }
        let truth = self.truth(a);
        if is_and {
            self.select(truth, b, a)
        } else {
            self.select(truth, a, b)
        }
    }

    /// A conversion. `int()`/`round()` of nan or inf raises in CPython, and a float beyond 64
    /// bits has no int array form; on a Python scalar that would raise for every element (D3
    /// gives a value), so a float scalar not known to be in range is converted as a 0-d array.
    pub(in crate::lower) fn cast(&mut self, op: CastOp, v: Value) -> Value {
        let partial = self.shape(v) == Shape::Scalar
            && partial_cast(op, self.kind(v), self.const_of(v).as_ref());
        let v = if partial {
            self.emit(Op::AsArray(v))
        } else {
            v
        };
        self.emit(Op::Cast(op, v))
    }

    /// `a op b`, with the divisor or base protected and D3 for Python scalars.
    pub(in crate::lower) fn binary(
        &mut self,
        frame: &mut Frame,
        op: BinOp,
        a: Value,
        b: Value,
    ) -> Value {
        self.numeric_raise(frame, op, a, b);
        let b = match op {
            BinOp::Div | BinOp::FloorDiv | BinOp::Mod => self.protect_divisor(frame, b),
            _ => b,
        };
        let a = if op == BinOp::Pow {
            self.protect(frame, a, SafeValue::One)
        } else {
            a
        };
        // D3 for Python scalars too: a division or power of loop indices and constants that can
        // fail (a divisor or base that is not a known safe constant) is computed on a 0-d array,
        // so it gives the IEEE value where CPython would raise (or go complex) instead of
        // raising for every element, including those whose path never reaches it.
        let partial = partial_binary(op, a, b, &|v| self.const_of(v));
        let a = if partial && self.shape(a) == Shape::Scalar && self.shape(b) == Shape::Scalar {
            self.emit(Op::AsArray(a))
        } else {
            a
        };
        self.emit(Op::Binary(op, a, b))
    }

    /// D1 with protect_domains: on lanes this code does not run for, give a partial function a
    /// value in its domain, so no floating-point error is raised for a lane whose result is
    /// discarded. Never changes a live lane.
    pub(in crate::lower) fn protect(&mut self, frame: &Frame, v: Value, safe: SafeValue) -> Value {
        if !self.opts.protect_domains || self.shape(v) == Shape::Scalar {
            return v;
        }
        match self.live_lanes(frame) {
            Some(live) => self.safe_where_dead(live, v, safe),
            None => v,
        }
    }

    /// A divisor, protected as [`Lowerer::protect`] protects it and also without
    /// protect_domains when the code being lowered runs under a condition that compares the
    /// divisor itself with zero (`if d == 0.0: return math.inf` then `n / d`; D1): the lanes the
    /// guard excludes are the ones CPython never divides, yet NumPy would report a division by
    /// zero there (CPython reports nothing). One `where` on the divisor, reusing the guard's
    /// test; any other guard (`if x <= 0.0` before `/ sigma`, `if s >= barrier` before `/ s`)
    /// leaves the division as it is, at no cost.
    fn protect_divisor(&mut self, frame: &Frame, v: Value) -> Value {
        if self.opts.protect_domains {
            return self.protect(frame, v, SafeValue::One);
        }
        if self.shape(v) == Shape::Scalar {
            return v;
        }
        match self.live_lanes(frame) {
            Some(live) if self.tests_for_zero(live, v, 0) => {
                self.safe_where_dead(live, v, SafeValue::One)
            }
            _ => v,
        }
    }

    /// `v` on the `live` lanes and `safe` on the others (`where(c, safe, v)` when `live` is
    /// `not c`, which saves the negation).
    fn safe_where_dead(&mut self, live: Value, v: Value, safe: SafeValue) -> Value {
        let safe = match (safe, self.kind(v)) {
            (SafeValue::One, Kind::Float) => Const::Float(1.0),
            (SafeValue::One, _) => Const::Int(1),
            (SafeValue::Zero, Kind::Float) => Const::Float(0.0),
            (SafeValue::Zero, _) => Const::Int(0),
        };
        let s = self.konst(safe);
        if let Some(Op::Unary(UnOp::Not, dead)) = self.conditions.get(&live).cloned() {
            if self.kind(dead) == Kind::Bool {
                return self.emit(Op::Select(dead, s, v));
            }
        }
        self.emit(Op::Select(live, v, s))
    }

    /// Whether the condition `mask` compares `v` with zero (`d == 0.0`, `d > 0`, `not d`; itself,
    /// or through `and`, `or` and `not`): a guard of a division by `v`.
    fn tests_for_zero(&self, mask: Value, v: Value, depth: usize) -> bool {
        if depth > 32 {
            return false;
        }
        let zero = |x: Value| match self.const_of(x) {
            Some(Const::Int(n)) => n == 0,
            Some(Const::Float(f)) => f == 0.0,
            _ => false,
        };
        match self.conditions.get(&mask) {
            Some(Op::Compare(_, a, b)) => (*a == v && zero(*b)) || (*b == v && zero(*a)),
            Some(Op::Logic(_, a, b)) => {
                self.tests_for_zero(*a, v, depth + 1) || self.tests_for_zero(*b, v, depth + 1)
            }
            Some(Op::Unary(UnOp::Not, m)) => self.tests_for_zero(*m, v, depth + 1),
            _ => false,
        }
    }

    /// The lanes the code being lowered runs for: the caller's (for an inlined helper), the
    /// enclosing array conditions, and not yet returned. None is every lane.
    pub(in crate::lower) fn live_lanes(&mut self, frame: &Frame) -> Option<Value> {
        let running = self.running(frame);
        self.and_opt(frame.outer_live, running)
    }
}

/// The IR operation of a Python binary operator (None for `@`).
pub(in crate::lower) fn binop(op: &ast::Operator) -> Option<BinOp> {
    Some(match op {
        ast::Operator::Add => BinOp::Add,
        ast::Operator::Sub => BinOp::Sub,
        ast::Operator::Mult => BinOp::Mul,
        ast::Operator::Div => BinOp::Div,
        ast::Operator::FloorDiv => BinOp::FloorDiv,
        ast::Operator::Mod => BinOp::Mod,
        ast::Operator::Pow => BinOp::Pow,
        ast::Operator::BitAnd => BinOp::BitAnd,
        ast::Operator::BitOr => BinOp::BitOr,
        ast::Operator::BitXor => BinOp::BitXor,
        ast::Operator::LShift => BinOp::LShift,
        ast::Operator::RShift => BinOp::RShift,
        ast::Operator::MatMult => return None,
    })
}

#[cfg(test)]
mod tests {
    use crate::pipeline::testing::{compiled, errors, lowered};

    /// The entry (float body) of `source`'s generated module.
    fn entry(source: &str) -> String {
        compiled(source).generated.fast_source
    }

    #[test]
    fn a_divisor_compared_with_zero_by_the_guard_gets_one_where_on_the_excluded_lanes() {
        let guarded = "def f(n, d):\n    if d == 0.0:\n        return 1.0\n    return n / d\n";
        assert!(
            entry(guarded).contains("n / xp.where(cond, 1, d)"),
            "{}",
            entry(guarded)
        );
        let inverted = "def f(n, d):\n    if d != 0:\n        return n % d\n    return 0.0\n";
        assert!(
            entry(inverted).contains("xp.where(cond, d, 1)"),
            "{}",
            entry(inverted)
        );
    }

    #[test]
    fn a_guard_that_does_not_compare_the_divisor_with_zero_costs_nothing() {
        for source in [
            "def f(x, s):\n    if x <= 0.0:\n        return 0.0\n    return x / s\n",
            "def f(s, b):\n    if s >= b:\n        return 0.0\n    return b / s\n",
            "def f(n, d):\n    return n / d\n",
        ] {
            assert!(
                !entry(source).contains("where(cond, 1"),
                "{}",
                entry(source)
            );
        }
    }

    #[test]
    fn a_comparison_chain_is_a_conjunction() {
        let ir = lowered("def f(x):\n    return 0.0 < x < 1.0\n");
        assert!(ir.contains("and %"), "{ir}");
    }

    #[test]
    fn not_of_a_number_compares_with_zero() {
        let ir = lowered("def f(x):\n    return not x\n");
        assert!(ir.contains("eq %0"), "{ir}");
    }

    #[test]
    fn int_literals_beyond_64_bits_are_refused() {
        let e = errors("def f(x):\n    return x + 100000000000000000000000\n");
        assert!(e.iter().any(|m| m.contains("64-bit range")), "{e:?}");
    }
}

/// `RATES["joint" if married else "single"][kids]`: a choice per element between two string keys
/// of a table held by a name is the choice between the two subscripts,
/// `RATES["joint"][kids] if married else RATES["single"][kids]` (D14, D15: a uniform table read
/// with constant keys; the later subscripts, names or constants, read nothing twice that could
/// differ). None for any other subscript.
fn key_choice(e: &ast::Expr) -> Option<ast::Expr> {
    let simple = |k: &ast::Expr| matches!(k, ast::Expr::Name(_) | ast::Expr::Constant(_));
    let string = |k: &ast::Expr| matches!(k, ast::Expr::Constant(c) if matches!(c.value, ast::Constant::Str(_)));
    let ast::Expr::Subscript(s) = e else {
        return None;
    };
    if let ast::Expr::IfExp(choice) = s.slice.as_ref() {
        if !matches!(s.value.as_ref(), ast::Expr::Name(_))
            || !string(&choice.body)
            || !string(&choice.orelse)
        {
            return None;
        }
        let with = |key: &ast::Expr| {
            ast::Expr::Subscript(ast::ExprSubscript {
                slice: Box::new(key.clone()),
                ..s.clone()
            })
        };
        return Some(ast::Expr::IfExp(ast::ExprIfExp {
            range: s.range,
            test: choice.test.clone(),
            body: Box::new(with(&choice.body)),
            orelse: Box::new(with(&choice.orelse)),
        }));
    }
    if !simple(&s.slice) {
        return None;
    }
    // The choice one level in: distribute this subscript over its two sides.
    let ast::Expr::IfExp(inner) = key_choice(&s.value)? else {
        return None;
    };
    let with = |side: &ast::Expr| {
        ast::Expr::Subscript(ast::ExprSubscript {
            value: Box::new(side.clone()),
            ..s.clone()
        })
    };
    Some(ast::Expr::IfExp(ast::ExprIfExp {
        range: s.range,
        test: inner.test.clone(),
        body: Box::new(with(&inner.body)),
        orelse: Box::new(with(&inner.orelse)),
    }))
}
