"""Bugs found by the grammar fuzzer that ``check_program``'s table in test_fuzz_findings.py cannot
hold: a result compared with CPython directly (where the fuzz model would explain the wrong value),
a rejection pinned where it stands, a process crash or hang checked in a subprocess, and a
finding under ``protect_domains``. Open ones are strict xfails, as there."""

from __future__ import annotations

import numpy as np
import pytest

from array_vectorize.fuzz import check
from array_vectorize.fuzz.inputs import Column
from findings import B, COMPILER, F, U


#: A tranche's notional: the tranche number (an int, through math.ceil) times 2**62, past int64.
TRANCHES = (
    "import math\n\n"
    "def f(rate):\n"
    "    for tranche in range(4):\n"
    "        whole = math.ceil(tranche)\n"
    "        rate = 0.5 - whole * 4611686018427387904\n"
    "    return rate\n"
)


@pytest.mark.parametrize("backend", ["numpy", "strict"])
def test_math_ceil_of_an_int_loop_index_stays_exact(backend, tmp_path):
    """``math.ceil`` of an int cannot fail and gives the int itself: plain Python, exact (item
    16), so ``3 * 2**62`` does not wrap as it would on a 0-d int64 array. The check's model
    explains the wrapped value from the IR, so this compares with CPython directly."""
    _, prepared = check.prepare(TRANCHES, str(tmp_path), "f", None)
    xp = check.backends([backend])[backend]
    got = np.asarray(prepared.vec(xp.asarray([1.0, -2.0]))).tolist()
    expected = 0.5 - 3 * 4611686018427387904
    assert got == [expected, expected]
    assert "ceil" not in prepared.vec.source


#: Found by fuzz campaign 54 (seed 530103 #1121, #1720) and campaign 57 (seed 540001 #80): a raise
#: site in a `while` loop's test (a helper's raise, D11; a recursion's residue, D19, whose elements
#: may raise), which the loop evaluates again after its body, failed lowering's IR check (an
#: InternalError at decoration), then was rejected at the test. Now the loop is lowered with its
#: test atop its body (D12): each element raises where CPython raises it, as CPython.
WHILE_TEST_RAISES = [
    pytest.param(
        "def chk(a, n):\n    if a > 24.0:\n        raise ValueError('big')\n    return a + n\n\n"
        "def f(p3):\n    w = 0\n    while chk(p3, w) < 20 + w:\n        w += 1\n    return w\n",
        [Column(F, [20.0, 25.0, 22.5, float("nan"), float("inf"), 30.0, 21.0, 24.0])],
        id="raise-site-in-a-while-test",
    ),
    pytest.param(
        "def r0(a, n):\n    if not 0.0 < n <= 12.0:\n        return a - 0.0\n    return r0(a + 2.0, n - 1)\n\n"
        "def f(p3):\n    w = 0\n    while r0(p3, w) < 20 + w:\n        w += 1\n    return w\n",
        [Column(F, [8.0, 9.5, 12.0, 19.0, 25.0, float("nan"), float("inf"), 1e300, 15.0])],
        id="recursion-residue-in-a-while-test",
    ),
    pytest.param(
        "def r0(a, n):\n    if not 0.0 < n <= 12.0:\n        return 0\n    return r1(0, n - 1)\n\n"
        "def r1(a, n):\n    return r0(0, n - 1)\n\n"
        "def f(p0, p1, p2, p3):\n    g1 = lambda t, s: r1(0, 0 % 1.0)\n    w2 = 0\n"
        "    while w2 < 1 and g1(0.5, 0):\n        w2 += 1\n        v7 = 0\n    return 0\n",
        [Column(B, [True, False, True]), Column(U, [7, 0, 2**64 - 1]), Column(F, [5.0, -0.0, float("nan")]), Column(U, [0, 1, 3])],
        id="lambda-reaching-a-recursion-residue-in-a-while-test",
    ),
]


@pytest.mark.parametrize("source, columns", WHILE_TEST_RAISES)
def test_a_while_test_that_can_raise_matches_cpython(source, columns, tmp_path):
    result = check.check_program(source, columns, check.backends(["numpy", "strict"]), str(tmp_path), nan_on_raise=True)
    assert not result.failures, [f"{f.backend} {f.expected!r} {f.got!r} {f.detail}" for f in result.failures]
    assert result.lanes > 0


