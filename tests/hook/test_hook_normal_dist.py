"""`statistics.NormalDist` objects bound at module level (issue 27, D8, D17) through the import
hook in a fresh interpreter: the corpus module tests/corpus/kit_objects/normal.py (percentiles,
densities and quantiles of `NormalDist(100.0, 15.0)`, `NormalDist()`, `NormalDist(mu=50.0,
sigma=0.02)`) is compiled by the hook itself from `statistics.py`'s text (nothing left to the
decorator), to the decorator's source, and runs as CPython on NumPy and array-api-strict,
StatisticsError included; read from the hook's cache under ARRAY_VECTORIZE_NO_COMPILE=1, it still
runs. A NormalDist the text does not pin is left to the decorator, with the reason in the debug
log."""

from __future__ import annotations

from pathlib import Path

from hookproj import Project

KIT = Path(__file__).resolve().parents[1] / "corpus" / "kit_objects"

# Each marked function of the module on NumPy and array-api-strict, against CPython's element
# loop over the scalar original: within docs/semantics.md item 48's accuracy (2.3e-16 absolute
# or 16 ulps: `cdf` on the D17 helper `erf`, `z_of` a quotient of `inv_cdf`'s), or the same
# exception class and args.
PROBE = """
import importlib, math
import numpy as np
import array_api_strict as xp

def scalar(original, values):
    out = []
    for v in values:
        try:
            out.append(original(v))
        except Exception as e:
            return ("raise", type(e).__name__, repr(e.args))
    return ("values", out)

def close(a, b):
    if a != a or b != b or a == b:
        return (a != a and b != b) or (a == b and math.copysign(1.0, a) == math.copysign(1.0, b))
    return abs(a - b) <= max(2.3e-16, 16 * math.ulp(b))

def vector(fn, values, backend):
    arr = np.asarray(values) if backend == "numpy" else xp.asarray(values)
    try:
        got = fn(arr)
    except Exception as e:
        return ("raise", type(e).__name__, repr(e.args))
    return ("values", [float(g) for g in np.asarray(got).tolist()])

rng = np.random.default_rng(48)
SCORES = [0.0, -0.0, 100.0, 85.0, 1e-310, 1e300, -1e300, math.inf, -math.inf, math.nan, 50.01, 49.99] + rng.normal(100.0, 40.0, 60).tolist()
PERCENT = [50.0, 7.5, 92.5, 1e-10, 99.9999, 25.0] + rng.uniform(0.0, 100.0, 40).tolist()
PROBABILITY = [0.5, 0.075, 0.925, 1e-300, 5e-324, 0.999999999999999] + rng.uniform(0.0, 1.0, 40).tolist()
OUTSIDE = [0.5, 0.0, 1.0, -0.5]
VALUES = {"iq_percentile": SCORES, "standard_density": SCORES, "within_tolerance": [0.0, 0.01, 0.02, 0.05, -0.01, math.nan],
          "upper_tail": SCORES, "iq_at_percentile": PERCENT, "z_of": PROBABILITY}
mod = importlib.import_module(MODULE)
out = {}
for name, fn in sorted(vars(mod).items()):
    if not hasattr(fn, "_vectorized_original") or fn.__module__ != mod.__name__:
        continue
    cases = [("values", VALUES[name])] + ([("outside", OUTSIDE)] if name == "z_of" else [])
    for label, values in cases:
        want = scalar(fn._vectorized_original, values)
        for backend in ("numpy", "strict"):
            got = vector(fn, values, backend)
            ok = got == want if want[0] == "raise" or got[0] == "raise" else all(map(close, got[1], want[1]))
            out[f"{name}/{label}/{backend}"] = {"ok": ok, "got": repr(got), "want": repr(want), "source": fn.source}
"""


def _write_kit(project: Project) -> None:
    for path in sorted(KIT.glob("*.py")):
        project.write(f"kit_objects/{path.name}", path.read_text())


def _assert_cpythons(res) -> None:
    assert len(res.out) == 6 * 2 + 2, sorted(res.out)
    for key, got in res.out.items():
        assert got["ok"], (key, got["got"], got["want"])
    assert "StatisticsError" in res.out["z_of/outside/numpy"]["got"]


def test_normal_dists_compile_in_the_hook_as_in_the_decorator_and_run_as_cpython(project: Project):
    """Fails before: the hook left the six functions to the decorator (hook_hits 0)."""
    _write_kit(project)
    probe = "MODULE = 'kit_objects.normal'\n" + PROBE
    plain = project.run(probe, hook=False)
    cold = project.run(probe)
    assert cold.stats["hook_hits"] == 6, cold.stats
    assert plain.stats["hook_hits"] == 0
    _assert_cpythons(cold)
    for key, got in plain.out.items():
        assert cold.out[key] == got, key
    # From the hook's cache, compiling forbidden: every function is the hook's.
    locked = project.run(probe, env={"ARRAY_VECTORIZE_NO_COMPILE": "1"})
    assert locked.stats["compiled"] == 0, locked.stats
    _assert_cpythons(locked)


def test_a_normal_dist_the_text_does_not_pin_is_left_to_the_decorator_with_the_reason(project: Project):
    _write_kit(project)
    text = (KIT / "normal.py").read_text().replace("IQ = NormalDist(100.0, 15.0)", "IQ = NormalDist(*(100.0, 15.0))")
    project.write("kit_objects/normal.py", text)
    probe = "MODULE = 'kit_objects.normal'\n" + PROBE
    res = project.run(probe, env={"ARRAY_VECTORIZE_DEBUG": "hook"})
    # The three functions reading IQ are the decorator's; the other three the hook's.
    assert res.stats["hook_hits"] == 3, res.stats
    assert "iq_percentile (line" in res.stderr and "`IQ`, a `statistics.NormalDist` whose `mu` and `sigma` the module's text does not give as numbers" in res.stderr, res.stderr
    _assert_cpythons(res)
