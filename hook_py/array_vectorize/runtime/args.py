"""Argument prologues of generated functions: ``_vec_float_args`` and ``_vec_exact_args``.

Every generated function starts with ``args = _vec_float_args(...)``; when that returns ``None`` it
runs its exact body, which starts with ``_vec_exact_args(...)``.

``_vec_float_args(*args)`` returns ``(xp, *arrays)`` when every argument is a float64 array or a
Python float (floats become 0-d float64 arrays of ``xp``), else ``None``. With no array argument at
all, ``xp`` is ``array_api_compat.numpy`` (a ``TypeError`` says so when NumPy is not installed).
A Python list is ``xp.asarray`` of it, as ``np.vectorize`` takes one (``xp`` from the other
arguments). A pandas or xarray argument makes it return ``None`` after marking the call for the
exact body's slot (runtime/containers.py).

``_vec_exact_args(*args)`` returns ``(xp, *arrays)`` with every argument an array of bool, int64,
uint64 or float64:

* Python ``bool`` -> bool, ``float`` -> float64, ``int`` -> int64, or uint64 when it fits only
  uint64 (``OverflowError`` beyond 64 bits);
* int8/16/32 and uint8/16/32 arrays -> int64; float16/float32 arrays -> float64;
* a list -> ``xp.asarray`` of it, then as an array;
* complex arrays and anything else -> ``TypeError`` naming the parameter (``argument_label``).

Speed: the plan for a call (the namespace, and what to do with each position) is cached by the
tuple of argument types, so a call costs one ``tuple(map(type, args))``, one dict lookup and one
dtype identity test per array. The namespace itself comes from
``array_api_compat.array_namespace`` on the first call with those types. A pinned namespace
(``vectorize(namespace=xp)``) gets its own prologues from ``make_float_args`` / ``make_exact_args``:
they skip namespace detection and use ``xp`` for Python scalars. Each generated function's float
prologue is its own (``specializing_prologue``): the type test and the plan for the types it last
saw compiled into one function, which saves the type tuple, the lookup and a call (~0.2 us for
the prologue alone, ~0.35 us of a 10-element call of clamp_bounds). It takes the arguments as its
own parameters, and a Python float that is the very object its position got on the last call
gets back the float64 value made of it then (``_MEMO``: five float parameters, ~0.5 us).
"""

from __future__ import annotations

import functools
import importlib
import sys

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Callable, Dict, List, Optional, Tuple

    Plan = Callable[[Tuple[Any, ...]], Optional[Tuple[Any, ...]]]
    # What a float plan is made of (`_float_plan_parts`): per position "A" an array (float64, or
    # the plan gives None), "L" a list (made an array by `asarray`, then as "A"), "F" a float or
    # "S" a float subclass (made float64 values of `xp` by `make`), or "C" for a pandas or xarray
    # container (the plan only marks the call, "-" for the other positions); the names the plan's
    # code reads; the positions of NumPy arrays whose size sends
    # the call to the blocked evaluation (`_blocked_plan_parts`). None: the float body cannot
    # take arguments of these types.
    PlanParts = Optional[Tuple[List[str], Dict[str, Any], Tuple[int, ...]]]

from . import blocked, compat, containers
from .dtype import (
    COMPLEX,
    WIDEN_FLOAT,
    WIDEN_INT,
    Namespace,
    int_overflow,
    namespace_info,
    python_int_kind,
)

#: Plans are cached per type tuple; a pathological caller cycling through argument types cannot
#: grow the cache without bound.
_MAX_PLANS = 4096


def default_namespace() -> Any:
    """``array_api_compat.numpy``: the namespace used when no argument is an array."""
    try:
        return importlib.import_module("array_api_compat.numpy")
    except ImportError as exc:
        raise TypeError(
            "array-vectorize: every argument is a Python scalar and NumPy is not installed; "
            "pass at least one array, or pin a namespace with vectorize(namespace=...)"
        ) from exc


def _resolve_namespace(arrays: list[Any], pinned: Any) -> Any:
    if pinned is not None:
        return pinned
    if not arrays:
        return default_namespace()
    try:
        return compat.array_namespace(*arrays)
    except TypeError as exc:
        raise TypeError(
            f"array-vectorize: cannot determine the array namespace of the arguments: {exc}"
        ) from exc


