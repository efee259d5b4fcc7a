"""Names readable at a point of a generated program (``Env``) and the helpers it may call
(``Callee``): what ``generator.py`` and every grammar mixin (``grammar_statements.py``,
``grammar_expressions.py``, ``grammar_raise.py``, ``grammar_containers.py``) read and extend,
below all of them.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Dict, FrozenSet, List


@dataclass
class Callee:
    name: str
    params: List[str]
    arity: int = 1  # how many values it returns (a tuple when more than 1, D13)
    #: It converts a number to an int (`int`, `round`, `math.floor/ceil/trunc`), or calls one
    #: that does: a raise site of docs/semantics.md item 7, kept out of places that may not raise.
    converts: bool = False


#: A conversion to int of item 7 in a program's text, or a call of the callees named.
CONVERSION = re.compile(r"\b(int|round|floor|ceil|trunc)\(")


def converts(text: str, callees: List[Callee]) -> bool:
    """Whether ``text`` converts to int (``CONVERSION``) or calls a callee of ``callees`` that does."""
    return bool(CONVERSION.search(text)) or any(c.converts and re.search(rf"\b{c.name}\(", text) for c in callees)


@dataclass
class Env:
    """Names readable at a point of the program."""

    nums: List[str]
    bools: List[str] = field(default_factory=list)
    indices: Dict[str, List[int]] = field(default_factory=dict)  # loop index -> possible values
    items: List[str] = field(default_factory=list)  # tuple-loop variables (Python scalars)
    callees: List[Callee] = field(default_factory=list)
    frozen: FrozenSet[str] = frozenset()  # names that must not be assigned (read by closures)
    containers: Dict[str, int] = field(default_factory=dict)  # local list, tuple or dict -> length (D18)

    def copy(self) -> "Env":
        return Env(
            list(self.nums), list(self.bools), dict(self.indices), list(self.items), list(self.callees), self.frozen,
            dict(self.containers),
        )

    def meet(self, other: "Env") -> "Env":
        """Names defined on both paths."""
        return Env(
            [n for n in self.nums if n in other.nums],
            [b for b in self.bools if b in other.bools],
            {k: v for k, v in self.indices.items() if k in other.indices},
            [i for i in self.items if i in other.items],
            [c for c in self.callees if c in other.callees],
            self.frozen,
            {k: v for k, v in self.containers.items() if other.containers.get(k) == v},
        )
