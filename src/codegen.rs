//! Codegen: the optimized IR as a Python AST, then as text.
//!
//! The generated module has two functions (ARCHITECTURE.md, "Generated code"): the entry, whose
//! body is the IR compiled with float parameters, and `_vec_exact_<name>`, the same IR compiled
//! with parameters of unknown kind. Per operation, the operands' kinds decide between a plain
//! Array API expression and a runtime helper (issue 3: exactness without slowing the float path).
//!
//! Values used once, in the block that defines them, are inlined into their use; every other
//! value gets a variable named after the source variable it was assigned to.

use std::collections::BTreeSet;

use crate::env::Const;
use crate::ir::{
    use_counts, BinOp, Block, CastOp, CmpOp, Function, Inst, Kind, LogicOp, Op, Shape, UnOp, Value,
};
use crate::lower::Hidden;
use crate::pyast::{self, attr, bin, call, cmp, name, Expr, Stmt};

pub const FLOAT_ARGS: &str = "_vec_float_args";
pub const EXACT_ARGS: &str = "_vec_exact_args";
pub const BINARY: &str = "_vec_binary";
pub const UNARY: &str = "_vec_unary";
pub const SELECT: &str = "_vec_select";
pub const BROADCAST: &str = "_vec_broadcast";
pub const ELEMENTWISE: &str = "_vec_elementwise";
/// `_vec_f64(xp, v)`: Python scalar `v` as a float64 0-d value of `xp` (float body only).
pub const F64: &str = "_vec_f64";
/// `_vec_pick(xp, op, a, b)`: `a if a op b else b` per lane, float operands (float body only).
pub const PICK: &str = "_vec_pick";

/// Deepest chain of operations inlined into one expression.
const MAX_INLINE_DEPTH: usize = 24;

/// Names the generated code reads as globals or builtins: never used for variables.
const RESERVED: &[&str] = &[
    FLOAT_ARGS,
    EXACT_ARGS,
    BINARY,
    UNARY,
    SELECT,
    BROADCAST,
    ELEMENTWISE,
    F64,
    PICK,
    "float",
    "int",
    "bool",
    "round",
    "abs",
    "range",
    "None",
    "True",
    "False",
];

/// How the declared parameters split: the first `posonly` are positional-only, the last
/// `kwonly` keyword-only.
#[derive(Debug, Clone, Copy)]
pub struct Signature {
    pub posonly: usize,
    pub kwonly: usize,
}

/// The generated module: its text and the name of the function to call.
pub struct Generated {
    pub source: String,
    pub entry: String,
}

pub fn generate(
    float_ir: &Function,
    exact_ir: &Function,
    hidden: &[Hidden],
    signature: Signature,
) -> Generated {
    let entry = python_name(&exact_ir.name);
    let exact_name = format!("_vec_exact_{entry}");
    let declared = &exact_ir.params[..exact_ir.declared_params];
    let positional: Vec<String> = declared[..declared.len() - signature.kwonly].to_vec();
    let kw: Vec<String> = declared[declared.len() - signature.kwonly..].to_vec();
    // Array parameters go through the argument prologues; callees do not. Hidden values (D8)
    // are globals of the generated module, bound by emit: the entry's signature is exactly the
    // original's.
    let array_params: Vec<String> = exact_ir
        .params
        .iter()
        .enumerate()
        .filter(|(i, _)| {
            *i < exact_ir.declared_params
                || matches!(
                    hidden.get(i - exact_ir.declared_params),
                    Some(Hidden::Array(_))
                )
        })
        .map(|(_, p)| p.clone())
        .collect();

    let reserved: BTreeSet<String> = exact_ir
        .params
        .iter()
        .cloned()
        .chain(RESERVED.iter().map(|s| s.to_string()))
        .collect();
    let xp = unique("xp", &reserved);
    let arrays_var = unique("arrays", &reserved);

    // Float entry.
    let mut float_body = vec![];
    let args: Vec<Expr> = array_params.iter().map(|p| name(p)).collect();
    float_body.push(Stmt::Assign(
        vec![arrays_var.clone()],
        vec![call(name(FLOAT_ARGS), args.clone())],
    ));
    let pass_through = call(
        name(&exact_name),
        declared.iter().map(|p| name(p)).collect(),
    );
    float_body.push(Stmt::If(
        cmp("is", name(&arrays_var), Expr::None),
        vec![Stmt::Return(pass_through)],
        vec![],
    ));
    // A hidden array is read from the module's globals and converted into a local of its own
    // (a local of the same name would make the global unreadable in the function).
    let mut taken = reserved.clone();
    taken.insert(xp.clone());
    taken.insert(arrays_var.clone());
    let locals: Vec<String> = exact_ir
        .params
        .iter()
        .enumerate()
        .map(|(i, p)| {
            if i < exact_ir.declared_params {
                return p.clone();
            }
            let local = unique(&format!("{}_array", p.to_lowercase()), &taken);
            taken.insert(local.clone());
            local
        })
        .collect();
    let local_arrays: Vec<String> = exact_ir
        .params
        .iter()
        .zip(&locals)
        .filter(|(p, _)| array_params.contains(p))
        .map(|(_, l)| l.clone())
        .collect();
    let mut unpack = vec![xp.clone()];
    unpack.extend(local_arrays.iter().cloned());
    float_body.push(Stmt::Assign(unpack.clone(), vec![name(&arrays_var)]));
    float_body.extend(
        Gen::new(float_ir, &xp, &taken, &local_arrays, &locals)
            .in_float_body()
            .function_body(),
    );

    let mut exact_body = vec![Stmt::Assign(unpack, vec![call(name(EXACT_ARGS), args)])];
    exact_body.extend(Gen::new(exact_ir, &xp, &taken, &local_arrays, &locals).function_body());

    let module = vec![
        Stmt::Def {
            name: entry.clone(),
            params: positional,
            posonly: signature.posonly,
            kwonly: kw,
            body: float_body,
        },
        Stmt::Def {
            name: exact_name,
            params: declared.to_vec(),
            posonly: 0,
            kwonly: vec![],
            body: exact_body,
        },
    ];
    Generated {
        source: pyast::module(&module),
        entry,
    }
}

