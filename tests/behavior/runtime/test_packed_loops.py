"""Packed `while` loops (src/codegen/pack.rs, runtime/loops.py): once at most half of the lanes
of a data-dependent loop are still active, its arrays are gathered to those lanes, and the
carried variables scattered back after the loop. Results must be the unpacked loop's, bit for bit
and dtype and shape included (so CPython's, element by element), whatever the shapes, strides
and iteration counts; only NumPy packs.

The fixture packs from one lane on, at half the lanes active or at every iteration, so that
every call here is packed, most of them several times."""

from __future__ import annotations

import math

import numpy as np
import pytest

from array_vectorize import vectorize
from array_vectorize.runtime import loops
from behavior.runtime.test_blocked_evaluation import assert_bitwise, case_args
from behavior.language.test_constructs import CASES
from oracle import BACKENDS, check, check_raising, floats, to_numpy


@pytest.fixture(params=[0.5, 1.0], ids=["half-active", "every-iteration"])
def packing(monkeypatch, request):
    """Packing from one lane on, when at most `param` of the lanes are active; returns the
    states of the loops that ran (`loops.Lanes`; `index` is None where a loop never packed)."""
    monkeypatch.setattr(loops, "PACK_MIN_LANES", 1)
    monkeypatch.setattr(loops, "PACK_FRACTION", request.param)
    return recorded_states(monkeypatch)


def recorded_states(monkeypatch):
    """The list every `loops.Lanes` made from now on is appended to."""
    states = []

    class Recorded(loops.Lanes):
        __slots__ = ()

        def __init__(self, carried):
            super().__init__(carried)
            states.append(self)

    monkeypatch.setattr(loops, "Lanes", Recorded)
    return states


def unpacked(vec, *args):
    """`vec(*args)` with packing off."""
    saved = loops.PACK_MIN_LANES
    loops.PACK_MIN_LANES = 1 << 62
    try:
        return vec(*args)
    finally:
        loops.PACK_MIN_LANES = saved


def packed_loops(states):
    return sum(s.index is not None for s in states)


# ----------------------------------------------------------------------------- functions


def eccentric_anomaly(mean_anomaly, eccentricity):
    # Kepler's equation by Newton's method; near-parabolic orbits take many more steps.
    anomaly = mean_anomaly if eccentricity < 0.8 else math.pi
    steps = 0
    while steps < 80:
        delta = (anomaly - eccentricity * math.sin(anomaly) - mean_anomaly) / (1.0 - eccentricity * math.cos(anomaly))
        anomaly -= delta
        if abs(delta) < 1e-13:
            return anomaly
        steps += 1
    return anomaly


def bond_yield(price, coupon):
    # The yield of a 10-year annual bond by bisection: to a basis point for bonds quoted below
    # 120, to a ten-thousandth of one above.
    low, high = -0.5, 1.0
    while high - low > (1e-4 if price < 120.0 else 1e-8):
        mid = 0.5 * (low + high)
        value = 0.0
        for year in range(1, 11):
            value += coupon / (1.0 + mid) ** year
        value += 100.0 / (1.0 + mid) ** 10
        if value > price:
            low = mid
        else:
            high = mid
    return 0.5 * (low + high)


def halvings_to_unit(load):
    # How many halvings bring a load under one unit (an int counter carried by the loop).
    count = 0
    while abs(load) > 1.0 and count < 1100:
        load = load / 2.0
        count += 1
    return count


def cooling_stages(temperature, ambient):
    # Stages of a cooling schedule, each settling by an inner relaxation loop.
    stages = 0
    while temperature > ambient + 1.0 and stages < 40:
        target = 0.5 * (temperature + ambient)
        while temperature - target > 0.25:
            temperature = temperature - 0.3 * (temperature - target)
        stages += 1
    return stages + temperature * 1e-3


def damped_rebounds(height):
    # Rebounds of a ball dropped three times; each drop bounces until it is under 1 cm.
    bounces = 0
    for _ in range(3):
        h = height
        while h > 0.01 and bounces < 500:
            h = h * 0.6
            bounces += 1
    return bounces


def sqrt_until_flat(a):
    # A square root by Newton steps, then a flag: whether the last step was a tie.
    x = a if a > 1.0 else 1.0
    flat = False
    while not flat:
        y = 0.5 * (x + a / x)
        flat = abs(y - x) <= 1e-15 * x
        x = y
    return x if flat else -x


