"""Hypothesis compares vectorized functions with their scalar originals on edge values.

Every operator and construct of the supported language has a function here; Hypothesis draws the
kind of each argument (float64, int64, uint64, bool, sometimes a Python scalar) and values from
edge-heavy strategies (0, -0.0, +-1, subnormals, +-inf, NaN, powers of two around 2**53, int64
and uint64 extremes). The comparison is the fuzzer's (``array_vectorize.fuzz.check.compare``):
per element on NumPy and array-api-strict, allowing only the documented divergences (D3 IEEE
values where CPython raises; ints modulo 2**64; the array rules the model applies over the IR
the core reports: ints held as float64 after mixed-kind merges, the library's transcendental
functions).

Profiles (``conftest.py``): ``fast`` by default, ``HYPOTHESIS_PROFILE=slow`` for a thorough run.
"""

from __future__ import annotations

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from array_vectorize.fuzz import check
from array_vectorize.fuzz.inputs import FLOAT_EDGES, INT_EDGES, UINT_EDGES, Column
from sourcefile import scratch_directory

_DIR = str(scratch_directory("array-vectorize-differential-"))
BACKENDS = check.backends(["numpy", "strict"])

# ---------------------------------------------------------------- strategies

floats = st.one_of(
    st.sampled_from(FLOAT_EDGES),
    st.floats(allow_nan=True, allow_infinity=True, allow_subnormal=True),
    st.floats(min_value=-8.0, max_value=8.0),
    st.integers(-6, 6).map(float),
    st.integers(-12, 12).map(lambda n: n / 2.0),
    st.floats(min_value=0.0, max_value=5e-324 * 2**52, allow_subnormal=True).flatmap(lambda x: st.sampled_from([x, -x])),
)
int64s = st.one_of(
    st.sampled_from(INT_EDGES),
    st.integers(-8, 8),
    st.integers(-(2**63), 2**63 - 1),
    st.integers(1, 62).map(lambda k: 2**k).flatmap(lambda v: st.sampled_from([v - 1, v, v + 1, -v, -v - 1])),
)
uint64s = st.one_of(
    st.sampled_from(UINT_EDGES),
    st.integers(0, 8),
    st.integers(0, 2**64 - 1),
    st.integers(0, 63).map(lambda k: 2**k).flatmap(lambda v: st.sampled_from([v - 1, v, v + 1])),
)
bools = st.booleans()
VALUES = {"f": floats, "i": int64s, "u": uint64s, "b": bools}


@st.composite
def columns(draw, kinds_per_param):
    """One column per parameter: a kind among the allowed ones, then 1-12 values of it."""
    n = draw(st.integers(1, 12))
    out = []
    for allowed in kinds_per_param:
        kind = draw(st.sampled_from(list(allowed)))
        scalar = draw(st.integers(0, 9)) == 0
        values = draw(st.lists(VALUES[kind], min_size=1 if scalar else n, max_size=1 if scalar else n))
        out.append(Column(kind, values, scalar))
    if all(c.scalar for c in out):
        c = out[0]
        out[0] = Column(c.kind, c.values * n, False)
    return out


# ---------------------------------------------------------------- functions

