//! Kind inference: the Python type of every value, from the parameters' kinds.
//!
//! Lowering runs it with parameters of unknown kind (sound for every input); the pipeline re-runs
//! it with float parameters for the float fast path. Codegen reads the kinds to decide where a
//! plain Array API call is exact and where a runtime helper is needed (issue 3's lattice).

use crate::env::Const;
use crate::ir::{BinOp, Block, CastOp, Function, Inst, Kind, Op, Shape, UnOp, Value};

pub fn const_kind(c: &Const) -> Kind {
    match c {
        Const::Bool(_) => Kind::Bool,
        Const::Int(_) => Kind::Int,
        Const::Float(_) => Kind::Float,
        Const::Tuple(items) => items
            .iter()
            .map(const_kind)
            .reduce(Kind::join)
            .unwrap_or(Kind::Unknown),
    }
}

/// The kind of `op`'s result given its operands' kinds.
pub fn result_kind(op: &Op, kind: &impl Fn(Value) -> Kind, param_kinds: &[Kind]) -> Kind {
    match op {
        Op::Param(i) => param_kinds.get(*i).copied().unwrap_or(Kind::Unknown),
        Op::Const(c) | Op::Placeholder(c) => const_kind(c),
        Op::Unary(UnOp::Not, _) | Op::Compare(..) | Op::Logic(..) => Kind::Bool,
        Op::Unary(_, a) => match kind(*a) {
            Kind::Bool => Kind::Int,
            k => k,
        },
        Op::Binary(BinOp::Div, ..) => Kind::Float,
        Op::Binary(BinOp::Pow, a, b) => match (kind(*a), kind(*b)) {
            (Kind::Float, _) | (_, Kind::Float) => Kind::Float,
            // int ** int is an int only for non-negative exponents; resolved at run time.
            _ => Kind::Unknown,
        },
        Op::Binary(_, a, b) => Kind::arith(kind(*a), kind(*b)),
        Op::Select(_, a, b) => Kind::join(kind(*a), kind(*b)),
        Op::Math(m, _) => m.result,
        Op::Cast(CastOp::Float, _) => Kind::Float,
        Op::Cast(CastOp::Int | CastOp::Round, _) => Kind::Int,
        Op::Cast(CastOp::Bool, _) => Kind::Bool,
        Op::Index(t, _) => kind(*t),
        Op::ElementCall { .. } => Kind::Unknown,
        Op::Broadcast(a) | Op::AsArray(a) => kind(*a),
    }
}

/// Whether `op` gives a Python scalar (all operands scalar, computed by plain Python) or an array.
pub fn result_shape(op: &Op, shape: &impl Fn(Value) -> Shape) -> Shape {
    match op {
        Op::Const(_) => Shape::Scalar,
        Op::Param(_)
        | Op::Math(..)
        | Op::ElementCall { .. }
        | Op::Broadcast(_)
        | Op::AsArray(_)
        | Op::Placeholder(_) => Shape::Array,
        _ => {
            if op.operands().into_iter().all(|v| shape(v) == Shape::Scalar) {
                Shape::Scalar
            } else {
                Shape::Array
            }
        }
    }
}

/// Recomputes every value's kind for the given parameter kinds (phis and if-merges to a fixpoint).
///
/// The first round gives each phi the kind of its initial value only (a placeholder starts at
/// `Bool`, the bottom of the numeric chain); later rounds join in the value from the loop body.
/// Kinds only rise from there, so the rounds settle.
pub fn infer_kinds(func: &mut Function, param_kinds: &[Kind]) {
    let body = std::mem::take(&mut func.body);
    visit(func, &body.insts, param_kinds, true);
    for _ in 0..8 {
        let before: Vec<Kind> = func.values.iter().map(|v| v.kind).collect();
        visit(func, &body.insts, param_kinds, false);
        if func.values.iter().map(|v| v.kind).eq(before) {
            break;
        }
    }
    func.body = body;
}

