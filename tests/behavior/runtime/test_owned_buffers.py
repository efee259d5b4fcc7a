"""Owned buffers (src/codegen/inplace.rs, runtime `_vec_owned`): in the float body a loop-carried
float array that the generated code made itself and nothing else holds is updated in place once
the first iteration has made it. Results must be CPython's in every lane on every backend (JAX
arrays are immutable: there the code is the out-of-place form), the caller's arrays are never
written, and broadcasting that grows the variable keeps the out-of-place form."""

from __future__ import annotations

import numpy as np
import pytest

from array_vectorize import vectorize
from array_vectorize.runtime.args import _vec_owned
from oracle import check, floats


def annuity_factor(rate):
    """Horner form of sum((1 + r) ** -k, k = 1..6): the present value of six payments."""
    v = 1.0 / (1.0 + rate)
    acc = 0.0
    for _ in range(6):
        acc = (acc + 1.0) * v
    return acc


def damped_velocity(x, v):
    """A damped spring, ten explicit steps: both state variables carried across iterations."""
    for _ in range(10):
        v = v * 0.9 - 0.1 * x
        x = x + 0.05 * v
    return x + v


def compound_balance(balance, rate):
    """Compounded growth less a shrinking fee, starting from the caller's own array."""
    amount = balance
    for year in range(1, 5):
        amount = amount * (1.0 + rate) - 100.0 / year
    return amount


def grows_by_broadcast(x, y):
    """`acc` starts from `x`'s shape and reaches the shape of `x` and `y` together."""
    acc = x
    for _ in range(3):
        acc = acc * 0.5 + y
    return acc


FUNCTIONS = [annuity_factor, damped_velocity, compound_balance]


@pytest.mark.parametrize("fn", FUNCTIONS, ids=lambda f: f.__name__)
def test_results_are_cpythons_on_every_backend(fn, backend):
    n = fn.__code__.co_argcount
    x = floats(20)
    args = [x] + [x[::-1].copy() for _ in range(n - 1)]
    check(vectorize(fn), *args, backend=backend)


def test_the_callers_arrays_are_never_written():
    x = floats(40)
    v = x[::-1].copy()
    saved = (x.copy(), v.copy())
    vectorize(damped_velocity)(x, v)
    vectorize(compound_balance)(x, v)
    np.testing.assert_array_equal(x, saved[0])
    np.testing.assert_array_equal(v, saved[1])


def test_broadcasting_that_grows_the_variable(backend):
    x = floats(6).reshape(-1, 1)
    y = floats(4)[: x.shape[0]].reshape(1, -1)
    check(vectorize(grows_by_broadcast), x, y, backend=backend)


def test_the_float_body_updates_in_place_on_numpy():
    vec = vectorize(annuity_factor)
    assert "acc += 1.0" in vec.source and "acc *= v" in vec.source, vec.source
    owned = []

    def spy(xp, value, *arrays):
        owned.append(_vec_owned(xp, value, *arrays))
        return owned[-1]

    vec.__globals__["_vec_owned"] = spy
    x = np.linspace(-0.5, 0.5, 1000)
    got = vec(x)
    assert owned == [True], owned  # asked once, after the first iteration
    np.testing.assert_array_equal(got, [annuity_factor(float(r)) for r in x])


def test_owned_means_a_fresh_writeable_float64_array_of_the_full_shape():
    x, y = np.ones((3, 1)), np.ones((1, 4))
    assert _vec_owned(np, x * y, x, y)
    assert not _vec_owned(np, (x * y)[:, :2], x, y)  # a view
    assert not _vec_owned(np, x * 2.0, x, y)  # not yet the broadcast shape
    ro = x * y
    ro.flags.writeable = False
    assert not _vec_owned(np, ro, x, y)
    assert not _vec_owned(np, (x * y).astype(np.float32), x, y)
    assert not _vec_owned(np, np.float64(1.0), np.float64(2.0))  # a NumPy scalar is immutable


def test_never_owned_on_immutable_arrays():
    jnp = pytest.importorskip("jax.numpy")
    a = jnp.ones(5)
    assert not _vec_owned(jnp, a * 2.0, a)
