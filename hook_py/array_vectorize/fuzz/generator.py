"""Random scalar programs in the supported language (README "What compiles").

A program is module text: ``import math`` (sometimes ``from math import ...``), frozen global
constants and tuples, module-level lambdas and helper functions, and the entry function ``f``.
Every program is well-formed by construction:

* every path returns (a block that can fall off the end of ``f`` gets a final ``return``);
* no name is read where it may be undefined (definite assignment is tracked through branches and
  loops; after ``for`` over a non-empty range, what the body assigns is defined);
* the condition of an ``if`` is a boolean expression (comparison, ``not``, ``and``/``or`` of
  booleans, ``bool()``, ``math.isnan``..., a variable only ever assigned booleans), a Python
  scalar (loop index, constant), or a number (its truth value per element, D4), as are ternaries;
* ``while`` loops always terminate: a counter (``w*``, never assigned elsewhere) goes up first
  thing in each iteration and the loop ends (test or ``break``) once it reaches a small bound;
  ``break``/``continue`` appear as ``if cond: break`` inside loops, and a loop whose body has one
  adopts none of its body's names afterwards (a lane may have left before assigning them);
* variables are named by class (``v*`` numbers, ``b*`` booleans) so the checker in
  ``wellformed.py`` can verify the above statically.

``Generator(rng, exclude=...)`` skips the features named in ``exclude`` (``FEATURES``), so a run
can go on past a known bug. With ``reject=True`` one unsupported construct is inserted in ``f``
(``REJECTIONS``): the program must be rejected with a diagnostic on that line.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Dict, FrozenSet, List, Optional, Tuple

from .grammar_calls import ENUM_CLASS, CallGrammar
from .grammar_raise import USER_EXCEPTION, RaisingGrammar

#: Generator features; ``--exclude`` takes any of these.
FEATURES = (
    "if", "elif", "else", "early_return", "loop", "nested_loop", "tuple_loop", "loop_return", "index_branch",
    "ternary", "boolop", "not", "chain", "compare_value", "truediv", "floordiv", "mod", "pow", "pow_var",
    "unary", "abs", "minmax", "float_cast", "int_cast", "round", "bool_cast", "math_exact", "math_floor",
    "math_floor_int", "loop_return_in_if", "scalar_if_in_array_if", "pow_half", "walrus_in_loop",
    "uint64_int_cast",
    "transcendental", "math_binary", "math_const", "helpers", "keywords", "lambdas", "local_lambda",
    "nested_def", "constants", "tuples", "walrus", "swap", "augassign", "bool_vars", "int64", "uint64", "bool",
    "scalar_args", "from_import", "float_only", "big_literals", "scalar_condition", "after_loop", "tables",
    "truth_condition", "tuple_return",
    "while_loop", "while_true", "break", "continue",
    # D11 (grammar_raise.py), D14, D16, D17 (grammar_calls.py); drawn from a stream of their own.
    "raise", "assert", "validator", "try", "nan_on_raise", "user_exception",
    "uniform_dict", "uniform_enum", "uniform_none", "uniform_str", "numpy_calls", "special_exact", "special_inexact",
)

#: Features generated only when asked for (``Generator(include=...)``, ``--include``); none
#: today (user exception classes, ``user_exception``, are compared by name and MRO, oracle.py).
OPT_IN: FrozenSet[str] = frozenset()

#: Unsupported constructs for rejection programs.
REJECTIONS = (
    "list", "string", "print", "matmul", "unknown_math",
    "unknown_name", "raise_from", "comprehension", "with", "global",
)

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
COMPARE_OPS = ("<", "<=", ">", ">=", "==", "!=")


@dataclass
class Program:
    source: str
    params: List[str]
    kinds: List[str]
    entry: str = "f"
    reject: Optional[Tuple[int, int, str]] = None  # (first line, last line, construct) of the rejection
    features: set = field(default_factory=set)
    uniforms: Dict[int, list] = field(default_factory=dict)  # position of a uniform parameter -> objects a call passes
    nan_on_raise: bool = False  # also check the program compiled with nan_on_raise=True (D11)


@dataclass
class Callee:
    name: str
    params: List[str]
    arity: int = 1  # how many values it returns (a tuple when more than 1, D13)


@dataclass
class Env:
    """Names readable at a point of the program."""

    nums: List[str]
    bools: List[str] = field(default_factory=list)
    indices: Dict[str, List[int]] = field(default_factory=dict)  # loop index -> possible values
    items: List[str] = field(default_factory=list)  # tuple-loop variables (Python scalars)
    callees: List[Callee] = field(default_factory=list)
    frozen: FrozenSet[str] = frozenset()  # names that must not be assigned (read by closures)

    def copy(self) -> "Env":
        return Env(list(self.nums), list(self.bools), dict(self.indices), list(self.items), list(self.callees), self.frozen)

    def meet(self, other: "Env") -> "Env":
        """Names defined on both paths."""
        return Env(
            [n for n in self.nums if n in other.nums],
            [b for b in self.bools if b in other.bools],
            {k: v for k, v in self.indices.items() if k in other.indices},
            [i for i in self.items if i in other.items],
            [c for c in self.callees if c in other.callees],
            self.frozen,
        )


class Generator(RaisingGrammar, CallGrammar):
    def __init__(
        self, rng: random.Random, exclude: FrozenSet[str] = frozenset(), reject: bool = False, include: FrozenSet[str] = frozenset()
    ) -> None:
        self.rng = rng
        self.exclude = frozenset(exclude) | (OPT_IN - frozenset(include))
        self.reject = reject
        self.lines: List[str] = []
        self.used: set = set()
        self.counter = 0
        self.constants: Dict[str, object] = {}
        self.tuples: Dict[str, tuple] = {}
        self.math_names: List[str] = []  # bound by `from math import ...`
        self.stmt_budget = 0
        self.loop_trips = 1
        self.loop_depth = 0
        self.numeric_params: List[str] = []  # f's numeric parameters (D11 messages inside loops)
        self.in_helper = False
        self.if_depth = 0  # enclosing `if` statements
        self.loops_in_if = 0  # enclosing loops that are themselves inside an `if`
        self.array_ifs = 0  # enclosing `if` chains with an array condition
        self.int_casts = True  # int()/round()/math.floor() may be generated
        self.exits = 0  # break/continue statements emitted in the innermost loop's body
        self.ret_arity = 1  # values each `return` of the function being generated gives (D13)
        self.tuple_helpers: List[Callee] = []  # helpers returning tuples, unpacked by callers
        self.tables: Dict[str, int] = {}  # list / dict globals indexed per element, by size (D15)
        self.table_rng = random.Random(0)
        # D11, D14, D16, D17 features (grammar_raise.py, grammar_calls.py): their own stream too.
        self.ext_rng = random.Random(0)
        self.ext: set = set()  # the ones this program draws
        self.module_classes: List[str] = []
        self.uniforms: Dict[str, list] = {}
        self.last_uniform_leaf = ""  # the last number read from a uniform parameter (uniform_leaf)
        self.validator_arity = 0
        self.in_entry = False  # generating f's own statements (not a helper, lambda or nested def)
        self.in_try = False
        self.scalar_ifs = 0  # enclosing `if`/`elif` tests that are Python scalars
        self.special_param = ""
        self.kinds: List[str] = []

    def ext_on(self, feature: str, p: float) -> bool:
        """Whether this program draws ``feature`` (from ``ext_rng``; always consumes one draw)."""
        hit = self.ext_rng.random() < p
        if feature in self.exclude or not hit:
            return False
        self.ext.add(feature)
        return True

    def ext_here(self, feature: str, p: float) -> bool:
        """A drawn feature used at this point (``ext_rng``)."""
        return feature in self.ext and self.ext_rng.random() < p

    # ------------------------------------------------------------------ helpers
    def on(self, feature: str, p: float = 1.0) -> bool:
        if feature in self.exclude:
            return False
        if p >= 1.0 or self.rng.random() < p:
            self.used.add(feature)
            return True
        return False

    def pick(self, weighted: List[Tuple[float, str]]) -> str:
        items = [(w, k) for w, k in weighted if w > 0 and k not in self.exclude]
        total = sum(w for w, _ in items)
        r = self.rng.random() * total
        for w, k in items:
            r -= w
            if r <= 0:
                self.used.add(k)
                return k
        self.used.add(items[-1][1])
        return items[-1][1]

    def fresh(self, prefix: str) -> str:
        self.counter += 1
        return f"{prefix}{self.counter}"

    def emit(self, indent: int, text: str) -> None:
        self.lines.append("    " * indent + text)

    # ------------------------------------------------------------------ program
    def program(self) -> Program:
        rng = self.rng
        n_params = rng.choice([1, 2, 2, 3, 3, 4])
        params = [f"p{i}" for i in range(n_params)]
        kinds = self.param_kinds(n_params)
        self.int_casts = "u" not in kinds or "uint64_int_cast" not in self.exclude
        self.emit(0, "import math")
        if self.on("from_import", 0.15):
            names = rng.sample(list(EXACT_MATH + FLOOR_MATH + PRED_MATH + TRANSCENDENTAL[:6]), 3)
            self.math_names = names
            self.emit(0, f"from math import {', '.join(names)}")
        if self.on("constants", 0.6):
            for i in range(rng.randint(1, 3)):
                value = self.const_value()
                self.constants[f"K{i}"] = value
                self.emit(0, f"K{i} = {value!r}")
        if self.on("tuples", 0.4):
            for i in range(rng.randint(1, 2)):
                items = tuple(self.const_value(simple=True) for _ in range(rng.randint(2, 4)))
                self.tuples[f"T{i}"] = items
                self.emit(0, f"T{i} = {items!r}")
        # Tables indexed per element (D15), from a random stream of their own so that every
        # seed's program keeps the shape it had before tables were generated. The seed hashes the
        # state's ints only: the whole state holds None, whose hash on CPython < 3.12 is its
        # address, which made the stream (and a replayed program) differ from run to run.
        self.table_rng = random.Random(hash(rng.getstate()[1]))
        if "tables" not in self.exclude and self.table_rng.random() < 0.35:
            self.used.add("tables")
            trng = self.table_rng
            floats = [trng.choice([0.5, 1.5, -2.0, 0.0, -0.0, 1e9, 0.125]) for _ in range(trng.randint(2, 4))]
            ints = [trng.choice([0, 1, -3, 7, 100, 2**40]) for _ in range(trng.randint(2, 4))]
            self.tables = {"S0": len(floats), "M0": len(ints)}
            self.emit(0, f"S0 = {floats!r}")
            self.emit(0, "M0 = {" + ", ".join(f"{k}: {v!r}" for k, v in enumerate(ints)) + "}")
        self.extended_module(rng, params, kinds)
        callees: List[Callee] = []
        if self.on("lambdas", 0.3):
            for i in range(rng.randint(1, 2)):
                names = ["a", "b", "c"][: rng.randint(1, 2)]
                env = Env(list(names), callees=list(callees))
                self.emit(0, f"L{i} = lambda {', '.join(names)}: {self.num(env, 2)}")
                callees.append(Callee(f"L{i}", names))
        if self.on("helpers", 0.4):
            for i in range(rng.randint(1, 2)):
                names = ["a", "b", "c"][: rng.randint(1, 3)]
                self.emit(0, "")
                self.emit(0, f"def h{i}({', '.join(names)}):")
                self.in_helper = True
                self.ret_arity = rng.choice([2, 2, 3]) if self.on("tuple_return", 0.35) else 1
                self.stmt_budget = rng.randint(1, 5)
                self.function_body(Env(list(names), callees=list(callees)), 1)
                self.in_helper = False
                if self.ret_arity > 1:
                    self.tuple_helpers.append(Callee(f"h{i}", names, self.ret_arity))
                else:
                    callees.append(Callee(f"h{i}", names, 1))
                self.ret_arity = 1
        if self.validator_arity:
            self.validator(params)
        self.emit(0, "")
        self.emit(0, "")
        numeric = list(params)
        self.numeric_params = numeric
        params = params + list(self.uniforms)
        self.emit(0, f"def f({', '.join(params)}):")
        first_body_line = len(self.lines)
        closures = self.on("local_lambda", 0.15) or self.on("nested_def", 0.05)
        frozen = frozenset(numeric) if closures else frozenset()
        if "special_inexact" in self.ext:
            # The inexact D17 functions read a parameter f never assigns (grammar_calls.py).
            self.special_param = self.ext_rng.choice(numeric)
            frozen = frozen | {self.special_param}
        env = Env(list(numeric), callees=list(callees), frozen=frozen)
        self.stmt_budget = rng.randint(3, 14)
        self.top_starts: List[int] = []
        if closures:
            self.closure_defs(env)
        if self.validator_arity:
            self.top_starts.append(len(self.lines))
            self.call_validator(numeric, 1)
        def_line = first_body_line - 1
        self.in_entry = True
        self.function_body(env, 1, top=True)
        self.in_entry = False
        if self.uniforms:
            self.lines[def_line] = f"def f({', '.join(numeric + self.uniform_signature(first_body_line))}):"
        reject = None
        if self.reject:
            reject = self.inject_rejection(numeric, first_body_line)
        source = "\n".join(self.lines) + "\n"
        nan_on_raise = bool(self.used & {"raise", "assert", "validator", "try"}) and self.ext_on("nan_on_raise", 0.3)
        if nan_on_raise:
            self.used.add("nan_on_raise")
        features = set(self.used)
        features.update({"f": "float64", "i": "int64", "u": "uint64", "b": "bool"}[k] for k in kinds)
        uniforms = {len(numeric) + i: objects for i, objects in enumerate(self.uniforms.values())}
        kinds = kinds + ["o"] * len(uniforms)
        return Program(source, params, kinds, reject=reject, features=features, uniforms=uniforms, nan_on_raise=nan_on_raise)

    def extended_module(self, rng: random.Random, params: List[str], kinds: List[str]) -> None:
        """Draws the D11/D14/D16/D17 features of this program (half the programs draw none) and
        writes what they need at module level (imports, classes)."""
        self.ext_rng = random.Random(hash(rng.getstate()[1]) + 1)
        self.kinds = kinds
        if self.ext_rng.random() < 0.5:
            return
        self.ext_on("raise", 0.35)
        self.ext_on("assert", 0.2)
        self.ext_on("try", 0.3)
        if self.ext_on("validator", 0.15):
            self.validator_arity = 1
        if self.ext & {"raise", "validator"} and self.ext_on("user_exception", 0.5):
            self.module_classes.append("RangeError")
            self.used.add("user_exception")
        self.ext_on("numpy_calls", 0.3)
        self.ext_on("special_exact", 0.3)
        self.ext_on("special_inexact", 0.15)
        self.uniforms = self.uniform_params()
        self.used.update({"rates": "uniform_dict", "mode": "uniform_enum", "cap": "uniform_none", "label": "uniform_str"}[u] for u in self.uniforms)
        imports = (["import enum"] if "Mode" in self.module_classes else []) + (["import numpy as np"] if "numpy_calls" in self.ext else [])
        self.lines[1:1] = imports
        if "RangeError" in self.module_classes:
            self.emit(0, "")
            self.lines.extend(USER_EXCEPTION.splitlines())
        if "Mode" in self.module_classes:
            self.emit(0, "")
            self.lines.extend(ENUM_CLASS.splitlines())

    def param_kinds(self, n: int) -> List[str]:
        if self.on("float_only", 0.35):
            return ["f"] * n
        pool = [(6.0, "f"), (3.0, "int64"), (1.5, "uint64"), (1.5, "bool")]
        names = {"f": "f", "int64": "i", "uint64": "u", "bool": "b"}
        return [names[self.pick(pool)] for _ in range(n)]

    def const_value(self, simple: bool = False):
        rng = self.rng
        r = rng.random()
        if r < 0.45:
            return rng.choice([0.5, 1.5, 2.5, -0.25, 3.0, 1e-3, 0.1, -2.0, 1e9, 0.0, -0.0])
        if r < 0.85:
            return rng.choice([0, 1, 2, 3, -1, 5, 10, -4, 7])
        if not simple and self.on("big_literals", 0.3):
            return rng.choice([2**53 + 1, 2**62, -(2**62), 2**63 - 1])
        return rng.choice([True, False])

    def closure_defs(self, env: Env) -> None:
        """Local lambdas and nested defs at the top of ``f``; they read ``f``'s parameters (which
        ``f`` then never assigns)."""
        if "local_lambda" in self.used:
            name = self.fresh("g")
            t = ["t"] if self.rng.random() < 0.7 else ["t", "s"]
            inner = env.copy()
            inner.nums = list(env.nums) + t
            inner.bools = []
            self.emit(1, f"{name} = lambda {', '.join(t)}: {self.num(inner, 2)}")
            env.callees.append(Callee(name, t))
        if "nested_def" in self.used:
            name = self.fresh("n")
            self.emit(1, f"def {name}(t):")
            inner = env.copy()
            inner.nums = list(env.nums) + ["t"]
            inner.bools = []
            inner.frozen = frozenset(env.nums)
            saved = self.stmt_budget
            self.stmt_budget = self.rng.randint(1, 3)
            self.function_body(inner, 2)
            self.stmt_budget = saved
            env.callees.append(Callee(name, ["t"], 1))

    # ------------------------------------------------------------------ statements
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
            self.emit(indent, f"while {w} < {bound} and ({self.cond(env, 2)}):")
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

    # ------------------------------------------------------------------ expressions
    def leaf(self, env: Env) -> str:
        if self.in_entry and self.uniforms.keys() - {"label", "mode"} and self.ext_rng.random() < 0.08:
            return self.uniform_leaf(env)
        text = self.plain_leaf(env)
        if self.tables and self.int_casts and self.table_rng.random() < 0.1:
            # A per-element lookup that never leaves the table: `S0[int(v) % 3]`.
            name = self.table_rng.choice(sorted(self.tables))
            return f"{name}[int({text}) % {self.tables[name]}]"
        return text

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
            return f"({e()} {rng.choice('+-*')} {e()})"
        if kind == "truediv":
            if rng.random() < 0.5:
                return f"({e()} / (abs({e()}) + 1.0))"
            return f"({e()} / {e()})"
        if kind == "floordiv":
            return f"({e()} // {e()})"
        if kind == "mod":
            return f"({e()} % {e()})"
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
        if kind == "math_floor":
            if "math_floor_int" in self.exclude:
                # CPython's math.floor(int) is the int itself (exact beyond 2**53).
                return self.math_call(rng.choice(FLOOR_MATH), lambda: f"float({e()})")
            self.used.add("math_floor_int")
            return self.math_call(rng.choice(FLOOR_MATH), e)
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
        if kind == "int_cast":
            return f"int({e()})"
        if kind == "round":
            return f"round({e()})"
        if kind == "bool_cast":
            return f"bool({e()})"
        if kind == "call":
            return self.call(env, e)
        raise AssertionError(kind)

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
        """The callees of ``env``."""
        return env.callees

    def tuple_callees(self) -> List[Callee]:
        return self.tuple_helpers

    def call(self, env: Env, e) -> str:
        callee = self.rng.choice(self.callable(env))
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

    # ------------------------------------------------------------------ rejections
    def inject_rejection(self, params: List[str], first_body_line: int) -> Tuple[int, int, str]:
        rng = self.rng
        p = rng.choice(params)
        construct = rng.choice(REJECTIONS)
        body = {
            "list": [f"z9 = [{p}, 1.0]"],
            "string": [f"z9 = {p} + 'text'"],
            "print": [f"print({p})"],
            # The choice among four keeps the random stream of the seeds as it was.
            "matmul": [f"z9 = {p} @ {rng.choice([p, '1.0', '2.0', '0.5'])}"],
            "unknown_math": [f"z9 = math.{rng.choice(['factorial', 'isqrt'])}({p})"],
            "unknown_name": [f"z9 = undefined_function({p})"],
            # `from None` compiles (D11); a cause no binding resolves does not.
            "raise_from": [f"raise ValueError({p}) from z8"],
            "comprehension": [f"z9 = [{p} for _ in range(3)]"],
            # (`try` took this slot until D11 made it supported; the random stream stays.)
            "with": [f"with {p}:", "    z9 = 1.0"],
            "global": ["global K9", "K9 = 1"],
        }[construct]
        # Constructs the validator rejects from the syntax alone go before any top-level
        # statement of f; those rejected while lowering (they need kinds or bindings) go first:
        # code after an always-returning constant `if` is never lowered (CPython never runs it
        # either), and a reassigned parameter may have become a Python scalar, whose truth is
        # exact. (A `raise ... from z8` placed after an if/elif that always returns was dead
        # code the core no longer lowers: seed 120003, program 35.)
        if construct in ("unknown_math", "unknown_name", "print", "raise_from"):
            at = first_body_line
        else:
            starts = [s for s in self.top_starts if s >= first_body_line] or [first_body_line]
            at = rng.choice(starts)
        self.lines[at:at] = ["    " + line for line in body]
        return at + 1, at + len(body), construct
