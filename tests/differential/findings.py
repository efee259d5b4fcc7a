"""What the fuzz findings' tables share (test_fuzz_findings.py, test_fuzz_findings_decisions.py):
the cases fixed since they were found, how a case is marked, and the check of one program.

Each case is a program, its inputs and the bug class of ``array_vectorize.fuzz.check.KNOWN`` (or a
generator feature) that ``--skip-open-bugs`` and the CI seeds set aside
(``OPEN_BUG_CLASSES``/``OPEN_BUG_FEATURES`` in ``array_vectorize/fuzz/runner.py``). An open case
is a strict xfail: CPython's result and the vectorized result differ, or the vectorized code
raises where CPython returns a value. When a fix makes one pass, xfail_strict turns it into a
failure: add its id to ``FIXED`` (it stays as a regression test), and drop the class from
``runner.py`` once none of its cases is left.

``check_program`` is the fuzzer's own comparison (documented divergences only), on NumPy and
array-api-strict.
"""

from __future__ import annotations

import pytest

from array_vectorize.fuzz import check

COMPILER = "compiler (src/)"

# Fixed since they were found; kept as regression tests.
FIXED = {
    "compiler-residue-in-a-helper-lowered-out-of-line",
    "model-result-left-to-the-call-through-an-out-of-line-helper",
    "compiler-subtract-overflow-recursion-with-while-helpers",
    "item-37-through-a-width-format-spec",
    "item-8-min-of-an-int-and-floats-takes-another-raise-site",
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
    "message-of-a-uniform-item-read-in-a-loop",
    "message-of-a-uniform-item-and-a-number-in-a-loop-on-some-lanes",
    "message-of-a-uniform-attribute-read-in-a-while-loop",
    "message-of-a-uniform-item-read-in-a-while-loop-in-a-tuple-loop",
    "message-of-a-uniform-item-read-in-a-loop-that-stops-running",
    "message-of-a-helper-s-uniform-item-under-an-if-on-a-loop-index",
    "message-of-a-helper-s-uniform-item-under-an-if-on-a-loop-index-that-raises",
    "tuple-first-assigned-in-a-while-body",
    "int-conversion-beyond-int64-in-a-comparison-chain-cpython-stops",
    "int-conversion-beyond-int64-in-a-chain-keeps-the-other-lanes-running",
    "int-conversion-beyond-int64-after-and-on-a-loop-index",
    "int-conversion-beyond-int64-in-a-ternary-side-a-loop-index-skips",
    "int-conversion-beyond-int64-in-a-lambda-a-loop-index-skips",
    "math-predicates-in-a-try-body",
    "item-8-float-of-an-int-held-as-float-leaves-no-cast-in-the-ir",
    "item-8-float-of-arithmetic-on-a-held-int-through-an-if-merge",
    "tuple-returned-early-before-a-loop-that-raises",
    "tuple-returned-early-per-lane-before-a-table-loop",
}


def case(id, source, columns, cls, owner=COMPILER, backends=("numpy", "strict")):
    if id in FIXED:
        return pytest.param(source, columns, backends, id=id)
    return pytest.param(source, columns, backends, id=id, marks=pytest.mark.xfail(strict=True, reason=f"{owner}: {cls}"))


F, I, U, B, O = "f", "i", "u", "b", "o"


def assert_matches_cpython(source, columns, backends, tmp_path) -> None:
    """The program `source` on `columns`, vectorized on each of `backends`, gives CPython's
    result on every element CPython computes (and CPython computes at least one)."""
    result = check.check_program(source, columns, check.backends(list(backends)), str(tmp_path))
    assert not result.failures, "\n".join(f"{f.kind} {f.backend} {f.detail} {f.expected!r} {f.got!r}" for f in result.failures)
    assert result.cpython_ok > 0