FUNCTIONS = {
    "eccentric_anomaly": (eccentric_anomaly, 2),
    "bond_yield": (bond_yield, 2),
    "halvings_to_unit": (halvings_to_unit, 1),
    "cooling_stages": (cooling_stages, 2),
    "damped_rebounds": (damped_rebounds, 1),
    "sqrt_until_flat": (sqrt_until_flat, 1),
}


def inputs(name, shape=(240,), seed=1):
    rng = np.random.default_rng(seed)
    n = int(np.prod(shape))
    if name == "eccentric_anomaly":
        args = [rng.uniform(0.0, 2.0 * math.pi, n), rng.choice([0.0, 0.3, 0.9, 0.999], n)]
    elif name == "bond_yield":
        args = [rng.uniform(60.0, 160.0, n), rng.choice([0.0, 2.5, 5.0, 8.0], n)]
    elif name == "cooling_stages":
        args = [rng.uniform(-5.0, 900.0, n), rng.uniform(0.0, 30.0, n)]
    elif name == "sqrt_until_flat":
        args = [np.abs(rng.normal(0.0, 1e3, n)) + 1e-3]
    else:
        args = [np.concatenate([floats(0), rng.uniform(-1e300, 1e300, n)])[:n] * rng.choice([1.0, 1e-300, 1e10], n)]
    return [a.reshape(shape) for a in args]


# ----------------------------------------------------------------------------- tests


@pytest.mark.parametrize("name", sorted(FUNCTIONS))
def test_packed_loops_give_the_unpacked_bits_and_cpythons_values(name, packing):
    fn, _ = FUNCTIONS[name]
    vec = vectorize(fn)
    assert "_vec_pack(" in vec.source
    args = inputs(name)
    got = check(vec, *args)
    assert packed_loops(packing) > 0
    assert_bitwise(got, unpacked(vec, *args))


@pytest.mark.parametrize("name", sorted(FUNCTIONS))
@pytest.mark.parametrize(
    "layout",
    ["2-d", "broadcast", "scalar", "transposed", "strided"],
)
def test_shapes_and_strides_keep_each_lane_in_its_place(name, layout, packing):
    fn, arity = FUNCTIONS[name]
    vec = vectorize(fn)
    args = inputs(name, shape=(12, 20))
    if layout == "broadcast":
        args = [args[0][:, :1]] + [a[:1, :] for a in args[1:]]
    elif layout == "scalar":
        # A Python float beside the array, or a 0-d array alone (no lanes to pack).
        args = [args[0]] + [float(a.flat[3]) for a in args[1:]] if arity > 1 else [np.asarray(args[0].flat[5])]
    elif layout == "transposed":
        args = [a.T for a in args]
    elif layout == "strided":
        args = [a[::2, ::3] for a in args]
    got = check(vec, *args)
    want = unpacked(vec, *args)
    assert_bitwise(got, want)
    assert np.shape(to_numpy(got)) == np.broadcast_shapes(*[np.shape(a) for a in args])


@pytest.mark.parametrize("name", sorted(n for n, (_, kinds, _) in CASES.items() if set(kinds) == {"f"}))
def test_every_float_language_case_gives_the_unpacked_bits(name, packing):
    fn, kinds, ulps = CASES[name]
    vec = vectorize(fn)
    args = case_args(kinds)
    got = check(vec, *args, ulps=ulps)
    assert_bitwise(got, unpacked(vec, *args))
    if "_vec_pack(" in vec.source:
        assert packing, name


def weekly_rota(day_crew, night_crew):
    # Four weeks of a rota: each week the night crew moves to days and one new hand joins.
    week = 0
    while week < 4:
        week += 1
        for _ in range(1):
            day_crew, night_crew = night_crew, 1
    return day_crew


def test_a_mask_the_same_on_every_lane_is_never_packed(packing):
    # The loop's test reads a Python int only: its mask stays a 0-d array (fuzz campaign 31,
    # seed 340001 #901: packed at every iteration, a later pack read the 0-d mask as one lane
    # and kept lane 0 only).
    vec = vectorize(weekly_rota)
    day, night = np.array([5.0, 0.0, 2.0, -1.5]), np.array([0.0, 0.0, 7.0, math.inf])
    got = check(vec, day, night)
    assert_bitwise(got, unpacked(vec, day, night))
    assert packed_loops(packing) == 0


