"""Code compiled before the decorator ran: by the import hook (cached on disk) or by the build
backend (shipped in a wheel). The decorator uses it only when every assumption the static
compiler made still holds for the live function (DESIGN.md section 4); otherwise it compiles.
"""

from __future__ import annotations

import builtins
import math
import sys

from ._types import FunctionType

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from .records import Assumption, CachedFunction, Found, Hidden, HookOrigin, Options

# co_filename -> (the globals of the module execution the entries were compiled for,
# {(qualname, co_firstlineno): [(origin, the function's record)]}): one record per function, or,
# for a function made by a factory, one per call of the factory that the static compile saw
# (issue 31), each with its closure values among its assumptions.
#
# Entries describe the text the hook read just before that module execution, and only that
# execution may use them, each entry once: a function with the same file, name and line created
# by anything else (runpy.run_path, spec_from_file_location + exec_module, exec(compile(...)),
# the same module body run again) may come from an edited text, and is compiled from its own.
# Checking costs an identity test and a dict lookup per decorated function.
_REGISTRY: dict[str, tuple[dict, dict[tuple[str, int], list[Found]]]] = {}
#: co_filename -> the bytes the hook read for the module execution registered under it: the text
#: its functions' code comes from, also once the file changes on disk (live_source.py).
_SOURCES: dict[str, bytes] = {}


def register(
    filename: str, entries: list[CachedFunction], origin: HookOrigin, namespace: dict, source: bytes | None = None
) -> None:
    """Makes a module's statically compiled functions available to the decorators of the module
    execution whose globals are `namespace`, in place of what was registered under `filename`."""
    table: dict[tuple[str, int], list[Found]] = {}
    for e in entries:
        if e.get("status") == "ok":
            table.setdefault((e["qualname"], e["line"]), []).append((origin, e))
    _REGISTRY[filename] = (namespace, table)
    if source is not None:
        _SOURCES[filename] = source


def forget(filename: str) -> None:
    _REGISTRY.pop(filename, None)
    _SOURCES.pop(filename, None)


def module_bytes(filename: str) -> list[bytes]:
    """The bytes read at import of the module whose code carries `filename`, by the import hook
    or with a wheel's manifest: texts a live function may have been compiled from (no more than
    candidates: live_source.py checks them against the code)."""
    found = [_SOURCES[filename]] if filename in _SOURCES else []
    try:
        from . import wheel_artifacts
    except ImportError:
        return found
    data = wheel_artifacts.module_bytes(filename)
    if data is not None:
        found.append(data)
    return found


def _wheel_entry(fn: FunctionType, options: dict) -> Found | None:
    try:
        from . import wheel_artifacts
    except ImportError:
        return None
    entry = wheel_artifacts.lookup(fn, lambda e: usable(fn, e, options))
    return None if entry is None else ("wheel", entry)


def lookup(fn: FunctionType, options: dict) -> Found | None:
    """Where `fn`'s precompiled record comes from, and the record, if it is valid for the live
    function (a new record with ``unbound`` when the check of some names waits for the first
    call: `usable`); else None."""
    code = fn.__code__
    registered = _REGISTRY.get(code.co_filename)
    if registered is not None and registered[0] is fn.__globals__:
        candidates = registered[1].get((fn.__qualname__, code.co_firstlineno))
        if candidates:
            if len(candidates) == 1:  # every function but those of a factory
                origin, entry = candidates.pop()
                entry = usable(fn, entry, options)
                return None if entry is None else (origin, entry)
            for i, (origin, entry) in enumerate(candidates):
                found = usable(fn, entry, options)
                if found is not None:
                    del candidates[i]
                    return origin, found
            return None
    return _wheel_entry(fn, options)


def usable(fn: FunctionType, entry: Any, options: dict) -> Any:
    """`entry` (a hook's or a wheel's record) when its options are `options` and its assumptions
    hold for `fn`; a new record with ``unbound``, the names not bound yet, when nothing else
    differs (issue 31: checked again at the first call); else None."""
    entry_opts = entry.get("options") or {}
    if _matched_options != (entry_opts, options) and not _options_match(entry_opts, options):
        return None
    held = check_assumptions(fn, entry.get("assumptions", ()))
    if held is True:
        return entry
    if held:
        return dict(entry, unbound=held)
    return None


