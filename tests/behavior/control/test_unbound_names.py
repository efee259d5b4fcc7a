"""Unbound names and missing returns per element (D20), against CPython as the oracle, on every
backend.

A name read where some elements never assigned it raises UnboundLocalError for those elements,
as CPython does: the first such element in C order, with D11's note, the others evaluated as
usual. A helper's element that ends without returning returns None: arithmetic on it raises
CPython's TypeError (message included) for that element, `is None` and truth tests see None. An
element for which the decorated function itself returns None is an error naming the element
(docs/semantics.md item 38).
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from array_vectorize import vectorize
from oracle import check, check_raising, floats, grid, ints, to_backend

DAYS = np.array([0.0, 45.0, 89.999, 90.0, 200.0, 249.5, 250.0, 364.0, -1.0, np.inf, -np.inf, -0.0])
WITH_NAN = np.append(DAYS, [np.nan, 10.0])


def growth_stage(day):
    if day < 90:
        stage = 1
    elif day < 250:
        stage = 2
    elif day >= 250:
        stage = 3
    return stage * 10


def season(month):
    if 3 <= month <= 5:
        name = 1
    elif 6 <= month <= 8:
        name = 2
    elif 9 <= month <= 11:
        name = 3
    elif month == 12 or month <= 2:
        name = 4
    return name


def test_an_elif_chain_covering_every_element_compiles_and_matches(backend):
    check(vectorize(growth_stage), DAYS, backend=backend)
    check(vectorize(season), np.arange(-2, 13, dtype=np.int64), backend=backend)


def test_an_element_no_branch_assigns_raises_unboundlocalerror(backend):
    exc = check_raising(vectorize(growth_stage), WITH_NAN, backend=backend)
    assert isinstance(exc, UnboundLocalError)
    assert "stage" in str(exc)


def test_uint64_and_bool_elements(backend):
    check(vectorize(season), np.array([1, 5, 12, 2, 0], dtype=np.uint64), backend=backend)
    exc = check_raising(vectorize(season), np.array([1, 5, 12, 2**63, 2**64 - 1], dtype=np.uint64), backend=backend)
    assert isinstance(exc, UnboundLocalError)
    check_raising(vectorize(season), np.array([True, False]), backend=backend)


def first_root(a, b):
    for k in range(3):
        if a * k > b:
            root = k
            break
    return root + 0.5


def counted(x, n):
    for i in range(n):
        last = x * i
    return last


def after_continue(x):
    for k in range(3):
        if x > k:
            continue
        y = x - k
    return y


def test_loops_that_may_not_assign(backend):
    check_raising(vectorize(first_root), *grid(floats(6), np.array([-1.0, 0.5, 10.0, np.nan])), backend=backend)
    check_raising(vectorize(counted), *grid(floats(4), np.array([2, 0, 1, -3], dtype=np.int64)), backend=backend)
    check_raising(vectorize(after_continue), floats(8), backend=backend)


def early_raise_wins(x):
    if x > 10.0:
        raise ValueError(f"x={x}")
    if x > 0.0:
        y = x
    return y


def test_d11_order_between_a_raise_and_an_unbound_read(backend):
    # The first raising element in C order decides which exception leaves the call.
    check_raising(vectorize(early_raise_wins), np.array([1.0, 20.0, -1.0]), backend=backend)
    check_raising(vectorize(early_raise_wins), np.array([1.0, -1.0, 20.0]), backend=backend)


def caught(x):
    try:
        if x > 0.0:
            y = x
        z = y * 2.0
    except UnboundLocalError:
        z = -1.0
    return z


def test_unboundlocalerror_is_caught_per_element(backend):
    check(vectorize(caught), floats(10), backend=backend)


def closure_reads_unbound(x):
    if x > 0.0:
        k = x

    def scaled(v):
        return v * k

    return scaled(2.0)


def test_a_nested_function_reading_an_unbound_variable_raises_nameerror(backend):
    exc = check_raising(vectorize(closure_reads_unbound), np.array([1.0, -1.0]), backend=backend)
    assert type(exc) is NameError and "free variable" in str(exc)


# ----------------------------------------------------------------- helpers returning None


def stage_factor(d):
    if d < 10:
        return 0.2
    elif d < 40:
        return 0.7
    elif d >= 40:
        return 1.0


def crop_growth(d, base):
    return base * stage_factor(d)


def factor_or_default(d):
    f = stage_factor(d)
    if f is None:
        return -1.0
    return f


def truthy_factor(d):
    return 1.0 if stage_factor(d) else 0.0


def compared(d, k):
    return stage_factor(d) < k


def math_of_none(d):
    return math.sqrt(stage_factor(d))


def bare_return(d):
    if d < 0:
        return
    return d * 2.0


def uses_bare(d):
    r = bare_return(d)
    return r is not None and r > 1.0


def test_a_helper_that_falls_off_its_end(backend):
    check(vectorize(crop_growth), *grid(DAYS, np.array([2.0, -0.0])), backend=backend)
    exc = check_raising(vectorize(crop_growth), *grid(WITH_NAN, np.array([2.0, 3])), backend=backend)
    assert type(exc) is TypeError and "NoneType" in str(exc)


def test_none_checked_and_tested(backend):
    check(vectorize(factor_or_default), WITH_NAN, backend=backend)
    check(vectorize(truthy_factor), WITH_NAN, backend=backend)
    check(vectorize(uses_bare), floats(10), backend=backend)


def test_comparisons_and_math_on_none_raise_cpythons_typeerror(backend):
    exc = check_raising(vectorize(compared), *grid(WITH_NAN, np.array([0.5, 1])), backend=backend)
    assert "'<' not supported" in str(exc)
    exc = check_raising(vectorize(math_of_none), WITH_NAN, backend=backend)
    assert "must be real number, not NoneType" in str(exc)


def int_operand(d, n):
    return stage_factor(d) + n


def test_the_message_names_the_other_operands_type(backend):
    exc = check_raising(vectorize(int_operand), np.array([1.0, np.nan]), np.array([3, 4]), backend=backend)
    assert str(exc) == "unsupported operand type(s) for +: 'NoneType' and 'int'"


# ----------------------------------------------------------------- the decorated function's None


def positive_part(x):
    if x > 0.0:
        return x


def explicit_none(x):
    if x < 0.0:
        return None
    return x


def test_an_element_the_function_returns_none_for_is_an_error_naming_it(backend):
    # docs/semantics.md item 38: CPython gives None there; an array cannot hold None.
    vec = vectorize(positive_part)
    check(vec, np.array([1.0, 2.5, np.inf]), backend=backend)
    for fn in (positive_part, explicit_none):
        with pytest.raises(TypeError) as info:
            vectorize(fn)(to_backend(np.array([1.0, -2.0, -3.0]), backend))
        assert str(info.value).startswith(f"{fn.__name__} returned None for this element")
        if hasattr(info.value, "__notes__"):
            assert "element (1,) (flat index 1)" in info.value.__notes__[0]


def test_int_extremes_pass_through_an_elif_chain(backend):
    def sign_class(n):
        if n > 0:
            c = 1
        elif n < 0:
            c = -1
        elif n == 0:
            c = 0
        return c * n

    check(vectorize(sign_class), ints(10), backend=backend)
