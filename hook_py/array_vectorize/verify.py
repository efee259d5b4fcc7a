"""verify=example_args: a differential check of the generated function against the scalar
original at decoration time.

Every element is compared with what CPython computes for it, allowing exactly the divergences
docs/semantics.md documents, and nothing else:

* where CPython raises an arithmetic error (D3: items 1-7 and 16), any value (the IEEE one);
* where CPython returns a complex number, NaN (item 4);
* transcendental functions and float powers (only when the generated code calls one; a function
  of plain arithmetic must agree to the last bit): the array library's results (item 9). An
  element whose result is not within 4 ulps of CPython's is computed again by the original
  with ``math``'s transcendental functions replaced by NumPy's (in the function and the
  functions it calls), since later arithmetic can magnify a last-bit difference (``tanh(x) -
  0.5`` near 0.5); it must then agree within 4 ulps. NumPy's ``x ** 0.5`` on ``-0.0`` and
  ``-inf`` (item 10) is accepted too;
* integers whose exact value leaves the result's dtype: equal modulo 2**64 (items 6 and 13);
* an int held in a float64 result (mixed-kind results, item 8): equal to ``float(value)``.

NaN equals NaN (its sign is the library's, item 18); otherwise the sign of zero matters. The
first element that differs beyond these is reported with its index, the arguments by name,
CPython's value and the vectorized one.
"""

from __future__ import annotations

import math
import re
import struct
import types

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

from ._core import VectorizationError

#: docs/semantics.md item 9: last-bit differences of the array library's transcendentals.
ULPS = 4
#: Generated code that calls a transcendental function or a float power.
_LIBRARY_MATH = re.compile(
    r"\.(?:exp|expm1|log|log1p|log2|log10|sin|cos|tan|asin|acos|atan|atan2|sinh|cosh|tanh|"
    r"asinh|acosh|atanh|hypot|pow)\(|\"pow\"|\*\*"
)
_RANGES = {"i": (-(1 << 63), 1 << 63), "u": (0, 1 << 64)}
_TRANSCENDENTAL = (
    "exp expm1 log log1p log2 log10 sin cos tan asin acos atan atan2 sinh cosh tanh asinh acosh atanh hypot pow"
).split()
_NUMPY_NAMES = {"asin": "arcsin", "acos": "arccos", "atan": "arctan", "asinh": "arcsinh",
                "acosh": "arccosh", "atanh": "arctanh", "atan2": "arctan2", "pow": "power"}


def _library_math(np: Any) -> types.ModuleType:
    """A stand-in for ``math`` whose transcendental functions are NumPy's, on float64 scalars."""
    shim = types.ModuleType("math")
    shim.__dict__.update(math.__dict__)

    def scalar(name: str) -> Any:
        ufunc = getattr(np, _NUMPY_NAMES.get(name, name))

        def call(*args: Any) -> float:
            with np.errstate(all="ignore"):
                if name == "log" and len(args) == 2:
                    return float(np.log(np.float64(args[0])) / np.log(np.float64(args[1])))
                return float(ufunc(*[np.float64(a) for a in args]))

        call.__name__ = name
        return call

    for name in _TRANSCENDENTAL:
        setattr(shim, name, scalar(name))
    return shim


def _read_names(code: types.CodeType) -> set[str]:
    names = set(code.co_names)
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            names |= _read_names(const)
    return names


def _with_library_math(fn: Any, shim: types.ModuleType, memo: dict) -> Any:
    """``fn`` with the ``math`` module and ``math`` functions it reads as globals (in it and in
    the functions it calls) replaced by ``shim``'s."""
    if id(fn) in memo:
        return memo[id(fn)]
    glob = dict(fn.__globals__)
    clone = types.FunctionType(fn.__code__, glob, fn.__name__, fn.__defaults__, fn.__closure__)
    clone.__kwdefaults__ = fn.__kwdefaults__
    memo[id(fn)] = clone
    for name in _read_names(fn.__code__):
        value = glob.get(name)
        if value is math:
            glob[name] = shim
        elif isinstance(value, types.BuiltinFunctionType) and getattr(math, value.__name__, None) is value:
            glob[name] = getattr(shim, value.__name__)
        elif isinstance(value, types.FunctionType):
            glob[name] = _with_library_math(value, shim, memo)
    return clone


