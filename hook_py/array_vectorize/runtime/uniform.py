"""The check of a uniform argument (D14): a parameter the function reads as a per-call Python
object (a dict, an Enum member, a string, a namespace) is not converted to an array; an array
passed there would be read once per call as one object, so it is refused, naming the parameter."""

from __future__ import annotations

from types import ModuleType

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


def _vec_uniform(value: Any, name: str) -> Any:
    """`value` unchanged; TypeError naming parameter `name` when it is an array."""
    if _is_array(value):
        raise TypeError(
            f"argument `{name}` is an array, but the function reads `{name}` as one value per call "
            "(a dict, an Enum member, a string, an object whose attributes it reads: D14, "
            "docs/decisions.md#d14); pass a single value, or call the function once per value"
        )
    return value


def _is_array(a: Any) -> bool:
    """An array of any library (a module such as `numpy`, whose `shape` and `dtype` are
    functions, is not)."""
    if isinstance(a, ModuleType) or isinstance(a, type):
        return False
    return hasattr(a, "__array_namespace__") or (hasattr(a, "shape") and hasattr(a, "dtype"))


def _is_number_or_array(a: Any) -> bool:
    if isinstance(a, (bool, int, float)) or _is_array(a):
        return True
    import numbers

    return isinstance(a, numbers.Number)


def _vec_loop_args(*args: Any) -> tuple[Any, ...]:
    """``(xp, *values)`` for the element loop of ``fallback=True``: numbers and arrays as
    ``_vec_exact_args`` converts them, every other argument (None, a string, a dict, an Enum
    member: a uniform value, D14) unchanged, passed to each call as it is. With a pandas or xarray
    argument, ``(CONTAINERS, *args)``: ``_vec_elementwise`` unwraps them (runtime/containers.py)."""
    from .args import _vec_exact_args
    from .containers import CONTAINERS, is_container

    if any(is_container(a) for a in args):
        return (CONTAINERS, *args)
    numeric = [i for i, a in enumerate(args) if _is_number_or_array(a)]
    if len(numeric) == len(args):
        return _vec_exact_args(*args)
    converted = _vec_exact_args(*[args[i] for i in numeric])
    values = list(args)
    for i, v in zip(numeric, converted[1:]):
        values[i] = v
    return (converted[0], *values)


_ELEMENT_TYPES = {"b": bool, "B": bool, "i": int, "u": int, "I": int, "l": int, "f": float, "F": float}


def _vec_element_type(xp: Any, value: Any) -> type:
    """D22: the Python type CPython's element loop sees in every element of parameter `value`
    (as the exact prologue made it: a bool, int64, uint64 or float64 array, or a Python scalar):
    each element is passed as a Python scalar, so a bool array's elements are `bool`, an int64 or
    uint64 array's `int`, a float64 array's `float` (narrower dtypes were widened first)."""
    from .dtype import namespace_info

    return _ELEMENT_TYPES[namespace_info(xp).kind(value)]


#: CPython's own unpacking into `n` targets, one function per `n` (its messages are CPython's).
_UNPACKERS: dict[int, Any] = {}


def _vec_unpack_given(value: Any, n: int) -> tuple:
    """The `n` items of `value` (a tuple given per call, D14: `lower, upper = limits`) as CPython's
    unpacking into `n` names gives them, or its TypeError or ValueError."""
    unpack = _UNPACKERS.get(n)
    if unpack is None:
        names = ", ".join(f"_{k}" for k in range(n))
        namespace: dict[str, Any] = {}
        exec(f"def unpack(value):\n    {names}, = value\n    return ({names},)\n", namespace)
        unpack = _UNPACKERS[n] = namespace["unpack"]
    return unpack(value)


def _vec_sequence_given(value: Any) -> Any:
    """`value` unchanged when it is a tuple or list: a loop over a value given per call (D14)
    runs over its items by index, which a dict, a set or an iterator has not."""
    if type(value) not in (tuple, list):
        raise TypeError(
            f"array-vectorize: a loop over a value given per call runs over a tuple or a list (D14), "
            f"not {type(value).__name__}; pass a tuple"
        )
    return value
