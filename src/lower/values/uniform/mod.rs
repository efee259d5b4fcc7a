//! Uniform values (D14): arguments that are per-call Python objects (a dict of parameters, an
//! Enum member, a string, `None`, a namespace, any object whose attributes are read) stay Python
//! values. Their subscripts, attributes, comparisons with literals and Enum members, `is None`
//! and `isinstance` run once per call in Python ([`Op::Uniform`]); a branch on them is a Python
//! `if` (`scalar_if`); a number read from one is a Python scalar of unknown kind.
//!
//! Which parameters are uniform is decided from the function's text ([`param_modes`]): its
//! annotation, else how the body uses it. A parameter tested `is None` and used otherwise as a
//! number (`limit=None`) is [`ParamMode::Optional`]: `limit is None` reads the argument as
//! passed, its numeric uses read it converted.

pub(in crate::lower::values) mod expr_walk;
mod membership;
pub(in crate::lower) mod str_methods;

use rustpython_parser::ast;

use crate::diagnostics::DiagnosticKind;
use crate::env::{AssumedBinding, Binding, Env, FunctionSource, Hidden};
use crate::frontend::extract::ParsedFunction;
use crate::ir::{CmpOp, Kind, ObjCmp, ObjLit, Op, ParamMode, Shape, UniformOp, Value};
use crate::lower::calls::written::round_ndigits_name;
use crate::lower::{Frame, Lowerer, R};
use expr_walk::{iterated_args, sequence_names, walk_stmts};

/// Annotations that make a parameter uniform (bare, or the last part of a dotted name).
const UNIFORM_ANNOTATIONS: &[&str] = &[
    "dict",
    "Dict",
    "Mapping",
    "MutableMapping",
    "str",
    "Literal",
    "SimpleNamespace",
    "ModuleType",
    "Enum",
    "IntEnum",
    "StrEnum",
];

/// Annotations of a number.
const NUMBER_ANNOTATIONS: &[&str] = &["float", "int", "bool"];

/// What an annotation says of a parameter.
#[derive(Clone, Copy, PartialEq)]
enum Annotated {
    Uniform,
    Number,
    OptionalNumber,
    Unknown,
}

/// A helper's parameters and the mode of each (D14).
type Signature = (Vec<String>, Vec<ParamMode>);

/// How each declared parameter of `func` is passed (D14). A parameter is uniform when its
/// annotation names a dict, a mapping, `str`, a `Literal`, a namespace or an Enum class, or
/// when the body subscripts it with a constant key, reads an attribute of it, compares it with
/// a string literal or an Enum member, tests it with `is`/`is not` against anything but `None`,
/// or passes it to `isinstance`, or when its default is a string literal. A parameter annotated `Optional[float]` (`float | None`), or
/// tested `is None` and used in no uniform way, is optional: `None` or a number; so is one whose
/// default is `None` whose elements' type is tested (`isinstance(cap, float)`, D22).
///
/// An argument passed on to a helper of the environment counts as the helper uses its
/// parameter (`tax(income, params)` with `def tax(x, p): return x * p["rate"]`), through
/// `helper_modes`.
pub(in crate::lower) fn param_modes(
    func: &ParsedFunction,
    env: &Env,
    helper_modes: &mut dyn FnMut(&FunctionSource) -> Option<Signature>,
) -> Vec<ParamMode> {
    let mut uses = vec![(false, false, false, false); func.params.len()];
    let index = |name: &str| func.params.iter().position(|p| p == name);
    walk_stmts(&func.body, &mut |e| {
        let mut found = uniform_uses(e, env);
        found.extend(helper_uses(e, env, helper_modes));
        for (name, use_) in found {
            if let Some(i) = index(name) {
                match use_ {
                    Use::Uniform => uses[i].0 = true,
                    Use::NoneTest => uses[i].1 = true,
                    Use::TypeTest => uses[i].2 = true,
                    Use::Sequence => uses[i].3 = true,
                }
            }
        }
    });
    let mut sequences = vec![];
    sequence_names(&func.body, &mut sequences);
    for name in sequences {
        if let Some(i) = index(name) {
            uses[i].3 = true;
        }
    }
    func.params
        .iter()
        .enumerate()
        .map(|(i, _)| {
            let (annotation, default_none) = func.hints.get(i).cloned().unwrap_or((None, false));
            let annotated = annotation
                .as_ref()
                .map_or(Annotated::Unknown, |a| annotated(a, env));
            let (uniform_use, none_test, type_test, sequence_use) = uses[i];
            // D14: a string default makes the parameter a string, the same on every element
            // (`model="kastenyoung1989"`, `material="steel"` keying a table).
            let str_default = func
                .defaults
                .get(i)
                .and_then(Option::as_ref)
                .is_some_and(is_str);
            match annotated {
                Annotated::Uniform => ParamMode::Uniform,
                _ if uniform_use => ParamMode::Uniform,
                Annotated::Unknown if str_default => ParamMode::Uniform,
                _ if sequence_use && !type_test => ParamMode::Uniform,
                Annotated::OptionalNumber => ParamMode::Optional,
                _ if none_test => ParamMode::Optional,
                // D22: `def f(x, cap=None)` testing `isinstance(cap, float)`: None or a number.
                _ if type_test && default_none => ParamMode::Optional,
                _ => ParamMode::Number,
            }
        })
        .collect()
}