def test_a_heavy_tail_packs_down_to_the_slow_lanes(monkeypatch):
    # At the defaults (4096 lanes, half active): near-parabolic orbits take dozens of steps,
    # the rest a handful; the loop's last iterations hold only the slow lanes.
    states = recorded_states(monkeypatch)
    vec = vectorize(eccentric_anomaly)
    rng = np.random.default_rng(7)
    m = rng.uniform(0.0, 2.0 * math.pi, 20000)
    e = np.where(rng.uniform(size=20000) < 0.02, 0.9999, 0.2)
    got = check(vec, m, e)
    assert len(states) == 1 and states[0].index is not None
    assert states[0].index.size < 0.05 * m.size  # packed down to the slow lanes
    assert_bitwise(got, unpacked(vec, m, e))


def test_small_calls_never_pack(packing, monkeypatch):
    vec = vectorize(eccentric_anomaly)
    args = inputs("eccentric_anomaly")
    monkeypatch.setattr(loops, "PACK_MIN_LANES", 10_000)
    check(vec, *args)
    assert packed_loops(packing) == 0


@pytest.mark.parametrize("backend", sorted(set(BACKENDS) - {"numpy"}))
def test_other_namespaces_never_pack(backend, packing):
    # JAX arrays are immutable; Dask, torch and array-api-strict are left as they are.
    vec = vectorize(eccentric_anomaly)
    check(vec, *inputs("eccentric_anomaly", shape=(40,)), backend=backend)
    assert packing == []  # no state made: not NumPy


def amortization_months(balance, rate):
    # Months to pay off a loan at 100 a month; a rate that never amortizes is an error (D11).
    months = 0
    while balance > 0.0:
        if rate >= 0.01:
            raise ValueError(f"rate {rate} never amortizes a balance of {balance}")
        balance = balance * (1.0 + rate) - 100.0
        months += 1
        if months > 600:
            break
    return months


@pytest.mark.parametrize("library", ["jax", "dask"])
def test_jax_and_dask_arrays_never_pack(library, packing):
    # Eager JAX arrays (immutable) and Dask's lazy ones run the loop as it is.
    vec = vectorize(eccentric_anomaly)
    m, e = inputs("eccentric_anomaly", shape=(40,))
    e = np.minimum(e, 0.3)  # well conditioned: XLA's sin may differ from libm's in the last bit
    if library == "jax":
        jax = pytest.importorskip("jax")
        jax.config.update("jax_enable_x64", True)
        got = np.asarray(vec(jax.numpy.asarray(m), jax.numpy.asarray(e)))
    else:
        da = pytest.importorskip("dask.array")
        got = np.asarray(vec(da.from_array(m, chunks=10), da.from_array(e, chunks=10)).compute())
    assert packing == []
    want = np.array([eccentric_anomaly(a, b) for a, b in zip(m.tolist(), e.tolist())])
    np.testing.assert_allclose(got, want, rtol=1e-15, atol=0.0)


def test_a_raise_in_a_packed_loop_names_the_callers_element(packing):
    # The loop records which lanes raised and the check runs after it, on every lane: the
    # raising element is the caller's, in C order, packed or not.
    vec = vectorize(amortization_months)
    assert "_vec_pack(" in vec.source
    balance = np.linspace(0.0, 6000.0, 40).reshape(8, 5)
    rate = np.full((8, 5), 0.004)
    check_raising(vec, balance, rate)
    rate[5, 2] = rate[6, 1] = 0.02  # balances the first months leave positive
    got = check_raising(vec, balance, rate)
    assert got is not None and packed_loops(packing) > 0


def tier(load):
    # Shed load in steps whose size a per-lane table index picks.
    level = 0
    while load > 0.0 and level < 5:
        load = load - (1.0, 10.0, 100.0)[int(load) % 3]
        level += 1
    return level


def test_a_table_lookup_leaves_the_loop_unpacked(packing):
    # A table's IndexError names the first bad lane of the call: the loop is not packed.
    vec = vectorize(tier)
    assert "_vec_take(" in vec.source and "_vec_pack(" not in vec.source, vec.source
    check(vec, np.linspace(-5.0, 5000.0, 30))
    assert packing == []


def test_the_state_refuses_what_it_cannot_hold():
    np_f = np.ones(5000)
    assert loops._vec_lanes(np, 1, np_f) is not None
    assert loops._vec_lanes(np, 1, np_f, np.ones(5000, dtype=np.uint64)) is None  # item 13's lattice
    assert loops._vec_lanes(np, 1, np_f, (np_f,)) is None  # a local tuple holding an array
    assert loops._vec_lanes(np, 1, np_f.view(np.matrix)) is None  # a subclass
    assert loops._vec_lanes(np, 1, np.ones(10)) is None  # too small to gain