def ulp_distance(a: float, b: float) -> int:
    """How many doubles lie between finite ``a`` and ``b``."""

    def ordered(x: float) -> int:
        bits = struct.unpack("<q", struct.pack("<d", x))[0]
        return bits if bits >= 0 else -(bits & 0x7FFFFFFFFFFFFFFF)

    return abs(ordered(a) - ordered(b))


def difference(got: Any, expected: Any, dtype_kind: str, library_math: bool) -> str | None:
    """None when the vectorized element ``got`` (from an array of NumPy dtype kind
    ``dtype_kind``) stands for CPython's ``expected`` under the documented divergences, else
    what differs."""
    if isinstance(expected, complex):
        return None if isinstance(got, float) and got != got else "CPython's result is complex (NaN expected)"
    if isinstance(expected, bool):
        return None if dtype_kind == "b" and got == expected else "CPython returns a bool"
    if isinstance(expected, int):
        if dtype_kind == "f":
            try:
                return None if got == float(expected) else "an int held as a float64 differs"
            except OverflowError:
                return "an int beyond the float range"
        if dtype_kind not in _RANGES:
            return "CPython returns an int"
        if got == expected:
            return None
        low, high = _RANGES[dtype_kind]
        if not low <= expected < high and (got - expected) % (1 << 64) == 0:
            return None
        return "different integers (an intermediate beyond 64 bits wraps, docs/semantics.md item 6)"
    if not isinstance(expected, float) or dtype_kind != "f":
        return f"CPython returns a {type(expected).__name__}"
    if expected != expected:
        return None if got != got else "CPython gives NaN"
    if got == expected and (expected != 0.0 or math.copysign(1.0, got) == math.copysign(1.0, expected)):
        return None
    if library_math and expected == 0.0 and got == 0.0:
        return None  # NumPy's x ** 0.5 is sqrt: -0.0 where C99's pow gives 0.0 (item 10)
    if library_math and expected == math.inf and got != got:
        return None  # and NaN for (-inf) ** 0.5 (item 10)
    if not (math.isfinite(got) and math.isfinite(expected)) or got == expected:
        return "different special values or signs"
    ulps = ulp_distance(got, expected)
    if library_math and ulps <= ULPS:
        return None
    if library_math:
        return f"{ulps} ulps apart; transcendental functions may differ by {ULPS} (docs/semantics.md item 9)"
    return f"{ulps} ulps apart, in code without transcendental functions, which must agree exactly"


def verify_against_original(vec: Any, original: Any, example_args: Any) -> None:
    """Runs `vec` on `example_args` (a tuple of arrays/scalars) and the scalar original on each
    element; raises VectorizationError naming the first element that differs beyond the
    documented divergences (module docstring)."""
    import numpy as np  # verify is opt-in; NumPy is its oracle container

    args = example_args if isinstance(example_args, tuple) else (example_args,)
    arrays = np.broadcast_arrays(*[np.asarray(a) for a in args])
    result = np.asarray(vec(*args))
    result = np.broadcast_to(result, arrays[0].shape)
    library_math = bool(_LIBRARY_MATH.search(getattr(vec, "source", "") or ""))
    first = None
    differing = 0
    with_numpy_math: Any = None
    for index in np.ndindex(arrays[0].shape):
        scalars = [a[index].item() for a in arrays]
        try:
            expected = original(*scalars)
        except (ArithmeticError, ValueError):
            continue  # D3: the scalar original raises; the vectorized result is an IEEE value
        got = result[index].item()
        why = difference(got, expected, result.dtype.kind, library_math)
        if why is not None and library_math:
            if with_numpy_math is None:
                with_numpy_math = _with_library_math(original, _library_math(np), {})
            try:
                if difference(got, with_numpy_math(*scalars), result.dtype.kind, True) is None:
                    why = None
            except (ArithmeticError, ValueError):
                pass
        if why is not None:
            differing += 1
            if first is None:
                first = (index, scalars, expected, got, why)
    if first is None:
        return
    index, scalars, expected, got, why = first
    code = original.__code__
    names = code.co_varnames[: code.co_argcount] if len(scalars) <= code.co_argcount else ()
    shown = ", ".join(f"{n}={v!r}" for n, v in zip(names, scalars)) if names else ", ".join(map(repr, scalars))
    raise VectorizationError(
        f"verify: {differing} of {result.size} elements differ from CPython beyond the divergences "
        f"docs/semantics.md documents; the first, at index {index}: {original.__name__}({shown}) is "
        f"{expected!r} in CPython but {got!r} in the vectorized function ({why})"
    )