/// The parameters `e` passes on to a helper of the environment that reads the matching
/// parameter as a uniform value, or tests it `is None`.
fn helper_uses<'a>(
    e: &'a ast::Expr,
    env: &Env,
    helper_modes: &mut dyn FnMut(&FunctionSource) -> Option<Signature>,
) -> Vec<(&'a str, Use)> {
    let ast::Expr::Call(c) = e else {
        return vec![];
    };
    // A helper, a staticmethod or module function through a namespace, or a classmethod (whose
    // first parameter is its class, not an argument).
    let (fs, shift) = match callee_binding(&c.func, env) {
        Some(Binding::Function(fs)) => (fs, 0),
        Some(Binding::ClassMethod(fs)) => (fs, 1),
        _ => return vec![],
    };
    let Some((names, modes)) = helper_modes(&fs) else {
        return vec![];
    };
    let positional = c
        .args
        .iter()
        .enumerate()
        .map(|(i, a)| (modes.get(i + shift).copied(), a));
    let keywords = c.keywords.iter().filter_map(|k| {
        let i = names
            .iter()
            .position(|n| Some(n.as_str()) == k.arg.as_deref())?;
        Some((modes.get(i).copied(), &k.value))
    });
    positional
        .chain(keywords)
        .filter_map(|(mode, a)| {
            let ast::Expr::Name(n) = a else { return None };
            match mode? {
                ParamMode::Uniform => Some((n.id.as_str(), Use::Uniform)),
                ParamMode::Optional => Some((n.id.as_str(), Use::NoneTest)),
                ParamMode::Number => None,
            }
        })
        .collect()
}

/// A use of a parameter that decides its mode.
enum Use {
    Uniform,
    NoneTest,
    /// `isinstance(p, float)`, `type(p) is int`: the type of a number's elements (D22).
    TypeTest,
    /// `rates[band]`, `lower, upper = limits`, `for row in brackets`: a sequence given per call
    /// (D14), unless the parameter's type is tested (a number on the paths that read it so).
    Sequence,
}