ALL = "fiub"
#: name -> (module source of `f`, allowed kinds per parameter)
FUNCTIONS = {
    # arithmetic, each operator
    "add": ("def f(a, b):\n    return a + b\n", [ALL, ALL]),
    "sub": ("def f(a, b):\n    return a - b\n", [ALL, ALL]),
    "mul": ("def f(a, b):\n    return a * b\n", [ALL, ALL]),
    "truediv": ("def f(a, b):\n    return a / b\n", [ALL, ALL]),
    "floordiv": ("def f(a, b):\n    return a // b\n", [ALL, ALL]),
    "mod": ("def f(a, b):\n    return a % b\n", [ALL, ALL]),
    "pow_small": ("def f(a):\n    return a ** 2 + a ** 3 - a ** 0 + a ** -1\n", [ALL]),
    "pow_float": ("def f(a, b):\n    return abs(a) ** b\n", [ALL, "f"]),
    "pow_builtin": ("def f(a, b):\n    return pow(a, 2) + pow(2.0, b % 8)\n", [ALL, ALL]),
    "unary": ("def f(a):\n    return -a + (+a) * 2 - abs(a)\n", [ALL]),
    "augmented": (
        "def f(a, b):\n    y = a\n    y += b\n    y *= 2\n    y -= a\n    y /= 3.0\n    y //= 0.5\n    y %= 7.0\n    return y\n",
        [ALL, ALL],
    ),
    # comparisons and logic
    "compare_each": (
        "def f(a, b):\n    return (a < b) + (a <= b) * 2 + (a > b) * 4 + (a >= b) * 8 + (a == b) * 16 + (a != b) * 32\n",
        [ALL, ALL],
    ),
    "chain": ("def f(a, b, c):\n    return a < b <= c != a\n", [ALL, ALL, ALL]),
    "and_or_values": ("def f(a, b):\n    return (a and b) + (a or b) * 2 + (not a) * 4\n", [ALL, ALL]),
    "and_or_bools": ("def f(a, b):\n    return (a > 0 and b < 1) or not (a == b)\n", [ALL, ALL]),
    "ternary": ("def f(a, b):\n    return a if a > b else b\n", [ALL, ALL]),
    "ternary_numeric_condition": ("def f(a, b, c):\n    return b if a else c\n", [ALL, ALL, ALL]),
    # control flow
    "if_elif_else": (
        "def f(x, y):\n    if x < 0:\n        r = -x\n    elif x < 1:\n        r = x * y\n    elif x < 10:\n        r = y\n"
        "    else:\n        r = x + y\n    return r * 2\n",
        [ALL, ALL],
    ),
    "early_returns": (
        "def f(x, y):\n    if x > 0:\n        if y > 0:\n            if x > y:\n                return x\n            return y\n"
        "        t = x - y\n        if t > 5:\n            return t\n    elif y < -1:\n        return -y\n    z = x * y\n"
        "    if z > 1:\n        return z\n    return 0.5\n",
        [ALL, ALL],
    ),
    "walrus_and_swap": (
        "def f(x, y):\n    a, b = x, y\n    a, b = b, a * 2\n    if (z := a - b) > 1:\n        return z\n    return -z\n",
        [ALL, ALL],
    ),
    # loops (D6)
    "loop_phi": ("def f(x):\n    acc = 0.0\n    for i in range(4):\n        acc = acc * x + i\n    return acc\n", [ALL]),
    # float64 n: test_fuzz_findings.py::int-phi-meets-float (open bug)
    "loop_int_phi": ("def f(n):\n    acc = 1\n    for i in range(1, 5):\n        acc = acc * 3 + n % (i + 1)\n    return acc\n", ["iub"]),
    "loop_index_branch": (
        "def f(x):\n    acc = x\n    for i in range(5):\n        if i % 2 == 0:\n            acc = acc + i\n        else:\n"
        "            acc = acc * 0.5\n    return acc\n",
        [ALL],
    ),
    "loop_early_return": (
        "def f(x, y):\n    for i in range(4):\n        if x < i * y:\n            return i\n    return -1\n",
        [ALL, ALL],
    ),
    "loop_array_branch": (
        "def f(x):\n    acc = 0\n    for i in range(4):\n        if acc < x:\n            acc = acc + 1\n    return acc\n",
        [ALL],
    ),
    "tuple_loop": (
        # `acc = 0` or items of mixed kinds: test_fuzz_findings.py::int-phi-meets-float, mixed-tuple-loop (open bugs)
        "COEFFS = (1.0, -2.0, 0.5, 3.0)\n\ndef f(x):\n    acc = 0.0\n    for c in COEFFS:\n        acc = acc * x + c\n    return acc\n",
        [ALL],
    ),
    "nested_loops": (
        "def f(x):\n    acc = 0.0\n    for i in range(3):\n        for j in range(1, 4, 2):\n            acc = acc + x * j - i\n"
        "    return acc\n",
        [ALL],
    ),
    # builtins
    "min_max": ("def f(a, b):\n    return min(a, b) * 3 + max(b, a, 0)\n", [ALL, ALL]),
    "min_max_nan_order": ("def f(a, b):\n    return min(a, b) - max(b, a) * 2.0\n", ["f", "f"]),
    "casts": ("def f(a):\n    return int(a) + round(a) + float(a) + bool(a)\n", ["fib"]),
    "bool_cast": ("def f(a):\n    return bool(a)\n", [ALL]),
    "float_cast": ("def f(a):\n    return float(a) / 3.0\n", [ALL]),
    # math
    "math_exact": (
        "import math\n\ndef f(x):\n    return math.sqrt(abs(x)) + math.fabs(x) + math.degrees(x) + math.radians(x)\n",
        [ALL],
    ),
    "math_rounding": ("import math\n\ndef f(x):\n    return math.floor(x) + math.ceil(x) * 10 + math.trunc(x) * 100\n", ["f"]),
    "math_predicates": (
        "import math\n\ndef f(x):\n    return math.isnan(x) + math.isinf(x) * 2 + math.isfinite(x) * 4\n",
        [ALL],
    ),
    "math_transcendental": (
        "import math\n\ndef f(x):\n    y = abs(x) + 1.0\n    return (math.exp(-y) + math.log(y) + math.sin(x) + math.cos(x) + math.atan(x)"
        " + math.tanh(x) + math.asinh(x) + math.log1p(abs(x)) + math.acosh(y) + math.atanh(0.5 / y))\n",
        [ALL],
    ),
    "math_domain": ("import math\n\ndef f(x):\n    return math.sqrt(x) + math.log(x) + math.asin(x)\n", [ALL]),
    "math_binary": (
        "import math\n\ndef f(x, y):\n    return math.atan2(x, y) + math.hypot(x, y) + math.copysign(1.5, y) + math.log(abs(x) + 1.0, 2.0)\n",
        [ALL, ALL],
    ),
    "math_constants": ("import math\n\ndef f(x):\n    return x * math.pi + math.e - math.tau + (x < math.inf)\n", [ALL]),
    # helpers, lambdas, closures, globals (D7, D8)
    "helper": (
        "def dist(a, b):\n    if a > b:\n        return a - b\n    return b - a\n\ndef f(x, y):\n    return dist(x, y) + dist(b=1.0, a=x)\n",
        [ALL, ALL],
    ),
    "lambda": ("def f(x):\n    sq = lambda t: t * t\n    return sq(x) + sq(x + 1)\n", [ALL]),
    "nested_def": (
        "def f(x, y):\n    def inner(t):\n        if t > 0:\n            return t + y\n        return t - y\n    return inner(x) * 2\n",
        [ALL, ALL],
    ),
    "globals": (
        "SCALE = 2.5\nOFFSET = 3\nFLAG = True\nWEIGHTS = (0.25, 0.5, 0.25)\n\ndef f(x):\n    total = x * SCALE + OFFSET\n"
        "    for i in range(3):\n        total = total + WEIGHTS[i] * (x - i)\n    if FLAG:\n        return total\n    return -total\n",
        [ALL],
    ),
}

