"""Every documented divergence from CPython (docs/semantics.md), pinned: if one of these starts
failing, the behaviour changed and the document must change with it."""

from __future__ import annotations

import math

import numpy as np
import pytest

from array_vectorize import VectorizationError, vectorize
from oracle import to_backend, to_numpy

INT64_MAX = np.iinfo(np.int64).max
INT64_MIN = np.iinfo(np.int64).min


def values(vec, *args):
    return np.asarray(vec(*[np.asarray(a) for a in args])).tolist()


def reciprocal(x):
    return 1.0 / x


def int_division(a, b):
    return a // b + a % b


def int_true_division(a, b):
    return a / b


def root(x):
    return math.sqrt(x)


def logarithm(x):
    return math.log(x)


def power(x, y):
    return x ** y


def exponential(x):
    return math.exp(x)


def increment(n):
    return n + 1


def exposure(position):
    return abs(position)


def truncate(x):
    return int(x)


def mixed(x):
    return 1 if x > 0.0 else 0.5


def mixed_position(x):
    if x > 0.0:
        return 1, x
    return 0.5, x


def nan_sum_sign(x, y):
    return math.copysign(1.0, x + y)


def half_power(x):
    return x ** 0.5


def math_half_power(x):
    return math.pow(x, 0.5)


def clamp_low(x):
    return max(x, 0.0)


def numpy_on_flags(flag, n):
    return np.abs(flag) + np.power(n, -1)


def test_d3_float_division_by_zero_gives_ieee_values():
    with pytest.raises(ZeroDivisionError):
        reciprocal(0.0)
    assert values(vectorize(reciprocal), [0.0, -0.0]) == [math.inf, -math.inf]


def test_d3_integer_division_by_zero_gives_zero_and_inf():
    with pytest.raises(ZeroDivisionError):
        int_division(7, 0)
    assert values(vectorize(int_division), [7, -7], [0, 0]) == [0, 0]
    assert values(vectorize(int_true_division), [7, 0], [0, 0])[0] == math.inf
    assert math.isnan(values(vectorize(int_true_division), [7, 0], [0, 0])[1])


def test_d3_domain_errors_give_nan_and_infinities():
    with pytest.raises(ValueError):
        root(-1.0)
    with pytest.raises(ValueError):
        logarithm(0.0)
    assert math.isnan(values(vectorize(root), [-1.0])[0])
    assert values(vectorize(logarithm), [0.0]) == [-math.inf]


def test_d3_complex_and_zero_powers():
    assert isinstance(power(-8.0, 1.0 / 3.0), complex)
    with pytest.raises(ZeroDivisionError):
        power(0.0, -1.0)
    out = values(vectorize(power), [-8.0, 0.0], [1.0 / 3.0, -1.0])
    assert math.isnan(out[0]) and out[1] == math.inf


def test_d3_float_overflow_gives_inf():
    with pytest.raises(OverflowError):
        exponential(1000.0)
    assert values(vectorize(exponential), [1000.0]) == [math.inf]


def test_integer_overflow_wraps():
    assert increment(INT64_MAX) == 2**63
    assert values(vectorize(increment), np.array([INT64_MAX])) == [INT64_MIN]
    # abs(-2**63) is 2**63, beyond int64: it wraps to -2**63 (fuzz finding 670001 #1398).
    assert exposure(INT64_MIN) == 2**63
    assert values(vectorize(exposure), np.array([INT64_MIN, -5])) == [INT64_MIN, 5]


def test_int_of_nan_gives_zero_and_of_infinity_raises_cpythons_overflow_error():
    with pytest.raises(ValueError):
        truncate(math.nan)
    assert values(vectorize(truncate), [math.nan, 2.5]) == [0, 2]
    with pytest.raises(OverflowError) as cpython:
        truncate(-math.inf)
    with pytest.raises(OverflowError) as got:
        vectorize(truncate)(np.array([math.nan, -math.inf, math.inf]))
    assert got.value.args == cpython.value.args