#: The last (entry options, requested options) found to match, both kept alive here so that the
#: identity comparison cannot meet a recycled object: a module's entries share their options dict
#: (hook/compile.py `cached`), and each decorator of a warm import passes the same canonical
#: dict (api.py), so the comparison below runs once per module.
_matched_options: tuple = ()


def _options_match(entry_opts: Options, options: dict) -> bool:
    global _matched_options
    if (
        bool(entry_opts.get("protect_domains")) != options["protect_domains"]
        or bool(entry_opts.get("fallback")) != options["fallback"]
        or bool(entry_opts.get("optimize")) != options["optimize"]
        or bool(entry_opts.get("nan_on_raise")) != options.get("nan_on_raise", False)
    ):
        return False
    _matched_options = (entry_opts, options)
    return True


_MISSING = object()
_BUILTINS = builtins.__dict__


def _same_const(live: Any, frozen: Any) -> bool:
    """Whether `live` is the constant the compiler froze: same type, and for floats the same sign
    of zero and NaN for NaN. (Tuples, lists and dicts compare item by item, in order: ``==``
    would take 0.0 for -0.0 and a NaN for anything but itself.)"""
    kind = type(frozen)
    if type(live) is not kind:
        return False
    if kind is tuple or kind is list:
        return len(live) == len(frozen) and all(map(_same_const, live, frozen))
    if kind is dict:
        return len(live) == len(frozen) and all(
            _same_const(lk, fk) and _same_const(lv, fv)
            for (lk, lv), (fk, fv) in zip(live.items(), frozen.items())
        )
    if kind is float:
        if live == frozen:
            return frozen != 0.0 or math.copysign(1.0, live) == math.copysign(1.0, frozen)
        return live != live and frozen != frozen  # both NaN
    return live == frozen



def exception_class(cls: type) -> tuple:
    """D11, D21: ``("exception", mro)`` for an exception class: its MRO, itself first and
    ``object`` left out, builtin classes by name and the others (the program's, a library's) by
    ``"." + __qualname__``. Any class qualifies, whatever its body (an ``__init__`` with extra
    arguments, methods) or metaclass: the exception is built in Python as written, and
    ``except`` matches by the MRO, as CPython matches (``PyType_IsSubtype``)."""
    mro = []
    for c in cls.__mro__:
        if c is object:
            continue
        if getattr(builtins, c.__name__, None) is c:
            mro.append(c.__name__)
            continue
        mro.append("." + c.__qualname__)
    return ("exception", tuple(mro))
def _attribute_of(glob: dict, dotted: str) -> Any:
    """The live value the static compile read as `dotted` (`Units.to_k`): a global, then
    attributes; a class's own (or inherited) raw attribute, so a staticmethod is its function
    and a classmethod stays a classmethod (D7, D8)."""
    first, *rest = dotted.split(".")
    live = glob.get(first, _MISSING)
    for attr in rest:
        if live is _MISSING:
            return _MISSING
        if isinstance(live, type):
            raw = next((vars(k)[attr] for k in live.__mro__ if attr in vars(k)), _MISSING)
            live = raw.__func__ if isinstance(raw, staticmethod) else raw
        else:
            live = getattr(live, attr, _MISSING)
    return live


def is_named_tuple_class(value: object) -> bool:
    """A class made by `collections.namedtuple` or `typing.NamedTuple` with no field defaults,
    not subclassed (a call then builds the tuple of its arguments, issue 27)."""
    if not (isinstance(value, type) and issubclass(value, tuple)):
        return False
    fields = getattr(value, "_fields", None)
    if not isinstance(fields, tuple) or not all(isinstance(f, str) for f in fields):
        return False
    # Made directly by `namedtuple` (or `typing.NamedTuple`, which forbids a `__new__` of its
    # own): a subclass could build the tuple otherwise.
    return not getattr(value, "_field_defaults", None) and value.__mro__ == (value, tuple, object)


