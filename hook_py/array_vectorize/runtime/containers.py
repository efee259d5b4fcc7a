"""pandas and xarray arguments: computed on the arrays inside, returned in the same container.

``f(df["income"], 2.0)`` returns a pandas Series with the argument's index, and ``f(da, 2.0)``
an xarray DataArray with its dims, coords and attrs (lazily, on a Dask-backed one): the
generated code runs on the underlying NumPy (or Dask) arrays, as it does for any call, and
each result (each position of a tuple result, D13) is put back into a container.

* pandas: a Series of a NumPy dtype of bool, int, uint or float is its ``to_numpy()``. Every
  Series of a call must have the same index (``Index.equals``); then the result is a Series with
  that index, named as pandas arithmetic names (the common name of the Series, else ``None``).
  Series with other indexes are refused (a ``ValueError`` naming both parameters) rather than
  aligned as pandas arithmetic aligns them: an outer join would feed NaN to the function for
  the labels one of them lacks, and turn an int Series into floats, so the function would not
  see the numbers it was given (D10); ``a, b = a.align(b)`` before the call does what pandas
  does. A DataFrame, a Series of an extension dtype (``Int64``, ``string``, categorical: they
  hold ``pd.NA`` or non-numbers) and a result a Series cannot hold (two dimensions, after
  broadcasting with a 2-D array) are ``TypeError`` / ``ValueError`` saying what to pass.
* xarray: the call is what a NumPy ufunc of the function does on DataArrays
  (``DataArray.__array_ufunc__``): ``xarray.apply_ufunc`` with ``dask="allowed"``, the
  ``arithmetic_join`` option (``"inner"`` by default: coordinates are aligned to the labels the
  arguments share) and attributes kept unless ``keep_attrs`` says otherwise. Dimensions
  broadcast by name; the function sees the broadcast data (Dask arrays stay lazy: the result's
  data is a Dask array). A Dataset is refused: pass its variables.

NumPy arrays, Python numbers, lists and uniform values (D14) may be mixed with either kind, as
with the operators of pandas and xarray (NumPy data meeting Dask data becomes Dask, as in
xarray's arithmetic); pandas and xarray containers in one call are refused.
A result that is an input's own array (``return x``) or a view of one is copied, so the returned
container never shares memory with an argument.

How a call gets here: the float prologue's plan for argument types that include a container
marks the call (``marks.send``) and returns ``None``, so the entry calls its exact body's slot,
the ``Dispatch`` of runtime/blocked.py, which calls ``call``: the entry runs again on the
unwrapped arrays (taking its float or exact path as usual). The element loop of
``fallback=True`` gets its containers from ``_vec_loop_args`` (``CONTAINERS``) and calls
``call_element_loop``. pandas and xarray are never imported here: a container's type is
recognised by its module, and its library is loaded since the argument exists.
"""

from __future__ import annotations

import sys

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Callable, Sequence

from .marks import is_ndarray, send

#: What ``_vec_loop_args`` returns in place of the namespace when an argument is a container:
#: ``_vec_elementwise`` then hands the call to ``call_element_loop``.
CONTAINERS = object()


def is_container(a: Any) -> bool:
    """Whether `a` is a pandas or xarray object (recognised without importing either)."""
    return type(a).__module__.partition(".")[0] in ("pandas", "xarray")


def send_container(container: Any) -> None:
    """The float prologue's ``None`` for a call with a container: its dispatch calls ``call``."""
    send(container)


def call(dispatch: Any, args: tuple[Any, ...]) -> Any:
    """The entry of `dispatch` (a ``blocked.Dispatch``) on the arrays inside the containers of
    `args` (the entry's parameters, positionally), its results back in containers."""
    code = dispatch.entry.__code__
    names = code.co_varnames[: code.co_argcount + code.co_kwonlyargcount]
    return _call(dispatch.call_entry, args, names)


def call_element_loop(loop: Callable[[tuple[Any, ...]], Any], args: tuple[Any, ...]) -> Any:
    """``call`` for the element loop of ``fallback=True``: `loop` runs it on unwrapped `args`."""
    return _call(loop, args, _parameter_names(len(args)))


def _call(run: Callable[[tuple[Any, ...]], Any], args: tuple[Any, ...], names: Sequence[str]) -> Any:
    libraries = {type(a).__module__.partition(".")[0] for a in args if is_container(a)}
    if len(libraries) > 1:
        raise TypeError(
            "array-vectorize: a pandas object and an xarray object in one call; convert one of them "
            "(`series.to_xarray()`, or `data_array.to_pandas()`)"
        )
    if libraries == {"pandas"}:
        return _call_pandas(run, args, names)
    return _call_xarray(run, args, names)


def _label(names: Sequence[str], i: int) -> str:
    return f"`{names[i]}`" if i < len(names) else f"{i + 1}"


def _parameter_names(n: int) -> tuple[str, ...]:
    """The parameters of the generated function that called a runtime helper with its `n`
    arguments (the nearest caller whose code is generated code), for messages."""
    frame = sys._getframe(1)
    while frame is not None:
        code = frame.f_code
        if code.co_filename.startswith("<array-vectorize ") and code.co_argcount + code.co_kwonlyargcount == n:
            return code.co_varnames[:n]
        frame = frame.f_back
    return ()


# --------------------------------------------------------------------------- pandas


