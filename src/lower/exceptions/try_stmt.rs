//! `try` / `except` / `else` / `finally` per lane (D11). Inside a `try` body every raise point
//! (an explicit `raise`, an inlined helper's, and the numeric errors D3 otherwise turns into IEEE
//! values: `/ // %` by zero, `0 ** negative`) is an exit of the lanes that reach it, recorded in
//! the returns list like any raise, with a snapshot of the variables there. After the body, the
//! per-lane code of the first exit tells which site each lane raised at; each site's class
//! (known statically: builtin exception classes) picks the first clause that matches it as
//! CPython matches (subclasses, tuples, bare `except`). The lanes a clause catches leave the
//! returns list and run the clause from the variables their raise saw; the others run `else`.
//! Variables merge with `Select` as after an array `if`; `finally` runs after, on every lane,
//! and may not leave the function (a return or raise there would replace a pending one).
//! Item 7's raise site of an int conversion beyond int64 (`int_beyond_raise`) lives here too, in
//! and out of `try` bodies: no clause catches it.

use rustpython_parser::ast;

use crate::diagnostics::DiagnosticKind;
use crate::ir::{BinOp, CmpOp, Const, Kind, LogicOp, Op, Shape, UnOp, Value};
use crate::lower::exceptions::classes::{builtin_mro, is_subclass, Mro};
use crate::lower::{Done, Flow, Frame, Lowerer, Var};
use crate::Map as HashMap;

/// One path out of a `try` (its `else`, or a clause): the lanes it runs (None: every lane), the
/// variables it leaves, the lanes it leaves done, and whether it ended every lane it runs.
type Path = (Option<Value>, HashMap<String, Var>, Done, bool);

/// Which exceptions an `except` clause catches.
enum Catches {
    /// A bare `except:`.
    All,
    /// The classes named (a tuple gives several), each by its MRO.
    Classes(Vec<Mro>),
}

/// The variables where lanes raised inside the `try` bodies being lowered: per `try`, the raise
/// code of each exit with the variables it saw.
pub(in crate::lower) type Snapshots = Vec<Vec<(Value, HashMap<String, Var>)>>;

