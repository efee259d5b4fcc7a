"""Well-formedness of the D19 and D21 constructs (``grammar_recursion.py``), called by
``wellformed.check_module`` and ``wellformed_ext.message``:

* module level: message strings ``MSG0 = "..."`` and ``LimitError``, an exception class whose
  ``__init__`` takes a name, a value and a limit (``grammar_recursion.LIMIT_ERROR``); a function
  may call any function of the module, itself included (``wellformed.check_module`` knows every
  function's parameters before checking any body);
* an exception's message built as written: a message string ``%`` a value or ``.format`` of one,
  an f-string whose fields have a format spec or a conversion, concatenations of strings with
  ``str(x)`` and ``repr(x)``, ``"..." % (values)``.
"""

from __future__ import annotations

import ast
from typing import Any

from .grammar_recursion import LIMIT_ERROR, MESSAGES

_LIMIT_ERROR = ast.dump(ast.parse(LIMIT_ERROR).body[0])
_MESSAGES = dict(MESSAGES)


def _invalid() -> type:
    from .wellformed import Invalid

    return Invalid


def module_stmt(info: Any, stmt: ast.stmt) -> bool:
    """Whether ``stmt`` is a message string or ``LimitError`` (recorded in ``info``)."""
    if isinstance(stmt, ast.ClassDef) and ast.dump(stmt) == _LIMIT_ERROR:
        info.exceptions.add(stmt.name)
        return True
    if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name):
        name = stmt.targets[0].id
        if name in _MESSAGES and isinstance(stmt.value, ast.Constant) and stmt.value.value == _MESSAGES[name]:
            info.messages.add(name)
            return True
    return False


def message(scope: Any, node: ast.expr) -> bool:
    """Whether ``node`` is one of the messages above (its values checked)."""
    bad = _invalid()
    messages = scope.info.messages
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mod):
        left = node.left
        if isinstance(left, ast.Name) and left.id in messages or isinstance(left, ast.Constant) and type(left.value) is str:
            for v in node.right.elts if isinstance(node.right, ast.Tuple) else [node.right]:
                if not (isinstance(v, ast.Constant) and type(v.value) is str):
                    scope.expr(v)
            return True
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "format":
        if not (isinstance(node.func.value, ast.Name) and node.func.value.id in messages) or node.keywords:
            raise bad("str.format form")
        for a in node.args:
            scope.expr(a)
        return True
    if isinstance(node, ast.JoinedStr):
        for v in node.values:
            if isinstance(v, ast.FormattedValue):
                if v.format_spec is not None and not all(isinstance(p, ast.Constant) for p in v.format_spec.values):
                    raise bad("f-string form")
                scope.expr(v.value)
        return True
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add) and _text(scope, node):
        return True
    return False


def _text(scope: Any, node: ast.expr) -> bool:
    """A concatenation of strings, ``str(x)`` and ``repr(x)`` (values checked)."""
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        return _text(scope, node.left) and _text(scope, node.right)
    if isinstance(node, ast.Constant) and type(node.value) is str:
        return True
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in ("str", "repr") and len(node.args) == 1:
        scope.expr(node.args[0])
        return True
    return False
