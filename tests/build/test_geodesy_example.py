"""Issue 31: the geodesy example (examples/geodesy: a library in the style of scientific packages,
with every shape of mark and of static resolution the issue names) through the three ways in:

- the decorator alone (a fresh interpreter, no hook),
- the import hook, cold then warm (fresh interpreters, the second reading the first's cache),
- a wheel built by ``python -m build --wheel`` with ``array_vectorize.build``, installed into a
  fresh environment and run with ``ARRAY_VECTORIZE_NO_COMPILE=1``.

Every way gives the decorator's generated source byte for byte (and its docstring), and every
function equals CPython running the scalar original element by element. The shapes: a helper
defined below the marked function (`geodetic_to_ecef_z`, `julian_day`), methods naming their own
class (`Wgs84.normal_radius`), marks under `@staticmethod` and `@classmethod` in either order and
in a nested class, a factory of marked functions called three times at import, a constant
expression (`RAD = pi / 180.0`), constants computed from each other and by a helper of another
module (`POLE = to_rad(90.0)`), a module-level lambda (`wrap180`), an exception class imported
from another module (`LatitudeError`), a standard library function (`calendar.isleap`).

The wheel is built once per session and installed once (the `geodesy_venv` fixture).
"""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path

import pytest
from buildenv import REPO, clean_env, new_venv, pip_into, python_of, run

EXAMPLE = REPO / "examples" / "geodesy"

#: Decorations of the example: one per marked function, the factory's once per call.
FUNCTIONS = (
    "Wgs84.normal_radius",
    "Wgs84.meridian_radius",
    "Wgs84.geocentric_latitude",
    "Wgs84.reduced_latitude",
    "Wgs84.Sphere.arc_length",
    "geodetic_to_ecef_z",
    "surface_distance",
    "mercator_y",
    "web_mercator_y",
    "transverse_y",
    "transverse_scale",
    "julian_day",
    "julian_century",
    "days_in_year",
)
#: Decorated before a name they read is bound (their class, a helper below): compiled, or
#: their precompiled code checked, at the first call.
AT_FIRST_CALL = {"Wgs84.normal_radius", "Wgs84.meridian_radius", "geodetic_to_ecef_z", "julian_day"}
#: No transcendental function on the way: the result is CPython's, bit for bit.
EXACT = {"Wgs84.Sphere.arc_length", "transverse_scale", "julian_day", "julian_century", "days_in_year"}

