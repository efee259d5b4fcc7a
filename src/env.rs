//! What a free name of the compiled function is bound to (D8: the frozen environment).
//!
//! The decorator fills an [`Env`] from the live function (closure cells, globals, builtins); the
//! static compiler (import hook, build backend) fills it from module text and records every binding it
//! relied on as an [`Assumption`] that the decorator re-checks at run time (DESIGN.md section 4).

use std::collections::BTreeMap;

use crate::frontend::tree::FunctionTree;
use crate::frontend::Input;

pub use crate::ir::{float_repr, Const};

/// What a hidden parameter of the generated function carries: a value of the environment that
/// the generated module reads as a global, bound by the decorator (never by the static compile).
#[derive(Debug, Clone, PartialEq)]
pub enum Hidden {
    /// A global array (D8).
    Array(String),
    /// A callable called per element (fallback=True, D7).
    Callee(String),
    /// A module-level object read as a global (an Enum class, D14).
    Object(String),
    /// The scalar original of the recursive function of this name, which finishes the lanes
    /// that recurse deeper than it was inlined (D19): global [`Hidden::scalar_global`].
    Scalar(String),
}

impl Hidden {
    /// The global of the generated module holding the scalar original of function `name` (D19;
    /// emit.py `SCALAR_PREFIX`).
    pub fn scalar_global(name: &str) -> String {
        format!("_vec_scalar_{name}")
    }

    /// The global of the generated module holding this value.
    pub fn global(&self) -> String {
        match self {
            Hidden::Array(n) | Hidden::Callee(n) | Hidden::Object(n) => n.clone(),
            Hidden::Scalar(n) => Hidden::scalar_global(n),
        }
    }
}

/// The source of a helper function (D7) and the environment its own free names resolve in.
#[derive(Debug, Clone, PartialEq)]
pub struct FunctionSource {
    /// Where the front end finds the function.
    pub code: FunctionCode,
    /// File it came from, for diagnostics.
    pub path: String,
    /// 1-based line of `source`'s first line in `path`.
    pub first_line: usize,
    /// The helper's `__qualname__` (or just its name; `<lambda>` for lambdas): the innermost
    /// class it names mangles private names.
    pub name: String,
    /// Where its free names resolve; `None` when that is the caller's environment (a helper of
    /// the same module, and the way the decorator breaks cycles between helpers).
    pub env: Option<Env>,
    /// A function of another library (the standard library, an installed package), whose
    /// source the user does not edit: its problems are reported at the call.
    pub library: bool,
}

/// A function's code as the front end takes it.
#[derive(Debug, Clone, PartialEq)]
pub enum FunctionCode {
    /// Text that contains the `def` (or the `lambda`) at its first line, parsed by the front end
    /// (the decorator's helpers: the rest of the file may follow).
    Text(String),
    /// A node of a module parsed once (the static compile, issue 25 item 7).
    Tree(FunctionTree),
}

impl FunctionSource {
    /// The function's own text, as the front end cuts it (decorators, header, body).
    pub fn text(&self) -> &str {
        match &self.code {
            FunctionCode::Text(source) => {
                let lambda = crate::frontend::identifiers::is_lambda(&self.name);
                &source[..crate::frontend::source::block_len(source, lambda)]
            }
            FunctionCode::Tree(tree) => tree.text(),
        }
    }

    /// The front end's input for this function.
    pub fn input(&self) -> Input<'_> {
        match &self.code {
            FunctionCode::Text(source) => Input::Text {
                source,
                path: &self.path,
                first_line: self.first_line,
            },
            FunctionCode::Tree(tree) => Input::Tree(tree),
        }
    }
}

