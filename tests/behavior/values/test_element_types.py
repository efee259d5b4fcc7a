"""isinstance and type of elements (D22): `isinstance(x, int)`, `(int, float)`, `bool`,
`numbers.Real`, `Integral`, `Number`, `type(x) is float`, `type(c) in (list, tuple)` on a
per-element parameter are decided once per call from the argument's dtype, as CPython's element
loop sees each element: a Python scalar (`arr[i].item()`: a float64 element is a `float`, an int64
or uint64 element an `int`, a bool element a `bool`, which is an `int` too). Each function is
checked against CPython element by element (oracle.check) on NumPy and array-api-strict, with
arrays of every dtype and with Python scalars (issue 28 item 5: that call died in the generated
code)."""

from __future__ import annotations

import math
import numbers
from numbers import Integral, Real

import numpy as np
import pytest

from array_vectorize import VectorizationError, vectorize
from oracle import BACKENDS, check

BACKEND_NAMES = [b for b in ("numpy", "strict") if b in BACKENDS]

FLOATS = np.array([0.0, -0.0, 1.0, -1.0, 2.5, -7.25, 5e-324, 1e300, -1e300, math.inf, -math.inf, math.nan])
# Products of these stay within 64 bits (beyond, ints wrap: docs/semantics.md items 6 and 13).
INTS = np.array([0, 1, -1, 2, 7, -12, 2**31 + 1, -(2**31)], dtype=np.int64)
UINTS = np.array([0, 1, 5, 2**31], dtype=np.uint64)
EXTREME_INTS = [np.array([2**63 - 1, -(2**63)], dtype=np.int64), np.array([2**63, 2**64 - 1], dtype=np.uint64)]
BOOLS = np.array([False, True])
ARGUMENTS = [FLOATS, INTS, UINTS, BOOLS, np.array([0.5, -2.0, 3.25, np.inf], dtype=np.float32), INTS[:4].astype(np.int16)]
SCALARS = [0.0, -2.5, math.nan, 0, 3, -4, 2**20, True, False]


def polynomial_degree_check(x, degree):
    """Validation in the style of a curve-fitting library: the degree must be a real number."""
    if not isinstance(degree, (int, float)) or degree < 0:
        raise ValueError(f"degree must be a non-negative number, got {degree}")
    return abs(x) ** degree


def pair_count(n):
    """Combinatorics that keeps ints exact and extends to reals."""
    if isinstance(n, int):
        return n * (n - 1) // 2
    return n * (n - 1) / 2.0


def as_weight(w):
    """A mask given as bools weighs 0 or 1; a number weighs itself, clipped."""
    if isinstance(w, bool):
        return 1.0 if w else 0.0
    return min(max(float(w), 0.0), 1.0)


def real_or_zero(x):
    if isinstance(x, numbers.Real):
        return x * 2.0
    return 0.0


def integral_bins(x):
    """A histogram helper: integral values are bin numbers, reals are floored to one."""
    if isinstance(x, Integral):
        return x + 1
    return math.floor(min(max(x, -1e15), 1e15)) + 1


def number_check(x):
    if not isinstance(x, numbers.Number):
        raise TypeError("expected a number")
    if isinstance(x, Real) and x < 0:
        return -x * 1.0
    return x * 1.0


def exact_float(x):
    if type(x) is float:
        return x / 3.0
    if type(x) == int:
        return x // 3
    return 1 if x else 0


def not_exact_int(x):
    if type(x) is not int:
        return 0.5
    return x * 2


def type_in_tuple(x):
    if type(x) in (int, bool):
        return x + 10
    return x - 10.0


def type_not_in_tuple(x):
    if type(x) not in (float,):
        return 1
    return 2


def unpack_coefficients(c, x):
    """`c` may be a pair of coefficients or one number, as in a physics library's fit helper."""
    if type(c) in (list, tuple):
        a, b = c
        return a * x + b
    return c * x


def bounds_or_scale(x):
    """A bounds pair is summed; a number, which is never a list or tuple, is scaled (the pair
    branch is never lowered: `sum` of a number would be refused)."""
    if isinstance(x, (list, tuple)) and len(x) == 2:
        return sum(x)
    return x * 1.5


def numpy_scalar_type(x):
    """Elements are Python scalars, never NumPy ones (D22)."""
    if isinstance(x, np.floating):
        return 1.0
    return x


def mixed_params(x, n):
    if isinstance(x, float) and isinstance(n, int):
        return x * n
    return 0.0


def _helper_scale(v):
    if isinstance(v, int):
        return v * 3
    return v * 0.5


def through_helper(x):
    return _helper_scale(x) + 1


ONE_ARGUMENT = [
    pair_count,
    as_weight,
    real_or_zero,
    integral_bins,
    number_check,
    exact_float,
    not_exact_int,
    type_in_tuple,
    type_not_in_tuple,
    bounds_or_scale,
    numpy_scalar_type,
    through_helper,
]


@pytest.mark.parametrize("backend", BACKEND_NAMES)
@pytest.mark.parametrize("fn", ONE_ARGUMENT, ids=lambda f: f.__name__)
@pytest.mark.parametrize("arg", range(len(ARGUMENTS)), ids=lambda i: str(ARGUMENTS[i].dtype))
def test_one_parameter_per_dtype(backend, fn, arg):
    vec = vectorize(fn)
    check(vec, ARGUMENTS[arg], backend=backend)


