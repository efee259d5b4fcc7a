//! D22: `isinstance(x, int)`, `isinstance(x, (int, float))`, `numbers.Real`, `type(x) is
//! float`, `type(x) in (int, float)` on a per-element number.
//!
//! CPython's element loop (and `np.vectorize`) hands the scalar function each element as a
//! Python scalar: a float64 array's elements are `float`, an int64 or uint64 array's `int`, a
//! bool array's `bool` (narrower dtypes are widened first). Every element of an argument so has
//! the type its dtype gives, so such a test is the same on every lane: decided once per call,
//! from the dtype, as a Python `if` ([`UniformOp::ElementIs`]). The float body knows its
//! parameters are float64 and folds the test (`rewrite/fold.rs`); the exact body asks the
//! runtime (`_vec_element_type`).
//!
//! Only a parameter's own value has one type on every lane: a value computed from it can hold
//! ints as float64 on some lanes (a merge, docs/semantics.md item 8), so a test of it is refused
//! (D10). A constant's type is known now. A test no element type can change (`isinstance(x,
//! str)`, `isinstance(x, (int, float))`, `type(x) in (list, tuple)`) is a constant, so the side
//! Python never takes for a number is never lowered.

use rustpython_parser::ast;

use crate::diagnostics::DiagnosticKind;
use crate::env::{AssumedBinding, Binding};
use crate::ir::{Const, ElementTypes, LogicOp, ObjCmp, ObjLit, Op, UniformOp, Value};
use crate::lower::{Frame, Lowerer, R};

/// Builtin types `isinstance` may test a uniform value against.
const ISINSTANCE_TYPES: &[&str] = &["int", "float", "bool", "str", "dict", "tuple", "list"];

/// Builtin classes no element is an instance of (a number is none of them).
const OTHER_BUILTIN_CLASSES: &[&str] = &[
    "str",
    "dict",
    "tuple",
    "list",
    "complex",
    "bytes",
    "set",
    "frozenset",
];

/// NumPy's types, which no element is an instance of: elements are Python scalars (D22).
const NUMPY_TYPES: &[&str] = &[
    "ndarray",
    "generic",
    "number",
    "integer",
    "signedinteger",
    "unsignedinteger",
    "inexact",
    "floating",
    "bool_",
    "float64",
    "float32",
    "int64",
    "int32",
    "uint64",
];

/// The element types an instance of the `numbers` ABC `name` can have (`type(x) is` one: none).
fn numbers_class(name: &str) -> Option<ElementTypes> {
    match name {
        "Number" | "Complex" | "Real" => Some(ElementTypes::ALL),
        "Rational" | "Integral" => Some(ElementTypes::BOOL.union(ElementTypes::INT)),
        _ => None,
    }
}

/// The element type of a constant.
fn const_type(c: &Const) -> Option<ElementTypes> {
    match c {
        Const::Bool(_) => Some(ElementTypes::BOOL),
        Const::Int(_) => Some(ElementTypes::INT),
        Const::Float(_) => Some(ElementTypes::FLOAT),
        _ => None,
    }
}

/// How a class is tested: `isinstance` (subclasses too) or `type(x) is` (the class itself).
#[derive(Clone, Copy, PartialEq)]
enum Test {
    Instance,
    Exact,
}

