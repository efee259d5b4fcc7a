"""Helpers wrapped by a decorator of the program (issue 27 part 2 item 2, D7, D10): a helper
that `functools.wraps` made look like the function it wraps, whose wrapper checks its input and
forwards the call,

    def unit_interval(fn):
        @functools.wraps(fn)
        def wrapper(t, *args, **kwargs):
            if not 0.0 <= t <= 1.0:
                raise ValueError(f"t must lie in [0, 1], got {t}")
            return fn(t, *args, **kwargs)
        return wrapper

is compiled as the wrapper's body with the wrapped function's parameters, the forwarding call
made with them, and `fn` bound to the wrapped function (a helper like any other):

    def ease_in(t, power=2):                 # the wrapped function's signature
        if not 0.0 <= t <= 1.0:              # the wrapper's statements, as written
            raise ValueError(f"t must lie in [0, 1], got {t}")
        return fn(t, power)                  # the forward, with the parameters by position

The checks are cut from the text as written (the static compile, src/static_module/wrapped.rs,
makes the same text: the same generated source, D21 messages included), with `fn.__name__` in a
message read as `ease_in.__name__` (the wrapper, which `functools.wraps` gave that name): every
helper of the decorator calls its wrapped function `fn`, one global of the generated code.

That is the function CPython runs for a call by position: the wrapper's named parameters are the
first arguments, `*args` the rest, `**kwargs` empty. A wrapper of another form (one that reads
`kwargs`, calls `fn` elsewhere, or does not end by returning the forward) is described as a
callable with the reason, which the compiler reports at the call (or runs element by element
under fallback="calls", D23).
"""

from __future__ import annotations

import ast
import inspect
import textwrap
import types

from . import _core

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


class NotThePattern(Exception):
    """Why a wrapper is not `checks, then return fn(*args, **kwargs)`."""


def wrapped_helper(wrapper: types.FunctionType, text: str) -> tuple[str, types.FunctionType, str]:
    """(the source of the helper CPython's call of `wrapper` runs, the wrapped function, the name
    the forward calls it by). `text` is the wrapper's file from its first line on."""
    inner = wrapper.__wrapped__
    if not isinstance(inner, types.FunctionType):
        raise NotThePattern("it wraps something other than a Python function")
    block = _core.function_text(text, wrapper.__code__.co_name)
    if block is None:
        raise NotThePattern("its text is not found")
    block = textwrap.dedent(block)
    tree = ast.parse(block)
    (fdef,) = tree.body
    if not isinstance(fdef, ast.FunctionDef):
        raise NotThePattern("it is not a plain `def`")
    a = fdef.args
    if a.posonlyargs or a.kwonlyargs or a.defaults or a.kw_defaults:
        raise NotThePattern("its parameters are more than names, `*args` and `**kwargs`")
    named = [p.arg for p in a.args]
    star = a.vararg.arg if a.vararg else None
    stars = a.kwarg.arg if a.kwarg else None
    *checks, last = fdef.body
    fn = _forwarded(last, named, star, stars)
    if fn not in wrapper.__code__.co_freevars:
        raise NotThePattern(f"the `{fn}` it calls is not the function it closes over")
    params = _positional_parameters(inner)
    if inner.__name__ in params or inner.__name__ in named:
        raise NotThePattern(f"a parameter is named `{inner.__name__}`")
    if len(params) < len(named):
        raise NotThePattern(f"it names {len(named)} parameters, and `{inner.__name__}` takes {len(params)}")
    _check_uses(checks, fn, star, stars, params, named)
    prologue = [f"{p} = {q}" for p, q in zip(named, params) if p != q]
    lines = block.splitlines()
    body = prologue + [line for s in checks for line in _check_lines(lines, s, fn, inner.__name__)]
    body.append(f"return {fn}({', '.join(params)})")
    signature = ", ".join(f"{q}=0" if q in defaulted(inner) else q for q in params)
    source = f"def {inner.__name__}({signature}):\n" + textwrap.indent("\n".join(body), "    ") + "\n"
    return source, inner, fn


#: The attributes of the wrapped function a message may read: `functools.wraps` copied them to
#: the wrapper, which the helper's own name is bound to.
_COPIED = ("__name__", "__qualname__", "__module__", "__doc__")


