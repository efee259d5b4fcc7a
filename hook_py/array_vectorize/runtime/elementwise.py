"""``_vec_elementwise``: an element loop calling a scalar callable per lane (``fallback=True``).

``_vec_elementwise(xp, fn, *args)`` broadcasts the array arguments, converts each lane to Python
scalars (bool arrays to ``bool``, integer arrays and ``LatticeInt`` values to ``int``, float
arrays to ``float``; Python scalar arguments are passed as they are), calls ``fn`` once per lane, and builds an array of the
broadcast shape from the results:

* every result a ``bool``: bool array;
* only bools and ints: int64, or uint64 when some value exceeds int64 and none is negative
  (``OverflowError`` when the values fit neither);
* some float: float64 (ints and bools converted with ``float()``);
* anything else (``None``, ``complex``, ``str``, ...): ``TypeError``.

When ``fn`` returns a tuple (``return a, b``, D13) on every lane, each with the same length, the
result is a tuple of such arrays, one per position, each built by the rules above; tuples of
different lengths, or a tuple on some lanes only, are a ``TypeError``.

An exception raised by ``fn`` propagates, as it would from the scalar loop. With no lane at all
(an empty broadcast shape) ``fn`` is never called and the result is an empty float64 array.
Values are read with ``tolist()`` when the array type has it (NumPy, PyTorch, CuPy, JAX), else
lane by lane with ``int()``/``float()``/``bool()`` on 0-d slices (array-api-strict).
"""

from __future__ import annotations

import numbers

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Callable

from .containers import CONTAINERS, call_element_loop
from .dtype import INT64_MAX, INT64_MIN, UINT64_MAX, _NAMESPACES, LatticeInt, Namespace, namespace_info, settle
from .select import broadcast_shape

_CONVERT = {"b": bool, "i": int, "u": int, "f": float, "w": int, "h": float}


def _normalize(info: Namespace, r: Any) -> Any:
    """Array-library scalars (``numpy.bool_``, ``numpy.int32``, 0-d arrays) as Python scalars."""
    if type(r) in (bool, int, float):
        return r
    dt = getattr(r, "dtype", None)
    if dt is not None:
        convert = _CONVERT.get(info.kind_of_dtype(dt))
        if convert is not None:
            return convert(r)
    return r


def _python_values(xp: Any, info: Namespace, flat: Any) -> list[Any]:
    tolist = getattr(flat, "tolist", None)
    if tolist is not None:
        return tolist()  # type: ignore[no-any-return]
    convert = _CONVERT[info.kind(flat)]
    return [convert(flat[i]) for i in range(flat.shape[0])]


def _result_array(xp: Any, info: Namespace, results: list[Any], shape: tuple[Any, ...]) -> Any:
    if not results:
        return xp.zeros(shape, dtype=info.float64)
    all_bool = True
    has_float = False
    lo = hi = 0
    results = [_normalize(info, r) for r in results]
    for r in results:
        if isinstance(r, bool):
            continue
        all_bool = False
        if isinstance(r, numbers.Integral):
            r = int(r)
            lo, hi = min(lo, r), max(hi, r)
        elif isinstance(r, numbers.Real):
            has_float = True
        else:
            raise TypeError(
                f"array-vectorize: the element-wise fallback got a {type(r).__name__} result ({r!r}); "
                "vectorized results must be bool, int or float"
            )
    if all_bool:
        dtype, values = info.bool, results
    elif has_float:
        dtype, values = info.float64, [float(r) for r in results]
    elif lo >= INT64_MIN and hi <= INT64_MAX:
        dtype, values = info.int64, [int(r) for r in results]
    elif lo >= 0 and hi <= UINT64_MAX:
        dtype, values = info.uint64, [int(r) for r in results]
    else:
        raise OverflowError(
            f"array-vectorize: the element-wise fallback produced integers in [{lo}, {hi}], "
            "which fit neither int64 nor uint64"
        )
    return xp.reshape(xp.asarray(values, dtype=dtype), shape)


def _vec_elementwise(xp: Any, fn: Callable[..., Any], *args: Any) -> Any:
    """Call ``fn`` on every lane's Python scalars; collect the results (module docstring)."""
    if xp is CONTAINERS:  # pandas or xarray arguments of the element loop (``_vec_loop_args``)
        return call_element_loop(lambda values: _element_loop(fn, values), args)
    info = _NAMESPACES.get(xp) or namespace_info(xp)
    settle(args)
    # A LatticeInt takes two columns, its bits and its signs, merged into Python ints below.
    signs = {i: a.neg for i, a in enumerate(args) if type(a) is LatticeInt}
    args = tuple(a.bits if i in signs else a for i, a in enumerate(args))
    positions = [i for i, a in enumerate(args) if hasattr(a, "shape")]
    arrays = [args[i] for i in positions] + list(signs.values())
    shape = broadcast_shape([a.shape for a in arrays])
    if len(arrays) > 1:
        arrays = list(xp.broadcast_arrays(*arrays))
    if shape is None:
        shape = arrays[0].shape
    columns = [_python_values(xp, info, xp.reshape(a, (-1,))) for a in arrays]
    for k, i in enumerate(signs):
        column = columns[positions.index(i)]
        negative = columns[len(positions) + k]
        columns[positions.index(i)] = [v - (1 << 64) if n else v for v, n in zip(column, negative)]
    columns = columns[: len(positions)]
    arrays = arrays[: len(positions)]
    if not arrays:
        return _results(xp, info, [fn(*args)], ())
    lanes = len(columns[0])
    call_args = list(args)
    results = []
    for lane in range(lanes):
        for column, position in zip(columns, positions):
            call_args[position] = column[lane]
        results.append(fn(*call_args))
    return _results(xp, info, results, shape)


def _element_loop(fn: Callable[..., Any], args: tuple[Any, ...]) -> Any:
    """The element loop of ``fallback=True`` on `args`, as the generated loop runs it."""
    from .uniform import _vec_loop_args

    xp, *values = _vec_loop_args(*args)
    return _vec_elementwise(xp, fn, *values)


def _results(xp: Any, info: Namespace, results: list[Any], shape: tuple[Any, ...]) -> Any:
    """One array of the lanes' results, or a tuple of arrays when every lane returned a tuple."""
    tuples = [r for r in results if isinstance(r, tuple)]
    if not tuples:
        return _result_array(xp, info, results, shape)
    lengths = {len(r) for r in tuples}
    if len(tuples) != len(results) or len(lengths) != 1:
        raise TypeError(
            "array-vectorize: the element-wise fallback got tuples of different lengths (or a tuple "
            "on some elements only); every element must return the same number of values"
        )
    (n,) = lengths
    return tuple(_result_array(xp, info, [r[k] for r in results], shape) for k in range(n))
