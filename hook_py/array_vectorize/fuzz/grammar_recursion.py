"""The D19 and D21 part of the grammar (``Generator`` mixin): recursive helpers, ``f`` calling
itself, and exceptions built as written (formatted messages, module-level message strings, a
class with its own ``__init__``).

Every decision is drawn from ``self.rec_rng`` (a stream of its own, seeded like the others in
``generator.py``), so a program that draws none of these features is the program its seed gave
before they existed.

Recursion always ends, and within a few calls: each recursive function counts a parameter down
by one while it lies in ``(0, 12]`` (NaN and anything outside stop it at once), or reflects its
argument once (``-a`` for ``a < 0``), or swaps its arguments once with a constant flag. So
CPython never meets its recursion limit, and some elements recurse past the levels the compiler
inlines (8, fewer for bigger bodies): the scalar residue finishes them. The bodies of recursive
functions compute with ``+ - *``, ``abs``, ``min``/``max``, comparisons and ternaries only: an
operation CPython raises on (D3) would raise in the residue, where the vectorized levels give an
IEEE value (docs/semantics.md); messages, ``assert`` and ``raise`` are fine there.
"""

from __future__ import annotations

from typing import List

from .grammar_env import Callee, Env

#: The shapes of recursive helpers: count a parameter down, reflect the argument's sign, swap the
#: arguments once, two functions calling each other.
SHAPES = ("countdown", "countdown", "reflect", "swap", "mutual")
#: Module-level message strings (D21): read with ``%`` or ``.format`` of one value.
MESSAGES = (
    ("MSG0", "value %r outside the table"),
    ("MSG1", "t=%g is outside the valid range"),
    ("MSG2", "rate {0:.4g} above the cap"),
    ("MSG3", "x={!r:>12} rejected"),
)
#: The features whose operations CPython raises on for some values (D3): left out of a program
#: whose ``f`` calls itself, since a lane its scalar original finishes (the residue, D19) raises
#: there where the vectorized levels give an IEEE value (docs/semantics.md), and converts a float
#: beyond int64 to CPython's exact int where they raise item 7's error (``int_cast`` also leaves
#: ``int()`` out of ``try`` bodies, ``partial_op``: fuzz finding 700007 #41).
PARTIAL_FEATURES = frozenset({
    "truediv", "floordiv", "mod", "pow", "pow_var", "pow_half", "transcendental", "math_exact", "math_binary",
    "math_floor", "math_floor_int", "int_cast", "round", "uint64_int_cast", "float_cast",
})
#: Their D16 and D17 counterparts (``grammar_calls.py``).
PARTIAL_EXT = frozenset({"numpy_calls", "special_exact", "special_inexact"})
#: A class with its own ``__init__`` taking extra arguments (D21).
LIMIT_ERROR = '''class LimitError(ValueError):
    def __init__(self, name, value, limit):
        super().__init__(f"{name}={value!r} beyond {limit}")
        self.value = value'''


