"""The check after the body of a function that can raise (D11).

Generated code computes, per lane, the number of the first ``raise``/``assert`` the lane reached
(0 when it returned). If any lane raised, the exception is the one CPython's element loop raises
first: the first raising lane in C order, built from that lane's values as Python scalars.
"""

from __future__ import annotations

from .arith import _vec_unary
from .blocked import lane_position
from .dtype import LatticeInt, Overflowed, known_any, lane
from .traced import _any_now_or_when_run, _is_traced

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


def _traced(what: Any) -> TypeError:
    """The error of a raise whose message needs a value that is traced (jax.jit)."""
    return TypeError(
        "array-vectorize: this function raises on every element here (a `raise` or `assert` "
        "on uniform values, D11), and its message reads an element's value, but the arrays are "
        f"traced ({type(what).__name__}, e.g. under jax.jit); decorate it with "
        "vectorize(..., nan_on_raise=True) to get NaN for the elements that raise instead, call it "
        "outside the trace, or move the check out of the vectorized function"
    )


def _vec_raises(xp: Any, code: Any, *sites: tuple) -> None:
    bad = code != 0
    try:
        raised = bool(xp.any(bad))
    except Exception:  # a traced array (jax.jit) has no concrete truth value
        if not _is_traced(bad):
            raise
        # docs/semantics.md item 7 under a trace: the values cannot be inspected, so the
        # conversions of a float beyond int64 are not checked and keep their saturated values
        # (as item 13's lattice wraps on lazy backends); every other raise site is checked when
        # the compiled function runs (item 29, runtime/traced.py).
        for k, site in enumerate(sites, 1):
            if _int_overflow_site(site):
                bad = bad & (code != k)
        if all(_int_overflow_site(site) for site in sites):
            return
        values = [v for site in sites for v in site[1]]
        _any_now_or_when_run(xp, bad, lambda first, shape, c, *lane: _lane_exception(c, first, shape, sites, _site_lane(sites, c, lane)), code, *values)
        return
    if not raised:
        return
    shape = tuple(int(n) for n in code.shape)
    flat = xp.reshape(code, (-1,))
    index = int(xp.argmax(xp.astype(flat != 0, xp.int8)))
    _raise_lane(xp, int(flat[index]), index, shape, sites)


def _site_lane(sites: tuple, code: int, lane: tuple) -> list:
    """Site ``code - 1``'s values out of every site's values on one lane, in ``sites`` order."""
    start = sum(len(site[1]) for site in sites[: code - 1])
    return list(lane[start : start + len(sites[code - 1][1])])


def _vec_raise_uniform(xp: Any, code: int, arrays: tuple, *sites: tuple) -> None:
    """D11 where every lane reached the same raise (`code`, a Python int, nonzero: a check of
    uniform values, D14, such as `if params["taper"] > 1: raise ...`): CPython's element loop
    raises it at the first element, so does the call, unless the arguments have no element.
    No array is made and nothing needs a concrete value (this runs under jax.jit), but a
    message built from a per-element value (element 0's)."""
    shape = _broadcast_shape(arrays)
    if any(n == 0 for n in shape):
        return
    try:
        _raise_lane(xp, code, 0, shape, sites, exact=True)
    except _NotConcrete as exc:
        raise _traced(exc.args[0]) from exc.__cause__


class _NotConcrete(Exception):
    """A value of the raising lane is traced (jax.jit): the exception cannot be built."""


def _broadcast_shape(arrays: tuple) -> tuple:
    out: list[int] = []
    for a in arrays:
        shape = tuple(int(n) for n in getattr(a, "shape", ()))
        if len(shape) > len(out):
            out = [1] * (len(shape) - len(out)) + out
        for i, n in enumerate(shape, len(out) - len(shape)):
            if out[i] == 1:
                out[i] = n
    return tuple(out)


def _raise_lane(xp: Any, code: int, index: int, shape: tuple, sites: tuple, exact: bool = False) -> None:
    """Raises site `code - 1`'s exception built from lane `index`'s values (C order in `shape`).
    With `exact`, a value that has no concrete lane (traced) raises ``_NotConcrete``."""
    lane = []
    for v in sites[code - 1][1]:
        try:
            lane.append(_lane_value(xp, v, shape, index))
        except Exception as exc:
            if not exact or not type(exc).__module__.startswith("jax"):
                raise
            raise _NotConcrete(v) from exc
    where, whole = lane_position(index, shape)  # in a block: its place in the whole call
    raise _lane_exception(code, where, whole, sites, lane)


def _lane_exception(code: int, index: int, shape: tuple, sites: tuple, lane: list) -> BaseException:
    """Site ``code - 1``'s exception built from one lane's values (``lane``; lane ``index`` in C
    order of ``shape``, named by a note), its cause set as ``raise ... from cause`` sets it."""
    make, _, *cause = sites[code - 1]
    exc, built = _exception(make, lane)
    if hasattr(exc, "add_note"):
        exc.add_note(f"array-vectorize: raised for element {_unravel(index, shape)} (flat index {index})")
    if cause and built:
        # `raise ... from cause`: CPython's own statement sets __cause__ and
        # __suppress_context__ (a class is instantiated, `None` suppresses the context).
        value = cause[0](*lane)
        if isinstance(value, type) and issubclass(value, BaseException):
            value = value()
        exc.__cause__ = value
        exc.__suppress_context__ = True
    return exc