_PREPARED = {}


def prepared(name):
    if name not in _PREPARED:
        source = FUNCTIONS[name][0]
        result, prep = check.prepare(source, _DIR)
        assert prep is not None, "\n".join(f.detail for f in result.failures)
        _PREPARED[name] = prep
    return _PREPARED[name]


def _explain(failures):
    lines = []
    for f in failures[:5]:
        if f.lane is not None:
            lines.append(f"{f.backend}: args={f.args!r} CPython={f.expected!r} vectorized={f.got!r} (dtype {f.dtype})")
        else:
            lines.append(f"{f.kind} on {f.backend}: {f.detail}")
    return "\n".join(lines)


#: Functions whose (derandomized) examples reach an open compiler bug, as strict xfails: remove
#: the entry with the fix.
OPEN_BUGS: dict[str, str] = {}


@pytest.mark.parametrize(
    "name",
    [pytest.param(n, marks=[pytest.mark.xfail(strict=True, reason=OPEN_BUGS[n])] if n in OPEN_BUGS else []) for n in sorted(FUNCTIONS)],
)
@given(data=st.data())
def test_matches_cpython(name, data):
    prep = prepared(name)
    cols = data.draw(columns(FUNCTIONS[name][1]), label="columns")
    result = check.compare(prep, cols, BACKENDS)
    assert not result.failures, _explain(result.failures)


def test_every_construct_is_covered():
    import ast

    seen = set()
    for source, _ in FUNCTIONS.values():
        for node in ast.walk(ast.parse(source)):
            seen.add(type(node).__name__)
            if isinstance(node, (ast.BinOp, ast.AugAssign, ast.UnaryOp, ast.BoolOp)):
                seen.add(type(node.op).__name__)
            if isinstance(node, ast.Compare):
                seen.update(type(op).__name__ for op in node.ops)
    wanted = {
        "Add", "Sub", "Mult", "Div", "FloorDiv", "Mod", "Pow", "USub", "UAdd", "Not", "And", "Or", "Lt", "LtE", "Gt",
        "GtE", "Eq", "NotEq", "IfExp", "If", "For", "Return", "AugAssign", "NamedExpr", "Lambda", "FunctionDef",
        "Subscript", "Tuple",
    }
    assert wanted <= seen, wanted - seen
    assert math.isnan(FLOAT_EDGES[-1])