def _is_python_float(a: Any) -> bool:
    return isinstance(a, float) and not hasattr(a, "dtype")


def _no_plan(args: tuple[Any, ...]) -> None:
    return None


# --------------------------------------------------------------------------- float prologue


def _float_plan_parts(args: tuple[Any, ...], pinned: Any) -> PlanParts:
    """The parts of the float plan for arguments of these types."""
    at = next((i for i, a in enumerate(args) if containers.is_container(a)), None)
    if at is not None:
        # pandas and xarray containers: the plan sends the call to the exact body's slot.
        return ["C" if i == at else "-" for i in range(len(args))], {"send_container": containers.send_container}, ()
    kinds = []
    arrays = []
    for a in args:
        t = type(a)
        if t is float:
            kinds.append("F")
        elif t is list:
            kinds.append("L")
        elif t is not bool and t is not int and _is_python_float(a):
            kinds.append("S")
        elif t is bool or t is int or not hasattr(a, "dtype"):
            return None
        else:
            kinds.append("A")
            arrays.append(a)
    xp = _resolve_namespace(arrays, pinned)
    info = namespace_info(xp)
    # NumPy: a Python float becomes a float64 *scalar*. It behaves as a 0-d array in every
    # operation the generated code does (IEEE results, warnings, broadcasting), and arithmetic
    # on it costs ~0.04 us against ~0.3 us for a 0-d array: parameters like `rate` in
    # `x * exp(-rate * t)` stay cheap on small inputs. Other namespaces get 0-d arrays.
    make = info.f64.type if compat.is_numpy_namespace(xp) else info.makers["f"]
    env = {"xp": xp, "f64": info.f64, "is_float64": info.is_float64, "make": make, "blocked": blocked}
    if "L" in kinds:
        env["asarray"] = xp.asarray
    return kinds, env, ()


def _blocked_plan_parts(args: tuple[Any, ...], pinned: Any) -> PlanParts:
    """The float plan's parts, with NumPy arrays of at least ``blocked.THRESHOLD`` elements
    sending the call to the blocked evaluation in the exact body's slot (runtime/blocked.py).
    Other namespaces and array types: the float plan's."""
    parts = _float_plan_parts(args, pinned)
    if parts is None or "C" in parts[0] or "L" in parts[0]:
        return parts  # a list is converted by the plan, after the blocks would be cut
    at = tuple(i for i, a in enumerate(args) if blocked.is_ndarray(a))
    if not at or len(at) != sum(1 for a in args if hasattr(a, "dtype") and not isinstance(a, float)):
        return parts
    return parts[0], parts[1], at


def _plan_body(parts: PlanParts, indent: str, memo: bool = False) -> list[str]:
    """The statements of a plan over arguments unpacked as ``a0, a1, ...``: straight-line code,
    no loop over positions and no list (the float prologue is most of a 10-element call's
    overhead). ``memo`` (a function's own prologue): a Python float argument that is the very
    object the last call passed at its position gets the value made of it then (``_MEMO``)."""
    if parts is None:
        return [f"{indent}return None"]
    kinds, _, large_at = parts
    if "C" in kinds:  # pandas and xarray containers (runtime/containers.py)
        return [f"{indent}return send_container(a{kinds.index('C')})"]
    lines = []
    for i, kind in enumerate(kinds):
        if kind == "L":  # a list, as np.vectorize takes one: an array of the call's namespace
            lines.append(f"a{i} = asarray(a{i})")
        if kind in "AL":
            lines += [f"d = a{i}.dtype", "if d is not f64 and not is_float64(d):", "    return None"]
    if large_at:
        # After the dtype checks: only a call the float body takes is sent to the blocks.
        large = " or ".join(f"a{i}.size >= blocked.THRESHOLD" for i in large_at)
        lines += [f"if ({large}) and not blocked.blocking_off():", f"    return blocked.send_large(a{large_at[0]})"]
    values = {"A": "a{}", "L": "a{}", "F": _MEMO if memo else "make(a{})", "S": "make(float(a{}))"}
    # No number parameter (every one uniform, D14): the generated code binds `xp = arrays`.
    lines.append(f"return (xp, {''.join(values[k].format(i) + ', ' for i, k in enumerate(kinds))})" if kinds else "return xp")
    return [indent + line for line in lines]


