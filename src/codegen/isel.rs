//! Instruction selection: one IR operation as one Python expression. Operations on Python
//! scalars print as Python (exact by construction); on arrays, `choice` picks the plain `xp` form
//! or the runtime helper, and `peephole` is asked first where a pattern applies.

use super::choice::{self, CastForm, FloatArg, IntMod, ScalarArray, UnaryForm};
use super::runtime::{
    binary_key, by_key, cast_key, compare_key, BINARY, BOOL0D, BROADCAST, CALL_SITE, ELEMENT_TYPE,
    F64, LOOKUP, RESIDUE, SELECT, SEQUENCE_GIVEN, TAKE, TAKE_PARAM, UNARY, UNPACK_GIVEN,
};
use super::{const_kind, Const, Gen};
use crate::codegen::pyast::{bin, call, cmp, name, Expr};
use crate::ir::{
    BinOp, CastOp, CmpOp, Kind, LogicOp, MathFn, ObjLit, Op, ScalarFn, UnOp, UniformOp, Value,
    NUMPY_POWER,
};

/// Constant `c` converted to kind `k` when `k` is wider (bool < int < float).
fn in_kind(c: &Const, k: Kind) -> Const {
    match (c, k) {
        (Const::Bool(b), Kind::Int) => Const::Int(i128::from(*b)),
        (Const::Bool(b), Kind::Float) => Const::Float(f64::from(u8::from(*b))),
        (Const::Int(i), Kind::Float) => Const::Float(*i as f64),
        _ => c.clone(),
    }
}

/// Whether an expression may be printed twice at no more than a second cheap evaluation: a name,
/// or one operation on names and constants.
fn cheap_to_repeat(e: &Expr) -> bool {
    let leaf = |e: &Expr| matches!(e, Expr::Name(_) | Expr::Int(_));
    match e {
        Expr::Bin(_, a, b) => leaf(a) && leaf(b),
        e => leaf(e),
    }
}

/// Whether `multiple` is `dividend // c * c` for an int constant `c` (the quotient form of
/// `dividend % c`).
fn is_multiple_of(dividend: &Expr, multiple: &Expr) -> bool {
    match multiple {
        Expr::Bin("*", quotient, c) => matches!(
            &**quotient,
            Expr::Bin("//", a, c2) if **a == *dividend && c2 == c && matches!(**c, Expr::Int(_))
        ),
        _ => false,
    }
}

