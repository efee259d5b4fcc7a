"""The text a live function was compiled from (issue 28 item 2).

The decorator compiles a function from its file's text, but the code that runs came from the
text as it was when its module was loaded: a file edited since (a ``git pull`` under a
long-running process), ``exec(compile(other_text, "<a real file>", "exec"))``, or a line holding
two lambdas would make it compile something else. So every text is checked before the core
compiles it: the function's text (the ``def`` block, or the lambda the core picks:
``_core.function_text``) is compiled by Python inside stand-ins for its enclosing scopes, and the
code object found there must be the live one (same bytecode, constants, names, flags, nested
code). A module pytest loaded has its asserts rewritten by pytest's import hook: its texts are
compiled through the same rewrite (``_assertion_rewrite``), so functions of test modules and
conftest files compile too. The texts tried, in order: what ``linecache`` holds (read when the module was loaded, if
anything read it then), the file as it is now, and the bytes the import hook or a wheel's
manifest read at import. None matching is ``SourceChanged``.

A code object checked once is remembered with its text (``_CHECKED``): a factory that decorates
a nested function on every call pays the check once.
"""

from __future__ import annotations

import __future__
import ast
import linecache
import types
from importlib.util import decode_source

from . import _core

#: The flags of ``__future__`` features a code object records and ``compile`` takes.
_FUTURE_FLAGS = 0
for _name in __future__.all_feature_names:
    _FUTURE_FLAGS |= getattr(__future__, _name).compiler_flag

#: id(code) -> (code, its text): checks that passed (the code object is held, so its id stays its
#: own). Cleared when it grows past _MAX_CHECKED.
_CHECKED: dict[int, tuple[types.CodeType, str]] = {}
_MAX_CHECKED = 4096


class SourceChanged(OSError):
    """No text available for a function is the text its live code was compiled from."""


def function_source(fn: types.FunctionType) -> tuple[str, str, int]:
    """(text from the function's first line to the end of its file, file, first line), a text
    whose function is the live `fn`'s code. OSError when there is no text; SourceChanged when
    no text found compiles to the live code."""
    code = fn.__code__
    filename, first = code.co_filename, code.co_firstlineno
    lines = linecache.getlines(filename, fn.__globals__)
    if not lines:
        linecache.checkcache(filename)
        lines = linecache.getlines(filename, fn.__globals__)
    if not lines or first > len(lines):
        raise OSError(f"no source for {fn.__qualname__} in {filename!r}")
    for text in _candidates(fn, lines):
        if _compiles_to(code, text, fn.__globals__):
            return text, filename, first
    several = "the line holds several lambdas (the compiler reads the first: give each a line of its own), or " if code.co_name == "<lambda>" else ""
    raise SourceChanged(
        f"{filename}:{first}: the text of `{fn.__qualname__}` there is not the code that runs: {several}the file "
        "changed on disk after its module was loaded (or the function was compiled from other text, "
        "exec(compile(text, file, ...))); reload the module (importlib.reload) or restart the process, "
        "then vectorize it again"
    )


def _candidates(fn: types.FunctionType, lines: list[str]):
    """The texts from the function's first line on, each at most once: linecache's, the file's
    now, the import hook's and a wheel manifest's bytes."""
    code = fn.__code__
    filename, first = code.co_filename, code.co_firstlineno
    seen = set()

    def tail(lines: list[str]) -> str | None:
        if first > len(lines):
            return None
        text = "".join(lines[first - 1 :])
        if text in seen:
            return None
        seen.add(text)
        return text

    text = tail(lines)
    if text is not None:
        yield text
    linecache.checkcache(filename)  # the file as it is now (an edit, then importlib.reload)
    fresh = linecache.getlines(filename, fn.__globals__)
    text = tail(fresh) if fresh is not lines else None
    if text is not None:
        yield text
    from . import precompiled

    for data in precompiled.module_bytes(filename):
        try:
            text = tail(decode_source(data).splitlines(True))
        except (SyntaxError, UnicodeDecodeError, ValueError):
            continue
        if text is not None:
            yield text


