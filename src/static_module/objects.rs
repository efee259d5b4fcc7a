//! What module text binds beyond numbers, tables and functions, read without running it (the
//! static compile, `module`): Enum classes with their members, and module-level objects read as
//! uniform values (D14): a dict display or `dict(a=1)`, `None`, a string literal, an Enum member.

use std::collections::BTreeMap;

use rustpython_parser::ast;

use crate::env::Binding;

/// What a module-level assignment of something other than a number or table binds (D14): a
/// dict display (of parameters, string keys), `None` or a string literal is an object of that
/// type, read through a global of the generated module; `Cls.MEMBER` waits for
/// [`bind_enum_members`] to know whether `Cls` is an Enum class. The live object's type is
/// checked against the assumption before the static compile's code is used.
pub(crate) fn object_binding(value: &ast::Expr) -> Binding {
    match value {
        ast::Expr::Dict(_) => Binding::Object("dict".into()),
        // `dict(low=0.1, high=0.4)`: a dict of string keys as a display builds it (the live
        // object's type is checked, so a module rebinding `dict` is seen).
        ast::Expr::Call(c)
            if matches!(c.func.as_ref(), ast::Expr::Name(n) if n.id.as_str() == "dict")
                && c.args.is_empty()
                && c.keywords.iter().all(|k| k.arg.is_some()) =>
        {
            Binding::Object("dict".into())
        }
        ast::Expr::Constant(c) => match c.value {
            ast::Constant::None => Binding::Object("NoneType".into()),
            ast::Constant::Str(_) => Binding::Object("str".into()),
            _ => Binding::Unresolved("computed at import time".into()),
        },
        ast::Expr::Attribute(a) => match a.value.as_ref() {
            ast::Expr::Name(n) => Binding::Unresolved(format!("{ENUM_MEMBER}{}.{}", n.id, a.attr)),
            _ => Binding::Unresolved("computed at import time".into()),
        },
        _ => Binding::Unresolved("computed at import time".into()),
    }
}

/// The reason [`object_binding`] gives `NAME = Cls.MEMBER` until the Enum classes are known.
const ENUM_MEMBER: &str = "an attribute read at import time: ";

/// `NAME = Cls.MEMBER` with `Cls` an Enum class of the module and `MEMBER` one of its members:
/// an object of type `Cls` (D14); anything else stays unresolved.
pub(crate) fn bind_enum_members(bindings: &mut BTreeMap<String, Binding>) {
    let members: Vec<(String, String)> = bindings
        .iter()
        .filter_map(|(name, b)| match b {
            Binding::Unresolved(why) => {
                let (class, member) = why.strip_prefix(ENUM_MEMBER)?.split_once('.')?;
                match bindings.get(class) {
                    Some(Binding::Enum(names)) if names.iter().any(|m| m == member) => {
                        Some((name.clone(), class.to_string()))
                    }
                    _ => None,
                }
            }
            _ => None,
        })
        .collect();
    for (name, class) in members {
        bindings.insert(name, Binding::Object(class));
    }
}

/// `EXP = np.exp` / `SQRT = math.sqrt` at module level, with `np` NumPy and `exp` a name of its
/// table (D16), or `math` the math module: a member bound directly, as `from numpy import exp`
/// binds it (the decorator checks the live object against the assumption); anything else stays
/// unresolved.
pub(crate) fn bind_module_members(bindings: &mut BTreeMap<String, Binding>) {
    let members: Vec<(String, Binding)> = bindings
        .iter()
        .filter_map(|(name, b)| {
            let Binding::Unresolved(why) = b else {
                return None;
            };
            let (module, member) = why.strip_prefix(ENUM_MEMBER)?.split_once('.')?;
            let bound = match bindings.get(module)? {
                Binding::NumpyModule if crate::lower::numpy_name(member).is_some() => {
                    Binding::NumpyMember(member.to_string())
                }
                Binding::MathModule if crate::ir::math_fn(member).is_some() => {
                    Binding::MathMember(member.to_string())
                }
                _ => return None,
            };
            Some((name.clone(), bound))
        })
        .collect();
    bindings.extend(members);
}

pub(crate) fn bind_enums(body: &[ast::Stmt], bindings: &mut BTreeMap<String, Binding>) {
    for stmt in body {
        if let ast::Stmt::ClassDef(c) = stmt {
            if let Some(members) = enum_members(c) {
                bindings.insert(c.name.to_string(), Binding::Enum(members));
            }
        }
    }
}

