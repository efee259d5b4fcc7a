"""Recursion with a scalar residue (D19), exceptions as written (D21) and element-wise call sites
(D23) give byte-identical generated source on the three ways in: the decorator (live compile),
the import hook's static compile and the build backend's artifact. A function decorated with
`@vectorize` that calls itself by its own name, module-level message strings and exception
classes with their own `__init__` are assumptions the decorator checks against the live module,
and the result of every path matches CPython."""

from __future__ import annotations

import importlib
import math
import sys

import numpy as np
import pytest

from array_vectorize import _core
from array_vectorize.api import compile_live
from array_vectorize.build import config, precompile
from array_vectorize.build.wheelfile import Entry
from array_vectorize.precompiled import assumptions_hold

from three_ways import module_on_path

MODULE = '''\
import math

from array_vectorize import vectorize

OUT_OF_RANGE = "t=%g is outside the valid range"


class TableError(ValueError):
    def __init__(self, quantity, value, low, high):
        super().__init__(f"{quantity}={value!r} outside [{low}, {high}]")
        self.value = value


def lgamma_shift(x):
    if x < 7.0:
        return lgamma_shift(x + 1.0) - math.log(x)
    return (x - 0.5) * math.log(x) - x + 0.5 * math.log(2.0 * math.pi) + 1.0 / (12.0 * x)


@vectorize
def falling(n, k):
    if k <= 0:
        return 1
    return n * falling(n - 1, k - 1)


@vectorize
def normcdf(x):
    if x < 0.0:
        return 1.0 - normcdf(-x)
    return 0.5 * math.erfc(-x / math.sqrt(2.0))


@vectorize
def log_beta(a, b):
    if a <= 0.0 or b <= 0.0:
        raise TableError("a+b", a + b, 0.0, math.inf)
    return lgamma_shift(a) + lgamma_shift(b) - lgamma_shift(a + b)


@vectorize
def saturation(t):
    if t < 273.16 or t > 647.096:
        raise ValueError(OUT_OF_RANGE % t)
    return 22.064 * math.exp(7.85951783 * (1.0 - 647.096 / t))


@vectorize(fallback="calls")
def permutations(n, k):
    if k < 0 or k > n:
        return 0
    return math.factorial(n) // math.factorial(n - k)
'''

NAMES = ("falling", "normcdf", "log_beta", "saturation", "permutations")


@pytest.fixture
def module(tmp_path, monkeypatch):
    with module_on_path(MODULE, "avrec", tmp_path, monkeypatch) as found:
        yield found


def test_decorator_hook_and_backend_give_the_same_source(module):
    name, tmp_path = module
    static = {e["name"]: e for e in _core.compile_module(MODULE, str(tmp_path / f"{name}.py"))}
    dist_info = f"{name}-0.1.0.dist-info"
    entries = {f"{name}/__init__.py": Entry(b""), f"{name}/m.py": Entry(MODULE.encode())}
    artifacts, report = precompile.precompile(entries, dist_info, config.from_table({}), str(tmp_path))
    mod = importlib.import_module(name)
    for fn_name in NAMES:
        assert static[fn_name]["status"] == "ok", static[fn_name]
        (artifact,) = [e.data.decode() for k, e in artifacts.items() if k.endswith(f"{fn_name}.py")]
        vec = getattr(mod, fn_name)
        options = {
            "protect_domains": False,
            "fallback": fn_name == "permutations",
            "optimize": sys.flags.optimize > 0,
            "nan_on_raise": False,
        }
        live, _ = compile_live(vec._vectorized_original, options)
        assert live["source"] == static[fn_name]["source"] == artifact == vec.source, fn_name
        assert assumptions_hold(vec._vectorized_original, static[fn_name]["assumptions"]), fn_name
        assert live["element_sites"] == static[fn_name]["element_sites"]
    assert "_vec_residue(xp, _vec_scalar_falling," in mod.falling.source
    assert "_vec_residue" not in mod.normcdf.source
    assert "_vec_residue(xp, _vec_scalar_lgamma_shift," in mod.log_beta.source
    assert "_vec_call_site(" in mod.permutations.source


def test_the_assumptions_are_checked(module, monkeypatch):
    name, _ = module
    mod = importlib.import_module(name)
    static = {e["name"]: e for e in _core.compile_module(MODULE, mod.__file__)}
    original = mod.saturation._vectorized_original
    assert assumptions_hold(original, static["saturation"]["assumptions"])
    monkeypatch.setattr(mod, "OUT_OF_RANGE", 1.5)
    assert not assumptions_hold(original, static["saturation"]["assumptions"])
    beta = mod.log_beta._vectorized_original
    assert assumptions_hold(beta, static["log_beta"]["assumptions"])
    monkeypatch.setattr(mod, "TableError", type("TableError", (KeyError,), {}))
    assert not assumptions_hold(beta, static["log_beta"]["assumptions"])


def test_results_of_the_precompiled_functions(module):
    name, _ = module
    mod = importlib.import_module(name)
    n, k = np.array([5, 20, 12, 3]), np.array([2, 15, 12, 9])
    assert mod.falling(n, k).tolist() == [math.perm(a, b) for a, b in zip(n.tolist(), k.tolist())]
    assert mod.permutations(n, k).tolist() == [math.perm(a, b) if b <= a else 0 for a, b in zip(n.tolist(), k.tolist())]
    x = np.array([0.5, 3.5, 25.0])
    got = mod.log_beta(x, x[::-1])
    expected = [mod.log_beta._vectorized_original(a, b) for a, b in zip(x.tolist(), x[::-1].tolist())]
    assert np.allclose(got, expected, rtol=1e-13)
    with pytest.raises(ValueError, match=r"^t=200 is outside the valid range\n"):
        mod.saturation(np.array([300.0, 200.0]))
    with pytest.raises(mod.TableError) as info:
        mod.log_beta(np.array([1.0, -2.0]), np.array([1.0, 1.0]))
    assert info.value.value == -1.0
