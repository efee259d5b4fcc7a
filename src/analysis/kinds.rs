//! Kind inference: the Python type of every value, from the parameters' kinds.
//!
//! The pipeline runs it with parameters of unknown kind (sound for every input) and again with
//! float parameters for the float fast path. Codegen reads the kinds to decide where a plain
//! Array API call is exact and where a runtime helper is needed.

use crate::ir::{
    const_kind, result_kind, walk_insts, walk_steps, Block, Const, Function, Inst, Kind, Op, Step,
    Value,
};
use crate::Map;

/// Recomputes every value's kind for the given parameter kinds (phis and if-merges to a fixpoint).
///
/// The first round gives each phi the kind of its initial value only (a placeholder starts at
/// `Bool`, the bottom of the numeric chain); later rounds join in the value from the loop body.
/// Kinds only rise from there, so the rounds settle.
pub fn infer_kinds(func: &mut Function, param_kinds: &[Kind]) {
    infer_kinds_with(func, param_kinds, &mut |_, _| Kind::Unknown);
}

/// The result kind of a call of out-of-line helper `callee` (`Op::Call`) for its arguments'
/// kinds: the kind its instance for those kinds returns (D7).
pub type CallKinds<'a> = dyn FnMut(usize, &[Kind]) -> Kind + 'a;

/// [`infer_kinds`] of a function that calls out-of-line helpers, whose result kinds `calls`
/// gives.
pub fn infer_kinds_with(func: &mut Function, param_kinds: &[Kind], calls: &mut CallKinds) {
    let body = std::mem::take(&mut func.body);
    let ctx = IndexCtx::new(&body);
    visit(func, &body, param_kinds, true, &ctx, calls);
    // Without loops and placeholders every operand's kind is final before its first read (SSA
    // in program order; a merge after both its sides): a second visit would change nothing.
    if !ctx.loops && !func.values.iter().any(|v| v.placeholder) {
        func.body = body;
        return;
    }
    for _ in 0..8 {
        let before: Vec<Kind> = func.values.iter().map(|v| v.kind).collect();
        visit(func, &body, param_kinds, false, &ctx, calls);
        if func.values.iter().map(|v| v.kind).eq(before) {
            break;
        }
    }
    func.body = body;
}

/// What `T[i]` can read: the constant tuples, and the values of each range loop's index.
struct IndexCtx {
    tuples: Map<Value, Vec<Const>>,
    ranges: Map<Value, (i128, i128, i128)>,
    /// Whether the body holds a loop.
    loops: bool,
}

impl IndexCtx {
    fn new(body: &Block) -> Self {
        let mut ctx = IndexCtx {
            tuples: Map::default(),
            ranges: Map::default(),
            loops: false,
        };
        walk_insts(body, &mut |inst| match inst {
            Inst::Let {
                dst,
                op: Op::Const(Const::Tuple(items) | Const::List(items)),
            } => {
                ctx.tuples.insert(*dst, items.clone());
            }
            Inst::Loop {
                index,
                start,
                stop,
                step,
                items: None,
                ..
            } => {
                ctx.ranges.insert(*index, (*start, *stop, *step));
                ctx.loops = true;
            }
            Inst::Loop { .. } => ctx.loops = true,
            _ => {}
        });
        ctx
    }

    /// The kind of `t[i]` for a constant tuple `t` and a loop index (or constant) `i`: the join
    /// of the items `i` can reach only, so `(0, 1.5)[i]` over `range(1)` stays an int.
    fn index_kind(&self, t: Value, i: Value) -> Option<Kind> {
        let items = self.tuples.get(&t)?;
        let len = items.len() as i128;
        let reach = |n: i128| {
            let idx = if n < 0 { n + len } else { n };
            (0..len)
                .contains(&idx)
                .then(|| const_kind(&items[idx as usize]))
        };
        if let Some(&(start, stop, step)) = self.ranges.get(&i) {
            if step == 0 {
                return None;
            }
            let mut kinds = vec![];
            let mut n = start;
            while (step > 0 && n < stop) || (step < 0 && n > stop) {
                kinds.push(reach(n)?);
                if kinds.len() > 4096 {
                    return None;
                }
                n += step;
            }
            return kinds.into_iter().reduce(Kind::join);
        }
        None
    }
}

fn visit(
    func: &mut Function,
    body: &Block,
    param_kinds: &[Kind],
    first: bool,
    ctx: &IndexCtx,
    calls: &mut CallKinds,
) {
    walk_steps(body, &mut |at| match at {
        Step::Enter(Inst::Let { dst, op }) => {
            let k = {
                let values = &func.values;
                result_kind(op, &|v: Value| values[v.index()].kind, param_kinds)
            };
            let k = match op {
                Op::Index(t, i) => ctx.index_kind(*t, *i).unwrap_or(k),
                Op::Call { callee, args } => {
                    let kinds: Vec<Kind> =
                        args.iter().map(|a| func.values[a.index()].kind).collect();
                    calls(*callee, &kinds)
                }
                _ => k,
            };
            // A placeholder takes the kind of the phi or merge it stands in for (set below).
            if !matches!(op, Op::Placeholder(_)) {
                func.values[dst.index()].kind = k;
            }
        }
        Step::Enter(Inst::Loop { phis, .. }) => {
            for phi in phis {
                let k = if first {
                    if is_placeholder(func, phi.init) {
                        Kind::Bool
                    } else {
                        func.values[phi.init.index()].kind
                    }
                } else {
                    merge_kind(func, phi.init, phi.next)
                };
                func.values[phi.dst.index()].kind = k;
                func.values[phi.init.index()].kind = placeholder_kind(func, phi.init, k);
            }
        }
        Step::Leave(Inst::Loop { phis, .. }) => {
            for phi in phis {
                let k = merge_kind(func, phi.init, phi.next);
                let k = Kind::join(k, func.values[phi.dst.index()].kind);
                func.values[phi.dst.index()].kind = k;
            }
        }
        Step::Leave(Inst::If { outs, .. }) => {
            for o in outs {
                let k = merge_kind(func, o.then, o.other);
                func.values[o.dst.index()].kind = k;
                for side in [o.then, o.other] {
                    func.values[side.index()].kind = placeholder_kind(func, side, k);
                }
            }
        }
        _ => {}
    });
}

fn is_placeholder(func: &Function, v: Value) -> bool {
    func.values[v.index()].placeholder
}

fn merge_kind(func: &Function, a: Value, b: Value) -> Kind {
    let ka = func.values[a.index()].kind;
    let kb = func.values[b.index()].kind;
    match (is_placeholder(func, a), is_placeholder(func, b)) {
        (true, false) => kb,
        (false, true) => ka,
        _ => Kind::join(ka, kb),
    }
}

fn placeholder_kind(func: &Function, v: Value, k: Kind) -> Kind {
    if is_placeholder(func, v) {
        k
    } else {
        func.values[v.index()].kind
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pipeline::testing::ir_after;

    #[test]
    fn int_parameters_give_the_kinds_python_gives() {
        let mut f = ir_after("def f(a, b):\n    return a // b + a / b\n", "lower");
        infer_kinds(&mut f, &[Kind::Int, Kind::Int]);
        let ir = f.to_string();
        assert!(
            ir.contains(": int = floordiv") && ir.contains(": float = div"),
            "{ir}"
        );
        infer_kinds(&mut f, &[Kind::Unknown, Kind::Int]);
        assert!(f.to_string().contains(": num = floordiv"), "{f}");
    }
}