/// The parameter uses expression `e` itself makes (its children are walked separately).
fn uniform_uses<'a>(e: &'a ast::Expr, env: &Env) -> Vec<(&'a str, Use)> {
    use ast::Expr as E;
    let name_of = |e: &'a ast::Expr| match e {
        E::Name(n) => Some(n.id.as_str()),
        _ => None,
    };
    let mut out = vec![];
    match e {
        // `_WHEN[when]` on a module-level dict of strings (a uniform object, D14): only a
        // string finds its keys, so the key is a uniform value too.
        E::Subscript(s) if matches!(s.value.as_ref(), E::Name(g) if matches!(env.get(g.id.as_str()), Some(Binding::Object(t)) if t == "dict")) =>
        {
            out.extend(name_of(&s.slice).map(|n| (n, Use::Uniform)));
        }
        E::Subscript(s) if matches!(s.slice.as_ref(), E::Constant(_)) => {
            out.extend(name_of(&s.value).map(|n| (n, Use::Uniform)));
        }
        // A number has no items: a parameter subscripted at a per-element index is a sequence
        // given per call, gathered (D14, D15), unless its type is tested (`isinstance`).
        E::Subscript(s) if !matches!(s.slice.as_ref(), E::Slice(_)) => {
            out.extend(name_of(&s.value).map(|n| (n, Use::Sequence)));
        }
        E::Attribute(a) if a.attr.as_str() == "astype" => {} // D16: NumPy's scalar method
        E::Attribute(a) => {
            if let Some(n) = name_of(&a.value) {
                if !matches!(env.get(n), Some(Binding::MathModule | Binding::Enum(_))) {
                    out.push((n, Use::Uniform));
                }
            }
        }
        E::Compare(c) => {
            let operands: Vec<&ast::Expr> = std::iter::once(c.left.as_ref())
                .chain(c.comparators.iter())
                .collect();
            for (k, op) in c.ops.iter().enumerate() {
                let (l, r) = (operands[k], operands[k + 1]);
                for (this, other) in [(l, r), (r, l)] {
                    let Some(n) = name_of(this) else { continue };
                    let use_ = match (op, other) {
                        (ast::CmpOp::Is | ast::CmpOp::IsNot, _) if is_none(other) => {
                            Some(Use::NoneTest)
                        }
                        (ast::CmpOp::Is | ast::CmpOp::IsNot, _) => Some(Use::Uniform),
                        (ast::CmpOp::Eq | ast::CmpOp::NotEq, _)
                            if is_str(other) || is_enum_member(other, env) =>
                        {
                            Some(Use::Uniform)
                        }
                        _ => None,
                    };
                    out.extend(use_.map(|u| (n, u)));
                }
            }
        }
        E::Call(c) => {
            // D22: `isinstance(x, (int, float))` tests a number's elements; a class only a
            // per-call object can be an instance of (`str`, `dict`, an Enum) makes it uniform.
            let isinstance = matches!(c.func.as_ref(), E::Name(f) if f.id.as_str() == "isinstance");
            if let (true, Some(k)) = (isinstance, c.args.get(1)) {
                let use_ = || {
                    if names_object_class(k, env) {
                        Use::Uniform
                    } else {
                        Use::TypeTest
                    }
                };
                out.extend(c.args.first().and_then(name_of).map(|n| (n, use_())));
            }
            out.extend(round_ndigits_name(c).map(|n| (n, Use::Uniform))); // round(x, n)
            out.extend(
                iterated_args(c, env)
                    .into_iter()
                    .map(|n| (n, Use::Sequence)),
            );
        }
        // `for r in rates` in a comprehension: a number cannot be iterated (D14, D15).
        E::GeneratorExp(ast::ExprGeneratorExp { generators, .. })
        | E::ListComp(ast::ExprListComp { generators, .. })
        | E::SetComp(ast::ExprSetComp { generators, .. })
        | E::DictComp(ast::ExprDictComp { generators, .. }) => {
            out.extend(
                generators
                    .iter()
                    .filter_map(|g| name_of(&g.iter))
                    .map(|n| (n, Use::Sequence)),
            );
        }
        _ => {}
    }
    // `type(p) is str`, `type(p) in (str, dict)`: likewise.
    if let E::Compare(c) = e {
        if let (E::Call(t), Some(k)) = (c.left.as_ref(), c.comparators.first()) {
            let is_type = matches!(t.func.as_ref(), E::Name(f) if f.id.as_str() == "type");
            if is_type {
                let use_ = || {
                    if names_object_class(k, env) {
                        Use::Uniform
                    } else {
                        Use::TypeTest
                    }
                };
                out.extend(t.args.first().and_then(name_of).map(|n| (n, use_())));
            }
        }
    }
    out
}