fn visit(func: &mut Function, insts: &[Inst], param_kinds: &[Kind], first: bool) {
    for inst in insts {
        match inst {
            Inst::Let { dst, op } => {
                let k = {
                    let values = &func.values;
                    result_kind(op, &|v: Value| values[v.index()].kind, param_kinds)
                };
                // A placeholder takes the kind of the phi or merge it stands in for (set below).
                if !matches!(op, Op::Placeholder(_)) {
                    func.values[dst.index()].kind = k;
                }
            }
            Inst::Loop { phis, body, .. } => {
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
                visit(func, &body.insts, param_kinds, first);
                for phi in phis {
                    let k = merge_kind(func, phi.init, phi.next);
                    let k = Kind::join(k, func.values[phi.dst.index()].kind);
                    func.values[phi.dst.index()].kind = k;
                }
            }
            Inst::If {
                then, other, outs, ..
            } => {
                visit(func, &then.insts, param_kinds, first);
                visit(func, &other.insts, param_kinds, first);
                for o in outs {
                    let k = merge_kind(func, o.then, o.other);
                    func.values[o.dst.index()].kind = k;
                    for side in [o.then, o.other] {
                        func.values[side.index()].kind = placeholder_kind(func, side, k);
                    }
                }
            }
        }
    }
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

/// D3 for Python scalars: whether `a op b`, computed by plain Python on scalars, can raise (or
/// go complex) where the vectorized code must give the IEEE value instead (docs/semantics.md
/// item 16). A division by a known non-zero finite constant, or a power that folds, cannot.
/// Such an operation runs on a 0-d array (lowering and [`legalize`] insert the `AsArray`).
pub fn partial_binary(op: BinOp, a: Value, b: Value, konst: &impl Fn(Value) -> Option<Const>) -> bool {
    match op {
        BinOp::Div | BinOp::FloorDiv | BinOp::Mod => {
            !matches!(konst(b), Some(Const::Int(n)) if n != 0)
                && !matches!(konst(b), Some(Const::Float(f)) if f != 0.0 && f.is_finite())
        }
        // Constants that fold (int ** non-negative int) never reach here as a failure; anything
        // else may raise or go complex (`(-1) ** 0.5`).
        BinOp::Pow => crate::optimize::fold::fold_op(&Op::Binary(op, a, b), konst).is_none(),
        _ => false,
    }
}

/// Whether `int()`/`round()` of a Python scalar of kind `kind` (constant `c` when known) can
/// raise: nan and inf have no int, and a float beyond 64 bits no int array form (D3).
pub fn partial_cast(op: CastOp, kind: Kind, c: Option<&Const>) -> bool {
    matches!(op, CastOp::Int | CastOp::Round)
        && !matches!(kind, Kind::Int | Kind::Bool)
        && !matches!(c, Some(Const::Float(f)) if f.abs() < 9.2e18)
}

/// Recomputes every value's shape after optimization: folding and simplification turn array
/// values into Python scalars (`x if c else x` is `x`), and codegen must know which is which
/// (a Python scalar where an array is expected: 0-d results, `xp.where` on a Python bool).
/// Phis and if-merges are arrays when either input is; loop indices stay scalars.
pub fn infer_shapes(func: &mut Function) {
    let body = std::mem::take(&mut func.body);
    for _ in 0..16 {
        let before: Vec<Shape> = func.values.iter().map(|v| v.shape).collect();
        visit_shapes(func, &body.insts);
        if func.values.iter().map(|v| v.shape).eq(before) {
            break;
        }
    }
    func.body = body;
}

fn visit_shapes(func: &mut Function, insts: &[Inst]) {
    let join = |a: Shape, b: Shape| {
        if a == Shape::Array || b == Shape::Array {
            Shape::Array
        } else {
            Shape::Scalar
        }
    };
    for inst in insts {
        match inst {
            Inst::Let { dst, op } => {
                let s = {
                    let values = &func.values;
                    result_shape(op, &|v: Value| values[v.index()].shape)
                };
                func.values[dst.index()].shape = s;
            }
            Inst::Loop { phis, body, .. } => {
                for phi in phis {
                    let s = join(func.info(phi.init).shape, func.info(phi.next).shape);
                    func.values[phi.dst.index()].shape = s;
                }
                visit_shapes(func, &body.insts);
                for phi in phis {
                    let s = join(func.info(phi.init).shape, func.info(phi.next).shape);
                    func.values[phi.dst.index()].shape = s;
                }
            }
            Inst::If {
                then, other, outs, ..
            } => {
                visit_shapes(func, &then.insts);
                visit_shapes(func, &other.insts);
                for o in outs {
                    let s = join(func.info(o.then).shape, func.info(o.other).shape);
                    func.values[o.dst.index()].shape = s;
                }
            }
        }
    }
}

/// Restores lowering's invariants on the optimized IR, whose kinds and shapes are recomputed:
/// a partial operation of Python scalars (`partial_binary`, `partial_cast`) that simplification
/// left with scalar operands (`(i if c else i) // 0`) runs on a 0-d array again (D3,
/// docs/semantics.md item 16). Leaves `func` with fresh kinds and shapes.
pub fn legalize(func: &mut Function, param_kinds: &[Kind]) {
    infer_kinds(func, param_kinds);
    infer_shapes(func);
    let mut consts: crate::Map<Value, Const> = crate::Map::default();
    crate::ir::walk_insts(&func.body, &mut |inst| {
        if let Inst::Let {
            dst,
            op: Op::Const(c),
        } = inst
        {
            consts.insert(*dst, c.clone());
        }
    });
    let mut body = std::mem::take(&mut func.body);
    let changed = legalize_block(func, &mut body, &consts);
    func.body = body;
    if changed {
        infer_kinds(func, param_kinds);
        infer_shapes(func);
    }
}

fn legalize_block(func: &mut Function, block: &mut Block, consts: &crate::Map<Value, Const>) -> bool {
    let mut changed = false;
    let insts = std::mem::take(&mut block.insts);
    for mut inst in insts {
        match &mut inst {
            Inst::Let { op, .. } => {
                let scalar = |v: Value| func.info(v).shape == Shape::Scalar;
                let konst = |v: Value| consts.get(&v).cloned();
                let lift = match op {
                    Op::Binary(b, x, y)
                        if scalar(*x) && scalar(*y) && partial_binary(*b, *x, *y, &konst) =>
                    {
                        Some(*x)
                    }
                    Op::Cast(c, x)
                        if scalar(*x)
                            && partial_cast(*c, func.info(*x).kind, konst(*x).as_ref()) =>
                    {
                        Some(*x)
                    }
                    _ => None,
                };
                if let Some(x) = lift {
                    let kind = func.info(x).kind;
                    let arr = func.new_value(kind, Shape::Array, None);
                    block.insts.push(Inst::Let {
                        dst: arr,
                        op: Op::AsArray(x),
                    });
                    *op = op.map_operands(|v| if v == x { arr } else { v });
                    changed = true;
                }
            }
            Inst::Loop { body, .. } => changed |= legalize_block(func, body, consts),
            Inst::If { then, other, .. } => {
                changed |= legalize_block(func, then, consts);
                changed |= legalize_block(func, other, consts);
            }
        }
        block.insts.push(inst);
    }
    changed
}
