"""The expressions of the grammar (``Generator`` mixin): leaves (names, literals, constants,
loop indices, tuple and table items, ``math`` constants), numbers (``num``: arithmetic,
``math`` and builtin calls, ternaries, calls of helpers and lambdas) and conditions (``cond``:
comparisons, ``not``, ``and``/``or``, ``bool()``, ``math.isnan``...), with the tables of
``math`` functions and domain guards they draw from.

``grammar_statements.py`` (and ``generator.py``, ``grammar_raise.py``, ``grammar_calls.py``)
call these; the D14 reads of uniform parameters, the D16 NumPy calls and the D17 exact
functions they may give come from ``grammar_calls.py``. Decisions are drawn from ``self.rng``
(``self.table_rng`` for table lookups, ``self.ext_rng`` for the D14/D16/D17 parts) in the
order they always were, so a seed's programs do not depend on the split into mixins.
"""

from __future__ import annotations

import re

from typing import TYPE_CHECKING, List

if TYPE_CHECKING:
    from .grammar_env import Callee, Env

TRANSCENDENTAL = (
    "exp", "expm1", "log", "log1p", "log2", "log10", "sin", "cos", "tan", "asin", "acos", "atan", "sinh",
    "cosh", "tanh", "asinh", "acosh", "atanh",
)
EXACT_MATH = ("sqrt", "fabs", "degrees", "radians")
FLOOR_MATH = ("floor", "ceil", "trunc")
PRED_MATH = ("isnan", "isinf", "isfinite")
BINARY_MATH = ("atan2", "hypot", "copysign", "pow")
#: Functions whose argument gets a domain guard (most of the time), and the guard.
GUARDS = {
    "sqrt": "abs({}) + 0.5", "log": "abs({}) + 1.0", "log2": "abs({}) + 0.25", "log10": "abs({}) + 2.0",
    "log1p": "abs({})", "acosh": "abs({}) + 1.0", "asin": "{0} / (abs({0}) + 1.0)",
    "acos": "{0} / (abs({0}) + 1.0)", "atanh": "{0} / (abs({0}) + 1.5)", "exp": "{} % 20.0",
    "expm1": "{} % 20.0", "sinh": "{} % 30.0", "cosh": "{} % 30.0",
}
#: Constant divisors of ``divisor``: powers of two (a mask `& (c - 1)` in the int body) and
#: others (the quotient multiplied back), the calendar's and the clock's among them.
DIVISORS = (1, 2, 4, 8, 16, 64, 1024, 3, 7, 10, 24, 60, 100, 400)
COMPARE_OPS = ("<", "<=", ">", ">=", "==", "!=")


