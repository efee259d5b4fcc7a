"""Bugs found by the grammar fuzzer (``python -m array_vectorize.fuzz``), as minimized reproducers.

Each case is a program, its inputs and the bug class of ``array_vectorize.fuzz.check.KNOWN`` (or a
generator feature) that ``--skip-open-bugs`` and the CI seeds set aside
(``OPEN_BUG_CLASSES``/``OPEN_BUG_FEATURES`` in ``array_vectorize/fuzz/runner.py``). An open case is a strict xfail: CPython's result and the vectorized result
differ, or the vectorized code raises where CPython returns a value. When a fix makes one pass,
xfail_strict turns it into a failure: move it to ``FIXED`` (it stays as a regression test), and
drop the class from ``runner.py`` once none of its cases is left.

``check_program`` is the fuzzer's own comparison (documented divergences only), on NumPy and
array-api-strict.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from array_vectorize.fuzz import check
from array_vectorize.fuzz.inputs import Column, ModuleRef

COMPILER = "compiler (src/)"


# Fixed since they were found; kept as regression tests.
FIXED = {
    "int-beyond-64-bits-converted-to-float-in-a-try-body",
    "scalar-phi-result",
    "math-floor-of-int",
    "unbound-done-mask",
    "astype-of-python-bool",
    "loop-phi-scalar-zero-division",
    "loop-return-in-if",
    "scalar-if-in-array-if-loop",
    "scalar-if-in-array-if-constant",
    "scalar-if-in-array-if-walrus",
    "float-compare-big-int-literal",
    "dead-branch-scalar-overflow",
    "dead-branch-scalar-zero-division",
    "dead-branch-scalar-complex",
    "bool-phi-in-arithmetic",
    "python-bool-in-float-body",
    "int-phi-meets-float",
    "math-of-int-through-max",
    "math-of-bool-through-ternary",
    "walrus-in-loop-after-loop",
    "float-cast-dropped-on-scalar-select",
    "min-of-scalars-merged-into-asin",
    "bool-power",
    "folded-select-scalar-zero-division",
    "scalar-if-result-shape",
    "tuple-of-int-and-bool-in-where",
    "mixed-tuple-loop",
    "tuple-item-int-truediv",
    "uint64-merge-with-negative",
    "uint64-literal-merged-with-negative",
    "int64-vs-uint64-compare",
    "int64-times-2-63",
    "placeholder-phi-indexes-tuple",
    "unknown-phi-becomes-python-float",
    "tuple-index-reaches-int-items-only",
    "pos-of-python-bool",
    "negative-nan-constant",
    "scalar-if-returning-on-both-sides-keeps-loop-index",
    "loop-phi-first-defined-beside-a-return",
    "scalar-defined-on-the-side-that-does-not-return",
    "uint64-literal-merged-then-divided",
    "uint64-lane-depends-on-a-negative-neighbour",
    "uint64-product-wraps-next-to-a-negative-lane",
    "big-literal-product-wraps-next-to-a-negative-lane",
    "big-literal-select-wraps-next-to-a-negative-lane",
    "model-uint64-product-beyond-64-bits-next-to-a-negative-lane",
    "owned-buffer-is-another-phis-next-value",
    "owned-buffer-shift-register",
    "return-in-a-loop-after-a-partial-continue",
    "return-in-a-loop-after-a-constant-continue",
    "division-by-an-unlifted-remainder",
    "constant-if-returning-in-a-while-loop",
    "exact-body-constant-division-by-zero-raises",
    "float-cast-of-a-loop-phi-dropped-in-the-exact-body",
    "numpy-clip-promotes-its-operands",
    "numpy-where-promotes-its-operands",
    "numpy-where-on-a-constant-promotes-a-parameter",
    "try-under-an-if-on-numbers",
    "raise-then-a-python-if-that-does-not-return",
    "uniform-number-lifted-as-bool",
    "enum-annotation-without-a-read-of-the-class",
    "numpy-sign-of-a-float-constant",
    "try-remainder-by-zero-of-a-python-float-argument",
    "message-of-a-uint64-lattice-value",
    "folded-math-test-of-an-inlined-constant-beside-a-python-if",
    "loop-returning-on-every-lane-that-stayed-after-a-partial-break",
    "loop-returning-on-every-lane-that-stayed-after-a-partial-continue",
    "numpy-power-half-in-the-exact-body",
    "raise-then-uniform-if-returns",
    "raise-inside-uniform-if",
    "raise-in-a-loop-after-a-partial-continue",
    "try-under-a-uniform-if",
    "try-whose-body-always-raises-in-a-while-loop",
    "try-in-a-loop-whose-clause-raises-then-a-read-of-the-body-s-name",
    "try-raising-uncaught-inside-an-array-if-then-return",
    "merge-of-a-uint64-constant-and-an-int64-array-on-strict",
    "float-compared-with-an-unfolded-int-past-2-pow-53",
    "uint64-constant-through-a-range-loop-in-a-while-loop",
    "int-conversion-beyond-int64-in-a-comparison-chain-cpython-stops",
    "int-conversion-beyond-int64-after-and-on-a-loop-index",
    "int-conversion-beyond-int64-in-a-chain-keeps-the-other-lanes-running",
}


def case(id, source, columns, cls, owner=COMPILER, backends=("numpy", "strict")):
    if id in FIXED:
        return pytest.param(source, columns, backends, id=id)
    return pytest.param(source, columns, backends, id=id, marks=pytest.mark.xfail(strict=True, reason=f"{owner}: {cls}"))


F, I, U, B, O = "f", "i", "u", "b", "o"

#: A clearing house's settlement: the netted position scaled by the all-ones uint64 contract size.
SETTLEMENT = (
    "def f(credit, debit):\n"
    "    if credit:\n"
    "        credit = (credit - debit) * 18446744073709551615\n"
    "    return credit + 0.5\n"
)

CASES = [
    # ---- found by the first run of campaign 55 (seed 600001), item 7's raise site ----
    case(
        # #263, #1086: `0 >= 1 != math.floor(p1)` stops at `0 >= 1` in CPython; the raise site
        # of item 7 fired for p1 beyond int64 anyway. A comparison chain lowers each comparator
        # for the lanes the comparisons before let through (src/lower/expr.rs `compare`).
        "int-conversion-beyond-int64-in-a-comparison-chain-cpython-stops",
        "import math\n\ndef f(p1):\n    if 0 >= 1 != math.floor(p1) >= 0:\n        return 1\n"
        "    if p1 < 5.0 < round(p1):\n        return 2\n    return 0\n",
        [Column(F, [2.18e274, 3.0, -1e300, 4.5])],
        "item 7's raise site in a comparator CPython never evaluates",
    ),
    case(
        # #610: `i3 and M0[int(p0) % 4]` with the loop index i3 == 0 never converts p0; the
        # operand after `and` is lowered for the lanes (here: the calls) the index lets through.
        "int-conversion-beyond-int64-after-and-on-a-loop-index",
        "M0 = {0: 1, 1: -3, 2: 0, 3: 7}\n\ndef f(p0):\n    v = 0\n    for i3 in range(1):\n"
        "        v = i3 and M0[int(p0) % 4]\n    return v\n",
        [Column(F, [-5.06e260, 2.5])],
        "item 7's raise site after `and` on a Python int",
    ),
    case(
        # #723: with the chain's condition left out of the lanes marked done, a lane whose
        # `round(p0)` lies beyond int64 (never computed by CPython: `p1 == 0` is false there)
        # counted as raised and lost its later result in the loop: 1 where CPython returns 0
        # (a silent wrong value, on this branch only).
        "int-conversion-beyond-int64-in-a-chain-keeps-the-other-lanes-running",
        "def f(p0, p1):\n    for i2 in range(-1, 0):\n        if p0:\n            pass\n        else:\n"
        "            return 1\n        if p1 == 0 < round(p0):\n            pass\n        v8 = 0 % 0\n    return 0\n",
        [Column(F, [1.8446744073709552e19, 0.0]), Column(F, [1.0, 1.0])],
        "item 7's raise site in a chain marked lanes done that never reached it",
    ),
    # ---- found by fuzz campaign 48 (seed 520007 #1608) ----
    case(
        # Issue 28 item 1 made `2 ** 1100` CPython's exact int (it was a wrapped 0-d int64); in a
        # `try` body, an int array `% 2 ** 1100` then meets a float: CPython's lane 0 holds
        # 2**1100 - 1, whose conversion to float raises OverflowError, caught and re-raised as
        # ValueError; the vectorized call raised nothing: `v` is never read, and dead-code
        # elimination dropped the operation whose runtime raises item 17's OverflowError.
        # Fixed: such an operation stays (rewrite/dce.rs `raising_roots`), and the call raises
        # item 17's OverflowError ("vectorized integers are 64-bit").
        "int-beyond-64-bits-converted-to-float-in-a-try-body",
        "def f(p2):\n    try:\n        v = 1e-300 + (0 - p2) % 2 ** 1100\n    except OverflowError:\n"
        "        raise ValueError('out of range')\n    return 0\n",
        [Column(I, [1, 0])],
        "an int beyond 64 bits inside a try body: its float conversion's OverflowError is not a per-lane raise",
    ),
    # ---- found by fuzz campaign 36 (seed 390007 #886) ----
    case(
        # A uint64 literal assigned in a `for` loop nested in a masked `while`: the for loop's
        # phi merged an int64 array with a scalar constant past int64 and was not marked wide
        # (the wideness analysis read scalars' wideness from their flag, not their range), so
        # the while loop's merge was a plain `xp.where` of int64 and uint64: float64 on NumPy
        # (18446744073709551616, a silent wrong result), a TypeError on array-api-strict.
        "uint64-constant-through-a-range-loop-in-a-while-loop",
        "def f(p2):\n    v9 = 0\n    w = 0\n    while p2 < 1 and w < 2:\n        w += 1\n"
        "        for i in range(1):\n            v9 = 18446744073709551615\n    return v9\n",
        [Column(F, [0.0, 1.0, -3.5])],
        "a wide constant entering an array phi through a nested loop",
    ),
    # ---- control flow: path conditions lost (value mismatches) ----
    case(
        "loop-return-in-if",
        "def f(p0):\n    if 0 < p0:\n        for i in range(1):\n            if 1 != p0:\n                return 1\n    return 0\n",
        [Column(F, [0.0, 1.0, 2.0])],  # CPython 0, 0, 1; vectorized 1, 0, 1
        "loop-return-in-if: a return in a loop inside an array `if` ignores the enclosing condition",
    ),
    case(
        "scalar-if-in-array-if-loop",
        "def f(p3):\n    for i in range(1):\n        if 0 == p3:\n            pass\n        elif i:\n            pass\n"
        "        else:\n            return 1\n    return 0\n",
        [Column(F, [0.0, 1.0])],  # CPython 0, 1; vectorized 0, 0 (the returned value is dropped)
        "scalar-if-in-array-if: return under a loop-index `if` nested in an array `if`",
    ),
    case(
        "scalar-if-in-array-if-constant",
        "def f(p2):\n    if bool(p2):\n        pass\n    elif not 1 ** 1.0:\n        pass\n    else:\n        return 1\n    return 0\n",
        [Column(F, [0.0, 1.0])],  # CPython 1, 0; vectorized 1, 1
        "scalar-if-in-array-if: an unfolded constant `elif` after an array `if`",
    ),
    case(
        "scalar-if-in-array-if-walrus",
        "def f(p1):\n    if 0 < p1:\n        for i in range(1):\n            v7 = 0\n        if (v9 := (v7 + 1)) > 0:\n"
        "            return 1\n    return 0\n",
        [Column(F, [0.0, 1.0])],  # CPython 0, 1; vectorized 1, 1
        "scalar-if-in-array-if: a scalar walrus condition inside an array `if`",
    ),
    # ---- exactness ----
    case(
        "math-floor-of-int",
        "import math\n\ndef f(p0):\n    return math.floor(p0 * p0)\n",
        [Column(I, [2147483647, 3])],  # CPython 4611686014132420609; vectorized ...608
        "math_floor_int: math.floor/ceil/trunc of an int go through float64 (CPython returns the int itself)",
    ),
    case(
        "float-compare-big-int-literal",
        "def f(p1):\n    if p1 != 9223372036854775807:\n        return 1\n    return 0\n",
        [Column(F, [9.223372036854776e18, 1.0])],  # CPython 1, 1; vectorized 0, 1
        "big_literals: the float body compares with an int literal beyond 2**53 after rounding it to float",
    ),
    case(
        "uint64-merge-with-negative",
        "def f(p0, p1):\n    if bool(p1):\n        return round(p0)\n    return 0 - 1\n",
        [Column(U, [0, 5]), Column(F, [0.0, 1.0])],  # CPython -1, 5; NumPy 2**64 - 1, strict OverflowError
        "uint64_int_cast: int()/round() of a uint64 array is merged with a negative int by a plain xp.where",
    ),
    case(
        "uint64-literal-merged-with-negative",
        "import math\n\ndef f(p1, p2):\n    if 1 > p1:\n        if math.isfinite(p2):\n            return -1\n"
        "        return 9223372036854775808\n    return 0\n",
        [Column(F, [0.0, 0.0, 2.0]), Column(F, [0.0, math.inf, 0.0])],  # CPython -1, 2**63, 0; NumPy 2**64 - 1, ...
        "big_literals: the float body merges the literal 2**63 with -1 by a plain xp.where, which NumPy makes "
        "uint64 (docs/semantics.md item 13: int64 when a selected lane is negative)",
        backends=("numpy",),
    ),
    case(
        "scalar-if-returning-on-both-sides-keeps-loop-index",
        "T1 = (0, 5)\n\ndef f(p1):\n    for i1 in range(1, 2):\n        if i1:\n            pass\n        elif i1:\n"
        "            return 0\n        else:\n            return 0\n        v8 = T1[i1]\n    return v8 + p1\n",
        [Column(F, [0.0, 1.5])],  # CPython 5.0, 6.5; rejected: "only a constant tuple indexed by a loop
        # index ...": the elif returning on both sides left its branch without variables, so the
        # outer `if` merged a placeholder (an array) into the loop index
        "rejected: a scalar `if` whose two sides both return lost the variables of its branch "
        "(seed 8011, program 567)",
    ),
    case(
        "loop-phi-first-defined-beside-a-return",
        "def f(p1):\n    for i1 in range(1):\n        if i1 == 0:\n            return 1.0\n        else:\n"
        "            v6 = 0\n    v7 = v6\n    return v7\n",
        [Column(F, [0.0, 2.5])],  # CPython 1.0, 1.0. A tentative fix (a scalar standing in for `v6` on
        # the side that returns) made the loop phi a scalar while its placeholder init is an int64
        # array, and the float body then chose xp.where(done, result, v6): float64 against int64
        # raises on array-api-strict
        "crash: a loop phi's shape must be an array when its init is a placeholder (seed 8011, program 1936)",
    ),
    case(
        "scalar-defined-on-the-side-that-does-not-return",
        "T = (1.0, 2.0, 3.0)\n\ndef f(p):\n    for i in range(2):\n        if i == 0:\n            j = i + 1\n"
        "        else:\n            return p * 2.0\n        v = T[j]\n    return v + p\n",
        [Column(F, [0.0, 1.5, -4.0])],  # CPython 0.0, 3.0, -8.0; was rejected: the side that returns
        # stood a placeholder array in for `j`, so `T[j]` was no longer indexed by a scalar.
        # Placeholders now take the shape of what they stand in for (a Python zero for a scalar)
        "rejected: a scalar `if` merged a scalar defined on one side only with an array placeholder "
        "(found next to seed 8011, program 567)",
    ),
    case(
        "pos-of-python-bool",
        "def f(p0):\n    return +(not 1.0 * 4611686018427387904)\n",
        [Column(F, [0.0])],  # CPython 0 (an int); the scalar `+` was dropped, leaving False
        "bool-arith: unary + of a Python bool is an int",
    ),
    case(
        "uint64-literal-merged-then-divided",
        "def f(p0, p1):\n    v2 = p0\n    return (p1 if v2 else 9223372036854775808) / 1\n",
        [Column(I, [1, 0, 0]), Column(I, [-5, 0, 0])],  # CPython -5.0, 2.0**63, 2.0**63; vectorized
        # -5.0, -2.0**63, -2.0**63: the merge is retyped int64 for the negative lane, which wraps
        # 2**63 on the others (a lane's result depends on its neighbour)
        "issue 13 item 1: a uint64 literal merged with a negative lane wraps the other lanes",
    ),
    case(
        "float-cast-dropped-on-scalar-select",
        "def f(p0):\n    return float(max(1, 1e-300) if 1.0 < 9223372036854775808 else 0)\n",
        [Column(F, [0.0, 1.0])],  # CPython 1.0; the float body returns int64 1 (`1 if ... else 0`, float() dropped)
        "big_literals: the float body drops float() around a scalar ternary whose test compares with 2**63 "
        "(the exact body keeps it)",
        backends=("numpy",),
    ),
    case(
        "int64-vs-uint64-compare",
        "def f(p2):\n    v2 = 9223372036854775808\n    if round(p2) >= (v2 if p2 else 0):\n        return 1\n    return 0\n",
        [Column(F, [0.0, 1.0])],
        "strict-promotion: int64 array compared with a uint64 array by a plain operator",
    ),
    case(
        "placeholder-phi-indexes-tuple",
        "import math\nT0 = (0, 0)\n\ndef f(p0):\n    for i3 in range(0, 1):\n        for i4 in range(1):\n"
        "            pass\n    return math.tanh(T0[i4]) + p0\n",
        [Column(F, [0.0, 1.0])],  # vectorized AttributeError: astype of the Python int T0[i4]
        "scalar-as-array: a loop index read after its loop (a phi from a never-read placeholder) made "
        "the recomputed shapes an array",
    ),
    case(
        "unknown-phi-becomes-python-float",
        "def f(p0, p1):\n    for i8 in range(0, 1):\n        p0 = 0.1\n    return abs(0.0 - p0) + p1\n",
        [Column(I, [0, 1]), Column(F, [0.0, 1.0])],  # strict TypeError: xp.abs of a Python float
        "scalar-as-array: a phi of unknown kind (exact body) assigned a Python float stays a Python float",
        backends=("strict",),
    ),
    case(
        "tuple-index-reaches-int-items-only",
        "T0 = (0, 1.5, 0)\n\ndef f(p0):\n    for c1 in T0:\n        for i2 in range(1):\n"
        "            if p0 > 1.0:\n                p0 /= 0 // T0[i2]\n    return p0\n",
        [Column(F, [0.5, 2.0])],  # CPython 0.5, (D3) inf; vectorized 0.5, nan: T0[i2] read as 0.0
        "merge-kind: `T0[i2]` with i2 in range(1) only reaches the int 0 but took the tuple's float kind",
    ),
    case(
        "uint64-lane-depends-on-a-negative-neighbour",
        "def f(p0):\n    return 1 % (p0 - 1)\n",
        [Column(U, [0, 9612294328241355355])],  # CPython 0, 1; vectorized 0, -8834449745468196261: the
        # negative lane makes p0 - 1 an int64 array, which wraps the other lane before `%`
        "issue 13 item 1: uint64 arithmetic once a lane is negative (found by seed 101, program 246)",
    ),
    case(
        "uint64-product-wraps-next-to-a-negative-lane",
        "def f(p0, p2):\n    p2 = p0 * p2\n    return min(0, 0, p2)\n",
        [Column(I, [-1, 2]), Column(U, [1, 9223372036854775807])],  # CPython -1, 0; vectorized -1, -2:
        # 2 * (2**63 - 1) fits uint64, but the product is retyped int64 for the negative lane
        "issue 13 item 1: uint64 arithmetic once a lane is negative (found by seed 9001, program 53)",
    ),
    case(
        "big-literal-product-wraps-next-to-a-negative-lane",
        "def f(p0):\n    v2 = p0 * 9223372036854775808\n    if v2 <= 0:\n        return 1\n    return 0\n",
        [Column(I, [1, -1])],  # CPython 0, 1; vectorized 1, 1: 2**63 on the first lane fits uint64,
        # but the negative second lane makes the product int64, which wraps it to -2**63
        "issue 13 item 1: a product with a literal in [2**63, 2**64) next to a negative lane "
        "(found by seed 31004, program 398)",
    ),
    case(
        "big-literal-select-wraps-next-to-a-negative-lane",
        "import math\n\ndef f(p1, p2):\n    if 0 >= (18446744073709551615 if p1 else math.floor(p2)):\n"
        "        pass\n    else:\n        return 0\n    return 1\n",
        [Column(F, [0.0, 1.0]), Column(F, [-1.0, 0.0])],  # CPython 1, 0; vectorized 1, 1: the select is
        # int64 for the negative lane, which wraps 2**64 - 1 to -1 on the other
        "issue 13 item 1: a literal in [2**63, 2**64) merged next to a negative lane "
        "(found by seed 31004, program 1335)",
    ),
    case(
        "model-uint64-product-beyond-64-bits-next-to-a-negative-lane",
        SETTLEMENT,
        [Column(U, [2, 2, 0]), Column(U, [0, 5, 7])],  # CPython 2**65 - 1.5, -3 * (2**64 - 1) + 0.5,
        # 0.5; vectorized 2**64 - 1.5, 3.5, 0.5 (item 13: each lane wraps by its own sign). The
        # model wrapped the first lane as int64 (-2) because the second lane was negative.
        "fuzz model: a lattice lane beyond 2**64 wrapped in its neighbours' dtype (seed 90002, program 401)",
        owner="fuzz model (fuzz/model.py)",
    ),
    # ---- the vectorized code raises where CPython returns a value ----
    case(
        "dead-branch-scalar-overflow",
        "def f(p0):\n    if not p0:\n        v3 = 1e-300 ** (-2)\n        return v3\n    return 0\n",
        [Column(U, [1, 2])],  # CPython 0, 0; vectorized OverflowError
        "scalar-raise: Python-scalar arithmetic of a branch CPython does not take is evaluated eagerly and raises",
    ),
    case(
        "dead-branch-scalar-zero-division",
        "def f(p0, p2):\n    if 0 == p2:\n        p0 = 0 // 0\n    return p0\n",
        [Column(F, [0.0, 1.0]), Column(F, [1.0, 2.0])],  # CPython 0.0, 1.0; vectorized ZeroDivisionError
        "scalar-raise: `0 // 0` on a path CPython does not take",
    ),
    case(
        "dead-branch-scalar-complex",
        "T1 = (0, -1)\n\ndef f(p1):\n    if 0 >= p1:\n        pass\n    else:\n        return 0\n    return pow(T1[-1], 0.5)\n",
        [Column(B, [True])],  # CPython 0; vectorized TypeError (complex operand)
        "scalar-raise: a Python-scalar power gives a complex number (D3 says nan)",
    ),
    case(
        "folded-select-scalar-zero-division",
        "def f(p0):\n    i1 = 0\n    if p0 > 1:\n        p0 = (i1 if p0 else i1) // 0\n    return p0\n",
        [Column(I, [0, 3])],  # CPython 0 and (D3: int // 0 is 0) 0; vectorized ZeroDivisionError (`0 // 0` as Python)
        "scalar-raise: a select of two equal scalars folds to a Python scalar whose `// 0` runs as plain Python "
        "(docs/semantics.md item 16: on 0-d arrays, IEEE values)",
    ),
    case(
        "int64-times-2-63",
        "import math\n\ndef h0(a, b):\n    return math.floor(b) * 9223372036854775808\n\n"
        "def f(p0):\n    v2 = h0(0, p0)\n    if v2 != 0:\n        pass\n    else:\n        return 1\n    return 0\n",
        [Column(F, [0.0, 1.0])],  # CPython 1, 0; vectorized OverflowError
        "bigint-raise: the float body multiplies an int64 array by the literal 2**63",
    ),
    case(
        "unbound-done-mask",
        "def f(p0):\n    v1 = p0\n    if 1 >= v1:\n        for i2 in range(1):\n            if i2:\n                pass\n"
        "            if i2:\n                return 0\n    return 0\n",
        [Column(F, [0.0, 2.0])],  # CPython 0, 0; vectorized UnboundLocalError: done_1
        "generated code reads `done_1` before assigning it (loop-index ifs, one with a return, in a loop "
        "inside an array `if`)",
    ),
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
]


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


@pytest.mark.parametrize("source, columns, backends", CASES)
def test_fuzz_finding(source, columns, backends, tmp_path):
    names = check.backends(list(backends))
    result = check.check_program(source, columns, names, str(tmp_path))
    assert not result.failures, "\n".join(f"{f.kind} {f.backend} {f.detail} {f.expected!r} {f.got!r}" for f in result.failures)
    assert result.cpython_ok > 0


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