#: A Python float made a float64 value by a function's own prologue (``_plan_body``), remembered
#: per position as the pair ``m<i> = (argument, value)`` in the prologue's globals: a call passing
#: the same float object again (a literal at the call site, a parameter held by the caller) reads
#: the value back, ~0.1 us where making it costs ~0.15 us (five float parameters: ~0.5 us of a
#: 10-element call). The same object is the same float, and the value is an immutable scalar, so
#: what the body gets is the same. The pair is read once (``:=``) and replaced whole: a thread
#: storing another pair between the test and the read cannot mix two calls' values.
_MEMO = "(p[1] if (p := m{0})[0] is a{0} else remake('m{0}', a{0}))"

#: What ``m<i>`` holds before a first call: an argument is never this object.
_NOT_SEEN = (object(), None)

#: The code of each plan and prologue text compiled so far: the text depends only on the kinds
#: of the arguments, so functions called with the same kinds share it (compiling costs ~70 us,
#: running the compiled `def` ~0.2 us). Bounded like the plans.
_CODE: dict[str, Any] = {}


def _compiled(lines: list[str], env: dict[str, Any], name: str) -> Any:
    """The function `name` that `lines` define, with `env` as its globals."""
    text = "\n".join(lines)
    code = _CODE.get(text)
    if code is None:
        if len(_CODE) >= _MAX_PLANS:
            _CODE.clear()
        # The text is built from the fixed pieces above only.
        code = _CODE[text] = compile(text, f"<array-vectorize {name}>", "exec")
    exec(code, env)  # noqa: S102 - defines one function
    return env[name]


def _unpack(n: int, indent: str) -> list[str]:
    return [f"{indent}{', '.join(f'a{i}' for i in range(n))}, = args"] if n else []


def _straight_line_plan(parts: PlanParts) -> Plan:
    """The float plan for one tuple of argument types, compiled once per tuple."""
    if parts is None:
        return _no_plan
    lines = ["def plan(args):", *_unpack(len(parts[0]), "    "), *_plan_body(parts, "    ")]
    return _compiled(lines, dict(parts[1]), "plan")


def _cached_prologue(build: Callable[[tuple[Any, ...], Any], Plan], namespace: Any, name: str) -> Callable[..., Any]:
    """A prologue that builds a plan per tuple of argument types with ``build`` and caches it."""
    plans: dict[tuple[type, ...], Plan] = {}

    def prologue(*args: Any) -> tuple[Any, ...] | None:
        key = tuple(map(type, args))
        try:
            plan = plans[key]
        except KeyError:
            plan = None
        if plan is None:  # built outside the handler: its errors chain no KeyError
            plan = build(args, namespace)
            if len(plans) >= _MAX_PLANS:
                plans.clear()
            plans[key] = plan
        return plan(args)

    prologue.__name__ = prologue.__qualname__ = name
    return prologue


def _float_prologue(parts_for: Callable[[tuple[Any, ...], Any], PlanParts], namespace: Any, name: str) -> Callable[..., Any]:
    """A float prologue shared by generated functions, with what `specializing_prologue` needs to
    make one for a single function."""
    prologue = _cached_prologue(lambda args, pinned: _straight_line_plan(parts_for(args, pinned)), namespace, name)
    prologue.specializing = (parts_for, namespace)  # type: ignore[attr-defined]
    return prologue


def make_float_args(namespace: Any = None) -> Callable[..., tuple[Any, ...] | None]:
    """A ``_vec_float_args`` with its own plan cache; ``namespace`` pins ``xp`` when given."""
    return _float_prologue(_float_plan_parts, namespace, "_vec_float_args")


#: The float prologue of functions that may be evaluated in blocks (emit.py installs it).
_vec_float_args_blocked = _float_prologue(_blocked_plan_parts, None, "_vec_float_args_blocked")


# --------------------------------------------------------------------------- one function's prologue

#: How many times a function's own float prologue is remade for new argument types before it
#: hands over to the shared one (a call site whose types keep changing).
MAX_SPECIALIZATIONS = 8


