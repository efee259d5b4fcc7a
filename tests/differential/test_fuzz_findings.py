"""Bugs found by the grammar fuzzer (``python -m array_vectorize.fuzz``), as minimized reproducers:
control flow, exactness, and values the vectorized code raised on. Conventions (open cases are
strict xfails; fixed ones stay) in findings.py; the findings about kinds and per decision are in
test_fuzz_findings_decisions.py, those checked apart from this table in
test_fuzz_findings_direct.py.
"""

from __future__ import annotations

import math

import pytest

from array_vectorize.fuzz.inputs import Column
from findings import B, F, I, U, assert_matches_cpython, case

#: A clearing house's settlement: the netted position scaled by the all-ones uint64 contract size.
SETTLEMENT = (
    "def f(credit, debit):\n"
    "    if credit:\n"
    "        credit = (credit - debit) * 18446744073709551615\n"
    "    return credit + 0.5\n"
)


#: Helpers that call the next twice, 24 deep: past the inlining budget, so they are lowered out
#: of line and `f` calls them (`call @k` in the IR, which the fuzz model does not read).
FAN_OUT = "".join(f"def h{i}(x):\n    return h{i + 1}(x) + h{i + 1}(x)\n\n" for i in range(23)) + (
    "def h23(x):\n    return x * 2 if x > 1 else x\n\n"
)