def _compiles_to(code: types.CodeType, text: str, glob: dict) -> bool:
    """Whether Python compiles the function's text in `text` (as the core cuts it) to `code`.

    CPython's compiler also reads one fact of the module around the function: a method call on
    a name the module binds by an ``import`` is compiled as an attribute load and a call, not as
    a method call (3.11's ``is_import_originated``). Which names those are is not in the text
    compiled here, so it is tried with the names bound to modules imported, then with every
    global name the code reads, then with none, and last with the names the module's file binds
    by an ``import`` (a module bound otherwise, ``special = pytest.importorskip(...)``, next to
    ``import math``): a wrong guess only fails to match."""
    known = _CHECKED.get(id(code))
    if known is not None and known[0] is code and known[1] == text:
        return True
    own = _core.function_text(text, code.co_name)
    if own is None:
        return False
    names = sorted(_global_names(code) & glob.keys())
    modules = [n for n in names if isinstance(glob[n], types.ModuleType)]
    rewrite = _assertion_rewrite(glob)
    tried: list[list[str]] = []

    def guesses():
        yield from (modules, names, [])
        # Read from the whole file only when the cheap guesses fail.
        yield sorted(_imported_in_file(code.co_filename, glob) & set(names))

    for imported in guesses():
        if imported in tried:
            continue
        tried.append(imported)
        found = _compile_in_scopes(code, own, imported, rewrite)
        if found is not None and same_code(code, found):
            if len(_CHECKED) >= _MAX_CHECKED:
                _CHECKED.clear()
            _CHECKED[id(code)] = (code, text)
            return True
    return False


def _imported_in_file(filename: str, glob: dict) -> set:
    """The names the module in `filename` binds by an ``import`` at module level, anywhere in its
    text (CPython's ``DEF_IMPORT`` of the module's symbol table), from the text linecache holds."""
    import symtable

    text = "".join(linecache.getlines(filename, glob))
    try:
        table = symtable.symtable(text, filename, "exec")
    except (SyntaxError, ValueError, MemoryError, RecursionError):
        return set()
    return {symbol.get_name() for symbol in table.get_symbols() if symbol.is_imported()}


def _assertion_rewrite(glob: dict):
    """pytest's rewrite of a module's asserts when pytest's import hook loaded the module whose
    globals are `glob` (its test modules, conftest files and the plugins it is told to rewrite),
    else None: the live code of such a module is the rewritten one."""
    loader = glob.get("__loader__")
    kind = type(loader)
    if kind.__name__ != "AssertionRewritingHook" or kind.__module__ != "_pytest.assertion.rewrite":
        return None
    if "PYTEST_DONT_REWRITE" in (glob.get("__doc__") or ""):
        return None
    from _pytest.assertion.rewrite import rewrite_asserts  # loaded: its hook loaded the module

    return rewrite_asserts


def _global_names(code: types.CodeType) -> set:
    """The names `code` and the code nested in it read (globals and attributes alike)."""
    names = set(code.co_names)
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            names |= _global_names(const)
    return {n for n in names if n.isidentifier()}


def _scopes(code: types.CodeType) -> list[tuple[str, str]]:
    """The scopes around `code` from its qualified name: ``("def", name)`` for a function (a part
    followed by ``<locals>``, or a comprehension's or a lambda's ``<...>``) and ``("class",
    name)`` for a class, outermost first."""
    qualname = getattr(code, "co_qualname", None) or code.co_name
    parts = qualname.split(".")[:-1]
    scopes = []
    for i, part in enumerate(parts):
        if part == "<locals>":
            continue
        is_function = part.startswith("<") or (i + 1 < len(parts) and parts[i + 1] == "<locals>")
        scopes.append(("def" if is_function else "class", part))
    return scopes


