"""The D11 part of the grammar (``Generator`` mixin): ``raise`` in branches, ``assert``, a
validation helper called first thing, and ``try``/``except``/``else``/``finally`` around partial
operations.

Every decision is drawn from ``self.ext_rng`` (a stream of its own, ``generator.py``), so a
program that draws none of these features is the program its seed gave before they existed.
Raises stand in f's own statements (inside its loops too), never in a helper: a helper's raise
inside a loop is rejected (src/lower/exceptions/raise.rs).
"""

from __future__ import annotations

from typing import List

from .grammar_env import Env

#: Builtin exception classes of explicit raises (not OverflowError: the oracle tells an
#: OverflowError from an int beyond the float range only inside ``try``, oracle.py).
RAISE_CLASSES = ("ValueError", "ArithmeticError", "ZeroDivisionError")
#: User exception classes at module level (``user_exception``): a subclass of a builtin and a
#: subclass of that, so that a class confused with its base is seen.
USER_EXCEPTION = "class RangeError(ValueError):\n    pass\n\n\nclass NarrowError(RangeError):\n    \"\"\"Out of a narrower range.\"\"\""
USER_CLASSES = ("RangeError", "NarrowError")
#: ``except`` clauses around partial operations.
HANDLERS = ("ZeroDivisionError", "ValueError", "ArithmeticError", "OverflowError", "(ValueError, OverflowError)", "(ZeroDivisionError, ValueError)")