impl Lowerer<'_> {
    /// `isinstance(value, T)` with `value` uniform and `T` a builtin type, an Enum class of the
    /// environment, or a tuple of those.
    pub(in crate::lower) fn isinstance_call(
        &mut self,
        frame: &mut Frame,
        c: &ast::ExprCall,
    ) -> R<Value> {
        let args = &c.args;
        if args.len() != 2 || !c.keywords.is_empty() {
            self.error_at(
                frame,
                DiagnosticKind::BadArguments,
                "isinstance() takes 2 positional arguments".into(),
                c,
            );
            return Err(());
        }
        let number = self.expr(frame, &args[0]);
        if self.poisoned.contains(&number) {
            return Err(());
        }
        let v = self.as_passed(number);
        if !self.is_object(v) || self.values.function.optional.contains_key(&number) {
            // D22: the type of a number's elements.
            return self.element_isinstance(frame, number, &args[1], &args[0]);
        }
        let classes = self.isinstance_classes(frame, &args[1])?;
        Ok(self.uniform(UniformOp::IsInstance, vec![v, classes]))
    }

    /// The second argument of `isinstance`.
    pub(in crate::lower) fn isinstance_classes(
        &mut self,
        frame: &mut Frame,
        e: &ast::Expr,
    ) -> R<Value> {
        match e {
            ast::Expr::Tuple(t) => {
                let items = t
                    .elts
                    .iter()
                    .map(|x| self.isinstance_classes(frame, x))
                    .collect::<R<Vec<Value>>>()?;
                Ok(self.uniform(UniformOp::Tuple, items))
            }
            ast::Expr::Name(n) if !frame.vars.contains_key(n.id.as_str()) => {
                let name = n.id.as_str();
                match frame.env.get(name).cloned() {
                    Some(Binding::Enum(members)) => Ok(self.enum_class(name, &members)),
                    Some(Binding::Builtin(b)) if ISINSTANCE_TYPES.contains(&b.as_str()) => {
                        self.assume(frame, name, AssumedBinding::Builtin(b.clone()));
                        Ok(self.uniform(UniformOp::Builtin(b), vec![]))
                    }
                    Some(Binding::Unresolved(_)) => {
                        self.names.defer(name);
                        Err(())
                    }
                    _ => self.bad_class(frame, e),
                }
            }
            _ => self.bad_class(frame, e),
        }
    }

    fn bad_class(&mut self, frame: &Frame, e: &ast::Expr) -> R<Value> {
        self.error_at(
            frame,
            DiagnosticKind::UnsupportedExpression,
            format!(
                "isinstance() here takes a builtin type ({}), an Enum class of the module, or a tuple of those",
                ISINSTANCE_TYPES.join(", ")
            ),
            e,
        );
        Err(())
    }

    /// Records that parameter value `v` has the type its dtype gives on every lane (D22).
    pub(in crate::lower) fn add_type_exact(&mut self, v: Value) {
        self.values.function.type_exact.insert(v);
    }

    /// Whether `v` is a parameter's own value, one type on every lane (D22).
    pub(in crate::lower) fn is_type_exact(&self, v: Value) -> bool {
        self.values.function.type_exact.contains(&v)
    }

    /// `isinstance(v, classes)` for a number `v` (D22).
    pub(in crate::lower) fn element_isinstance(
        &mut self,
        frame: &mut Frame,
        v: Value,
        classes: &ast::Expr,
        arg: &ast::Expr,
    ) -> R<Value> {
        let types = self.element_types(frame, classes, Test::Instance)?;
        self.element_is(frame, v, types, arg)
    }

    /// Whether an element of `v` has one of `types`: a constant when every element type
    /// answers alike or `v` is a constant, else `ElementIs` of a parameter's value.
    fn element_is(
        &mut self,
        frame: &Frame,
        v: Value,
        types: ElementTypes,
        arg: &ast::Expr,
    ) -> R<Value> {
        if types == ElementTypes::NONE || types == ElementTypes::ALL {
            return Ok(self.konst(Const::Bool(types == ElementTypes::ALL)));
        }
        if let Some(t) = self.const_of(v).as_ref().and_then(const_type) {
            return Ok(self.konst(Const::Bool(types.contains(t))));
        }
        if !self.is_type_exact(v) {
            if !self.poisoned.contains(&v) {
                self.error_at(
                    frame,
                    DiagnosticKind::UnsupportedExpression,
                    "the type of a computed number is not known per element (an int merged with a float is held as float64, docs/semantics.md item 8); isinstance() and type() apply to a parameter as passed (D22), or to a uniform value (D14)".into(),
                    arg,
                );
            }
            return Err(());
        }
        let test = self.uniform(UniformOp::ElementIs(types), vec![v]);
        // A parameter that may be `None` (D14): `None` is none of these types.
        match self.values.function.optional.get(&v).copied() {
            Some(i) => {
                let passed = self.uniform(UniformOp::Arg(i), vec![]);
                let none = self.uniform(UniformOp::Lit(ObjLit::None), vec![]);
                let given = self.uniform(UniformOp::Compare(ObjCmp::IsNot), vec![passed, none]);
                Ok(self.emit(Op::Logic(LogicOp::And, given, test)))
            }
            None => Ok(test),
        }
    }

    /// The element types `classes` (a class or a tuple of them, as `isinstance` takes) accepts.
    fn element_types(
        &mut self,
        frame: &mut Frame,
        classes: &ast::Expr,
        test: Test,
    ) -> R<ElementTypes> {
        match classes {
            ast::Expr::Tuple(t) => t.elts.iter().try_fold(ElementTypes::NONE, |acc, e| {
                Ok(acc.union(self.element_types(frame, e, test)?))
            }),
            ast::Expr::Name(n) if !frame.vars.contains_key(n.id.as_str()) => {
                let name = n.id.as_str();
                match frame.env.get(name).cloned() {
                    Some(Binding::Builtin(b)) => {
                        let types = match (b.as_str(), test) {
                            ("int", Test::Instance) => {
                                Some(ElementTypes::BOOL.union(ElementTypes::INT))
                            }
                            (c, _) if OTHER_BUILTIN_CLASSES.contains(&c) => {
                                Some(ElementTypes::NONE)
                            }
                            (c, _) => ElementTypes::of_name(c),
                        };
                        let Some(types) = types else {
                            return self.bad_element_class(frame, classes);
                        };
                        self.assume(frame, name, AssumedBinding::Builtin(b));
                        Ok(types)
                    }
                    Some(Binding::NumbersClass(c)) => {
                        let Some(types) = numbers_class(&c) else {
                            return self.bad_element_class(frame, classes);
                        };
                        self.assume(frame, name, AssumedBinding::NumbersClass(c));
                        Ok(if test == Test::Exact {
                            ElementTypes::NONE
                        } else {
                            types
                        })
                    }
                    Some(Binding::Enum(members)) => {
                        self.assume(frame, name, AssumedBinding::Enum(members));
                        Ok(ElementTypes::NONE)
                    }
                    Some(Binding::Unresolved(_)) => {
                        self.names.defer(name);
                        Err(())
                    }
                    _ => self.bad_element_class(frame, classes),
                }
            }
            ast::Expr::Attribute(a) => {
                let ast::Expr::Name(base) = a.value.as_ref() else {
                    return self.bad_element_class(frame, classes);
                };
                let (base, attr) = (base.id.as_str(), a.attr.as_str());
                if frame.vars.contains_key(base) || frame.locals.contains(base) {
                    return self.bad_element_class(frame, classes);
                }
                match frame.env.get(base) {
                    Some(Binding::NumbersModule) => {
                        let Some(types) = numbers_class(attr) else {
                            return self.bad_element_class(frame, classes);
                        };
                        self.assume(frame, base, AssumedBinding::NumbersModule);
                        Ok(if test == Test::Exact {
                            ElementTypes::NONE
                        } else {
                            types
                        })
                    }
                    Some(Binding::NumpyModule) if NUMPY_TYPES.contains(&attr) => {
                        self.assume(frame, base, AssumedBinding::NumpyModule);
                        Ok(ElementTypes::NONE)
                    }
                    Some(Binding::Unresolved(_)) => {
                        self.names.defer(base);
                        Err(())
                    }
                    _ => self.bad_element_class(frame, classes),
                }
            }
            _ => self.bad_element_class(frame, classes),
        }
    }

    /// `Real(x)`: a `numbers` class called (D22: they test types, they make no number).
    pub(in crate::lower) fn numbers_class_called(
        &mut self,
        frame: &Frame,
        name: &str,
        class: &str,
        c: &ast::ExprCall,
    ) -> R<crate::lower::calls::builtins::Callee> {
        self.error_at(
            frame,
            DiagnosticKind::UnknownCall,
            format!("`{name}` is the abstract class `numbers.{class}`: it tests types (D22), it makes no number"),
            &*c.func,
        );
        Err(())
    }

    fn bad_element_class(&mut self, frame: &Frame, e: &ast::Expr) -> R<ElementTypes> {
        self.error_at(
            frame,
            DiagnosticKind::UnsupportedExpression,
            "the type of a number per element (D22) is tested against int, float, bool, the `numbers` classes (Number, Complex, Real, Rational, Integral), NumPy's scalar types, builtin containers and str, or a tuple of those".into(),
            e,
        );
        Err(())
    }

    /// `type(v) is T`, `type(v) == T`, `type(v) in (T1, T2)` and their negations, as the
    /// first comparison of `c` (D22 for a number `v`; D14 for a uniform one, compared in
    /// Python). None when `c` is not such a test.
    pub(in crate::lower) fn type_compare(
        &mut self,
        frame: &mut Frame,
        c: &ast::ExprCompare,
    ) -> Option<R<Value>> {
        let ast::Expr::Call(call) = c.left.as_ref() else {
            return None;
        };
        let ast::Expr::Name(f) = call.func.as_ref() else {
            return None;
        };
        let is_type = !frame.vars.contains_key(f.id.as_str())
            && !frame.locals.contains(f.id.as_str())
            && matches!(frame.env.get(f.id.as_str()), Some(Binding::Builtin(b)) if b == "type");
        if !is_type || call.args.len() != 1 || !call.keywords.is_empty() || c.ops.len() != 1 {
            return None;
        }
        use ast::CmpOp as C;
        let (negated, member) = match c.ops[0] {
            C::Is | C::Eq => (false, false),
            C::IsNot | C::NotEq => (true, false),
            C::In => (false, true),
            C::NotIn => (true, true),
            _ => return None,
        };
        let classes = &c.comparators[0];
        if member && !matches!(classes, ast::Expr::Tuple(_)) {
            return None;
        }
        self.assume(frame, f.id.as_str(), AssumedBinding::Builtin("type".into()));
        let v = self.expr(frame, &call.args[0]);
        Some(self.type_test(frame, v, classes, negated, &call.args[0]))
    }

    /// The value of `type(v) is classes` (one class, or membership in a tuple of them).
    fn type_test(
        &mut self,
        frame: &mut Frame,
        v: Value,
        classes: &ast::Expr,
        negated: bool,
        arg: &ast::Expr,
    ) -> R<Value> {
        if self.poisoned.contains(&v) {
            return Err(());
        }
        let passed = self.as_passed(v);
        let test = if self.is_object(passed) && !self.values.function.optional.contains_key(&v) {
            // D14: `type(mode) is str`, in Python once per call.
            let cls = self.isinstance_classes(frame, classes)?;
            let t = self.uniform(UniformOp::TypeOf, vec![passed]);
            let cmp = if matches!(classes, ast::Expr::Tuple(_)) {
                ObjCmp::In
            } else {
                ObjCmp::Is
            };
            self.uniform(UniformOp::Compare(cmp), vec![t, cls])
        } else {
            let types = self.element_types(frame, classes, Test::Exact)?;
            self.element_is(frame, v, types, arg)?
        };
        Ok(if negated { self.not(test) } else { test })
    }
}