def _compile_in_scopes(code: types.CodeType, own: str, imported: list[str], rewrite=None) -> types.CodeType | None:
    """`own` (a ``def`` block, or a lambda expression) compiled inside stand-ins of the scopes
    around `code`, the live free variables bound in the innermost function scope and `imported`
    bound by an ``import`` at module level (its asserts rewritten by `rewrite`, pytest's, when
    given); the code object of the function `own` defines, or None."""
    scopes = _scopes(code)
    lambda_ = code.co_name == "<lambda>"
    first = own.splitlines()[0] if own else ""
    indent = " " * len(scopes) if lambda_ else first[: len(first) - len(first.lstrip())]
    if len(scopes) > len(indent):
        return None  # not where its qualified name puts it
    free = [n for n in code.co_freevars if n != "__class__"]
    functions = [i for i, (kind, _) in enumerate(scopes) if kind == "def"]
    if free and not functions:
        return None
    lines = [f"import {', '.join(imported)}"] if imported else []
    if indent and not scopes:
        lines.append("if 1:")  # a def in a module-level block (`if`, `try`)
    for i, (kind, name) in enumerate(scopes):
        lines.append(f"{indent[:i]}def _av_scope{i}():" if kind == "def" else f"{indent[:i]}class {name}:")
        if free and i == functions[-1]:
            lines.append(f"{indent[: i + 1] if i + 1 < len(scopes) else indent}{' = '.join(free)} = None")
    lines.append(f"{indent}({own})" if lambda_ else own)
    text = "\n".join(lines) + "\n"
    flags = code.co_flags & _FUTURE_FLAGS
    try:
        if rewrite is None:
            module = compile(text, code.co_filename, "exec", flags=flags, dont_inherit=True)
        else:
            tree = ast.parse(text, code.co_filename)
            rewrite(tree, text.encode(), code.co_filename, None)
            module = compile(tree, code.co_filename, "exec", flags=flags, dont_inherit=True)
    except (SyntaxError, ValueError, MemoryError, RecursionError):
        return None
    holder = module
    for i, (kind, name) in enumerate(scopes):
        want = f"_av_scope{i}" if kind == "def" else name
        inner = [c for c in holder.co_consts if isinstance(c, types.CodeType) and c.co_name == want]
        if len(inner) != 1:
            return None
        holder = inner[0]
    found = [c for c in holder.co_consts if isinstance(c, types.CodeType) and c.co_name == code.co_name]
    return found[0] if len(found) == 1 else None


def same_code(a: types.CodeType, b: types.CodeType) -> bool:
    """Whether two code objects run the same: bytecode, names, constants (nested code too, a
    constant's type and the sign of a zero included), argument counts and flags; not their
    positions or file."""
    if (
        a.co_code != b.co_code
        or a.co_names != b.co_names
        or a.co_varnames != b.co_varnames
        or a.co_freevars != b.co_freevars
        or a.co_cellvars != b.co_cellvars
        or a.co_argcount != b.co_argcount
        or a.co_posonlyargcount != b.co_posonlyargcount
        or a.co_kwonlyargcount != b.co_kwonlyargcount
        or a.co_flags != b.co_flags
        or len(a.co_consts) != len(b.co_consts)
    ):
        return False
    return all(map(_same_const, a.co_consts, b.co_consts))


def _same_const(x: object, y: object) -> bool:
    if type(x) is not type(y):
        return False
    if isinstance(x, types.CodeType):
        return same_code(x, y)  # type: ignore[arg-type]
    if isinstance(x, tuple):
        return len(x) == len(y) and all(map(_same_const, x, y))  # type: ignore[arg-type]
    if isinstance(x, frozenset):
        return {(type(v), repr(v)) for v in x} == {(type(v), repr(v)) for v in y}  # type: ignore[union-attr]
    if isinstance(x, (float, complex)):
        return repr(x) == repr(y)  # -0.0 is not 0.0; a NaN is a NaN
    return x == y