def test_mixed_result_kinds_are_one_float_array():
    assert type(mixed(1.0)) is int and type(mixed(-1.0)) is float
    result = np.asarray(vectorize(mixed)(np.array([1.0, -1.0])))
    assert result.dtype == np.float64 and result.tolist() == [1.0, 0.5]


def test_mixed_kinds_in_one_position_of_a_tuple_are_one_float_array():
    assert type(mixed_position(1.0)[0]) is int and type(mixed_position(-1.0)[0]) is float
    first, second = vectorize(mixed_position)(np.array([1.0, -1.0]))
    assert first.dtype == np.float64 and first.tolist() == [1.0, 0.5]
    assert second.dtype == np.float64 and second.tolist() == [1.0, -1.0]


def test_numpy_half_power_is_sqrt():
    assert half_power(-0.0) == 0.0 and math.copysign(1, half_power(-0.0)) == 1.0
    assert half_power(-math.inf) == math.inf
    out = values(vectorize(half_power), [-0.0, -math.inf])
    assert math.copysign(1, out[0]) == -1.0  # NumPy: sqrt(-0.0) is -0.0
    assert math.isnan(out[1])


def test_numpy_math_pow_half_is_sqrt():
    assert math_half_power(-math.inf) == math.inf
    out = values(vectorize(math_half_power), [-0.0, -math.inf, 4.0])
    assert math.copysign(1, out[0]) == -1.0 and math.isnan(out[1]) and out[2] == 2.0


def test_max_against_a_constant_follows_numpy_for_signed_zeros():
    # CPython keeps the first of equal arguments: max(-0.0, 0.0) is -0.0. xp.maximum leaves the
    # sign of zero to the library; NumPy returns the second operand, which matches CPython.
    assert math.copysign(1, clamp_low(-0.0)) == -1.0
    assert "xp.maximum(0.0, x)" in vectorize(clamp_low).source
    assert math.copysign(1, values(vectorize(clamp_low), [-0.0])[0]) == -1.0


def test_narrow_inputs_are_widened():
    out = np.asarray(vectorize(reciprocal)(np.array([3.0], dtype=np.float32)))
    assert out.dtype == np.float64 and out[0] == 1.0 / 3.0


def test_sign_of_a_nan_computed_from_nans_is_the_librarys():
    # Item 18: x + y of two NaNs gives one of them; which one (and so the sign copysign reads)
    # is up to the implementation. The vectorized result is the array library's.
    pos, neg = math.nan, -math.nan
    library = math.copysign(1.0, float(np.add(np.array([pos]), np.array([neg]))[0]))
    assert values(vectorize(nan_sum_sign), [pos], [neg]) == [library]
    assert nan_sum_sign(pos, neg) in (1.0, -1.0)  # CPython's: one of the two, by its own order


def d3_nan_sign(x, y):
    return math.copysign(1.0, x / y)


def test_sign_of_a_d3_nan_is_the_librarys():
    # Item 18: 0.0 / 0.0 raises in CPython; its D3 value is a NaN signed as the array library
    # makes it (negative on x86's NumPy), which copysign shows.
    with np.errstate(all="ignore"):
        library = math.copysign(1.0, float(np.divide(np.array([0.0]), np.array([0.0]))[0]))
    assert values(vectorize(d3_nan_sign), [0.0, 1.0], [0.0, 2.0]) == [library, 1.0]


def test_numpy_calls_on_bools_and_ints_follow_python():
    # Item 19 (D16): on NumPy scalars np.abs(True) is True and np.power(2, -1) raises; the
    # vectorized function counts the bool as 1 and computes 2 ** -1 as Python does.
    assert np.abs(np.bool_(True)) is np.True_
    with pytest.raises(ValueError):
        np.power(2, -1)
    assert values(vectorize(numpy_on_flags), [True, False], [2, 4]) == [1.5, 0.25]


def halvings_until_small(x):
    k = 0
    while abs(x) > 1.0 and k < 2000:
        x = x / 2
        k = k + 1
    return k