impl Lowerer<'_> {
    /// A `try` statement.
    pub(in crate::lower) fn try_stmt(
        &mut self,
        frame: &mut Frame,
        t: &ast::StmtTry,
        stmt: &ast::Stmt,
    ) {
        let clauses = self.clauses(frame, t);
        let stays = self.finally_stays(frame, &t.finalbody) && self.clauses_stay(frame, t, stmt);
        let Some(clauses) = clauses.filter(|_| stays) else {
            // Reported; the body alone, so that what it assigns is not reported as well.
            self.body(frame, &t.body);
            return;
        };
        let cond0 = frame.cond;
        let prefix = frame.flow.returns.len();
        let sites_before = self.exceptions.sites.len();
        frame.catching.push(vec![]);
        self.try_body(frame, &t.body, stmt);
        let snapshots = frame.catching.pop().unwrap_or_default();
        let returns = frame.flow.returns.clone();
        let code = self.raise_chain(&returns, false);
        // Site k (1-based) is caught by the first clause matching its class.
        let mut caught: Vec<Vec<i128>> = vec![vec![]; clauses.len()];
        for k in sites_before + 1..=self.exceptions.sites.len() {
            match self.clause_of(&clauses, k) {
                Ok(Some(h)) => caught[h].push(k as i128),
                Ok(None) => {}
                Err(()) => {
                    self.error_at(
                        frame,
                        DiagnosticKind::UnsupportedStatement,
                        format!("the class of the exception raised by `{}` inside this `try` is not known when compiling, so which `except` clause catches it cannot be decided; raise a builtin exception class, or catch it with a bare `except:` first (D11: docs/decisions.md#d11)", self.exceptions.sites[k - 1].expr),
                        stmt,
                    );
                    return;
                }
            }
        }
        let masks: Vec<Option<Value>> = match code {
            Some(code) => caught.iter().map(|ks| self.code_in(code, ks)).collect(),
            None => vec![None; clauses.len()],
        };
        let any = masks
            .iter()
            .flatten()
            .copied()
            .reduce(|a, b| self.emit(Op::Logic(LogicOp::Or, a, b)));
        // A site a clause catches on every lane that reaches it is no exit any more: its entries
        // go, so a `try` that catches all it raises leaves no check after the body (one that
        // `jax.jit` could not run, D11).
        let caught_sites: Vec<i128> = caught.iter().flatten().copied().collect();
        let tail: Vec<_> = frame.flow.returns.split_off(prefix);
        for entry in tail {
            let sites = self.site_numbers(entry.1);
            let caught = |k: &i128| *k == 0 || caught_sites.contains(k);
            if !sites.is_some_and(|ks| ks.iter().all(caught)) {
                frame.flow.returns.push(entry);
            }
        }
        // Caught lanes are no exit any more; their other entries (after the raise) never ran.
        if let Some(any) = any {
            let not_any = self.emit(Op::Unary(UnOp::Not, any));
            for entry in &mut frame.flow.returns[prefix..] {
                entry.0 = Some(match entry.0 {
                    Some(c) => self.emit(Op::Logic(LogicOp::And, c, not_any)),
                    None => not_any,
                });
            }
        }
        // What no clause catches may be caught by an enclosing `try`.
        if let Some(outer) = frame.catching.last_mut() {
            outer.extend(snapshots.iter().cloned());
        }
        let entry_conds: HashMap<Value, Option<Value>> =
            returns[prefix..].iter().map(|&(c, v)| (v, c)).collect();

        // `else`: the lanes that raised nothing (those that returned or raised uncaught are done).
        let body_done = frame.flow.done;
        let mut paths: Vec<Path> = vec![];
        // Every path (the `else`, each clause) ends every lane it runs: nothing after runs.
        let mut all_end = true;
        if body_done != Done::Always {
            frame.cond = match any {
                Some(a) => {
                    let not_any = self.emit(Op::Unary(UnOp::Not, a));
                    Some(self.and_path(cond0, not_any))
                }
                None => cond0,
            };
            self.body(frame, &t.orelse);
            all_end = self.ends_here(&mut frame.flow);
            paths.push((None, frame.vars.clone(), frame.flow.done, all_end));
        } else {
            // Every lane of the path raised (`done` is relative to the path, as in
            // `merge_flow`): those no clause catches are done.
            paths.push((None, frame.vars.clone(), Done::Always, true));
        }
        let else_vars = frame.vars.clone();

        // Each clause, on the lanes it catches, from the variables their raise saw.
        for (h, clause) in t.handlers.iter().enumerate() {
            let ast::ExceptHandler::ExceptHandler(clause) = clause;
            let (Some(mask), Some(code)) = (masks[h], code) else {
                continue;
            };
            frame.vars = self.vars_at_raise(&snapshots, &entry_conds, &else_vars);
            frame.cond = Some(self.and_path(cond0, mask));
            self.clause_body(frame, clause, code);
            let ended = self.ends_here(&mut frame.flow);
            all_end &= ended;
            paths.push((Some(mask), frame.vars.clone(), frame.flow.done, ended));
        }
        frame.cond = cond0;
        self.merge_paths(frame, paths);
        frame.flow.dead = all_end;

        self.exceptions.in_finally += 1;
        self.body(frame, &t.finalbody);
        self.exceptions.in_finally -= 1;
    }

    /// An `except` clause's body on the lanes it catches (`frame.cond`), from the variables
    /// their raise saw; `code` is what a bare `raise` in it raises again.
    fn clause_body(
        &mut self,
        frame: &mut Frame,
        clause: &ast::ExceptHandlerExceptHandler,
        code: Value,
    ) {
        frame.flow.done = Done::Never;
        // The body may have ended every lane (all raised: `Flow::dead`); the caught ones
        // run on here (seed 130001 #550: the clause and what followed were not lowered).
        frame.flow.dead = false;
        self.exceptions.handling.push(code);
        self.body(frame, &clause.body);
        self.exceptions.handling.pop();
        if let Some(name) = &clause.name {
            frame.vars.remove(name.as_str());
        }
    }

    /// The variables a clause starts from: on each lane, those of the raise the lane reached.
    fn vars_at_raise(
        &mut self,
        snapshots: &[(Value, HashMap<String, Var>)],
        entry_conds: &HashMap<Value, Option<Value>>,
        fallback: &HashMap<String, Var>,
    ) -> HashMap<String, Var> {
        let mut acc: Option<HashMap<String, Var>> = None;
        for (code, vars) in snapshots.iter().rev() {
            let cond = entry_conds.get(code).copied().flatten();
            acc = Some(match (acc, cond) {
                (Some(later), Some(c)) => self.merge_two(c, vars, &later),
                _ => vars.clone(),
            });
        }
        acc.unwrap_or_else(|| fallback.clone())
    }

    /// `where(c, a, b)` per variable; a variable missing or maybe undefined on a side is maybe
    /// undefined.
    fn merge_two(
        &mut self,
        c: Value,
        a: &HashMap<String, Var>,
        b: &HashMap<String, Var>,
    ) -> HashMap<String, Var> {
        let never = Flow {
            done: Done::Never,
            returns: vec![],
            exits: crate::lower::loops::exits::Exits {
                left: Done::Never,
                broke: Done::Never,
                snapshots: vec![],
            },
            dead: false,
        };
        self.merge_vars(a, &never, b, &never, |l, x, y| l.select(c, x, y))
    }

    /// The variables and done lanes after the paths of a `try` (the `else` path first, then
    /// each clause's lanes): the paths are disjoint, so each lane takes its own path's.
    fn merge_paths(&mut self, frame: &mut Frame, paths: Vec<Path>) {
        let mut acc: Option<(HashMap<String, Var>, Value)> = None;
        // `ended`: every lane of the path returned, raised or left, so its variables are read
        // by no lane after the `try`.
        for (mask, vars, done, ended) in paths.into_iter() {
            let d = match done {
                Done::Never => self.konst(Const::Bool(false)),
                Done::Always => self.konst(Const::Bool(true)),
                Done::Mask(m) => m,
            };
            acc = Some(match (acc, mask) {
                (None, _) | (_, None) => (vars, d),
                (Some((before, bd)), Some(m)) => {
                    let merged = if ended || done == Done::Always {
                        before
                    } else if self.const_of(bd) == Some(Const::Bool(true)) {
                        vars
                    } else {
                        self.merge_two(m, &vars, &before)
                    };
                    let done = match (self.const_of(d), self.const_of(bd)) {
                        (Some(x), Some(y)) if x == y => bd,
                        _ => self.select(m, d, bd),
                    };
                    (merged, done)
                }
            });
        }
        let Some((vars, done)) = acc else { return };
        frame.vars = vars;
        frame.flow.done = match self.const_of(done) {
            Some(Const::Bool(true)) => Done::Always,
            Some(Const::Bool(false)) => Done::Never,
            _ => Done::Mask(done),
        };
    }

    /// Lowers the body of the `try` statement `stmt`, where numeric errors raise.
    fn try_body(&mut self, frame: &mut Frame, body: &[ast::Stmt], stmt: &ast::Stmt) {
        let try_block_depth = self.exceptions.try_block_depth;
        if self.exceptions.in_try == 0 {
            self.exceptions.try_block_depth = self.blocks.len();
        }
        self.exceptions.in_try += 1;
        self.exceptions
            .try_spans
            .push((frame.source, crate::frontend::extract::span(stmt)));
        let lookup = match stmt {
            ast::Stmt::Try(t) => t.handlers.iter().any(catches_lookup),
            _ => true,
        };
        self.exceptions.lookup_caught.push(lookup);
        self.body(frame, body);
        self.exceptions.lookup_caught.pop();
        self.exceptions.try_spans.pop();
        self.exceptions.in_try -= 1;
        self.exceptions.try_block_depth = try_block_depth;
    }

    /// The sites the raise code `v` may hold: one site's own code, or a helper's codes merged
    /// with `Select` (0 where the helper returned); None when that is not known. Raise codes
    /// are built in the block being lowered (D11 raises only there).
    fn site_numbers(&self, v: Value) -> Option<Vec<i128>> {
        if !self.exceptions.codes.contains(&v) {
            return None;
        }
        let insts = &self.blocks.last()?.insts;
        let mut out = vec![];
        let mut todo = vec![v];
        while let Some(v) = todo.pop() {
            if let Some(Const::Int(k)) = self.const_of(v) {
                out.push(k);
                continue;
            }
            if out.len() + todo.len() > 10_000 {
                return None;
            }
            let op = insts.iter().rev().find_map(|i| match i {
                crate::ir::Inst::Let { dst, op } if *dst == v => Some(op),
                _ => None,
            })?;
            match op {
                Op::Const(Const::Int(k)) => out.push(*k),
                Op::Select(_, a, b) => todo.extend([*a, *b]),
                _ => return None,
            }
        }
        Some(out)
    }

    /// The lanes whose `code` is one of `ks` (None when none can be).
    fn code_in(&mut self, code: Value, ks: &[i128]) -> Option<Value> {
        let mut out = None;
        for &k in ks {
            let kv = self.konst(Const::Int(k));
            let eq = self.emit(Op::Compare(CmpOp::Eq, code, kv));
            out = Some(match out {
                Some(o) => self.emit(Op::Logic(LogicOp::Or, o, eq)),
                None => eq,
            });
        }
        out
    }

    /// The clause catching site `k` (None: no clause does), or Err when its class is unknown
    /// and a clause before any bare `except` would need it.
    fn clause_of(&self, clauses: &[Catches], k: usize) -> Result<Option<usize>, ()> {
        let class = self
            .exceptions
            .info
            .get(k - 1)
            .and_then(|s| s.class.clone());
        for (h, c) in clauses.iter().enumerate() {
            if class.as_ref().and_then(|c| c.first()).map(String::as_str) == Some(BEYOND_INT64) {
                return Ok(None);
            }
            match c {
                Catches::All => return Ok(Some(h)),
                Catches::Classes(names) => {
                    let Some(class) = &class else { return Err(()) };
                    if names.iter().any(|n| is_subclass(class, n)) {
                        return Ok(Some(h));
                    }
                }
            }
        }
        Ok(None)
    }

    /// What each `except` clause catches; None after reporting a clause that cannot be compiled.
    fn clauses(&mut self, frame: &mut Frame, t: &ast::StmtTry) -> Option<Vec<Catches>> {
        let mut out = vec![];
        let mut ok = true;
        for h in &t.handlers {
            let ast::ExceptHandler::ExceptHandler(h) = h;
            if let Some(name) = &h.name {
                if self.reads_word(frame, &h.body, name.as_str()) {
                    self.error_at(
                        frame,
                        DiagnosticKind::UnsupportedStatement,
                        format!("the caught exception `{name}` cannot be read in a vectorized function (it exists on one element only); drop `as {name}` and build what you need from the variables"),
                        h,
                    );
                    ok = false;
                }
            }
            let Some(ty) = &h.type_ else {
                out.push(Catches::All);
                continue;
            };
            let elts: Vec<&ast::Expr> = match &**ty {
                ast::Expr::Tuple(tt) => tt.elts.iter().collect(),
                e => vec![e],
            };
            let mut names = vec![];
            for e in elts {
                match self.exception_class(frame, e, false) {
                    Some(c) => names.push(c),
                    None => {
                        self.unknown_except_class(frame, e);
                        ok = false;
                    }
                }
            }
            out.push(Catches::Classes(names));
        }
        ok.then_some(out)
    }

    /// Reports a `return` or `raise` in a `finally` clause (it would replace what the lanes
    /// leave the `try` with); false if there is one.
    fn finally_stays(&mut self, frame: &Frame, body: &[ast::Stmt]) -> bool {
        let Some(exit) = first_exit(body) else {
            return true;
        };
        self.error_at(
            frame,
            DiagnosticKind::UnsupportedStatement,
            "`return`, `raise` and `assert` inside `finally` are not supported; move them after the `try` statement".into(),
            exit,
        );
        false
    }

    /// Reports a `break` or `continue` in an `except`, `else` or `finally` clause of a `try`
    /// inside a loop (the lanes' exits there are not merged with the clauses' paths yet, D11
    /// with D12); false if there is one.
    fn clauses_stay(&mut self, frame: &Frame, t: &ast::StmtTry, stmt: &ast::Stmt) -> bool {
        let handlers = t.handlers.iter().map(|h| {
            let ast::ExceptHandler::ExceptHandler(h) = h;
            &h.body[..]
        });
        let mut clauses = handlers.chain([&t.orelse[..], &t.finalbody[..]]);
        if !self.loops.in_loop()
            || !clauses.any(|c| crate::lower::loops::exits::has_exit(c, true, true))
        {
            return true;
        }
        self.error_at(
            frame,
            DiagnosticKind::UnsupportedStatement,
            "`break` and `continue` inside an `except`, `else` or `finally` clause of a `try` in a loop are not supported yet; set a variable there and break after the `try` statement".into(),
            stmt,
        );
        false
    }

    /// Whether the source of `body` holds `word` as a whole identifier.
    fn reads_word(&self, frame: &Frame, body: &[ast::Stmt], word: &str) -> bool {
        let (Some(first), Some(last)) = (body.first(), body.last()) else {
            return false;
        };
        let (start, _) = crate::frontend::extract::span(first);
        let (_, end) = crate::frontend::extract::span(last);
        let Some(text) = self
            .sources
            .get(frame.source)
            .and_then(|s| s.text.get(start..end))
        else {
            return true;
        };
        let ident = |c: char| c.is_alphanumeric() || c == '_';
        text.split(|c: char| !ident(c)).any(|w| w == word)
    }

    /// Reports `what` (a call whose raising elements are not modelled) inside a `try` body,
    /// where CPython's exception would have to reach an `except` clause.
    pub(in crate::lower) fn not_in_try(
        &mut self,
        frame: &Frame,
        c: &ast::ExprCall,
        what: &str,
    ) -> Result<(), ()> {
        if self.exceptions.in_try == 0 {
            return Ok(());
        }
        self.error_at(
            frame,
            DiagnosticKind::UnsupportedExpression,
            format!("{what} inside a `try` body is not supported yet (which elements raise there is not modelled); call it before or after the `try` statement"),
            c,
        );
        Err(())
    }

    /// Inside a `try` body: the lanes where `a op b` raises in CPython (ZeroDivisionError) end
    /// there with the exception CPython gives, evaluated on that lane's operands.
    pub(in crate::lower) fn numeric_raise(
        &mut self,
        frame: &mut Frame,
        op: BinOp,
        a: Value,
        b: Value,
    ) {
        if self.exceptions.in_try == 0 || self.poisoned.contains(&a) || self.poisoned.contains(&b) {
            return;
        }
        if op == BinOp::Pow {
            self.pow_raises(frame, a, b);
            return;
        }
        let zero = self.konst(Const::Int(0));
        let (symbol, fails) = match op {
            BinOp::Div => ("/", self.emit(Op::Compare(CmpOp::Eq, b, zero))),
            BinOp::FloorDiv => ("//", self.emit(Op::Compare(CmpOp::Eq, b, zero))),
            BinOp::Mod => ("%", self.emit(Op::Compare(CmpOp::Eq, b, zero))),
            _ => return,
        };
        self.numeric_site(frame, symbol, fails, "ZeroDivisionError", a, b);
    }

    /// `0.0 ** -1` raises ZeroDivisionError, and a float power whose finite operands give an
    /// infinite result (or an infinite complex magnitude) raises OverflowError. The zero base is the first site (its lanes raise
    /// there), the overflow site second.
    fn pow_raises(&mut self, frame: &mut Frame, a: Value, b: Value) {
        let zero = self.konst(Const::Int(0));
        let largest = self.konst(Const::Float(f64::MAX));
        let finite = |l: &mut Self, v: Value| {
            let m = l.emit(Op::Unary(UnOp::Abs, v));
            l.emit(Op::Compare(CmpOp::Le, m, largest))
        };
        // `0.0 ** -inf` is inf: only a finite negative exponent raises.
        let base_zero = self.emit(Op::Compare(CmpOp::Eq, a, zero));
        let negative = self.emit(Op::Compare(CmpOp::Lt, b, zero));
        let fb = finite(self, b);
        let negative = self.emit(Op::Logic(LogicOp::And, negative, fb));
        let fails = self.emit(Op::Logic(LogicOp::And, base_zero, negative));
        self.numeric_site(frame, "**", fails, "ZeroDivisionError", a, b);
        if self.kind(a) == Kind::Int && self.kind(b) == Kind::Int {
            return;
        }
        let (pa, pb) = if self.shape(a) == Shape::Scalar && self.shape(b) == Shape::Scalar {
            (self.emit(Op::AsArray(a)), b)
        } else {
            (a, b)
        };
        let p = self.emit(Op::Binary(BinOp::Pow, pa, pb));
        let huge = {
            let m = self.emit(Op::Unary(UnOp::Abs, p));
            self.emit(Op::Compare(CmpOp::Gt, m, largest))
        };
        let fa = finite(self, a);
        let both = self.emit(Op::Logic(LogicOp::And, fa, fb));
        let fails = self.emit(Op::Logic(LogicOp::And, huge, both));
        self.numeric_site(frame, "**", fails, "OverflowError", a, b);
        // A negative base with a fractional exponent: CPython computes a complex power, which
        // raises OverflowError when its magnitude `abs(a) ** b` overflows.
        let magnitude = self.emit(Op::Unary(UnOp::Abs, pa));
        let q = self.emit(Op::Binary(BinOp::Pow, magnitude, pb));
        let q_abs = self.emit(Op::Unary(UnOp::Abs, q));
        let q_huge = self.emit(Op::Compare(CmpOp::Gt, q_abs, largest));
        let complex = self.emit(Op::Compare(CmpOp::Ne, p, p));
        let fails = self.emit(Op::Logic(LogicOp::And, q_huge, complex));
        let fails = self.emit(Op::Logic(LogicOp::And, fails, both));
        self.numeric_site(frame, "**", fails, "OverflowError", a, b);
    }

    /// Inside a `try` body: the lanes where the `math` function `name` raises in CPython (a NaN
    /// from arguments that are not NaN: ValueError; an infinity from finite ones: OverflowError,
    /// or ValueError for the logarithms' poles) end there. `args` are the call's arguments
    /// (floats, or the int an integral function keeps); false when this function's raises are
    /// not modelled (the caller reports it). The functions that raise on no float (the tests
    /// `isnan`, `isinf`, `isfinite`; `atan2`, `hypot`, `copysign`, `erf`, `erfc`) have no site:
    /// an int argument is int64 or uint64, which converts to float, and one beyond the float
    /// range raises item 17's OverflowError at its conversion, before the call.
    pub(in crate::lower) fn math_raise(
        &mut self,
        frame: &mut Frame,
        name: &str,
        args: &[Value],
        result: Value,
    ) -> bool {
        if self.exceptions.in_try == 0
            || args
                .iter()
                .chain([&result])
                .any(|v| self.poisoned.contains(v))
        {
            return true;
        }
        if matches!(name, "floor" | "ceil" | "trunc") {
            self.int_conversion_raise(frame, &format!("__import__('math').{name}"), args[0]);
            return true;
        }
        let pole = match name {
            "isnan" | "isinf" | "isfinite" | "atan2" | "hypot" | "copysign" | "erf" | "erfc" => {
                return true
            }
            "exp" | "expm1" | "sinh" | "cosh" => Some("OverflowError"),
            "log" | "log2" | "log10" | "log1p" | "atanh" => Some("ValueError"),
            "sqrt" | "sin" | "cos" | "tan" | "asin" | "acos" | "atan" | "tanh" | "asinh"
            | "acosh" | "fabs" | "degrees" | "radians" => None,
            _ => return false,
        };
        let params: Vec<String> = (0..args.len()).map(|i| format!("_a{i}")).collect();
        let text = format!("__import__('math').{name}({})", params.join(", "));
        let nan_result = self.emit(Op::Compare(CmpOp::Ne, result, result));
        let mut fails = nan_result;
        for &a in args {
            let number = self.emit(Op::Compare(CmpOp::Eq, a, a));
            fails = self.emit(Op::Logic(LogicOp::And, fails, number));
        }
        self.math_site(
            frame,
            fails,
            "ValueError",
            (text.clone(), params.clone(), args.to_vec()),
        );
        if let Some(class) = pole {
            let largest = self.konst(Const::Float(f64::MAX));
            let m = self.emit(Op::Unary(UnOp::Abs, result));
            let mut fails = self.emit(Op::Compare(CmpOp::Gt, m, largest));
            for &a in args {
                let m = self.emit(Op::Unary(UnOp::Abs, a));
                let finite = self.emit(Op::Compare(CmpOp::Le, m, largest));
                fails = self.emit(Op::Logic(LogicOp::And, fails, finite));
            }
            self.math_site(frame, fails, class, (text, params, args.to_vec()));
        }
        true
    }

    /// Inside a `try` body: `int(a)`, `round(a)`, `math.floor(a)` of a float raise ValueError
    /// for NaN and OverflowError for an infinity, as CPython does. `function` is the callable's
    /// text.
    pub(in crate::lower) fn int_conversion_raise(
        &mut self,
        frame: &mut Frame,
        function: &str,
        a: Value,
    ) {
        if self.exceptions.in_try == 0
            || self.poisoned.contains(&a)
            || matches!(self.kind(a), Kind::Int | Kind::Bool)
        {
            return;
        }
        let site = || (format!("{function}(_a)"), vec!["_a".to_string()], vec![a]);
        let nan = self.emit(Op::Compare(CmpOp::Ne, a, a));
        self.math_site(frame, nan, "ValueError", site());
        let largest = self.konst(Const::Float(f64::MAX));
        let m = self.emit(Op::Unary(UnOp::Abs, a));
        let infinite = self.emit(Op::Compare(CmpOp::Gt, m, largest));
        self.math_site(frame, infinite, "OverflowError", site());
    }

    /// Issue 28 item 4, docs/semantics.md item 7: `int(a)`, `round(a)`,
    /// `math.floor/ceil/trunc(a)` of a float from 2**63 up or below -2**63 (±inf included)
    /// raise OverflowError per lane (D11: the first such element in C order), where CPython
    /// gives an int beyond 64 bits (or raises for ±inf); NaN keeps item 7's 0. Inside a `try`
    /// body no `except` clause catches it (nan and ±inf raise CPython's there first). With
    /// `protect_domains` the conversion saturates instead (values, not errors). `function`
    /// names the call (`int`, `round`, `math.floor`), `a` is the float converted and `r` the
    /// conversion's result: where `a`'s kind is only known at run time, an int lane equals its
    /// result exactly and a float lane beyond int64 saturated to INT64_MAX or INT64_MIN, which
    /// it does not equal (the comparison is exact, `_vec_binary`).
    pub(in crate::lower) fn int_beyond_raise(
        &mut self,
        frame: &mut Frame,
        (function, c): (&str, &ast::ExprCall),
        a: Value,
        r: Value,
    ) -> Result<(), ()> {
        if self.opts.protect_domains
            || self.poisoned.contains(&a)
            || matches!(self.kind(a), Kind::Int | Kind::Bool)
        {
            return Ok(());
        }
        const TWO_63: f64 = 9_223_372_036_854_775_808.0;
        let fails = if self.kind(a) == Kind::Float {
            let hi = self.konst(Const::Float(TWO_63));
            let lo = self.konst(Const::Float(-TWO_63));
            let above = self.emit(Op::Compare(CmpOp::Ge, a, hi));
            let below = self.emit(Op::Compare(CmpOp::Lt, a, lo));
            self.emit(Op::Logic(LogicOp::Or, above, below))
        } else {
            let max = self.konst(Const::Int(i64::MAX as i128));
            let min = self.konst(Const::Int(i64::MIN as i128));
            let at_max = self.emit(Op::Compare(CmpOp::Eq, r, max));
            let at_min = self.emit(Op::Compare(CmpOp::Eq, r, min));
            let extreme = self.emit(Op::Logic(LogicOp::Or, at_max, at_min));
            let moved = self.emit(Op::Compare(CmpOp::Ne, a, r));
            self.emit(Op::Logic(LogicOp::And, extreme, moved))
        };
        if self.const_of(fails) == Some(Const::Bool(false)) {
            // A conversion that cannot leave int64 (`int(0.0)`) raises nothing, in a `finally`
            // clause too (fuzz 715002 #1447, 712002 #1494).
            return Ok(());
        }
        if self.exceptions.in_finally > 0 {
            // D10: a `finally` clause cannot raise per lane; saturating would be a wrong value.
            self.error_at(
                frame,
                DiagnosticKind::UnsupportedExpression,
                format!("`{function}()` of a float in a `finally` clause is not supported (beyond int64 it raises OverflowError per element, docs/semantics.md item 7, which a `finally` clause cannot do); convert before the `try` statement, or use protect_domains=True"),
                c,
            );
            return Err(());
        }
        let mask = match self.const_of(fails) {
            Some(_) => frame.cond,
            None => Some(self.and_path(frame.cond, fails)),
        };
        // The lanes done raising are those on this path (`frame.cond`: an operand of `and`, `or`
        // or a comparison chain CPython may not evaluate, `bool_chain`), not every lane beyond.
        let text = format!("_vec_int_overflow('{function}', _a)");
        let site = (text, vec!["_a".to_string()], vec![a]);
        // No `except` clause catches it (`clause_of`): CPython raises nothing there.
        let class = Some(vec![BEYOND_INT64.to_string()]);
        if let Some(code) = self.push_site(frame, site, class, None) {
            self.raise_on(frame, mask, code);
        }
        Ok(())
    }

    /// A raise site of class `class` on the lanes where `fails`.
    fn math_site(
        &mut self,
        frame: &mut Frame,
        fails: Value,
        class: &str,
        site: (String, Vec<String>, Vec<Value>),
    ) {
        let mask = match self.const_of(fails) {
            Some(Const::Bool(false)) => return,
            Some(_) => None,
            None => Some(fails),
        };
        if let Some(code) = self.push_site(frame, site, builtin_mro(class), None) {
            self.raise_on(frame, mask, code);
        }
    }

    /// A raise site where `a symbol b` fails (`fails`), its exception CPython's for that
    /// operation on the lane's operands.
    fn numeric_site(
        &mut self,
        frame: &mut Frame,
        symbol: &str,
        fails: Value,
        class: &str,
        a: Value,
        b: Value,
    ) {
        let text = format!("_a {symbol} _b");
        self.math_site(
            frame,
            fails,
            class,
            (text, vec!["_a".into(), "_b".into()], vec![a, b]),
        );
    }
}

