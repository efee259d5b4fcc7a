"""The runtime's argument prologues (``_vec_float_args``, ``_vec_exact_args`` and the prologues a
function gets of its own) against what they promise: which arguments each accepts, what it
converts them to, that it declines everything else, and when a specialised prologue is made,
kept and remade. Split from test_runtime.py (the helpers against CPython), whose backends and
warning discipline it shares."""

from __future__ import annotations

import math
from typing import Any

import array_api_compat
import array_api_strict
import numpy as np
import pytest

from array_vectorize.runtime import args as args_module
from array_vectorize.runtime.args import _vec_exact_args, _vec_float_args, make_exact_args, make_float_args
from test_runtime import BACKENDS, Backend, _numpy_warns, backends, same  # noqa: F401 (_numpy_warns: autouse)

# --------------------------------------------------------------------------- argument prologues


@backends
def test_float_args_accepts_float64_arrays_and_python_floats(be: Backend) -> None:
    x = be.array([1.0, 2.0], "f")
    out = _vec_float_args(x, 1.5, -0.0)
    assert out is not None
    xp, a, b, c = out
    assert xp is be.xp and a is x
    assert be.kind(b) == "f" and b.shape == () and be.values(b) == [1.5]
    assert same(be.values(c)[0], -0.0)
    assert _vec_float_args(x, x)[1:] == (x, x)  # type: ignore[index]


@backends
@pytest.mark.parametrize("other", [1, True, "int64", "bool", "float32", "uint64"])
def test_float_args_declines_everything_else(be: Backend, other: Any) -> None:
    x = be.array([1.0], "f")
    if isinstance(other, str):
        other = be.lib.asarray([1], dtype=getattr(be.lib, other))
    assert _vec_float_args(x, other) is None
    assert _vec_float_args(other, x) is None


def test_float_args_rechecks_dtype_for_cached_types() -> None:
    """The plan is cached by type; the dtype is still checked on every call."""
    f = make_float_args()
    x = np.asarray([1.0])
    i = np.asarray([1], dtype=np.int64)
    for n in (1, 2, 3, 4):  # the plans are specialised by arity
        assert f(*[x] * n) == (BACKENDS[0].xp, *[x] * n)
        for k in range(n):
            assert f(*[x] * k, i, *[x] * (n - k - 1)) is None
            assert f(*[x] * k, np.asarray([1], dtype=np.float32), *[x] * (n - k - 1)) is None
        assert f(*[x] * n) is not None


def test_float_args_namespace_is_computed_once_per_type_tuple(monkeypatch: pytest.MonkeyPatch) -> None:
    calls = []
    real = array_api_compat.array_namespace

    def counting(*arrays: Any) -> Any:
        calls.append(len(arrays))
        return real(*arrays)

    monkeypatch.setattr(args_module.compat, "array_namespace", counting)
    f = make_float_args()
    x = np.ones(3)
    for _ in range(5):
        f(x, x)
        f(x, 2.0)
    assert calls == [2, 1]


def test_float_args_special_inputs() -> None:
    numpy_xp = array_api_compat.array_namespace(np.ones(1))
    out = _vec_float_args(1.0, 2.0)
    assert out is not None and out[0] is numpy_xp and out[1].shape == ()
    # No number parameter (every one uniform, D14): the namespace alone, which the generated code
    # binds as `xp = arrays` (issue 28 item 5).
    assert _vec_float_args() is numpy_xp
    out = _vec_float_args(np.float64(2.5), np.ones(2))
    assert out is not None and float(out[1]) == 2.5

    class MyFloat(float):
        pass

    out = _vec_float_args(MyFloat(0.25), np.ones(2))
    assert out is not None and float(out[1]) == 0.25
    assert _vec_float_args(np.ones(2), "x") is None
    with pytest.raises(TypeError, match="namespace"):
        _vec_float_args(np.ones(2), array_api_strict.ones(2))


def test_pinned_prologues_use_the_namespace() -> None:
    f = make_float_args(array_api_strict)
    xp, a = f(1.5)  # type: ignore[misc]
    assert xp is array_api_strict and isinstance(a, array_api_strict._array_object.Array)
    e = make_exact_args(array_api_strict)
    xp, a, b = e(3, True)
    assert xp is array_api_strict and a.dtype == array_api_strict.int64 and b.dtype == array_api_strict.bool


class _Pricey(float):
    """A float subclass (a price type), which the float prologue makes a plain float64 value."""


def _prologue_calls() -> list[tuple[Any, ...]]:
    """Two-argument calls of every kind the float prologue meets, each type tuple twice, with a
    float32 array among float64 ones of the same type (the dtype is checked per call)."""
    x, x32 = np.asarray([1.0, -0.0]), np.asarray([1.0], dtype=np.float32)
    s = array_api_strict.asarray([2.0, 3.0])
    calls = [(x, 1.5), (x, x), (x32, x), (x, 2), (True, x), (1.5, -0.0), (_Pricey(0.25), x),
             (np.float64(2.5), x), (s, 0.5), (s, s), (x, "rate"), (x, 1.5), (x32, 0.5)]
    return calls + calls[::-1]


def _same_prologue_result(got: Any, expected: Any) -> bool:
    if got is None or expected is None:
        return got is expected
    return len(got) == len(expected) and got[0] is expected[0] and all(
        type(a) is type(b) and (a is b or same(float(a), float(b))) for a, b in zip(got[1:], expected[1:])
    )