#: Found by fuzz campaign 70 (seed 670002 #902): with nan_on_raise=True, the float conversion of
#: an int beyond the float range in a `try` body (item 17), read only by a raise site's message
#: (the division's), was inlined into that message, which nan_on_raise never builds: the call
#: returned 0.0 where CPython raises OverflowError on every element. It raises item 17's
#: OverflowError at call time now, as without the option.
CONVERSION_IN_A_MESSAGE = (
    "def f(p0):\n    try:\n        v3 = (1.0 - 2 ** 1100) // p0\n    except ValueError:\n        v3 = 0\n"
    "    return 0\n"
)


def test_a_conversion_beyond_the_float_range_read_by_a_message_only_raises_with_nan_on_raise(tmp_path):
    columns = [Column(F, [1.0, 0.0, -2.5])]
    result = check.check_program(CONVERSION_IN_A_MESSAGE, columns, check.backends(["numpy", "strict"]), str(tmp_path), nan_on_raise=True)
    assert not result.failures, [f"{f.backend} {f.expected!r} {f.got!r} {f.detail}" for f in result.failures]
    _, prepared = check.prepare(CONVERSION_IN_A_MESSAGE, str(tmp_path), "f", None, nan_on_raise=True)
    with pytest.raises(OverflowError, match="int too large to convert to float"):
        prepared.nan_vec(np.array([1.0, 0.0, -2.5]))


#: Found by fuzz campaign 70 (seed 670010 #57, #675): a helper returning a tuple, called with a
#: constant its `int()` or `round()` cannot convert (items 7 and 17: every lane raises), was
#: merged into the caller as a helper that may return, so unpacking its result found no tuple
#: and the program was rejected. The call now raises as a `raise` statement there.
EVERY_PATH_RAISES = [
    pytest.param(
        "def h1(a):\n    a = int(a)\n    return (0, 0, 0)\n\ndef f(p1):\n    v8, v9, v10 = h1(1e+300)\n    return 0\n",
        id="int-of-a-constant-beyond-int64",
    ),
    pytest.param(
        "import math as pymath\n\ndef h0(a, b, c):\n    v1 = round(c)\n    return (0, 0)\n\n"
        "def f(p0):\n    v12, v13 = h0(0, 0, pymath.inf)\n    return 0\n",
        id="round-of-infinity",
    ),
]


@pytest.mark.parametrize("source", EVERY_PATH_RAISES)
def test_a_helper_raising_on_every_path_unpacked_as_a_tuple(source, tmp_path):
    columns = [Column(F, [0.0, 2.5])]
    result = check.check_program(source, columns, check.backends(["numpy", "strict"]), str(tmp_path))
    assert not result.failures, [f"{f.kind} {f.backend} {f.expected!r} {f.got!r} {f.detail}" for f in result.failures]
    _, prepared = check.prepare(source, str(tmp_path), "f", None)
    with pytest.raises(OverflowError):
        prepared.vec(np.array([0.0, 2.5]))


#: Programs that crashed or hung the process (a compiler stack overflow, the oracle computing an
#: unbounded power): checked in a subprocess, with a time limit.
PROCESS_CRASHES = [
    pytest.param(
        "def f(p0):\n    v2 = 0\n    for i3 in range(0, 1):\n        if i3:\n            v2 = p0\n    return v2\n",
        [Column(F, [-0.0, 1.0])],
        # Fixed: unbounded recursion through a loop variable in the result-shape analysis.
        id="segfault-loop-index-if-assigns-param",
    ),
    pytest.param(
        "def f(p0):\n    if p0 > 0:\n        return 1.0\n    if 3 ** 9223372036854775807 > 0:\n        return 2.0\n    return 3.0\n",
        [Column(F, [1.0, -1.0])],
        # Fixed (fuzz oracle, fuzz/oracle.py): the oracle's test of whether the compiler decides
        # an `if` statically evaluated 3 ** (2**63 - 1) and never returned (seed 8, program 202).
        id="oracle-hang-on-huge-power-test",
    ),
]

_IN_SUBPROCESS = """
import pickle, sys
from array_vectorize.fuzz import check
source, columns = pickle.load(open(sys.argv[1], "rb"))
result = check.check_program(source, columns, check.backends(["numpy", "strict"]), sys.argv[2])
sys.exit(1 if result.failures else 0)
"""


