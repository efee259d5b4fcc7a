"""Shared test machinery: the CPython oracle and the backends every behaviour test runs on."""

from __future__ import annotations

import math
import sys
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).parent))

from oracle import BACKENDS  # noqa: E402


@pytest.fixture(params=sorted(BACKENDS), ids=sorted(BACKENDS))
def backend(request):
    """Name of an Array API backend ("numpy", "strict"); see oracle.BACKENDS."""
    return request.param


@pytest.fixture(autouse=True)
def _ieee_quiet():
    # D3: numeric exceptions become IEEE values; NumPy's warnings about them are expected.
    with np.errstate(all="ignore"):
        yield


__all__ = ["math"]