def specializing_prologue(shared: Callable[..., Any], glob: dict[str, Any], name: str) -> Callable[..., Any]:
    """A float prologue for one generated function, to be bound to ``glob[name]`` (its globals):
    on a call it compiles a prologue for the argument types it sees, the type test and the plan
    in one function (``type(a0) is t0 and ...``: no type tuple, no dict lookup, no second call;
    ~0.2 us less per call than `shared`), and binds it in its place. Arguments of other types
    remake it, up to ``MAX_SPECIALIZATIONS`` times; then `shared` takes over. A prologue without
    `specializing` parts (a test's stand-in) is returned unchanged."""
    spec = getattr(shared, "specializing", None)
    if spec is None:
        return shared
    parts_for, pinned = spec
    remade = 0

    def respecialize(args: tuple[Any, ...]) -> tuple[Any, ...] | None:
        nonlocal remade
        remade += 1
        if remade > MAX_SPECIALIZATIONS:
            glob[name] = shared
            return shared(*args)
        parts = parts_for(args, pinned)
        types = tuple(map(type, args))
        env = dict(parts[1] if parts is not None else {}, respecialize=respecialize, missing=_MISSING)
        env.update((f"t{i}", t) for i, t in enumerate(types))
        if parts is not None and "F" in parts[0]:
            env.update(remake=_remake(env), **{f"m{i}": _NOT_SEEN for i, k in enumerate(parts[0]) if k == "F"})
        # The generated entry passes every parameter, positionally: the prologue takes them as
        # its own parameters (no tuple to pack, count and unpack, ~0.15 us of a 7-argument call).
        # A call of another length (a test's) gives `missing` or `rest` and is remade.
        params = "".join(f"a{i}=missing, " for i in range(len(types)))
        given = "".join(f"a{i}, " for i in range(len(types)))
        guard = " and ".join([*(f"type(a{i}) is t{i}" for i in range(len(types))), "not rest"])
        lines = [
            f"def prologue({params}*rest):",
            f"    if {guard}:",
            *_plan_body(parts, "        ", memo=True),
            f"    return respecialize(tuple(a for a in ({given}) if a is not missing) + rest)",
        ]
        prologue = _compiled(lines, env, "prologue")
        prologue.__name__ = prologue.__qualname__ = name
        glob[name] = prologue
        return prologue(*args)

    def first_call(*args: Any) -> tuple[Any, ...] | None:
        return respecialize(args)

    first_call.__name__ = first_call.__qualname__ = name
    return first_call


#: A parameter of a function's own prologue that the call did not pass (never an argument).
_MISSING = type("_Missing", (), {"__repr__": lambda self: "<missing>"})()


def _remake(env: dict[str, Any]) -> Callable[[str, Any], Any]:
    """``remake(name, a)`` for a prologue whose globals are `env`: `a` made a float64 value by
    the plan's ``make``, remembered as ``env[name] = (a, value)`` (``_MEMO``)."""
    make = env["make"]

    def remake(name: str, a: Any) -> Any:
        value = make(a)
        env[name] = (a, value)
        return value

    return remake


# --------------------------------------------------------------------------- float 0-d values

_F64_MAKERS: dict[Any, Callable[[Any], Any]] = {}


def _vec_f64(xp: Any, value: Any) -> Any:
    """Python scalar `value` as a float64 0-d value of `xp`, where the float body lifts a scalar
    (codegen's ``F64``): on NumPy a float64 scalar, as the float prologue makes of Python floats
    (it computes as a 0-d array does, ~10x cheaper than ``xp.asarray``); elsewhere a 0-d array."""
    try:
        make = _F64_MAKERS[xp]
    except KeyError:
        info = namespace_info(xp)
        make = _F64_MAKERS[xp] = info.f64.type if compat.is_numpy_namespace(xp) else info.makers["f"]
    return make(value)


_B1_MAKERS: dict[Any, Callable[[Any], Any]] = {}


def _vec_bool0d(xp: Any, value: Any) -> Any:
    """Python bool `value` as a 0-d bool array of `xp`, where the float body lifts one (a masked
    loop's activity mask and done flag, D12): ``xp.asarray(value, dtype=xp.bool)``. On NumPy the
    array that call makes, from ``numpy.asarray`` directly: array-api-compat's ``asarray``
    wrapper costs ~1.5 us of a 10-element call per lift, ``numpy.asarray`` ~0.15 us."""
    try:
        make = _B1_MAKERS[xp]
    except KeyError:
        make = _B1_MAKERS[xp] = _bool_maker(xp)
    return make(value)