def is_uniform_object(value: object) -> bool:
    """Whether a module-level `value` that is no number or table is read as a uniform value (D14):
    a dict (of parameters: string keys), `None`, a string, an Enum member. (``enum`` is looked up
    in ``sys.modules``, not imported: no Enum member exists before it is. ``import
    array_vectorize`` loads neither it nor ``copy``: with ``collections``, ``functools`` and
    ``weakref``, which they import, they were two thirds of its instructions.)"""
    if value is None or type(value) in (dict, str):
        return True
    enum = sys.modules.get("enum")
    return enum is not None and isinstance(value, enum.Enum)


def frozen_object(value: object) -> object:
    """A uniform module-level object as the generated code holds it: a dict is copied (deeply when
    it can be), so that later changes to the module's dict do not reach compiled code (D8)."""
    if type(value) is not dict:
        return value
    import copy

    try:
        return copy.deepcopy(value)
    except Exception:  # noqa: BLE001 - an entry that cannot be copied (a module, a lock)
        return dict(value)


def hidden_objects(original: FunctionType, hidden: list[Hidden], assumptions: list[Assumption] | tuple[()] = ()) -> dict[str, Any] | None:
    """The module-level objects a precompiled record reads as globals (Enum classes; parameter
    dicts, `None`, strings, Enum members, D14; exception classes and what a message reads, D21),
    from the live function's globals, which its assumptions were checked against (an exception
    class only a method of the standard library raises, `statistics.StatisticsError` of
    `IQ.inv_cdf`, from that module's: issue 27); a dict frozen as the decorator freezes it; and
    the scalar originals of recursive functions (D19)."""
    glob = original.__globals__
    out: dict[str, Any] = {}
    for kind, n in hidden:
        if kind == "object":
            scoped = None if n in glob else next((a for a, b in assumptions if a.endswith(":" + n) and b[0] == "exception"), None)
            out[n] = frozen_object(glob[n]) if scoped is None else _scoped(scoped)[0]
        elif kind == "scalar":
            from .emit import scalar_original

            out[n] = scalar_original(original, n)
    return out or None


def _scoped(name: str) -> tuple[Any, str | None]:
    """The live value of `name` in another module of the program (``pkg.units:OFFSET``: a name
    a helper imported from ``pkg.units`` reads there, issue 12), and that module's file."""
    module_name, _, attr = name.partition(":")
    module = sys.modules.get(module_name)
    if module is None:
        return _MISSING, None
    return _attribute_of(vars(module), attr), getattr(module, "__file__", None)


#: (path, decoded) -> (st_mtime_ns, st_size, sha256 hex): a module's file hashed once per process
#: while it stays as it was (the functions of a module that import the same helper check it each).
_FILE_SHA256: dict[tuple[str, bool], tuple[int, int, str]] = {}


def _file_sha256(path: str, decoded: bool = False) -> str | None:
    """The sha256 of the file's bytes; `decoded`: of its text as the static compile read a
    standard library module (decoded, universal newlines: imports.py `program_modules`)."""
    import os

    try:
        st = os.stat(path)
        known = _FILE_SHA256.get((path, decoded))
        if known is not None and known[:2] == (st.st_mtime_ns, st.st_size):
            return known[2]
        with open(path, "rb") as f:
            data = f.read()
        if decoded:
            from importlib.util import decode_source

            data = decode_source(data).encode()
    except (OSError, SyntaxError, UnicodeDecodeError):
        return None
    from . import _core

    sha = _core.sha256_hex(data)
    _FILE_SHA256[(path, decoded)] = (st.st_mtime_ns, st.st_size, sha)
    return sha


#: id(code) -> (code, sha256 of its function's text): a standard library function is read and
#: hashed once per process.
_TEXT_SHA256: dict[int, tuple[object, str | None]] = {}


