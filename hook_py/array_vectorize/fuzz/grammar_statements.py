"""The statements of the grammar (``Generator`` mixin): function bodies and blocks, ``return``,
assignments, ``if``/``elif``/``else``, ``for`` over a range or a tuple, terminating ``while``
loops, and ``break``/``continue``.

This is where the guarantees of ``generator.py``'s module docstring are kept: every path of a
function returns, definite assignment is tracked through branches and loops (``Env``), ``if``
tests are booleans, Python scalars or numbers, ``while`` loops end. Expressions come from
``grammar_expressions.py``; the D11 statements (``raise``, ``assert``, ``try``) that ``statement``
may place in ``f`` from ``grammar_raise.py``, the ``if`` tests on uniform parameters and the
``return`` of a D17 function from ``grammar_calls.py``. Decisions are drawn from ``self.rng``
(``self.ext_rng`` for those D11/D14/D17 parts) in the order they always were, so a seed's
programs do not depend on the split into mixins.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, List, Tuple

from .grammar_expressions import COMPARE_OPS

if TYPE_CHECKING:
    from .grammar_env import Env


class StatementGrammar:
    """Mixin of ``generator.Generator`` (module docstring)."""

    def function_body(self, env: Env, indent: int, top: bool = False) -> None:
        falls = self.block(env, indent, depth=0, in_loop=False, top=top)
        if falls:
            self.ret(env, indent)

    def ret(self, env: Env, indent: int) -> None:
        if self.in_entry and self.ret_arity == 1 and self.ext_here("special_inexact", 0.35):
            self.special_return(indent)
            return
        values = []
        for _ in range(self.ret_arity):
            if self.rng.random() < 0.2:
                values.append(self.cond(env, 3 if self.ret_arity == 1 else 2))
            else:
                values.append(self.num(env, 3 if self.ret_arity == 1 else 2))
        self.emit(indent, f"return {', '.join(values)}")

    def block(self, env: Env, indent: int, depth: int, in_loop: bool, top: bool = False) -> bool:
        """Statements into ``self.lines``; updates ``env``; whether control can fall through."""
        rng = self.rng
        n = 1 if self.stmt_budget <= 0 else rng.randint(1, min(4, self.stmt_budget))
        for k in range(n):
            if top:
                self.top_starts.append(len(self.lines))
            self.stmt_budget -= 1
            falls = self.statement(env, indent, depth, in_loop)
            if not falls:
                return False
        if depth > 0 and self.on("early_return", 0.3 if not in_loop else 0.15):
            if in_loop and (
                "loop_return" in self.exclude or (self.loops_in_if and "loop_return_in_if" in self.exclude)
                or self.ret_arity > 1  # a tuple cannot be returned from inside a loop (D13)
            ):
                return True
            if in_loop:
                self.used.add("loop_return")
                if self.loops_in_if:
                    self.used.add("loop_return_in_if")
            self.ret(env, indent)
            return False
        return True

    def statement(self, env: Env, indent: int, depth: int, in_loop: bool) -> bool:
        rng = self.rng
        if self.in_entry and self.ext & {"raise", "assert", "try"}:
            # D11 statements (grammar_raise.py): in f, inside loops and Python `if`s on uniform
            # values too (not in helpers: a helper's raise inside a loop is rejected).
            if self.ext_here("raise", 0.2):
                self.raise_stmt(env, indent)
                return True
            if self.ext_here("assert", 0.12):
                self.assert_stmt(env, indent)
                return True
            if self.ext_here("try", 0.2):
                self.try_stmt(env, indent)
                return True
        # Local containers and names some lanes never assign (D18, D20; grammar_containers.py).
        if self.box_statement(env, indent):
            return True
        can_nest = depth < 3 and self.stmt_budget > 0
        assignable = [v for v in env.nums if v not in env.frozen]
        loop_ok = self.loop_depth == 0 or (self.loop_depth == 1 and "nested_loop" not in self.exclude)
        kind = self.pick([
            (3.0, "assign"),
            (0.8, "bool_vars"),
            (2.0 if assignable else 0, "reassign"),
            (0.8 if assignable else 0, "augassign"),
            (0.3 if len(assignable) >= 2 else 0, "swap"),
            (2.5 if can_nest else 0, "if"),
            (1.2 if can_nest and loop_ok and self.loop_trips < 6 else 0, "loop"),
            (0.4 if can_nest and loop_ok and self.tuples and self.loop_trips <= 3 else 0, "tuple_loop"),
            (0.6 if can_nest and loop_ok and self.loop_trips <= 3 else 0, "while_loop"),
            (0.5 if self.loop_depth else 0, "loop_exit"),
            (0.8 if self.tuple_callees() else 0, "tuple_return"),
        ])
        if kind == "assign":
            name = self.fresh("v")
            self.emit(indent, f"{name} = {self.assigned_num(env, 3)}")
            env.nums.append(name)
        elif kind == "bool_vars":
            existing = [b for b in env.bools if rng.random() < 0.5]
            name = existing[0] if existing else self.fresh("b")
            self.emit(indent, f"{name} = {self.cond(env, 3)}")
            if name not in env.bools:
                env.bools.append(name)
        elif kind == "reassign":
            name = rng.choice(assignable)
            self.emit(indent, f"{name} = {self.assigned_num(env, 3)}")
        elif kind == "augassign":
            name = rng.choice(assignable)
            op = rng.choice(["+=", "-=", "*=", "+=", "*=", "/=", "//=", "%="])
            if {"/=": "truediv", "//=": "floordiv", "%=": "mod"}.get(op) in self.exclude:
                op = "-="
            self.emit(indent, f"{name} {op} {self.num(env, 2)}")
        elif kind == "swap":
            a, b = rng.sample(assignable, 2)
            if rng.random() < 0.5:
                self.emit(indent, f"{a}, {b} = {b}, {a}")
            else:
                self.emit(indent, f"{a}, {b} = {b}, {self.num(env, 2)}")
        elif kind == "if":
            return self.if_stmt(env, indent, depth, in_loop)
        elif kind == "loop":
            return self.range_loop(env, indent, depth)
        elif kind == "tuple_loop":
            return self.tuple_loop(env, indent, depth)
        elif kind == "while_loop":
            return self.while_loop(env, indent, depth)
        elif kind == "loop_exit":
            which = "break" if rng.random() < 0.5 else "continue"
            if which in self.exclude:
                return True
            self.used.add(which)
            test, _ = self.if_condition(env)
            self.emit(indent, f"if {test}:")
            self.emit(indent + 1, which)
            self.exits += 1
        elif kind == "tuple_return":
            # `a, b = h(...)`: a helper's several results unpacked (D13).
            callee = rng.choice(self.tuple_callees())
            names = [self.fresh("v") for _ in range(callee.arity)]
            args = ", ".join(self.num(env, 2) for _ in callee.params)
            self.emit(indent, f"{', '.join(names)} = {callee.name}({args})")
            env.nums.extend(names)
        return True

    def if_stmt(self, env: Env, indent: int, depth: int, in_loop: bool) -> bool:
        rng = self.rng
        walrus = None
        if (self.loop_depth == 0 or "walrus_in_loop" not in self.exclude) and self.on("walrus", 0.08):
            if self.loop_depth:
                self.used.add("walrus_in_loop")
            walrus = self.fresh("v")
            test = f"({walrus} := {self.num(env, 2)}) {rng.choice(COMPARE_OPS)} {self.leaf(env)}"
            scalar = False
        else:
            test, scalar = self.if_condition(env)
        if walrus:
            env.nums.append(walrus)
        self.emit(indent, f"if {test}:")
        saved = self.array_ifs, self.scalar_ifs
        self.if_depth += 1
        self.array_ifs += not scalar
        self.scalar_ifs += scalar
        try:
            return self._if_branches(env, indent, depth, in_loop)
        finally:
            self.if_depth -= 1
            self.array_ifs, self.scalar_ifs = saved

    def _if_branches(self, env: Env, indent: int, depth: int, in_loop: bool) -> bool:
        rng = self.rng
        outs: List[Tuple[bool, Env]] = []
        branch = env.copy()
        outs.append((self.block(branch, indent + 1, depth + 1, in_loop), branch))
        n_elif = rng.choice([0, 0, 0, 1, 1, 2]) if "elif" not in self.exclude else 0
        for _ in range(n_elif):
            self.used.add("elif")
            test, scalar = self.if_condition(env)
            self.emit(indent, f"elif {test}:")
            if not scalar and self.array_ifs == 0:
                self.array_ifs = 1
            self.scalar_ifs += scalar  # reset by if_stmt
            branch = env.copy()
            outs.append((self.block(branch, indent + 1, depth + 1, in_loop), branch))
        if self.on("else", 0.5):
            self.emit(indent, "else:")
            branch = env.copy()
            outs.append((self.block(branch, indent + 1, depth + 1, in_loop), branch))
        else:
            outs.append((True, env.copy()))
        live = [e for falls, e in outs if falls]
        if not live:
            return False
        merged = live[0]
        for e in live[1:]:
            merged = merged.meet(e)
        env.nums[:] = merged.nums
        env.bools[:] = merged.bools
        env.indices.clear()
        env.indices.update(merged.indices)
        env.items[:] = merged.items
        return True

    def if_condition(self, env: Env) -> Tuple[str, bool]:
        """An ``if`` test and whether it is a Python scalar (loop index, constant)."""
        rng = self.rng
        scalar_ok = not self.array_ifs or "scalar_if_in_array_if" not in self.exclude
        if self.in_entry and self.uniforms and scalar_ok and self.ext_rng.random() < 0.2:
            return self._scalar_test(self.uniform_test())  # a Python `if` (D14)
        if env.indices and self.on("index_branch", 0.35):
            i = rng.choice(sorted(env.indices))
            values = env.indices[i]
            form = rng.random()
            if form < 0.35 and scalar_ok:
                return self._scalar_test(f"{i} == {rng.choice(values)}")
            if form < 0.6 and scalar_ok:
                return self._scalar_test(f"{i} % 2 == {rng.randint(0, 1)}")
            if form < 0.8:
                return f"{i} {rng.choice(COMPARE_OPS)} {rng.choice(values)} and {self.cond(env, 2)}", False
            return f"{self.cond(env, 2)} or {i} >= {rng.choice(values)}", False
        if scalar_ok and self.on("scalar_condition", 0.05):
            scalars = sorted(env.indices) + sorted(self.constants)
            if scalars:
                return self._scalar_test(rng.choice(scalars))
        if scalar_ok and self.on("truth_condition", 0.12):
            # D4: a number as the condition, `x != 0` per element (a Python scalar if it only
            # reads loop indices and constants).
            test = self.num(env, 2)
            return (f"not ({test})" if rng.random() < 0.3 else test), False
        return self.cond(env, 3), False

    def _scalar_test(self, text: str) -> Tuple[str, bool]:
        if self.array_ifs:
            self.used.add("scalar_if_in_array_if")
        return text, True

    def range_loop(self, env: Env, indent: int, depth: int) -> bool:
        rng = self.rng
        if self.loop_depth >= 1:
            self.used.add("nested_loop")
        for _ in range(20):
            form = rng.random()
            if form < 0.55:
                args = (rng.choice([0, 1, 2, 3, 3, 4, 5]),)
            elif form < 0.8:
                a = rng.randint(-2, 3)
                args = (a, a + rng.randint(0, 4))
            else:
                a = rng.randint(-3, 6)
                step = rng.choice([2, 3, -1, -2])
                args = (a, a + step * rng.randint(0, 3), step)
            values = list(range(*args))
            if len(values) * self.loop_trips <= 12:
                break
        else:
            args, values = (1,), [0]
        name = self.fresh("i")
        self.used.add("loop")
        self.emit(indent, f"for {name} in range({', '.join(map(str, args))}):")
        body = env.copy()
        body.indices[name] = values or [0]
        saved = self.loop_trips
        self.loop_trips *= max(len(values), 1)
        falls, exits = self.loop_body(body, indent, depth)
        self.loop_trips = saved
        if exits:
            return True
        if values and not falls:
            return False  # every path returns in the first iteration
        if values and falls and self.on("after_loop", 0.7):
            body.indices[name] = [values[-1]]
            self.adopt(env, body)
        return True

    def tuple_loop(self, env: Env, indent: int, depth: int) -> bool:
        name_t = self.rng.choice(sorted(self.tuples))
        items = self.tuples[name_t]
        name = self.fresh("c")
        self.emit(indent, f"for {name} in {name_t}:")
        body = env.copy()
        body.items.append(name)
        saved = self.loop_trips
        self.loop_trips *= len(items)
        falls, exits = self.loop_body(body, indent, depth)
        self.loop_trips = saved
        if exits:
            return True
        if not falls:
            return False
        if self.on("after_loop", 0.5):
            self.adopt(env, body)
        return True

    def loop_body(self, body: Env, indent: int, depth: int) -> Tuple[bool, int]:
        """A loop's body: whether it falls through, and how many break/continue it has."""
        saved_exits = self.exits
        self.exits = 0
        self.loop_depth += 1
        self.loops_in_if += self.if_depth > 0
        self.call_validator_in_loop(indent + 1)
        falls = self.block(body, indent + 1, depth + 1, in_loop=True)
        self.loops_in_if -= self.if_depth > 0
        self.loop_depth -= 1
        exits = self.exits
        self.exits = saved_exits
        return falls, exits

    def while_loop(self, env: Env, indent: int, depth: int) -> bool:
        """A ``while`` that always ends: a counter goes up first thing in each iteration and the
        loop stops at a small bound, by its test or by a ``break`` (``while True:``)."""
        rng = self.rng
        if self.loop_depth >= 1:
            self.used.add("nested_loop")
        bound = rng.randint(1, 4)
        w = self.fresh("w")
        self.used.add("while_loop")
        self.emit(indent, f"{w} = 0")
        forever = self.on("while_true", 0.3)
        if forever:
            self.emit(indent, "while True:")
        elif rng.random() < 0.6:
            # A `while` test may call a recursive helper (D19's residue, run per iteration, D12);
            # the rest of what may raise is left out of it (``raise_free``).
            self.raise_free = self.in_while_test = True
            self.emit(indent, f"while {w} < {bound} and ({self.cond(self.raise_free_env(env), 2)}):")
            self.raise_free = self.in_while_test = False
        else:
            self.emit(indent, f"while {w} < {bound}:")
        self.emit(indent + 1, f"{w} += 1")
        if forever:
            self.emit(indent + 1, f"if {w} > {bound}:")
            self.emit(indent + 2, "break")
        body = env.copy()
        body.nums.append(w)
        body.frozen = body.frozen | {w}
        saved = self.loop_trips
        self.loop_trips *= bound + 1
        self.loop_body(body, indent, depth)
        self.loop_trips = saved
        # The body may run zero times (or be left early): only the counter is sure to be defined.
        env.nums.append(w)
        env.frozen = env.frozen | {w}
        return True

    @staticmethod
    def adopt(env: Env, body: Env) -> None:
        env.nums[:] = body.nums
        env.bools[:] = body.bools
        env.indices.clear()
        env.indices.update(body.indices)
        env.items[:] = body.items