def test_item_20_while_loops_run_per_lane_also_under_jax_jit():
    # Item 20: each lane iterates as CPython's element does; under `jax.jit` the masked loop runs
    # as `jax.lax.while_loop` (`_vec_while`), with the same per-lane results.
    vec = vectorize(halvings_until_small)
    xs = [0.5, 4.0, 1e300, math.inf, math.nan, -3.0]
    expected = [halvings_until_small(x) for x in xs]
    assert values(vec, xs) == expected
    jax = pytest.importorskip("jax")
    jax.config.update("jax_enable_x64", True)
    assert np.asarray(jax.jit(vec)(jax.numpy.asarray(xs))).tolist() == expected


def damped_force(k, x, c, v):
    return k * x + c * v


def test_item_14_jax_flushes_subnormals_eagerly_and_under_jit():
    # XLA's CPU backend runs every JAX operation, eager ones too: a subnormal operand or result
    # is zero there, where NumPy (and CPython) keep it. Normal values are CPython's.
    jax = pytest.importorskip("jax")
    jax.config.update("jax_enable_x64", True)
    jnp = jax.numpy
    vec = vectorize(damped_force)
    tiny = 5e-324
    args = ([1.0, 0.5, 2.0], [tiny, 1e-310, 3.0], [1.0, 1.0, 0.25], [0.0, 0.0, 4.0])
    assert [damped_force(*a) for a in zip(*args)] == [tiny, 5e-311, 7.0]
    assert values(vec, *args) == [tiny, 5e-311, 7.0]
    for call in (vec, jax.jit(vec)):
        assert np.asarray(call(*[jnp.asarray(a) for a in args])).tolist() == [0.0, 0.0, 7.0]


def first_step_above(x, n):
    i = -1
    for i in range(n):
        if i * i > x:
            break
    return i


def test_item_20_break_and_per_lane_range_leave_each_lane_where_cpython_does():
    vec = vectorize(first_step_above)
    xs = [0.5, 30.0, math.nan, -1.0, 1e9, 7.0]
    ns = [3, 10, 4, 0, 6, -2]
    assert values(vec, xs, ns) == [first_step_above(x, n) for x, n in zip(xs, ns)]


_TABLE = (10.0, 20.0, 30.0)


def table_then_division(k, d):
    return _TABLE[k] / d


def test_item21_table_index_error_raised_before_an_earlier_elements_error():
    # CPython raises ZeroDivisionError at element 0 first; the vectorized call checks every
    # table index before computing, so element 1's IndexError is what it raises.
    with pytest.raises(ZeroDivisionError):
        [table_then_division(k, d) for k, d in ((0, 0.0), (3, 1.0))]
    with pytest.raises(IndexError, match="tuple index out of range") as info:
        vectorize(table_then_division)(np.array([0, 3]), np.array([0.0, 1.0]))
    assert "element 1 (C order), index 3" in info.value.__notes__[0]


def nan_in_nan_table(x):
    return (x > 0.0) and math.nan in (math.nan,)


def test_item22_a_constant_nan_is_never_a_member():
    assert nan_in_nan_table(1.0) is True
    assert values(vectorize(nan_in_nan_table), [1.0, -1.0]) == [False, False]


_ALLOWANCE = {2: 100.0, 3: 150.0}


def allowance_of(flag, x):
    return _ALLOWANCE[flag] if x > 0.0 else 0.0


def test_item21_a_missing_bool_key_is_named_as_an_int_without_a_0_or_1_key():
    with pytest.raises(KeyError) as cpython:
        allowance_of(True, 1.0)
    assert cpython.value.args == (True,)
    with pytest.raises(KeyError) as info:
        vectorize(allowance_of)(np.array([True]), np.array([1.0]))
    assert info.value.args == (1,)


def test_item23_a_list_is_frozen_when_the_function_is_compiled():
    table = [1.0, 2.0]

    def pick(k):
        return table[k]

    vec = vectorize(pick)
    table[0] = 100.0
    assert pick(0) == 100.0
    assert values(vec, [0, 1]) == [1.0, 2.0]


