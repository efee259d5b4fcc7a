//! Packed `while` loops (D12): once most lanes of a data-dependent loop have finished, its
//! iterations compute the lanes still running only.
//!
//! A masked loop (`while _vec_any(xp, active):`, src/codegen/stmts.rs) computes every lane on
//! every iteration and keeps the results of the active ones: a Newton solver whose lanes take
//! 3 to 40 iterations pays 40 full iterations. In the float body, around each such loop whose
//! body computes every lane from that lane's own operands (`lane_wise`), this pass adds
//!
//! ```text
//! lanes = _vec_lanes(xp, 2, x, active, a)          # carried variables, then locals read
//! while _vec_any(xp, active):
//!     if lanes is not None:
//!         x, active, a = _vec_pack(xp, lanes, active, x, active, a)
//!     ...                                           # the body as it was
//! if lanes is not None:
//!     x, active, a = _vec_unpack(xp, lanes, x, active, a)
//! ```
//!
//! `_vec_pack` (runtime/loops.py) leaves the values alone until at most half of the current
//! lanes are active, then gathers every array among them to the active lanes (keeping the
//! carried values of the others); `_vec_unpack` scatters the carried variables back and gives
//! the locals their own arrays again. Every lane keeps its values and takes the same operations,
//! so results are bit for bit those of the unpacked loop: the pass only applies where nothing in
//! the body looks across lanes (a table's IndexError for the first bad lane, `int ** int`'s
//! dtype decided over the whole array, item 12). A `raise` in the body is no such thing: the
//! loop records a code per lane, a carried variable like any other, and the check after the
//! body runs on every lane (D11).

use std::collections::BTreeSet;

use super::runtime::{
    Helper, ANY, BOOL0D, BROADCAST, CLIP, ERF, ERFC, F64, FMOD, FSUM, GAMMA, LANES, LGAMMA, OWNED,
    PACK, PICK, REMAINDER, ROUND_DIGITS, SELECT, UNPACK,
};
use super::PYTHON_NAMES;
use crate::codegen::pyast::{call, cmp, name, reads, Expr, Stmt};

/// Runtime helpers a packed body may call: each computes a lane from that lane's operands.
const LANE_WISE_HELPERS: &[Helper] = &[
    ANY,
    F64,
    BOOL0D,
    PICK,
    CLIP,
    OWNED,
    SELECT,
    BROADCAST,
    ERF,
    ERFC,
    GAMMA,
    LGAMMA,
    FMOD,
    REMAINDER,
    FSUM,
    ROUND_DIGITS,
];

/// `_vec_binary` / `_vec_unary` operations that decide over the whole array (item 12).
const WHOLE_ARRAY_OPS: &[&str] = &["pow", "np_pow"];

/// `body` (a function's statements after its prologue, which binds `params`) with each eligible
/// `while _vec_any(xp, mask):` loop packed. `fresh` names the state variable of each packed loop.
pub(super) fn pack_while_loops(
    body: Vec<Stmt>,
    xp: &str,
    params: &[String],
    fresh: &mut dyn FnMut() -> String,
) -> Vec<Stmt> {
    if !has_while_loop(&body) {
        return body;
    }
    let all = body.clone();
    let mut packer = Packer {
        xp,
        params,
        fresh,
        function: &all,
    };
    rewrite_while_loops(
        body,
        &mut |test, original, inner, out| match packer.plan(&test, original) {
            Some((mask, carried, locals)) => {
                packer.packed(&mask, &carried, &locals, test, inner, out)
            }
            None => out.push(Stmt::While(test, inner)),
        },
    )
}

/// Whether `body` holds a `while` loop where [`rewrite_while_loops`] looks for one: when not,
/// the loop rewrites return it as it is, and need no copy of the function as it was.
pub(super) fn has_while_loop(body: &[Stmt]) -> bool {
    body.iter().any(|s| match s {
        Stmt::While(..) => true,
        Stmt::If(_, then, other) => has_while_loop(then) || has_while_loop(other),
        Stmt::For(_, _, inner) => has_while_loop(inner),
        _ => false,
    })
}