@pytest.mark.parametrize("backend", BACKEND_NAMES)
@pytest.mark.parametrize("fn", [exact_float, type_in_tuple, type_not_in_tuple, real_or_zero, bounds_or_scale], ids=lambda f: f.__name__)
@pytest.mark.parametrize("arg", range(len(EXTREME_INTS)), ids=lambda i: str(EXTREME_INTS[i].dtype))
def test_integer_extremes(backend, fn, arg):
    check(vectorize(fn), EXTREME_INTS[arg], backend=backend)


@pytest.mark.parametrize("fn", ONE_ARGUMENT, ids=lambda f: f.__name__)
@pytest.mark.parametrize("value", SCALARS, ids=repr)
def test_python_scalars(fn, value):
    """Issue 28 item 5: a call with Python scalars only (no array) ran into AttributeError:
    'tuple' object has no attribute 'bool_' in the generated code."""
    vec = vectorize(fn)
    try:
        expected = fn(value)
    except (ArithmeticError, ValueError):
        return
    got = np.asarray(vec(value)).item()
    assert got == expected or (expected != expected and got != got)
    assert type(got) is type(expected)


@pytest.mark.parametrize("backend", BACKEND_NAMES)
def test_validation_with_two_parameters(backend):
    vec = vectorize(polynomial_degree_check)
    x = np.array([0.5, 2.0, 3.0, -1.5, 0.0])
    check(vec, x, np.array([2.0, 0.5, 1.0, 3.0, 0.0]), backend=backend)
    check(vec, x, np.array([2, 0, 1, 3, 4]), backend=backend, ulps=4)
    with pytest.raises(ValueError, match="degree must be a non-negative number, got -1"):
        vec(x, np.array([1, -1, 2, 0, 1]))


@pytest.mark.parametrize("backend", BACKEND_NAMES)
def test_two_parameters_each_with_its_own_dtype(backend):
    vec = vectorize(mixed_params)
    for x in (FLOATS, INTS):
        for n in (INTS, FLOATS, BOOLS[1:]):
            if x is FLOATS and n is INTS:
                check(vec, FLOATS[:8], INTS, backend=backend)
            else:
                check(vec, x[:1], n, backend=backend)


@pytest.mark.parametrize("backend", BACKEND_NAMES)
def test_a_pair_test_on_a_number_never_unpacks(backend):
    vec = vectorize(unpack_coefficients)
    check(vec, FLOATS, FLOATS[::-1], backend=backend)
    check(vec, INTS, INTS, backend=backend)


def test_the_type_of_a_computed_value_is_refused():
    """Item 8: a value computed from a parameter may hold ints as float64 on some lanes, so
    its type is not one per call (D10)."""

    def merged(x):
        y = 1 if x > 0 else 0.5
        if isinstance(y, int):
            return 1.0
        return 2.0

    with pytest.raises(VectorizationError, match="type of a computed number"):
        vectorize(merged)(FLOATS)

    def helper_of_computed(x):
        return _helper_scale(x + 1)

    with pytest.raises(VectorizationError, match="type of a computed number"):
        vectorize(helper_of_computed)(FLOATS)


def test_an_unknown_class_is_refused_with_its_position():
    class Meters(float):
        pass

    def custom(x):
        if isinstance(x, Meters):
            return 1.0
        return 0.0

    with pytest.raises(VectorizationError, match=r"test_element_types\.py:\d+:\d+.*int, float, bool"):
        vectorize(custom)(FLOATS)


def test_the_test_is_a_python_if_once_per_call():
    """D22: the exact body asks the runtime for the element type once per call, a Python `if`;
    the float body has it folded (its parameters are float64)."""
    vec = vectorize(pair_count)
    exact = vec.source.split("_vec_exact_args", 1)[1]
    assert "_vec_element_type(xp, n) in (bool, int)" in exact
    assert "_vec_element_type" not in vec.source.split("_vec_exact_args", 1)[0]


def decision_example(n):
    """docs/decisions.md, D22's example."""
    if not isinstance(n, (int, float)) or n < 0:
        raise ValueError(f"n must be a non-negative number, got {n}")
    if isinstance(n, int):
        return n * (n - 1) // 2
    return n * (n - 1) / 2.0


@pytest.mark.parametrize("backend", BACKEND_NAMES)
def test_the_decision_example(backend):
    vec = vectorize(decision_example)
    check(vec, INTS[INTS >= 0], backend=backend)
    check(vec, np.array([0.0, 0.5, 3.0, 1e10]), backend=backend)
    with pytest.raises(ValueError, match="got -1"):
        vec(np.array([1, -1]))


def capped(x, cap=None):
    if isinstance(cap, float):
        return min(x, cap)
    return x * 1.0


@pytest.mark.parametrize("backend", BACKEND_NAMES)
def test_none_is_no_number_type(backend):
    """A parameter whose default is None and whose type is tested is optional (D14): None or a
    number, and None is none of the element types."""
    vec = vectorize(capped)
    x = np.array([0.5, 2.0, -1.0, math.nan])
    check(vec, x, 1.0, backend=backend)
    check(vec, x, 1, backend=backend)
    check(vec, x, np.array([1.0, 0.0, 3.0, 0.5]), backend=backend)
    assert np.asarray(vec(x)).tolist()[:3] == [capped(a) for a in x.tolist()][:3]
    assert np.asarray(vec(x, None)).tolist()[:3] == [0.5, 2.0, -1.0]