def shifted(x, n):
    return x << n


def test_item24_a_negative_shift_count_gives_zero():
    with pytest.raises(ValueError, match="negative shift count"):
        shifted(3, -1)
    assert values(vectorize(shifted), [3, -3, 3], [-1, -70, 1]) == [0, 0, 6]


def cancelling_sum(x):
    return sum(w * x for w in (1e16, 1.0, -1e16))


def test_item25_sum_adds_left_to_right_from_int_zero():
    import functools
    import operator

    left_to_right = functools.reduce(operator.add, (1e16, 1.0, -1e16), 0)
    assert values(vectorize(cancelling_sum), [1.0]) == [left_to_right] == [0.0]


def checked_log(rh):
    if rh > 1.0:
        raise ValueError(f"rh={rh}")
    return math.log(rh)


def reciprocal_then_check(x, y):
    r = 1.0 / x
    if y < 0:
        raise ValueError("negative y", y)
    return r


def test_every_element_is_evaluated_and_the_first_raising_one_raises():
    # Item 20: CPython stops at element 1; here all run, and element 1's exception is raised.
    with pytest.raises(ValueError) as info:
        vectorize(checked_log)(np.array([0.5, 2.0, 3.0]))
    assert info.value.args == ("rh=2.0",)
    assert info.value.__notes__ == ["array-vectorize: raised for element (1,) (flat index 1)"]


def test_a_numeric_error_on_an_earlier_element_does_not_raise():
    # Item 21: CPython raises ZeroDivisionError at element 0; D3 makes it inf, element 1 raises.
    with pytest.raises(ZeroDivisionError):
        reciprocal_then_check(0.0, 1.0)
    with pytest.raises(ValueError) as info:
        vectorize(reciprocal_then_check)(np.array([0.0, 1.0]), np.array([1.0, -2.0]))
    assert info.value.args == ("negative y", -2.0)


def positive_log(rh):
    if rh <= 0.0:
        raise ValueError("rh must be positive")
    y = math.log(rh)
    return y * y + y


def test_the_formula_after_a_check_runs_on_raising_elements_too():
    # Item 22: log runs on the element that raised, so NumPy can warn before the exception.
    with np.errstate(divide="raise"):
        with pytest.raises(FloatingPointError):
            vectorize(positive_log)(np.array([0.0, 2.0]))


def ratio_or_zero(a, b):
    try:
        r = a / b
    except ZeroDivisionError:
        r = 0.0
    return r


def log_base_in_try(x, base):
    try:
        y = math.log(x, base)
    except ValueError:
        y = 0.0
    return y


def test_inside_try_numeric_errors_raise_as_in_cpython():
    # Item 24: inside `try` the division raises and is caught, as CPython; outside it is inf (item 1).
    assert vectorize(ratio_or_zero)(np.array([1.0, 3.0]), np.array([0.0, 2.0])).tolist() == [0.0, 1.5]
    assert ratio_or_zero(1.0, 0.0) == 0.0
    # The two-argument log is not modelled inside `try`: rejected rather than given IEEE values.
    with pytest.raises(VectorizationError, match=r"math.log\(x, base\) inside a `try` body is not supported"):
        vectorize(log_base_in_try)


def scale_unguarded(x, limit=None):
    offset = 0.0 if limit is None else 1.0
    return x * limit + offset


def test_an_optional_parameter_read_as_a_number_with_none_reads_the_stand_in():
    # Item 20 (D14): CPython raises TypeError on `x * None`; the float body reads 0.0.
    with pytest.raises(TypeError):
        scale_unguarded(2.0)
    assert values(vectorize(scale_unguarded), [2.0, -3.0]) == [0.0, -0.0]
    assert values(vectorize(scale_unguarded), [2.0, -3.0], 2.0) == [5.0, -5.0]