def _bool_maker(xp: Any) -> Callable[[Any], Any]:
    info = namespace_info(xp)
    if compat.is_numpy_namespace(xp):
        # array-api-compat's `asarray` is `numpy.array(obj, copy=IF_NEEDED, dtype=dtype)`:
        # `numpy.asarray(obj, dtype=dtype)`, a fresh writeable 0-d array for a Python bool.
        return functools.partial(sys.modules["numpy"].asarray, dtype=info.b1)
    asarray, b1 = xp.asarray, info.bool
    return lambda value: asarray(value, dtype=b1)


# --------------------------------------------------------------------------- owned buffers


def _vec_owned(xp: Any, value: Any, *arrays: Any) -> bool:
    """Whether `value`, an array the float body has just computed (a fresh result, held by one
    variable: src/codegen/inplace.rs), may be updated in place by the iterations to come: a
    writeable float64 ``numpy.ndarray`` that owns its memory and already has the broadcast shape
    of `arrays`, the function's array arguments (no operand can be larger). Never on another
    namespace: JAX arrays are immutable, and CuPy and torch, which would qualify, are not tested
    here."""
    nd = _NDARRAY or _ndarray()
    if type(value) is not nd or value.base is not None or value.dtype.char != "d" or not value.flags.writeable:
        return False
    shape = value.shape
    if len(arrays) == 1:
        # One array argument (the common case): the broadcast shape is its shape, or () for a
        # number.
        a = arrays[0]
        return shape == (a.shape if type(a) is nd else ())
    shapes = [a.shape for a in arrays if type(a) is nd]
    # Every array argument of the value's shape or 0-d: that is their broadcast shape, without
    # numpy.broadcast_shapes (~1 us, which a 10-element call feels).
    if all(s == shape or s == () for s in shapes) and (shape in shapes or not shape):
        return True
    try:
        return value.shape == sys.modules["numpy"].broadcast_shapes(*shapes)
    except ValueError:
        return False


#: ``numpy.ndarray`` once NumPy is loaded (``_ndarray``): ``_vec_owned`` runs once per loop of a
#: 10-element call too (~0.15 us less than looking it up each time).
_NDARRAY: Any = None


def _ndarray() -> Any:
    global _NDARRAY
    numpy = sys.modules.get("numpy")
    if numpy is None:
        return None
    _NDARRAY = numpy.ndarray
    return _NDARRAY


# --------------------------------------------------------------------------- exact prologue


def _exact_convert(info: Namespace, a: Any, position: int, given: Any = None) -> Any:
    """One array argument as bool / int64 / uint64 / float64 (`given`: the list it was made of)."""
    kind = info.kind_of_dtype(a.dtype)
    if kind == "u" and not info.uint64_arithmetic:
        return _uint64_as_int64(info, a, position)
    if kind in "biuf":
        return a
    xp = info.xp
    if kind == WIDEN_INT:
        return xp.astype(a, info.int64)
    if kind == WIDEN_FLOAT:
        return xp.astype(a, info.float64)
    label = argument_label(position, a if given is None else given)
    if kind == COMPLEX:
        raise TypeError(
            f"array-vectorize: {label} is a complex array ({a.dtype}); "
            "vectorized functions compute on real numbers (bool, int, float)"
        )
    raise TypeError(f"array-vectorize: {label} has unsupported dtype {a.dtype}")


def argument_label(position: int, value: Any) -> str:
    """How an error message names the argument `value` at `position` of a prologue: by the
    parameter of the generated function that holds it (the nearest generated caller with a
    parameter bound to this very object), else by its position."""
    frame = sys._getframe(1)
    while frame is not None:
        code = frame.f_code
        if code.co_filename.startswith("<array-vectorize "):
            local = frame.f_locals
            for name in code.co_varnames[: code.co_argcount + code.co_kwonlyargcount]:
                if local.get(name) is value:
                    return f"argument `{name}`"
        frame = frame.f_back
    return f"argument {position + 1}"


