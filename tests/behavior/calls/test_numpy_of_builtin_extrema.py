"""NumPy's promoting calls (`maximum`, `minimum`, `where`, `clip`) of a builtin `max`/`min` over
constants of mixed kinds. CPython's `max(100, 3.0)` is the int 100 (the first of the items that
wins), so `numpy.maximum(max(100, 3.0), 1.0)` is NumPy's float 100.0 and
`numpy.maximum(max(100, 3.0), 0)` is NumPy's int 100. The compiler must hand the NumPy call the
kind CPython's item has, not the kind a float-promoted select of the two would have (fuzz 730001
#1082: the product of a float parameter and such a call came back as int64). The oracle is the
scalar function run per element on NumPy scalars, float arguments as ``np.float64``."""

from __future__ import annotations

import numpy as np
import pytest

from array_vectorize import vectorize
from oracle import check, floats, ints

BACKENDS = ["numpy", "strict"]


def on_numpy_scalars(fn):
    def oracle(*args):
        with np.errstate(all="ignore"):
            out = fn(*[np.float64(a) if type(a) is float else a for a in args])
        return out.item() if hasattr(out, "item") else out

    return oracle


def check_np(vec, *args, backend):
    with np.errstate(all="ignore"):
        return check(vec, *args, backend=backend, scalar=on_numpy_scalars(vec._vectorized_original))


@vectorize
def floor_price_scaled(price):
    # A minimum lot of 100 (an int, the winner) against a fractional floor of 3.0.
    return price * np.maximum(max(100, 3.0), 1.0)


@vectorize
def floor_count_scaled(price):
    # The mirror: both of numpy.maximum's operands are ints, so the result is CPython's int.
    return price * np.maximum(max(100, 3.0), 0)


@vectorize
def cap_rate_scaled(rate):
    # min() picks the float 0.25 over the int 1 here: the kind is the float's.
    return rate * np.minimum(min(1, 0.25), 2)


@vectorize
def cap_units(units):
    # min() picks the int 2 over the float 7.5: numpy.minimum of two ints stays an int.
    return units + np.minimum(min(2, 7.5), 4)


@vectorize
def tiered_fee(amount):
    # where() of a per-element test between an int constant winner and a float.
    return np.where(amount > 0.0, max(25, 2.5), 0.5) * amount


@vectorize
def clipped_levy(amount):
    return amount * np.clip(max(3, 1.5), 0, 10)


@vectorize
def clipped_levy_float_bound(amount):
    return amount * np.clip(max(3, 1.5), 0, 10.0)


@vectorize
def last_of_equal_items(x):
    # Equal items: CPython keeps the first (the int 2); -0.0 against 0 keeps the int 0.
    return x * np.maximum(max(2, 2.0), 1) + np.maximum(min(0, -0.0), 0)


FUNCTIONS = [floor_price_scaled, floor_count_scaled, cap_rate_scaled, cap_units, tiered_fee,
             clipped_levy, clipped_levy_float_bound, last_of_equal_items]


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("fn", FUNCTIONS, ids=lambda f: f.__name__)
def test_promotion_follows_the_item_builtin_extrema_pick(fn, backend):
    check_np(fn, floats(), backend=backend)
    check_np(fn, ints(), backend=backend)