/// What one free name is bound to.
#[derive(Debug, Clone, PartialEq)]
pub enum Binding {
    /// A frozen scalar or tuple of scalars.
    Const(Const),
    /// The stdlib `math` module.
    MathModule,
    /// The `numpy` module, whose elementwise functions and constants map to `xp` (D16).
    NumpyModule,
    /// A member of `math` bound directly (`from math import sqrt as s` binds `s` to `sqrt`).
    MathMember(String),
    /// A name of NumPy's table (D16, `lower/calls/numpy/table.rs`) bound directly: `from numpy
    /// import exp as e` binds `e` to `exp`; a function or a constant (`pi`).
    NumpyMember(String),
    /// A builtin (`abs`, `min`, `range`, ...), not shadowed.
    Builtin(String),
    /// A pure Python function to vectorize with the caller (D7).
    Function(Box<FunctionSource>),
    /// An array: passed as a hidden keyword parameter (D8).
    Array,
    /// A module-level object that is no number, table or function: a dict of parameters with
    /// string keys, `None`, a string or an Enum member (`UNIT = Unit.SI`), named by its type
    /// (`dict`, `NoneType`, `str`, the Enum class). A uniform value (D14) read through a global
    /// of the generated module, bound at decoration to a copy of the object then (D8).
    Object(String),
    /// An Enum class with these member names (D14): its members are uniform values, read
    /// through the class, which the generated module holds as a global bound at decoration (D8).
    Enum(Vec<String>),
    /// A plain exception class (D11: its body is `pass` or a docstring): its MRO, itself first,
    /// `object` left out. Builtin classes are named as such (`ValueError`), classes of the
    /// program by `.` and their qualified name (`.RangeError`), so none is taken for another.
    /// `raise` constructs it by name, a global of the generated module (D8); `except` matches on
    /// the MRO, as CPython does.
    ExceptionClass(Vec<String>),
    /// The stdlib `bisect` module (D15).
    BisectModule,
    /// `bisect.bisect_left` or `bisect.bisect_right` (`bisect.bisect` is `bisect_right`), by name.
    Bisect(String),
    /// The stdlib `numbers` module, whose classes `isinstance` tests elements against (D22).
    NumbersModule,
    /// A class of the `numbers` module bound directly (`from numbers import Real`), by name.
    NumbersClass(String),
    /// A class used as a namespace, or a module reached through an alias (D7, D8): the
    /// attributes the function may read as `name.attr`, each with its own binding.
    Namespace(Env),
    /// A classmethod of such a class: a helper whose first parameter is bound to the class (its
    /// `Namespace`) rather than passed.
    ClassMethod(Box<FunctionSource>),
    /// A namedtuple class (`collections.namedtuple` or a `typing.NamedTuple` class without
    /// defaults): its name and fields. A call makes a tuple (D13) whose items its attributes
    /// read (issue 27 part 2 item 4).
    NamedTuple(String, Vec<String>),
    /// Another callable: only usable through an element loop with `fallback=True`.
    OpaqueCallable(String),
    /// Bound to something the compiler cannot use; the text says what.
    Unsupported(String),
    /// Static compilation only: the name could not be resolved from module text.
    Unresolved(String),
}

/// The free names a function may read, with what each is bound to.
pub type Env = BTreeMap<String, Binding>;

/// Static compilation only: in the environment of another module of the program (a helper
/// imported from it, `from .units import to_k`, or its alias, `import pkg.units as u`), the key
/// holding `Binding::Unresolved(<module name>)`. No identifier can read it. Assumptions about
/// the names that module's functions read are recorded as `<module name>:<name>`, which the
/// decorator checks against that module's live globals.
pub const SCOPE_KEY: &str = "@module";
/// With [`SCOPE_KEY`]: `Binding::Unresolved(<hex sha256 of the module's source bytes>)`; absent
/// for a module of the standard library, whose functions are pinned by their own text
/// ([`AssumedBinding::StdlibFunction`]).
pub const SHA_KEY: &str = "@sha256";
/// Static compilation only: `<prefix><name>` holds `Binding::Unresolved(<dotted name>)`, under
/// which the assumption about `name` is recorded (a helper wrapped by a decorator of the module
/// calls the function it wraps as `fn`, a closure cell: checked as `<helper>.__wrapped__`,
/// src/static_module/wrapped.rs). No identifier can read it.
pub const ALIAS_PREFIX: &str = "@as:";
/// What the reason a wrapped helper is left unresolved says (src/static_module/wrapped.rs): a
/// deferral carries such a reason as is, for the hook's debug log and the build to print.
pub const NOT_THE_PATTERN: &str =
    ", a wrapper that is not `checks, then return fn(*args, **kwargs)`: ";