/// What replaces a `while` loop: `rewrite(test, the body as it was, the body rewritten, out)`
/// pushes its statements to `out`.
pub(super) type LoopRewrite<'a> = dyn FnMut(Expr, &[Stmt], Vec<Stmt>, &mut Vec<Stmt>) + 'a;

/// `body` with each `while` loop, innermost first, replaced by the statements `rewrite` pushes
/// for it.
pub(super) fn rewrite_while_loops(body: Vec<Stmt>, rewrite: &mut LoopRewrite) -> Vec<Stmt> {
    let mut out = Vec::with_capacity(body.len());
    for s in body {
        match s {
            Stmt::While(test, inner) => {
                let original = inner.clone();
                let inner = rewrite_while_loops(inner, rewrite);
                rewrite(test, &original, inner, &mut out);
            }
            Stmt::If(c, then, other) => {
                let then = rewrite_while_loops(then, rewrite);
                let other = rewrite_while_loops(other, rewrite);
                out.push(Stmt::If(c, then, other));
            }
            Stmt::For(target, iter, inner) => {
                let inner = rewrite_while_loops(inner, rewrite);
                out.push(Stmt::For(target, iter, inner));
            }
            s => out.push(s),
        }
    }
    out
}

/// The mask `m` of a masked loop's test, `_vec_any(xp, m)` (D12).
pub(super) fn loop_mask(test: &Expr, xp: &str) -> Option<String> {
    match test {
        Expr::Call(f, args, kw) if **f == name(ANY.name) && kw.is_empty() && args.len() == 2 => {
            match (&args[0], &args[1]) {
                (Expr::Name(x), Expr::Name(m)) if x == xp => Some(m.clone()),
                _ => None,
            }
        }
        _ => None,
    }
}

struct Packer<'a> {
    xp: &'a str,
    /// The function's parameters, bound by its prologue.
    params: &'a [String],
    fresh: &'a mut dyn FnMut() -> String,
    /// The whole function, as it was: what is read and written outside each loop.
    function: &'a [Stmt],
}