/// Whether the classes `e` (a name or a tuple of names) name one that no number is an instance
/// of but a per-call object may be: `str`, `dict`, an Enum class of the environment (D14, D22).
fn names_object_class(e: &ast::Expr, env: &Env) -> bool {
    match e {
        ast::Expr::Tuple(t) => t.elts.iter().any(|x| names_object_class(x, env)),
        ast::Expr::Name(n) => {
            matches!(n.id.as_str(), "str" | "dict")
                || matches!(env.get(n.id.as_str()), Some(Binding::Enum(_)))
        }
        _ => false,
    }
}

fn is_none(e: &ast::Expr) -> bool {
    matches!(e, ast::Expr::Constant(c) if matches!(c.value, ast::Constant::None))
}

fn is_str(e: &ast::Expr) -> bool {
    matches!(e, ast::Expr::Constant(c) if matches!(c.value, ast::Constant::Str(_)))
}

/// `Cls.MEMBER` with `Cls` an Enum class of the environment.
fn is_enum_member(e: &ast::Expr, env: &Env) -> bool {
    matches!(e, ast::Expr::Attribute(a) if matches!(
        a.value.as_ref(),
        ast::Expr::Name(n) if matches!(env.get(n.id.as_str()), Some(Binding::Enum(_)))
    ))
}

/// What the annotation `a` says of its parameter.
fn annotated(a: &ast::Expr, env: &Env) -> Annotated {
    use ast::Expr as E;
    let last = |e: &ast::Expr| -> Option<String> {
        match e {
            E::Name(n) => Some(n.id.to_string()),
            E::Attribute(a) => Some(a.attr.to_string()),
            // A string annotation (a forward reference) names the type.
            E::Constant(c) => match &c.value {
                ast::Constant::Str(s) => Some(s.rsplit('.').next().unwrap_or(s).to_string()),
                _ => None,
            },
            _ => None,
        }
    };
    let of_name = |n: &str| {
        if UNIFORM_ANNOTATIONS.contains(&n) || matches!(env.get(n), Some(Binding::Enum(_))) {
            Annotated::Uniform
        } else if NUMBER_ANNOTATIONS.contains(&n) {
            Annotated::Number
        } else {
            Annotated::Unknown
        }
    };
    // `X | None`, `Optional[X]`, `Union[X, None]`: X, made optional when it is a number.
    let with_none = |inner: Vec<&ast::Expr>| {
        let kinds: Vec<Annotated> = inner
            .iter()
            .filter(|e| !is_none(e))
            .map(|e| annotated(e, env))
            .collect();
        let has_none = inner.iter().any(|e| is_none(e));
        if kinds.contains(&Annotated::Uniform) {
            Annotated::Uniform
        } else if has_none && !kinds.is_empty() && kinds.iter().all(|k| *k == Annotated::Number) {
            Annotated::OptionalNumber
        } else if !has_none && !kinds.is_empty() && kinds.iter().all(|k| *k == Annotated::Number) {
            Annotated::Number
        } else {
            Annotated::Unknown
        }
    };
    match a {
        E::BinOp(b) if matches!(b.op, ast::Operator::BitOr) => {
            with_none(vec![b.left.as_ref(), b.right.as_ref()])
        }
        E::Subscript(s) => match last(&s.value).as_deref() {
            Some("Optional") => with_none(vec![s.slice.as_ref(), &NONE_EXPR]),
            Some("Union") => match s.slice.as_ref() {
                E::Tuple(t) => with_none(t.elts.iter().collect()),
                other => with_none(vec![other]),
            },
            Some(n) => of_name(n),
            None => Annotated::Unknown,
        },
        other => last(other).map_or(Annotated::Unknown, |n| of_name(&n)),
    }
}

/// A `None` literal to stand for the `None` that `Optional[X]` implies.
static NONE_EXPR: std::sync::LazyLock<ast::Expr> = std::sync::LazyLock::new(|| {
    ast::Expr::Constant(ast::ExprConstant {
        range: Default::default(),
        value: ast::Constant::None,
        kind: None,
    })
});

