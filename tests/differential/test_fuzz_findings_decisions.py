"""Bugs found by the grammar fuzzer, as minimized reproducers (conventions in findings.py): a value
of one kind where another is expected, uniform values (D14), NumPy calls (D16), raises (D11), and
programs of the supported language rejected.
"""

from __future__ import annotations

import math

import pytest

from array_vectorize.fuzz.inputs import Column, ModuleRef
from findings import B, F, I, O, U, assert_matches_cpython, case

CASES = [
    # ---- kinds: a value of one kind where another is expected ----
    case(
        "scalar-phi-result",
        "def f(p0, p1):\n    for i1 in range(4):\n        p1, p0 = (0, p1)\n    return p0\n",
        [Column(F, [1.0, 2.0]), Column(F, [3.0, 4.0])],  # CPython 0 for every element; vectorized the int 0
        "scalar-as-array: a loop-carried variable that ends as a constant is returned as a Python scalar",
    ),
    case(
        "scalar-if-result-shape",
        "def f(p0, p1, p2):\n    if 0 % 1.0:\n        if 0 != p0:\n            return p1 if p2 else 0\n    return 0\n",
        [Column(F, [1.0, 2.0]), Column(F, [1.0, 2.0]), Column(F, [1.0, 2.0])],  # vectorized: shape ()
        "scalar-as-array: a Python-level `if` on a constant merges 0-d values (result not broadcast)",
    ),
    case(
        "astype-of-python-bool",
        "def f(p1, p2):\n    for i1 in range(4):\n        p2 = (0 >= p1) / 1\n        p1 = 0\n    v6 = p2\n    return v6\n",
        [Column(F, [0.0, 1.0]), Column(F, [0.0, 1.0])],  # CPython 1.0; vectorized AttributeError
        "scalar-as-array: xp.astype applied to a Python bool",
    ),
    case(
        "bool-phi-in-arithmetic",
        "def f(p1):\n    p1 = not p1\n    for i6 in range(0, 1):\n        v8 = -p1\n        p1 %= 1\n    if not v8:\n"
        "        return 1\n    return 0\n",
        [Column(F, [0.0, 1.0])],  # CPython 0, 1; vectorized TypeError (`-` of a bool array)
        "bool-arith: a phi starting as a bool is used as an int without conversion",
    ),
    case(
        "python-bool-in-float-body",
        "def f(p2, p3):\n    for i1 in range(0, 1):\n        p2 = True\n    return p3 - p2\n",
        [Column(F, [0.0, 1.0]), Column(F, [2.0, 3.5])],  # CPython 1.0, 2.5; strict TypeError
        "strict-promotion: a Python bool reaches a plain float-array operator",
        backends=("strict",),
    ),
    case(
        "tuple-of-int-and-bool-in-where",
        "T0 = (0, 0, False, 0)\n\ndef f(p2):\n    for c1 in T0:\n        if p2 == 0:\n            return c1\n    return 0\n",
        [Column(F, [0.0, 1.0])],
        "strict-promotion: a tuple item of another kind than the tuple's joined kind in xp.where",
        backends=("strict",),
    ),
    case(
        "int-phi-meets-float",
        "def f(n):\n    acc = 1\n    for i in range(1, 5):\n        acc = acc * 3 + n % (i + 1)\n    return acc\n",
        [Column(F, [0.0, 2.5])],  # strict: int64 array + float64 array (the int phi is not converted)
        "strict-promotion: a loop-carried int that becomes a float stays an int64 array in the float body",
        backends=("strict",),
    ),
    case(
        "mixed-tuple-loop",
        "COEFFS = (1.0, -2, 0.5, True)\n\ndef f(x):\n    acc = 0.0\n    for c in COEFFS:\n        acc = acc * x + c\n    return acc\n",
        [Column(F, [0.0, 2.0])],  # strict: float64 array + the Python bool True (the item is not converted)
        "strict-promotion: a tuple item of another kind than the tuple's joined kind reaches a plain operator",
        backends=("strict",),
    ),
    case(
        "math-of-int-through-max",
        "import math\nT1 = (1, 1, 7)\n\ndef f(p0):\n    return math.atan2(max(1.0, T1[-1]), 0)\n",
        [Column(I, [0, 1])],  # CPython atan2(7, 0); strict TypeError (int64 array to atan2)
        "merge-kind: max() of Python scalars infers float but gives an int, passed to a float-only function",
        backends=("strict",),
    ),
    case(
        "math-of-bool-through-ternary",
        "import math\n\ndef f(p2):\n    b4 = p2 > 0\n    return math.tanh(b4 if 9007199254740993 != 1.0 else 1.0)\n",
        [Column(F, [-1.0, 1.0])],  # CPython tanh(False), tanh(True); NumPy float16, strict TypeError
        "merge-kind: a bool reaches tanh through a ternary whose kind is float",
    ),
    case(
        "min-of-scalars-merged-into-asin",
        "import math\n\ndef f(p0):\n    return math.asin(1 if p0 else min(0, 2.0))\n",
        [Column(I, [0, 1])],  # CPython asin(0), asin(1); strict TypeError (int64 array to asin)
        "merge-kind: a merge of Python ints whose kind is float reaches a float-only function",
        backends=("strict",),
    ),
    case(
        "tuple-item-int-truediv",
        "T0 = (0, 0, 0, 0.5)\n\ndef f(p0):\n    for c5 in T0:\n        if p0 > 1.0:\n            return (c5 if p0 else 0) / 2\n"
        "    return 0\n",
        [Column(F, [0.0, 2.0])],  # CPython 0, 0.0; strict TypeError (int64 array / 2)
        "merge-kind: an int item of a mixed tuple merged by a select stays int64 under a true division",
        backends=("strict",),
    ),
    case(
        "loop-phi-scalar-zero-division",
        "def f(p0):\n    for i2 in range(0, 6):\n        if 0 != 0 // p0:\n            pass\n        else:\n            return 0\n"
        "        p0 = 0\n    return 0\n",
        [Column(F, [1.0, 2.0])],  # CPython 0, 0; vectorized ZeroDivisionError (later iterations: 0 // 0.0 on a scalar)
        "scalar-raise: a loop-carried variable that becomes a Python scalar is divided eagerly in later iterations",
    ),
    case(
        "bool-power",
        "def f(p0):\n    if min(1, False) ** 1 <= 1:\n        pass\n    else:\n        return 0\n    return 0\n",
        [Column(I, [0])],  # CPython 0; strict TypeError (bool array ** 1) in the exact body
        "bool-arith: min() of Python scalars gives a bool 0-d array, raised to a power as is",
        backends=("strict",),
    ),
    case(
        "negative-nan-constant",
        "import math\n\ndef f(p2):\n    for i1 in range(0, 1):\n        v2 = -math.nan\n    if i1:\n        pass\n"
        "    elif 0:\n        pass\n    return math.copysign(1, v2)\n",
        [Column(F, [0.0, 1.0])],  # CPython -1.0; the folded -nan was printed as xp.nan: 1.0
        "constants: a NaN constant lost its sign bit in codegen (seed 31, program 80)",
    ),
    # ---- D14: uniform values ----
    case(
        "uniform-number-lifted-as-bool",
        "def f(p0, rates):\n    v2 = rates['low']\n    return v2 ** 0\n",
        [Column(F, [1.0, -2.0]), Column(O, [{"low": 0.5}], True)],  # CPython 1.0; vectorized int64 1
        "codegen: a number read from a uniform dict (kind unknown) became xp.asarray(v, dtype=xp.bool) "
        "(seed 3, program 280)",
    ),
    case(
        # Campaign 57, seed 540005, program 330 (and 540003 #1910): a helper's message formats
        # its argument, a uniform dict's item read in the loop; rejected ("not ... a uniform
        # value the loop computes") though the read is the same on every iteration.
        "message-of-a-uniform-item-read-in-a-loop",
        # (The helper raises on some lanes here, on all in the finding.)
        "def r1(a, n):\n    if n:\n        raise ValueError(f'a={a}')\n    return 0\n\n"
        "def f(p2, rates):\n    for i3 in range(0, 1):\n        if r1(rates['low'], p2):\n            pass\n    return 0\n",
        [Column(I, [0, 3, 0]), Column(O, [{"low": -1.5, "high": -0.25}], True)],  # CPython ValueError('a=-1.5')
        "raise in a loop: a uniform item the body reads was taken for one the loop computes",
    ),
    case(
        "message-of-a-uniform-item-and-a-number-in-a-loop-on-some-lanes",
        "def capped(a, x):\n    if x > a:\n        raise ValueError(f'{x} is over the cap {a}')\n    return x\n\n"
        "def f(x, rates):\n    total = 0.0\n    for k in range(3):\n        total += capped(rates['cap'], x * k)\n    return total\n",
        [Column(F, [0.5, -1.0, 0.0, 1.5, 3.0]), Column(O, [{"cap": 2.0}], True)],  # 1.5 and 3.0 raise
        "raise in a loop: a uniform item the body reads was taken for one the loop computes",
    ),
    case(
        # Campaign 57, seed 540005, program 398: the same with an Enum member's attribute, in a
        # `while` loop whose body breaks before the call.
        "message-of-a-uniform-attribute-read-in-a-while-loop",
        "import enum\n\nclass Mode(enum.Enum):\n    FAST = 1\n    SLOW = 2\n    EXACT = 3\n\n"
        "def r2(a, n):\n    if 0:\n        return 0\n    raise ValueError(f'a={a}')\n\n"
        "def f(p2, mode, cap):\n    w1 = 0\n    while True:\n        w1 += 1\n        if w1 > 0:\n            break\n"
        "        if r2(mode.value, 0):\n            pass\n    l7 = [0, cap is not None]\n    return 0\n",
        [Column(I, [0, 5]), Column(O, [ModuleRef("Mode", "EXACT")], True), Column(O, [0.5], True)],  # CPython 0
        "raise in a loop: a uniform attribute the body reads was taken for one the loop computes",
    ),
    case(
        # Campaign 57, seed 540003, program 1910.
        "message-of-a-uniform-item-read-in-a-while-loop-in-a-tuple-loop",
        "T1 = (1, 0)\n\ndef r0(a):\n    if 1:\n        raise ValueError(f'a={a}')\n    return 0\n\n"
        "def f(p0, rates):\n    for c3 in T1:\n        w4 = 0\n        while True:\n            w4 += 1\n"
        "            if w4 > 0:\n                break\n            v5 = 0\n            v6 = r0(rates['low'])\n"
        "            return 0\n    return 0\n",
        [Column(F, [0.0, 2.5]), Column(O, [{"low": 0.5, "high": 10.0}], True)],  # CPython 0
        "raise in a loop: a uniform item the body reads was taken for one the loop computes",
    ),
    case(
        # The inner loop does not run in the last outer iteration: its phi of the item starts
        # from the outer loop's, so the message of a lane that raised in the first still reads it.
        "message-of-a-uniform-item-read-in-a-loop-that-stops-running",
        "def over(limit, x):\n    if x > limit:\n        raise ValueError(f'{x} is over {limit}')\n    return x\n\n"
        "def f(x, rates):\n    total = 0.0\n    for k in range(3):\n        j = 0\n        while j < 2 - k:\n"
        "            total += over(rates['limit'], x + j)\n            j += 1\n    return total\n",
        [Column(F, [0.5, 5.0, -2.0, 3.5]), Column(O, [{"limit": 4.0}], True)],  # 5.0 and 3.5 raise
        "raise in a loop: a uniform item the body reads was taken for one the loop computes",
    ),
    case(
        # 750008 #1123 (campaign 77), minimized: the helper's parameter `rates['high']` is
        # computed in the inner `for` under `if i2:` (a Python `if` on the loop index), so not on
        # every iteration; it was rejected as a uniform value the loop computes. The loop now
        # carries the last one computed, merged at the `if` with the value carried so far.
        "message-of-a-helper-s-uniform-item-under-an-if-on-a-loop-index",
        "import enum\n\nclass Mode(enum.Enum):\n    EXACT = 1\n    FAST = 2\n\n"
        "def r0(a, n):\n    if 0:\n        return 0\n    raise ValueError(f'a={a}')\n\n"
        "def f(p2, rates, mode):\n    w1 = 0\n    while w1 < 1:\n        w1 += 1\n"
        "        for i2 in range(0, 1, 1):\n            if i2:\n                p1 = r0(rates['high'], 0)\n"
        "            b3 = mode.value\n    return 0\n",
        [Column(F, [0.0, -1.5]), Column(O, [{"low": 3, "high": 1e300}], True), Column(O, [ModuleRef("Mode", "EXACT")], True)],
        "raise in a loop: a uniform item computed under an if on a loop index was taken for one the loop computes",
    ),
    case(
        # The same where the branch runs and some lanes raise in it (the others go on).
        "message-of-a-helper-s-uniform-item-under-an-if-on-a-loop-index-that-raises",
        "def r0(a, n):\n    if n > 1.0:\n        raise ValueError(f'a={a} n={n}')\n    return n\n\n"
        "def f(p2, rates):\n    w1 = 0\n    while w1 < 2:\n        w1 += 1\n"
        "        for i2 in range(0, 3, 1):\n            if i2:\n                p2 = r0(rates['high'], p2 + i2 * w1)\n"
        "    return p2\n",
        [Column(F, [0.0, -1.5, 0.5, -9.0, 2.0]), Column(O, [{"low": 3, "high": 1e300}], True)],
        "raise in a loop: a uniform item computed under an if on a loop index was taken for one the loop computes",
    ),
    case(
        "enum-annotation-without-a-read-of-the-class",
        "import enum\n\nclass Mode(enum.Enum):\n    FAST = 1\n    SLOW = 2\n\n"
        "def f(x, mode: Mode):\n    return x * 2.0\n",
        [Column(F, [1.0, -2.0]), Column(O, [ModuleRef("Mode", "SLOW")], True)],
        # CPython [2.0, -4.0]; vectorized TypeError "argument 2 has unsupported type Mode": the
        # decorator's environment held only the names the body reads, not the annotation's class.
        "environment: an Enum class named only by an annotation was not bound (seed 1, program 36)",
    ),
    # ---- D16: NumPy calls ----
    case(
        "numpy-sign-of-a-float-constant",
        "import numpy as np\n\ndef f(x):\n    if x > 0.5:\n        return 2\n    if 0 % np.sign(0.0):\n        return 1\n"
        "    return 0\n",
        [Column(F, [0.0, 1.0])],  # CPython (NumPy) 1, 2: 0 % 0.0 is nan; vectorized 0, 2
        "lower/calls/numpy.rs: np.sign's int constants folded np.sign(0.0) to the int 0 (seed 11, program 343)",
    ),
    case(
        "numpy-power-half-in-the-exact-body",
        "import numpy as np\n\ndef f(x, n):\n    return np.power(x, 0.5) + n * 0\n",
        [Column(F, [-math.inf, 4.0]), Column(I, [1, 2])],
        # NumPy: np.power(-inf, 0.5) is nan (D16); the exact body (an int argument) gave
        # CPython's pow, inf (the float fast path gave nan); now both compute sqrt
        "D16: np.power(x, 0.5) follows CPython's pow in the helpers' body (seed 13, program 353)",
    ),
    case(
        "constant-if-returning-in-a-while-loop",
        "def f(p2):\n    if p2 > 0:\n        w1 = 0\n        while True:\n            w1 += 1\n            if w1 > 0:\n"
        "                break\n            if 1:\n                return 0\n            else:\n                v4 = 0\n"
        "            v5 = v4\n    return p2\n",
        [Column(F, [1.0, -1.0])],  # CPython [1.0, -1.0]; VectorizationError "`v4` may be undefined here"
        "undefined-after-scalar-return: after a constant `if` that returns, inside a `while True` loop, the "
        "else branch's names are taken as maybe undefined (seed 12, program 111; seed 77068260, program 67)",
    ),
    # ---- D11 ----
    case(
        "try-remainder-by-zero-of-a-python-float-argument",
        "def f(p1, p3):\n    try:\n        v2 = p3 % p1\n    except (ValueError, OverflowError):\n"
        "        raise ValueError(0)\n    return p1\n",
        [Column(F, [1.0, 0.0]), Column(F, [0.0], True)],
        # CPython ZeroDivisionError('float modulo') at element 0; vectorized RuntimeError "internal
        # error: a lane marked as raising computes np.float64(nan)": the site re-ran `%` on the
        # argument as the float path lifted it, a NumPy float64 (seed 577215, program 22)
        "runtime/raises.py: a lane's value was the NumPy scalar, not the Python float",
    ),
    case(
        "message-of-a-uint64-lattice-value",
        "def f(p0, p2):\n    if p0 <= 0:\n        p2 = p0\n    assert p2 > -5, f'p2={p2}'\n    return 0\n",
        [Column(U, [1, 1]), Column(I, [-1, -7])],
        # CPython AssertionError('p2=-7') at element 1; vectorized AttributeError "'LatticeInt'
        # object has no attribute 'dtype'" (seed 173205, program 774)
        "runtime/raises.py: a message operand of the uint64 lattice (item 13) was read as an array",
    ),
    case(
        "exact-body-constant-division-by-zero-raises",
        "def f(p2, q):\n    if q > 0.0:\n        return q\n    p2 += 0 % True / 0\n    return p2\n",
        [Column(B, [True, False]), Column(F, [1.0, -1.0])],
        # CPython (D3) nan, nan; the helpers' body computes `0 % True / 0` in Python at call time:
        # ZeroDivisionError (the float body uses a 0-d array, item 16) (seed 707107, program 36)
        "scalar-raise: constant arithmetic evaluated eagerly in Python in the helpers' body",
    ),
    case(
        "float-cast-of-a-loop-phi-dropped-in-the-exact-body",
        "import math\nimport numpy as np\n\ndef f(p0, p1, p2, cap):\n    p2 = 1\n    for i2 in range(-1, 0):\n"
        "        p0 = float(p2)\n        if p1:\n            p2 = np.minimum(abs(p0), math.radians(p1)) and "
        "abs(cap if cap is not None else 2) + (p0 - p1)\n    return 0 % (p0 - (p1 + 3))\n",
        [Column(F, [3.0, 3.0]), Column(I, [2**63 - 1, 5]), Column(F, [6.0, 6.0]), Column(O, [None], True)],
        # CPython -0.0, -0.0 (p0 is float(1)); the helpers' body assigns p0 the int64 phi of p2
        # without float(): int64 0, 0 (seed 707107, program 278)
        "loop phi: `p0 = float(p2)` of an int-initialised phi loses the float() in the exact body",
    ),
    case(
        "folded-math-test-of-an-inlined-constant-beside-a-python-if",
        "import math\n\ndef check(a):\n    if math.isnan(a):\n        pass\n    elif a == 0:\n        pass\n"
        "    return 0\n\ndef f(p1):\n    v9 = check(min(0, 1))\n    return p1 * 2\n",
        [Column(I, [0, -3])],
        # CPython [0, -6]; InternalError "invalid IR after cse: the branch on %7 is not on a
        # scalar": `not math.isnan(0)` folded to an array True, which cse took for the scalar True
        # of `a == 0` the Python `if` branches on (seed 100001, program 1950)
        "rewrite/cse.rs: constants of the same value but different shapes were one",
    ),
    case(
        "loop-returning-on-every-lane-that-stayed-after-a-partial-break",
        "T0 = (0, 0, 1, 0)\n\ndef f(p3):\n    for i1 in range(-1, 0):\n        if 1:\n            if p3:\n"
        "                break\n            for c5 in T0:\n                return 0\n        else:\n"
        "            v9 = 0\n        b10 = v9\n    return p3 + 1.5\n",
        [Column(F, [0.0, 1.0, -0.0])],
        # CPython [0, 2.5, 0]; VectorizationError "`v9` may be undefined here": after the inner
        # loop every lane has broken or returned, but its read was lowered (seed 100006, program 714)
        "lower/control/array_if.rs: a loop after a partial break that returns on every staying lane did not end the path",
    ),
    case(
        "loop-returning-on-every-lane-that-stayed-after-a-partial-continue",
        "import math\nT0 = (0, 0)\n\ndef f(p0):\n    for i1 in range(0, 1):\n        if 1:\n"
        "            if math.log(abs(p0)) > 0:\n                continue\n            for c3 in T0:\n                return 0\n"
        "        else:\n            v5 = 0\n        return v5\n    return p0\n",
        [Column(F, [0.5, 3.0, -4.0, 1.0])],
        # CPython [0, 3.0, -4.0, 0]; VectorizationError "`v5` may be undefined here" (seed 98004,
        # program 1001, with math.log(0) made a per-lane test)
        "lower/control/array_if.rs: the same after a partial continue",
    ),
    # ---- D11: raises the compiler rejects (open) ----
    case(
        "raise-then-uniform-if-returns",
        "def f(x, label: str):\n    if x > 3.5:\n        raise ValueError(f'x={x}')\n"
        "    if label == 'a':\n        return x * 2.0\n    return x\n",
        [Column(F, [1.0, 2.0]), Column(O, ["a"], True)],  # CPython [2.0, 4.0]; was rejected
        "raise-scalar-block: a Python `if` that returns after a raise is rejected (seed 1, program 21)",
    ),
    case(
        "raise-inside-uniform-if",
        "def f(x, cap: float | None):\n    if cap is not None:\n        if x > cap:\n"
        "            raise ValueError('over the cap')\n    return x\n",
        [Column(F, [1.0, 2.0]), Column(O, [4.0], True)],  # CPython [1.0, 2.0]; was rejected
        "raise-scalar-block: a raise inside a Python `if` (a uniform test) is rejected (seed 1, program 44)",
    ),
    case(
        "try-under-a-uniform-if",
        "def f(p1, rates):\n    if rates['high']:\n        try:\n            v6 = 1.0 / p1\n"
        "        except ZeroDivisionError:\n            v6 = 0.0\n        return v6\n    return 0.0\n",
        [Column(F, [0.0, 2.0]), Column(O, [{"low": 1.0, "high": 2.0}], True)],  # CPython [0.0, 0.5]; rejected
        "raise-scalar-block: a try under a Python `if` (a uniform test) is rejected as if in a loop "
        "(seeds 310007 #969, 310009 #1323)",
    ),
    case(
        # Seed 1, program 376, once raises compiled inside loops: the raise entry's condition
        # held the lanes that had left the iteration by `continue`, so they raised too (fixed in
        # raise.rs raise_on: the entry and the lanes done exclude them).
        "raise-in-a-loop-after-a-partial-continue",
        "def f(p2):\n    for i1 in range(0, 1):\n        if p2:\n            continue\n"
        "        raise ZeroDivisionError(0)\n    return 0\n",
        [Column(F, [1.0, float("nan"), -2.5])],  # CPython [0, 0, 0]; the vectorized call raised
        "raise in a loop: lanes that continued raised",
    ),
    case(
        # Seed 130001, program 550: every lane that reached the `try` raised, so its body's flow
        # was dead (Flow::dead) and stayed so: the `except` clause and the `break` after the
        # `try` were not lowered. (try_stmt.rs: each clause, and the merge, start live.)
        "try-whose-body-always-raises-in-a-while-loop",
        "def f(p1, p3):\n    w7 = 0\n    while True:\n        w7 += 1\n        if w7 > 1:\n            break\n"
        "        try:\n            v11 = 0 % 0\n        except ZeroDivisionError:\n            v11 = 0\n"
        "        if p1:\n            break\n    return w7 + p3\n",
        [Column(F, [1.0, 0.0, -0.0, 2.5]), Column(F, [0.0, 1.5, -2.0, 0.25])],
        # CPython [1.0, 3.5, 0.0, 1.25]; vectorized [2.0, 3.5, 0.0, 2.25]
        "try in a loop: a body that raises on every lane lost the clauses and what followed",
    ),
    case(
        # A guard for the fix above (rotating CI seed 88791618, program 82, found while making
        # it): the clause raises on every lane it catches, so the name the body assigns is read
        # after the `try` from the body's path only; it was "may be undefined" when the clause's
        # variables took part in the merge.
        "try-in-a-loop-whose-clause-raises-then-a-read-of-the-body-s-name",
        "def f(p2):\n    w7 = 0\n    while True:\n        w7 += 1\n        if w7 > 2:\n            break\n"
        "        try:\n            v13 = 6.0 / (p2 - 1.0)\n        except (ZeroDivisionError, ValueError):\n"
        "            raise ValueError(0)\n        return v13 + w7\n    return 0\n",
        [Column(F, [3.0, 0.0, -2.5, 1.0])],
        "try in a loop: a clause ending every lane it catches took part in the merge of the variables",
    ),
    case(
        # A guard for the same fix (campaign 13, seed 140002, program 774, on an attempt that
        # made the lanes outside the `if`'s path part of the `try`'s done mask, which is relative
        # to the path): "`f` can reach the end of its body without returning".
        "try-raising-uncaught-inside-an-array-if-then-return",
        "def f(p1, cap):\n    if p1:\n        if cap is None:\n            pass\n        try:\n"
        "            v10 = 1 / 0\n        except OverflowError:\n            v10 = 0\n        finally:\n"
        "            v11 = 0\n        return 0\n    else:\n        return 0\n",
        [Column(I, [0, 0, 0]), Column(O, [3], True)],
        "try inside an array if: the path-relative done mask of a body that always raises",
    ),
    case(
        # Campaign 15 (final tree), seed 160004, program 1135: on array-api-strict the merge of
        # the `except` clauses' values selects between NumPy's floor of a uint64-range literal
        # (uint64, item 13) and int(p1) (int64) with a plain `xp.where`, which array-api-strict
        # refuses to promote: TypeError where CPython raises ValueError('math domain error').
        # NumPy promotes to float64 and passes. The select was plain because the ranges analysis
        # took NumPy's rounding of a wide int for not wide (analysis/ranges.rs op_wide).
        "merge-of-a-uint64-constant-and-an-int64-array-on-strict",
        "import math\nimport numpy as np\n\ndef f(p1):\n    try:\n        v1 = int(p1)\n    except ValueError:\n"
        "        v1 = np.floor(9223372036854775808)\n    except OverflowError:\n        v1 = 0\n    try:\n"
        "        v2 = math.acos(v1)\n        v2 = 0\n    except ArithmeticError:\n        v2 = 0\n"
        "    finally:\n        v3 = 0\n    return 0\n",
        [Column(F, [2.0, 0.5])],
        "codegen: a select of uint64 and int64 operands as a plain xp.where (strict cannot promote them)",
    ),
    # ---- a program of the supported language rejected ----
    case(
        "walrus-in-loop-after-loop",
        "def f(p1):\n    for i1 in range(0, 1):\n        if (v4 := 0) >= 0:\n            pass\n    v2 = v4\n    return v2 + p1\n",
        [Column(F, [1.0])],  # CPython 1.0; VectorizationError "name `v4` is not defined"
        "walrus_in_loop: a name bound by `:=` in a loop body is not defined after the loop",
    ),
    case(
        # Seed 92002, program 403 (helpers inlined). The float body updated `b` in place
        # (owned buffers, issue 15) though the parallel copy `a, b = b, c + b` gives `a` b's
        # array: `a` became `c + b` and then followed b's updates. A silent wrong result of the
        # float fast path; fixed in codegen/inplace.rs (a phi that is another phi's next value
        # is never updated in place).
        "owned-buffer-is-another-phis-next-value",
        "def h0(a, b, c):\n    for i2 in range(0, 1):\n        a, b = (b, c + b)\n    c += a\n    return (c, 0)\n\n"
        "def h1(a, b):\n    v6, v7 = h0(0, 0, a)\n    return (0, v6)\n\n"
        "def f(p0, p1, p2, p3):\n    v10, v11 = h1(p3, 0)\n    return v11\n",
        [Column(F, [1.0, -2.0]), Column(F, [1.0, 2.0]), Column(F, [1.0, 2.0]), Column(F, [-159.5, 3.0])],
        "owned buffers: a phi updated in place while another phi holds its array",
    ),
    case(
        "owned-buffer-shift-register",
        "def f(c):\n    a = 0.0\n    b = 0.0\n    for i in range(3):\n        a, b = b, c + b\n    return a + b\n",
        [Column(F, [3.0, -0.0, 1e308, float("nan"), 5e-324])],
        "owned buffers: a phi updated in place while another phi holds its array",
    ),
    case(
        # Seed 92005, program 408 (minimized, then made per lane): the lanes that took the
        # `continue` took the nested loop's `return` too. A loop starts exits of its own, so it
        # did not know they had left the iteration; it is now lowered as under `if <still in
        # the iteration>:` (lower/control/array_if.rs, loop_after_partial_exit).
        "return-in-a-loop-after-a-partial-continue",
        "def f(p1):\n    w = 0\n    while w < 2:\n        w += 1\n        if p1 > 0:\n            continue\n"
        "        for i in range(3):\n            if i:\n                return 0\n    return 1\n",
        [Column(F, [1.0, -1.0, 0.0, float("nan"), -0.0])],
        "a return inside a loop after a continue some lanes took ignored that they left",
    ),
    case(
        "return-in-a-loop-after-a-constant-continue",
        "def f(p1):\n    w8 = 0\n    while True:\n        w8 += 1\n        if w8 > 1:\n            break\n"
        "        if 1:\n            continue\n        for i12 in range(5):\n            if i12:\n                return 0\n"
        "        v17 = 0\n    return 1\n",
        [Column(F, [0.0, 2.0])],
        "a return inside a loop after a continue some lanes took ignored that they left",
    ),
    case(
        # Seed 92010, program 366 (and 92008 #187): legalize unlifted `0 % True` (a remainder
        # by 1 never raises) but had already passed `0 / (0 % True)`, whose divisor was still
        # an array then; with shapes recomputed it was a Python division by zero, and the call
        # raised ZeroDivisionError where D3 gives nan. Legalize now repeats until it unlifts
        # nothing.
        "division-by-an-unlifted-remainder",
        "def h0(a):\n    a /= 0 % True\n    return a\n\ndef h1(a):\n    return h0(0)\n\n"
        "def f(p1):\n    v2 = p1\n    if v2 == 0 and h1(0):\n        pass\n    else:\n        v2 = 0\n    return v2\n",
        [Column(I, [0, 3, -1])],
        "a partial division left as Python after legalize unlifted its divisor",
    ),
    case(
        # Seed 95008, program 888: NumPy promotes all of clip's operands, so np.clip(1, 0, 3.0)
        # is the float 1.0 (`// 0` gave inf in CPython, 0 vectorized); here the sign of -0.0.
        "numpy-clip-promotes-its-operands",
        "import numpy as np\n\ndef f(p0):\n    v = np.clip(0, 0, 3.0)\n    return -v * p0\n",
        [Column(F, [2.0, 3.0])],
        "D16: np.clip's result kind ignored a float bound",
    ),
    case(
        # Seed 95010, program 1846: np.where(0, 1.0, 0) is the float 0.0 (NumPy promotes both
        # sides; `// 0` gave nan in CPython, 0 vectorized); here the sign of -0.0.
        "numpy-where-promotes-its-operands",
        "import numpy as np\n\ndef f(p0):\n    v = np.where(0, 1.0, 0)\n    return -v * p0\n",
        [Column(F, [2.0, 3.0])],
        "D16: np.where's result kind was the taken side's",
    ),
    case(
        # Seed 97003, program 550: a `try` whose body can raise (log(0)), under an `if` on a
        # scalar condition of numbers, was rejected with a message about loops; it is per lane
        # now, as an `if` whose side raises.
        "try-under-an-if-on-numbers",
        "import math\n\ndef f(p2):\n    if max(0, 1):\n        try:\n            v2 = math.log(p2)\n"
        "        except ArithmeticError:\n            v2 = 0.0\n        else:\n            v2 = v2 + 1.0\n"
        "        finally:\n            v3 = 0\n        return v2\n    return -1.0\n",
        [Column(F, [0.0, 1.0, 2.5, -1.0])],
        "raise-scalar-block: a try under a Python if on numbers was rejected",
    ),
    case(
        # Seed 97003, program 917: a Python `if` that returns nothing after a raise collapsed
        # the returns all the same, and the raise was rejected ("a loop that returns after
        # this raise").
        "raise-then-a-python-if-that-does-not-return",
        "def check(a):\n    if a > 5.0:\n        raise ZeroDivisionError(a)\n\n"
        "def f(p1):\n    check(p1)\n    if max(0, 0.5):\n        p1 = p1 + 1.0\n    return p1\n",
        [Column(F, [1.0, 7.0, -0.0])],
        "raise-scalar-block: a Python if without a return after a raise was rejected",
    ),
    case(
        # Rotating CI seed 246118432, program 98: np.where(1, 0, p1) with a float p1 is the
        # float 0.0 (NumPy's dtype of both sides), known only at run time in the helpers' body.
        "numpy-where-on-a-constant-promotes-a-parameter",
        "import numpy as np\n\ndef f(p0, p1, p2):\n    v = np.where(1, 0, p1)\n    w = np.where(1, p2, p1)\n"
        "    return -v * p0 + -w * p0\n",
        [Column(I, [2, 3]), Column(F, [1.5, -2.0]), Column(I, [0, 4])],
        "D16: np.where on a constant condition took the int side's kind",
    ),
    case(
        # Campaign 21, seed 220009, program 1456: `K0 + 18446744073709551615` does not fold (past
        # int64), so the float body compared a float array with it by the plain `<`, which NumPy
        # does through float64 (2**64 < 2**64: False); CPython compares exactly (True). Codegen
        # took every Python int that is not a constant for a loop index within 2**53.
        "float-compared-with-an-unfolded-int-past-2-pow-53",
        "K0 = 10\n\ndef f(p0, p1):\n    if p1 + 18446744073709551615 < K0 + 18446744073709551615:\n"
        "        return p0 + 1.0\n    return p0\n",
        [Column(F, [0.0, 2.5, -1.0, 3.0]), Column(F, [0.0, 4096.0, -1e30, 1e20])],
        "a float array compared with an unfolded Python int past 2**53 by a plain operator",
    ),
    case(
        # Campaign 68, seeds 690004 #1630 and 690005 #1301: math.isnan and math.isinf raise for
        # no number, but inside a `try` body they were rejected as calls whose raising elements
        # are not modelled.
        "math-predicates-in-a-try-body",
        "import math\n\ndef f(p2):\n    l5 = [0, 0, 0]\n    try:\n        v11 = l5[int(math.isnan(p2))] + math.isinf(p2)\n"
        "    except (ValueError, OverflowError):\n        v11 = -1\n    else:\n        v11 = v11 + math.isfinite(p2)\n    return v11\n",
        [Column(F, [0.0, math.nan, math.inf, -math.inf, -2.5])],
        "a math predicate inside a `try` body was rejected",
    ),
    case(
        # Campaign 77, seed 750010, program 136: a helper returns three values early, then runs
        # a loop over a table whose body may raise per lane (`math.ceil` of NaN or inf: D11);
        # the loop carried the returns before it as one returned value, so the tuple became a
        # phi and was rejected as if returned from inside a loop (tuples.rs `collapse_outer`).
        # As found but `10.0 // (math.trunc(a) + 1)` for `10.0 // math.trunc(a)`: the found
        # program divides by zero on every element (D3), and a pinned case needs one element
        # CPython computes without D3's values.
        "tuple-returned-early-before-a-loop-that-raises",
        "import math\n\nT0 = (0, 0, 0, 0)\n\ndef h0(a, b):\n    return 0\n\n"
        "def h1(a):\n    if a:\n        v2 = 10.0 // (math.trunc(a) + 1)\n"
        "        return ((v2 if a else 2 ** 63) < math.tan(2), 9223372036854775808, min(a, True) // 10)\n"
        "    for c3 in T0:\n        b4 = a - a > -0.0 // 64 <= math.ceil(a) and (not (a if 0.1 else a))\n"
        "    v5 = 0\n    b6 = 0\n    return (h0(1, v5) + (v5 if b6 else 10), v5, abs(int(b4)))\n\n"
        "def f(p0, p1):\n    v14, v15, v16 = h1(math.tanh(0.25 ** 1.5))\n    v21 = 0\n"
        "    return min(max(p0 if p0 < v21 else p0, +p1), math.tan(v21) if 3 ** 45 != p0 != v21 >= p1 else v21)\n",
        [Column(F, [0.0, -1.5, 2.0, math.nan, -math.inf]), Column(F, [1.0, -0.0, -3.0, 0.5, math.inf])],
        "a tuple returned before a loop that carries raises was rejected",
    ),
    case(
        # The same on a per-lane argument: lanes returning before the loop, lanes raising in it
        # (`int` of NaN), lanes leaving it.
        "tuple-returned-early-per-lane-before-a-table-loop",
        "T0 = (1, 2, 3)\n\ndef h1(a):\n    if a > 2.0:\n        return a, 1\n    b = 0\n"
        "    for c in T0:\n        b = b + int(a) * c\n    return b, 2\n\n"
        "def f(p0):\n    v1, v2 = h1(p0)\n    return v1 - v2\n",
        [Column(F, [0.0, -1.5, 2.0, 3.5, math.inf, -0.0, 1e300])],
        "a tuple returned before a loop that carries raises was rejected",
    ),
    case(
        # Seed 712006 #1267 (a gap of the model, no wrong value): the margin floor is `min` of
        # an int and a float, held as float64 (item 8); `float(floor)` left no cast in the IR
        # (fold dropped it as one of a float), so the model's plain reading divided the int
        # (D3's 0 for int `// 0`) and its stated one made `floor * contracts` -0.0 where
        # CPython's is the int 0: neither gave CPython's D3 -inf, and the call's +inf (item 8's
        # -0.0 divisor) stayed unexplained. Fold now keeps `float()` of arithmetic on such a
        # merge too (`floats_holding_ints`; the original held `v1 + p0` through if-merges).
        "item-8-float-of-an-int-held-as-float-leaves-no-cast-in-the-ir",
        "def f(contracts):\n    floor = 0 + min(1.0, -9223372036854775808)\n"
        "    return float(floor) // (floor * contracts)\n",
        [Column(I, [0, 1, 0, -1])],
        "a float() of an int held as float64 (item 8) is not in the IR the model reads",
        owner="fuzz model (fuzz/model.py, explain.py explains)",
    ),
    case(
        # The same held int through an if-merge, `float()` of arithmetic on it (the original
        # program's shape).
        "item-8-float-of-arithmetic-on-a-held-int-through-an-if-merge",
        "def f(p0, p1):\n    floor = p0 * 2 + min(3.5, -9223372036854775808)\n    if p1 > 5:\n"
        "        floor = floor - p1\n    return abs(float(floor + p0)) // (floor * p1)\n",
        [Column(I, [0, 1, -1, 0, 2]), Column(I, [0, 0, 0, 1, -1])],
        "a float() of an int held as float64 (item 8) is not in the IR the model reads",
        owner="fuzz model (fuzz/model.py, explain.py explains)",
    ),
]


@pytest.mark.parametrize("source, columns, backends", CASES)
def test_fuzz_finding(source, columns, backends, tmp_path):
    assert_matches_cpython(source, columns, backends, tmp_path)