/// The member names of `class C(Enum):` (also `IntEnum`, `StrEnum`, `enum.Enum`, mixins such as
/// `(str, Enum)`): the names its body assigns, in order (D14). The decorator checks them against
/// the live class (its `__members__`), so a class that is not what the text suggests is compiled
/// live instead.
fn enum_members(c: &ast::StmtClassDef) -> Option<Vec<String>> {
    let is_enum_base = |b: &ast::Expr| {
        let name = match b {
            ast::Expr::Name(n) => n.id.as_str(),
            ast::Expr::Attribute(a) => a.attr.as_str(),
            _ => return false,
        };
        matches!(name, "Enum" | "IntEnum" | "StrEnum")
    };
    if !c.bases.iter().any(is_enum_base) || !c.decorator_list.is_empty() {
        return None;
    }
    let mut members = vec![];
    for stmt in &c.body {
        let target = match stmt {
            ast::Stmt::Assign(a) if a.targets.len() == 1 => &a.targets[0],
            ast::Stmt::AnnAssign(a) if a.value.is_some() => a.target.as_ref(),
            _ => continue,
        };
        match target {
            ast::Expr::Name(n) if !n.id.starts_with('_') => members.push(n.id.to_string()),
            _ => return None,
        }
    }
    Some(members)
}

/// Binds the module's namedtuple classes (issue 27 part 2 item 4, D13): `P = namedtuple("P",
/// ["x", "y"])` (also `"x y"`, `"x, y"`, a tuple of names, `collections.namedtuple`) and
/// `class P(NamedTuple):` whose body only annotates its fields (a docstring aside); the
/// decorator checks the live class's name and fields. Anything else stays as it was.
pub(crate) fn bind_named_tuples(body: &[ast::Stmt], bindings: &mut BTreeMap<String, Binding>) {
    for stmt in body {
        let found = match stmt {
            ast::Stmt::Assign(a) => match (a.targets.as_slice(), a.value.as_ref()) {
                ([ast::Expr::Name(n)], ast::Expr::Call(c)) => {
                    named_tuple_call(c).map(|b| (n.id.to_string(), b))
                }
                _ => None,
            },
            ast::Stmt::ClassDef(c) => named_tuple_class(c).map(|b| (c.name.to_string(), b)),
            _ => None,
        };
        if let Some((name, binding)) = found {
            if matches!(bindings.get(&name), Some(Binding::Unresolved(_))) {
                bindings.insert(name, binding);
            }
        }
    }
}

fn string(e: &ast::Expr) -> Option<String> {
    match e {
        ast::Expr::Constant(c) => match &c.value {
            ast::Constant::Str(s) => Some(s.to_string()),
            _ => None,
        },
        _ => None,
    }
}

/// `namedtuple("P", fields)` with no keyword (no defaults, no renaming).
fn named_tuple_call(c: &ast::ExprCall) -> Option<Binding> {
    let called = match c.func.as_ref() {
        ast::Expr::Name(n) => n.id.as_str(),
        ast::Expr::Attribute(a) => a.attr.as_str(),
        _ => return None,
    };
    let [name, fields] = c.args.as_slice() else {
        return None;
    };
    if called != "namedtuple" || !c.keywords.is_empty() {
        return None;
    }
    let fields: Vec<String> = match fields {
        ast::Expr::List(l) => l.elts.iter().map(string).collect::<Option<_>>()?,
        ast::Expr::Tuple(t) => t.elts.iter().map(string).collect::<Option<_>>()?,
        other => string(other)?
            .replace(',', " ")
            .split_whitespace()
            .map(str::to_string)
            .collect(),
    };
    Some(Binding::NamedTuple(string(name)?, fields))
}

/// `class P(NamedTuple):` (or `typing.NamedTuple`) annotating its fields, without defaults.
fn named_tuple_class(c: &ast::StmtClassDef) -> Option<Binding> {
    let base = match c.bases.as_slice() {
        [ast::Expr::Name(n)] => n.id.as_str(),
        [ast::Expr::Attribute(a)] => a.attr.as_str(),
        _ => return None,
    };
    if base != "NamedTuple" || !c.keywords.is_empty() || !c.decorator_list.is_empty() {
        return None;
    }
    let mut fields = vec![];
    for stmt in &c.body {
        match stmt {
            ast::Stmt::AnnAssign(a) if a.value.is_none() => match a.target.as_ref() {
                ast::Expr::Name(n) => fields.push(n.id.to_string()),
                _ => return None,
            },
            ast::Stmt::Expr(e) if string(&e.value).is_some() => {}
            _ => return None,
        }
    }
    Some(Binding::NamedTuple(c.name.to_string(), fields))
}