/// The class of item 7's raise site (`int_beyond_raise`): an OverflowError of the vectorized
/// integers' 64 bits, which no `except` clause of the program catches.
const BEYOND_INT64: &str = "OverflowError of 64-bit integers (docs/semantics.md item 7)";

/// The first `return`, `raise` or `assert` in `body`, nested blocks included.
fn first_exit(body: &[ast::Stmt]) -> Option<&ast::Stmt> {
    use ast::Stmt as S;
    body.iter().find_map(|s| match s {
        S::Return(_) | S::Raise(_) | S::Assert(_) => Some(s),
        S::If(i) => first_exit(&i.body).or_else(|| first_exit(&i.orelse)),
        S::For(f) => first_exit(&f.body).or_else(|| first_exit(&f.orelse)),
        S::While(w) => first_exit(&w.body).or_else(|| first_exit(&w.orelse)),
        S::Try(t) => first_exit(&t.body)
            .or_else(|| {
                t.handlers.iter().find_map(|h| {
                    let ast::ExceptHandler::ExceptHandler(h) = h;
                    first_exit(&h.body)
                })
            })
            .or_else(|| first_exit(&t.orelse))
            .or_else(|| first_exit(&t.finalbody)),
        _ => None,
    })
}

/// Whether the clause may catch a `KeyError` or an `IndexError`, by the names it writes.
fn catches_lookup(h: &ast::ExceptHandler) -> bool {
    let ast::ExceptHandler::ExceptHandler(h) = h;
    let Some(t) = &h.type_ else { return true };
    let names: Vec<&ast::Expr> = match t.as_ref() {
        ast::Expr::Tuple(tt) => tt.elts.iter().collect(),
        one => vec![one],
    };
    names.iter().any(|n| match n {
        ast::Expr::Name(n) => matches!(
            n.id.as_str(),
            "KeyError" | "IndexError" | "LookupError" | "Exception" | "BaseException"
        ),
        _ => true, // a class it cannot name: it may
    })
}