def read_on_one_side(x, params):
    if x > 0.0:
        return params["a"] * x
    return 0.0


def test_a_uniform_value_read_on_one_side_of_an_array_if_is_read_on_every_call():
    # Item 21 (D14, D1): no element takes the side that reads "a", so CPython never reads it;
    # both sides are evaluated, so the read raises.
    assert [read_on_one_side(x, {}) for x in (-1.0, -2.0)] == [0.0, 0.0]
    with pytest.raises(KeyError):
        vectorize(read_on_one_side)(np.array([-1.0, -2.0]), {})


def stock_check(level, reorder):
    count = 0 if reorder else 2.5  # an int on some elements, a float on others (item 8)
    if level < 0:
        raise ValueError(f"count={count}")
    return level + count


def stock_check_padded(level, reorder):
    count = 0 if reorder else 2.5
    if level < 0:
        raise ValueError(f"count={count:>6}|")
    return level + count


@pytest.mark.parametrize(
    "fn, cpython_args, vectorized_args",
    [
        (stock_check, ("count=0",), ("count=0.0",)),
        # Through a width spec (fuzz finding 530104 #224): the float is padded, not the int.
        (stock_check_padded, ("count=     0|",), ("count=   0.0|",)),
    ],
)
def test_item37_a_message_formats_an_int_held_as_float_as_a_float(fn, cpython_args, vectorized_args):
    # Item 37: `count` is one float64 array (item 8), so the message of element 0 shows 0.0
    # where CPython's element loop shows the int 0.
    with pytest.raises(ValueError) as cpython:
        fn(-1.0, True)
    assert cpython.value.args == cpython_args
    with pytest.raises(ValueError) as info:
        vectorize(fn)(np.array([-1.0, 3.0]), np.array([True, False]))
    assert info.value.args == vectorized_args


def flag_check(level, big):
    flag = True if big else 2  # a bool on some elements, an int on others: one int64 array
    if level < 0:
        raise ValueError(f"flag={flag}")
    return level


def test_item37_a_message_formats_a_bool_held_as_int_as_an_int():
    with pytest.raises(ValueError) as cpython:
        flag_check(-1.0, True)
    assert cpython.value.args == ("flag=True",)
    with pytest.raises(ValueError) as info:
        vectorize(flag_check)(np.array([-1.0, 3.0]), np.array([True, False]))
    assert info.value.args == ("flag=1",)



def claim_units(x):
    # Whole units past 2**53 for a positive claim, a fractional share otherwise (item 8).
    return 9007199254740993 if x > 0.0 else 0.5


@pytest.mark.parametrize("backend", ["numpy", "strict"])
def test_item8_an_int_past_2_53_held_as_float_is_the_nearest_float(backend):
    got = to_numpy(vectorize(claim_units)(to_backend(np.array([1.0, -1.0]), backend)))
    assert got.dtype == np.float64
    assert got.tolist() == [float(2**53 + 1), 0.5]
    assert float(2**53 + 1) != claim_units(1.0)  # CPython's int, which float64 cannot hold


def reserve_floor(balance):
    # A reserve above the least of a whole unit, half a unit and the balance itself: the min is
    # an int on some elements and a float on others (item 8).
    if balance > min(1, 0.5, balance):
        return 1
    return 0


def reserve_cap(balance):
    if balance < max(-1, -0.5, balance):
        return 1
    return 0


@pytest.mark.parametrize("backend", ["numpy", "strict"])
def test_item8_min_and_max_of_ints_and_floats_are_held_as_float(backend):
    # Fuzz finding 563004 #1012: CPython's min and max return the int argument itself, so
    # `b > min(1, 0.5, b)` is false; held as float64 the min rounds -(2**63 - 1) to -2.0**63
    # (and the max rounds 2**63 - 1 up to 2.0**63), which the int compares exactly against.
    low, high = -(2**63 - 1), 2**63 - 1
    assert [reserve_floor(b) for b in (low, 0, 3)] == [0, 0, 1]
    got = to_numpy(vectorize(reserve_floor)(to_backend(np.array([low, 0, 3], dtype=np.int64), backend)))
    assert got.tolist() == [1, 0, 1]
    assert [reserve_cap(b) for b in (high, 0, -3)] == [0, 0, 1]
    got = to_numpy(vectorize(reserve_cap)(to_backend(np.array([high, 0, -3], dtype=np.int64), backend)))
    assert got.tolist() == [1, 0, 1]


