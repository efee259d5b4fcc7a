"""A raise site's Python expression (D11) as the fuzz model reads it: the IR text carries each
site's exception expression as Python source (``irtext.Site.expr``), which is parsed here by
Python's own parser (``ast``), never searched as text. A site has one of three forms:

* a residue's (D19, D23): ``_vec_rerun(_vec_scalar_g, _vec_a0, ...)``, the scalar original ``g``
  called again on the lane's values;
* an operation: a numeric error of a ``try`` body (src/lower/exceptions/try_stmt.rs), the
  operation itself on the operands the core binds: ``_a // _b``, ``int(_a)``,
  ``__import__('math').log(_a0)``; its exception is what CPython's operation raises on them;
* written: a ``raise`` or ``assert`` as the source writes it, which names its class
  (``ValueError(...)``, a bare ``AssertionError``), or another expression.
"""

from __future__ import annotations

import ast
import builtins
import functools
from dataclasses import dataclass
from typing import Any, List, Optional

from .irtext import Site

#: The runtime helper of a residue's raise site, which calls the scalar original again on the
#: lane (D19, D23; ``ir::RERUN_HELPER``).
RERUN = "_vec_rerun"
#: The runtime helper of item 7's raise site, a float converted to int beyond int64: it builds
#: the OverflowError of the operation (``_vec_int_overflow(_a)``), an operation's site.
INT_OVERFLOW = "_vec_int_overflow"


@dataclass(frozen=True)
class SiteForm:
    """One raise site read (module docstring)."""

    expr: str
    names: List[str]  # the names the core binds, in the order of ``refs``
    refs: List[int]
    tree: Optional[ast.expr]  # None: not an expression this Python parses
    rerun: Optional[str] = None  # the global a residue's site calls again
    operation: bool = False
    written: Optional[str] = None  # the class a written raise names

    def math_calls(self) -> List[str]:
        """The ``math`` functions the expression calls (``math.sqrt(x)`` in a message)."""
        if self.tree is None:
            return []
        return [
            node.func.attr
            for node in ast.walk(self.tree)
            if isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and isinstance(node.func.value, ast.Name)
            and node.func.value.id == "math"
        ]


def exception_class(x: Any) -> bool:
    return isinstance(x, type) and issubclass(x, BaseException)


def read(site: Site) -> SiteForm:
    """``site``'s expression parsed, and its form."""
    try:
        tree: Optional[ast.expr] = ast.parse(site.expr, mode="eval").body
    except SyntaxError:
        tree = None
    form = functools.partial(SiteForm, site.expr, site.names, site.refs, tree)
    call = tree if isinstance(tree, ast.Call) else None
    callee = call.func if call is not None else tree
    if isinstance(callee, ast.Name) and callee.id == RERUN and call is not None:
        first = call.args[0] if call.args else None
        return form(rerun=first.id if isinstance(first, ast.Name) else None)
    if isinstance(callee, ast.Name) and callee.id == INT_OVERFLOW and call is not None:
        return form(operation=True)
    if isinstance(callee, ast.Name) and not _builtin_function(callee.id):
        return form(written=callee.id)
    if isinstance(tree, ast.BinOp) or call is not None and (
        isinstance(callee, ast.Name) or isinstance(callee, ast.Attribute) and _imported_module(callee.value)
    ):
        return form(operation=True)
    return form()


def _builtin_function(name: str) -> bool:
    """``name`` is a builtin callable that is not an exception class (``int``, ``__import__``)."""
    builtin = getattr(builtins, name, None)
    return callable(builtin) and not exception_class(builtin)


def _imported_module(node: ast.expr) -> bool:
    """``__import__('math')``: how a numeric site names the module of its operation."""
    return isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "__import__"