def _uint64_as_int64(info: Namespace, a: Any, position: int) -> Any:
    """A uint64 array on a namespace without uint64 arithmetic (PyTorch): as int64, the same
    values, when every one is below 2**63 (the result is then int64 where NumPy's would be
    uint64: docs/semantics.md, PyTorch); a clear TypeError otherwise."""
    xp = info.xp
    signed = xp.astype(a, info.int64)  # wraps: a lane at or above 2**63 turns negative
    if bool(xp.any(signed < 0)):
        raise TypeError(
            f"array-vectorize: argument {position + 1} is a uint64 array with values at or above 2**63, "
            f"which {getattr(xp, '__name__', 'this namespace')} cannot compare or compute with (it lacks "
            "uint64 arithmetic); pass int64 values, or NumPy arrays"
        )
    return signed


def _python_int_array(info: Namespace, v: int) -> Any:
    kind = python_int_kind(v)
    if kind == "L":
        raise int_overflow(v)
    if kind == "u" and not info.uint64_arithmetic:
        raise TypeError(
            f"array-vectorize: the int {v} needs uint64, which {getattr(info.xp, '__name__', 'this namespace')} "
            "cannot compare or compute with; pass NumPy arrays"
        )
    return info.scalar(kind, v)


def _exact_plan(args: tuple[Any, ...], pinned: Any) -> Plan:
    """The exact prologue's plan: a converter per position."""
    tags = []
    arrays = []
    for position, a in enumerate(args):
        t = type(a)
        if t is bool or (t is not int and t is not float and isinstance(a, bool)):
            tags.append("B")
        elif containers.is_container(a):  # one the float prologue did not see: a hidden global
            raise TypeError(
                f"array-vectorize: {argument_label(position, a)} is a {t.__module__.partition('.')[0]} "
                f"{t.__name__}, which vectorized functions take as an argument only; pass its array"
            )
        elif hasattr(a, "dtype"):
            tags.append("A")
            arrays.append(a)
        elif t is list:
            tags.append("L")
        elif t is int or isinstance(a, int):
            tags.append("I")
        elif t is float or isinstance(a, float):
            tags.append("F")
        elif isinstance(a, complex):
            raise TypeError(
                f"array-vectorize: {argument_label(position, a)} is complex ({a!r}); "
                "vectorized functions compute on real numbers (bool, int, float)"
            )
        else:
            raise TypeError(
                f"array-vectorize: {argument_label(position, a)} has unsupported type {t.__name__} "
                "(expected an array, a list, bool, int or float)"
            )
    xp = _resolve_namespace(arrays, pinned)
    info = namespace_info(xp)
    makers = info.makers
    tags_t = tuple(tags)

    def plan(args: tuple[Any, ...]) -> tuple[Any, ...]:
        out = [xp]
        for position, (a, tag) in enumerate(zip(args, tags_t)):
            if tag == "A":
                out.append(_exact_convert(info, a, position))
            elif tag == "L":  # as np.vectorize takes a list: an array of the call's namespace
                out.append(_exact_convert(info, xp.asarray(a), position, a))
            elif tag == "F":
                out.append(makers["f"](float(a)))
            elif tag == "I":
                out.append(_python_int_array(info, int(a)))
            else:
                out.append(makers["b"](bool(a)))
        return tuple(out) if len(out) > 1 else xp  # no number parameter: `xp = _vec_exact_args()`

    return plan


def make_exact_args(namespace: Any = None) -> Callable[..., tuple[Any, ...]]:
    """A ``_vec_exact_args`` with its own plan cache; ``namespace`` pins ``xp`` when given."""
    return _cached_prologue(_exact_plan, namespace, "_vec_exact_args")


# --------------------------------------------------------------------------- int prologue


def _int_plan(args: tuple[Any, ...], pinned: Any) -> Plan:
    """The int body's plan: ``_typed_plan`` with every position an int."""
    return _typed_plan("i" * len(args), args, pinned)


