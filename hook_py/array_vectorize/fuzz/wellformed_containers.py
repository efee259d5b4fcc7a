"""Well-formedness of the D18 and D20 forms (``grammar_containers.py``), called by
``wellformed.Scope`` (``stmt``) and its expression rules (``expr``, ``name``):

* ``l4 = [e, ...]``, ``q4 = (e, ...)`` (2 to 4 items), ``d4 = {0: e, 1: e, ...}`` (keys 0 to n-1),
  and ``l4 = []`` followed by ``for i in range(k): l4.append(e)`` (the loop's body that one
  call), each a container of known length, never reassigned;
* ``l4[c] = e`` and ``l4[c] op= e`` on a list with a constant index in range;
* ``for a, b in zip(x, y):`` over two of these, whose body reads ``a`` and ``b``;
* reads: ``c[k]`` with a constant, a loop index, ``int(t)`` or ``int(t) + int(u)`` in range (a
  dict with its keys), ``sum``, ``max``, ``min`` and ``len`` of a list or tuple; a container's
  name read any other way is invalid;
* a name ``u*`` read where only some paths assigned it (D20: those lanes raise
  UnboundLocalError, as CPython does); it is defined after the read.
"""

from __future__ import annotations

import ast
from typing import Any, Optional

from .wellformed_ext import Invalid

REDUCERS = ("sum", "max", "min", "len")


def stmt(scope: Any, s: ast.stmt) -> Optional[bool]:
    """Whether ``s`` falls through, when it is one of the forms above (None: it is not)."""
    if isinstance(s, ast.Assign) and len(s.targets) == 1:
        target = s.targets[0]
        if isinstance(target, ast.Name) and isinstance(s.value, (ast.List, ast.Tuple, ast.Dict)):
            return _display(scope, target.id, s.value)
        if isinstance(target, ast.Subscript):
            _store(scope, target)
            scope.expr(s.value)
            return True
    if isinstance(s, ast.AugAssign) and isinstance(s.target, ast.Subscript):
        _store(scope, s.target)
        scope.expr(s.value)
        return True
    if isinstance(s, ast.For) and _is_append_loop(s):
        return _append_loop(scope, s)
    if isinstance(s, ast.For) and isinstance(s.target, ast.Tuple):
        return _zip_loop(scope, s)
    return None


def _display(scope: Any, name: str, value: ast.expr) -> bool:
    if name in scope.defined or name in scope.containers:
        raise Invalid("a container is assigned once")
    if isinstance(value, ast.Dict):
        if any(k is None for k in value.keys):
            raise Invalid("dict display")
        keys = [ast.literal_eval(k) for k in value.keys]  # type: ignore[arg-type]
        if keys != list(range(len(keys))) or len(keys) < 2:
            raise Invalid("dict keys must be 0 .. n-1")
        items = value.values
    else:
        items = value.elts  # type: ignore[attr-defined]
        empty_list = isinstance(value, ast.List) and not items
        if not empty_list and not 2 <= len(items) <= 4:
            raise Invalid("container length")
    for item in items:
        scope.expr(item)
    scope.containers[name] = len(items)
    scope.defined.add(name)
    return True


def _is_append_loop(s: ast.For) -> bool:
    body = s.body
    return (
        len(body) == 1
        and isinstance(body[0], ast.Expr)
        and isinstance(body[0].value, ast.Call)
        and isinstance(body[0].value.func, ast.Attribute)
        and body[0].value.func.attr == "append"
    )


def _append_loop(scope: Any, s: ast.For) -> bool:
    call = s.body[0].value  # type: ignore[attr-defined]
    target = call.func.value
    if not (isinstance(target, ast.Name) and scope.containers.get(target.id) == 0 and len(call.args) == 1 and not call.keywords):
        raise Invalid("append form")
    it = s.iter
    if not (isinstance(it, ast.Call) and getattr(it.func, "id", None) == "range" and len(it.args) == 1):
        raise Invalid("append loop iterable")
    trips = ast.literal_eval(it.args[0])
    if type(trips) is not int or not 1 <= trips <= 8 or not isinstance(s.target, ast.Name) or s.orelse:
        raise Invalid("append loop form")
    index = s.target.id
    if index in scope.defined:
        raise Invalid("loop variable reuses a name")
    scope.defined.add(index)
    scope.kinds[index] = "scalar"
    scope.indices[index] = list(range(trips))
    scope.expr(call.args[0])
    del scope.indices[index]
    scope.containers[target.id] = trips
    return True