def lots_remainder(full_lots):
    # A whole number of lots, or a sliver of one; the remainder of an empty order by the lot.
    lot = 0 if full_lots else 1e-09
    return 0 % lot


@pytest.mark.parametrize("backend", ["numpy", "strict"])
def test_item8_a_branch_merge_is_float_where_every_element_takes_the_int_branch(backend):
    # `lot` is one float64 array even when no element takes the float branch, so `0 % lot`
    # follows float rules: nan (item 1), not the int remainder by zero's 0 (item 2).
    with pytest.raises(ZeroDivisionError):
        lots_remainder(True)
    got = to_numpy(vectorize(lots_remainder)(to_backend(np.array([True, True]), backend)))
    assert got.dtype == np.float64
    assert np.isnan(got).all()


def shares_per_claim(reorder):
    claims = 0 if reorder else 2.5  # an int on some elements, a float on others (item 8)
    try:
        share = 1 / claims
    except ValueError:
        share = 0.0
    return share


@pytest.mark.parametrize("backend", ["numpy", "strict"])
def test_item37_a_division_by_an_int_zero_held_as_float_is_worded_as_a_float_division(backend):
    with pytest.raises(ZeroDivisionError) as cpython:
        shares_per_claim(True)
    assert cpython.value.args == ("division by zero",)
    with pytest.raises(ZeroDivisionError) as vectorized:
        vectorize(shares_per_claim)(to_backend(np.array([False, True]), backend))
    assert vectorized.value.args == ("float division by zero",)


def _the_very_nan(x, y):
    return x in [y, x]


def _the_same_nan_through_another_name(x, c):
    z = x if c > 0.0 else 1.0
    return z in [x, 2.0]


def test_item22_a_containers_own_item_is_found_by_identity_only_as_that_variable():
    # D18: CPython finds `x` in `[y, x]` by identity, a NaN too, and so does the call.
    assert values(vectorize(_the_very_nan), [math.nan, 1.0], [0.0, 1.0]) == [True, True]
    # Through another name it is the same object in CPython, compared by `==` here.
    assert _the_same_nan_through_another_name(math.nan, 1.0) is True
    assert values(vectorize(_the_same_nan_through_another_name), [math.nan, 2.0], [1.0, 1.0]) == [False, True]


def _factor(d):
    if d < 10.0:
        return 0.5
    elif d >= 10.0:
        return 1.0


def _scaled(d, n):
    return _factor(d) + n


def test_item37_the_typeerror_of_a_helpers_none_names_the_array_kind_of_the_other_operand():
    # D20: `n` is an int merged with a float (item 8): held as float64, the message says 'float'.
    def mixed(d, k):
        n = 1 if k > 0 else 2.5
        return _scaled(d, n)

    assert "'int'" in str(pytest.raises(TypeError, _scaled, math.nan, 1).value)
    with pytest.raises(TypeError) as info:
        vectorize(mixed)(np.array([math.nan]), np.array([1.0]))
    assert str(info.value) == "unsupported operand type(s) for +: 'NoneType' and 'float'"


def _positive_part(x):
    if x > 0.0:
        return x


def test_item38_an_element_the_function_returns_none_for_raises_naming_it():
    assert _positive_part(-1.0) is None
    assert values(vectorize(_positive_part), [1.0, 2.0]) == [1.0, 2.0]
    with pytest.raises(TypeError, match="_positive_part returned None for this element") as info:
        vectorize(_positive_part)(np.array([1.0, -1.0, -2.0]))
    if hasattr(info.value, "__notes__"):
        assert info.value.__notes__ == ["array-vectorize: raised for element (1,) (flat index 1)"]