def test_a_functions_own_prologue_gives_the_shared_prologues_results() -> None:
    shared = make_float_args()
    glob: dict[str, Any] = {}
    glob["p"] = args_module.specializing_prologue(make_float_args(), glob, "p")
    first = glob["p"]
    for call in _prologue_calls()[: args_module.MAX_SPECIALIZATIONS]:
        assert _same_prologue_result(glob["p"](*call), shared(*call)), call
        assert glob["p"] is not first  # the call made (or remade) the function's own
    # Past MAX_SPECIALIZATIONS changes of types the shared prologue takes over, still right.
    for call in _prologue_calls():
        assert _same_prologue_result(glob["p"](*call), shared(*call)), call
    assert glob["p"].__name__ == "_vec_float_args" and getattr(glob["p"], "specializing", None)


def test_a_functions_own_prologue_stays_while_the_types_stay() -> None:
    glob: dict[str, Any] = {}
    glob["p"] = args_module.specializing_prologue(make_float_args(), glob, "p")
    x = np.ones(3)
    glob["p"](x, 2.0)
    own = glob["p"]
    for value in (0.5, -0.0, math.inf):
        assert glob["p"](x, value)[2] == np.float64(value)
    assert glob["p"] is own and own.__name__ == "p"
    assert glob["p"](np.ones(2, dtype=np.float32), 1.0) is None and glob["p"] is own


def test_a_functions_own_blocked_prologue_sends_large_numpy_inputs_to_blocks(monkeypatch: pytest.MonkeyPatch) -> None:
    from array_vectorize.runtime import blocked

    monkeypatch.setattr(blocked, "THRESHOLD", 100)
    glob: dict[str, Any] = {}
    glob["p"] = args_module.specializing_prologue(args_module._vec_float_args_blocked, glob, "p")
    assert glob["p"](np.ones(10), 1.0) is not None
    assert glob["p"](np.ones(100), 1.0) is None
    blocked._state.off = True  # a call run whole after blocking was declined
    try:
        assert glob["p"](np.ones(100), 1.0) is not None
    finally:
        blocked._state.off = False


def test_a_prologue_without_parts_is_kept() -> None:
    def stand_in(*args: Any) -> None:
        return None

    assert args_module.specializing_prologue(stand_in, {}, "p") is stand_in


def test_vectorized_calls_of_changing_types_on_one_function() -> None:
    """One vectorized function called with NumPy arrays, numbers, ints, array-api-strict arrays and
    float32 arrays in turn, past MAX_SPECIALIZATIONS changes: CPython's results throughout."""
    from array_vectorize import vectorize

    def discount(price: float, rate: float) -> float:
        return price * (1.0 - rate) if rate < 0.5 else price / 2.0

    vec = vectorize(discount)
    prices, rates = [100.0, -0.0, 7.5], [0.1, 0.6, 0.5]
    kinds = [
        lambda v: np.asarray(v),
        lambda v: array_api_strict.asarray(v),
        lambda v: np.asarray(v, dtype=np.float32),
        lambda v: np.asarray([int(t) for t in v]),
    ]
    checked = 0
    for _ in range(3):
        for make_price in kinds:
            for make_rate in kinds[:2]:
                try:
                    got = vec(make_price(prices), make_rate(rates))
                except TypeError:  # NumPy and array-api-strict arrays in one call
                    continue
                expected = [discount(float(p), r) for p, r in zip(np.asarray(make_price(prices), dtype=np.float64).tolist(), rates)]
                assert [float(v) for v in np.asarray(got).tolist()] == expected
                checked += 1
        assert same(float(vec(100.0, 0.25)), 75.0) and same(float(vec(3, 0.75)), 1.5)
    assert checked == 12  # per round: NumPy, strict, float32 and int prices with a rate of their own library


@backends
def test_exact_args_conversions(be: Backend) -> None:
    lib = be.lib
    arrays = {name: lib.asarray([1, 2], dtype=getattr(lib, name))
              for name in ("int8", "int16", "int32", "uint8", "uint16", "uint32")}
    out = _vec_exact_args(*arrays.values())
    assert out[0] is be.xp
    assert all(be.kind(a) == "i" and be.values(a) == [1, 2] for a in out[1:])
    f32 = lib.asarray([0.1, -0.0], dtype=lib.float32)
    (_, g) = _vec_exact_args(f32)
    assert be.kind(g) == "f" and be.values(g)[0] == float(np.float32(0.1)) and same(be.values(g)[1], -0.0)
    kept = [be.array([1], k) for k in "biuf"]
    assert _vec_exact_args(*kept)[1:] == tuple(kept)
    xp, b, i, u, f = _vec_exact_args(be.array([True], "b"), -(2**63), 2**64 - 1, -0.0)
    assert [be.kind(v) for v in (b, i, u, f)] == ["b", "i", "u", "f"]
    assert be.values(i) == [-(2**63)] and be.values(u) == [2**64 - 1] and same(be.values(f)[0], -0.0)
    xp, b = _vec_exact_args(True)  # no array: NumPy
    assert xp is BACKENDS[0].xp and b.dtype == np.bool_
    with pytest.raises(OverflowError, match="64-bit"):
        _vec_exact_args(be.array([1], "i"), 2**64)
    with pytest.raises(OverflowError):
        _vec_exact_args(be.array([1], "i"), -(2**63) - 1)
    with pytest.raises(TypeError, match="complex"):
        _vec_exact_args(lib.asarray([1j]))
    with pytest.raises(TypeError, match="complex"):
        _vec_exact_args(be.array([1], "i"), 1j)
    with pytest.raises(TypeError, match="str"):
        _vec_exact_args("x")