/// What the callee expression `f` is bound to: a name of the environment, or an attribute of a
/// namespace (D7: `Units.to_k`, `u.to_k`).
fn callee_binding(f: &ast::Expr, env: &Env) -> Option<Binding> {
    match f {
        ast::Expr::Name(n) => env.get(n.id.as_str()).cloned(),
        ast::Expr::Attribute(a) => match callee_binding(&a.value, env)? {
            Binding::Namespace(attrs) => attrs.get(a.attr.as_str()).cloned(),
            _ => None,
        },
        _ => None,
    }
}

/// How deep [`param_modes`] follows arguments into helpers that call helpers (each helper's
/// modes are computed once per compile, so a deep chain costs its length).
const MAX_HELPER_DEPTH: usize = 64;

impl Lowerer<'_> {
    /// The modes of `func`'s parameters, following arguments into helpers (see [`param_modes`]).
    pub(in crate::lower) fn modes_of(
        &mut self,
        func: &ParsedFunction,
        env: &Env,
        depth: usize,
    ) -> Vec<ParamMode> {
        param_modes(func, env, &mut |fs| {
            if depth >= MAX_HELPER_DEPTH {
                return None;
            }
            // A helper that does not parse is reported where it is inlined, once.
            let reported = self.diags.len();
            let Ok(parsed) = self.parse_helper(fs) else {
                self.diags.truncate(reported);
                return None;
            };
            let key = (fs.path.clone(), fs.first_line, fs.name.clone());
            if let Some(modes) = self.values.helper_modes.get(&key) {
                return Some((parsed.params.clone(), modes.clone()));
            }
            let helper_env = fs.env.clone().unwrap_or_else(|| env.clone());
            let modes = self.modes_of(&parsed, &helper_env, depth + 1);
            self.values.helper_modes.insert(key, modes.clone());
            Some((parsed.params.clone(), modes))
        })
    }

    /// Emits a uniform operation.
    pub(in crate::lower) fn uniform(&mut self, op: UniformOp, args: Vec<Value>) -> Value {
        self.emit(Op::Uniform(op, args))
    }

    /// Whether `v` is a uniform value (a Python object).
    pub(in crate::lower) fn is_object(&self, v: Value) -> bool {
        self.kind(v) == Kind::Object
    }

    /// `op` with every uniform operand read as what the operation needs: the truth of a
    /// condition or a logic operand, a Python number elsewhere.
    pub(in crate::lower) fn objects_as_numbers(&mut self, op: Op) -> Op {
        if matches!(op, Op::Uniform(..)) || !op.operands().iter().any(|v| self.is_object(*v)) {
            return op;
        }
        // D14, D15: a sequence given per call, gathered per element (`gather_given`).
        if let Op::Index(t, i) = op {
            if self.is_object(t) && !self.is_object(i) {
                return op;
            }
        }
        let truth_operands: Vec<Value> = match &op {
            Op::Select(c, ..) => vec![*c],
            Op::Logic(_, a, b) => vec![*a, *b],
            Op::Unary(crate::ir::UnOp::Not, a) => vec![*a],
            _ => vec![],
        };
        op.map_operands(|v| {
            if !self.is_object(v) {
                v
            } else if truth_operands.contains(&v) {
                self.emit(Op::Uniform(UniformOp::Truth, vec![v]))
            } else {
                self.literal_as_number(v);
                self.emit(Op::Uniform(self.number_op(v), vec![v]))
            }
        })
    }

    /// A uniform value as a number (a Python scalar), for a merge, a return or a phi.
    pub(in crate::lower) fn as_number(&mut self, v: Value) -> Value {
        if self.is_object(v) {
            self.literal_as_number(v);
            let op = self.number_op(v);
            self.uniform(op, vec![v])
        } else {
            v
        }
    }

    /// How `v` is read as a number: as it is, or with the stand-in `False` for None when it is
    /// an item of a tuple given per call (`lower, upper = limits`, either may be None: the paths
    /// that read it as a number are those its `is None` test guards, docs/semantics.md item 31).
    fn number_op(&self, v: Value) -> UniformOp {
        if self.values.function.maybe_none_items.contains(&v) {
            UniformOp::NumberOrFalse
        } else {
            UniformOp::Number
        }
    }

    /// A literal `None` or string: a uniform value.
    pub(in crate::lower) fn object_literal(
        &mut self,
        frame: &Frame,
        c: &ast::Constant,
        e: &ast::Expr,
    ) -> R<Value> {
        let lit = match c {
            ast::Constant::None => ObjLit::None,
            ast::Constant::Str(s) => ObjLit::Str(s.clone()),
            _ => return Err(()),
        };
        let is_str = matches!(lit, ObjLit::Str(_));
        let v = self.uniform(UniformOp::Lit(lit), vec![]);
        let (start, end) = crate::frontend::extract::span(e);
        self.values
            .literals
            .insert(v, (frame.source, start, end, is_str));
        Ok(v)
    }

    /// A `None` or string literal where a number is needed: reported at the literal.
    fn literal_as_number(&mut self, v: Value) {
        let Some((source, start, end, is_str)) = self.values.literals.remove(&v) else {
            return;
        };
        let message = match is_str {
            true => "strings are not supported where a number is needed (a string is a uniform value, D14: compare it with `==` or use it as a key); return or compute a number",
            false => "`None` has no array form where a number is needed (D14: test it with `is None`)",
        };
        self.error(
            DiagnosticKind::UnsupportedExpression,
            message.into(),
            source,
            start,
            end,
        );
    }

    /// `base.attr` where `base` is not the `math` module: an attribute of a uniform value (a
    /// parameter, an Enum class of the environment).
    pub(in crate::lower) fn attribute(
        &mut self,
        frame: &mut Frame,
        a: &ast::ExprAttribute,
        e: &ast::Expr,
    ) -> R<Value> {
        let base = self.expr(frame, &a.value);
        if self.poisoned.contains(&base) {
            return Err(());
        }
        if let Some(item) = self.named_field(frame, base, a) {
            return item;
        }
        if !self.is_object(base) {
            self.error_at(
                frame,
                DiagnosticKind::UnsupportedExpression,
                "attribute access is supported on the `math` module and on uniform values (D14: a parameter read as a per-call object, an Enum class); this value is a number per element".into(),
                e,
            );
            return Err(());
        }
        Ok(self.uniform(UniformOp::Attr(a.attr.to_string()), vec![base]))
    }

    /// `base[key]` on a uniform value: read once per call, with CPython's semantics.
    pub(in crate::lower) fn object_item(
        &mut self,
        frame: &Frame,
        base: Value,
        key: Value,
        e: &ast::Expr,
    ) -> R<Value> {
        if self.shape(key) == Shape::Array {
            // D14, D15: only a sequence given per call as a parameter is gathered; a module
            // global read as an object (a dict of strings, say) has no per-element items here.
            let global = self.f.values[base.index()]
                .hint
                .as_ref()
                .is_some_and(|name| {
                    matches!(self.names.used.get(name), Some(AssumedBinding::Object(_)))
                });
            if global {
                self.error_at(
                    frame,
                    DiagnosticKind::UnsupportedExpression,
                    "a uniform value (D14) can be subscripted only with a key that is the same on every element: a constant, a loop index, another uniform value".into(),
                    e,
                );
                return Err(());
            }
            return self.gather_given(frame, base, key, e);
        }
        if self.exceptions.lookup_caught() {
            // D10, D11: read once per call, before the elements run, its KeyError or IndexError
            // would leave the call where CPython's `except` clauses take it per element
            // (`try: a, b = TABLE[name] except KeyError: raise ValueError(...)`).
            self.error_at(
                frame,
                DiagnosticKind::UnsupportedExpression,
                "a uniform value (D14: docs/decisions.md#d14) is subscripted once per call, before the elements run, so a KeyError or IndexError it raises would not reach this `try`'s `except` clause that catches it as CPython's does per element (D11); subscript it before the `try` (test `key in table` there when the key may be missing)".into(),
                e,
            );
            return Err(());
        }
        Ok(self.uniform(UniformOp::Item, vec![base, key]))
    }

    /// The environment's Enum class `name`, as a global of the generated module (D8, D14).
    pub(in crate::lower) fn enum_class(&mut self, name: &str, members: &[String]) -> Value {
        self.names
            .assume(name.to_string(), AssumedBinding::Enum(members.to_vec()));
        let param = self.hidden_param(Hidden::Object(name.to_string()));
        let v = self.uniform(UniformOp::Global(param), vec![]);
        self.f.values[v.index()].hint = Some(name.to_string());
        v
    }

    /// One comparison `l op r` where either side is a uniform value: Python compares them once
    /// per call. `Some` when it applies; an ordering, or `==` with an array, reads the uniform
    /// side as a number (None: the caller compares numbers).
    pub(in crate::lower) fn object_compare(
        &mut self,
        frame: &Frame,
        op: &ast::CmpOp,
        l: Value,
        r: Value,
        node: &ast::ExprCompare,
    ) -> R<Option<Value>> {
        let identity = matches!(op, ast::CmpOp::Is | ast::CmpOp::IsNot);
        let (l, r) = if identity {
            (self.as_passed(l), self.as_passed(r))
        } else {
            (l, r)
        };
        let objects = self.is_object(l) || self.is_object(r);
        if identity && !objects {
            if !self.poisoned.contains(&l) && !self.poisoned.contains(&r) {
                self.error_at(
                    frame,
                    DiagnosticKind::UnsupportedOperator,
                    "`is` compares identities, which array elements do not have; use `==` (`is` applies to uniform values, D14: `mode is None`, `unit is Unit.SI`)".into(),
                    node,
                );
            }
            return Err(());
        }
        let both_python = self.shape(l) == Shape::Scalar && self.shape(r) == Shape::Scalar;
        let cmp = match op {
            ast::CmpOp::Is => ObjCmp::Is,
            ast::CmpOp::IsNot => ObjCmp::IsNot,
            ast::CmpOp::Eq if objects && both_python => ObjCmp::Eq,
            ast::CmpOp::NotEq if objects && both_python => ObjCmp::Ne,
            _ => return Ok(None),
        };
        Ok(Some(self.uniform(UniformOp::Compare(cmp), vec![l, r])))
    }

    /// The argument as the caller passed it, for a parameter that may be `None` (the numeric
    /// reads see the converted argument).
    pub(in crate::lower) fn as_passed(&mut self, v: Value) -> Value {
        match self.values.function.optional.get(&v).copied() {
            Some(i) => self.uniform(UniformOp::Arg(i), vec![]),
            None => v,
        }
    }

    /// Whether `name` holds a uniform parameter as passed: a call through it (`xnp.minimum(a,
    /// b)`, a namespace passed in) is NumPy's function of that name (D14, D16).
    pub(in crate::lower) fn is_namespace_arg(&self, frame: &Frame, name: &str) -> bool {
        matches!(frame.vars.get(name), Some(crate::lower::Var::Def(v)) if self.values.uniform_args.contains(v))
    }

    /// The condition of an `if` or `while` on a uniform value: its truth, in Python.
    pub(in crate::lower) fn object_truth(&mut self, v: Value) -> Value {
        if self.is_object(v) {
            self.uniform(UniformOp::Truth, vec![v])
        } else {
            v
        }
    }

    /// A comparison operator of the IR, for an ordering or `==` on numbers.
    pub(in crate::lower) fn numeric_cmp(op: &ast::CmpOp) -> Option<CmpOp> {
        Some(match op {
            ast::CmpOp::Lt => CmpOp::Lt,
            ast::CmpOp::LtE => CmpOp::Le,
            ast::CmpOp::Gt => CmpOp::Gt,
            ast::CmpOp::GtE => CmpOp::Ge,
            ast::CmpOp::Eq => CmpOp::Eq,
            ast::CmpOp::NotEq => CmpOp::Ne,
            _ => return None,
        })
    }
}

#[cfg(test)]
mod tests;