class RaisingGrammar:
    """Mixin of ``generator.Generator`` (module docstring)."""

    def raise_class(self) -> str:
        classes = list(RAISE_CLASSES)
        if "RangeError" in self.module_classes:
            classes.extend(USER_CLASSES)
        return self.ext_rng.choice(classes)

    def raise_args(self, env) -> str:
        """The exception's arguments: a message built from a value, a constant, or values."""
        rng = self.ext_rng
        # Inside a loop, a message reads the numeric parameters only: one reading a uniform value
        # (D14) the loop computes is rejected (src/lower/loops/raises.rs: all but an item or
        # attribute of values from before the loop read at the top of its body), so assignments
        # there make such a value a number (`assigned_num`).
        name = rng.choice(self.numeric_params if self.loop_depth else env.nums)
        form = rng.random()
        if form < 0.45:
            return f'f"{name}={{{name}}}"'
        if form < 0.65:
            return repr(rng.choice(["out of range", "bad input", ""]))
        if form < 0.85:
            return f'"{name}", {name}'
        return name

    def raise_stmt(self, env, indent: int) -> None:
        """``if cond: raise Class(args)`` (feature ``raise``)."""
        self.used.add("raise")
        test, _ = self.if_condition(env)
        self.emit(indent, f"if {test}:")
        written = f"{self.raise_class()}({self.raise_args(env)})"
        self.emit(indent + 1, f"raise {self.written_exception(env, written)}")

    def assert_stmt(self, env, indent: int) -> None:
        """``assert cond[, message]`` (feature ``assert``)."""
        self.used.add("assert")
        test = self.cond(env, 2)
        if self.ext_rng.random() < 0.7:
            written = self.raise_args(env).split(", ")[0]
            self.emit(indent, f"assert {test}, {self.written_assert_message(env, written)}")
        else:
            self.emit(indent, f"assert {test}")

    def validator(self, params: List[str]) -> None:
        """A module-level helper that only checks its arguments and raises (feature
        ``validator``); ``f`` calls it first thing (``call_validator``)."""
        self.used.add("validator")
        rng = self.ext_rng
        names = ["a", "b"][: rng.randint(1, min(2, len(params)))]
        env = Env(list(names))
        self.emit(0, "")
        self.emit(0, f"def check({', '.join(names)}):")
        for _ in range(rng.randint(1, 2)):
            if rng.random() < 0.7:
                self.raise_stmt(env, 1)
            else:
                self.assert_stmt(env, 1)
        self.validator_arity = len(names)

    def call_validator(self, params: List[str], indent: int) -> None:
        numeric = [p for p, k in zip(params, self.kinds) if k != "o"]
        args = self.ext_rng.sample(numeric, min(self.validator_arity, len(numeric)))
        while len(args) < self.validator_arity:
            args.append(numeric[0])
        self.emit(indent, f"check({', '.join(args)})")

    def call_validator_in_loop(self, indent: int) -> None:
        """Sometimes, ``f``'s call of the validator first thing in a loop's body: a helper that
        raises, in a loop whose own body shows no raise (D11; the core lowers such a loop again
        carrying raises)."""
        rng = self.loop_check_rng
        if not (self.validator_arity and self.in_entry) or "validator_in_loop" in self.exclude:
            return
        if rng.random() >= 0.3:
            return
        self.used.add("validator_in_loop")
        numeric = [p for p, k in zip(self.numeric_params, self.kinds) if k != "o"]
        args = [rng.choice(numeric) for _ in range(self.validator_arity)]
        self.emit(indent, f"check({', '.join(args)})")

    # ------------------------------------------------------------------ try
    def try_operand(self, env) -> str:
        rng = self.ext_rng
        text = self.leaf(env)
        if rng.random() < 0.4:
            text = f"({text} {rng.choice('+-*')} {self.leaf(env)})"
        return text

    def partial_op(self, env) -> str:
        """An operation CPython raises on for some values: a division by a value that may be 0,
        ``math.log``/``sqrt``/``acos``/``exp`` out of their domain, ``int()`` of inf or nan (where
        ``int_cast`` is not excluded)."""
        rng = self.ext_rng
        a = self.try_operand(env)
        kind = rng.choice(["div", "div", "floordiv", "mod", "log", "sqrt", "acos", "exp", "int", "int"])
        if kind == "div":
            return f"{a} / {self.try_operand(env)}"
        if kind == "floordiv":
            return f"{a} // {self.try_operand(env)}"
        if kind == "mod":
            return f"{a} % {self.try_operand(env)}"
        if kind == "int" and "int_cast" in self.exclude:
            # A program whose `f` calls itself leaves `int()` out (``PARTIAL_FEATURES``): in the
            # elements its scalar residue finishes, a float beyond int64 converts as CPython
            # converts it, where the inlined levels raise item 7's OverflowError (docs/semantics.md
            # items 7, 41; fuzz finding 700007 #41). A domain error takes its place (no draw more).
            kind = "sqrt"
        if kind == "int":
            return f"int({a})"
        return f"math.{kind}({a})"

    def try_stmt(self, env, indent: int) -> None:
        """``try:`` partial operations ``except`` ... [``else:``] [``finally:``] (feature
        ``try``). Every clause that falls through assigns the body's result name."""
        self.used.add("try")
        rng = self.ext_rng
        target = self.fresh("v")
        self.emit(indent, "try:")
        self.in_try = True
        self.emit(indent + 1, f"{target} = {self.partial_op(env)}")
        if rng.random() < 0.4:
            self.emit(indent + 1, f"{target} = {target} + {self.partial_op(env)}")
        self.in_try = False
        handlers = rng.sample(HANDLERS, rng.choice([1, 1, 2]))
        if "ArithmeticError" in handlers and handlers[0] != "ArithmeticError":
            handlers = ["ArithmeticError"]  # a later clause would be unreachable for its subclasses
        for h in handlers:
            self.emit(indent, f"except {h}:")
            if rng.random() < 0.15:
                written = f"{self.raise_class()}({self.raise_args(env)})"
                self.emit(indent + 1, f"raise {self.written_exception(env, written)}")
            else:
                self.emit(indent + 1, f"{target} = {self.assigned_num(env, 1)}")
        if rng.random() < 0.4:
            self.emit(indent, "else:")
            self.emit(indent + 1, f"{target} = {target} * {self.leaf(env)}")
        if rng.random() < 0.3:
            done = self.fresh("v")
            self.emit(indent, "finally:")
            self.raise_free = True
            self.emit(indent + 1, f"{done} = {self.num(self.raise_free_env(env), 1)}")
            self.raise_free = False
            env.nums.append(done)
        env.nums.append(target)