def _function_text_sha256(fn: FunctionType) -> str | None:
    code = fn.__code__
    known = _TEXT_SHA256.get(id(code))
    if known is not None and known[0] is code:
        return known[1]
    import linecache

    from . import _core

    lines = linecache.getlines(code.co_filename, fn.__globals__)
    first = code.co_firstlineno
    text = _core.function_text("".join(lines[first - 1 :]), fn.__name__) if lines and first <= len(lines) else None
    sha = None if text is None else _core.sha256_hex(text.encode())
    _TEXT_SHA256[id(code)] = (code, sha)
    return sha


def _stdlib_method(live: Any, binding: tuple) -> bool:
    """`live` is method `binding[2]` of class `binding[1]` of module `binding[3]`, bound to an
    instance of exactly that class, and the module's text hashes to `binding[4]`."""
    _, class_name, name, module_name, sha = binding
    module = sys.modules.get(module_name)
    cls = getattr(module, class_name, None)
    return (
        isinstance(cls, type)
        and type(getattr(live, "__self__", None)) is cls
        and getattr(live, "__func__", None) is vars(cls).get(name)
        and type(live.__func__) is FunctionType
        and _file_sha256(getattr(module, "__file__", None) or "", decoded=True) == sha
    )


def _function_of(live: Any, module_name: str, name: str) -> FunctionType | None:
    """The Python function `live` stands for (a vectorized one's original) when it is module
    `module_name`'s function `name`."""
    target = getattr(live, "_vectorized_original", live)
    module = sys.modules.get(module_name)
    if type(target) is not FunctionType or module is None or target.__globals__ is not vars(module) or target.__name__ != name:
        return None
    return target


def _same_def(target: Any, binding: tuple, filename: str) -> bool:
    """`target` is the Python function the static compile read: named `binding[1]`, its `def` on
    line `binding[2]` of `filename` (a ``function`` or ``classmethod`` binding)."""
    return (
        type(target) is FunctionType
        and target.__name__ == binding[1]
        and target.__code__.co_firstlineno == binding[2]
        and target.__code__.co_filename == filename
    )


def assumptions_hold(fn: FunctionType, assumptions: list[Assumption]) -> bool:
    """Whether every (name, binding) the static compiler assumed holds for `fn`'s live globals."""
    return check_assumptions(fn, assumptions) is True