CASES = [
    # ---- found by seed 650003 #1803 (branch fuzzfix, after the fix of 550009 #751) ----
    case(
        # The compiler panicked in codegen ("index out of bounds: the len is 2 but the index is
        # 3"): a helper lowered out of line (the while loops' calls of `h0`, `h1` and the mutual
        # recursion of `r0` and `r1` pass the inlining budget) held a residue (D19), which names
        # the scalar original by the index of a hidden parameter of the function compiled, past
        # the helper's own parameters. Fixed: such a helper is inlined instead
        # (src/lower/calls/callee.rs, `reads_hidden`). Trimmed of the module names `f` never reads.
        "compiler-residue-in-a-helper-lowered-out-of-line",
        'import math\n'
        'K0 = 3.0\n'
        '\n'
        'def r0(a, n):\n'
        '    if not 0.0 < n <= 12.0:\n'
        '        return -(0.5 - a)\n'
        '    return r1(0.5 * -2.0, n - 1)\n'
        '\n'
        'def r1(a, n):\n'
        '    if n > 6.0:\n'
        '        return r0(a * 1.5, n - 1) + 2\n'
        '    return n - r0(a, n - 1)\n'
        'L1 = lambda a, b: (a - -3) * (a if b else a)\n'
        '\n'
        'def h0(a, b):\n'
        '    v1 = a\n'
        '    return ((2 or False) + r0(v1, 0.25), 3.0 + v1 > (not a), (v1 and K0 and b) != a == +a >= 9223372036854775807 + 5)\n'
        '\n'
        'def h1(a, b, c):\n'
        '    v2 = a\n'
        '    v3 = L1(-1.0, 2 ** 70 if c else c) * (c + (7 - v2))\n'
        '    if 0.0 != (v2 - v3) * L1(v3, b):\n'
        '        if abs(c) == b:\n'
        '            v4 = -1\n'
        '        elif (v2 >= b) - L1(v3, 1.5):\n'
        '            b, c = (c, 1e+300 + 1 if -0.5 <= v2 and 9007199254740993 > c and (-2 < v2) else abs(a))\n'
        '    else:\n'
        '        v5 = b\n'
        '        return (1.0 * 2.0 + v3, -b < +4, 0.5)\n'
        '    v6 = 3.0\n'
        '    return (+(v3 if v3 != v3 else b), b - (3.0 + 1), r1(c, v2) < (not c) <= (a if K0 >= a else -0.5))\n'
        '\n'
        'def f(p0, p1, p2):\n'
        '    if 0.0 < p1 <= 6.0:\n'
        '        return p0 + f(p0, p1 - 1, p2)\n'
        '    w7 = 0\n'
        '    while True:\n'
        '        w7 += 1\n'
        '        if w7 > 1:\n'
        '            break\n'
        '        w8 = 0\n'
        '        while w8 < 4:\n'
        '            w8 += 1\n'
        '            v9, v10, v11 = h1(0.0 - 1 + (p0 - 1e+300), abs(0.25 - 0.5), abs(w8) + w8 * 1)\n'
        '            if bool(p2 - (v11 and v10)):\n'
        '                v12, v13, v14 = h1(abs(K0 + p2), r1(w8, p0 * 0), v11 * (p1 or math.pi))\n'
        '                if max(abs(1.0), -2 if v12 > w8 else v10) != (r1(v14, v14) and min(v9, v14)):\n'
        '                    continue\n'
        '                v15, v16, v17 = h0(-(10.0 + K0), r1(w7, v11) if w8 <= w7 else abs(p1))\n'
        '                b18 = bool(max(v11, w7 - -1))\n'
        '            elif not -1.0 - w8 < p2:\n'
        '                v19, v20, v21 = h0(+-0.0 + L1(4, p0), min(7 - p0, 1.0 * -3, p0 and w8))\n'
        '            else:\n'
        '                v11 = -3 - v11 - (p1 + -2) if (p2 + w7) * max(9223372036854775807, 1e-300) else -3 != K0\n'
        '            v9 = abs(max(v11, math.nan)) * (p2 * v10 * (p1 if 0.1 else v9))\n'
        '            v22 = K0 * v10\n'
        '    p2 = p0\n'
        '    return +(1.5 * p1) != r1(L1(p1, 2.5), p0)\n',
        [Column(F, [2.953055918240798, 0.5, -1.0]), Column(I, [-6, 3, 0]), Column(I, [8, 1, -2])],
        "the compiler panics: index out of bounds in isel's scalar_fn",
    ),
    # ---- found by seed 650001 #288 (branch fuzzfix, after the fix of 550009 #751) ----
    case(
        # Item 8: `f` returns an int on some elements and a float on others, so its result is one
        # float64 array; the core leaves its kind to the call ("num": the helpers' body), and the
        # model, which reads no out-of-line helper's `call`, could not say the result is float,
        # so the check compared CPython's ints with the float64 result as ints. Fixed: a result
        # left to the call is float64 where CPython returns a float on some element (check.py).
        "model-result-left-to-the-call-through-an-out-of-line-helper",
        FAN_OUT + "def f(p0, p1):\n    if p0 > 0.0:\n        return h0(p1)\n    return 0.5\n",
        [Column(F, [1.0, -1.0, 2.0]), Column(I, [3, 4, -5])],
        "fuzz check: an int element of a result held as float64 (item 8) where the model cannot read a `call`",
        owner="fuzz check (fuzz/check.py)",
    ),
    # ---- found by fuzz campaign 60 (seed 550009 #751, main at efd058d) ----
    case(
        # The compiler panicked at decoration ("attempt to subtract with overflow", an
        # InternalError): `f`, inlined within itself (D19), calls `h0`, which is lowered out of
        # line (a function of its own), and `h0`'s loop calls the recursive `r0`. The budget of
        # `r0`'s inlined levels subtracted the start of `f`'s level (a count of `f`'s values)
        # from `h0`'s fewer values. Fixed: a helper lowered out of line sets the levels of the
        # function it interrupts aside (src/lower/calls/callee.rs, `set_aside_levels`).
        "compiler-subtract-overflow-recursion-with-while-helpers",
        "def r0(a):\n    if a < 0.0:\n        return 0 - r0(-a)\n    return 0\n\n"
        "def h0(a):\n    w1 = 0\n    while w1 < 1:\n        w1 += 1\n        for i2 in range(1):\n"
        "            v4 = r0(i2)\n    return 0\n\n"
        "def f(p0):\n    if 0.0 < p0 <= 6.0:\n        return f(p0 - 1)\n"
        "    for c7 in range(2):\n        w8 = 0\n        while w8 < 1:\n            w8 += 1\n"
        "            v14 = h0(0)\n            v15 = h0(r0(p0))\n    return 0\n",
        [Column(F, [-6.0, 0.5, 7.0, -0.0])],
        "the compiler panics: attempt to subtract with overflow",
    ),
    # ---- found after the merge of land (seed 530104 #224, the recursion stream seeded + 4) ----
    case(
        # Item 37: `p0` merged with `1.0` in the loop is held as float64 (item 8), so the
        # helper's message formats it as `0.0` where CPython's int gives `0`: documented. The
        # check's explanation replaced the operand's text in CPython's message, which misses a
        # width spec (`{!r:>12}` pads `0` and `0.0` to the same width), so it reported a
        # mismatch (also 550007 #1811, 550009 #1778). Fixed: the check builds the site's
        # exception again from the held values, as the generated code does (explain.py
        # `build_site`; tests/unit/test_fuzz_explain.py). `r0` returns for `n > 2` here (as
        # found it always raised), so CPython computes an element too.
        "item-37-through-a-width-format-spec",
        "import math\nMSG3 = 'x={!r:>12} rejected'\n\ndef r0(a, n):\n    if n > 2:\n        return 1\n"
        "    raise ArithmeticError(MSG3.format(n))\n\ndef f(p0):\n    w3 = 0\n    while w3 < 1:\n"
        "        w3 += 1\n        if math.remainder(0, r0(0, p0)):\n            p0 = 1.0\n    return 0\n",
        [Column(I, [0, 3])],
        "item 37 through a width format spec is not explained",
        owner="fuzz check (fuzz/explain.py formats_held)",
    ),
    # ---- left open by fuzz campaign 52 (seed 563004 #1012) ----
    case(
        # Item 8: the min of an int and floats is held as float64, which rounds the int
        # `b = -(2**63 - 1)` to -2**63, so `b > min(1, 0.5, b)` holds where CPython's min returns
        # `b` itself, and the lane raises the first site's message where CPython raises the
        # second's (documented: docs/semantics.md item 8). The check did not explain a site
        # formatting the program's values; it now builds its exception (explain.py `build_site`).
        "item-8-min-of-an-int-and-floats-takes-another-raise-site",
        "def h0(a, b):\n    if b > min(1, 0.5, b):\n        raise ValueError(f'first b={b}')\n"
        "    if a < 0:\n        raise ValueError(f'second a={a}')\n    return a\n\n"
        "def f(p0, p1):\n    return h0(p0, p1)\n",
        [Column(I, [-1, -1, 2]), Column(I, [-(2**63 - 1), 0, 0])],
        "item 8 through min: another raise site is not explained",
        owner="fuzz check (fuzz/explain.py explains_raise_site)",
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
        # Campaign 57, seed 540003, program 1021: a tuple first assigned in a `while` body, never
        # read after it, met the loop's phi (the name unbound where the loop did not run) and was
        # rejected at the tuple ("a container on some elements meets a number on others").
        "tuple-first-assigned-in-a-while-body",
        "def f(p0):\n    w2 = 0\n    while w2 < 1:\n        w2 += 1\n        v3 = (0, 0)\n        v4 = 0\n"
        "        for i5 in range(0):\n            pass\n        v7 = 0\n    return 0\n",
        [Column(F, [0.0, -1.5])],  # CPython 0; was rejected
        "D18: a tuple first assigned in a while body was carried as a phi",
    ),
    case(
        "unbound-done-mask",
        "def f(p0):\n    v1 = p0\n    if 1 >= v1:\n        for i2 in range(1):\n            if i2:\n                pass\n"
        "            if i2:\n                return 0\n    return 0\n",
        [Column(F, [0.0, 2.0])],  # CPython 0, 0; vectorized UnboundLocalError: done_1
        "generated code reads `done_1` before assigning it (loop-index ifs, one with a return, in a loop "
        "inside an array `if`)",
    ),
]


@pytest.mark.parametrize("source, columns, backends", CASES)
def test_fuzz_finding(source, columns, backends, tmp_path):
    assert_matches_cpython(source, columns, backends, tmp_path)