def test_a_variable_with_lanes_the_loop_does_not_hold_is_an_error_not_a_broadcast(monkeypatch):
    monkeypatch.setattr(loops, "PACK_MIN_LANES", 1)
    x = np.arange(8.0)
    active = x > 6.0  # one lane active: a stray full-length array would broadcast against it
    lanes = loops._vec_lanes(np, 2, active, x)
    active, x = loops._vec_pack(np, lanes, active, active, x)
    assert x.shape == (1,)
    with pytest.raises(RuntimeError, match="internal error"):
        loops._vec_unpack(np, lanes, active, np.arange(8.0))


def test_values_the_same_on_every_lane_pass_through(monkeypatch):
    # A Python number or a uniform object (D14) carried by the loop is the same on every lane:
    # packing leaves it alone, and unpacking gives its last value, as the unpacked loop does.
    monkeypatch.setattr(loops, "PACK_MIN_LANES", 1)
    x = np.arange(6.0)
    active = x > 3.5
    mode = object()
    lanes = loops._vec_lanes(np, 4, active, 7, mode, x)
    active, n, m, x = loops._vec_pack(np, lanes, active, active, 7, mode, x)
    assert (n, m, x.tolist()) == (7, mode, [4.0, 5.0])
    active, n, m, x = loops._vec_unpack(np, lanes, active, 8, mode, x * 10.0)
    assert (n, m, x.tolist()) == (8, mode, [0.0, 1.0, 2.0, 3.0, 40.0, 50.0])


def halvings(x):
    # Octaves above one (a frequency ladder): the lanes stop after very different step counts,
    # an infinite one never converges and stops at the cap, NaN never enters the loop.
    n = 0
    while x > 1.0 and n < 60:
        x = x * 0.5
        n += 1
    return n + x


def halvings_to_a_bad_octave(x):
    n = 0
    while x > 1.0 and n < 60:
        if x == 3.0:
            raise ValueError("octave 3 has no band")
        x = x * 0.5
        n += 1
    return n + x


def octave_ladder(rng):
    # 8192 lanes take one step, 1000 take ten, 100 forty, 70 (inf) the sixty of the cap, and
    # 30 (NaN, 0.5) none: shuffled, so that the slow lanes lie anywhere in the call.
    x = np.concatenate([
        np.full(8192, 2.0), np.full(1000, 2.0**10), np.full(100, 2.0**40), np.full(70, math.inf),
        np.full(20, math.nan), np.full(10, 0.5),
    ])
    return x[rng.permutation(x.size)]


def test_a_packed_loop_packs_on_below_the_first_packs_lanes(monkeypatch):
    # At the defaults: the first pack (after one step, 1170 of 9392 lanes active) needs
    # PACK_MIN_LANES; later ones go on down to REPACK_MIN_LANES lanes held, so the last
    # iterations compute the 70 lanes that never converge, not the 1170 of the first pack.
    assert 1170 < loops.PACK_MIN_LANES <= 9392 // 2
    states = recorded_states(monkeypatch)
    vec = vectorize(halvings)
    assert "_vec_pack(" in vec.source, vec.source
    x = octave_ladder(np.random.default_rng(11))
    got = check(vec, x)
    assert len(states) == 1 and states[0].index is not None
    assert sorted(states[0].index.tolist()) == np.flatnonzero(np.isinf(x)).tolist()
    assert_bitwise(got, unpacked(vec, x))


def test_a_raise_deep_in_a_repacked_loop_names_the_callers_element(monkeypatch):
    # One lane reaches 3.0 after forty halvings, when the loop holds the slow lanes only: the
    # error names that lane's place in the call, as CPython's loop over the elements does.
    states = recorded_states(monkeypatch)
    vec = vectorize(halvings_to_a_bad_octave)
    x = octave_ladder(np.random.default_rng(12))
    bad = int(np.flatnonzero(x == 2.0**40)[37])
    x[bad] = 3.0 * 2.0**40
    got = check_raising(vec, x)
    assert isinstance(got, ValueError)
    assert f"element ({bad},)" in " ".join(got.__notes__), got.__notes__
    assert len(states) == 1 and states[0].index is not None and states[0].index.size < 1170
    x[bad] = 2.0**40
    assert check_raising(vec, x) is None
