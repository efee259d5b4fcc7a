"""The frozen environment of a live function (D8): its free names as plain binding tuples.

The Rust core never sees Python objects: this module reads closure cells, globals and builtins
and describes each free name as data (ARCHITECTURE.md, ``compile_function``'s ``env``). Values
that become hidden parameters (global arrays, fallback callees) are returned separately.
"""

from __future__ import annotations

import builtins
import enum
import inspect
import math
import numbers
import os
import re
import sys
import types

from ._core import KNOWN_BUILTINS as _CORE_KNOWN_BUILTINS
from ._core import NUMPY_NAMES
from .emit import SCALAR_PREFIX
from .live_source import SourceChanged
from .live_source import function_source as checked_source
from .precompiled import exception_class, frozen_object, is_named_tuple_class, is_uniform_object

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

# Builtins the compiler gives meaning to: the core's list (src/static_module/mod.rs), which the static
# compile resolves too, so that a new builtin is added in one place.
KNOWN_BUILTINS = frozenset(_CORE_KNOWN_BUILTINS)
# Builtins an exception raised per element may name (D11): every builtin exception class, and the
# functions messages are built with (src/static_module/mod.rs RAISE_BUILTINS lists the ones the static
# compile resolves; it defers on the others).
_MESSAGE_BUILTINS = frozenset({"str", "repr", "format"})


def _raise_builtin(name: str, value: Any) -> bool:
    if getattr(builtins, name, None) is not value:
        return False
    return name in _MESSAGE_BUILTINS or (isinstance(value, type) and issubclass(value, BaseException))
_MATH_MEMBERS = {id(v): k for k, v in vars(math).items() if callable(v)}
def free_names(code: types.CodeType) -> set[str]:
    """Every name `code` (or code nested in it) may read from outside: a superset is fine."""
    names = set(code.co_names) | set(code.co_freevars)
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            names |= free_names(const) - set(const.co_varnames)
    return names


def annotation_names(fn: types.FunctionType) -> set[str]:
    """The names the parameter annotations of `fn` refer to: an Enum class of the module makes
    a parameter uniform (D14) even when the body never reads the class (`mode: Mode`)."""
    names: set[str] = set()
    for key, value in (getattr(fn, "__annotations__", None) or {}).items():
        if key == "return":
            continue
        if isinstance(value, str):  # `from __future__ import annotations`, or a forward reference
            names.update(re.findall(r"[A-Za-z_]\w*", value))
        elif isinstance(value, type):
            names.add(value.__name__)
    return names


def closure_values(fn: types.FunctionType) -> dict[str, Any]:
    out = {}
    for name, cell in zip(fn.__code__.co_freevars, fn.__closure__ or ()):
        try:
            out[name] = cell.cell_contents
        except ValueError:  # empty cell: the name is not bound yet
            pass
    return out


def unwrap(fn: Any) -> Any:
    """The scalar original behind a vectorized wrapper."""
    return getattr(fn, "_vectorized_original", fn)


_LIBRARY_DIRS: tuple[str, ...] | None = None


def is_library_file(path: str) -> bool:
    """Whether `path` is a file of another library: the standard library or an installed package
    (site-packages), whose problems the compiler reports at the call (src/lower/calls/inline.rs)."""
    global _LIBRARY_DIRS
    if _LIBRARY_DIRS is None:
        import site
        import sysconfig

        dirs = {sysconfig.get_paths().get(k) for k in ("stdlib", "platstdlib", "purelib", "platlib")}
        try:
            dirs.update(site.getsitepackages())
            dirs.add(site.getusersitepackages())
        except AttributeError:  # pragma: no cover - a virtualenv's old site.py
            pass
        _LIBRARY_DIRS = tuple(os.path.join(os.path.realpath(d), "") for d in dirs if d)
    return os.path.realpath(path).startswith(_LIBRARY_DIRS)


def function_source(fn: types.FunctionType) -> tuple[str, str, int]:
    """(text from the function's first line to the end of its file, file, first line): a text
    that compiles to the live function's code (live_source.py; issue 28 item 2).

    The compiler cuts the function's block out of the text itself (src/frontend/source.rs
    block_len): cheaper than `inspect.getsource`, which tokenizes to find the block's end.
    OSError when the source is unavailable, ``live_source.SourceChanged`` (an OSError) when no
    text found is the code that runs.
    """
    return checked_source(fn)


def compile_name(fn: types.FunctionType) -> str:
    """The name the compiler finds `fn` by: its ``__qualname__``, whose innermost class mangles
    private names (``__k`` in a method of ``A`` reads ``_A__k``), or just ``__name__`` when the
    two disagree (a renamed function)."""
    qualname = getattr(fn, "__qualname__", "")
    if isinstance(qualname, str) and qualname.rpartition(".")[2] == fn.__name__:
        return qualname
    return fn.__name__


