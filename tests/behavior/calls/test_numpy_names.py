"""Every name of the NumPy table (D16, `_core.NUMPY_NAMES`, docs/numpy.md) in every spelling a
module reaches it by: through the module (`np.exp`), through another alias of it (`xnp.exp`),
imported by name (`from numpy import exp`) and under an alias (`from numpy import exp as
np_fn`). Each function is compared element by element with NumPy running the scalar original
on float64 scalars (the oracle), on NumPy and array-api-strict; and its static compile (the
import hook's and the build backend's) gives the decorator's source byte for byte, with
assumptions that hold for the live function."""

from __future__ import annotations

import importlib
import math
import sys
import uuid
import warnings

import numpy as np
import pytest

from array_vectorize import VectorizationError, _core, vectorize
from array_vectorize.api import compile_live
from array_vectorize.precompiled import assumptions_hold
from oracle import check

X = np.array([0.0, -0.0, 1.0, -1.0, 0.5, -0.5, 2.5, -2.5, 3.5, 0.675, 2.675, -7.25, 1e-300, 5e-324, 1e300, -1e300,
              123.456, 0.999, 1.0000001, math.inf, -math.inf, math.nan, 2.0**53, -(2.0**62)])
Y = np.array([0.0, -0.0, 1.5, -2.0, 0.5, math.inf, math.nan])
INTS = np.array([0, 1, -1, 2, -7, 100, 2**40], dtype=np.int64)
BOOLS = np.array([False, True])

# name -> (body, parameters); `{f}` is the name as the spelling writes it. Every row of the table
# has one (test_every_table_name_has_a_case).
UNARY = "return {f}(x)"
BINARY = ("return {f}(x, y)", "xy")
CASES: dict[str, tuple[str, str]] = {
    **{n: (UNARY, "x") for n in (
        "sqrt", "exp", "expm1", "log", "log1p", "log2", "log10", "sin", "cos", "tan", "arcsin", "asin", "arccos",
        "acos", "arctan", "atan", "sinh", "cosh", "tanh", "arcsinh", "asinh", "arccosh", "acosh", "arctanh",
        "atanh", "fabs", "isnan", "isinf", "isfinite", "floor", "ceil", "trunc", "round", "around", "rint", "abs",
        "absolute", "square", "degrees", "rad2deg", "radians", "deg2rad", "sign", "float64", "double", "int64",
        "bool_", "bool")},
    **{n: BINARY for n in ("arctan2", "atan2", "hypot", "copysign", "power", "pow", "float_power", "maximum",
                           "minimum")},
    "clip": ("return {f}(x, -1.5, 2.0) + {f}(y, None, 0.5) + {f}(x, min=0.0, max=y)", "xy"),
    "where": ("return {f}(x > y, x, y) + {f}(x < 0.0, 1, 0)", "xy"),
    "asarray": ("return {f}(x) * 2.0 + {f}(x, dtype=float)", "x"),
    "asanyarray": ("return {f}(x) - 1.0", "x"),
    "ones_like": ("return {f}(x) + {f}(x, dtype=float)", "x"),
    "zeros_like": ("return {f}(x)", "x"),
    "full_like": ("return {f}(x, 2.5, dtype=float) + {f}(x, 1) * x", "x"),
    "astype": ("return {f}(x, int) + {f}(x, bool)", "x"),
    "polyval": ("return {f}(P3, x) + {f}(P2, x)", "x"),
    "broadcast_arrays": ("u, v = {f}(x, y)\n    return u - v", "xy"),
    **{n: ("return x * {f}", "x") for n in ("pi", "e", "inf", "nan", "euler_gamma")},
}
# Extra forms of some names: NumPy's decimals, and the dtype written as NumPy's type.
EXTRA = {
    "round": ("return {f}(float(x), 2) + {f}(float(x), -1) + {f}(float(x), decimals=3)", "x"),
    "astype": ("return x.astype(int) + x.astype(float) + x.astype(bool) + {f}(x, 'float64')", "x"),
    # A display as the table is read by the syntax check under NumPy's own name only: an alias
    # (`polyval as np_fn`) takes a module constant (the main case).
    "polyval": ("return {f}((0.5, -1.0, 2.0), x) + {f}([3, 1], x) + {f}((), x) + {f}((True, 2), x)", "x"),
    "zeros_like": ("return {f}(x, dtype=float) - x", "x"),
}
# Module constants the cases read (D15: constant tables).
CONSTANTS = "P3 = (0.5, -1.0, 2.0)\nP2 = [3, 1]\n"
# Names whose value on ints keeps its kind as NumPy's does (the others compute ints as float64
# or at 64 bits, docs/semantics.md item 19): checked on the int column too, and those that keep a
# bool a bool also on the bool column (`np.floor(True)` is True, vectorized 1: item 19).
KIND_KEEPING = ("ones_like", "zeros_like", "full_like", "asarray", "floor", "ceil", "trunc", "astype", "polyval")
BOOL_KEEPING = ("ones_like", "zeros_like", "full_like", "asarray", "astype", "polyval")
# NumPy's cast of a float to int64 is undefined outside the int64 range (semantics item 40):
# the oracle skips those elements, test_numpy_int_cast_outside_int64 pins the vectorized values.
CASTS_TO_INT = ("int64", "astype")
# Float powers may differ from C's pow in the last bits on NumPy's SIMD loops (item 9).
ULPS = {"float_power": 4}

SPELLINGS = {
    "np": ("import numpy as np", "np.{name}"),
    "xnp": ("import numpy as xnp", "xnp.{name}"),
    "by_name": ("from numpy import {name}", "{name}"),
    "as_alias": ("from numpy import {name} as np_fn", "np_fn"),
}