# Runs in the interpreter under test: every marked function against its scalar original (CPython
# element by element), its generated source and docstring next to what the decorator generates
# for the live function, and the counters after the import and after the calls.
PROBE = r"""
import inspect, json, math, sys
import numpy as np
import array_vectorize
import geodesy
from geodesy import ellipsoid, projections, timescales
from geodesy.ellipsoid import Wgs84

after_import = array_vectorize.stats()
pending = {name for name, fn in [
    ("Wgs84.normal_radius", Wgs84.normal_radius), ("Wgs84.meridian_radius", Wgs84.meridian_radius),
    ("geodetic_to_ecef_z", ellipsoid.geodetic_to_ecef_z), ("julian_day", timescales.julian_day),
] if "Not compiled yet" in fn.source}

rng = np.random.default_rng(31)
n = 48
def pick(lo, hi, *edges):
    return np.concatenate([rng.uniform(lo, hi, n), np.array(edges, dtype=float)])

lat = pick(-90.0, 90.0, 0.0, -0.0, 90.0, -90.0, 1e-300, 45.0, -89.999, math.nan)
m = lat.size
lon = pick(-540.0, 540.0, 0.0, -0.0, 180.0, -180.0, 360.0, 1e-300, 539.5, math.nan)
years = np.concatenate([rng.integers(-4712, 3000, n), [1582, 1600, 1700, 1900, 2000, 2024, 2100, 0]])
months = np.concatenate([rng.integers(1, 13, n), [10, 2, 3, 1, 12, 2, 3, 1]])
days = np.concatenate([rng.uniform(1.0, 28.0, n), [15.0, 29.0, 1.0, 31.0, 31.5, 29.0, 1.0, 1.0]])

calls = {
    "Wgs84.normal_radius": (Wgs84.normal_radius, (lat,)),
    "Wgs84.meridian_radius": (Wgs84.meridian_radius, (lat,)),
    "Wgs84.geocentric_latitude": (Wgs84.geocentric_latitude, (lat,)),
    "Wgs84.reduced_latitude": (Wgs84.reduced_latitude, (lat,)),
    "Wgs84.Sphere.arc_length": (Wgs84.Sphere.arc_length, (lon,)),
    "geodetic_to_ecef_z": (ellipsoid.geodetic_to_ecef_z, (lat, pick(-400.0, 9000.0, *[0.0] * 8))),
    "surface_distance": (ellipsoid.surface_distance, (lat, lon, lat[::-1].copy(), lon[::-1].copy())),
    "mercator_y": (projections.mercator_y, (lat,)),
    "web_mercator_y": (projections.web_mercator_y, (lat,)),
    "transverse_y": (projections.transverse_y, (lat,)),
    "transverse_scale": (projections.transverse_scale, (lon, 9.0)),
    "julian_day": (timescales.julian_day, (years, months, days)),
    "julian_century": (timescales.julian_century, (pick(2.0e6, 2.6e6, 2451545.0, 0.0, -0.0, 2451545.5, 1e-300, 2.5e6, 2415020.0, math.inf),)),
    "days_in_year": (timescales.days_in_year, (years,)),
}

def scalar(original, name):
    # A classmethod's original takes the class first; the class's marked methods are reached
    # through it, as the vectorized ones are.
    if name in ("Wgs84.geocentric_latitude", "Wgs84.reduced_latitude"):
        return lambda *a: original(Wgs84, *a)
    return original

def ulps(got, want):
    got, want = np.asarray(got, dtype=float), np.asarray(want, dtype=float)
    same = (got == want) | (np.isnan(got) & np.isnan(want))
    spacing = np.spacing(np.abs(want))
    diff = np.where(same, 0.0, np.abs(got - want) / np.where(spacing > 0, spacing, np.inf))
    return float(np.nanmax(np.where(np.isnan(diff), np.inf, diff)))

report = {"after_import": after_import, "pending_after_import": sorted(pending), "functions": {}}
with np.errstate(all="ignore"):
    for name, (vec, args) in calls.items():
        got = vec(*args)
        original = scalar(vec._vectorized_original, name)
        lanes = np.broadcast_arrays(*[np.asarray(a) for a in args])
        want = [original(*[a[i].item() for a in lanes]) for i in range(lanes[0].size)]
        report["functions"][name] = {
            "ulps": ulps(got, want),
            "bits": np.asarray(got, dtype=float).tobytes().hex() == np.asarray(want, dtype=float).tobytes().hex(),
            "dtype": str(np.asarray(got).dtype),
            "source": vec.source,
            "doc": vec.__doc__,
            "getsource_in_source": inspect.getsource(vec) in vec.source,
        }
    try:
        ellipsoid.geodetic_to_ecef_z(np.array([10.0, 91.5, -95.0]), 0.0)
        raised = None
    except geodesy.LatitudeError as exc:
        raised = [type(exc).__name__, str(exc)]
report["raised"] = raised
report["after_calls"] = array_vectorize.stats()

# What the decorator generates for each live function (compiled here, after the counters).
from array_vectorize.api import compile_live
from array_vectorize.docstring import vectorized_docstring
options = {"protect_domains": False, "fallback": False, "optimize": False, "nan_on_raise": False}
for name, (vec, _) in calls.items():
    compiled, _ = compile_live(vec._vectorized_original, options)
    r = report["functions"][name]
    r["live_source"] = compiled["source"]
    r["live_doc"] = vectorized_docstring(vec._vectorized_original, compiled["scalar_source"])
print("REPORT:" + json.dumps(report))
"""


def _report(proc) -> dict:
    lines = [line for line in proc.stdout.splitlines() if line.startswith("REPORT:")]
    assert lines, proc.stdout + proc.stderr
    return json.loads(lines[0][len("REPORT:") :])


def _check(report: dict) -> dict[str, str]:
    """Every function equals CPython (bit for bit where EXACT, else within 4 ulps: the array
    library's transcendental functions, docs/semantics.md), with the decorator's source and
    docstring; returns the sources."""
    assert sorted(report["functions"]) == sorted(FUNCTIONS)
    assert set(report["pending_after_import"]) == AT_FIRST_CALL
    for name, r in report["functions"].items():
        assert r["source"] == r["live_source"], name
        assert r["doc"] == r["live_doc"], name
        assert r["getsource_in_source"], name
        if name in EXACT:
            assert r["bits"], name
        else:
            assert r["ulps"] <= 4, (name, r["ulps"])
    assert report["functions"]["days_in_year"]["dtype"] == "int64"
    # D11: the first beyond-pole element's exception, message built from its value.
    assert report["raised"] == ["LatitudeError", "latitude 91.5 is beyond a pole"]
    return {name: r["source"] for name, r in report["functions"].items()}