@pytest.mark.parametrize("source, columns", PROCESS_CRASHES)
def test_fuzz_finding_process_crash(source, columns, tmp_path):
    import pickle
    import subprocess
    import sys

    case_file = tmp_path / "case.pickle"
    case_file.write_bytes(pickle.dumps((source, columns)))
    done = subprocess.run([sys.executable, "-c", _IN_SUBPROCESS, str(case_file), str(tmp_path)], capture_output=True, timeout=120)
    assert done.returncode == 0, f"exit code {done.returncode}\n{done.stderr.decode()[-2000:]}"


def test_protect_domains_divisor_of_a_mixed_max(tmp_path):
    """Fuzz campaign 53 (seed 271003 #1389), a checker gap, fixed: `max(0, 0.0)` is CPython's
    int 0, held as float64 (item 8); with protect_domains the protected divisor is a float64
    array and `0 // 0.0` is nan, item 8's float rule. The checker judged that run with the IR of
    the compile without protect_domains, whose model gave item 2's 0; it now reads the IR of the
    protect_domains compile (`Prepared.protected_models`)."""
    source = "def f(p1):\n    if p1:\n        return 0 // (max(0, 0.0) % 0)\n    return 0\n"
    names = check.backends(["numpy", "strict"])
    result = check.check_program(source, [Column(F, [1.0, 0.0])], names, str(tmp_path), protect_domains=True)
    assert not result.failures, [f"{f.backend} {f.expected!r} {f.got!r}" for f in result.failures]


_MODE = "import enum\n\n\nclass Mode(enum.Enum):\n    FAST = 1\n    SLOW = 0\n\n\n"

#: A `math` or NumPy constant read through a name, merged by an `if` (the merged value is named
#: after the name in the decorator's text). Fuzz seed 713001 #1995 (issue 30's specialisation
#: campaign), then its neighbours: by name, under an alias, as `np.pi`, from `math`, merged by a
#: uniform `if` (an Enum parameter, after a dead `if 0:`) or a live one (per element).
NAMED_CONSTANTS = {
    "713001-1995 numpy alias, uniform if after if 0": "from numpy import inf as np_inf\n" + _MODE
    + "def f(p0, p1, mode):\n    if 0:\n        return p0\n    elif mode is not Mode.FAST:\n        return np_inf\n    return p1\n",
    "numpy by name, uniform if after if 0": "from numpy import pi\n" + _MODE
    + "def f(x, mode):\n    if 0:\n        return x\n    elif mode is Mode.FAST:\n        return pi\n    return x\n",
    "np.pi under import numpy as np, uniform if after if 0": "import numpy as np\n" + _MODE
    + "def f(x, mode):\n    if 0:\n        return x\n    elif mode is Mode.SLOW:\n        return np.pi\n    return x\n",
    "math alias, uniform if after if 0": "from math import pi as PI\n" + _MODE
    + "def f(x, mode):\n    if 0:\n        return x\n    elif mode is not Mode.SLOW:\n        return PI\n    return x\n",
    "numpy alias, both sides of a live if after if 0": "from numpy import inf as big\n\n\n"
    "def f(x):\n    if 0:\n        return x\n    elif x > 0:\n        return big\n    return -big\n",
    "numpy by name, live if": "from numpy import pi\n\n\ndef f(x):\n    if x > 1.5:\n        r = pi\n    else:\n        r = x\n    return r * 2.0\n",
    "math alias, both sides of a live if": "from math import pi as PI, tau\n\n\n"
    "def f(x):\n    if x >= 0.0:\n        return PI\n    return tau\n",
}


@pytest.mark.parametrize("name", sorted(NAMED_CONSTANTS))
def test_a_constant_read_through_a_name_is_named_alike_by_the_static_compile(name, tmp_path):
    """Fuzz seed 713001 #1995 (a `paths` failure, no wrong value), fixed: the decorator reads a
    name bound to a NumPy or `math` constant as the live number (`Binding::Const`), named after
    the name (`tmp, np_inf = True, xp.inf`); the static compile of the import hook and the build
    backend read the import's text (a member of the module), and named the value `tmp_1`. Their
    texts must be the same byte for byte (src/lower/free_names.rs, `named_constant`)."""
    result, prepared = check.prepare(NAMED_CONSTANTS[name], str(tmp_path), "f")
    assert prepared is not None, [f.detail for f in result.failures]
    assert not [f.detail for f in result.failures], [f.detail for f in result.failures]