def _vec_raised_to_nan(xp: Any, code: Any, value: Any) -> Any:
    """``nan_on_raise=True``: the returned value, as float64, with NaN on the lanes that raised.
    An int converts as ``float()`` converts it, uint64 lattice lanes (item 13) included."""
    if type(value) is Overflowed:
        value = _returned_marks(xp, code, value)
    if not hasattr(value, "dtype") or isinstance(value, LatticeInt) or value.dtype != xp.float64:
        value = _vec_unary(xp, "float", value)
    if type(code) is int:  # every lane's code (a check of uniform values, D14)
        return xp.full_like(value, float("nan")) if code else value
    nan = xp.asarray(float("nan"), dtype=xp.float64)
    return xp.where(code != 0, nan, value)


def _returned_marks(xp: Any, code: Any, value: Overflowed) -> Any:
    """The value of ``nan_on_raise`` with lanes beyond the uint64 lattice (docs/semantics.md
    item 13): a lane that raised is NaN, as CPython raised there before returning its value; a
    lane that returns a value beyond raises item 13's OverflowError."""
    if type(code) is int:  # every lane's code (a check of uniform values, D14)
        if code:
            return value.value
        raise value.error()
    over = xp.logical_and(value.over, code == 0)
    if known_any(xp, over) is not False:
        raise Overflowed(value.value, over, value.sites, value.info).error()
    return value.value


def _unbound_wording() -> tuple[str, str]:
    """How the running interpreter words reading an unbound local and an unbound variable of an
    enclosing function (3.11 changed both), as templates of the name."""

    def local() -> None:
        _probe  # noqa: B018 - read before the assignment below: unbound
        _probe = 0  # noqa: F841

    def enclosing() -> Any:
        def inner() -> Any:
            return _probe

        inner()
        _probe = 0  # noqa: F841

    words = []
    for probe in (local, enclosing):
        try:
            probe()
        except NameError as exc:
            words.append(str(exc).replace("_probe", "{0}"))
    return words[0], words[1]


_UNBOUND_LOCAL, _UNBOUND_FREE = _unbound_wording()


def _vec_unbound(name: str, free: bool) -> str:
    """D20: the message of the exception CPython raises reading `name` where it was never
    assigned (an UnboundLocalError, or for a variable of an enclosing function a NameError),
    worded by the running interpreter."""
    return (_UNBOUND_FREE if free else _UNBOUND_LOCAL).format(name)


def _vec_int_overflow(function: str, x: float) -> OverflowError:
    """Item 7 (issue 28 item 4): the exception of ``function`` (``int``, ``round``,
    ``math.floor``, ``math.ceil``, ``math.trunc``) of a float ``x`` from 2**63 up or below
    -2**63, a raise site's expression. For ±inf it is CPython's own (``cannot convert float
    infinity to integer``); for a finite ``x`` CPython gives an int beyond 64 bits, which an
    integer array cannot hold: an OverflowError saying so, as item 17's."""
    if x in (float("inf"), float("-inf")):
        try:
            int(x)
        except OverflowError as exc:
            exc.__traceback__ = None
            return exc
    return OverflowError(
        f"{function}({x!r}) is beyond int64, which an int array cannot hold (docs/semantics.md item 7)"
    )


def _int_overflow_site(site: tuple) -> bool:
    """Whether ``site`` is item 7's raise site of a float converted to an int beyond int64: its
    exception is ``_vec_int_overflow``'s and nothing else (the generated
    ``lambda _a: (_vec_int_overflow('int', _a))``)."""
    make = site[0]
    code = getattr(make, "__code__", None)
    return (
        code is not None
        and code.co_names == ("_vec_int_overflow",)
        and getattr(make, "__globals__", {}).get("_vec_int_overflow") is _vec_int_overflow
    )


def _exception(make: Any, values: list) -> tuple[BaseException, bool]:
    """The exception of a raise site on one lane's values, and whether it was built as written.
    Building it may raise instead (a message that fails to format, or a numeric error inside
    ``try`` whose site is the failing operation itself): that exception is the one CPython
    raises there (and a cause is then never evaluated)."""
    built = True
    try:
        exc = make(*values)
    except Exception as raised:  # noqa: BLE001 - what CPython raises on this lane
        exc = raised
        exc.__traceback__ = None
        built = False
    if isinstance(exc, type) and issubclass(exc, BaseException):
        exc = exc()
    if not isinstance(exc, BaseException):
        raise RuntimeError(
            f"array-vectorize: internal error: a lane marked as raising computes {exc!r} instead; "
            "this is a bug in array-vectorize (please report it with this function)"
        )
    return exc, built


def _lane_value(xp: Any, value: Any, shape: tuple, index: int) -> Any:
    """``value`` on lane ``index`` as the Python scalar CPython would see there."""
    if isinstance(value, bool):
        return value
    if isinstance(value, float):
        # A NumPy float64 scalar (a Python float argument the float path lifted) is a float,
        # but computes as NumPy does: `np.float64(0.0) % 0` is nan, not ZeroDivisionError.
        return float(value)
    if isinstance(value, int):
        return int(value)
    if type(value) is Overflowed:  # item 13: a lane beyond the lattice has no value to show
        if bool(lane(xp, value.over, shape, index)):
            raise value.error()
        return _lane_value(xp, value.value, shape, index)
    if type(value) is LatticeInt:  # a uint64-lattice int with negative lanes (intops.py)
        bits = _lane_value(xp, value.bits, shape, index)
        return bits - (1 << 64) if _lane_value(xp, value.neg, shape, index) else bits
    if not hasattr(value, "dtype"):
        # A uniform value (D14: None, a string, a dict, an Enum member): the same on every lane.
        return value
    item = xp.reshape(xp.broadcast_to(value, shape), (-1,))[index]
    dtype = value.dtype
    if dtype == xp.bool:
        return bool(item)
    if dtype in (xp.float64, xp.float32):
        return float(item)
    return int(item)


def _unravel(index: int, shape: tuple) -> tuple:
    out = []
    for n in reversed(shape):
        out.append(index % n)
        index //= n
    return tuple(reversed(out))
