"""The real-code benchmark set (issue 30): scalar functions in the styles of real scientific code,
each with what a careful person would write by hand for whole arrays where one is written.

Two sets, registered by the modules of this package:

* ``REAL``: calendars, tax rules reading a parameter dict, steam and seawater correlations,
  interpolation and special-function series (``bench_realcode.py`` times each as the generated
  code on NumPy, under ``jax.jit``, as ``numba`` compiles the scalar original, as the hand-written
  NumPy and as ``np.vectorize``);
* ``INTEGER``: exact integer and bool bodies (leap years, day of year, digit and bit arithmetic,
  calendar conversions), each with a hand-written NumPy version.

Every function here was written for this benchmark. ``tests/unit/test_realcode_bench.py`` checks
each generated function against CPython (and the hand-written version against both) on small
arrays: benchmarks time correct code.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable

import numpy as np

Args = tuple  # arrays (int64, float64 or bool) and per-call values (floats, dicts)


@dataclass
class Case:
    name: str
    domain: str
    scalar: Callable[..., Any]
    make_args: Callable[[np.random.Generator, int], Args]
    hand: Callable[..., Any] | None = None
    #: Whether the function may raise on some inputs (D11); the arguments `make_args` gives
    #: never make it raise.
    raises: bool = False
    _generated: Any = field(default=None, repr=False)

    def generated(self) -> Callable[..., Any]:
        """``vectorize(scalar)``, compiled on first use."""
        if self._generated is None:
            from array_vectorize import vectorize

            self._generated = vectorize(self.scalar)
        return self._generated


REAL: list[Case] = []
INTEGER: list[Case] = []


def case(domain: str, make_args: Callable, hand: Callable | None = None, *, integer: bool = False, raises: bool = False):
    """Registers the decorated scalar function in ``INTEGER`` (``integer=True``) or ``REAL``."""

    def register(fn: Callable) -> Callable:
        (INTEGER if integer else REAL).append(Case(fn.__name__, domain, fn, make_args, hand, raises))
        return fn

    return register


def by_name(name: str) -> Case:
    for c in REAL + INTEGER:
        if c.name == name:
            return c
    raise KeyError(name)


def load() -> tuple[list[Case], list[Case]]:
    """Imports every module of the set (each registers its functions) and returns both sets."""
    from . import calendars, fluids, integers, interpolation, series, tax  # noqa: F401

    return REAL, INTEGER