# Item 17: integers beyond 64 bits (issue 28 item 1: a power of int constants was computed on a
# 0-d int64 array, so `x * 2**70` wrapped to `x * 0` and `x < 2**1100` to `x < 0`).


def notional_in_yocto(x):
    return x * 2**70


def below_the_cap(x):
    return 1.0 if x < 2**1100 else 0.0


def below_two_to_64(x):
    return 1.0 if x < 2**64 else 0.0


def googolplex_scaled(x):
    return x * 10**100000


def counts_below_two_to_64(n):
    return n < 2**64


def counts_scaled(n):
    return n * 2**70


def counts_scaled_when_large(n):
    return n * 2**70 if n > 10**6 else n


def test_item17_an_integer_literal_beyond_64_bits_is_refused_at_its_position():
    def premium(x):
        return x * 1180591620717411303424

    with pytest.raises(VectorizationError) as info:
        vectorize(premium)
    (d,) = info.value.diagnostics
    assert "integer literal outside the 64-bit range" in d["message"] and d["col"] == 20, d


@pytest.mark.parametrize("backend", ["numpy", "strict"])
def test_item17_a_power_of_constants_meets_floats_as_in_cpython(backend):
    from oracle import check, floats

    xs = np.concatenate([floats(), [2.0**64, math.nextafter(2.0**64, 0.0), 1.7976931348623157e308, 1e300, 0.5]])
    for fn in (notional_in_yocto, below_the_cap, below_two_to_64):
        check(vectorize(fn), xs, backend=backend)
    assert values(vectorize(notional_in_yocto), [0.5, 1e300]) == [notional_in_yocto(0.5), math.inf] == [2.0**69, math.inf]
    assert values(vectorize(below_the_cap), [math.inf, -math.inf, 1e308, math.nan]) == [0.0, 1.0, 1.0, 0.0]


def test_item17_beyond_the_float_range_raises_overflow_error_as_cpython():
    with pytest.raises(OverflowError):
        googolplex_scaled(0.5)
    with pytest.raises(OverflowError, match="too large to convert to float"):
        vectorize(googolplex_scaled)(np.array([0.5, 0.0]))


@pytest.mark.parametrize("backend", ["numpy", "strict"])
def test_item17_compares_exactly_with_integer_arrays(backend):
    from oracle import check, ints, uints

    check(vectorize(counts_below_two_to_64), ints(), backend=backend)
    check(vectorize(counts_below_two_to_64), uints(), backend=backend)
    # Directly too: the model of the array rules once read 2**64 as a 0-d int64 power (item 16)
    # and explained the wrapped comparison.
    assert values(vectorize(counts_below_two_to_64), np.array([1, -5, INT64_MAX])) == [True, True, True]


def test_item17_with_an_integer_array_raises_overflow_error_even_off_cpythons_path():
    assert counts_scaled_when_large(3) == 3  # CPython never computes the product for 3
    for fn in (counts_scaled, counts_scaled_when_large):
        with pytest.raises(OverflowError, match="vectorized integers are 64-bit"):
            vectorize(fn)(np.array([1, 3], dtype=np.int64))


def dead_overflow(n):
    v = 1e-300 + (0 - n) % 2**1100
    return 0


def dead_overflow_in_try(n):
    try:
        v = 1e-300 + (0 - n) % 2**1100
    except OverflowError:
        raise ValueError("out of range")
    return 0


def test_item17_an_operation_that_raises_is_computed_even_when_its_result_is_never_read():
    # Item 17, last sentence (fuzz finding 520007 #1608): CPython raises on the element 1
    # (2**1100 - 1 does not convert to float), the vectorized call raises item 17's
    # OverflowError, also inside a `try` body; on 0 only CPython returns.
    for fn in (dead_overflow, dead_overflow_in_try):
        assert fn(0) == 0
        with pytest.raises((OverflowError, ValueError)):
            fn(1)
        with pytest.raises(OverflowError, match="vectorized integers are 64-bit"):
            vectorize(fn)(np.array([1, 0], dtype=np.int64))


