"""Builtins as people write them (issue 27 item 3): `round`'s keywords (`round(x, ndigits=2)`,
`round(number=x)`, `ndigits=None`), `round(x, n)` with `n` one int per call (a parameter, D14),
`math.modf` (a tuple of two floats, D13) and module tables built with `dict(a=...)` (D14),
compared element by element with CPython on NumPy and array-api-strict, and compiled statically
(the import hook's and the build backend's `compile_module`) to the decorator's source."""

from __future__ import annotations

import math
import sys

import numpy as np
import pytest

from array_vectorize import VectorizationError, _core, vectorize
from array_vectorize.api import compile_live
from array_vectorize.precompiled import assumptions_hold
from oracle import check

X = np.array([0.0, -0.0, 0.5, -0.5, 1.5, 2.5, 2.675, -2.675, 0.125, 1234.5678, -7.25, 1e-300, 5e-324, 2.0**53 + 2.0,
              1e300, -1e300, 1e16, math.inf, -math.inf, math.nan])
INTS = np.array([0, 1, -1, 7, 15, 25, -35, 1234, 2**40, -(2**53)], dtype=np.int64)

MODULE = '''\
import math

from array_vectorize import vectorize

RATES = dict(basic=0.2, higher=0.4)


def by_keyword(x):
    return round(float(x), ndigits=2) + round(number=float(x) * 3.0, ndigits=-1)


def none_digits(x):
    return round(float(x), ndigits=None) + round(float(x), None)


def per_call(x, n):
    return round(float(x), n)


def per_call_keyword(x, digits=1):
    return round(float(x) * 1.2, ndigits=digits)


def int_keyword(i):
    return round(int(i), ndigits=-1)


def split(x):
    frac, whole = math.modf(x)
    return frac, whole


def split_sum(x):
    f, w = math.modf(x * 1.5)
    return w * 100.0 + f


def tax(x):
    if x > 1000.0:
        return float(x - 1000.0) * RATES["higher"] + 1000.0 * RATES["basic"]
    return float(x) * RATES["basic"]
'''


@pytest.fixture(scope="module")
def mod(tmp_path_factory):
    path = tmp_path_factory.mktemp("written") / "written_mod.py"
    path.write_text(MODULE)
    namespace = {"__name__": "written_mod"}
    exec(compile(MODULE, str(path), "exec"), namespace)
    namespace["__path__"] = str(path)
    return namespace


CASES = [
    ("by_keyword", (X,)),
    # round() of a float beyond int64 raises OverflowError (item 7).
    ("none_digits", (X[np.abs(X) < 2.0**62],)),
    ("per_call", (X, 2)),
    ("per_call", (X, -1)),
    ("per_call", (X, 0)),
    ("per_call", (X, True)),
    ("per_call_keyword", (X,)),
    ("per_call_keyword", (X, 3)),
    ("int_keyword", (INTS,)),
    ("split", (X,)),
    ("split", (INTS,)),
    ("split_sum", (X,)),
    ("tax", (X,)),
]


@pytest.mark.parametrize("name, args", CASES, ids=[f"{n}-{i}" for i, (n, _) in enumerate(CASES)])
def test_builtin_as_written_matches_cpython(mod, name, args, backend):
    check(vectorize(mod[name]), *args, backend=backend)


def test_static_compile_is_the_decorators(mod):
    path = mod["__path__"]
    static = {e["name"]: e for e in _core.compile_module(MODULE.replace("\ndef ", "\n@vectorize\ndef "), path)}
    options = {"protect_domains": False, "fallback": False, "optimize": sys.flags.optimize > 0}
    for name in ("by_keyword", "none_digits", "per_call", "per_call_keyword", "int_keyword", "split", "split_sum", "tax"):
        assert static[name]["status"] == "ok", static[name]
        live, _ = compile_live(mod[name], options)
        assert static[name]["source"] == live["source"], name
        assert assumptions_hold(mod[name], static[name]["assumptions"]), static[name]["assumptions"]


def test_modf_keeps_signs_and_special_values(mod):
    frac, whole = vectorize(mod["split"])(np.array([-0.0, -2.5, math.inf, -math.inf, math.nan, 5e-324]))
    expected = [math.modf(v) for v in (-0.0, -2.5, math.inf, -math.inf, math.nan, 5e-324)]
    for got, want in zip(zip(frac.tolist(), whole.tolist()), expected):
        for g, w in zip(got, want):
            assert (math.isnan(g) and math.isnan(w)) or (g == w and math.copysign(1.0, g) == math.copysign(1.0, w))


def test_a_per_call_ndigits_that_is_not_an_int_raises_as_cpython(mod):
    vec = vectorize(mod["per_call"])
    with pytest.raises(TypeError, match="'float' object cannot be interpreted as an integer"):
        vec(X, 2.0)
    with pytest.raises(TypeError):
        round(1.5, 2.0)


def test_round_rejects_what_cpython_rejects():
    def unknown_keyword(x):
        return round(float(x), digits=2)

    def unknown_kind(x, n):
        return round(x, n)

    with pytest.raises(VectorizationError, match="round\\(\\) takes number and ndigits"):
        vectorize(unknown_keyword)
    with pytest.raises(VectorizationError, match=r"write round\(float\(x\), n\)"):
        vectorize(unknown_kind)