/// Constant `c` converted to kind `k` when `k` is wider (bool < int < float).
fn in_kind(c: &Const, k: Kind) -> Const {
    match (c, k) {
        (Const::Bool(b), Kind::Int) => Const::Int(i128::from(*b)),
        (Const::Bool(b), Kind::Float) => Const::Float(f64::from(u8::from(*b))),
        (Const::Int(i), Kind::Float) => Const::Float(*i as f64),
        _ => c.clone(),
    }
}

fn python_name(n: &str) -> String {
    if n == "<lambda>" {
        "_lambda".into()
    } else {
        n.to_string()
    }
}

pub(crate) fn unique(base: &str, taken: &BTreeSet<String>) -> String {
    if !taken.contains(base) {
        return base.to_string();
    }
    (1..)
        .map(|i| format!("{base}_{i}"))
        .find(|c| !taken.contains(c))
        .unwrap_or_else(|| base.to_string())
}

struct Gen<'a> {
    f: &'a Function,
    xp: String,
    array_params: &'a [String],
    /// The local name of each parameter (hidden arrays get their own).
    locals: &'a [String],
    /// Variable name of each value, once it has one.
    names: Vec<Option<String>>,
    /// Values printed at their single use.
    inline: Vec<bool>,
    /// The defining operation of each value defined by a `Let`.
    defs: Vec<Option<&'a Op>>,
    /// Int values that may lie outside int64 (`kinds::wide_ints`).
    wide: Vec<bool>,
    taken: BTreeSet<String>,
    /// Generating the float body: every argument is float64 (or a Python float), so a float
    /// scalar lifted to a 0-d value may be the namespace's cheapest one (`F64`).
    float_body: bool,
}

/// Where a value is read: never, once in the block with this id, or more than that.
#[derive(Clone, Copy, PartialEq)]
enum Uses {
    None,
    Once(usize),
    Many,
}

impl<'a> Gen<'a> {
    fn new(
        f: &'a Function,
        xp: &str,
        reserved: &BTreeSet<String>,
        array_params: &'a [String],
        locals: &'a [String],
    ) -> Self {
        let mut taken = reserved.clone();
        taken.insert(xp.to_string());
        let n = f.values.len();
        let mut g = Gen {
            f,
            xp: xp.to_string(),
            array_params,
            locals,
            names: vec![None; n],
            inline: vec![false; n],
            defs: vec![None; n],
            wide: crate::kinds::wide_ints(f),
            taken,
            float_body: false,
        };
        g.plan();
        g
    }

    /// This generator for the float body (`float_body`).
    fn in_float_body(mut self) -> Self {
        self.float_body = true;
        self
    }

    /// Float scalar expression `e` as a float64 0-d value: in the float body through `F64` (on
    /// NumPy a float64 scalar, which computes as a 0-d array does, IEEE values and warnings
    /// included, in a tenth of the time of `xp.asarray`: loops that lift their index arithmetic
    /// run it every iteration); elsewhere `xp.asarray(e, dtype=xp.float64)`.
    fn float_0d(&self, e: Expr) -> Expr {
        if self.float_body {
            return call(name(F64), vec![name(&self.xp), e]);
        }
        Expr::Call(
            Box::new(self.x("asarray")),
            vec![e],
            vec![("dtype".into(), self.dtype(Kind::Float))],
        )
    }

