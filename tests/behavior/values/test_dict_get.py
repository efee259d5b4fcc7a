"""`D.get(key, default)` on a constant dict (D15) with a per-lane key, against CPython on every
backend: keys match by `==` across bool, int and float (`1`, `1.0`, `True` are one key), a
missing key gives the default (itself per lane or constant)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from array_vectorize import VectorizationError, vectorize
from oracle import BOOL_EDGES, check, floats, ints, to_backend, uints

# Personal allowance by filing status; 0 is "unknown".
ALLOWANCE = {1: 12_570.0, 2: 25_140.0, 3: 18_000.0, 0: 0.0}
# Mixed keys: a float key and an int beyond 2**53.
SURCHARGE = {0.5: 2, 2**53 + 1: 3, -1: -7, True: 11}


def allowance(status):
    return ALLOWANCE.get(status, -1.0)


def surcharge(x):
    return SURCHARGE.get(x, 0)


def allowance_or_income(status, income):
    return ALLOWANCE.get(status, income * 0.1)


@pytest.mark.parametrize("fn", [allowance, surcharge], ids=lambda f: f.__name__)
def test_dict_get_matches_cpython(fn, backend):
    keys = np.concatenate([ints(), np.array([0, 1, 2, 3, 4, 2**53, 2**53 + 1], dtype=np.int64)])
    check(vectorize(fn), keys, backend=backend)
    check(vectorize(fn), np.concatenate([floats(), np.array([0.5, 1.0, 2.0, 2.0**53])]), backend=backend)
    check(vectorize(fn), np.array(BOOL_EDGES), backend=backend)
    check(vectorize(fn), uints(), backend=backend)


def test_dict_get_with_a_per_lane_default(backend):
    check(vectorize(allowance_or_income), np.array([0, 1, 2, 3, 5, -1]), floats(8)[:, None], backend=backend)


def without_default(status):
    return ALLOWANCE.get(status)


def test_dict_get_without_a_default_is_rejected():
    with pytest.raises(VectorizationError, match="pass a default"):
        vectorize(without_default)


NAN_RATES = {math.nan: 1.0, 0.0: 2.0}


def nan_object_key(x):
    return x * NAN_RATES.get(math.nan, 0.0)


def test_a_nan_key_is_never_found_docs_semantics_item_36(backend):
    # CPython finds the very NaN object that is the key (identity before `==`); the vectorized
    # lookup matches by `==` per element, where NaN equals nothing.
    assert nan_object_key(2.0) == 2.0
    got = vectorize(nan_object_key)(to_backend(np.array([2.0, -3.0]), backend))
    assert np.asarray(got).tolist() == [0.0, -0.0]
