"""The float body (the entry's fast path: every argument a float64 array or a Python float) is a
specialisation of the exact body, the same IR compiled with parameter kinds unknown and a helper
for every kind-dependent operation (ARCHITECTURE.md, "Generated code"). On float arguments the
two must give the same bits: every float language case is called as it is, and again with its
own float prologue declining the call (so the exact body computes), on NumPy and
array-api-strict. Where the float body holds an int merged with a float as float64 and the exact
body settles the kind at run time (docs/semantics.md item 8), the values must still be equal."""

from __future__ import annotations

import numpy as np
import pytest

from array_vectorize import vectorize
from behavior.language.test_constructs import CASES
from behavior.runtime.test_blocked_evaluation import assert_bitwise, case_args
from oracle import BACKENDS, to_backend, to_numpy

FLOAT_CASES = sorted(name for name, (_, kinds, _) in CASES.items() if set(kinds) == {"f"})


def exact_body(vec, *args):
    """`vec(*args)` with the function's own float prologue declining: the exact body computes."""
    glob = vec.__globals__
    saved = glob["_vec_float_args"]
    glob["_vec_float_args"] = lambda *a: None
    try:
        return vec(*args)
    finally:
        glob["_vec_float_args"] = saved


@pytest.mark.parametrize("backend", sorted(set(BACKENDS) & {"numpy", "strict"}))
@pytest.mark.parametrize("name", FLOAT_CASES)
def test_the_float_body_gives_the_exact_bodys_bits(name, backend):
    fn = CASES[name][0]
    vec = vectorize(fn)
    args = [to_backend(a, backend) for a in case_args(CASES[name][1])]
    fast = vec(*args)  # materializes the globals too
    assert "_vec_float_args" in vec.__globals__
    exact = exact_body(vec, *args)
    for got, want in zip(fast if isinstance(fast, tuple) else (fast,), exact if isinstance(exact, tuple) else (exact,)):
        got, want = np.asarray(to_numpy(got)), np.asarray(to_numpy(want))
        if got.dtype != want.dtype and got.dtype == np.float64 and want.dtype.kind in "biu":
            # Item 8: the float body's merge of an int and a float is float64 on every lane.
            want = want.astype(np.float64)
        assert_bitwise(got, want)
