//! The calls of D17 whose arguments are not plain floats: `math.isclose` (keyword tolerances),
//! `math.fsum` of a fixed sequence and `round(x, n)` with a constant `n`. Their runtime helpers
//! (src/codegen/runtime.rs) compute the values; `erf`, `erfc`, `gamma`, `lgamma`, `fmod` and
//! `remainder` take plain floats and go through `calls::call_math`.

use rustpython_parser::ast;

use crate::diagnostics::DiagnosticKind;
use crate::ir::{math_fn, BinOp, CastOp, CmpOp, Const, Kind, LogicOp, Op, Value, ROUND_DIGITS};
use crate::lower::{Frame, Lowerer, R};

/// The largest `-n` of `round(i, n)` on an int `i` lowered exactly: `10**18` is the largest
/// power of ten below `2**63`.
const MAX_INT_ROUND_DIGITS: i128 = 18;

impl Lowerer<'_> {
    /// `math.isclose(a, b, *, rel_tol=1e-09, abs_tol=0.0)`.
    pub(in crate::lower) fn call_isclose(
        &mut self,
        frame: &mut Frame,
        c: &ast::ExprCall,
    ) -> R<Value> {
        let f = math_fn("isclose").ok_or(())?;
        if c.args.len() != 2 {
            self.error_at(
                frame,
                DiagnosticKind::BadArguments,
                format!(
                    "math.isclose() takes 2 positional arguments, got {}",
                    c.args.len()
                ),
                c,
            );
            return Err(());
        }
        let mut tolerances = [None, None];
        for kw in &c.keywords {
            let slot = match kw.arg.as_ref().map(|a| a.as_str()) {
                Some("rel_tol") => 0,
                Some("abs_tol") => 1,
                other => {
                    let what = other.map_or("**kwargs".to_string(), |a| format!("`{a}`"));
                    self.error_at(
                        frame,
                        DiagnosticKind::BadArguments,
                        format!(
                            "math.isclose() takes the keywords rel_tol and abs_tol, not {what}"
                        ),
                        kw,
                    );
                    return Err(());
                }
            };
            tolerances[slot] = Some(self.expr(frame, &kw.value));
        }
        let a = self.expr(frame, &c.args[0]);
        let b = self.expr(frame, &c.args[1]);
        let a = self.math_arg(frame, a, None);
        let b = self.math_arg(frame, b, None);
        let rel = match tolerances[0] {
            Some(v) => v,
            None => self.konst(Const::Float(1e-09)),
        };
        let abs = match tolerances[1] {
            Some(v) => v,
            None => self.konst(Const::Float(0.0)),
        };
        Ok(self.emit(Op::Math(f, vec![a, b, rel, abs])))
    }

    /// `math.fsum(seq)` of a tuple or list display: a fixed number of values per lane.
    pub(in crate::lower) fn call_fsum(&mut self, frame: &mut Frame, c: &ast::ExprCall) -> R<Value> {
        let f = math_fn("fsum").ok_or(())?;
        let items = match (c.args.as_slice(), c.keywords.is_empty()) {
            ([ast::Expr::Tuple(t)], true) => Some(&t.elts),
            ([ast::Expr::List(l)], true) => Some(&l.elts),
            _ => None,
        };
        let items = items.filter(|items| {
            !items.is_empty() && !items.iter().any(|e| matches!(e, ast::Expr::Starred(_)))
        });
        let Some(items) = items else {
            self.error_at(
                frame,
                DiagnosticKind::BadArguments,
                "math.fsum() is supported on a tuple or list written in the call, \
                 `math.fsum((a, b, c))`: the number of values must be fixed"
                    .into(),
                c,
            );
            return Err(());
        };
        let values: Vec<Value> = items
            .iter()
            .map(|e| {
                let v = self.expr(frame, e);
                self.math_arg(frame, v, None)
            })
            .collect();
        Ok(self.emit(Op::Math(f, values)))
    }

    /// `round(x, ndigits)` with `ndigits` a constant int: a float for a float `x` (the runtime
    /// helper, exact), an int for an int or bool `x` (exact int arithmetic here). A uniform
    /// `ndigits` (one int per call, D14) is passed to the helper as it is, for a float `x`.
    pub(in crate::lower) fn round_digits(
        &mut self,
        frame: &mut Frame,
        (x, number): (Value, &ast::Expr),
        (ndigits, nd): (Value, &ast::Expr),
    ) -> R<Value> {
        let n = match self.const_of(ndigits) {
            Some(Const::Int(n)) => n,
            // D14: the helper reads the per-call value (`operator.index`, as CPython does).
            _ if self.is_object(ndigits) && self.kind(x) == Kind::Float => {
                return Ok(self.emit(Op::Math(&ROUND_DIGITS, vec![x, ndigits])));
            }
            _ if self.is_object(ndigits) => {
                self.error_at(
                    frame,
                    DiagnosticKind::BadArguments,
                    "round(x, n) with n one int per call needs x known to be a float here (its \
                     result is a float then): write round(float(x), n)"
                        .into(),
                    number,
                );
                return Err(());
            }
            _ => {
                self.error_at(
                    frame,
                    DiagnosticKind::BadArguments,
                    "round(x, ndigits) needs ndigits to be a constant int (a literal or a \
                     module constant) or one int per call (a parameter, D14)"
                        .into(),
                    nd,
                );
                return Err(());
            }
        };
        match self.kind(x) {
            Kind::Float => {
                let k = self.konst(Const::Int(n));
                Ok(self.emit(Op::Math(&ROUND_DIGITS, vec![x, k])))
            }
            Kind::Int | Kind::Bool if n >= 0 => Ok(self.cast(CastOp::Int, x)),
            Kind::Int | Kind::Bool if -n <= MAX_INT_ROUND_DIGITS => {
                let x = self.cast(CastOp::Int, x);
                Ok(self.round_int_digits(frame, x, -n))
            }
            Kind::Int | Kind::Bool => {
                self.error_at(
                    frame,
                    DiagnosticKind::BadArguments,
                    format!(
                        "round(i, {n}) of an int is supported for ndigits >= \
                         -{MAX_INT_ROUND_DIGITS}"
                    ),
                    nd,
                );
                Err(())
            }
            // A parameter's kind is known only per call (float body or exact body), and the
            // result's kind follows it: ask for the conversion rather than guess (D10).
            Kind::Unknown | Kind::Object => {
                self.error_at(
                    frame,
                    DiagnosticKind::BadArguments,
                    "round(x, ndigits) needs x known to be a float or an int here: write \
                     round(float(x), ndigits) or round(int(x), ndigits)"
                        .into(),
                    number,
                );
                Err(())
            }
        }
    }

    /// `round(x, -digits)` for an int `x`: the nearest multiple of `10**digits`, ties to the even
    /// multiple, as CPython's `int.__round__`.
    fn round_int_digits(&mut self, frame: &mut Frame, x: Value, digits: i128) -> Value {
        let m = self.konst(Const::Int(10i128.pow(digits as u32)));
        let zero = self.konst(Const::Int(0));
        let one = self.konst(Const::Int(1));
        let two = self.konst(Const::Int(2));
        // x = q * m + r with 0 <= r < m (floor division).
        let q = self.binary(frame, BinOp::FloorDiv, x, m);
        let below = self.binary(frame, BinOp::Mul, q, m);
        let r = self.binary(frame, BinOp::Sub, x, below);
        let twice = self.binary(frame, BinOp::Mul, r, two);
        let over = self.emit(Op::Compare(CmpOp::Gt, twice, m));
        let tie = self.emit(Op::Compare(CmpOp::Eq, twice, m));
        let parity = self.binary(frame, BinOp::Mod, q, two);
        let odd = self.emit(Op::Compare(CmpOp::Eq, parity, one));
        let tie_up = self.emit(Op::Logic(LogicOp::And, tie, odd));
        let up = self.emit(Op::Logic(LogicOp::Or, over, tie_up));
        let step = self.select(up, m, zero);
        self.binary(frame, BinOp::Add, below, step)
    }
}