def _source_tree(tmp_path: Path) -> Path:
    src = tmp_path / "src"
    shutil.copytree(EXAMPLE / "src", src, ignore=shutil.ignore_patterns("__pycache__"))
    return src


@pytest.fixture(scope="session")
def decorator_sources(tmp_path_factory) -> dict[str, str]:
    """The sources the decorator alone generates (no hook, no wheel)."""
    src = _source_tree(tmp_path_factory.mktemp("geodesy-plain"))
    report = _report(run([sys.executable, "-c", PROBE], env=clean_env(PYTHONPATH=str(src))))
    stats = report["after_calls"]
    assert report["after_import"]["compiled"] == len(FUNCTIONS) - len(AT_FIRST_CALL), report["after_import"]
    assert report["after_import"]["first_call"] == len(AT_FIRST_CALL)
    assert stats["compiled"] == len(FUNCTIONS) and stats["hook_hits"] == stats["precompiled_hits"] == 0, stats
    return _check(report)


@pytest.fixture(scope="session")
def geodesy_venv(tmp_path_factory, wheelhouse, base_env) -> Path:
    """The example's wheel, built once by `python -m build --wheel` (an isolated build, offline),
    installed into a fresh environment."""
    root = tmp_path_factory.mktemp("geodesy-build")
    project = root / "geodesy"
    shutil.copytree(EXAMPLE, project, ignore=shutil.ignore_patterns("__pycache__", "dist", "build", "*.egg-info"))
    out = root / "dist"
    proc = run([sys.executable, "-m", "build", "--wheel", "--outdir", out, project], env=wheelhouse.pip_env())
    assert f"precompiled {len(FUNCTIONS)} marked function(s)" in proc.stdout + proc.stderr, proc.stderr[-3000:]
    (wheel,) = out.glob("geodesy-*.whl")
    venv = new_venv(root / "venv", base=base_env)
    pip_into(venv, "install", "--no-deps", "--no-index", wheel)
    return venv


def test_the_decorator_alone_compiles_every_shape_and_matches_cpython(decorator_sources):
    assert len(decorator_sources) == len(FUNCTIONS)


def test_the_import_hook_serves_every_function_cold_and_warm(tmp_path, decorator_sources):
    src = _source_tree(tmp_path)
    env = clean_env(PYTHONPATH=str(src), ARRAY_VECTORIZE_DEBUG="hook")
    code = "import array_vectorize.auto\n" + PROBE
    cold = run([sys.executable, "-c", code], env=env, cwd=tmp_path)
    warm = run([sys.executable, "-c", code], env=env, cwd=tmp_path)
    cold_report, warm_report = _report(cold), _report(warm)
    # Cold: the hook compiled every function statically; the decorators used its code, the four
    # waiting for their first call too. Warm: read from the cache, nothing compiled at all.
    assert cold_report["after_import"]["hook_hits"] == len(FUNCTIONS) - len(AT_FIRST_CALL)
    assert cold_report["after_calls"]["hook_hits"] == len(FUNCTIONS), cold_report["after_calls"]
    assert cold_report["after_calls"]["compiled"] == len(FUNCTIONS)  # by the hook, statically
    assert warm_report["after_calls"]["disk_cache_hits"] == len(FUNCTIONS), warm_report["after_calls"]
    assert warm_report["after_calls"]["compiled"] == 0
    assert "left to the decorator" not in cold.stderr + warm.stderr
    assert _check(cold_report) == _check(warm_report) == decorator_sources


def test_the_wheel_runs_every_function_precompiled_with_compiling_forbidden(geodesy_venv, decorator_sources):
    proc = run([python_of(geodesy_venv), "-c", PROBE], env=clean_env(ARRAY_VECTORIZE_NO_COMPILE="1"), cwd=geodesy_venv)
    report = _report(proc)
    assert report["after_import"]["compiled"] == 0 and report["after_calls"]["compiled"] == 0
    assert report["after_import"]["precompiled_hits"] == len(FUNCTIONS) - len(AT_FIRST_CALL)
    assert report["after_calls"]["precompiled_hits"] == len(FUNCTIONS), report["after_calls"]
    assert _check(report) == decorator_sources