def _check_lines(lines: list[str], node: ast.stmt, fn: str, helper: str) -> list[str]:
    """The check `node` as written (the static compile's text, src/static_module/wrapped.rs
    `helper_text`: the same text, so the same generated source, D21 messages included): each of
    its lines without the statement's own indentation, the wrapped function's name read through
    the helper (`through_helper`)."""
    chunk = lines[node.lineno - 1 : node.end_lineno]
    chunk[-1] = chunk[-1].encode()[: node.end_col_offset].decode()
    out = []
    for line in chunk:
        if not line.strip():
            out.append("")
            continue
        cut = len(line) - len(line.lstrip())
        line = through_helper(line[min(cut, node.col_offset) :], fn, helper)
        if fn in _words(line):
            raise NotThePattern(f"it reads `{fn}` other than as `{fn}.__name__` in a message")
        out.append(line)
    return out


def _word(c: str) -> bool:
    return c.isalnum() or c == "_"


def _words(line: str) -> list[str]:
    words, word = [], ""
    for c in line:
        if _word(c):
            word += c
        else:
            words.append(word)
            word = ""
    return [*words, word]


def through_helper(text: str, fn: str, helper: str) -> str:
    """`text` with each `<fn>.<attr>` (`attr` one of `_COPIED`) read through `helper` instead: a
    message then reads a global of its own helper, not the closure cell `fn` that the other
    helpers of the same decorator name alike (D21)."""
    out = []
    i = 0
    while i < len(text):
        before = text[i - 1] if i else ""
        if text.startswith(fn, i) and not (before and (_word(before) or before == ".")):
            after = text[i + len(fn) :]
            attr = next((a for a in _COPIED if after.startswith("." + a) and not (after[len(a) + 1 : len(a) + 2] and _word(after[len(a) + 1]))), None)
            if attr is not None:
                out.append(f"{helper}.{attr}")
                i += len(fn) + 1 + len(attr)
                continue
        out.append(text[i])
        i += 1
    return "".join(out)


def _forwarded(last: ast.stmt, named: list[str], star: str | None, stars: str | None) -> str:
    """The name `return fn(a, b, *args, **kwargs)` calls, the wrapper's parameters forwarded in
    order."""
    if not (isinstance(last, ast.Return) and isinstance(last.value, ast.Call)):
        raise NotThePattern("it does not end by returning the call of the function it wraps")
    call = last.value
    want: list[Any] = [("name", n) for n in named] + ([("star", star)] if star else [])
    got = []
    for arg in call.args:
        if isinstance(arg, ast.Name):
            got.append(("name", arg.id))
        elif isinstance(arg, ast.Starred) and isinstance(arg.value, ast.Name):
            got.append(("star", arg.value.id))
        else:
            got.append(("other", None))
    keywords = [(k.arg, k.value.id if isinstance(k.value, ast.Name) else None) for k in call.keywords]
    if got != want or keywords != ([(None, stars)] if stars else []) or not isinstance(call.func, ast.Name):
        raise NotThePattern("its last statement does not forward its arguments as it received them")
    return call.func.id


def _positional_parameters(inner: types.FunctionType) -> list[str]:
    params = list(inspect.signature(inner).parameters.values())
    if any(p.kind is not p.POSITIONAL_OR_KEYWORD for p in params):
        raise NotThePattern(f"`{inner.__name__}` takes more than named parameters")
    return [p.name for p in params]


def defaulted(inner: types.FunctionType) -> set[str]:
    code = inner.__code__
    names = code.co_varnames[: code.co_argcount]
    return set(names[len(names) - len(inner.__defaults__ or ()):])


def _check_uses(checks: list[ast.stmt], fn: str, star: str | None, stars: str | None, params: list[str], named: list[str]) -> None:
    """The checks read neither `*args` nor `**kwargs` (what they hold depends on whether the
    caller passed by position or by keyword: the wrapper names what it checks,
    `def wrapper(t, *args, **kwargs)`) nor the wrapped function but in a raise's message, and
    assign none of the parameters' names."""
    module = ast.Module(body=checks, type_ignores=[])
    # The wrapped function may name itself in a message (`fn.__name__`, D21): built in Python.
    in_messages = {id(n) for r in ast.walk(module) if isinstance(r, ast.Raise) and r.exc for n in ast.walk(r.exc)}
    for node in ast.walk(module):
        if isinstance(node, ast.Name):
            if node.id == fn and id(node) in in_messages:
                continue
            if node.id in (fn, star, stars):
                raise NotThePattern(f"it reads `{node.id}` before the forward (name the parameter it checks: `def wrapper(t, *args, **kwargs)`)")
            if isinstance(node.ctx, ast.Store) and (node.id in params or node.id in named):
                raise NotThePattern(f"it assigns `{node.id}`")
        if isinstance(node, (ast.FunctionDef, ast.Lambda, ast.ClassDef)):
            raise NotThePattern("it defines a function or class")