class ExpressionGrammar:
    """Mixin of ``generator.Generator`` (module docstring)."""

    def leaf(self, env: Env) -> str:
        if self.in_entry and self.uniforms.keys() - {"label", "mode"} and self.ext_rng.random() < 0.08:
            return self.uniform_leaf(env)
        if env.containers and self.box_rng.random() < 0.2:
            return self.box_leaf(env)  # D18: an item of a local container (grammar_containers.py)
        text = self.plain_leaf(env)
        if self.tables and self.int_casts and self.table_rng.random() < 0.1:
            # A per-element lookup that never leaves the table: `S0[int(v) % 3]`.
            name = self.table_rng.choice(sorted(self.tables))
            # int() is item 7's raise site: not where nothing may raise, nor of a constant (an
            # `int(math.inf)` raises on every element).
            if not self.raise_free and self.reads_a_variable(env, text):
                return f"{name}[int({text}) % {self.tables[name]}]"
        return text

    def reads_a_variable(self, env: Env, text: str) -> bool:
        """Whether expression ``text`` reads a variable of ``env`` (else it is a constant, whose
        int conversion beyond int64 would raise on every element: item 7)."""
        variables = set(env.nums) | set(env.indices) | set(env.items) | set(env.bools)
        return bool(variables.intersection(re.findall(r"[A-Za-z_]\w*", text)))

    def plain_leaf(self, env: Env) -> str:
        rng = self.rng
        kind = self.pick([
            (5.0, "name"),
            (0.4 if env.bools else 0, "bool_vars"),
            (1.2, "int_lit"),
            (1.2, "float_lit"),
            (0.15, "bool_lit"),
            (0.15, "big_literals"),
            (0.6 if self.constants else 0, "constants"),
            (1.0 if env.indices else 0, "index"),
            (0.5 if env.items else 0, "item"),
            (0.5 if self.tuples else 0, "tuples"),
            (0.15, "math_const"),
        ])
        if kind == "name":
            return rng.choice(env.nums)
        if kind == "bool_vars":
            return rng.choice(env.bools)
        if kind == "int_lit":
            return str(rng.choice([0, 1, 1, 2, 2, 3, 4, 5, 7, 10, 100, -1, -2, -3]))
        if kind == "float_lit":
            return repr(rng.choice([0.0, 0.5, 1.0, 1.5, 2.0, 2.5, 3.0, 0.1, 0.25, 10.0, -1.0, -0.5, 1e-300, 1e300, -0.0, 1e-9]))
        if kind == "bool_lit":
            return rng.choice(["True", "False"])
        if kind == "big_literals":
            if rng.random() < 0.25:
                # Issue 28 item 1: ints beyond 64 bits, as powers of constants (a literal that
                # large is refused): a float operand converts them, comparisons are exact.
                return rng.choice(["2 ** 64", "2 ** 70", "(-2) ** 65", "10 ** 30", "2 ** 1100", "3 ** 45", "2 ** 63"])
            return str(rng.choice([2**53 + 1, 2**62, 2**63 - 1, 2**63, 2**64 - 1, -(2**63)]))
        if kind == "constants":
            return rng.choice(sorted(self.constants))
        if kind == "index":
            return rng.choice(sorted(env.indices))
        if kind == "item":
            return rng.choice(env.items)
        if kind == "tuples":
            name = rng.choice(sorted(self.tuples))
            size = len(self.tuples[name])
            fitting = [i for i, vs in env.indices.items() if all(-size <= v < size for v in vs)]
            if fitting and rng.random() < 0.6:
                return f"{name}[{rng.choice(fitting)}]"
            return f"{name}[{rng.randrange(-size, size)}]"
        if kind == "math_const":
            return "math." + rng.choice(["pi", "e", "tau", "inf", "nan"])
        raise AssertionError(kind)

    def assigned_num(self, env: Env, d: int) -> str:
        """The right side of an assignment: ``num``, but inside a loop a bare read of a uniform
        parameter is made a number (``+rates["low"]``): a raise message in the loop (which reads
        ``numeric_params``) may not read a uniform value the loop defines (D14; src/lower/
        loop_raise.rs)."""
        text = self.num(env, d)
        if self.loop_depth and text == self.last_uniform_leaf:
            return f"+{text}"
        return text

    def num(self, env: Env, d: int) -> str:
        rng = self.rng
        if d <= 0 or rng.random() < 0.25:
            return self.leaf(env)
        e = lambda: self.num(env, d - 1)  # noqa: E731
        if not self.in_try and self.ext & {"numpy_calls", "special_exact"}:
            if self.ext_here("numpy_calls", 0.1):
                return self.numpy_call(env, e)
            if self.ext_here("special_exact", 0.08):
                return self.special_exact_call(env, e)
        kind = self.pick([
            (4.0, "arith"),
            (0.8, "truediv"),
            (0.6, "floordiv"),
            (0.6, "mod"),
            (0.5, "pow"),
            (0.6, "unary"),
            (0.6, "abs"),
            (0.4, "compare_value"),
            (0.7, "ternary"),
            (0.5, "boolop"),
            (0.2, "not"),
            (0.6, "math_exact"),
            (0.35 if self.int_casts else 0, "math_floor"),
            (0.8, "transcendental"),
            (0.3, "math_binary"),
            (0.7, "minmax"),
            (0.4, "float_cast"),
            (0.3 if self.int_casts else 0, "int_cast"),
            (0.3 if self.int_casts else 0, "round"),
            (0.15, "bool_cast"),
            (1.0 if self.callable(env) else 0, "call"),
        ])
        if kind == "arith":
            return self.divided(f"({e()} {rng.choice('+-*')} {e()})")
        if kind == "truediv":
            if rng.random() < 0.5:
                return f"({e()} / (abs({e()}) + 1.0))"
            return f"({e()} / {e()})"
        if kind == "floordiv":
            a, b = e(), e()
            return f"({a} // {self.divisor(b)})"
        if kind == "mod":
            a, b = e(), e()
            return f"({a} % {self.divisor(b)})"
        if kind == "pow":
            form = rng.random()
            if form < 0.5:
                return f"({e()} ** {self.exponent([0, 1, 2, 2, 3, -1, -2, 0.5, 2.0, 1.5, -0.5])})"
            if form < 0.65:
                return f"pow({e()}, {self.exponent([2, 3, -1, 0.5])})"
            if form < 0.8:
                return f"({rng.choice(['2.0', '0.5', '1.5', '2'])} ** ({e()} % 8))"
            if self.on("pow_var", 1.0):
                return f"(abs({e()}) ** {e()})"
            return f"({e()} ** 2)"
        if kind == "unary":
            return f"({rng.choice(['-', '-', '+'])}{e()})"
        if kind == "abs":
            return f"abs({e()})"
        if kind == "compare_value":
            return f"({self.cond(env, d - 1)})"
        if kind == "ternary":
            test = self.cond(env, d - 1) if rng.random() < 0.7 else e()
            return f"({e()} if {test} else {e()})"
        if kind == "boolop":
            op = rng.choice(["and", "or"])
            items = [e() for _ in range(rng.choice([2, 2, 3]))]
            return "(" + f" {op} ".join(items) + ")"
        if kind == "not":
            return f"(not {e()})"
        if kind == "math_exact":
            return self.math_call(rng.choice(EXACT_MATH), e)
        if kind in ("math_floor", "int_cast", "round") and self.raise_free:
            # Where nothing may raise, `x // 1` for item 7's raise sites (the same draws).
            if kind == "math_floor":
                rng.choice(FLOOR_MATH)
            return f"({e()} // 1)"
        if kind == "math_floor":
            if "math_floor_int" in self.exclude:
                # CPython's math.floor(int) is the int itself (exact beyond 2**53).
                return self.math_call(rng.choice(FLOOR_MATH), lambda: f"float({e()})")
            self.used.add("math_floor_int")
            name, arg = rng.choice(FLOOR_MATH), e()
            return self.math_call(name, lambda: arg) if self.reads_a_variable(env, arg) else f"({arg} // 1)"
        if kind == "transcendental":
            return self.math_call(rng.choice(TRANSCENDENTAL), e)
        if kind == "math_binary":
            name = rng.choice(BINARY_MATH + ("log2arg",))
            if name == "log2arg":
                return f"math.log(abs({e()}) + 1.0, {rng.choice(['2.0', '10.0', '3.0', '0.5'])})"
            if name == "pow":
                return f"math.pow(abs({e()}), {e()})" if rng.random() < 0.7 else f"math.pow({e()}, {e()})"
            return f"math.{name}({e()}, {e()})"
        if kind == "minmax":
            n = rng.choice([2, 2, 2, 3])
            return f"{rng.choice(['min', 'max'])}({', '.join(e() for _ in range(n))})"
        if kind == "float_cast":
            return f"float({e()})"
        if kind in ("int_cast", "round"):
            # Of a constant, item 7's raise site would raise on every element (`int(math.inf)`).
            arg = e()
            return f"{'int' if kind == 'int_cast' else 'round'}({arg})" if self.reads_a_variable(env, arg) else f"({arg} // 1)"
        if kind == "bool_cast":
            return f"bool({e()})"
        if kind == "call":
            return self.call(env, e)
        raise AssertionError(kind)

    def divisor(self, drawn: str) -> str:
        """The divisor of a `//` or `%`: ``drawn``, or, in a program with ``const_divisor``, often
        a positive constant (issue 30: powers of two become masks in the int body, other
        constants a product by the quotient; ``div_rng``, so the main stream is unchanged)."""
        if not self.const_divisors or self.div_rng.random() >= 0.6:
            return drawn
        self.used.add("const_divisor")
        return str(self.div_rng.choice(DIVISORS))

    def divided(self, text: str) -> str:
        """``text``, or, in a program whose parameters are all int64 and that draws constant
        divisors, sometimes ``text`` floor-divided or reduced by one (the calendar's `(d + 29) //
        30`, `(y - 1) % 400`: the int body's quotients and remainders; ``div_rng``)."""
        if not (self.const_divisors and "int_only" in self.used) or self.div_rng.random() >= 0.3:
            return text
        self.used.add("const_divisor")
        return f"({text} {self.div_rng.choice(['%', '//'])} {self.div_rng.choice(DIVISORS)})"

    def exponent(self, choices: list) -> str:
        if "pow_half" in self.exclude:
            choices = [c for c in choices if c != 0.5]
        value = self.rng.choice(choices)
        if value == 0.5:
            self.used.add("pow_half")
        return repr(value)

    def math_call(self, name: str, e) -> str:
        arg = e()
        if name in GUARDS and self.rng.random() < 0.7:
            arg = GUARDS[name].format(arg)
        if name in self.math_names and self.rng.random() < 0.7:
            return f"{name}({arg})"
        return f"math.{name}({arg})"

    def callable(self, env: Env) -> List[Callee]:
        """The callees of ``env``; in a ``try`` body or a ``finally`` clause (``raise_free``
        outside a ``while`` test) not the recursive helpers nor the helpers, lambdas and nested
        defs that reach one (``reaching``), whose residue the compiler rejects there (D19: an
        exception of a class it cannot know, seed 530101 #514; through a helper in a ``finally``
        clause, seed 540001 #50). A ``while`` test may call them (D12: evaluated per iteration,
        its raises carried as the body's; seed 540001 #80 was rejected before)."""
        if self.in_try or (self.raise_free and not self.in_while_test):
            out = set(self.recursive) | self.reaching
            return [c for c in env.callees if c.name not in out]
        return env.callees

    def tuple_callees(self) -> List[Callee]:
        return self.tuple_helpers

    def call(self, env: Env, e) -> str:
        callee = self.rng.choice(self.callable(env))
        self.called.add(callee.name)
        args = [e() for _ in callee.params]
        if callee.name.startswith("h") and self.on("keywords", 0.25):
            pairs = list(zip(callee.params, args))
            self.rng.shuffle(pairs)
            return f"{callee.name}({', '.join(f'{p}={a}' for p, a in pairs)})"
        return f"{callee.name}({', '.join(args)})"

    def cond(self, env: Env, d: int) -> str:
        rng = self.rng
        e = lambda: self.num(env, max(d - 1, 0))  # noqa: E731
        if d <= 0:
            if env.bools and rng.random() < 0.3:
                return rng.choice(env.bools)
            return f"{self.leaf(env)} {rng.choice(COMPARE_OPS)} {self.leaf(env)}"
        kind = self.pick([
            (4.0, "compare"),
            (0.8, "chain"),
            (0.5, "not"),
            (1.0, "boolop"),
            (0.6 if env.bools else 0, "bool_vars"),
            (0.3, "bool_cast"),
            (0.5, "math_exact"),
            (0.2, "ternary"),
            (0.05, "bool_lit"),
        ])
        if kind == "compare":
            return f"{e()} {rng.choice(COMPARE_OPS)} {e()}"
        if kind == "chain":
            n = rng.choice([2, 2, 3])
            text = e()
            for _ in range(n):
                text += f" {rng.choice(COMPARE_OPS)} {e()}"
            return text
        if kind == "not":
            inner = self.cond(env, d - 1) if rng.random() < 0.6 else e()
            return f"not ({inner})"
        if kind == "boolop":
            op = rng.choice(["and", "or"])
            items = [f"({self.cond(env, d - 1)})" for _ in range(rng.choice([2, 2, 3]))]
            return f" {op} ".join(items)
        if kind == "bool_vars":
            return rng.choice(env.bools)
        if kind == "bool_cast":
            return f"bool({e()})"
        if kind == "math_exact":
            name = rng.choice(PRED_MATH)
            if name in self.math_names:
                return f"{name}({e()})"
            return f"math.{name}({e()})"
        if kind == "ternary":
            test = self.cond(env, d - 1) if rng.random() < 0.5 else e()
            return f"(({self.cond(env, d - 1)}) if {test} else ({self.cond(env, d - 1)}))"
        if kind == "bool_lit":
            return rng.choice(["True", "False"])
        raise AssertionError(kind)
