//! `bisect.bisect_left(T, x)` and `bisect.bisect_right(T, x)` (also `from bisect import ...`)
//! on a constant sorted table (D15): a count of per-lane comparisons.
//!
//! CPython's binary search compares the key with `<` only. On a table sorted by `<` with no NaN,
//! `bisect_right(T, x)` is the number of items `t` with `not (x < t)` and `bisect_left(T, x)`
//! the number with `t < x`; for a NaN key every comparison is false and the search ends at
//! `len(T)` (right) or `0` (left), which the counts give too. The comparisons are Python's for
//! every mix of int, float and bool (`-0.0` equals `0.0`), so the count is exact wherever
//! CPython's search is, unlike `searchsorted` (NaN sorts last there, and an int64 key is
//! rounded against a float table).
//!
//! ```python
//! RATES[bisect_right(BOUNDS, income)]      # BOUNDS = (0, 10000.0, 40000.0)
//! # ->  RATES[(~(income < 0)) + (~(income < 10000.0)) + (~(income < 40000.0))]
//! ```

use rustpython_parser::ast;
use rustpython_parser::ast::Ranged;

use crate::diagnostics::DiagnosticKind;
use crate::ir::{BinOp, CastOp, CmpOp, Const, Op, UnOp, Value};
use crate::lower::{Frame, Lowerer, R};

/// `bisect`'s parameters, in order (`key` is keyword-only).
const PARAMS: [&str; 4] = ["a", "x", "lo", "hi"];

impl Lowerer<'_> {
    /// `bisect.<which>(a, x, lo=0, hi=len(a))`, `which` being `bisect_left` or `bisect_right`.
    pub(in crate::lower) fn call_bisect(
        &mut self,
        frame: &mut Frame,
        c: &ast::ExprCall,
        which: &str,
    ) -> R<Value> {
        let [a, x, lo, hi] = self.bisect_args(frame, c, which)?;
        let (Some(a), Some(x)) = (a, x) else {
            self.bad_bisect(frame, c, format!("{which}() needs a table and a value"));
            return Err(());
        };
        let table = self.table(frame, a, a, false)?;
        // D14, D15: a sequence given per call is searched by CPython's own algorithm (`given`).
        if self.is_object(table) {
            return self.given_bisect(frame, c, which, table, x, lo.is_some() || hi.is_some());
        }
        let items = match self.const_of(table) {
            Some(Const::Tuple(items) | Const::List(items)) => items,
            _ => {
                if !self.poisoned.contains(&table) {
                    self.bad_bisect(
                        frame,
                        a,
                        format!(
                            "{which}() searches a constant tuple or list of numbers (a literal, \
                             or a module global bound once to one, D15)"
                        ),
                    );
                }
                return Err(());
            }
        };
        let lo = match lo {
            None => 0,
            Some(e) => self.bisect_bound(frame, e, "lo", items.len())?,
        };
        let hi = match hi {
            None => items.len(),
            Some(e) => self.bisect_bound(frame, e, "hi", items.len())?,
        };
        let searched = items.get(lo..hi.max(lo)).unwrap_or_default().to_vec();
        self.check_sorted(frame, &searched, lo, a)?;
        let key = self.expr(frame, x);
        if self.poisoned.contains(&key) {
            return Err(());
        }
        if self.is_object(key) {
            self.bad_bisect(
                frame,
                x,
                format!("{which}() of a uniform value (D14) is not supported: the key must be a number per element"),
            );
            return Err(());
        }
        let mut count: Option<Value> = None;
        for item in searched {
            let t = self.konst(item);
            let hit = if which == "bisect_left" {
                self.emit(Op::Compare(CmpOp::Lt, t, key))
            } else {
                let below = self.emit(Op::Compare(CmpOp::Lt, key, t));
                self.emit(Op::Unary(UnOp::Not, below))
            };
            count = Some(match count {
                Some(c) => self.emit(Op::Binary(BinOp::Add, c, hit)),
                None => self.emit(Op::Cast(CastOp::Int, hit)),
            });
        }
        let lo = self.konst(Const::Int(lo as i128));
        Ok(match count {
            Some(c) if self.const_of(lo) != Some(Const::Int(0)) => {
                self.emit(Op::Binary(BinOp::Add, lo, c))
            }
            Some(c) => c,
            None => lo,
        })
    }

    /// The argument expressions of a `bisect` call, by parameter.
    fn bisect_args<'c>(
        &mut self,
        frame: &Frame,
        c: &'c ast::ExprCall,
        which: &str,
    ) -> R<[Option<&'c ast::Expr>; 4]> {
        let mut slots: [Option<&ast::Expr>; 4] = [None; 4];
        if c.args.len() > PARAMS.len() {
            self.bad_bisect(
                frame,
                c,
                format!("{which}() takes at most 4 positional arguments"),
            );
            return Err(());
        }
        for (slot, arg) in slots.iter_mut().zip(&c.args) {
            *slot = Some(arg);
        }
        for k in &c.keywords {
            let name = k.arg.as_ref().map_or("**", |n| n.as_str());
            let Some(i) = PARAMS[2..].iter().position(|p| *p == name) else {
                let why = if name == "key" {
                    format!("{which}(key=...) is not supported: apply the key to the table and to the value")
                } else {
                    format!("{which}() got an unexpected keyword argument `{name}`")
                };
                self.bad_bisect(frame, k, why);
                return Err(());
            };
            if slots[i + 2].replace(&k.value).is_some() {
                self.bad_bisect(frame, k, format!("{which}() got two values for `{name}`"));
                return Err(());
            }
        }
        Ok(slots)
    }

    /// `lo` or `hi`: a constant int in `0..=len` (`hi=None` is `len`).
    fn bisect_bound(
        &mut self,
        frame: &mut Frame,
        e: &ast::Expr,
        what: &str,
        len: usize,
    ) -> R<usize> {
        if what == "hi"
            && matches!(e, ast::Expr::Constant(k) if matches!(k.value, ast::Constant::None))
        {
            return Ok(len);
        }
        let v = self.expr(frame, e);
        let bound = match self.const_of(v) {
            Some(Const::Int(n)) => usize::try_from(n).ok().filter(|n| *n <= len),
            _ => None,
        };
        if bound.is_none() && !self.poisoned.contains(&v) {
            self.bad_bisect(
                frame,
                e,
                format!("`{what}` must be a constant int from 0 to the table's length ({len})"),
            );
        }
        bound.ok_or(())
    }

    /// Rejects a table with a NaN, or an item below the one before it (CPython's search would
    /// give an answer that depends on where it probes).
    fn check_sorted(&mut self, frame: &Frame, items: &[Const], lo: usize, at: &ast::Expr) -> R<()> {
        for (k, item) in items.iter().enumerate() {
            if matches!(item, Const::Float(f) if f.is_nan()) {
                let why = format!(
                    "the table searched by bisect holds a NaN at index {}: it is not sorted",
                    k + lo
                );
                self.bad_bisect(frame, at, why);
                return Err(());
            }
            if !matches!(item, Const::Int(_) | Const::Float(_) | Const::Bool(_)) {
                let why = format!(
                    "the table searched by bisect must hold numbers; index {} does not",
                    k + lo
                );
                self.bad_bisect(frame, at, why);
                return Err(());
            }
            if k == 0 {
                continue;
            }
            let (prev, this) = (self.konst(items[k - 1].clone()), self.konst(item.clone()));
            let below = self.emit(Op::Compare(CmpOp::Lt, this, prev));
            if !matches!(self.const_of(below), Some(Const::Bool(false))) {
                let why = format!(
                    "the table searched by bisect is not sorted: index {} ({}) is below index {} ({}); sort it",
                    k + lo,
                    item.python_repr(),
                    k + lo - 1,
                    items[k - 1].python_repr()
                );
                self.bad_bisect(frame, at, why);
                return Err(());
            }
        }
        Ok(())
    }

    fn bad_bisect<T: Ranged>(&mut self, frame: &Frame, at: &T, why: String) {
        self.error_at(frame, DiagnosticKind::UnsupportedExpression, why, at);
    }
}