/// What the reason a module-level object is left unresolved says when the decorator reads the
/// live one instead (a NormalDist whose parameters the text does not give, issue 27,
/// src/static_module/normal_dist.rs): a deferral carries such a reason as is, as
/// [`NOT_THE_PATTERN`]'s.
pub const LIVE_OBJECT: &str = ": the decorator reads the live object";

/// One binding the static compiler relied on; the decorator checks it against the live function.
#[derive(Debug, Clone, PartialEq)]
pub struct Assumption {
    pub name: String,
    pub binding: AssumedBinding,
}

/// The checkable part of a [`Binding`].
#[derive(Debug, Clone, PartialEq)]
pub enum AssumedBinding {
    Const(Const),
    MathModule,
    /// The `numpy` module (`import numpy as np`).
    NumpyModule,
    MathMember(String),
    /// The NumPy function or constant of that name (`from numpy import exp`, D16).
    NumpyMember(String),
    Builtin(String),
    /// A function defined in the same module, named `name`, whose `def` is at `line`.
    Function {
        name: String,
        line: usize,
    },
    /// An Enum class with these member names, in definition order.
    Enum(Vec<String>),
    /// An object of the type so named (see [`Binding::Object`]).
    Object(String),
    /// A plain exception class with this MRO (see [`Binding::ExceptionClass`]).
    ExceptionClass(Vec<String>),
    /// A namedtuple class of this name and fields (see [`Binding::NamedTuple`]).
    NamedTuple(String, Vec<String>),
    /// The `bisect` module.
    BisectModule,
    /// The function `bisect.<name>`.
    Bisect(String),
    /// The `numbers` module.
    NumbersModule,
    /// The class `numbers.<name>`.
    NumbersClass(String),
    /// A function `name` whose `def` is at `line` of another module of the program, `module`
    /// (its `__name__`), whose source file has the sha256 `sha256` (hex): the decorator checks
    /// the live function's globals are that module's and hashes its file again.
    ModuleFunction {
        name: String,
        line: usize,
        module: String,
        sha256: String,
    },
    /// A function `name` of the standard library module `module` (issue 31: `from calendar
    /// import isleap`), compiled from its source like a helper of the program: the decorator
    /// checks the live function is that module's `name` and that its own text (what the front
    /// end cuts from its first line) still has the sha256 `text_sha256` (hex), which holds
    /// across Python versions that did not change the function, where the file and its line
    /// numbers change.
    StdlibFunction {
        name: String,
        module: String,
        text_sha256: String,
    },
    /// A method `name` of the class `class` of the standard library module `module`, read
    /// through a module-level instance (issue 27: `IQ.cdf` of `IQ = NormalDist(100, 15)`,
    /// src/static_module/normal_dist.rs): the decorator checks the live attribute is that
    /// method bound to an instance of exactly that class, and that the module's text (decoded)
    /// still has the sha256 `module_text_sha256` (hex): what its methods read (a helper such as
    /// `_normal_dist_inv_cdf`, which CPython may replace by its C twin, a constant) is pinned by
    /// it, so another interpreter's module recompiles.
    StdlibMethod {
        class: String,
        name: String,
        module: String,
        module_text_sha256: String,
    },
    /// A classmethod `name` of a class of the same module, whose `def` is at `line`; the
    /// assumption's name is dotted (`Units.to_k`), as for every attribute of a namespace.
    ClassMethod {
        name: String,
        line: usize,
    },
}
