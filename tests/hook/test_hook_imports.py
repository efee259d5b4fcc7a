"""Issue 12: the import hook compiles a marked function that calls a helper of another module of
its package (``from .units import to_k``, ``from pkg.units import to_k``, ``import pkg.units as
u`` then ``u.to_k(t)``) from that module's text, with the decorator's generated code; the cache
file pins the other module's bytes, so editing it is seen by the next process. What the text
cannot pin down (a dynamic import, a module that is not Python source, a name rebound at run
time) is still left to the decorator. Each case runs in fresh interpreters against CPython."""

from __future__ import annotations

import py_compile

from hookproj import CALLS, Project

UNITS = '''\
OFFSET = 273.15
LIMITS = (-273.15, 1e4)


def clamp(k):
    if k < 0.0:
        return 0.0
    return abs(k)   # a builtin read in this module: assumed as `pkg.units:abs`


def to_kelvin(c):
    if c < LIMITS[0]:
        return -1.0
    return clamp(c + OFFSET)
'''

CONV = '''\
import math

from array_vectorize import vectorize
from .units import to_kelvin
from pkg.units import to_kelvin as tk, OFFSET
import pkg.units as u


@vectorize
def kelvin_twice(c):
    return to_kelvin(c) * 2.0


@vectorize
def mixed(c, d):
    if d > c:
        return tk(c) + u.to_kelvin(d) - OFFSET
    return math.sqrt(abs(u.clamp(c))) + u.OFFSET
'''

PROBE = (
    CALLS
    + """
import pkg.conv as m
cs = [-400.0, -273.15, -273.16, -0.0, 0.0, 25.5, 1e300, float("nan"), float("inf"), -float("inf")]
ds = [0.0, 1.0, -300.0, 5.0, -5.0, 30.0, float("inf"), 2.0, float("nan"), 0.0]
out = {}
for name, args in (("kelvin_twice", (cs,)), ("mixed", (cs, ds))):
    vec = getattr(m, name)
    got = vec(*[np.array(a) for a in args]).tolist()
    want = [vec._vectorized_original(*lane) for lane in zip(*args)]
    out[name] = {"got": repr(got), "want": repr(want), "source": vec.source}
"""
)


def _package(project: Project) -> None:
    project.write("pkg/__init__.py", "")
    project.write("pkg/units.py", UNITS)
    project.write("pkg/conv.py", CONV)


def _same_as_cpython(res) -> None:
    for name, r in res.out.items():
        assert r["got"] == r["want"], name


def test_helpers_of_a_sibling_module_compile_in_the_hook_and_match_cpython(project: Project):
    _package(project)
    plain = project.run(PROBE, hook=False)
    cold = project.run(PROBE)
    warm = project.run(PROBE)
    for res in (plain, cold, warm):
        _same_as_cpython(res)
    # The hook compiled both (nothing left to the decorators), and the warm import read them back.
    assert cold.stats["hook_hits"] == 2 and cold.stats["hook_modules_compiled"] == 1, cold.stats
    assert warm.stats["disk_cache_hits"] == 2 and warm.stats["compiled"] == 0, warm.stats
    assert plain.stats["hook_hits"] == 0
    for name in ("kelvin_twice", "mixed"):
        assert cold.out[name]["source"] == warm.out[name]["source"] == plain.out[name]["source"], name
    assert "273.15" in cold.out["kelvin_twice"]["source"]


def test_editing_the_helpers_module_invalidates_the_importers_cache(project: Project):
    """Fails before issue 12's cache check: the importer's cache file is keyed by its own bytes."""
    _package(project)
    debug = {"ARRAY_VECTORIZE_DEBUG": "hook"}
    first = project.run(PROBE)
    warm = project.run(PROBE)
    assert warm.stats["disk_cache_hits"] == 2
    # A new helper body and a new constant in units.py only; conv.py is untouched.
    units = project.root / "pkg" / "units.py"
    units.write_text(UNITS.replace("OFFSET = 273.15", "OFFSET = 300.0").replace("return -1.0", "return -7.5"))
    edited = project.run(PROBE, env=debug)
    _same_as_cpython(edited)
    assert edited.out != first.out
    assert "300.0" in edited.out["kelvin_twice"]["source"] and "-7.5" in edited.out["kelvin_twice"]["source"]
    assert "units.py, which it imports from, changed" in edited.stderr, edited.stderr
    assert edited.stats["hook_cache_invalid"] == 1 and edited.stats["hook_modules_compiled"] == 1
    assert edited.stats["hook_hits"] == 2  # the hook's new compile served both, not the decorators
    again = project.run(PROBE)
    assert again.stats["disk_cache_hits"] == 2 and again.stats["compiled"] == 0
    assert again.out == edited.out


def test_what_the_text_cannot_pin_down_is_left_to_the_decorator(project: Project):
    project.write("pkg/__init__.py", "")
    project.write("pkg/units.py", UNITS + "\n\ndef _make():\n    return lambda c: c * 3.0\n\n\nrebound = _make()\n")
    # A module that is not Python source (as a C extension is not): only its bytecode.
    project.write("pkg/_fast_src.py", "def fast(c):\n    return c * 5.0\n")
    py_compile.compile(str(project.root / "pkg" / "_fast_src.py"), cfile=str(project.root / "pkg" / "fast.pyc"))
    (project.root / "pkg" / "_fast_src.py").unlink()
    project.write(
        "pkg/conv.py",
        '''\
import importlib

from array_vectorize import vectorize
from .units import to_kelvin, rebound
from .fast import fast
import pkg.units as u

dyn = importlib.import_module(".units", __package__)
u.OFFSET = 0.5   # rebound at run time, before the decorators run


@vectorize
def static_ok(c):
    return to_kelvin(c)


@vectorize
def via_rebound(c):
    return rebound(c)


@vectorize(fallback=True)   # no source to compile: element by element
def via_bytecode(c):
    return fast(c)


@vectorize
def via_dynamic(c):
    return dyn.to_kelvin(c)
''',
    )
    body = (
        CALLS
        + """
import pkg.conv as m
cs = [-400.0, 0.0, 25.5]
out = {}
for name in ("static_ok", "via_rebound", "via_bytecode", "via_dynamic"):
    vec = getattr(m, name)
    out[name] = [vec(np.array(cs)).tolist(), [vec._vectorized_original(c) for c in cs]]
"""
    )
    debug = {"ARRAY_VECTORIZE_DEBUG": "hook"}
    cold = project.run(body, env=debug)
    warm = project.run(body)
    for res in (cold, warm):
        for name, (got, want) in res.out.items():
            assert got == want, (name, got, want)
    # The static compile kept `static_ok` (3 deferred: rebound, fast, dyn) ...
    assert "(1 compiled, 3 deferred to the decorator, 0 rejected)" in cold.stderr, cold.stderr
    # ... but `u.OFFSET = 0.5` changed what to_kelvin reads, so its assumption failed and the
    # decorator compiled all four from the live module: the results are the live ones.
    assert warm.stats["disk_cache_hits"] == 0 and warm.stats["compiled"] == 4, warm.stats
    assert warm.out["static_ok"][0] == [-1.0, 0.5, 26.0]
