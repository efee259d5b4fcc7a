"""Packed `while` loops under `jax.jit` (D12, runtime/loops.py `_packed_lax_while`): a lane-wise
loop (one src/codegen/pack.rs packs on NumPy) runs as `jax.lax.while_loop` over every lane while
more than `n // JAX_PACK_FACTOR` of its `n` lanes are active, then on those lanes gathered into
buffers of that static size (and smaller again), their values scattered back after the loop.

Each lane takes the same operations in the same order, so every result is the unpacked traced
loop's bit for bit (the loop as it ran before packing, `unpacked`), and CPython's per element
where XLA's arithmetic is IEEE's (`+ - * /`, comparisons); padding lanes never write back. The
fixture packs from 4 lanes on, so that a few hundred lanes pack over two or three levels."""

from __future__ import annotations

import math

import numpy as np
import pytest

from array_vectorize import vectorize
from array_vectorize.runtime import loops
from behavior.runtime.test_blocked_evaluation import assert_bitwise
from behavior.runtime.test_packed_loops import halvings  # octaves of a frequency ladder, capped at 60
from behavior.runtime.test_packed_loops import tier  # load shed by a per-lane table index

jax = pytest.importorskip("jax")
jax.config.update("jax_enable_x64", True)
jnp = jax.numpy


@pytest.fixture
def small_buffers(monkeypatch):
    monkeypatch.setattr(loops, "JAX_PACK_MIN_LANES", 4)


def traced(vec, *args):
    """`vec(*args)` under a fresh `jax.jit` (a new trace: the packing constants are read then)."""
    return np.asarray(jax.jit(lambda *a: vec(*a))(*[jnp.asarray(a) for a in args]))


def unpacked(vec, *args):
    """`vec(*args)` under `jax.jit` with packing off: one `jax.lax.while_loop` over every lane."""
    saved = loops.JAX_PACK_MIN_LANES
    loops.JAX_PACK_MIN_LANES = 1 << 62
    try:
        return traced(vec, *args)
    finally:
        loops.JAX_PACK_MIN_LANES = saved


def while_loops(vec, *args):
    """How many `while` loops the traced function runs: one per level of packing, plus one."""
    text = str(jax.make_jaxpr(lambda *a: vec(*a))(*[jnp.asarray(a) for a in args]))
    return text.count("while[")


def assert_same_bits(got, want):
    """Same dtype, shape and bytes, NaN payloads and signs included."""
    got, want = np.asarray(got), np.asarray(want)
    assert got.dtype == want.dtype and got.shape == want.shape, (got.dtype, got.shape, want.dtype, want.shape)
    assert np.array_equal(got.reshape(-1).view(np.uint8), want.reshape(-1).view(np.uint8))


def assert_cpythons(got, fn, *args):
    """`got` is CPython's `fn` per element, bit for bit (a NaN's sign aside: item 18)."""
    shape = np.broadcast_shapes(*[np.shape(a) for a in args])
    lanes = [np.broadcast_to(a, shape).reshape(-1).tolist() for a in args]
    assert_bitwise(got, np.array([fn(*v) for v in zip(*lanes)]).reshape(shape))


# ----------------------------------------------------------------------------- functions


def heron_root(area):
    # The side of a square plot of the given area by Heron's method, to the last bit: a
    # plot of a few square metres takes a handful of steps, a county-sized one hundreds.
    if not 0.0 < area < math.inf:
        return area  # no plot (0, a negative or NaN area), or an unbounded one
    side = area if area > 1.0 else 1.0
    while True:
        better = 0.5 * (side + area / side)
        if better >= side:
            return side
        side = better


def eccentric_anomaly(mean_anomaly, eccentricity):
    # Kepler's equation by Newton's method: near-parabolic orbits take more steps (from pi,
    # where Newton's method converges for every eccentricity below one).
    anomaly = mean_anomaly if eccentricity < 0.8 else math.pi
    steps = 0
    while steps < 50:
        delta = (anomaly - eccentricity * math.sin(anomaly) - mean_anomaly) / (1.0 - eccentricity * math.cos(anomaly))
        anomaly = anomaly - delta
        if abs(delta) < 1e-12:
            return anomaly
        steps += 1
    return anomaly


def payoff_months(balance, rate):
    # Months to pay off a loan at 100 a month; a balance that grows past 50,000 is an error (D11).
    months = 0
    while balance > 0.0:
        balance = balance * (1.0 + rate) - 100.0
        months += 1
        if balance > 50000.0:
            raise ValueError(f"the balance grew to {balance:.2f} in month {months}")
    return months