# long: one branch per kind of binding, on every warm import's path: a dispatch through a function per kind would add a call per assumption
def check_assumptions(fn: FunctionType, assumptions: list[Assumption]) -> bool | list[str]:
    """Checks every (name, binding) the static compiler assumed against `fn`'s live globals: True
    when all hold, False when one does not, else the names not bound yet (issue 31: a helper
    defined further down the module, the class whose body is running), which only the first
    call can check. (Run for every function of a warm import: kept to one dictionary lookup and
    a comparison for the common bindings.)"""
    code = fn.__code__
    freevars = code.co_freevars
    glob = fn.__globals__
    home = code.co_filename
    missing = _MISSING
    unbound: list[str] = []
    for name, binding in assumptions:
        tag = binding[0]
        filename = home
        if freevars and name.partition(".")[0] in freevars:
            # A closure variable (a function made by a factory, issue 31): its cell's value.
            if "." in name:
                return False
            try:
                live = fn.__closure__[freevars.index(name)].cell_contents
            except ValueError:  # an empty cell: not bound yet
                live = missing
        elif ":" in name:
            live, filename = _scoped(name)
        else:
            live = glob.get(name, missing) if "." not in name else _attribute_of(glob, name)
        if live is missing:
            live = _BUILTINS.get(name.rpartition(":")[2], missing) if tag == "builtin" else missing
            if tag == "function" and name == fn.__name__:
                live = fn  # D19: it calls itself by a name its `def` binds after the decorator ran
            if live is missing:
                unbound.append(name)
                continue
        if tag == "const":
            frozen = binding[1]
            kind = type(frozen)
            # An int, str or nonzero float equal to the live one of its type: `_same_const`'s
            # answer without the call (the common constant); the rest (-0.0, NaN, tables) there.
            if type(live) is kind and (kind is int or kind is str or (kind is float and frozen != 0.0)) and live == frozen:
                continue
            if not _same_const(live, frozen):
                return False
        elif tag == "function":
            target = getattr(live, "_vectorized_original", live)
            if name == fn.__name__ and target is fn:
                continue  # D19: the function calls itself (its line is its decorator's)
            if not _same_def(target, binding, filename):
                return False
        elif tag == "builtin":
            if live is not _BUILTINS.get(binding[1], missing):
                return False
        elif tag == "math":
            if live is not math:
                return False
        elif tag == "math_member":
            if live is not getattr(math, binding[1], missing):
                return False
        elif tag == "module_function":
            # Issue 12: a function of another module of the program, whose text (the whole file)
            # the static compile read: the same function of that module, and the same file.
            target = _function_of(live, binding[3], binding[1])
            if (
                target is None
                or target.__code__.co_firstlineno != binding[2]
                or _file_sha256(target.__code__.co_filename) != binding[4]
            ):
                return False
        elif tag == "stdlib_function":
            # Issue 31: a function of the standard library, compiled from its own text, which
            # must be the live one's (the file and its line numbers change between versions).
            target = _function_of(live, binding[2], binding[1])
            if target is None or _function_text_sha256(target) != binding[3]:
                return False
        elif tag == "stdlib_method":
            # Issue 27: `IQ.cdf` of `IQ = NormalDist(100, 15)`, compiled from the text of the
            # class's module, which pins what the method reads (static_module/normal_dist.rs).
            if not _stdlib_method(live, binding):
                return False
        elif tag == "numpy":
            # D16: the module the static compile assumed `import numpy` binds.
            if live is not sys.modules.get("numpy") or live is None:
                return False
        elif tag == "numpy_member":
            # D16: the NumPy function or constant the static compile assumed `from numpy import`
            # binds.
            numpy = sys.modules.get("numpy")
            if numpy is None or live is not getattr(numpy, binding[1], missing):
                return False
        elif tag == "classmethod":
            # D7: a classmethod of a class used as a namespace (its function, unbound).
            target = getattr(live, "__func__", None) if isinstance(live, classmethod) else None
            if not _same_def(target, binding, filename):
                return False
        elif tag == "bisect_module":
            if live is not sys.modules.get("bisect") or live is None:
                return False
        elif tag == "bisect":
            if live is not getattr(sys.modules.get("bisect"), binding[1], missing):
                return False
        elif tag == "numbers_module":
            if live is not sys.modules.get("numbers") or live is None:
                return False
        elif tag == "numbers_class":
            if live is not getattr(sys.modules.get("numbers"), binding[1], missing):
                return False
        elif tag == "enum":
            # D14: an Enum class with the members the static compile saw (its generated code
            # reads the members through the live class).
            if not isinstance(live, type) or tuple(getattr(live, "__members__", ())) != tuple(binding[1]):
                return False
        elif tag == "object":
            # D14: a module-level parameter dict, None, string or Enum member, read by the
            # generated code through a global bound to a frozen copy (hidden_objects).
            if type(live).__name__ != binding[1] or not is_uniform_object(live):
                return False
        elif tag == "namedtuple":
            # Issue 27: a namedtuple class of the name and fields the static compile read.
            if not is_named_tuple_class(live) or (live.__name__, live._fields) != (binding[1], tuple(binding[2])):
                return False
        elif tag == "exception":
            # D11: a plain exception class with the MRO the static compile read from the text.
            if not isinstance(live, type) or not issubclass(live, BaseException):
                return False
            if exception_class(live) != ("exception", tuple(binding[1])):
                return False
            if ":" in name and glob.get(name.rpartition(":")[2], live) is not live:
                # Issue 27: the class a standard library method raises (`IQ.inv_cdf`) is a global
                # of the generated code under its own name, which the module binds otherwise.
                return False
        else:
            return False
    return unbound or True