impl Gen<'_> {
    /// The expression reading `v`: its inlined definition or its variable.
    pub(super) fn value(&mut self, v: Value) -> Expr {
        if self.inline[v.index()] {
            if let Some(op) = self.def(v) {
                return self.op(v, op);
            }
        }
        name(&self.name_of(v))
    }

    /// The expression computing `op`, the definition of `dst`.
    pub(super) fn op(&mut self, dst: Value, op: &Op) -> Expr {
        match op {
            Op::Param(i) => name(&self.locals[*i]),
            Op::Const(c) => self.konst(c),
            Op::Placeholder(_) => self.placeholder(dst),
            Op::AsArray(v) => {
                let k = self.kind(*v);
                self.scalar_array(*v, k)
            }
            Op::Unary(u, a) => self.unary(*u, *a),
            Op::Binary(b, x, y) => self.binary(*b, *x, *y),
            Op::Compare(c, x, y) => self.compare(*c, *x, *y),
            Op::Logic(l, x, y) => self.logic(*l, *x, *y),
            Op::Select(c, a, b) => self.select(dst, *c, *a, *b),
            Op::Math(m, args) if m.keeps_ints.is_some() => self.numpy_rounding(m, args[0]),
            Op::Math(m, args) if m.name == NUMPY_POWER.name => {
                let (x, y) = (self.value(args[0]), self.value(args[1]));
                self.helper_op(&BINARY, "np_pow", vec![x, y])
            }
            Op::Math(m, args) => {
                // Math functions take floats; folding can leave an int constant where lowering
                // saw a float-kinded merge.
                let args = args
                    .iter()
                    .enumerate()
                    .map(|(i, a)| {
                        if i < m.floats {
                            self.float_arg(*a)
                        } else {
                            self.value(*a)
                        }
                    })
                    .collect();
                match m.runtime.and_then(by_key) {
                    Some(h) => self.helper(h, args),
                    None => self.xcall(m.xp_name, args),
                }
            }
            Op::Cast(c, a) => self.cast(*c, *a),
            Op::Index(t, i) => self.index(dst, *t, *i),
            Op::ScalarCall { callee, args } => {
                let helper = match callee {
                    ScalarFn::Residue(_) => &RESIDUE,
                    ScalarFn::Callable(_) | ScalarFn::Lambda(..) => &CALL_SITE,
                };
                let mut all = vec![self.scalar_fn(callee)];
                all.extend(args.iter().map(|a| self.value(*a)));
                self.helper(helper, all)
            }
            // Assigned with its call (`stmts::block`).
            Op::ScalarRaised(_) => Expr::None,
            Op::Uniform(u, args) => self.uniform(u, args),
            Op::Call { callee, args } => self.call_helper_fn(*callee, args),
            Op::Broadcast(v) => {
                let mut all = vec![self.value(*v)];
                all.extend(self.array_params.iter().map(|p| name(p)));
                self.helper(&BROADCAST, all)
            }
        }
    }

    /// The callable of an element-wise call (D19, D23): a hidden parameter, or the call as
    /// written.
    pub(super) fn scalar_fn(&self, callee: &ScalarFn) -> Expr {
        match callee {
            ScalarFn::Residue(i) | ScalarFn::Callable(i) => name(&self.f.params[*i]),
            ScalarFn::Lambda(params, body) => Expr::Lambda(params.clone(), body.clone()),
        }
    }

    /// An operation on uniform values: the Python expression itself, run once per call (D14).
    fn uniform(&mut self, u: &UniformOp, args: &[Value]) -> Expr {
        let mut operands: Vec<Expr> = args.iter().map(|a| self.value(*a)).collect();
        let mut take = || operands.remove(0);
        match u {
            UniformOp::Arg(i) | UniformOp::Global(i) => name(&self.f.params[*i]),
            UniformOp::Builtin(b) => name(b),
            UniformOp::Lit(ObjLit::None) => Expr::None,
            UniformOp::Lit(ObjLit::Str(s)) => Expr::Text(s.clone()),
            UniformOp::Tuple => Expr::Tuple(std::mem::take(&mut operands)),
            UniformOp::Attr(a) => Expr::Field(Box::new(take()), a.clone()),
            UniformOp::Item => {
                let base = take();
                Expr::Subscript(Box::new(base), Box::new(take()))
            }
            UniformOp::Get => {
                let base = take();
                call(
                    Expr::Field(Box::new(base), "get".into()),
                    std::mem::take(&mut operands),
                )
            }
            UniformOp::StrMethod(m) => {
                let base = take();
                call(
                    Expr::Field(Box::new(base), m.clone()),
                    std::mem::take(&mut operands),
                )
            }
            UniformOp::Compare(c) => {
                let a = take();
                cmp(c.symbol(), a, take())
            }
            UniformOp::IsInstance => {
                let a = take();
                call(name("isinstance"), vec![a, take()])
            }
            UniformOp::TypeOf => call(name("type"), vec![take()]),
            UniformOp::Truth => call(name("bool"), vec![take()]),
            UniformOp::Number => take(),
            UniformOp::NumberOrFalse => {
                let a = take();
                let none = cmp("is", a.clone(), Expr::None);
                Expr::IfExp(Box::new(none), Box::new(Expr::Bool(false)), Box::new(a))
            }
            UniformOp::Len => call(name("len"), vec![take()]),
            UniformOp::Sequence => call(name(SEQUENCE_GIVEN.name), vec![take()]),
            UniformOp::Reduce(r) => call(name(r), vec![take()]),
            UniformOp::Unpack(n) => {
                call(name(UNPACK_GIVEN.name), vec![take(), Expr::Int(*n as i128)])
            }
            // D22: `_vec_element_type(xp, x) is float`, `... in (bool, int)`.
            UniformOp::ElementIs(types) => {
                let t = call(
                    name(ELEMENT_TYPE.name),
                    vec![Expr::Name(self.xp.clone()), take()],
                );
                match types.names().as_slice() {
                    [one] => cmp("is", t, name(one)),
                    names => cmp(
                        "in",
                        t,
                        Expr::Tuple(names.iter().map(|n| name(n)).collect()),
                    ),
                }
            }
        }
    }

    pub(super) fn konst(&self, c: &Const) -> Expr {
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
            Const::Tuple(items) | Const::List(items) => self.tuple_in_kind(items, const_kind(c)),
            // A dict is read only by `Index` (`index` prints it); its values stand for it.
            Const::Dict(entries) => {
                let values: Vec<Const> = entries.iter().map(|(_, v)| v.clone()).collect();
                self.tuple_in_kind(&values, const_kind(c))
            }
        }
    }

    fn tuple_in_kind(&self, items: &[Const], k: Kind) -> Expr {
        Expr::Tuple(self.items_in_kind(items, k))
    }

    fn items_in_kind(&self, items: &[Const], k: Kind) -> Vec<Expr> {
        items.iter().map(|c| self.konst(&in_kind(c, k))).collect()
    }

    /// A zero of the merge's kind and shape (kinds::infer_shapes) for a value a path never
    /// defines.
    fn placeholder(&self, dst: Value) -> Expr {
        let zero = match self.kind(dst) {
            Kind::Float => Expr::Float(0.0),
            Kind::Int => Expr::Int(0),
            Kind::Bool | Kind::Unknown => Expr::Bool(false),
            Kind::Object => return Expr::None,
        };
        if self.scalar(dst) {
            zero
        } else {
            self.xcall("asarray", vec![zero])
        }
    }

    fn index(&mut self, dst: Value, t: Value, i: Value) -> Expr {
        // The items this index reaches, in the kind they join to (kinds::infer_kinds).
        let k = self.kind(dst);
        match self.def(t) {
            Some(Op::Const(Const::Dict(entries))) => {
                // D15: a lookup per lane (or of a Python scalar), with CPython's KeyError.
                let keys: Vec<Expr> = entries.iter().map(|(key, _)| self.konst(key)).collect();
                let values: Vec<Const> = entries.iter().map(|(_, v)| v.clone()).collect();
                let values = self.tuple_in_kind(&values, k);
                let i = self.value(i);
                self.helper(&LOOKUP, vec![Expr::Tuple(keys), values, i])
            }
            Some(Op::Const(c @ (Const::Tuple(_) | Const::List(_)))) => {
                let is_list = matches!(c, Const::List(_));
                let items = self.items_in_kind(c.items().unwrap_or_default(), k);
                let i_scalar = self.scalar(i);
                let len = items.len() as i128;
                let index = self.operand(i);
                let in_range =
                    !index.wide && matches!(index.range, Some((lo, hi)) if lo >= -len && hi < len);
                let i = self.value(i);
                if i_scalar {
                    // Printed as the display it was, so an IndexError names it as CPython does.
                    let table = if is_list {
                        Expr::List(items)
                    } else {
                        Expr::Tuple(items)
                    };
                    return Expr::Subscript(Box::new(table), Box::new(i));
                }
                // D15: a gather, with Python's negative indices and IndexError; no check where
                // the index's interval lies within [-len, len) (ranges.rs: `month - 1`).
                let what = if in_range {
                    Expr::None
                } else {
                    Expr::Str(if is_list { "list" } else { "tuple" })
                };
                self.helper(&TAKE, vec![Expr::Tuple(items), i, what])
            }
            // D14, D15: a sequence given per call, gathered at a per-lane index.
            _ if self.kind(t) == Kind::Object && !self.scalar(i) => {
                let (t, i) = (self.value(t), self.value(i));
                self.helper(&TAKE_PARAM, vec![t, i])
            }
            _ => {
                let t = self.value(t);
                let i = self.value(i);
                Expr::Subscript(Box::new(t), Box::new(i))
            }
        }
    }

    fn logic(&mut self, l: LogicOp, x: Value, y: Value) -> Expr {
        if self.scalar(x) && self.scalar(y) {
            let (a, b) = (self.value(x), self.value(y));
            let word = if l == LogicOp::And { "and" } else { "or" };
            return Expr::BoolOp(word, Box::new(a), Box::new(b));
        }
        let fname = match l {
            LogicOp::And => "logical_and",
            LogicOp::Or => "logical_or",
        };
        let (a, b) = (self.as_array(x), self.as_array(y));
        self.xcall(fname, vec![a, b])
    }

    /// `xp.asarray(e, dtype=...)`.
    fn asarray(&self, e: Expr, dtype: Expr) -> Expr {
        Expr::Call(
            Box::new(self.x("asarray")),
            vec![e],
            vec![("dtype".into(), dtype)],
        )
    }

    /// Python scalar expression `e` as a 0-d value of kind `k`. A float in the float body goes
    /// through `_vec_f64` (on NumPy a float64 scalar, which computes as a 0-d array does, IEEE
    /// values and warnings included, in a tenth of the time of `xp.asarray`: loops that lift
    /// their index arithmetic run it every iteration). A bool in the float body goes through
    /// `_vec_bool0d` (the array `xp.asarray` makes, without array-api-compat's wrapper: a masked
    /// loop's mask and done flag, D12). Else `xp.asarray(e, dtype=...)`.
    fn lift(&self, e: Expr, k: Kind) -> Expr {
        if self.float_body && k == Kind::Float {
            return self.helper(&F64, vec![e]);
        }
        if self.float_body && k == Kind::Bool {
            return self.helper(&BOOL0D, vec![e]);
        }
        if matches!(k, Kind::Unknown | Kind::Object) {
            // D14: a number read from a uniform value has a kind only the call knows: its own
            // dtype (a bool, an int int64 or uint64, a float float64), and item 17's
            // OverflowError for an int beyond 64 bits (`xp.asarray` gives an object array or
            // the library's error; seed 200007 #1724).
            return self.helper_op(&UNARY, "lift", vec![e]);
        }
        self.asarray(e, self.dtype(k))
    }

    /// Python scalar `v` as a 0-d array of kind `k`.
    pub(super) fn scalar_array(&mut self, v: Value, k: Kind) -> Expr {
        let form = choice::scalar_array(self.operand(v), k);
        let e = self.value(v);
        match form {
            ScalarArray::AsArray(k) => self.lift(e, k),
            ScalarArray::Uint64 => self.asarray(e, self.x("uint64")),
            ScalarArray::Helper => self.helper_op(&UNARY, "pos", vec![e]),
        }
    }

    /// A scalar operand of an xp function, as a 0-d array of its kind.
    fn as_array(&mut self, v: Value) -> Expr {
        let e = self.value(v);
        if self.scalar(v) {
            self.lift(e, self.kind(v))
        } else {
            e
        }
    }

    /// An argument of a math function: a float64 array.
    fn float_arg(&mut self, v: Value) -> Expr {
        let e = self.value(v);
        match choice::float_arg(self.operand(v)) {
            FloatArg::AsArray => self.lift(e, Kind::Float),
            FloatArg::Same => e,
            FloatArg::AsType => self.xcall("astype", vec![e, self.dtype(Kind::Float)]),
            FloatArg::Helper => self.helper_op(&UNARY, cast_key(CastOp::Float), vec![e]),
        }
    }

    /// NumPy's `floor`/`ceil`/`trunc`/`rint` (D16): the `xp` function on a float array, the
    /// runtime's kind-keeping form on anything else.
    fn numpy_rounding(&mut self, m: &MathFn, a: Value) -> Expr {
        if self.kind(a) == Kind::Float {
            let e = self.float_arg(a);
            return self.xcall(m.xp_name, vec![e]);
        }
        let e = self.value(a);
        self.helper_op(&UNARY, m.keeps_ints.unwrap_or(m.xp_name), vec![e])
    }

    fn unary(&mut self, u: UnOp, a: Value) -> Expr {
        let e = self.value(a);
        if self.scalar(a) {
            return match u {
                UnOp::Neg => Expr::Neg(Box::new(e)),
                // `+` of a Python bool is an int: dropped only where it changes nothing.
                UnOp::Pos if matches!(self.kind(a), Kind::Int | Kind::Float) => e,
                UnOp::Pos => Expr::Pos(Box::new(e)),
                UnOp::Not => Expr::Not(Box::new(e)),
                UnOp::Abs => call(name("abs"), vec![e]),
                // `~x` is `-1 - x` on Python ints and bools (and `~` of a bool is deprecated).
                UnOp::Invert => bin("-", Expr::Int(-1), e),
            };
        }
        match choice::unary(u, self.operand(a)) {
            UnaryForm::LogicalNot => self.xcall("logical_not", vec![e]),
            UnaryForm::IsZero => {
                let zero = if self.kind(a) == Kind::Float {
                    Expr::Float(0.0)
                } else {
                    Expr::Int(0)
                };
                cmp("==", e, zero)
            }
            UnaryForm::Negate => Expr::Neg(Box::new(e)),
            UnaryForm::Identity => e,
            UnaryForm::Abs => self.xcall("abs", vec![e]),
            UnaryForm::Invert => self.xcall("bitwise_invert", vec![e]),
            UnaryForm::Helper(key) => self.helper_op(&UNARY, key, vec![e]),
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
        let sym = op.symbol();
        let (mut oa, mut ob) = (self.operand(a), self.operand(b));
        let (mut x, mut y) = (self.value(a), self.value(b));
        if oa.scalar && ob.scalar {
            return bin(sym, x, y);
        }
        if let Some(to) = choice::bool_promotion(op, oa.kind, ob.kind) {
            if oa.kind == Kind::Bool {
                x = self.promote_bool(x, oa.scalar, to);
                oa = oa.promoted(to);
            }
            if ob.kind == Kind::Bool {
                y = self.promote_bool(y, ob.scalar, to);
                ob = ob.promoted(to);
            }
        }
        if choice::int_to_float(op, oa, ob) {
            x = self.xcall("astype", vec![x, self.dtype(Kind::Float)]);
            oa = oa.promoted(Kind::Float);
        } else if choice::int_to_float(op, ob, oa) {
            y = self.xcall("astype", vec![y, self.dtype(Kind::Float)]);
            ob = ob.promoted(Kind::Float);
        }
        if choice::plain_binary(op, oa, ob) {
            match (op, choice::int_mod(oa, ob)) {
                (BinOp::Mod, Some(IntMod::Mask(mask))) => bin("&", x, Expr::Int(mask)),
                // The dividend is printed twice: only a name or one operation on names and
                // constants (`minutes // 60`), never a longer expression.
                (BinOp::Mod, Some(IntMod::ByQuotient(c))) if cheap_to_repeat(&x) => {
                    let quotient = bin("//", x.clone(), Expr::Int(c));
                    bin("-", x, bin("*", quotient, Expr::Int(c)))
                }
                _ => bin(sym, x, y),
            }
        } else {
            self.helper_op(&BINARY, binary_key(op), vec![x, y])
        }
    }

    /// The float constant `v` holds, if it is one.
    pub(super) fn float_const(&self, v: Value) -> Option<f64> {
        match self.def(v) {
            Some(Op::Const(Const::Float(c))) => Some(*c),
            _ => None,
        }
    }

    fn compare(&mut self, op: CmpOp, a: Value, b: Value) -> Expr {
        let (oa, ob) = (self.operand(a), self.operand(b));
        let int_array = |o: choice::Operand| o.kind == Kind::Int && !o.wide && !o.scalar;
        // `year > 1582.5`: an int64 array against a float constant, as the exact int comparison.
        if let Some(n) = self.float_const(b).and_then(|c| choice::int_bound(op, c)) {
            if int_array(oa) {
                let x = self.value(a);
                return cmp(op.symbol(), x, Expr::Int(n));
            }
        }
        if let Some(n) = self
            .float_const(a)
            .and_then(|c| choice::int_bound(op.swapped(), c))
        {
            if int_array(ob) {
                let y = self.value(b);
                return cmp(op.symbol(), Expr::Int(n), y);
            }
        }
        let plain = choice::plain_compare(op, oa, ob);
        let (x, y) = (self.value(a), self.value(b));
        if plain {
            if let (CmpOp::Eq | CmpOp::Ne, Expr::Bin("-", dividend, multiple), Expr::Int(0)) =
                (op, &x, &y)
            {
                // `a % c == 0` from the quotient (`IntMod::ByQuotient`): `a - q == 0` is
                // `a == q` (int64 subtraction, wrapping or not, is 0 exactly when they are equal).
                if int_array(oa) && is_multiple_of(dividend, multiple) {
                    return cmp(op.symbol(), (**dividend).clone(), (**multiple).clone());
                }
            }
            cmp(op.symbol(), x, y)
        } else {
            self.helper_op(&BINARY, compare_key(op), vec![x, y])
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
        if let Some(e) = self.or_merge(c, a, b) {
            return e;
        }
        if let Some(e) = self.array_clip(dst) {
            return e;
        }
        if let Some(e) = self.pick(c, a, b) {
            return e;
        }
        if let Some(to) = choice::select_join(self.operand(a), self.operand(b), self.kind(dst)) {
            let ce = self.value(c);
            let (ae, be) = (self.joined(a, to), self.joined(b, to));
            return self.xcall("where", vec![ce, ae, be]);
        }
        let plain = choice::plain_select(self.operand(a), self.operand(b));
        let (ce, ae, be) = (self.value(c), self.value(a), self.value(b));
        if plain {
            self.xcall("where", vec![ce, ae, be])
        } else {
            self.helper(&SELECT, vec![ce, ae, be])
        }
    }

    /// Operand `v` of a select converted to kind `to` (`choice::select_join`): an array by
    /// `astype`, a Python bool as its number; a Python int stays one (a float array takes it).
    fn joined(&mut self, v: Value, to: Kind) -> Expr {
        let o = self.operand(v);
        let e = self.value(v);
        match (o.kind == to, o.scalar, o.kind) {
            (true, _, _) | (false, true, Kind::Int) => e,
            (false, true, _) => self.promote_bool(e, true, to),
            (false, false, _) => self.xcall("astype", vec![e, self.dtype(to)]),
        }
    }

    fn cast(&mut self, c: CastOp, a: Value) -> Expr {
        if let Some(e) = self.rounding_to_int(c, a) {
            return e;
        }
        // A wide int array may hold lattice lanes (runtime/intops.py): the helper converts.
        let k = match self.operand(a) {
            o if o.kind == Kind::Int && o.wide => Kind::Unknown,
            o => o.kind,
        };
        let e = self.value(a);
        if self.scalar(a) {
            return call(name(cast_key(c)), vec![e]);
        }
        match choice::cast(c, k) {
            CastForm::Same => e,
            CastForm::AsType(to) => self.xcall("astype", vec![e, self.dtype(to)]),
            CastForm::NonZero => {
                let zero = if k == Kind::Float {
                    Expr::Float(0.0)
                } else {
                    Expr::Int(0)
                };
                cmp("!=", e, zero)
            }
            CastForm::Helper(key) => self.helper_op(&UNARY, key, vec![e]),
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::pipeline::testing::compiled;

    #[test]
    fn the_float_body_is_plain_and_the_exact_body_uses_helpers() {
        let c = compiled("def f(x, y):\n    return x // y + (x < y)\n");
        let (fast, exact) = (&c.generated.fast_source, &c.generated.exact_source);
        assert!(
            fast.contains("return x // y + xp.astype(x < y, xp.float64)\n"),
            "{fast}"
        );
        assert!(
            exact.contains("_vec_binary(xp, \"floordiv\", x, y)"),
            "{exact}"
        );
        assert!(exact.contains("_vec_binary(xp, \"lt\", x, y)"), "{exact}");
    }

    #[test]
    fn tuple_items_print_in_the_kind_they_join_to() {
        let c = compiled(
            "T = (0, True, 2.5)\n\n@vectorize\ndef f(x):\n    for i in range(3):\n        x = x + T[i]\n    return x\n",
        );
        assert!(c.source.contains("(0.0, 1.0, 2.5)["), "{}", c.source);
    }

    #[test]
    fn signed_nan_and_infinities_are_read_from_the_namespace() {
        let c = compiled("def f(x):\n    return x + math.inf - math.copysign(math.nan, -1.0)\n");
        assert!(c.source.contains("xp.inf"), "{}", c.source);
        assert!(c.source.contains("xp.nan"), "{}", c.source);
    }

    #[test]
    fn math_of_a_python_scalar_runs_on_a_0_d_float_array() {
        let c = compiled("def f(x):\n    s = 0.0\n    for i in range(3):\n        s = s + math.sqrt(i)\n    return x + s\n");
        assert!(
            c.source
                .contains("xp.sqrt(xp.asarray(float(i), dtype=xp.float64))"),
            "{}",
            c.source
        );
    }
}