class RecursionGrammar:
    """Mixin of ``generator.Generator`` (module docstring)."""

    # ------------------------------------------------------------------ module level
    def recursion_module(self) -> None:
        """Draws this program's D19/D21 features; writes the message strings and the class. A
        program whose ``f`` calls itself (``recursion_self``) computes without the operations
        CPython raises on (``PARTIAL_FEATURES``)."""
        rng = self.rec_rng
        if "recursion_self" not in self.exclude and not self.uniforms and rng.random() < 0.15:
            self.rec.add("recursion_self")
            self.exclude = self.exclude | PARTIAL_FEATURES
            self.ext -= PARTIAL_EXT
            self.tables = {}
        if "message_format" not in self.exclude and rng.random() < 0.35:
            self.rec.add("message_format")
            self.emit(0, "")
            for name, text in MESSAGES:
                self.emit(0, f"{name} = {text!r}")
            if "exception_init" not in self.exclude and rng.random() < 0.5:
                self.rec.add("exception_init")
                self.emit(0, "")
                self.emit(0, "")
                self.lines.extend(LIMIT_ERROR.splitlines())

    def recursive_helpers(self, callees: List) -> None:
        """Recursive helpers at module level (feature ``recursion``), callable from ``f``."""
        rng = self.rec_rng
        if "recursion" in self.exclude or rng.random() >= 0.3:
            return
        self.used.add("recursion")
        for shape in rng.sample(SHAPES, rng.randint(1, 2)):
            name = f"r{len(self.recursive)}"
            self.recursive.append(name)
            self.emit(0, "")
            if shape == "countdown":
                self.emit(0, f"def {name}(a, n):")
                self.emit(1, "if not (0.0 < n <= 12.0):")
                self.emit(2, f"return {self.rec_num(['a'], 2)}")
                self.rec_raise(["a", "n"], 1)
                op = rng.choice(["+", "-", "*", "max", "min"])
                step = self.rec_num(["a", "n"], 2)
                call = f"{name}({self.rec_num(['a'], 1)}, n - 1)"
                if op in ("max", "min"):
                    self.emit(1, f"return {op}({step}, {call})")
                else:
                    self.emit(1, f"return {step} {op} {call}")
                callees.append(Callee(name, ["a", "n"]))
            elif shape == "reflect":
                self.emit(0, f"def {name}(a):")
                self.emit(1, "if a < 0.0:")
                self.emit(2, f"return {rng.choice(['1.0', '0.0', '2.5'])} - {name}(-a)")
                self.rec_raise(["a"], 1)
                self.emit(1, f"return {self.rec_num(['a'], 2)}")
                callees.append(Callee(name, ["a"]))
            elif shape == "swap":
                self.emit(0, f"def {name}(a, b, s):")
                self.emit(1, "if not s:")
                self.emit(2, f"return {name}(b, a, True)")
                self.emit(1, f"return {self.rec_num(['a', 'b'], 2)}")
                callees.append(Callee(name, ["a", "b", "s"]))
            else:
                other = f"r{len(self.recursive)}"
                self.recursive.append(other)
                self.emit(0, f"def {name}(a, n):")
                self.emit(1, "if not (0.0 < n <= 12.0):")
                self.emit(2, f"return {self.rec_num(['a'], 2)}")
                self.emit(1, f"return {other}({self.rec_num(['a'], 1)}, n - 1)")
                self.emit(0, "")
                self.emit(0, "")
                self.emit(0, f"def {other}(a, n):")
                self.emit(1, "if n > 6.0:")
                self.emit(2, f"return {name}({self.rec_num(['a'], 1)}, n - 1) + {rng.choice(['1.0', '2', '0.5'])}")
                self.emit(1, f"return {self.rec_num(['a', 'n'], 1)} - {name}(a, n - 1)")
                callees.append(Callee(name, ["a", "n"]))
                callees.append(Callee(other, ["a", "n"]))

    def rec_num(self, names: List[str], d: int) -> str:
        """A number from ``names`` with operations CPython never raises on (``+ - *``, ``abs``,
        ``min``/``max``, comparisons, ternaries), from ``rec_rng``."""
        rng = self.rec_rng
        if d <= 0 or rng.random() < 0.3:
            if rng.random() < 0.6:
                return rng.choice(names)
            return repr(rng.choice([0.5, 1.5, -2.0, 3, 0.0, 1, -0.25, True]))
        e = lambda: self.rec_num(names, d - 1)  # noqa: E731
        kind = rng.random()
        if kind < 0.45:
            return f"({e()} {rng.choice('+-*')} {e()})"
        if kind < 0.55:
            return f"abs({e()})"
        if kind < 0.65:
            return f"(-{e()})"
        if kind < 0.8:
            return f"{rng.choice(['min', 'max'])}({e()}, {e()})"
        return f"({e()} if {e()} {rng.choice(['<', '>', '<=', '=='])} {e()} else {e()})"

    def rec_raise(self, names: List[str], indent: int) -> None:
        """Sometimes ``if test: raise ...`` in a recursive function (D11 across the residue)."""
        rng = self.rec_rng
        if rng.random() >= 0.3:
            return
        self.used.add("recursion_raise")
        self.emit(indent, f"if {self.rec_num(names, 1)} {rng.choice(['>', '<'])} {rng.choice(['5.0', '-3.0', '40'])}:")
        value = rng.choice(names)
        written = f'ValueError(f"{value}={{{value}}}")'
        self.emit(indent + 1, f"raise {self.written_exception(Env(list(names)), written)}")

    # ------------------------------------------------------------------ f calling itself
    def self_recursion(self, params: List[str], indent: int) -> None:
        """``f`` calling itself while a parameter counts down in ``(0, 6]`` (feature
        ``recursion_self``): within the levels inlined, unless ``f`` is big (then its own scalar
        original finishes the deeper elements, D19)."""
        rng = self.rec_rng
        if "recursion_self" not in self.rec:
            return
        self.used.add("recursion_self")
        k = rng.randrange(len(params))
        args = [f"{p} - 1" if i == k else p for i, p in enumerate(params)]
        self.emit(indent, f"if 0.0 < {params[k]} <= 6.0:")
        self.emit(indent + 1, f"return {self.rec_num(params, 1)} + f({', '.join(args)})")

    # ------------------------------------------------------------------ messages (D21)
    def written_exception(self, env, written: str) -> str:
        """The exception of a ``raise``: ``written`` (the grammar's own, ``Class(args)``), or,
        where this program draws ``message_format``, one built as written from a value: a
        module string with ``%`` or ``.format``, an f-string with a format spec, concatenation,
        or ``LimitError`` with its own ``__init__`` (``exception_init``)."""
        rng = self.rec_rng
        if "message_format" not in self.rec or rng.random() >= 0.6:
            return written
        name = rng.choice(self.numeric_params if self.loop_depth else env.nums)
        if "exception_init" in self.rec and rng.random() < 0.3:
            self.used.add("exception_init")
            return f'LimitError("{name}", {name}, {rng.choice(["40", "1.5", "-3"])})'
        return f"{rng.choice(['ValueError', 'ArithmeticError'])}({self.written_message(name)})"

    def written_message(self, name: str) -> str:
        """A message built as written from ``name`` (one expression)."""
        rng = self.rec_rng
        self.used.add("message_format")
        form = rng.random()
        if form < 0.3:
            return f"{rng.choice(['MSG0', 'MSG1'])} % {name}"
        if form < 0.5:
            return f"{rng.choice(['MSG2', 'MSG3'])}.format({name})"
        if form < 0.75:
            spec = rng.choice([":.3f", ":+e", "!r", ":>10", ":g", ":.2%"])
            return f'f"{name}={{{name}{spec}}} rejected"'
        if form < 0.9:
            return f'"{name}=" + str({name}) + " / " + repr({name})'
        return f'"%s: %.4g" % ("{name}", {name})'

    def written_assert_message(self, env, written: str) -> str:
        """An ``assert``'s message: ``written``, or one built as written (``message_format``)."""
        rng = self.rec_rng
        if "message_format" not in self.rec or rng.random() >= 0.5:
            return written
        return self.written_message(rng.choice(self.numeric_params if self.loop_depth else env.nums))