def rounded(x):
    return round(x)


def floored(x):
    return math.floor(x)


def ceiled(x):
    return math.ceil(x)


@pytest.mark.parametrize("fn", [truncate, rounded, floored, ceiled])
def test_item7_conversions_beyond_int64_raise_per_element_and_nan_gives_zero(fn):
    # Item 7, each sentence: nan gives 0; ±inf and every float from 2**63 up or below -2**63
    # raise OverflowError, the first such element's in C order with its note (CPython's own for
    # ±inf, item 7's naming the function and the float for a finite one); -2**63 itself and the
    # floats between convert exactly; with protect_domains=True +inf and every float from 2**63
    # up give INT64_MAX, -inf and every float below -2**63 INT64_MIN.
    below = math.nextafter(-(2.0**63), -math.inf)
    inside = [math.nan, -(2.0**63), math.nextafter(2.0**63, 0.0), 2.0**62, -12.5, 0.5, -0.0]
    out = vectorize(fn)(np.array(inside))
    assert out.dtype == np.int64 and out.tolist() == [0] + [fn(x) for x in inside[1:]]
    name = {truncate: "int", rounded: "round", floored: "math.floor", ceiled: "math.ceil"}[fn]
    for beyond in (2.0**63, 1e300, below, -1e300):
        assert not INT64_MIN <= fn(beyond) <= INT64_MAX  # CPython: the float's exact int
        with pytest.raises(OverflowError) as got:
            vectorize(fn)(np.array([3.5, math.nan, beyond, math.inf]))
        assert got.value.args == (f"{name}({beyond!r}) is beyond int64, which an int array cannot hold (docs/semantics.md item 7)",)
        if hasattr(got.value, "add_note"):
            assert "array-vectorize: raised for element (2,) (flat index 2)" in got.value.__notes__
    for infinite in (math.inf, -math.inf):
        with pytest.raises(OverflowError) as cpython:
            fn(infinite)
        with pytest.raises(OverflowError) as got:
            vectorize(fn)(np.array([infinite, 1e300]))
        assert got.value.args == cpython.value.args
    protected = vectorize(fn, protect_domains=True)(np.array([math.inf, 2.0**63, 1e300, -math.inf, below, -1e300, math.nan]))
    assert protected.tolist() == [INT64_MAX] * 3 + [INT64_MIN] * 3 + [0]


def converted_when_small(x):
    return float(2**1100) if x > 1e308 else x


def divided_when_small(x):
    return 2**1100 / 3 if x > 1e308 else x


@pytest.mark.parametrize("fn, words", [(converted_when_small, "to convert to float"), (divided_when_small, "division result too large")])
def test_item17_a_conversion_beyond_the_float_range_raises_even_off_cpythons_path(fn, words):
    assert fn(1.0) == 1.0  # CPython never converts (nor divides) for 1.0
    with pytest.raises(OverflowError, match=words):
        vectorize(fn)(np.array([1.0, 2.0]))


def _is_int(n):
    if isinstance(n, int):
        return 1
    return 0


def test_item39_a_numpy_scalar_argument_is_a_0d_array_of_python_scalars():
    # Item 38 (D22): the element of a NumPy scalar argument is the Python scalar `.item()` gives,
    # as np.vectorize passes it; CPython called with the NumPy scalar itself sees its own type.
    vec = vectorize(_is_int)
    assert _is_int(np.int64(3)) == 0 and _is_int(np.int64(3).item()) == 1
    assert np.asarray(vec(np.int64(3))).item() == 1
    assert np.asarray(vec(np.float32(0.5))).item() == 0
    assert np.asarray(vec(np.array([1, 2], dtype=np.int16))).tolist() == [1, 1]
    assert np.vectorize(_is_int)(np.array([1, 2])).tolist() == [1, 1]