def module_text(name: str, spelling: str, body: str, params: str) -> str:
    imp, f = SPELLINGS[spelling]
    return (
        f"{imp.format(name=name)}\n\nfrom array_vectorize import vectorize\n\n{CONSTANTS}\n\n@vectorize\n"
        f"def f({', '.join(params)}):\n    {body.format(f=f.format(name=name))}\n"
    )


@pytest.fixture
def load(tmp_path, monkeypatch):
    """Writes a module's text and imports it; gives the module and its path."""
    monkeypatch.syspath_prepend(str(tmp_path))
    loaded = []

    def _load(text: str):
        name = f"avnp_{uuid.uuid4().hex[:10]}"
        path = tmp_path / f"{name}.py"
        path.write_text(text)
        loaded.append(name)
        return importlib.import_module(name), path

    yield _load
    for name in loaded:
        sys.modules.pop(name, None)


def on_numpy_scalars(fn, casts_to_int=False):
    def oracle(*args):
        if casts_to_int and any(type(a) is float and not -(2.0**63) <= a < 2.0**63 for a in args):
            raise ValueError("NumPy's cast to int64 is undefined here (semantics item 40)")
        out = fn(*[np.float64(a) if type(a) is float else np.int64(a) if type(a) is int else np.bool_(a) for a in args])
        return out.item() if hasattr(out, "item") else out

    return oracle


def assert_static_is_live(mod, path, text):
    """The hook's and the backend's static compile gives the decorator's source, and its
    assumptions hold for the live function."""
    (static,) = _core.compile_module(text, str(path))
    assert static["status"] == "ok", static
    original = mod.f._vectorized_original
    live, _ = compile_live(original, {"protect_domains": False, "fallback": False, "optimize": sys.flags.optimize > 0})
    assert static["source"] == live["source"] == mod.f.source
    assert assumptions_hold(original, static["assumptions"]), static["assumptions"]


def test_every_table_name_has_a_case():
    assert sorted(CASES) == sorted(_core.NUMPY_NAMES)


@pytest.mark.parametrize("spelling", sorted(SPELLINGS))
@pytest.mark.parametrize("name", sorted(CASES))
def test_numpy_name_matches_numpy_in_every_spelling(name, spelling, backend, load):
    extra = name in EXTRA and not (name == "polyval" and spelling == "as_alias")
    forms = [CASES[name]] + ([EXTRA[name]] if extra else [])
    for body, params in forms:
        text = module_text(name, spelling, body, params)
        mod, path = load(text)
        columns = [X, Y][: len(params)]
        grid = np.meshgrid(*columns, indexing="ij")
        args = [g.ravel() for g in grid]
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            oracle = on_numpy_scalars(mod.f._vectorized_original, name in CASTS_TO_INT)
            check(mod.f, *args, backend=backend, scalar=oracle, ulps=ULPS.get(name, 0))
            if name in KIND_KEEPING and params == "x":
                for column in (INTS, BOOLS) if name in BOOL_KEEPING else (INTS,):
                    check(mod.f, column, backend=backend, scalar=oracle)
        if backend == "numpy":
            assert_static_is_live(mod, path, text)


def test_a_numpy_function_outside_the_table_is_reported_or_called_per_element(load):
    text = "from numpy import sinc\n\nfrom array_vectorize import vectorize\n\n\ndef f(x):\n    return sinc(x) + 1.0\n"
    mod, path = load(text)
    with pytest.raises(VectorizationError, match="numpy.sinc`, which is not in the NumPy table of docs/numpy.md"):
        vectorize(mod.f)
    x = np.array([0.0, 0.5, 2.0])
    assert np.array_equal(vectorize(mod.f, fallback=True)(x), np.sinc(x) + 1.0)
    (static,) = _core.compile_module(text.replace("def f", "@vectorize\ndef f"), str(path))
    assert static["status"] == "deferred" and "sinc" in static["deferred"], static


def test_a_static_assumption_on_a_numpy_name_fails_for_another_object(load):
    text = module_text("exp", "by_name", UNARY, "x")
    mod, path = load(text)
    (static,) = _core.compile_module(text, str(path))
    assert ("exp", ("numpy_member", "exp")) in [(n, tuple(b)) for n, b in static["assumptions"]]
    original = mod.f._vectorized_original
    original.__globals__["exp"] = math.exp
    assert not assumptions_hold(original, static["assumptions"])


def test_full_like_of_a_parameter_needs_its_kind_said(load):
    text = "import numpy as np\n\n\ndef f(x):\n    return np.full_like(x, 2.5)\n"
    mod, _ = load(text)
    with pytest.raises(VectorizationError, match="dtype=float"):
        vectorize(mod.f)


def test_numpy_round_with_decimals_needs_the_kind_of_its_argument(load):
    text = "import numpy as np\n\n\ndef f(x):\n    return np.round(x, 2)\n"
    mod, _ = load(text)
    with pytest.raises(VectorizationError, match=r"np.round\(float\(x\), decimals\)"):
        vectorize(mod.f)


def test_numpy_int_cast_outside_int64(load):
    """Semantics item 40: NumPy's cast of nan, ±inf or a float beyond int64 to an int is undefined
    (INT64_MIN on x86); vectorized code gives item 7's values, as `int()` does vectorized."""
    text = "import numpy as np\n\n\ndef f(x):\n    return np.int64(x) + x.astype(int) - np.astype(x, 'int64')\n"
    mod, _ = load(text)
    x = np.array([math.nan, math.inf, -math.inf, 1e300, -1e300, 2.0**63, -(2.0**63), 2.5])
    got = vectorize(mod.f)(x)
    expected = [0, 2**63 - 1, -(2**63), 2**63 - 1, -(2**63), 2**63 - 1, -(2**63), 2]
    assert got.dtype == np.int64 and got.tolist() == expected
