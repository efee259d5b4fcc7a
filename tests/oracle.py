"""The oracle: CPython's scalar result, element by element, is what the vectorized function must
give (or a documented divergence).

`check(vec, *args)` broadcasts the arguments, calls the scalar original on every element's
Python scalars and compares with the vectorized result on the chosen backend with the fuzzer's
comparison (`array_vectorize.fuzz.check.judge`, docs/semantics.md): same value (NaN equals NaN,
the sign of zero matters; ints modulo 2**64 in the result's dtype), and the Python result kind
(float -> float64, int -> an integer dtype, bool -> bool; float64 for an int or bool only where
the core reports a float result).
"""

from __future__ import annotations

import itertools
import math
from typing import Any, Callable

import numpy as np

from array_vectorize.fuzz import check as fuzz_check
from array_vectorize.fuzz import explain as fuzz_explain

try:
    import array_api_strict
except ImportError:  # pragma: no cover - the test extras install it
    array_api_strict = None

BACKENDS = {"numpy": np}
if array_api_strict is not None:
    BACKENDS["strict"] = array_api_strict
# PyTorch and CuPy run the same suite when installed (not part of the test extras).
for _name, _module in (("torch", "torch"), ("cupy", "cupy")):
    try:
        BACKENDS[_name] = __import__(_module)
    except ImportError:
        pass

FLOAT_EDGES = [
    0.0, -0.0, 1.0, -1.0, 0.5, -0.5, 2.0, -3.0, 1.5, 2.5, -2.5, 10.0, 1e-300, 5e-324, -5e-324,
    2.2250738585072014e-308, 1e300, -1e300, 1.7976931348623157e308, math.inf, -math.inf, math.nan,
    2.0**53, -(2.0**53), 2.0**53 + 2, 2.0**63, -(2.0**63), 2.0**64,
]
INT_EDGES = [
    0, 1, -1, 2, -2, 3, 7, -7, 100, -100, 2**31 - 1, -(2**31), 2**53, 2**53 + 1, -(2**53) - 1, 2**62, -(2**62),
    2**63 - 1, -(2**63),
]
UINT_EDGES = [0, 1, 2, 3, 7, 100, 2**53, 2**53 + 1, 2**63 - 1, 2**63, 2**63 + 1, 2**64 - 2, 2**64 - 1]
BOOL_EDGES = [False, True]


