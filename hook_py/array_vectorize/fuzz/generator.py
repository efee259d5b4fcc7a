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

This module holds the program level (imports, constants, tuples, tables, lambdas, helpers, the
signature of ``f``, rejections), the feature lists and ``Program`` (``Callee`` and ``Env``, which
every mixin reads, are ``grammar_env.py``'s); the rest of the grammar is in ``Generator``'s
mixins: ``grammar_statements.py`` (blocks, branches, loops), ``grammar_expressions.py`` (numbers
and conditions), ``grammar_raise.py`` (D11), ``grammar_calls.py`` (D14, D16, D17) and
``grammar_containers.py`` (D18, D20), ``grammar_recursion.py`` (D19, D21) and
``grammar_types.py`` (D22).
"""

from __future__ import annotations

import random
import zlib
from dataclasses import dataclass, field
from typing import Dict, FrozenSet, List, Optional, Set, Tuple

from .grammar_calls import ENUM_CLASS, CallGrammar
from .grammar_containers import CONTAINER_FEATURES, ContainerGrammar
from .grammar_env import Callee, Env, converts
from .grammar_expressions import EXACT_MATH, FLOOR_MATH, PRED_MATH, TRANSCENDENTAL, ExpressionGrammar
from .grammar_names import respell, respell_math
from .grammar_raise import USER_EXCEPTION, RaisingGrammar
from .grammar_recursion import RecursionGrammar
from .grammar_statements import StatementGrammar
from .grammar_types import TypeGrammar

#: Generator features; ``--exclude`` takes any of these.
FEATURES = (
    "if", "elif", "else", "early_return", "loop", "nested_loop", "tuple_loop", "loop_return", "index_branch",
    "ternary", "boolop", "not", "chain", "compare_value", "truediv", "floordiv", "mod", "pow", "pow_var",
    "unary", "abs", "minmax", "float_cast", "int_cast", "round", "bool_cast", "math_exact", "math_floor",
    "math_floor_int", "loop_return_in_if", "scalar_if_in_array_if", "pow_half", "walrus_in_loop",
    "uint64_int_cast",
    "transcendental", "math_binary", "math_const", "helpers", "keywords", "lambdas", "local_lambda",
    "nested_def", "constants", "tuples", "walrus", "swap", "augassign", "bool_vars", "int64", "uint64", "bool",
    "scalar_args", "from_import", "float_only", "int_only", "big_literals", "scalar_condition", "after_loop", "tables",
    "truth_condition", "tuple_return",
    "while_loop", "while_true", "break", "continue",
    # D11 (grammar_raise.py), D14, D16, D17 (grammar_calls.py); drawn from a stream of their own.
    "raise", "assert", "validator", "validator_in_loop", "try", "nan_on_raise", "user_exception",
    "uniform_dict", "uniform_enum", "uniform_none", "uniform_str", "numpy_calls", "special_exact", "special_inexact",
    # D18, D20 (grammar_containers.py); drawn from a stream of their own.
    *CONTAINER_FEATURES,
    # Decided by the program's text, no stream: also checked compiled with protect_domains=True (D1).
    "protect_domains",
    # Constant positive divisors of `//` and `%` (grammar_expressions.py); a stream of their own.
    "const_divisor",
    # Decided by another hash of the text: also run on NumPy with blocks, threads, packed loops and
    # checked passes forced (forced.py, the `blocked` backend).
    "forced_blocks",
    # Decided by another hash of the text and the compile (runner.mixed_args, issue 30): called
    # with int64 and float64 arguments of the kinds its mixed body takes.
    "mixed_args",
    # NumPy's spelling (grammar_names.py), decided by a hash of the text of a program with numpy_calls.
    "numpy_alias", "numpy_by_name", "numpy_as",
    # The math module under another name (grammar_names.py), decided by a hash of the text.
    "math_alias",
    # D19, D21 (grammar_recursion.py); drawn from a stream of their own.
    "recursion", "recursion_self", "recursion_raise", "message_format", "exception_init",
    # D22 (grammar_types.py); drawn from a stream of their own.
    "isinstance_guard",
)

#: Features generated only when asked for (``Generator(include=...)``, ``--include``); none
#: today (user exception classes, ``user_exception``, are compared by name and MRO, oracle.py).
OPT_IN: FrozenSet[str] = frozenset()

#: Unsupported constructs for rejection programs.
REJECTIONS = (
    "set", "string", "print", "matmul", "unknown_math",
    "unknown_name", "raise_from", "set_comprehension", "with", "global",
)
#: The rejections only lowering reports (they need kinds or bindings): ``inject_rejection`` puts
#: them first in ``f``.
LOWERING_REJECTIONS = ("unknown_math", "unknown_name", "print", "raise_from", "string")


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
    protect_domains: bool = False  # also check the program compiled with protect_domains=True (D1)
    forced_blocks: bool = False  # also run on NumPy with the runtime's size gates forced open (forced.py)


class Generator(
    StatementGrammar, ExpressionGrammar, RaisingGrammar, CallGrammar, ContainerGrammar, RecursionGrammar, TypeGrammar
):
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
        #: Calls of the validator inside f's loops (``call_validator_in_loop``): a stream of
        #: their own, so the programs of a seed that draw none stay as they were.
        self.loop_check_rng = random.Random(0)
        self.ext: set = set()  # the ones this program draws
        self.module_classes: List[str] = []
        self.uniforms: Dict[str, list] = {}
        self.last_uniform_leaf = ""  # the last number read from a uniform parameter (uniform_leaf)
        self.validator_arity = 0
        self.in_entry = False  # generating f's own statements (not a helper, lambda or nested def)
        self.in_try = False
        # In a `finally` clause or a `while` test, which may not raise (D11, D12): no per-element
        # index read of a local container, no name some elements never assigned (D20), no
        # recursive helper (D19: its residue is a raise site) there.
        self.raise_free = False
        self.in_while_test = False  # raise_free, in a `while` test (a recursive helper may stand there)
        self.maybe_unbound: Set[str] = set()
        self.scalar_ifs = 0  # enclosing `if`/`elif` tests that are Python scalars
        self.special_param = ""
        self.kinds: List[str] = []
        # D18, D20 features (grammar_containers.py): their own stream too.
        self.box_rng = random.Random(0)
        self.box: set = set()
        # D19, D21 (grammar_recursion.py): a stream of their own too.
        self.rec_rng = random.Random(0)
        self.rec: set = set()  # the ones this program draws
        self.recursive: List[str] = []  # the recursive helpers' names
        # D22 (grammar_types.py): a stream of its own too.
        self.type_rng = random.Random(0)
        # Constant divisors (``divisor``, grammar_expressions.py): a stream of its own too.
        self.div_rng = random.Random(0)
        self.const_divisors = False
        # The helpers, lambdas and nested defs that call a recursive helper, directly or through
        # others (D19: where a recursive helper may not stand, neither may they), and the callees
        # the function being written called so far (``reach``).
        self.reaching: Set[str] = set()
        self.called: Set[str] = set()

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
    # long: the program in the order it is written: module constants, helpers, lambdas and validators, then the function, each drawing from what came before
    def program(self) -> Program:
        rng = self.rng
        n_params = rng.choice([1, 2, 2, 3, 3, 4])
        params = [f"p{i}" for i in range(n_params)]
        kinds = self.param_kinds(n_params)
        self.int_casts = "u" not in kinds or "uint64_int_cast" not in self.exclude
        # Issue 30: constant positive divisors (powers of two among them) of `//` and `%`, which
        # the int and mixed bodies print as the library's operators, a mask or a product. A
        # stream of its own: the program's other draws are what they were.
        self.div_rng = random.Random(hash(rng.getstate()[1]) + 7)
        self.const_divisors = "const_divisor" not in self.exclude and self.div_rng.random() < 0.4
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
        self.draw_tables(rng)
        # D19, D21: + 4, not containers' + 3 drawn from the same state (the two streams were one,
        # every recursion program drew containers alike; campaign 54 ran with + 3 alone).
        self.rec_rng = random.Random(hash(rng.getstate()[1]) + 4)
        self.extended_module(rng, params, kinds)
        self.recursion_module()
        self.box_rng = random.Random(hash(rng.getstate()[1]) + 3)
        self.draw_containers()
        self.type_rng = random.Random(hash(rng.getstate()[1]) + 5)
        callees: List[Callee] = []
        self.recursive_helpers(callees)
        if self.on("lambdas", 0.3):
            for i in range(rng.randint(1, 2)):
                names = ["a", "b", "c"][: rng.randint(1, 2)]
                env = Env(list(names), callees=list(callees))
                self.called = set()
                body = self.num(env, 2)
                self.emit(0, f"L{i} = lambda {', '.join(names)}: {body}")
                self.reach(f"L{i}")
                callees.append(Callee(f"L{i}", names, converts=converts(body, callees)))
        if self.on("helpers", 0.4):
            for i in range(rng.randint(1, 2)):
                names = ["a", "b", "c"][: rng.randint(1, 3)]
                self.emit(0, "")
                self.emit(0, f"def h{i}({', '.join(names)}):")
                start = len(self.lines)
                self.in_helper = True
                self.ret_arity = rng.choice([2, 2, 3]) if self.on("tuple_return", 0.35) else 1
                self.stmt_budget = rng.randint(1, 5)
                self.called = set()
                self.function_body(Env(list(names), callees=list(callees)), 1)
                self.reach(f"h{i}")
                self.in_helper = False
                converting = converts("\n".join(self.lines[start:]), callees + self.tuple_helpers)
                if self.ret_arity > 1:
                    self.tuple_helpers.append(Callee(f"h{i}", names, self.ret_arity, converting))
                else:
                    callees.append(Callee(f"h{i}", names, 1, converting))
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
        self.self_recursion(numeric, 1)
        self.type_guards(env, 1)
        def_line = first_body_line - 1
        self.in_entry = True
        self.function_body(env, 1, top=True)
        self.in_entry = False
        if self.uniforms:
            self.lines[def_line] = f"def f({', '.join(numeric + self.uniform_signature(first_body_line))}):"
        reject = None
        if self.reject:
            reject = self.inject_rejection(numeric, first_body_line)
        if "numpy_calls" in self.used:
            # D16: NumPy reached by another alias or by name (grammar_names.py), by a hash.
            self.lines, spelling = respell(self.lines, self.exclude)
            if spelling:
                self.used.add(spelling)
        # Issue 27: the math module under another name (grammar_names.py), by a hash.
        self.lines, aliased = respell_math(self.lines, self.exclude)
        if aliased:
            self.used.add("math_alias")
        source = "\n".join(self.lines) + "\n"
        nan_on_raise = bool(self.used & {"raise", "assert", "validator", "try"}) and self.ext_on("nan_on_raise", 0.3)
        if nan_on_raise:
            self.used.add("nan_on_raise")
        # A third of the programs, by a hash of their text: no random draw, so every other
        # program of a seed is the one it was before this existed.
        protect_domains = reject is None and "protect_domains" not in self.exclude and zlib.crc32(source.encode()) % 3 == 0
        if protect_domains:
            self.used.add("protect_domains")
        # Another third, by another hash: also run on NumPy with the runtime's size gates forced
        # open (blocks, threads, packed loops, checked passes: forced.py), the `blocked` backend.
        forced_blocks = "forced_blocks" not in self.exclude and zlib.crc32(b"blocks:" + source.encode()) % 3 == 0
        if forced_blocks:
            self.used.add("forced_blocks")
        features = set(self.used)
        features.update({"f": "float64", "i": "int64", "u": "uint64", "b": "bool"}[k] for k in kinds)
        uniforms = {len(numeric) + i: objects for i, objects in enumerate(self.uniforms.values())}
        kinds = kinds + ["o"] * len(uniforms)
        return Program(
            source, params, kinds, reject=reject, features=features, uniforms=uniforms, nan_on_raise=nan_on_raise,
            protect_domains=protect_domains, forced_blocks=forced_blocks,
        )


    def draw_tables(self, rng: random.Random) -> None:
        """The module's tables indexed per element (D15): `S0` (a list), `M0` (a dict), and,
        for some programs, the same as attributes of a class used as a namespace (issue 27)."""
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
            # Issue 27: the same tables as attributes of a class used as a namespace, computed
            # in the class body from the globals (`Tab.S0[...]`), from a stream of their own.
            if random.Random(hash(rng.getstate()[1]) + 5).random() < 0.5:
                self.emit(0, "class Tab:")
                self.emit(1, "S0 = S0")
                self.emit(1, "M0 = M0")
                self.tables.update({"Tab.S0": len(floats), "Tab.M0": len(ints)})

    def extended_module(self, rng: random.Random, params: List[str], kinds: List[str]) -> None:
        """Draws the D11/D14/D16/D17 features of this program (half the programs draw none) and
        writes what they need at module level (imports, classes)."""
        self.ext_rng = random.Random(hash(rng.getstate()[1]) + 1)
        self.loop_check_rng = random.Random(hash(rng.getstate()[1]) + 2)
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
        kinds = [names[self.pick(pool)] for _ in range(n)]
        # Every parameter an int64: the calls the int body takes (issue 30). Decided from a
        # stream of its own (the main stream's state, not a draw from it), so that every other
        # program of a seed is the one it was.
        if "int_only" not in self.exclude and random.Random(hash(self.rng.getstate()[1]) + 3).random() < 0.25:
            self.used.add("int_only")
            return ["i"] * n
        return kinds

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

    def reach(self, name: str) -> None:
        """Notes ``name`` (the helper, lambda or nested def just written) among those that reach a
        recursive helper when its body called one, directly or through another."""
        if self.called & (set(self.recursive) | self.reaching):
            self.reaching.add(name)

    def closure_defs(self, env: Env) -> None:
        """Local lambdas and nested defs at the top of ``f``; they read ``f``'s parameters (which
        ``f`` then never assigns)."""
        if "local_lambda" in self.used:
            name = self.fresh("g")
            t = ["t"] if self.rng.random() < 0.7 else ["t", "s"]
            inner = env.copy()
            inner.nums = list(env.nums) + t
            inner.bools = []
            outer, self.called = self.called, set()
            body = self.num(inner, 2)
            self.emit(1, f"{name} = lambda {', '.join(t)}: {body}")
            self.reach(name)
            self.called |= outer
            env.callees.append(Callee(name, t, converts=converts(body, env.callees)))
        if "nested_def" in self.used:
            name = self.fresh("n")
            self.emit(1, f"def {name}(t):")
            start = len(self.lines)
            inner = env.copy()
            inner.nums = list(env.nums) + ["t"]
            inner.bools = []
            inner.frozen = frozenset(env.nums)
            saved = self.stmt_budget
            self.stmt_budget = self.rng.randint(1, 3)
            outer, self.called = self.called, set()
            self.function_body(inner, 2)
            self.reach(name)
            self.called |= outer
            self.stmt_budget = saved
            env.callees.append(Callee(name, ["t"], 1, converts("\n".join(self.lines[start:]), env.callees)))

    # ------------------------------------------------------------------ rejections
    def inject_rejection(self, params: List[str], first_body_line: int) -> Tuple[int, int, str]:
        rng = self.rng
        p = rng.choice(params)
        construct = rng.choice(REJECTIONS)
        body = {
            # (A list and a list comprehension took these two slots until D18 made them
            # supported; the random stream stays.)
            "set": [f"z9 = {{{p}, 1.0}}"],
            "string": [f"z9 = {p} + 'text'"],
            "print": [f"print({p})"],
            # The choice among four keeps the random stream of the seeds as it was.
            "matmul": [f"z9 = {p} @ {rng.choice([p, '1.0', '2.0', '0.5'])}"],
            "unknown_math": [f"z9 = math.{rng.choice(['factorial', 'isqrt'])}({p})"],
            "unknown_name": [f"z9 = undefined_function({p})"],
            # `from None` compiles (D11); a cause no binding resolves does not.
            "raise_from": [f"raise ValueError({p}) from z8"],
            "set_comprehension": [f"z9 = {{{p} for _ in range(3)}}"],
            # (`try` took this slot until D11 made it supported; the random stream stays.)
            "with": [f"with {p}:", "    z9 = 1.0"],
            "global": ["global K9", "K9 = 1"],
        }[construct]
        # Constructs the validator rejects from the syntax alone go before any top-level
        # statement of f; those rejected while lowering (they need kinds or bindings) go first:
        # code after an always-returning constant `if` is never lowered (CPython never runs it
        # either), and a reassigned parameter may have become a Python scalar, whose truth is
        # exact. (A `raise ... from z8` placed after an if/elif that always returns was dead
        # code the core no longer lowers: seed 120003, program 35. A string is a uniform value
        # (D14), rejected only where lowering meets it as a number: seed 190002, program 1537.)
        if construct in LOWERING_REJECTIONS:
            at = first_body_line
        else:
            starts = [s for s in self.top_starts if s >= first_body_line] or [first_body_line]
            at = rng.choice(starts)
        self.lines[at:at] = ["    " + line for line in body]
        return at + 1, at + len(body), construct