def is_numpy(value: Any) -> bool:
    """Whether `value` is the NumPy module (D16), without importing NumPy."""
    return isinstance(value, types.ModuleType) and value is sys.modules.get("numpy")


def numpy_member(value: Any) -> str | None:
    """The name NumPy binds the function or type `value` to (`np.abs` is `absolute`), when
    `value` is one of NumPy's module attributes; None otherwise (numbers are constants)."""
    numpy = sys.modules.get("numpy")
    if numpy is None or isinstance(value, (types.ModuleType, numbers.Number)):
        return None
    module, name = getattr(value, "__module__", None), getattr(value, "__name__", None)
    # Only NumPy's own objects (`str` is not `np.str`, whose lookup NumPy warns about).
    if not (isinstance(module, str) and module.split(".")[0] == "numpy" and isinstance(name, str)):
        return None
    if getattr(numpy, name, None) is value:
        return name
    return None


def is_array(value: Any) -> bool:
    return hasattr(value, "__array_namespace__") or (
        hasattr(value, "shape") and hasattr(value, "dtype") and not isinstance(value, numbers.Number)
    )


def const_value(value: Any) -> Any:
    """`value` as a frozen constant (bool, int, float, or a tuple, list or dict of those; a dict's
    keys numbers), or None. A list or dict is frozen as it is now (D8, D15)."""
    if isinstance(value, bool):
        return value
    if isinstance(value, numbers.Integral) and not is_array(value):
        return int(value)
    if isinstance(value, numbers.Real) and not is_array(value):
        return float(value)
    if isinstance(value, tuple) or type(value) is list:
        items = [const_value(v) for v in value]
        if any(i is None for i in items):
            return None
        return items if type(value) is list else tuple(items)
    if type(value) is dict:
        pairs = [(const_value(k), const_value(v)) for k, v in value.items()]
        if any(k is None or v is None or isinstance(k, (tuple, list)) for k, v in pairs):
            return None
        return dict(pairs)
    return None


def default_bindings(fn: types.FunctionType) -> dict[str, tuple]:
    """The number defaults of `fn` as ``{"=<param>": ("const", value)}``: the values its `def`
    computed, which a call of it as a helper that leaves the argument out uses (D7, D8)."""
    code = fn.__code__
    positional = code.co_varnames[: code.co_argcount]
    pairs = list(zip(positional[len(positional) - len(fn.__defaults__ or ()) :], fn.__defaults__ or ()))
    pairs += list((fn.__kwdefaults__ or {}).items())
    out = {}
    for param, value in pairs:
        const = const_value(value)
        if const is not None:
            out[f"={param}"] = ("const", const)
    return out


_MISSING = object()


def _normal_dist_class() -> Any:
    """`statistics.NormalDist` when `statistics` is imported (it is not imported here)."""
    statistics = sys.modules.get("statistics")
    return getattr(statistics, "NormalDist", None)


def is_instance_namespace(value: object) -> bool:
    """An instance of a class defined in Python (not a type, module, function or uniform object,
    D14) that keeps its attributes in a `__dict__`: read as a namespace (issue 27, D8)."""
    cls = type(value)
    return (
        not isinstance(value, (type, types.ModuleType, types.FunctionType, types.MethodType, enum.Enum))
        and cls.__module__ not in ("builtins", "numpy")
        and not callable(value)
        and isinstance(getattr(value, "__dict__", None), dict)
        and not is_uniform_object(value)
        and not is_array(value)
    )


