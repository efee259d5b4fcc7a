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

import importlib.util
import json
import math
import shutil
import sys
from pathlib import Path

import pytest
from buildenv import REPO, clean_env, new_venv, pip_into, python_of, run
from oracle import leaves_the_lattice

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
    "day_number",
    "modified_julian_date",
    "elapsed_days",
    "days_left",
    "week_offset",
)
#: Decorated before a name they read is bound (their class, a helper below): compiled, or
#: their precompiled code checked, at the first call.
AT_FIRST_CALL = {"Wgs84.normal_radius", "Wgs84.meridian_radius", "geodetic_to_ecef_z", "julian_day"}
#: No transcendental function on the way: the result is CPython's, bit for bit.
EXACT = {"Wgs84.Sphere.arc_length", "transverse_scale", "julian_day", "julian_century", "days_in_year",
         "day_number", "modified_julian_date", "elapsed_days", "days_left", "week_offset"}
#: Day counters held as uint64 (docs/semantics.md item 13, issue 28 item 3), each call's columns
#: (dtype letters: u uint64, f float64): months near 2**64 in the calendar (`14 - month` leaves
#: [-2**63, 2**64)), a year near 2**63 (`365 * y` beyond 2**64), spans whose side CPython does not
#: take would leave it, and lanes from 2**63 up beside negative ones.
U64 = 2**64
UINT64_CASES = [
    ("day_number", "uuu", [[2000, 2000], [3, U64 - 2], [1, 1]]),
    ("day_number", "uuu", [[2000, 1999, 2**63 - 5000], [U64 - 2, 3, 1], [1, 1, 1]]),
    ("day_number", "uuu", [[2000, 1582, 9999, 0], [12, 10, 1, 3], [31, 15, 1, 1]]),
    ("modified_julian_date", "uuuf", [[2000, 2024], [U64 - 3, 2], [1, 29], [0.0, 43200.0]]),
    ("modified_julian_date", "uuuf", [[2000, 1858], [1, 11], [1, 17], [86399.5, 0.0]]),
    ("elapsed_days", "uu", [[0, 5, U64 - 1, 2**63], [U64 - 1, 3, 0, 2**63 + 7]]),
    ("days_left", "uu", [[0, 10, U64 - 1, 7], [U64 - 1, 3, 0, 7]]),
    ("week_offset", "uu", [[U64 - 1, 0, 2**63], [0, 9, 0]]),
    ("week_offset", "uu", [[3, 0], [0, U64 - 1]]),
]

# Runs in the interpreter under test: every marked function against its scalar original (CPython
# element by element), its generated source and docstring next to what the decorator generates
# for the live function, and the counters after the import and after the calls.
PROBE = "UINT64_CASES = " + repr(UINT64_CASES) + r"""
import inspect, json, math, sys
import numpy as np
import array_vectorize
import geodesy
from geodesy import daycount, ellipsoid, projections, timescales
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
    "day_number": (daycount.day_number, (years, months, days)),
    "modified_julian_date": (daycount.modified_julian_date, (years, months, days, days * 3600.0)),
    "elapsed_days": (daycount.elapsed_days, (years, years[::-1].copy())),
    "days_left": (daycount.days_left, (years, years[::-1].copy())),
    "week_offset": (daycount.week_offset, (years, 1721426)),
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

# Day counters held as uint64 (UINT64_CASES): each call's outcome, and each lane's called alone.
def outcome(fn, columns):
    try:
        got = fn(*columns)
    except Exception as exc:
        return ["raise", type(exc).__name__, str(exc)]
    got = np.asarray(got)
    return ["values", str(got.dtype), got.tolist()]

report["uint64"] = []
for name, dtypes, columns in UINT64_CASES:
    arrays = [np.array(c, dtype=np.uint64 if k == "u" else np.float64) for k, c in zip(dtypes, columns)]
    fn = getattr(daycount, name)
    report["uint64"].append({
        "call": outcome(fn, arrays),
        "alone": [outcome(fn, [a[i:i + 1] for a in arrays]) for i in range(len(columns[0]))],
    })
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
    _check_uint64(report["uint64"])
    return {name: r["source"] for name, r in report["functions"].items()}


def _daycount_originals() -> dict:
    """The scalar originals of examples/geodesy's daycount module, loaded in this process."""
    spec = importlib.util.spec_from_file_location("geodesy_daycount_oracle", EXAMPLE / "src" / "geodesy" / "daycount.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return {name: getattr(module, name)._vectorized_original for name, _, _ in UINT64_CASES}


def _cpython(original, args) -> tuple:
    """CPython's outcome of one lane: ("beyond",) when it computes an int outside
    [-2**63, 2**64) on its own path (docs/semantics.md item 13's OverflowError), else its value."""
    if leaves_the_lattice(original, args):
        return ("beyond",)
    return ("value", original(*args))


def _lane_matches(got, kind: str, want) -> bool:
    """A lane of the vectorized result against CPython's value: an int exactly in a uint64
    result, modulo 2**64 in an int64 one (item 13), a float bit for bit."""
    if isinstance(want, float):
        return kind == "float64" and got == want and math.copysign(1.0, got) == math.copysign(1.0, want)
    return kind in ("uint64", "int64") and (got - want) % U64 == 0 and (kind == "int64" or got == want)


def _check_uint64(cases: list) -> None:
    """Issue 28 item 3 through this path: each uint64 call equals CPython element by element,
    each lane's value independent of the others (the same lane called alone), and a call raises
    item 13's OverflowError exactly when a lane's own path leaves [-2**63, 2**64), naming the
    first such lane in C order."""
    originals = _daycount_originals()
    assert len(cases) == len(UINT64_CASES)
    for (name, dtypes, columns), got in zip(UINT64_CASES, cases):
        lanes = [tuple(float(v) if k == "f" else v for k, v in zip(dtypes, lane)) for lane in zip(*columns)]
        want = [_cpython(originals[name], lane) for lane in lanes]
        beyond = [i for i, w in enumerate(want) if w[0] == "beyond"]
        for i, (w, alone) in enumerate(zip(want, got["alone"])):
            if w[0] == "beyond":
                assert alone[:2] == ["raise", "OverflowError"] and "flat index 0" in alone[2], (name, lanes[i], alone)
                assert "(docs/semantics.md item 13)" in alone[2], (name, lanes[i], alone)
            else:
                assert alone[0] == "values" and _lane_matches(alone[2][0], alone[1], w[1]), (name, lanes[i], alone, w)
        call = got["call"]
        if beyond:
            assert call[:2] == ["raise", "OverflowError"], (name, columns, call)
            assert f"flat index {beyond[0]}" in call[2] and "(docs/semantics.md item 13)" in call[2], (name, columns, call)
            continue
        assert call[0] == "values", (name, columns, call)
        values = [w[1] for w in want]
        if all(isinstance(v, int) for v in values):
            assert call[1] == ("uint64" if min(values) >= 0 else "int64"), (name, columns, call)
        assert all(_lane_matches(g, call[1], v) for g, v in zip(call[2], values)), (name, columns, call, values)


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