def floats(n_random: int = 40, seed: int = 0) -> np.ndarray:
    rng = np.random.default_rng(seed)
    return np.concatenate([np.array(FLOAT_EDGES), rng.normal(0, 3, n_random), rng.uniform(-1e3, 1e3, n_random // 2)])


def ints(n_random: int = 20, seed: int = 0) -> np.ndarray:
    rng = np.random.default_rng(seed)
    return np.concatenate([np.array(INT_EDGES, dtype=np.int64), rng.integers(-1000, 1000, n_random)])


def uints(n_random: int = 10, seed: int = 0) -> np.ndarray:
    rng = np.random.default_rng(seed)
    return np.concatenate([np.array(UINT_EDGES, dtype=np.uint64), rng.integers(0, 2**64 - 1, n_random, dtype=np.uint64)])


def grid(*columns: np.ndarray) -> list[np.ndarray]:
    """Every combination of the columns' values, as 1-d arrays of equal length."""
    combos = list(itertools.product(*[c.tolist() for c in columns]))
    return [np.array([c[i] for c in combos], dtype=col.dtype) for i, col in enumerate(columns)]


def to_backend(value: Any, backend: str) -> Any:
    if isinstance(value, np.ndarray) and backend != "numpy":
        if backend == "torch":
            return BACKENDS["torch"].from_numpy(value.copy())
        return BACKENDS[backend].asarray(value)
    return value


def to_numpy(value: Any) -> np.ndarray:
    if isinstance(value, np.ndarray):
        return value
    if hasattr(value, "get") and type(value).__module__.startswith("cupy"):
        return value.get()
    if hasattr(value, "detach"):
        return value.detach().cpu().numpy()
    try:
        return np.from_dlpack(value)
    except (TypeError, AttributeError, RuntimeError, BufferError):
        return np.asarray(value)


def ulp_distance(a: float, b: float) -> int:
    """How many doubles lie between a and b (0 when equal)."""
    if math.copysign(1, a) != math.copysign(1, b):
        return abs(np.float64(a).view(np.int64) & 0x7FFFFFFFFFFFFFFF) + abs(np.float64(b).view(np.int64) & 0x7FFFFFFFFFFFFFFF)
    return abs(int(np.float64(a).view(np.int64)) - int(np.float64(b).view(np.int64)))


def same(got: Any, expected: Any, ulps: int = 0, tolerance: float = 0.0) -> bool:
    """Equal as CPython sees it (NaN equals NaN, the sign of zero matters); `ulps` allows
    transcendental functions their documented last-bit differences from the C library;
    `tolerance` (relative and absolute) is for compilers that re-associate (XLA)."""
    if isinstance(expected, float):
        if math.isnan(expected):
            return isinstance(got, float) and math.isnan(got)
        if tolerance and isinstance(got, float):
            return math.isclose(got, expected, rel_tol=tolerance, abs_tol=tolerance)
        if ulps and isinstance(got, float) and math.isfinite(expected) and math.isfinite(got):
            return ulp_distance(got, expected) <= ulps
        return got == expected and (expected != 0.0 or math.copysign(1, got) == math.copysign(1, expected))
    return got == expected


def _explainer(original: Callable, args: tuple, np_args: list[np.ndarray], shape: tuple) -> fuzz_check.Explainer:
    """The model of the documented array rules over the IR the core reports for `original`
    (array_vectorize.fuzz.model), on these arguments."""
    models = fuzz_check.ir_models(original)
    params = [(np.broadcast_to(a, shape).ravel().tolist(), a.dtype.kind if isinstance(arg, np.ndarray) else "") for a, arg in zip(np_args, args)]
    return fuzz_check.Explainer(models, params, _body(models, args, np_args))


def _body(models: dict, args: tuple, np_args: list[np.ndarray]) -> Any:
    """The body a NumPy call with these arguments runs (runtime/args.py): the float fast path
    when every argument is float64 (Python floats too); the int body, where the generated code has
    one, when every argument is an int64 array, a narrower int one or a Python int within
    int64, one of them with a dimension; else the helpers' body."""
    if all(a.dtype == np.float64 for a in np_args):
        return fuzz_explain.FLOAT_BODY
    ints = all(
        not is_number_or_array(arg)  # a uniform argument (D14): not the prologue's
        or (type(arg) is int and -(2**63) <= arg < 2**63)
        or (isinstance(arg, np.ndarray) and (a.dtype.kind == "i" or (a.dtype.kind == "u" and a.dtype.itemsize <= 4)))
        for a, arg in zip(np_args, args)
    )
    if ints and any(a.ndim for a in np_args) and fuzz_explain.INT_BODY in models:
        return fuzz_explain.INT_BODY
    return fuzz_explain.EXACT_BODY


def is_number_or_array(a: Any) -> bool:
    return type(a) in (bool, int, float) or isinstance(a, (np.ndarray, np.generic)) or (
        not isinstance(a, type(np)) and hasattr(a, "__array_namespace__")
    )


class UniformLanes:
    """A uniform argument seen lane by lane: the same object on every lane."""

    def __init__(self, value: Any) -> None:
        self.value = value

    def __getitem__(self, index: Any) -> UniformLanes:
        return self

    def item(self) -> Any:
        return self.value


def lanes_of(args: tuple) -> tuple[list, list, tuple, list]:
    """The arguments of a call seen per element: which are uniform (D14: passed to every call of
    the original as they are), each as an array, the broadcast shape, and each broadcast to it
    (a uniform one as ``UniformLanes``)."""
    uniform = [not is_number_or_array(a) for a in args]
    np_args = [np.asarray(0.0 if u else a) for a, u in zip(args, uniform)]
    shape = np.broadcast_shapes(*[a.shape for a in np_args])
    broadcast = [UniformLanes(a) if u else np.broadcast_to(n, shape) for a, n, u in zip(args, np_args, uniform)]
    return uniform, np_args, shape, broadcast


class _Watched(int):
    """An int whose arithmetic records, in ``LEFT``, a result outside [-2**63, 2**64) (the
    uint64 lattice's range, docs/semantics.md item 13); with a float it is a plain int."""

    LEFT = [False]

    def _int(self, fn: Any, other: Any) -> Any:
        if not isinstance(other, int):
            return fn(int(self), other)
        r = fn(int(self), int(other))
        if not -(2**63) <= r < 2**64:
            _Watched.LEFT[0] = True
        return _Watched(r)


for _name, _fn in (
    ("add", lambda a, b: a + b), ("sub", lambda a, b: a - b), ("mul", lambda a, b: a * b),
    ("floordiv", lambda a, b: a // b if b else 0), ("mod", lambda a, b: a % b if b else 0),
    ("lshift", lambda a, b: a << b if b >= 0 else 0),
):
    setattr(_Watched, f"__{_name}__", (lambda fn: lambda self, other: self._int(fn, other))(_fn))
    setattr(_Watched, f"__r{_name}__", (lambda fn: lambda self, other: self._int(lambda a, b: fn(b, a), other))(_fn))
_Watched.__neg__ = lambda self: self._int(lambda a, _: -a, 0)  # type: ignore[method-assign]
_Watched.__invert__ = lambda self: self._int(lambda a, _: ~a, 0)  # type: ignore[method-assign]
_Watched.__abs__ = lambda self: self._int(lambda a, _: abs(a), 0)  # type: ignore[method-assign]


def leaves_the_lattice(original: Callable, scalars: list) -> bool:
    """Whether CPython's run of ``original`` on one element computes an int outside
    [-2**63, 2**64) from its int arguments (item 13's OverflowError)."""
    def outcome(args: list) -> Any:
        try:
            return original(*args)
        except Exception as exc:  # noqa: BLE001 - what it computed before raising counts
            return type(exc)

    plain = outcome(scalars)
    _Watched.LEFT[0] = False
    watched = outcome([_Watched(v) if type(v) is int else v for v in scalars])
    # A function testing `type(x) is int` takes another path with the watcher: no witness then.
    return _Watched.LEFT[0] or repr(watched) != repr(plain)


def check(
    vec: Callable,
    *args: Any,
    backend: str = "numpy",
    scalar: Callable | None = None,
    ulps: int = 0,
    check_kind: bool = True,
    tolerance: float = 0.0,
) -> Any:
    """Asserts `vec(*args)` equals the scalar original per element; returns the result.

    The comparison is the fuzzer's (`array_vectorize.fuzz.check.judge`): an int result is the
    exact value modulo 2**64 in the result's dtype (items 6, 13); a float64 result may hold an int
    only where the core reports a float result (item 8); a differing element is accepted only
    where the IR computes CPython's value and the documented array rules give the vectorized one.
    Elements where the scalar original raises an arithmetic error (D3) are skipped here; the
    divergence tests pin their values.

    A function returning a tuple (D13) gives a tuple of arrays: each position is compared with
    the same position of CPython's tuple (`check_positions`).
    """
    original = scalar or vec._vectorized_original
    # A uniform argument (D14: None, a string, a dict, an Enum member, any object) is passed to
    # every call of the original as it is.
    uniform = [not is_number_or_array(a) for a in args]
    np_args = [np.asarray(0.0 if u else a) for a, u in zip(args, uniform)]
    shape = np.broadcast_shapes(*[a.shape for a in np_args])
    try:
        raw = vec(*[to_backend(a, backend) for a in args])
    except OverflowError as exc:
        if "(docs/semantics.md item 13)" not in str(exc):
            raise
        # Item 13: an integer computed with uint64 left [-2**63, 2**64); CPython must compute
        # one beyond that range on some element for the call to raise.
        broadcast = [UniformLanes(a) if u else np.broadcast_to(n, shape) for a, n, u in zip(args, np_args, uniform)]
        assert any(
            leaves_the_lattice(original, [b[index].item() for b in broadcast]) for index in np.ndindex(shape)
        ), f"raised {exc}, but no element computes an int beyond [-2**63, 2**64)"
        return None
    if isinstance(raw, tuple):
        return check_positions(raw, original, np_args, shape, ulps, check_kind, tolerance)
    result = to_numpy(raw)
    assert result.shape == shape, f"shape {result.shape} != {shape}"
    broadcast = [UniformLanes(a) if u else np.broadcast_to(n, shape) for a, n, u in zip(args, np_args, uniform)]
    explainer = _explainer(original, args, np_args, shape)
    # Without `check_kind`, the result's kind is not judged: an int may come back as a float.
    float_result = explainer.float_result() or not check_kind
    expected_values = []
    mismatches = []
    for lane, index in enumerate(np.ndindex(shape)):
        scalars = [b[index].item() for b in broadcast]
        try:
            expected = original(*scalars)
        except (ArithmeticError, ValueError):
            continue
        if isinstance(expected, complex):
            continue  # item 4: nan, pinned by the divergence tests
        expected_values.append(expected)
        got = result[index].item()
        if tolerance:
            if same(got, expected, tolerance=tolerance):
                continue
        elif fuzz_check.judge(got, result.dtype.kind, expected, lane, explainer, float_result) != "mismatch":
            continue
        elif ulps and same(got, expected, ulps):
            continue
        mismatches.append((scalars, expected, got))
    assert not mismatches, f"{len(mismatches)} mismatches, first: args={mismatches[0][0]} CPython={mismatches[0][1]!r} vectorized={mismatches[0][2]!r}"
    if expected_values and check_kind:
        kinds = {type(r) for r in expected_values}
        dtype_kind = result.dtype.kind
        if float in kinds:
            assert result.dtype == np.float64, f"CPython returns floats, got dtype {result.dtype}"
        elif int in kinds:
            assert dtype_kind in "iu" or (dtype_kind == "f" and float_result), f"CPython returns ints, got dtype {result.dtype}"
        else:
            assert dtype_kind == "b" or float_result, f"CPython returns bools, got dtype {result.dtype}"
    return result


def check_positions(raw: tuple, original: Callable, np_args: list, shape: tuple, ulps: int, check_kind: bool, tolerance: float) -> tuple:
    """A tuple result (D13), position by position against CPython's tuples: same value (NaN
    equals NaN, the sign of zero matters; ints beyond 64 bits wrap, item 6) and the kind of a
    single result. The IR model of the fuzzer's judge reads single results only, so these
    comparisons are exact (`same`)."""
    results = tuple(to_numpy(r) for r in raw)
    broadcast = [np.broadcast_to(a, shape) for a in np_args]
    lanes = []
    for index in np.ndindex(shape):
        scalars = [b[index].item() for b in broadcast]
        try:
            expected = original(*scalars)
        except (ArithmeticError, ValueError):
            continue
        assert isinstance(expected, tuple) and len(expected) == len(results), (
            f"args={scalars}: CPython returned {expected!r}, vectorized a tuple of {len(results)} arrays"
        )
        lanes.append((index, scalars, expected))
    for position, result in enumerate(results):
        where = f"position {position}: "
        assert result.shape == shape, f"{where}shape {result.shape} != {shape}"
        expected_values = []
        mismatches = []
        for index, scalars, whole in lanes:
            expected = whole[position]
            high = 2**64 if result.dtype == np.uint64 else 2**63
            if isinstance(expected, int) and not isinstance(expected, bool) and not -(2**63) <= expected < high:
                continue  # integer overflow wraps (item 6, pinned in behavior/language/test_divergences.py)
            if isinstance(expected, complex):
                continue  # item 4: nan, pinned by the divergence tests
            expected_values.append(expected)
            got = result[index].item()
            if not same(got, expected, ulps, tolerance):
                mismatches.append((scalars, expected, got))
        assert not mismatches, f"{where}{len(mismatches)} mismatches, first: args={mismatches[0][0]} CPython={mismatches[0][1]!r} vectorized={mismatches[0][2]!r}"
        if expected_values and check_kind:
            kinds = {type(r) for r in expected_values}
            if float in kinds:
                assert result.dtype == np.float64, f"{where}CPython returns floats, got dtype {result.dtype}"
            elif int in kinds:
                assert result.dtype.kind in "iu", f"{where}CPython returns ints, got dtype {result.dtype}"
            else:
                assert result.dtype.kind == "b", f"{where}CPython returns bools, got dtype {result.dtype}"
    return results


#: Messages of the numeric exceptions D3 turns into IEEE values (outside `try`): an element
#: raising one of these is compared by value, not expected to raise.
D3_MESSAGES = (
    "division by zero",
    "modulo by zero",
    "float modulo",
    "cannot be raised to a negative power",
    "math domain error",
    "math range error",
    "Numerical result out of range",
    "int too large to convert to float",
)

#: CPython's error converting NaN to an int, where item 7 gives 0 (docs/semantics.md): an
#: `as_values` message for a function whose only such error is an int conversion (the same
#: ValueError comes from formatting NaN with `%d`, which raises as in CPython).
NAN_TO_INT = "cannot convert float NaN to integer"


def is_d3(error: BaseException) -> bool:
    """Whether CPython's `error` is one of the numeric exceptions D3 turns into IEEE values."""
    return isinstance(error, (ArithmeticError, ValueError)) and any(m in str(error) for m in D3_MESSAGES)


def first_raise(
    original: Callable, *args: Any, numeric: bool = False, as_values: tuple[str, ...] = ()
) -> tuple[BaseException, tuple] | None:
    """The exception CPython's element loop raises first (C order), with the element's index;
    numeric exceptions of D3 do not count, unless `numeric` (a function whose numeric errors
    all stand inside `try` bodies, where they raise as in CPython), nor those whose message is
    one of `as_values` (errors the vectorized code gives a documented value for)."""
    # A uniform argument (D14) is passed to every call as it is, as `check` does.
    _, _, shape, broadcast = lanes_of(args)
    for index in np.ndindex(shape):
        try:
            original(*[b[index].item() for b in broadcast])
        except Exception as error:  # noqa: BLE001 - any exception is the expected one
            if numeric or not (is_d3(error) or str(error) in as_values):
                return error, index
    return None


def check_raising(
    vec: Callable,
    *args: Any,
    backend: str = "numpy",
    scalar: Callable | None = None,
    tolerance: float = 0.0,
    numeric: bool = False,
    ulps: int = 0,
    as_values: tuple[str, ...] = (),
) -> Any:
    """`check` for a function that may raise (D11): when CPython's element loop raises, the
    vectorized call raises the same class with the same args and a note naming the element;
    otherwise values match. Returns the exception raised, or None. With `numeric`, numeric
    errors count as raises (they stand inside `try` bodies); an error whose message is one of
    `as_values` does not (`first_raise`)."""
    original = scalar or vec._vectorized_original
    expected = first_raise(original, *args, numeric=numeric, as_values=as_values)
    if expected is None:
        check(vec, *args, backend=backend, scalar=original, tolerance=tolerance, ulps=ulps)
        return None
    error, index = expected
    shape = np.broadcast_shapes(*[np.asarray(0.0 if not is_number_or_array(a) else a).shape for a in args])
    flat = int(np.ravel_multi_index(index, shape)) if shape else 0
    try:
        vec(*[to_backend(a, backend) for a in args])
    except Exception as got:  # noqa: BLE001
        assert type(got) is type(error), f"raised {type(got).__name__}: {got}, CPython {type(error).__name__}: {error}"
        assert got.args == error.args, f"args {got.args!r} != CPython's {error.args!r}"
        if hasattr(got, "add_note"):
            note = f"array-vectorize: raised for element {tuple(int(i) for i in index)} (flat index {flat})"
            assert note in getattr(got, "__notes__", []), getattr(got, "__notes__", None)
        return got
    raise AssertionError(f"CPython raises {type(error).__name__}: {error} at {index}; the vectorized call did not raise")


def check_outcomes(
    vec: Callable,
    *args: Any,
    backend: str = "numpy",
    scalar: Callable | None = None,
    ulps: int = 0,
    as_values: tuple[str, ...] = (),
) -> None:
    """Every element's outcome as CPython's: where its element loop raises (outside D3 and
    `as_values`), the vectorized call raises the same at the first such element
    (`check_raising`); then the elements on which CPython raises nothing outside those, alone,
    match by value (`check`), so an element CPython rejects is never compared as if it gave a
    value."""
    original = scalar or vec._vectorized_original
    if check_raising(vec, *args, backend=backend, scalar=scalar, ulps=ulps, as_values=as_values) is None:
        return
    uniform, np_args, shape, broadcast = lanes_of(args)
    kept = []
    for flat, index in enumerate(np.ndindex(shape)):
        try:
            original(*[b[index].item() for b in broadcast])
        except Exception as error:  # noqa: BLE001 - any exception but D3's is CPython's rejection
            if not (is_d3(error) or str(error) in as_values):
                continue
        kept.append(flat)
    assert kept, "CPython raises on every element"
    rest = [
        a if u or n.ndim == 0 else np.ascontiguousarray(np.broadcast_to(n, shape)).reshape(-1)[kept]
        for a, n, u in zip(args, np_args, uniform)
    ]
    check(vec, *rest, backend=backend, scalar=scalar, ulps=ulps)