    /// Decides which values are inlined and names the rest.
    fn plan(&mut self) {
        let n = self.f.values.len();
        // Which block defines each value and where it is read.
        let mut def_block = vec![usize::MAX; n];
        let mut uses = vec![Uses::None; n];
        fn read(uses: &mut [Uses], v: Value, block: usize) {
            let u = &mut uses[v.index()];
            *u = if *u == Uses::None {
                Uses::Once(block)
            } else {
                Uses::Many
            };
        }
        fn scan<'a>(
            b: &'a Block,
            id: usize,
            next: &mut usize,
            defs: &mut [Option<&'a Op>],
            def_block: &mut [usize],
            uses: &mut [Uses],
        ) {
            for inst in &b.insts {
                match inst {
                    Inst::Let { dst, op } => {
                        defs[dst.index()] = Some(op);
                        def_block[dst.index()] = id;
                        for v in op.operands() {
                            read(uses, v, id);
                        }
                    }
                    Inst::Loop { phis, body, .. } => {
                        *next += 1;
                        let inner = *next;
                        for p in phis {
                            read(uses, p.init, id);
                            read(uses, p.next, inner);
                        }
                        scan(body, inner, next, defs, def_block, uses);
                    }
                    Inst::If {
                        cond,
                        then,
                        other,
                        outs,
                    } => {
                        read(uses, *cond, id);
                        *next += 1;
                        let t = *next;
                        scan(then, t, next, defs, def_block, uses);
                        *next += 1;
                        let o = *next;
                        scan(other, o, next, defs, def_block, uses);
                        for out in outs {
                            read(uses, out.then, t);
                            read(uses, out.other, o);
                        }
                    }
                }
            }
        }
        let mut next_block = 0usize;
        let f = self.f;
        scan(
            &f.body,
            0,
            &mut next_block,
            &mut self.defs,
            &mut def_block,
            &mut uses,
        );
        read(&mut uses, f.ret, 0);
        // In program order (values are numbered as they are created), so an operand's nesting
        // depth is known before its user's.
        let mut depth = vec![0usize; n];
        for i in 0..n {
            let Some(op) = self.defs[i] else { continue };
            let nested = self.nesting(op, &depth);
            let inline = match op {
                Op::Const(_) => true,
                Op::Param(p) => {
                    self.names[i] = Some(self.locals[*p].clone());
                    false
                }
                Op::ElementCall { .. } => false,
                // CPython refuses expressions nested 200 deep: long chains get names.
                _ if nested > MAX_INLINE_DEPTH => false,
                _ => uses[i] == Uses::Once(def_block[i]),
            };
            if inline {
                self.inline[i] = true;
                depth[i] = nested;
            }
        }
        // `clip`: the inner min/max of min(max(v, lo), hi) is read twice, both times by the
        // outer one (its comparison and its select); printing the pair as one call needs it
        // inlined.
        let counts = use_counts(f);
        for i in 0..n {
            if let Some(inner) = self.clip_inner(Value(i as u32)) {
                if counts[inner.index()] == 2 && def_block[inner.index()] == def_block[i] {
                    self.inline[inner.index()] = true;
                }
            }
        }
        // A min/max against a float constant prints its operand once (`xp.maximum(K, v)`,
        // `xp.clip(v, lo, hi)`) though the IR reads it twice (the comparison and the select).
        // Read only there, it is inlined like any value read once: a named temporary would keep
        // a whole array alive until the function returns, and NumPy could not reuse its memory
        // for the next temporary (smoothstep: 1.46x the hand-written time at 1e6 with it).
        for i in 0..n {
            let Some(Op::Select(c, a, b)) = self.defs[i] else {
                continue;
            };
            let v = b.index();
            if !self.inline[c.index()]
                || self.inline[v]
                || counts[v] != 2
                || def_block[v] != def_block[i]
                || self.min_max_pattern(*c, *a, *b).is_none()
                || !matches!(self.defs[v], Some(op) if !matches!(op, Op::Param(_) | Op::ElementCall { .. }))
            {
                continue;
            }
            let nested = self.defs[v].map_or(1, |op| self.nesting(op, &depth));
            if nested <= MAX_INLINE_DEPTH {
                self.inline[v] = true;
                depth[v] = nested;
            }
        }
    }

    /// How deep `op`'s expression nests when printed: one more than its deepest inlined operand.
    fn nesting(&self, op: &Op, depth: &[usize]) -> usize {
        1 + op
            .operands()
            .iter()
            .filter(|o| self.inline[o.index()])
            .map(|o| depth[o.index()])
            .max()
            .unwrap_or(0)
    }

    /// For `v` = min(max(x, lo), hi) or max(min(x, hi), lo) with lo <= hi (as selects): the
    /// inner min/max value.
    fn clip_inner(&self, v: Value) -> Option<Value> {
        let Some(Op::Select(c, a, b)) = self.def(v) else {
            return None;
        };
        if !self.inline[c.index()] {
            return None;
        }
        let (op, k) = self.min_max_pattern(*c, *a, *b)?;
        let Some(Op::Select(c2, a2, b2)) = self.def(*b) else {
            return None;
        };
        let (inner_op, k2) = self.min_max_pattern(*c2, *a2, *b2)?;
        let (lo, hi) = if op == CmpOp::Lt { (k2, k) } else { (k, k2) };
        (inner_op != op && lo <= hi).then_some(*b)
    }

