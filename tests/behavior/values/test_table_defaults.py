"""Tables given as defaults (D15, D8): a helper's parameter whose default is a tuple, list or dict
of numbers, left out by the call, is that frozen table indexed per element; a parameter of the
vectorized function itself is not frozen (a caller may pass any table): it is converted per call
(test_table_parameters.py). CPython is the oracle, on every backend."""

from __future__ import annotations

import numpy as np
import pytest

from array_vectorize import vectorize
from oracle import check


OTHER_STEPS = [10, 20, 30, 40]


def band_rate(band, rates=(0.0, 0.1, 0.2, 0.35), scale={0: 1.0, 1: 0.5, 2: 2.0}):
    return rates[band] * scale.get(band, 1.0)


def band_step(band, steps=[-2, 0, 3]):
    return steps[band]


def tax(income, band):
    return income * band_rate(band)


def stepped(band):
    return band_step(band) + band_step(band, OTHER_STEPS)


def test_a_helpers_table_default_is_frozen_and_indexed_per_element(backend):
    bands = np.array([0, 1, 2, 3, -1, -4])
    check(vectorize(tax), np.array([100.0, -0.0, 1e6, np.inf])[:, None], bands, backend=backend)
    check(vectorize(stepped), np.array([0, 1, 2, -1, -3]), backend=backend)


def test_an_index_outside_a_default_table_raises_cpythons_index_error():
    with pytest.raises(IndexError, match="tuple index out of range"):
        vectorize(tax)(np.array([1.0, 2.0]), np.array([0, 4]))