impl Packer<'_> {
    /// The mask, the carried variables and the locals the loop reads, when it may be packed.
    fn plan(&self, test: &Expr, inner: &[Stmt]) -> Option<(String, Vec<String>, Vec<String>)> {
        let mask = loop_mask(test, self.xp)?;
        if !inner.iter().all(|s| self.lane_wise_stmt(s)) {
            return None;
        }
        let mut written = BTreeSet::new();
        inner.iter().for_each(|s| writes(s, &mut written));
        let mut read = BTreeSet::new();
        inner.iter().for_each(|s| reads(s, &mut read));
        // Names bound or read by the rest of the function: a variable written in the loop is
        // carried when it is bound before it too (a phi); one written only in the loop is a
        // temporary of an iteration, which nothing after the loop may read.
        let mut bound_elsewhere: BTreeSet<String> = self.params.iter().cloned().collect();
        let mut read_elsewhere = BTreeSet::new();
        outside_loop(
            self.function,
            inner,
            &mut bound_elsewhere,
            &mut read_elsewhere,
        );
        let carried: Vec<String> = written
            .iter()
            .filter(|n| bound_elsewhere.contains(*n))
            .cloned()
            .collect();
        if !carried.contains(&mask) {
            return None;
        }
        if written
            .iter()
            .any(|n| !carried.contains(n) && read_elsewhere.contains(n))
        {
            return None;
        }
        let locals: Vec<String> = read
            .iter()
            .filter(|n| !written.contains(**n) && **n != self.xp && bound_elsewhere.contains(**n))
            .map(|n| n.to_string())
            .collect();
        Some((mask, carried, locals))
    }

    fn packed(
        &mut self,
        mask: &str,
        carried: &[String],
        locals: &[String],
        test: Expr,
        inner: Vec<Stmt>,
        out: &mut Vec<Stmt>,
    ) {
        let lanes = (self.fresh)();
        let values: Vec<Expr> = carried.iter().chain(locals).map(|n| name(n)).collect();
        let targets: Vec<String> = carried.iter().chain(locals).cloned().collect();
        let helper = |h: &Helper, mut args: Vec<Expr>| {
            let mut all = vec![name(self.xp)];
            all.append(&mut args);
            call(name(h.name), all)
        };
        let mut start = vec![Expr::Int(carried.len() as i128)];
        start.extend(values.iter().cloned());
        out.push(Stmt::Assign(
            vec![lanes.clone()],
            vec![helper(&LANES, start)],
        ));
        let packing = cmp("is not", name(&lanes), Expr::None);
        let mut pack = vec![name(&lanes), name(mask)];
        pack.extend(values.iter().cloned());
        let mut body = vec![Stmt::If(
            packing.clone(),
            vec![Stmt::Assign(targets.clone(), vec![helper(&PACK, pack)])],
            vec![],
        )];
        body.extend(inner);
        out.push(Stmt::While(test, body));
        let mut unpack = vec![name(&lanes)];
        unpack.extend(values);
        out.push(Stmt::If(
            packing,
            vec![Stmt::Assign(targets, vec![helper(&UNPACK, unpack)])],
            vec![],
        ));
    }

    fn lane_wise_stmt(&self, s: &Stmt) -> bool {
        match s {
            Stmt::Assign(_, values) => values.iter().all(|e| self.lane_wise(e)),
            Stmt::AugAssign(_, _, e) | Stmt::Expr(e) => self.lane_wise(e),
            Stmt::If(c, then, other) => {
                self.lane_wise(c) && then.iter().chain(other).all(|s| self.lane_wise_stmt(s))
            }
            Stmt::For(_, e, body) | Stmt::While(e, body) => {
                self.lane_wise(e) && body.iter().all(|s| self.lane_wise_stmt(s))
            }
            Stmt::Return(_) | Stmt::Del(_) | Stmt::Def { .. } => false,
        }
    }

    /// `e` computes each lane from that lane's operands: its calls are of `xp`'s functions,
    /// of Python's builtins on scalars, or of the lane-wise runtime helpers.
    fn lane_wise(&self, e: &Expr) -> bool {
        match e {
            Expr::Name(_)
            | Expr::Int(_)
            | Expr::Float(_)
            | Expr::Bool(_)
            | Expr::Str(_)
            | Expr::Text(_)
            | Expr::None => true,
            Expr::Lambda(..) => false,
            Expr::Tuple(items) | Expr::List(items) => items.iter().all(|e| self.lane_wise(e)),
            Expr::Attr(base, _) | Expr::Field(base, _) => self.lane_wise(base),
            Expr::Call(f, args, kwargs) => {
                self.lane_wise_callee(f, args)
                    && args.iter().all(|e| self.lane_wise(e))
                    && kwargs.iter().all(|(_, e)| self.lane_wise(e))
            }
            Expr::Neg(a) | Expr::Pos(a) | Expr::Not(a) => self.lane_wise(a),
            Expr::Bin(_, a, b)
            | Expr::Cmp(_, a, b)
            | Expr::BoolOp(_, a, b)
            | Expr::Subscript(a, b) => self.lane_wise(a) && self.lane_wise(b),
            Expr::IfExp(c, a, b) => self.lane_wise(c) && self.lane_wise(a) && self.lane_wise(b),
        }
    }

    fn lane_wise_callee(&self, f: &Expr, args: &[Expr]) -> bool {
        match f {
            Expr::Attr(base, _) => matches!(&**base, Expr::Name(x) if x == self.xp),
            Expr::Name(n) if PYTHON_NAMES.contains(&n.as_str()) => true,
            Expr::Name(n) if n == "_vec_binary" || n == "_vec_unary" => {
                matches!(args.get(1), Some(Expr::Str(op)) if !WHOLE_ARRAY_OPS.contains(op))
            }
            Expr::Name(n) => LANE_WISE_HELPERS.iter().any(|h| h.name == n),
            _ => false,
        }
    }
}