    fn def(&self, v: Value) -> Option<&'a Op> {
        self.defs[v.index()]
    }

    fn name_of(&mut self, v: Value) -> String {
        if let Some(n) = &self.names[v.index()] {
            return n.clone();
        }
        let info = self.f.info(v);
        let base = match &info.hint {
            Some(h) => h.clone(),
            None => match self.def(v) {
                Some(Op::Compare(..) | Op::Logic(..) | Op::Unary(UnOp::Not, _)) => "cond".into(),
                Some(Op::Select(..)) => "merged".into(),
                _ => "tmp".into(),
            },
        };
        let n = unique(&base, &self.taken);
        self.taken.insert(n.clone());
        self.names[v.index()] = Some(n.clone());
        n
    }

    fn function_body(mut self) -> Vec<Stmt> {
        let mut out = self.block(&self.f.body.clone());
        let ret = self.value(self.f.ret);
        out.push(Stmt::Return(ret));
        let arrays: BTreeSet<String> = (0..self.f.values.len())
            .filter(|&i| {
                !self.inline[i]
                    && !matches!(self.defs[i], Some(Op::Param(_)) | None)
                    && !self.scalar(Value(i as u32))
            })
            .filter_map(|i| self.names[i].clone())
            .collect();
        free_dead_arrays(out, &arrays)
    }

    fn block(&mut self, b: &Block) -> Vec<Stmt> {
        let mut out = vec![];
        for inst in &b.insts {
            match inst {
                Inst::Let { dst, op } => {
                    if self.inline[dst.index()] || matches!(op, Op::Param(_)) {
                        continue;
                    }
                    let e = self.op(*dst, op);
                    let n = self.name_of(*dst);
                    out.push(Stmt::Assign(vec![n], vec![e]));
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
                    for p in phis {
                        let init = self.coerced(p.init, p.dst);
                        let n = self.name_of(p.dst);
                        out.push(Stmt::Assign(vec![n], vec![init]));
                    }
                    let idx = self.name_of(*index);
                    let mut inner = self.block(body);
                    let (targets, values): (Vec<String>, Vec<Expr>) = phis
                        .iter()
                        .filter(|p| p.next != p.dst)
                        .map(|p| (self.name_of(p.dst), self.coerced(p.next, p.dst)))
                        .unzip();
                    if !targets.is_empty() {
                        inner.push(Stmt::Assign(targets, values));
                    }
                    let iter = match items {
                        Some(t) => self.konst(t),
                        None => {
                            let range_args = match (*start, *step) {
                                (0, 1) => vec![Expr::Int(*stop)],
                                (s, 1) => vec![Expr::Int(s), Expr::Int(*stop)],
                                (s, st) => vec![Expr::Int(s), Expr::Int(*stop), Expr::Int(st)],
                            };
                            call(name("range"), range_args)
                        }
                    };
                    out.push(Stmt::For(idx, iter, inner));
                }
                Inst::If {
                    cond,
                    then,
                    other,
                    outs,
                } => {
                    let c = self.value(*cond);
                    let mut t = self.block(then);
                    let mut o = self.block(other);
                    let targets: Vec<String> = outs.iter().map(|x| self.name_of(x.dst)).collect();
                    if !targets.is_empty() {
                        let tv = outs.iter().map(|x| self.coerced(x.then, x.dst)).collect();
                        let ov = outs.iter().map(|x| self.coerced(x.other, x.dst)).collect();
                        t.push(Stmt::Assign(targets.clone(), tv));
                        o.push(Stmt::Assign(targets, ov));
                    }
                    if o.is_empty() {
                        o = vec![];
                    }
                    out.push(Stmt::If(c, t, o));
                }
            }
        }
        out
    }

    /// `v` as the value of the merge or phi `dst`, converted when `dst` holds a wider kind (a bool
    /// flowing into a float phi would otherwise stay a bool array: `xp.sqrt` of it is float16
    /// on NumPy, and strict backends refuse mixing).
    fn coerced(&mut self, v: Value, dst: Value) -> Expr {
        let (from, to) = (self.kind(v), self.kind(dst));
        // A Python scalar flowing into an array-valued variable (a loop variable reassigned to a
        // constant) becomes a 0-d array: conditions and xp functions need arrays.
        if self.scalar(v) && !self.scalar(dst) {
            return match (to, from) {
                (Kind::Unknown, Kind::Unknown) => {
                    // Its natural dtype, decided at run time (bool, int64, uint64, float64).
                    let e = self.value(v);
                    call(name(BROADCAST), vec![name(&self.xp), e])
                }
                (Kind::Unknown, k) | (k, _) => self.scalar_array(v, k),
            };
        }
        let e = self.value(v);
        if from == to || from == Kind::Unknown || to == Kind::Unknown || self.f.info(v).placeholder
        {
            return e;
        }
        match (from, to) {
            (Kind::Bool, Kind::Int | Kind::Float) | (Kind::Int, Kind::Float) => {
                if self.scalar(v) {
                    call(
                        name(if to == Kind::Float { "float" } else { "int" }),
                        vec![e],
                    )
                } else {
                    self.xcall("astype", vec![e, self.dtype(to)])
                }
            }
            _ => e,
        }
    }

    /// The expression reading `v`: its inlined definition or its variable.
    fn value(&mut self, v: Value) -> Expr {
        if self.inline[v.index()] {
            if let Some(op) = self.def(v) {
                return self.op(v, op);
            }
        }
        name(&self.name_of(v))
    }

    fn kind(&self, v: Value) -> Kind {
        self.f.info(v).kind
    }

    fn scalar(&self, v: Value) -> bool {
        self.f.info(v).shape == Shape::Scalar
    }

    fn x(&self, member: &'static str) -> Expr {
        attr(name(&self.xp), member)
    }

    fn xcall(&self, member: &'static str, args: Vec<Expr>) -> Expr {
        call(self.x(member), args)
    }

    fn dtype(&self, k: Kind) -> Expr {
        self.x(match k {
            Kind::Float => "float64",
            Kind::Int => "int64",
            Kind::Bool | Kind::Unknown => "bool",
        })
    }

    fn helper(&self, helper: &str, op: &'static str, args: Vec<Expr>) -> Expr {
        let mut all = vec![name(&self.xp), Expr::Str(op)];
        all.extend(args);
        call(name(helper), all)
    }

    /// Python scalar `v` as a 0-d array of kind `k`. An int that may not fit int64 goes through
    /// the helper: uint64 in [2**63, 2**64), beyond that the OverflowError of
    /// docs/semantics.md item 17 rather than the backend's.
    fn scalar_array(&mut self, v: Value, k: Kind) -> Expr {
        let e = self.value(v);
        if k == Kind::Int && self.kind(v) != Kind::Bool && self.wide[v.index()] {
            return match self.def(v) {
                Some(Op::Const(Const::Int(n))) if (1 << 63..1 << 64).contains(n) => Expr::Call(
                    Box::new(self.x("asarray")),
                    vec![e],
                    vec![("dtype".into(), self.x("uint64"))],
                ),
                _ => self.helper(UNARY, "pos", vec![e]),
            };
        }
        if k == Kind::Float {
            return self.float_0d(e);
        }
        Expr::Call(
            Box::new(self.x("asarray")),
            vec![e],
            vec![("dtype".into(), self.dtype(k))],
        )
    }

    /// A scalar operand of an xp function, as a 0-d array of its kind.
    fn as_array(&mut self, v: Value) -> Expr {
        let e = self.value(v);
        if self.scalar(v) {
            let k = self.kind(v);
            if k == Kind::Float {
                return self.float_0d(e);
            }
            Expr::Call(
                Box::new(self.x("asarray")),
                vec![e],
                vec![("dtype".into(), self.dtype(k))],
            )
        } else {
            e
        }
    }

    /// An argument of a math function: a float64 array.
    fn float_arg(&mut self, v: Value) -> Expr {
        let e = self.value(v);
        match (self.scalar(v), self.kind(v)) {
            (true, _) => self.float_0d(e),
            (false, Kind::Float) => e,
            (false, Kind::Int | Kind::Bool) => {
                self.xcall("astype", vec![e, self.dtype(Kind::Float)])
            }
            (false, Kind::Unknown) => self.helper(UNARY, "float", vec![e]),
        }
    }

    fn konst(&self, c: &Const) -> Expr {
        match c {
            Const::Bool(b) => Expr::Bool(*b),
            Const::Int(i) => Expr::Int(*i),
            // A NaN keeps its sign bit (`-math.nan`), which `math.copysign` reads.
            Const::Float(f) if f.is_nan() && f.is_sign_negative() => {
                Expr::Neg(Box::new(self.x("nan")))
            }
            Const::Float(f) if f.is_nan() => self.x("nan"),
            Const::Float(f) if f.is_infinite() => {
                if *f > 0.0 {
                    self.x("inf")
                } else {
                    Expr::Neg(Box::new(self.x("inf")))
                }
            }
            Const::Float(f) => Expr::Float(*f),
            // An item is read as a value of the tuple's joined kind (`Index`, a loop over the
            // tuple): it is printed in that kind, so `(0, True)` is `(0, 1)` and `(1.0, -2)` is
            // `(1.0, -2.0)` (a variable whose kind changes across loop iterations is held in the
            // wider kind, docs/semantics.md item 8), and no plain operator meets a Python bool
            // or an int where the kinds promise a number of the other kind (strict backends).
            Const::Tuple(items) => {
                let k = crate::kinds::const_kind(c);
                Expr::Tuple(items.iter().map(|c| self.konst(&in_kind(c, k))).collect())
            }
        }
    }

    fn op(&mut self, dst: Value, op: &Op) -> Expr {
        match op {
            Op::Param(i) => name(&self.locals[*i]),
            Op::Const(c) => self.konst(c),
            Op::Placeholder(_) => {
                let zero = match self.kind(dst) {
                    Kind::Float => Expr::Float(0.0),
                    Kind::Int => Expr::Int(0),
                    Kind::Bool | Kind::Unknown => Expr::Bool(false),
                };
                // The shape of the merge it stands in for (kinds::infer_shapes).
                if self.scalar(dst) {
                    zero
                } else {
                    self.xcall("asarray", vec![zero])
                }
            }
            Op::AsArray(v) => {
                let k = self.kind(*v);
                self.scalar_array(*v, k)
            }
            Op::Unary(u, a) => self.unary(*u, *a),
            Op::Binary(b, x, y) => self.binary(*b, *x, *y),
            Op::Compare(c, x, y) => self.compare(*c, *x, *y),
            Op::Logic(l, x, y) => {
                let fname = match l {
                    LogicOp::And => "logical_and",
                    LogicOp::Or => "logical_or",
                };
                if self.scalar(*x) && self.scalar(*y) {
                    let (a, b) = (self.value(*x), self.value(*y));
                    return Expr::BoolOp(
                        if *l == LogicOp::And { "and" } else { "or" },
                        Box::new(a),
                        Box::new(b),
                    );
                }
                let (a, b) = (self.as_array(*x), self.as_array(*y));
                self.xcall(fname, vec![a, b])
            }
            Op::Select(c, a, b) => self.select(dst, *c, *a, *b),
            Op::Math(m, args) => {
                // Math functions take floats; folding can leave an int constant where lowering
                // saw a float-kinded merge.
                let args = args.iter().map(|a| self.float_arg(*a)).collect();
                self.xcall(m.xp_name, args)
            }
            Op::Cast(c, a) => self.cast(*c, *a),
            Op::Index(t, i) => {
                // The items this index reaches, in the kind they join to (kinds::infer_kinds).
                let t = match self.def(*t) {
                    Some(Op::Const(Const::Tuple(items))) => {
                        let k = self.kind(dst);
                        Expr::Tuple(items.iter().map(|c| self.konst(&in_kind(c, k))).collect())
                    }
                    _ => self.value(*t),
                };
                let i = self.value(*i);
                Expr::Subscript(Box::new(t), Box::new(i))
            }
            Op::ElementCall { callee, args } => {
                let mut all = vec![name(&self.xp), name(&self.f.params[*callee])];
                all.extend(args.iter().map(|a| self.value(*a)));
                call(name(ELEMENTWISE), all)
            }
            Op::Broadcast(v) => {
                let mut all = vec![name(&self.xp), self.value(*v)];
                all.extend(self.array_params.iter().map(|p| name(p)));
                call(name(BROADCAST), all)
            }
        }
    }

    fn unary(&mut self, u: UnOp, a: Value) -> Expr {
        let k = self.kind(a);
        let e = self.value(a);
        if self.scalar(a) {
            return match u {
                UnOp::Neg => Expr::Neg(Box::new(e)),
                // `+` of a Python bool is an int: dropped only where it changes nothing.
                UnOp::Pos if matches!(k, Kind::Int | Kind::Float) => e,
                UnOp::Pos => Expr::Pos(Box::new(e)),
                UnOp::Not => Expr::Not(Box::new(e)),
                UnOp::Abs => call(name("abs"), vec![e]),
            };
        }
        // `-u` of a uint64 array wraps as uint64: the helper follows the lattice.
        let k = if k == Kind::Int && self.wide[a.index()] {
            Kind::Unknown
        } else {
            k
        };
        match (u, k) {
            (UnOp::Not, Kind::Bool) => self.xcall("logical_not", vec![e]),
            (UnOp::Neg, Kind::Float | Kind::Int) => Expr::Neg(Box::new(e)),
            (UnOp::Pos, Kind::Float | Kind::Int) => e,
            (UnOp::Abs, Kind::Float | Kind::Int) => self.xcall("abs", vec![e]),
            (UnOp::Neg, _) => self.helper(UNARY, "neg", vec![e]),
            (UnOp::Pos, _) => self.helper(UNARY, "pos", vec![e]),
            (UnOp::Abs, _) => self.helper(UNARY, "abs", vec![e]),
            (UnOp::Not, _) => self.helper(UNARY, "not", vec![e]),
        }
    }

    /// Whether `a op b` on these kinds is exact as a plain operator on every backend.
    fn plain_binary(
        &self,
        op: BinOp,
        (ka, sa): (Kind, bool),
        (kb, sb): (Kind, bool),
        (a, b): (Value, Value),
    ) -> bool {
        match (ka, kb) {
            (Kind::Float, Kind::Float) => true,
            // A Python int mixes with a float array on every backend; an int array with a
            // float does not (strict backends refuse mixed kinds).
            (Kind::Float, Kind::Int) => sb,
            (Kind::Int, Kind::Float) => sa,
            // Two ints within int64 (an int64 array meeting a uint64 one, or a Python int beyond
            // int64, needs the helper's lattice).
            (Kind::Int, Kind::Int) if self.wide_int(a, ka) || self.wide_int(b, kb) => false,
            (Kind::Int, Kind::Int) => match op {
                BinOp::Add | BinOp::Sub | BinOp::Mul => true,
                BinOp::Pow => {
                    sb && matches!(self.def(b), Some(Op::Const(Const::Int(n))) if *n >= 0)
                }
                _ => false,
            },
            _ => false,
        }
    }

    /// A boolean operand of arithmetic as the int (or float) it acts as: strict backends refuse
    /// arithmetic on bools.
    fn promote_bool(&self, e: Expr, scalar: bool, to: Kind) -> Expr {
        match (scalar, e) {
            (true, Expr::Bool(v)) if to == Kind::Float => Expr::Float(f64::from(u8::from(v))),
            (true, Expr::Bool(v)) => Expr::Int(i128::from(v)),
            (true, e) => call(
                name(if to == Kind::Float { "float" } else { "int" }),
                vec![e],
            ),
            (false, e) => self.xcall("astype", vec![e, self.dtype(to)]),
        }
    }

    fn binary(&mut self, op: BinOp, a: Value, b: Value) -> Expr {
        let sym = match op {
            BinOp::Add => "+",
            BinOp::Sub => "-",
            BinOp::Mul => "*",
            BinOp::Div => "/",
            BinOp::FloorDiv => "//",
            BinOp::Mod => "%",
            BinOp::Pow => "**",
        };
        let (sa, sb) = (self.scalar(a), self.scalar(b));
        let (mut x, mut y) = (self.value(a), self.value(b));
        if sa && sb {
            return bin(sym, x, y);
        }
        let (mut ka, mut kb) = (self.kind(a), self.kind(b));
        if ka != Kind::Unknown && kb != Kind::Unknown && (ka == Kind::Bool || kb == Kind::Bool) {
            let to = if ka == Kind::Float || kb == Kind::Float {
                Kind::Float
            } else {
                Kind::Int
            };
            if ka == Kind::Bool {
                x = self.promote_bool(x, sa, to);
                ka = to;
            }
            if kb == Kind::Bool {
                y = self.promote_bool(y, sb, to);
                kb = to;
            }
        }
        if self.plain_binary(op, (ka, sa), (kb, sb), (a, b)) {
            return bin(sym, x, y);
        }
        let key = match op {
            BinOp::Add => "add",
            BinOp::Sub => "sub",
            BinOp::Mul => "mul",
            BinOp::Div => "truediv",
            BinOp::FloorDiv => "floordiv",
            BinOp::Mod => "mod",
            BinOp::Pow => "pow",
        };
        self.helper(BINARY, key, vec![x, y])
    }

    fn compare(&mut self, op: CmpOp, a: Value, b: Value) -> Expr {
        let (sym, key) = match op {
            CmpOp::Lt => ("<", "lt"),
            CmpOp::Le => ("<=", "le"),
            CmpOp::Gt => (">", "gt"),
            CmpOp::Ge => (">=", "ge"),
            CmpOp::Eq => ("==", "eq"),
            CmpOp::Ne => ("!=", "ne"),
        };
        let (ka, kb) = (self.kind(a), self.kind(b));
        let (sa, sb) = (self.scalar(a), self.scalar(b));
        let plain = (sa && sb)
            || match (ka, kb) {
                (Kind::Int, Kind::Int) => !self.wide[a.index()] && !self.wide[b.index()],
                (Kind::Float, Kind::Float) => true,
                // A Python int meets a float array through float conversion: exact only up to
                // 2**53 (CPython compares int and float exactly).
                (Kind::Float, Kind::Int) => sb && self.small_int(b),
                (Kind::Int, Kind::Float) => sa && self.small_int(a),
                (Kind::Bool, Kind::Bool) => matches!(op, CmpOp::Eq | CmpOp::Ne),
                _ => false,
            };
        let (x, y) = (self.value(a), self.value(b));
        if plain {
            cmp(sym, x, y)
        } else {
            self.helper(BINARY, key, vec![x, y])
        }
    }

    /// `K if K > v else v` (what `max(v, K)` lowers to) is `xp.maximum(K, v)` when K is a
    /// float constant other than NaN: a NaN `v` propagates in both, and on a tie both give `v`
    /// (NumPy returns the second operand; the Array API leaves the sign of zero to the
    /// implementation, docs/semantics.md). One pass instead of a comparison and a `where`.
    fn min_max(&mut self, c: Value, a: Value, b: Value) -> Option<Expr> {
        let (op, k) = self.min_max_pattern(c, a, b)?;
        // min(max(v, lo), hi) and max(min(v, hi), lo) with lo <= hi: one `clip`, one pass and
        // one temporary (a NaN propagates through both forms).
        if let Some(Op::Select(c2, a2, b2)) = self.def(b).filter(|_| self.inline[b.index()]) {
            if let Some((inner_op, k2)) = self.min_max_pattern(*c2, *a2, *b2) {
                let (lo, hi) = if op == CmpOp::Lt { (k2, k) } else { (k, k2) };
                if inner_op != op && lo <= hi {
                    let v = self.value(*b2);
                    return Some(self.xcall("clip", vec![v, Expr::Float(lo), Expr::Float(hi)]));
                }
            }
        }
        let (ae, be) = (self.value(a), self.value(b));
        let f = if op == CmpOp::Gt {
            "maximum"
        } else {
            "minimum"
        };
        Some(self.xcall(f, vec![ae, be]))
    }

    /// `(Gt, K)` for `K if K > v else v` (max) and `(Lt, K)` for `K if K < v else v` (min), K a
    /// float constant other than NaN and v a float array.
    fn min_max_pattern(&self, c: Value, a: Value, b: Value) -> Option<(CmpOp, f64)> {
        let Some(Op::Compare(op @ (CmpOp::Gt | CmpOp::Lt), x, y)) = self.def(c) else {
            return None;
        };
        let Some(Op::Const(Const::Float(k))) = self.def(a) else {
            return None;
        };
        if *x != a || *y != b || k.is_nan() || self.kind(b) != Kind::Float || self.scalar(b) {
            return None;
        }
        Some((*op, *k))
    }

    /// `a if a > b else b` (`max(b, a)`) and `a if a < b else b` (`min(b, a)`) on float arrays in
    /// the float body: `_vec_pick`, which is `xp.maximum`/`xp.minimum` (one pass) when `a` turns
    /// out to be a NumPy scalar other than NaN and zero (a parameter passed as a number: then a
    /// NaN `b` propagates in both forms and a tie is one value with one sign), else the
    /// comparison and `where` that this prints otherwise.
    fn pick(&mut self, c: Value, a: Value, b: Value) -> Option<Expr> {
        let Some(Op::Compare(op @ (CmpOp::Gt | CmpOp::Lt), x, y)) = self.def(c) else {
            return None;
        };
        let floats = self.kind(a) == Kind::Float && self.kind(b) == Kind::Float;
        if !self.float_body || *x != a || *y != b || !floats || self.scalar(a) || self.scalar(b) {
            return None;
        }
        let key = if *op == CmpOp::Gt { "gt" } else { "lt" };
        let (ae, be) = (self.value(a), self.value(b));
        Some(self.helper(PICK, key, vec![ae, be]))
    }

    /// Whether operand `v`, of kind `k` after bool promotion, is an int that may not fit int64.
    fn wide_int(&self, v: Value, k: Kind) -> bool {
        k == Kind::Int && self.kind(v) == Kind::Int && self.wide[v.index()]
    }

    /// An int scalar that converts to float exactly: a constant within 2**53, or a loop index.
    fn small_int(&self, v: Value) -> bool {
        match self.def(v) {
            Some(Op::Const(Const::Int(n))) => n.unsigned_abs() <= 1 << 53,
            Some(Op::Const(_)) => false,
            _ => true,
        }
    }

    fn select(&mut self, dst: Value, c: Value, a: Value, b: Value) -> Expr {
        if self.scalar(c) {
            // A Python ternary: each side converted to the merged kind.
            let ce = self.value(c);
            let (ae, be) = (self.coerced(a, dst), self.coerced(b, dst));
            return Expr::IfExp(Box::new(ce), Box::new(ae), Box::new(be));
        }
        if let Some(e) = self.min_max(c, a, b) {
            return e;
        }
        if let Some(e) = self.pick(c, a, b) {
            return e;
        }
        let (ka, kb) = (self.kind(a), self.kind(b));
        let (sa, sb) = (self.scalar(a), self.scalar(b));
        let plain = !(sa && sb)
            && match (ka, kb) {
                (Kind::Int, Kind::Int) => !self.wide[a.index()] && !self.wide[b.index()],
                (Kind::Float, Kind::Float) | (Kind::Bool, Kind::Bool) => true,
                (Kind::Float, Kind::Int) => sb,
                (Kind::Int, Kind::Float) => sa,
                _ => false,
            };
        let (ce, ae, be) = (self.value(c), self.value(a), self.value(b));
        if plain {
            self.xcall("where", vec![ce, ae, be])
        } else {
            call(name(SELECT), vec![name(&self.xp), ce, ae, be])
        }
    }

    fn cast(&mut self, c: CastOp, a: Value) -> Expr {
        // math.floor/ceil/trunc return ints, and an int argument comes back unchanged (no trip
        // through float64, which is inexact beyond 2**53): one helper call from the argument.
        if let (CastOp::Int, false, Some(Op::Math(m, args))) = (c, self.scalar(a), self.def(a)) {
            if matches!(m.name, "floor" | "ceil" | "trunc") {
                let e = self.value(args[0]);
                return self.helper(UNARY, m.name, vec![e]);
            }
        }
        let k = self.kind(a);
        let e = self.value(a);
        if self.scalar(a) {
            let f = match c {
                CastOp::Float => "float",
                CastOp::Int => "int",
                CastOp::Bool => "bool",
                CastOp::Round => "round",
            };
            return call(name(f), vec![e]);
        }
        let astype = |g: &Self, e: Expr, to: Kind| g.xcall("astype", vec![e, g.dtype(to)]);
        match (c, k) {
            (CastOp::Float, Kind::Float)
            | (CastOp::Int | CastOp::Round, Kind::Int)
            | (CastOp::Bool, Kind::Bool) => e,
            (CastOp::Float, Kind::Int | Kind::Bool) => astype(self, e, Kind::Float),
            (CastOp::Int | CastOp::Round, Kind::Bool) => astype(self, e, Kind::Int),
            // Float to int: NaN and infinities have no int; the helper's documented values
            // (0, saturation) rather than whatever the backend's cast gives, and no warning.
            (CastOp::Int | CastOp::Round, Kind::Float) => self.helper(
                UNARY,
                if c == CastOp::Int { "int" } else { "round" },
                vec![e],
            ),
            (CastOp::Bool, Kind::Float | Kind::Int) => {
                let zero = if k == Kind::Float {
                    Expr::Float(0.0)
                } else {
                    Expr::Int(0)
                };
                cmp("!=", e, zero)
            }
            (c, _) => {
                let key = match c {
                    CastOp::Float => "float",
                    CastOp::Int => "int",
                    CastOp::Bool => "bool",
                    CastOp::Round => "round",
                };
                self.helper(UNARY, key, vec![e])
            }
        }
    }
}