def _call_pandas(run: Callable[[tuple[Any, ...]], Any], args: tuple[Any, ...], names: Sequence[str]) -> Any:
    pd = sys.modules["pandas"]
    values = list(args)
    series = []
    for i, a in enumerate(args):
        if not is_container(a):
            continue
        if isinstance(a, pd.DataFrame):
            raise TypeError(
                f"array-vectorize: argument {_label(names, i)} is a pandas DataFrame; pass its columns, "
                f'each a Series (`df["income"]`): the result is a Series with their index'
            )
        if not isinstance(a, pd.Series):
            raise TypeError(
                f"array-vectorize: argument {_label(names, i)} is a pandas {type(a).__name__}; "
                "vectorized functions take pandas Series (DataFrame columns)"
            )
        values[i] = _series_values(a, _label(names, i))
        series.append((i, a))
    first_at, first = series[0]
    for i, s in series[1:]:
        if s.index is not first.index and not s.index.equals(first.index):
            a, b = _label(names, first_at), _label(names, i)
            raise ValueError(
                f"array-vectorize: the pandas Series {a} and {b} have different indexes. pandas "
                "arithmetic would align them (the union of the labels, NaN where one lacks a label), "
                "which would call the function on numbers you did not pass; align them first "
                f"(`{a.strip('`')}, {b.strip('`')} = {a.strip('`')}.align({b.strip('`')})`, for pandas' "
                f"result) or pass `{b.strip('`')}.to_numpy()` to pair the elements by position"
            )
    name = first.name
    if any(s.name != name for _, s in series[1:]):
        name = None
    inputs = [values[i] for i, _ in series]
    result = run(tuple(values))

    def wrap(r: Any) -> Any:
        shape = getattr(r, "shape", None)
        if shape != (len(first),):
            raise ValueError(
                f"array-vectorize: the result has shape {shape}, which a pandas Series of {len(first)} "
                "elements cannot hold (an argument broadcast it); pass arrays of the Series' shape"
            )
        return pd.Series(_unshared(r, inputs), index=first.index, name=name, copy=False)

    if isinstance(result, tuple):  # D13: a tuple, or a namedtuple (issue 27), of Series
        parts = tuple(wrap(r) for r in result)
        return parts if type(result) is tuple else type(result)(*parts)
    return wrap(result)


def _series_values(s: Any, label: str) -> Any:
    """The NumPy array of a Series of bool, int, uint or float; TypeError for other dtypes."""
    np = sys.modules["numpy"]
    dtype = s.dtype
    if not isinstance(dtype, np.dtype) or dtype.kind not in "biuf":
        raise TypeError(
            f"array-vectorize: argument {label} is a pandas Series of dtype {dtype}; vectorized functions "
            "compute on bool, int and float Series of NumPy dtypes (an extension dtype such as Int64 "
            "or Float64 can hold pd.NA, which no number is): convert it first, e.g. "
            "`s.to_numpy(dtype=float, na_value=np.nan)` or `s.astype(float)`"
        )
    return s.to_numpy()


def _unshared(r: Any, inputs: list[Any]) -> Any:
    """`r`, or a copy of it when it is (a view of) an argument's array: a returned container
    must not share memory with an argument (``return x`` returns the parameter's array)."""
    if is_ndarray(r) and (r.base is not None or any(r is a for a in inputs)):
        return r.copy()
    return r


# --------------------------------------------------------------------------- xarray


def _call_xarray(run: Callable[[tuple[Any, ...]], Any], args: tuple[Any, ...], names: Sequence[str]) -> Any:
    xr = sys.modules["xarray"]
    for i, a in enumerate(args):
        if not is_container(a) or isinstance(a, xr.DataArray):
            continue
        what = "a Dataset; pass its variables (`ds[\"t\"]`), each a DataArray" if isinstance(a, xr.Dataset) else (
            f"an xarray {type(a).__name__}; vectorized functions take DataArrays"
        )
        raise TypeError(f"array-vectorize: argument {_label(names, i)} is {what}")
    options = xr.get_options()
    keep_attrs = options["keep_attrs"]
    settings = {
        "join": options["arithmetic_join"],
        "dask": "allowed",
        # As DataArray.__array_ufunc__: attributes are kept unless keep_attrs says otherwise.
        "keep_attrs": True if keep_attrs == "default" else keep_attrs,
    }
    results: list[Any] = []

    def compute(*arrays: Any) -> Any:
        # With dask="allowed", apply_ufunc calls this once, on the whole (broadcast) arrays.
        inputs = [a for a in arrays if is_ndarray(a)]
        dask = sys.modules.get("dask.array")
        if inputs and dask is not None and any(isinstance(a, dask.Array) for a in arrays):
            # NumPy data with Dask data: all Dask (one namespace), as xarray's arithmetic does.
            arrays = tuple(dask.asarray(a) if is_ndarray(a) else a for a in arrays)
        r = run(arrays)
        if isinstance(r, tuple):  # D13: a tuple, or a namedtuple (issue 27)
            parts = tuple(_unshared(p, inputs) for p in r)
            r = parts if type(r) is tuple else type(r)(*parts)
        else:
            r = _unshared(r, inputs)
        results.append(r)
        return r[0] if isinstance(r, tuple) else r

    out = xr.apply_ufunc(compute, *args, output_core_dims=((),), **settings)
    (result,) = results
    if not isinstance(result, tuple):
        return out
    # A tuple result (D13): apply_ufunc must know the number of outputs before the call, so the
    # containers of every position are made from the values computed above.
    outs = xr.apply_ufunc(lambda *_: tuple(result), *args, output_core_dims=((),) * len(result), **settings)
    return outs if type(result) is tuple else type(result)(*outs)
