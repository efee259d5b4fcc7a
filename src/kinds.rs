//! Kind inference: the Python type of every value, from the parameters' kinds.
//!
//! Lowering runs it with parameters of unknown kind (sound for every input); the pipeline re-runs
//! it with float parameters for the float fast path. Codegen reads the kinds to decide where a
//! plain Array API call is exact and where a runtime helper is needed (issue 3's lattice).

use crate::env::Const;
use crate::ir::{BinOp, CastOp, Function, Inst, Kind, Op, Shape, UnOp, Value};

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