/// `del` after the last top-level statement that reads each named array of the body, as a
/// hand-written helper frees its locals when it returns: the inlined helpers of a function
/// would otherwise keep every temporary alive until the end, and NumPy could not reuse their
/// memory for the next ones (bs_call: two normal-CDF helpers, four arrays). Only names bound at
/// the top level (a name bound in a loop or a branch is read across iterations and merges).
fn free_dead_arrays(body: Vec<Stmt>, arrays: &BTreeSet<String>) -> Vec<Stmt> {
    let top: BTreeSet<&str> = body
        .iter()
        .filter_map(|s| match s {
            Stmt::Assign(targets, _) => Some(targets.iter().map(String::as_str)),
            _ => None,
        })
        .flatten()
        .filter(|n| arrays.contains(*n))
        .collect();
    let mut last: crate::Map<&str, usize> = crate::Map::default();
    for (i, s) in body.iter().enumerate() {
        let mut r = BTreeSet::new();
        crate::pyast::reads(s, &mut r);
        for n in r.into_iter().filter(|n| top.contains(n)) {
            last.insert(n, i);
        }
    }
    let mut dead_after: Vec<Vec<String>> = vec![vec![]; body.len()];
    for (n, i) in last {
        if i + 1 < body.len() {
            dead_after[i].push(n.to_string());
        }
    }
    let mut out = Vec::with_capacity(body.len());
    for (s, mut dead) in body.into_iter().zip(dead_after) {
        out.push(s);
        if !dead.is_empty() {
            dead.sort();
            out.push(Stmt::Del(dead));
        }
    }
    out
}
