"""Issue 31: decoration never fails for a name that is merely not bound yet (a helper defined
below the function, the class whose body is running): the function is compiled at its first
call, as CPython looks the name up only then. Until that call, `.source` and `inspect.getsource`
show the stand-in, which says why; the function object is final from the start. And
`@vectorize` goes above `@staticmethod` or `@classmethod` as well as below."""

from __future__ import annotations

import inspect
import textwrap

import numpy as np
import pytest
from oracle import BACKENDS, check, floats
from sourcefile import from_source

import array_vectorize
from array_vectorize import VectorizationError
from array_vectorize.api import compile_live

OPTIONS = {"protect_domains": False, "fallback": False, "optimize": False, "nan_on_raise": False}


def _module(source: str, name: str) -> dict:
    """Runs `source` as a module with a file behind it; returns its globals (those of `name`'s
    scalar original: the vectorized function's are its generated module's)."""
    obj = from_source(textwrap.dedent(source), name=name)
    if isinstance(obj, type):
        return {name: obj}
    return obj._vectorized_original.__globals__


BELOW = """\
    from array_vectorize import vectorize


    @vectorize
    def heading_error(bearing, target):
        \"\"\"Signed difference of two compass bearings, degrees.\"\"\"
        return _wrap180(bearing - target) * SCALE


    def _wrap180(deg):
        return (deg + 180.0) % 360.0 - 180.0


    SCALE = 1.0
"""


def test_a_helper_defined_below_is_compiled_at_the_first_call():
    before = array_vectorize.stats()
    glob = _module(BELOW, "heading_error")
    vec = glob["heading_error"]
    original = vec._vectorized_original
    assert array_vectorize.stats()["first_call"] == before["first_call"] + 1
    assert array_vectorize.stats()["compiled"] == before["compiled"]
    # Final from the start: name, signature, docstring; the stand-in says why it waits.
    assert (vec.__name__, vec.__qualname__, vec.__module__) == ("heading_error", "heading_error", original.__module__)
    assert inspect.signature(vec) == inspect.signature(original)
    assert vec.__doc__.startswith("(array-vectorized) Signed difference")
    assert "Not compiled yet" in vec.source and "`_wrap180`" in vec.source and "`SCALE`" in vec.source
    assert "_vec_first_call" in inspect.getsource(vec)
    reference = vec
    bearings = np.concatenate([floats(), [0.0, -0.0, 180.0, -180.0, 359.5, 1e300]])
    reference(bearings, 10.0)
    reference(bearings, 20.0)
    assert vec is reference
    assert array_vectorize.stats()["compiled"] == before["compiled"] + 1  # once, at the first call
    check(vec, bearings, 10.0)
    check(vec, bearings, -170.0)
    compiled, _ = compile_live(original, OPTIONS)
    assert vec.source == compiled["source"]
    assert inspect.getsource(vec) in vec.source and "_vec_first_call" not in vec.source


@pytest.mark.parametrize("backend", sorted(BACKENDS))
def test_the_first_call_may_come_with_any_array_library(backend):
    vec = _module(BELOW, "heading_error")["heading_error"]
    bearings = np.concatenate([floats(), [0.0, -0.0, 180.0, -180.0, 359.5, 1e300, -1e-300]])
    check(vec, bearings, 10.0, backend=backend)  # the first call, on that library's arrays
    assert "Not compiled yet" not in vec.source
    check(vec, bearings, -170.0, backend=backend)


def test_a_name_still_unbound_at_the_call_is_the_compilers_error_then_and_the_next_call_retries():
    glob = _module(BELOW.replace("\n\n    def _wrap180", "\n\n    def _not_wrap180").replace("SCALE = 1.0", ""), "heading_error")
    vec = glob["heading_error"]
    x = np.array([10.0, 350.0])
    with pytest.raises(VectorizationError, match=r"cannot call `_wrap180`: name is not defined"):
        vec(x, 0.0)
    glob["_wrap180"] = glob["_not_wrap180"]
    glob["SCALE"] = 2.0
    check(vec, x, 0.0)


def test_every_other_problem_is_still_reported_at_decoration():
    source = BELOW.replace("return _wrap180(bearing - target) * SCALE", "return [_wrap180(bearing - target) * SCALE]")
    with pytest.raises(VectorizationError, match="a list or dict cannot be an element of the result"):
        _module(source, "heading_error")


CLASS = """\
    import math

    from array_vectorize import vectorize


    class Sun:
        \"\"\"Solar position formulas (degrees), a class used as a namespace.\"\"\"

        OBLIQUITY = 23.4392911

        @staticmethod
        def sin_deg(angle):
            return math.sin(math.radians(angle))

        @staticmethod
        @vectorize
        def declination(longitude):
            return math.degrees(math.asin(Sun.sin_deg(Sun.OBLIQUITY) * Sun.sin_deg(longitude)))

        @vectorize
        @staticmethod
        def equation_of_centre(anomaly):
            return 1.9148 * Sun.sin_deg(anomaly) + 0.02 * Sun.sin_deg(2.0 * anomaly)

        @classmethod
        @vectorize
        def right_ascension_hint(cls, longitude):
            return longitude - 2.466 * Sun.sin_deg(2.0 * longitude) * cls.OBLIQUITY / 23.4392911

        @vectorize(protect_domains=True)
        @classmethod
        def hour_angle(cls, altitude):
            return math.degrees(math.acos(Sun.sin_deg(altitude) / Sun.sin_deg(cls.OBLIQUITY)))
"""


def test_methods_naming_their_class_and_marks_above_or_below_staticmethod_and_classmethod():
    sun = _module(CLASS, "Sun")["Sun"]
    assert "Not compiled yet" in sun.declination.source and "`Sun`" in sun.declination.source
    assert isinstance(vars(sun)["equation_of_centre"], staticmethod)
    assert isinstance(vars(sun)["hour_angle"], classmethod)
    angles = np.concatenate([floats(), [0.0, -0.0, 90.0, 180.0, 270.0, 360.0]])
    check(sun.declination, angles, ulps=4)
    check(sun.equation_of_centre, angles, ulps=4)
    for backend in sorted(BACKENDS):
        check(sun.declination, angles, ulps=4, backend=backend)
    cls_bound = vars(sun)["right_ascension_hint"].__func__
    check(sun.right_ascension_hint, angles, scalar=lambda x: cls_bound._vectorized_original(sun, x), ulps=4)
    hour = vars(sun)["hour_angle"].__func__
    with np.errstate(invalid="ignore"):
        check(sun.hour_angle, angles, scalar=lambda x: hour._vectorized_original(sun, x), ulps=4)
    assert "protect_domains" not in hour.source and hour.source == compile_live(
        hour._vectorized_original, dict(OPTIONS, protect_domains=True)
    )[0]["source"]