/// Adds every name `s` binds (nested blocks included) to `out`.
pub(super) fn writes(s: &Stmt, out: &mut BTreeSet<String>) {
    match s {
        Stmt::Assign(targets, _) => out.extend(targets.iter().cloned()),
        Stmt::AugAssign(t, _, _) => {
            out.insert(t.clone());
        }
        Stmt::If(_, then, other) => then.iter().chain(other).for_each(|s| writes(s, out)),
        Stmt::For(t, _, body) => {
            out.insert(t.clone());
            body.iter().for_each(|s| writes(s, out));
        }
        Stmt::While(_, body) => body.iter().for_each(|s| writes(s, out)),
        Stmt::Return(_) | Stmt::Expr(_) | Stmt::Del(_) | Stmt::Def { .. } => {}
    }
}

/// The names bound and read by `stmts` (nested blocks included) outside the loop whose body is
/// `inner` (found by equality: generated names are unique within a function).
pub(super) fn outside_loop(
    stmts: &[Stmt],
    inner: &[Stmt],
    bound: &mut BTreeSet<String>,
    read: &mut BTreeSet<String>,
) {
    for s in stmts {
        match s {
            Stmt::While(test, body) if body.as_slice() == inner => expr_names(test, read),
            Stmt::If(c, then, other) => {
                expr_names(c, read);
                outside_loop(then, inner, bound, read);
                outside_loop(other, inner, bound, read);
            }
            Stmt::For(t, iter, body) => {
                bound.insert(t.clone());
                expr_names(iter, read);
                outside_loop(body, inner, bound, read);
            }
            Stmt::While(test, body) => {
                expr_names(test, read);
                outside_loop(body, inner, bound, read);
            }
            s => {
                writes(s, bound);
                let mut r = BTreeSet::new();
                reads(s, &mut r);
                read.extend(r.into_iter().map(String::from));
            }
        }
    }
}

fn expr_names(e: &Expr, out: &mut BTreeSet<String>) {
    let s = Stmt::Expr(e.clone());
    let mut r = BTreeSet::new();
    reads(&s, &mut r);
    out.extend(r.into_iter().map(String::from));
}

#[cfg(test)]
mod tests {
    use crate::pipeline::testing::compiled;

    const NEWTON: &str = "def f(m, e):\n    ecc = m\n    n = 0\n    while n < 50:\n        step = (ecc - e * math.sin(ecc) - m) / (1.0 - e * math.cos(ecc))\n        ecc = ecc - step\n        if abs(step) < 1e-12:\n            return ecc\n        n += 1\n    return ecc\n";

    #[test]
    fn a_lane_wise_while_loop_of_the_float_body_is_packed() {
        let c = compiled(NEWTON);
        let fast = &c.generated.fast_source;
        // Carried: the mask, `done`, `ecc` and the Python int `n`; read: `e`, `m`, `tmp`.
        let values = "active, done, ecc, n, e, m, tmp";
        // The loop then made a step function (src/codegen/loop_fn.rs) of the names it binds,
        // the locals `_vec_pack` rebinds among them.
        let step = "active, done, e, ecc, m, n, tmp";
        assert!(
            fast.contains(&format!(
                "    lanes = _vec_lanes(xp, 4, {values})\n    def iteration({step}):\n"
            )),
            "{fast}"
        );
        assert!(
            fast.contains(&format!("        if lanes is not None:\n            {values} = _vec_pack(xp, lanes, active, {values})\n")),
            "{fast}"
        );
        assert!(
            fast.contains(&format!(
                "    {step} = _vec_while(xp, iteration, 0, {step}, lane_wise=True)\n"
            )),
            "{fast}"
        );
        assert!(
            fast.contains(&format!("    if lanes is not None:\n        {values} = _vec_unpack(xp, lanes, {values})\n    del tmp\n")),
            "{fast}"
        );
        // The exact body is left as it was, and its loop runs every lane under tracing too.
        assert!(!c.generated.exact_source.contains("_vec_lanes"));
        assert!(!c.generated.exact_source.contains("lane_wise"));
    }
}