def _zip_loop(scope: Any, s: ast.For) -> bool:
    it = s.iter
    names = s.target.elts  # type: ignore[attr-defined]
    if not (
        isinstance(it, ast.Call) and getattr(it.func, "id", None) == "zip" and len(it.args) == 2 and not it.keywords
        and all(isinstance(a, ast.Name) and a.id in scope.containers and a.id[0] in "lq" for a in it.args)
        and len(names) == 2 and all(isinstance(n, ast.Name) and n.id not in scope.defined for n in names)
        and not s.orelse
    ):
        raise Invalid("zip loop form")
    if any(isinstance(n, (ast.Break, ast.Continue)) for n in ast.walk(s)):
        raise Invalid("a loop over containers cannot break")
    before = set(scope.defined)
    for n in names:
        scope.defined.add(n.id)
        scope.kinds[n.id] = "num"
    scope.loops += 1
    falls = scope.block(s.body)
    scope.loops -= 1
    # The loop may run no iteration (an empty list): only what was defined before stays.
    scope.defined = before
    if not falls:
        raise Invalid("a loop over containers returns")
    return True


def _store(scope: Any, target: ast.Subscript) -> None:
    name = target.value
    if not (isinstance(name, ast.Name) and name.id in scope.containers and name.id[0] == "l"):
        raise Invalid("only an item of a list is assigned")
    _constant_index(scope.containers[name.id], target.slice)


def _constant_index(n: int, index: ast.expr) -> None:
    try:
        k = ast.literal_eval(index)
    except ValueError:
        raise Invalid("index must be a constant") from None
    if type(k) is not int or not -n <= k < n:
        raise Invalid("index out of range")


def expr(scope: Any, node: ast.expr) -> bool:
    """Whether ``node`` is a read of a container (checked here)."""
    if isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name) and node.value.id in scope.containers:
        _read_item(scope, node.value.id, node.slice)
        return True
    if (
        isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in REDUCERS
        and len(node.args) == 1 and isinstance(node.args[0], ast.Name) and node.args[0].id in scope.containers
    ):
        name = node.args[0].id
        if name[0] not in "lq" or not scope.containers[name] or node.keywords or node.func.id in scope.defined:
            raise Invalid("reduction of a container")
        return True
    return False


def _read_item(scope: Any, name: str, index: ast.expr) -> None:
    n = scope.containers[name]
    low = 0 if name[0] == "d" else -n
    if isinstance(index, ast.Name) and index.id in scope.indices:
        if not all(0 <= v < n for v in scope.indices[index.id]):
            raise Invalid("index out of range")
        return
    ints = [index] if _is_int_of(index) else None
    if isinstance(index, ast.BinOp) and isinstance(index.op, ast.Add) and _is_int_of(index.left) and _is_int_of(index.right):
        ints = [index.left, index.right]
    if ints is not None:
        if len(ints) >= n:
            raise Invalid("index out of range")
        for call in ints:
            test = call.args[0]  # type: ignore[attr-defined]
            if scope.kind_of(test) != "bool":
                raise Invalid("a per-element index is int() of a condition")
            scope.expr(test)
        return
    try:
        k = ast.literal_eval(index)
    except ValueError:
        raise Invalid("container index form") from None
    if type(k) is not int or not low <= k < n:
        raise Invalid("index out of range")


def _is_int_of(node: ast.expr) -> bool:
    """``int(test)`` of a condition: 0 or 1."""
    return (
        isinstance(node, ast.Call) and getattr(node.func, "id", None) == "int" and len(node.args) == 1
        and not node.keywords
    )


def name(scope: Any, n: str) -> bool:
    """Whether the read of the name ``n`` is valid here by these forms: a ``u*`` name some
    earlier path assigned (D20; defined from here on). A container read as a number is not."""
    if n in scope.containers:
        raise Invalid("a container used as a number")
    if n.startswith("u") and n in scope.maybe:
        scope.defined.add(n)
        return True
    return False