class EnvBuilder:
    """Describes the free names of a function and of every helper it reaches."""

    def __init__(self, mark_unbound: bool = False) -> None:
        """`mark_unbound`: a free name bound nowhere yet (a helper defined further down the
        module, the class whose body is running) is described as unresolved, so that the
        compile defers (issue 31: the function is compiled at its first call), and collected in
        `unbound`; otherwise it is left out, and the compiler reports it."""
        self.mark_unbound = mark_unbound
        self.unbound: set[str] = set()
        self.hidden_values: dict[str, Any] = {}
        self._visiting: set[int] = set()
        # The program's exception classes by the name the compiler knows them by (D11).
        self._exception_classes: dict[str, type] = {}
        # Classes whose namespace is being described (a method reading its own class).
        self._classes: set[int] = set()
        # The names the function being described reads (attributes of a module it uses).
        self._names: set[str] = set()

    def env_of(self, fn: types.FunctionType) -> dict[str, tuple]:
        self._visiting.add(id(fn))
        closure = closure_values(fn)
        glob = fn.__globals__
        env: dict[str, tuple] = {}
        outer_names = self._names
        self._names = free_names(fn.__code__) | annotation_names(fn)
        for name in sorted(self._names):
            if name in closure:
                value = closure[name]
            elif name in glob:
                value = glob[name]
            elif name == fn.__name__:
                # D19: a function that calls itself by a name not bound yet (`@vectorize` runs
                # before the `def` binds it, to the function this compiles).
                value = fn
            elif hasattr(builtins, name):
                value = getattr(builtins, name)
            elif self.mark_unbound:
                # A superset of the names read (attributes too): the compiler ignores the rest.
                env[name] = ("unresolved", "not bound yet")
                self.unbound.add(name)
                continue
            else:
                continue
            env[name] = self.describe(name, value)
        env.update(default_bindings(fn))
        self._visiting.discard(id(fn))
        self._names = outer_names
        return env

    def describe(self, name: str, value: Any) -> tuple:
        # Any value may be read as a global of the generated code by a call run element by
        # element as written (D23) or an exception's message (D21); the ones it reads otherwise
        # are set below (a frozen copy of a uniform object).
        self.hidden_values.setdefault(name, value)
        if value is math:
            return ("math",)
        if is_numpy(value):
            return ("numpy",)
        bisect = sys.modules.get("bisect")
        if bisect is not None:
            # D15: `bisect.bisect` is `bisect_right`.
            if value is bisect:
                return ("bisect_module",)
            for which in ("bisect_left", "bisect_right"):
                if value is getattr(bisect, which):
                    return ("bisect", which)
        # D22: the classes `isinstance` tests elements against.
        if value is numbers:
            return ("numbers_module",)
        if isinstance(value, type) and value.__module__ == "numbers" and getattr(numbers, value.__name__, None) is value:
            return ("numbers_class", value.__name__)
        if callable(value) and _MATH_MEMBERS.get(id(value)) is not None and getattr(math, _MATH_MEMBERS[id(value)], None) is value:
            return ("math_member", _MATH_MEMBERS[id(value)])
        numpy_name = numpy_member(value)
        if numpy_name is not None:
            if numpy_name in NUMPY_NAMES:
                # D16: a NumPy function imported by name (`from numpy import exp as e`).
                return ("numpy_member", numpy_name)
            self.hidden_values[name] = value
            return ("callable", f"the NumPy function `numpy.{numpy_name}`, which is not in the NumPy table of docs/numpy.md")
        for b in KNOWN_BUILTINS:
            if value is getattr(builtins, b):
                return ("builtin", b)
        if _raise_builtin(name, value):
            return ("builtin", name)
        const = const_value(value)
        if const is not None:
            return ("const", const)
        if isinstance(value, type) and issubclass(value, enum.Enum):
            # D14: its members are uniform values, read through the class (a global of the
            # generated module).
            self.hidden_values[name] = value
            return ("enum", tuple(value.__members__))
        if isinstance(value, type) and issubclass(value, BaseException):
            return self._exception(name, value)
        if is_named_tuple_class(value):
            # Issue 27 (D13): a call makes a tuple whose fields its attributes read.
            return ("namedtuple", value.__name__, list(value._fields))
        if is_uniform_object(value):
            # D14: a parameter dict, `None`, a string or an Enum member bound at module level
            # is a uniform value, frozen as it is now (D8).
            self.hidden_values[name] = frozen_object(value)
            return ("object", type(value).__name__)
        if isinstance(value, type) and not issubclass(value, BaseException) and "." not in name:
            # D7, D8: a class used as a namespace (`Const.R`, `Units.to_k(t)`); called itself,
            # it is a callable of the element loop (fallback=True).
            self.hidden_values[name] = value
            return ("namespace", self.class_attributes(name, value))
        if isinstance(value, types.ModuleType):
            # A module reached through an alias (`import pkg.units as u`): the attributes the
            # function may read.
            if id(value) in self._classes:
                return ("unsupported", f"the module `{value.__name__}`")
            self._classes.add(id(value))
            try:
                attrs = {a: getattr(value, a) for a in sorted(self._names) if hasattr(value, a)}
                return ("namespace", {a: self.describe_attribute(f"{name}.{a}", v) for a, v in attrs.items()})
            finally:
                self._classes.discard(id(value))
        normal_dist = _normal_dist_class()
        if normal_dist is not None and type(value) is normal_dist and "." not in name:
            # Issue 27 (D8, D17): `N = NormalDist(mu, sigma)`; `N.cdf(x)` is CPython's method.
            return ("namespace", self.normal_dist_attributes(name, value))
        if is_instance_namespace(value) and "." not in name:
            # Issue 27 (D8): a module-level instance read through its numeric and table
            # attributes (`cfg = Settings(); cfg.tolerance`), frozen as they are now.
            return ("namespace", self.instance_attributes(name, value))
        if isinstance(value, types.FunctionType) and "__wrapped__" in value.__dict__:
            return self.wrapped_helper(name, value)
        original = unwrap(value)
        if isinstance(original, types.FunctionType):
            # Its scalar original finishes the lanes of a recursion (D19).
            self.hidden_values[SCALAR_PREFIX + name] = value
            try:
                source, path, line = function_source(original)
            except (OSError, TypeError) as exc:
                if isinstance(exc, SourceChanged):
                    why = "whose text in its file is not the code that runs (the file changed on disk since it was loaded)"
                    return ("callable", f"function `{original.__qualname__}` {why}")
                return ("callable", f"function `{original.__qualname__}` whose source is unavailable")
            if id(original) in self._visiting:
                env = None  # a cycle: recursion, which the compiler reports
            else:
                env = self.env_of(original)
            return ("function", source, path, line, compile_name(original), env, is_library_file(path))
        if is_array(value):
            self.hidden_values[name] = value
            return ("array",)
        if callable(value):
            self.hidden_values[name] = value
            return ("callable", f"a {type(value).__name__}")
        return ("unsupported", f"a {type(value).__name__}")

    def wrapped_helper(self, name: str, wrapper: types.FunctionType) -> tuple:
        """A helper `functools.wraps` made look like the function it wraps (issue 27 item 2,
        wrapped.py): the wrapper's checks and its forward, compiled with the wrapped function's
        parameters; a callable with the reason when the wrapper is not that pattern."""
        from .wrapped import NotThePattern, defaulted, wrapped_helper

        self.hidden_values[SCALAR_PREFIX + name] = wrapper
        label = f"`{wrapper.__name__}`, wrapped by `{getattr(wrapper.__code__, 'co_qualname', wrapper.__code__.co_name)}`"
        try:
            source, path, line = function_source(wrapper)
            synthetic, inner, fn = wrapped_helper(wrapper, source)
        except (OSError, TypeError, SyntaxError, ValueError) as exc:
            return ("callable", f"{label}, whose source is unavailable ({exc})")
        except NotThePattern as exc:
            return ("callable", f"{label}, a wrapper that is not `checks, then return fn(*args, **kwargs)`: {exc}")
        defaults = default_bindings(inner)
        missing = [q for q in sorted(defaulted(inner)) if f"={q}" not in defaults]
        if missing:
            return ("callable", f"{label}, whose default of `{missing[0]}` is not a number or a table of numbers")
        env = self.env_of(wrapper)
        env.update(defaults)
        described = ("function", synthetic, path, line, inner.__name__, env, is_library_file(path))
        # Its messages read the wrapped function's name through the helper (wrapped.py
        # `through_helper`): the wrapper, a global of the generated code (D21), described
        # without an environment of its own (as in a cycle).
        self.hidden_values.setdefault(inner.__name__, wrapper)
        env.setdefault(inner.__name__, described[:5] + (None,) + described[6:])
        return described

    def _exception(self, name: str, cls: type) -> tuple:
        """An exception class (D11), a global of the generated module where it is raised; two
        different classes the compiler would know by the same name are refused."""
        binding = exception_class(cls)
        if binding[0] == "exception":
            for c in cls.__mro__:
                if getattr(builtins, c.__name__, None) is c:
                    continue
                if self._exception_classes.setdefault(c.__qualname__, c) is not c:
                    return ("unsupported", f"the exception class `{c.__qualname__}`, one of two different classes of that name the function reaches; rename one")
            self.hidden_values[name] = cls
        return binding
    def describe_attribute(self, dotted: str, value: Any) -> tuple:
        """An attribute of a namespace: what a free name bound to it would be, except the
        bindings that need a global of the generated module (arrays, Enum classes, opaque
        callables), which an attribute cannot name."""
        described = self.describe(dotted, value)
        if described[0] in ("array", "enum", "callable", "namespace", "object"):
            self.hidden_values.pop(dotted, None)
            if described[0] != "namespace" or isinstance(value, type):
                return ("unsupported", "an attribute that is not a number, a table or a function")
        return described

    def instance_attributes(self, name: str, obj: object) -> dict[str, tuple]:
        """The attributes of an instance used as a namespace that the function may read: its own
        (`self.x = ...` in `__init__`) and its class's data attributes, each described as a free
        name bound to it would be; a method or property is not frozen (its value may change
        per call)."""
        attrs: dict[str, tuple] = {}
        own = vars(obj)
        for attr in sorted(self._names):
            if attr in own:
                attrs[attr] = self.describe_attribute(f"{name}.{attr}", own[attr])
                continue
            raw = inspect.getattr_static(type(obj), attr, _MISSING)
            if raw is _MISSING:
                continue
            if callable(raw) or hasattr(raw, "__get__"):
                why = f"a method or property of `{type(obj).__qualname__}`: only the data attributes of an instance used as a namespace are frozen (D8)"
                attrs[attr] = ("unsupported", why)
            else:
                attrs[attr] = self.describe_attribute(f"{name}.{attr}", raw)
        return attrs

    def normal_dist_attributes(self, name: str, dist: Any) -> dict[str, tuple]:
        """A `statistics.NormalDist` bound at module level (issue 27): its `mean`, `stdev` and
        `variance` frozen as the properties compute them, and its `cdf`, `pdf` and `inv_cdf`
        compiled from CPython's own method text as helpers whose `self` reads `_mu` and
        `_sigma` (the classmethod binding). `inv_cdf` calls `_normal_dist_inv_cdf`, which
        CPython may replace by its C twin (`_statistics`, the same operations): the compiler
        reads the Python definition in the module's text."""
        cls = type(dist)
        attrs: dict[str, tuple] = {
            "_mu": ("const", dist._mu),
            "_sigma": ("const", dist._sigma),
            "mean": ("const", dist.mean),
            "stdev": ("const", dist.stdev),
            "variance": ("const", dist.variance),
        }
        for method in ("cdf", "pdf", "inv_cdf"):
            described = self.describe_attribute(f"{name}.{method}", getattr(cls, method))
            if described[0] != "function":
                attrs[method] = described
                continue
            env = described[5]
            if env is not None and method == "inv_cdf":
                env["_normal_dist_inv_cdf"] = self.python_inv_cdf(sys.modules[cls.__module__])
            attrs[method] = ("classmethod",) + described[1:]
        for attr in sorted(self._names):
            if attr not in attrs and hasattr(cls, attr):
                why = f"`NormalDist.{attr}`: of a NormalDist, only `cdf`, `pdf`, `inv_cdf`, `mean`, `stdev` and `variance` can be read (issue 27)"
                attrs[attr] = ("unsupported", why)
        return attrs

    def python_inv_cdf(self, statistics: types.ModuleType) -> tuple:
        """The binding of `statistics._normal_dist_inv_cdf` as its module's text defines it."""
        import linecache

        path = statistics.__file__
        lines = linecache.getlines(path)
        line = next((i for i, text in enumerate(lines, 1) if text.startswith("def _normal_dist_inv_cdf(")), None)
        if line is None:
            return ("unsupported", "`statistics._normal_dist_inv_cdf`, whose definition is not in its module's text")
        from ._core import function_text

        block = function_text("".join(lines[line - 1 :]), "_normal_dist_inv_cdf")
        if block is None:
            return ("unsupported", "`statistics._normal_dist_inv_cdf`, whose definition is not in its module's text")
        namespace = dict(vars(statistics))
        exec(compile("\n" * (line - 1) + block, path, "exec"), namespace)
        return self.describe_attribute("_normal_dist_inv_cdf", namespace["_normal_dist_inv_cdf"])

    def class_attributes(self, name: str, cls: type) -> dict[str, tuple]:
        """Every attribute a class used as a namespace defines (its own and its bases'):
        constants, staticmethods (helpers) and classmethods (helpers whose first parameter is
        the class). A method reading its own class sees the class's constants only."""
        nested = id(cls) in self._classes
        self._classes.add(id(cls))
        attrs: dict[str, tuple] = {}
        try:
            for klass in reversed(cls.__mro__[:-1]):
                for attr, raw in vars(klass).items():
                    if attr.startswith("__"):
                        continue
                    dotted = f"{name}.{attr}"
                    if isinstance(raw, (staticmethod, classmethod)):
                        if nested:
                            continue
                        described = self.describe_attribute(dotted, raw.__func__)
                        if isinstance(raw, classmethod) and described[0] == "function":
                            described = ("classmethod",) + described[1:]
                    elif isinstance(raw, types.FunctionType):
                        described = ("unsupported", "an instance method: only the staticmethods and classmethods of a class used as a namespace can be called (D7)")
                    else:
                        described = self.describe_attribute(dotted, raw)
                    attrs[attr] = described
        finally:
            if not nested:
                self._classes.discard(id(cls))
        return attrs
