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
    let ctx = IndexCtx::new(&body);
    visit(func, &body.insts, param_kinds, true, &ctx);
    for _ in 0..8 {
        let before: Vec<Kind> = func.values.iter().map(|v| v.kind).collect();
        visit(func, &body.insts, param_kinds, false, &ctx);
        if func.values.iter().map(|v| v.kind).eq(before) {
            break;
        }
    }
    func.body = body;
}

/// What `T[i]` can read: the constant tuples, and the values of each range loop's index.
struct IndexCtx {
    tuples: crate::Map<Value, Vec<Const>>,
    ranges: crate::Map<Value, (i128, i128, i128)>,
}

impl IndexCtx {
    fn new(body: &Block) -> Self {
        let mut ctx = IndexCtx {
            tuples: crate::Map::default(),
            ranges: crate::Map::default(),
        };
        crate::ir::walk_insts(body, &mut |inst| match inst {
            Inst::Let {
                dst,
                op: Op::Const(Const::Tuple(items)),
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
            }
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

fn visit(func: &mut Function, insts: &[Inst], param_kinds: &[Kind], first: bool, ctx: &IndexCtx) {
    for inst in insts {
        match inst {
            Inst::Let { dst, op } => {
                let k = {
                    let values = &func.values;
                    result_kind(op, &|v: Value| values[v.index()].kind, param_kinds)
                };
                let k = match op {
                    Op::Index(t, i) => ctx.index_kind(*t, *i).unwrap_or(k),
                    _ => k,
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
                visit(func, &body.insts, param_kinds, first, ctx);
                for phi in phis {
                    let k = merge_kind(func, phi.init, phi.next);
                    let k = Kind::join(k, func.values[phi.dst.index()].kind);
                    func.values[phi.dst.index()].kind = k;
                }
            }
            Inst::If {
                then, other, outs, ..
            } => {
                visit(func, &then.insts, param_kinds, first, ctx);
                visit(func, &other.insts, param_kinds, first, ctx);
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
pub fn partial_binary(
    op: BinOp,
    a: Value,
    b: Value,
    konst: &impl Fn(Value) -> Option<Const>,
) -> bool {
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
    // A placeholder's value is never observed (the variable is assigned before any read), but it
    // is an operand all the same: the merge takes the other side's shape, as its kind
    // (`merge_kind`), and the placeholder takes the merge's, so that codegen writes it as what
    // the merge is (a Python zero for a scalar, a 0-d array for an array).
    let join = |func: &mut Function, a: Value, b: Value| {
        let (sa, sb) = (func.info(a).shape, func.info(b).shape);
        let s = match (is_placeholder(func, a), is_placeholder(func, b)) {
            (true, false) => sb,
            (false, true) => sa,
            _ if sa == Shape::Array || sb == Shape::Array => Shape::Array,
            _ => Shape::Scalar,
        };
        for v in [a, b] {
            if is_placeholder(func, v) {
                func.values[v.index()].shape = s;
            }
        }
        s
    };
    for inst in insts {
        match inst {
            Inst::Let {
                op: Op::Placeholder(_),
                ..
            } => {}
            Inst::Let { dst, op } => {
                let s = {
                    let values = &func.values;
                    result_shape(op, &|v: Value| values[v.index()].shape)
                };
                func.values[dst.index()].shape = s;
            }
            Inst::Loop { phis, body, .. } => {
                for phi in phis {
                    let s = join(func, phi.init, phi.next);
                    func.values[phi.dst.index()].shape = s;
                }
                visit_shapes(func, &body.insts);
                for phi in phis {
                    let s = join(func, phi.init, phi.next);
                    func.values[phi.dst.index()].shape = s;
                }
            }
            Inst::If {
                then, other, outs, ..
            } => {
                visit_shapes(func, &then.insts);
                visit_shapes(func, &other.insts);
                for o in outs {
                    let s = join(func, o.then, o.other);
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

fn legalize_block(
    func: &mut Function,
    block: &mut Block,
    consts: &crate::Map<Value, Const>,
) -> bool {
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

/// Which int values may lie outside int64: a Python int scalar beyond int64 (a literal in
/// [2**63, 2**64) or beyond, arithmetic on constants that did not fold), or an integer array
/// that may be uint64 at run time (in the exact body an int derived from a parameter of unknown
/// kind: `round(u)` of a uint64 array stays uint64; the uint64 lattice of the helpers). Codegen
/// prints a plain operator or `xp.where` on two ints only when neither is wide: NumPy promotes
/// int64 with uint64 to float64 (inexact) and turns a Python int beyond int64 into an error, and
/// strict backends refuse both (docs/semantics.md items 13 and 17).
///
/// Python int scalars get an interval (constants, loop indices, `+ - *`, `//` and `%` by
/// constants, ternaries, merges); arrays are int64 when every int they derive from is.
pub fn wide_ints(func: &Function) -> Vec<bool> {
    let mut st = WideState {
        range: vec![None; func.values.len()],
        wide: vec![false; func.values.len()],
        defs: vec![None; func.values.len()],
    };
    crate::ir::walk_insts(&func.body, &mut |inst| {
        if let Inst::Let { dst, op } = inst {
            st.defs[dst.index()] = Some(op.clone());
        }
    });
    for round in 0..8 {
        let before = (st.range.clone(), st.wide.clone());
        st.block(func, &func.body, round >= 3);
        if before == (st.range.clone(), st.wide.clone()) {
            break;
        }
    }
    (0..func.values.len())
        .map(|i| {
            let info = &func.values[i];
            match (info.kind, info.shape) {
                (Kind::Float | Kind::Bool, _) => false,
                (_, Shape::Scalar) => !st.range[i].is_some_and(fits_int64),
                (_, Shape::Array) => st.wide[i] || info.kind == Kind::Unknown,
            }
        })
        .collect()
}

type Range = Option<(i128, i128)>;

fn fits_int64((lo, hi): (i128, i128)) -> bool {
    lo >= -(1i128 << 63) && hi < (1i128 << 63)
}

/// The value of an int or bool constant as a range; None for any other constant.
fn const_range(c: &Const) -> Range {
    match c {
        Const::Int(n) => Some((*n, *n)),
        Const::Bool(b) => Some((i128::from(*b), i128::from(*b))),
        _ => None,
    }
}

/// The range of a constant tuple's items, when they are all ints or bools.
fn items_range(items: &[Const]) -> Range {
    items.iter().map(const_range).reduce(hull).flatten()
}

fn hull(a: Range, b: Range) -> Range {
    let ((a0, a1), (b0, b1)) = (a?, b?);
    Some((a0.min(b0), a1.max(b1)))
}

struct WideState {
    range: Vec<Range>,
    wide: Vec<bool>,
    defs: Vec<Option<Op>>,
}

impl WideState {
    fn block(&mut self, func: &Function, block: &Block, widen: bool) {
        for inst in &block.insts {
            match inst {
                Inst::Let { dst, op } => {
                    self.range[dst.index()] = self.op_range(func, op);
                    self.wide[dst.index()] = self.op_wide(func, op);
                }
                Inst::Loop {
                    index,
                    start,
                    stop,
                    step,
                    items,
                    phis,
                    body,
                } => {
                    self.range[index.index()] = match items {
                        Some(Const::Tuple(items)) => items_range(items),
                        Some(_) => None,
                        None => {
                            let trips = ((stop - start) + step - step.signum()) / step;
                            let last = start + (trips.max(1) - 1) * step;
                            Some(((*start).min(last), (*start).max(last)))
                        }
                    };
                    for p in phis {
                        self.merge_into(p.dst, p.init, p.next, widen);
                    }
                    self.block(func, body, widen);
                    for p in phis {
                        self.merge_into(p.dst, p.init, p.next, widen);
                    }
                }
                Inst::If {
                    then, other, outs, ..
                } => {
                    self.block(func, then, widen);
                    self.block(func, other, widen);
                    for o in outs {
                        self.merge_into(o.dst, o.then, o.other, widen);
                    }
                }
            }
        }
    }

    /// `dst` is `a` or `b`; with `widen`, a range that still grows is given up.
    fn merge_into(&mut self, dst: Value, a: Value, b: Value, widen: bool) {
        let joined = hull(self.range[a.index()], self.range[b.index()]);
        let old = self.range[dst.index()];
        self.range[dst.index()] = if widen && old.is_some() && old != joined {
            None
        } else {
            joined
        };
        self.wide[dst.index()] |= self.wide[a.index()] || self.wide[b.index()];
    }

    fn op_range(&self, func: &Function, op: &Op) -> Range {
        let r = |v: &Value| self.range[v.index()];
        let scalar = |v: &Value| func.info(*v).shape == Shape::Scalar;
        if !op.operands().iter().all(scalar) {
            return None;
        }
        match op {
            Op::Const(c @ (Const::Int(_) | Const::Bool(_))) => const_range(c),
            Op::Unary(UnOp::Pos, a) | Op::Cast(CastOp::Int | CastOp::Round, a) => {
                if func.info(*a).kind == Kind::Float {
                    None
                } else {
                    r(a)
                }
            }
            Op::Unary(UnOp::Neg, a) => {
                let (lo, hi) = r(a)?;
                Some((-hi, -lo))
            }
            Op::Unary(UnOp::Abs, a) => {
                let (lo, hi) = r(a)?;
                let m = lo.abs().max(hi.abs());
                Some((
                    if lo <= 0 && hi >= 0 {
                        0
                    } else {
                        lo.abs().min(hi.abs())
                    },
                    m,
                ))
            }
            Op::Binary(b, x, y)
                if func.info(*x).kind != Kind::Float && func.info(*y).kind != Kind::Float =>
            {
                let ((x0, x1), (y0, y1)) = (r(x)?, r(y)?);
                let corners = |f: fn(i128, i128) -> Option<i128>| -> Range {
                    let c = [f(x0, y0)?, f(x0, y1)?, f(x1, y0)?, f(x1, y1)?];
                    Some((*c.iter().min()?, *c.iter().max()?))
                };
                match b {
                    BinOp::Add => Some((x0.checked_add(y0)?, x1.checked_add(y1)?)),
                    BinOp::Sub => Some((x0.checked_sub(y1)?, x1.checked_sub(y0)?)),
                    BinOp::Mul => corners(i128::checked_mul),
                    // By a divisor range without zero: floor division is monotone in each
                    // argument between the corners.
                    BinOp::FloorDiv if y0 > 0 || y1 < 0 => corners(|a, b| {
                        let q = a.checked_div(b)?;
                        Some(if a % b != 0 && ((a < 0) != (b < 0)) {
                            q - 1
                        } else {
                            q
                        })
                    }),
                    BinOp::Mod if y0 > 0 => Some((0, y1 - 1)),
                    BinOp::Mod if y1 < 0 => Some((y0 + 1, 0)),
                    _ => None,
                }
            }
            Op::Select(_, a, b) => hull(r(a), r(b)),
            Op::Index(t, _) => match &self.defs[t.index()] {
                Some(Op::Const(Const::Tuple(items))) => items_range(items),
                _ => None,
            },
            _ => None,
        }
    }

    fn op_wide(&self, func: &Function, op: &Op) -> bool {
        let kind = |v: &Value| func.info(*v).kind;
        // An int operand that may be out of int64: a wide array, a scalar without a safe range,
        // or a value of unknown kind.
        let w = |v: &Value| match (kind(v), func.info(*v).shape) {
            (Kind::Float | Kind::Bool, _) => false,
            (Kind::Unknown, _) => true,
            (Kind::Int, Shape::Scalar) => !self.range[v.index()].is_some_and(fits_int64),
            (Kind::Int, Shape::Array) => self.wide[v.index()],
        };
        match op {
            Op::Param(_) | Op::Placeholder(_) | Op::Const(_) => false,
            // math.floor/ceil/trunc of an int return it unchanged (codegen passes the argument).
            Op::Cast(CastOp::Int, a) => match self.defs[a.index()].as_ref() {
                Some(Op::Math(m, args)) if matches!(m.name, "floor" | "ceil" | "trunc") => {
                    args.first().is_some_and(&w)
                }
                _ => w(a),
            },
            Op::Cast(CastOp::Round, a) | Op::AsArray(a) | Op::Broadcast(a) => w(a),
            Op::Unary(_, a) => w(a),
            Op::Binary(_, x, y) | Op::Select(_, x, y) => w(x) || w(y),
            _ => false,
        }
    }
}