def ladder(rng, n, slow):
    """`n` frequencies: `slow` of them take 40 halvings or 60 (inf), the rest one; NaN and 0.5
    lanes take none; shuffled, so that the slow lanes lie anywhere, one of 40 halvings last
    (where a buffer's padding reads: its result, unlike an infinite lane's, shows its count)."""
    x = np.full(n, 2.0)
    x[: slow // 2] = 2.0**40
    x[slow // 2 : slow] = math.inf
    x[slow : slow + 5] = math.nan
    x[slow + 5 : slow + 9] = 0.5
    x = x[rng.permutation(n)]
    if slow >= 2:
        j = int(np.flatnonzero(x == 2.0**40)[0])
        x[[j, -1]] = x[[-1, j]]
    return x


# ----------------------------------------------------------------------------- tests


@pytest.mark.parametrize(
    ("n", "slow", "levels"),
    [
        (1000, 12, 2),  # a few slow lanes among many fast ones: packed twice (125, then 15 lanes)
        (1000, 400, 2),  # 40% slow: packs once 125 or fewer are active (the infinite lanes)
        (1000, 0, 2),  # none slow: every lane ends after one step or none
        (1003, 12, 2),  # a size no buffer divides
        (37, 3, 1),  # one level (4 lanes)
    ],
)
def test_packed_lanes_give_cpythons_values_and_the_unpacked_bits(small_buffers, n, slow, levels):
    vec = vectorize(halvings)
    assert "lane_wise=True" in vec.source
    x = ladder(np.random.default_rng(n + slow), n, slow)
    assert while_loops(vec, x) == 1 + levels
    got = traced(vec, x)
    assert_same_bits(got, unpacked(vec, x))
    assert_cpythons(got, halvings, x)


def test_every_lane_slow_runs_to_the_end_at_full_width(small_buffers):
    # All lanes take the same 40 halvings: the count never falls to a buffer until they all end.
    vec = vectorize(halvings)
    x = np.full(500, 2.0**40)
    x[::7] = 3.0 * 2.0**39
    got = traced(vec, x)
    assert_same_bits(got, unpacked(vec, x))
    assert_cpythons(got, halvings, x)


def test_a_while_true_loop_left_by_return_packs_down_to_the_huge_areas(small_buffers):
    rng = np.random.default_rng(3)
    area = rng.uniform(0.0, 50.0, 2000)
    area[rng.choice(2000, 30, replace=False)] = 10.0 ** rng.uniform(50, 300, 30)
    # No subnormal area: XLA flushes it to zero, whose root it never finds (item 14).
    area[:8] = [0.0, -0.0, 1.0, 1e-300, math.inf, math.nan, 1.7976931348623157e308, 2.0]
    vec = vectorize(heron_root)
    assert "lane_wise=True" in vec.source
    assert while_loops(vec, area) == 3  # 250 and 31 lanes
    got = traced(vec, area)
    assert_same_bits(got, unpacked(vec, area))
    assert_cpythons(got, heron_root, area)


@pytest.mark.parametrize("layout", ["2-d", "broadcast", "python-float"])
def test_slow_orbits_among_fast_ones_in_any_shape(small_buffers, layout):
    # sin and cos are XLA's, not libm's: the bits are the unpacked loop's, CPython's to 1e-12.
    rng = np.random.default_rng(5)
    m = rng.uniform(0.0, 2.0 * math.pi, (24, 30))
    e = np.where(rng.uniform(size=(24, 30)) < 0.03, 0.9995, 0.3)
    m[0, :6] = [0.0, -0.0, math.pi, math.nan, 2.0 * math.pi, 1e-300]
    if layout == "broadcast":
        m, e = m[:, :1], e[:1, :]  # each carried array broadcast to the (24, 30) lanes
    elif layout == "python-float":
        e = 0.9995  # one slow orbit everywhere but where m is 0 or a multiple of pi
    vec = vectorize(eccentric_anomaly)
    args = (m, e)
    got = traced(vec, *args)
    assert got.shape == np.broadcast_shapes(np.shape(m), np.shape(e))
    assert while_loops(vec, *args) == 3
    assert_same_bits(got, unpacked(vec, *args))
    lanes = [np.broadcast_to(a, got.shape).reshape(-1).tolist() for a in args]
    want = np.array([eccentric_anomaly(*v) for v in zip(*lanes)]).reshape(got.shape)
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-15)


@pytest.mark.parametrize("x", [np.asarray(2.0**40), np.asarray([2.0**40]), np.asarray(math.nan), np.asarray([], dtype=np.float64)])
def test_a_zero_d_one_lane_or_empty_call_runs_unpacked(small_buffers, x):
    vec = vectorize(halvings)
    assert while_loops(vec, x) == 1
    got = traced(vec, x)
    assert_same_bits(got, unpacked(vec, x))
    assert got.shape == x.shape
    assert_cpythons(got, halvings, x)


def test_a_raise_in_a_packed_loop_names_its_own_lane(small_buffers):
    # The per-lane raise code is carried like any value and checked after the loop, over every
    # lane: the loan whose interest outgrows the payments raises in month 404, long after the
    # loop packed.
    vec = vectorize(payoff_months)
    balance = np.full(900, 150.0)
    balance[::50] = 9000.0  # 18 slow lanes of 112 months, the rest 2
    rate = np.full(900, 0.004)
    assert while_loops(vec, balance, rate) == 3  # 112 and 14 lanes
    got = traced(vec, balance, rate)
    assert_same_bits(got, unpacked(vec, balance, rate))
    assert_cpythons(got, payoff_months, balance, rate)
    balance[700] = 30000.0  # its interest outgrows the payments
    with pytest.raises(ValueError) as expected:
        payoff_months(30000.0, 0.004)
    with pytest.raises(jax.errors.JaxRuntimeError) as info:
        traced(vec, balance, rate)
    assert str(info.value).rstrip().splitlines()[-1] == f"ValueError: {expected.value}"


def test_eager_jax_runs_the_loop_in_python(small_buffers):
    vec = vectorize(halvings)
    x = ladder(np.random.default_rng(9), 300, 6)
    got = np.asarray(vec(jnp.asarray(x)))
    assert_cpythons(got, halvings, x)
    assert_same_bits(got, traced(vec, x))


def test_a_loop_that_is_not_lane_wise_stays_at_full_width(small_buffers):
    # A table read per lane checks its index over every lane (D15): not packed, here or on NumPy.
    vec = vectorize(tier)
    assert "lane_wise" not in vec.source
    x = np.linspace(-5.0, 5000.0, 300)
    assert while_loops(vec, x) == 1
    assert_cpythons(traced(vec, x), tier, x)