def _typed_plan(kinds: str, args: tuple[Any, ...], pinned: Any) -> Plan:
    """The plan of the int body (``_vec_int_args``: `kinds` all ``i``) or the mixed body
    (``_vec_mixed_args``, issue 30: a position of kind ``f`` takes a float64 array or a Python
    float, as float64; a float32 or float16 array, an int or a bool there takes the exact body).

    The int body's plan (``_vec_int_args``): every argument an int64 array, an int8/16/32 or
    uint8/16/32 one (widened to int64 as ``_vec_exact_args`` widens it: exactly), or a Python int
    within int64 (a 0-d int64 array); else None (bool, uint64 and float arguments take the exact
    body). Plans are cached by the arguments' types, so each call checks its arrays' dtypes.

    On NumPy, a ufunc of 0-d operands returns a NumPy scalar, whose int arithmetic warns on the
    wrap-around that array arithmetic does silently (docs/semantics.md item 6), where the exact
    body's helpers compute on shape (1,). So on NumPy a Python int or a 0-d array becomes a
    shape-(1,) array, which broadcasts with the other arguments to the very shape a 0-d one
    does, as long as one argument has a dimension; a call of Python ints and 0-d arrays only
    takes the exact body."""
    tags = []
    arrays = []
    for kind, a in zip(kinds, args):
        t = type(a)
        if kind == "f" and t is float:
            tags.append("F")
        elif kind == "i" and (t is int or (t is not bool and isinstance(a, int) and not hasattr(a, "dtype"))):
            tags.append("I")
        elif hasattr(a, "dtype") and not isinstance(a, (bool, int, float)):
            tags.append("A" if kind == "i" else "D")
            arrays.append(a)
        else:
            return _no_plan
    xp = _resolve_namespace(arrays, pinned)
    info = namespace_info(xp)
    numpy = compat.is_numpy_namespace(xp)
    make = info.makers["i"]
    make_float = info.makers["f"]
    int64 = info.int64
    kind_of = info.kind_of_dtype
    tags_t = tuple(tags)

    def one(tag: str, a: Any) -> Any:
        if tag in "IF":
            v = make(int(a)) if tag == "I" else make_float(a)
            return xp.reshape(v, (1,)) if numpy else v
        if tag == "A" and a.dtype != int64:
            a = xp.astype(a, int64)
        return xp.reshape(a, (1,)) if numpy and a.ndim == 0 else a

    def plan(args: tuple[Any, ...]) -> tuple[Any, ...] | None:
        shaped = False
        for tag, a in zip(tags_t, args):
            if tag == "I":
                if python_int_kind(int(a)) != "i":
                    return None
            elif tag == "F":
                continue
            elif tag == "D":  # float64 only: a narrower float is widened by the exact body
                if kind_of(a.dtype) != "f":
                    return None
                shaped = shaped or a.ndim > 0
            # int64, or int8/16/32 and uint8/16/32 (WIDEN_INT), whose every value int64 holds.
            elif kind_of(a.dtype) not in ("i", WIDEN_INT):
                return None
            elif a.ndim:
                shaped = True
        if numpy and not shaped:
            return None
        return (xp, *(one(tag, a) for tag, a in zip(tags_t, args)))

    return plan


def make_int_args(namespace: Any = None) -> Callable[..., tuple[Any, ...] | None]:
    """A ``_vec_int_args`` with its own plan cache; ``namespace`` pins ``xp`` when given."""
    return _cached_prologue(_int_plan, namespace, "_vec_int_args")


def make_mixed_args(namespace: Any = None) -> Callable[..., tuple[Any, ...] | None]:
    """A ``_vec_mixed_args(kinds, *args)`` (the mixed body's prologue, issue 30) with its own
    plan cache, by `kinds` and the arguments' types; ``namespace`` pins ``xp`` when given."""
    plans: dict[tuple[Any, ...], Plan] = {}

    def _vec_mixed_args(kinds: str, *args: Any) -> tuple[Any, ...] | None:
        key = (kinds, *map(type, args))
        plan = plans.get(key)
        if plan is None:
            plan = _typed_plan(kinds, args, namespace)
            if len(plans) >= _MAX_PLANS:
                plans.clear()
            plans[key] = plan
        return plan(args)

    return _vec_mixed_args


_vec_float_args = make_float_args()
_vec_exact_args = make_exact_args()
_vec_int_args = make_int_args()
_vec_mixed_args = make_mixed_args()

__all__ = [
    "_vec_exact_args",
    "_vec_int_args",
    "_vec_mixed_args",
    "_vec_bool0d",
    "_vec_f64",
    "_vec_float_args",
    "_vec_owned",
    "default_namespace",
    "make_exact_args",
    "make_float_args",
    "make_int_args",
    "make_mixed_args",
    "specializing_prologue",
]