#[cfg(test)]
mod tests {
    use crate::env::Binding;
    use crate::ir::Const;
    use crate::pipeline::testing::{env, errors_with, ir_after_with};
    use crate::pipeline::Options;

    fn with_bisect() -> crate::env::Env {
        env(&[
            ("bisect", Binding::BisectModule),
            ("bisect_right", Binding::Bisect("bisect_right".into())),
            (
                "BANDS",
                Binding::Const(Const::Tuple(vec![Const::Float(1.0), Const::Int(3)])),
            ),
        ])
    }

    #[test]
    fn a_search_is_one_comparison_per_item_counted_from_lo() {
        let src =
            "def f(x):\n    return bisect.bisect_left(BANDS, x) + bisect_right(BANDS, x, 1)\n";
        let ir = ir_after_with(src, "lower", &with_bisect(), Options::default()).to_string();
        assert_eq!(ir.matches("lt ").count(), 3, "{ir}");
        assert!(ir.contains("not "), "{ir}");
    }

    #[test]
    fn an_unsorted_table_or_a_key_function_is_rejected() {
        let e = errors_with(
            "def f(x):\n    return bisect_right((2.0, 1.0), x)\n",
            &with_bisect(),
        );
        assert!(
            e.iter()
                .any(|m| m.contains("index 1 (1.0) is below index 0 (2.0)")),
            "{e:?}"
        );
        let e = errors_with(
            "def f(x):\n    return bisect_right(BANDS, x, key=abs)\n",
            &with_bisect(),
        );
        assert!(e.iter().any(|m| m.contains("key=")), "{e:?}");
    }
}
