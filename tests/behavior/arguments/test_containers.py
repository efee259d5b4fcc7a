"""pandas Series and xarray DataArrays as arguments (runtime/containers.py): the result is the
same container, with the index and name (pandas) or dims, coords and attrs (xarray, also on
Dask, lazily), and every element is CPython's result on that element's numbers."""

from __future__ import annotations

import math

import dask.array as da
import numpy as np
import pandas as pd
import pytest
import xarray as xr

from array_vectorize import vectorize
from oracle import BOOL_EDGES, FLOAT_EDGES, INT_EDGES, same


def income_tax(income, allowance):
    """Three bands above a personal allowance."""
    if income <= allowance:
        return 0.0
    taxable = income - allowance
    if taxable <= 37700.0:
        return taxable * 0.2
    if taxable <= 125140.0:
        return 7540.0 + (taxable - 37700.0) * 0.4
    return 42516.0 + (taxable - 125140.0) * 0.45


def child_units(adults, children):
    """Equivalence units of a household (ints in, int out)."""
    if adults <= 0:
        return 0
    return 2 * adults + children // 2


def net_and_tax(income, rate):
    tax = income * rate if income > 0.0 else 0.0
    return income - tax, tax


def income_and_double(income):
    return income, income * 2.0


def heating_degree_days(t_mean, base):
    if t_mean >= base:
        return 0.0
    return base - t_mean


def wind_chill(t, v):
    """Environment Canada's wind chill index, defined below 10 C and above 4.8 km/h."""
    if t > 10.0 or v < 4.8:
        return t
    p = v**0.16
    return 13.12 + 0.6215 * t - 11.37 * p + 0.3965 * t * p


def assert_lanes(got, original, *columns, ulps=0):
    """Every element of `got` is `original` on that element's numbers (`columns`: one flat list
    per argument, already broadcast), skipping the D3 lanes where CPython raises."""
    got = np.asarray(got).ravel().tolist()
    assert len(got) == len(columns[0])
    for lane, args in enumerate(zip(*columns)):
        try:
            expected = original(*args)
        except (ArithmeticError, ValueError):
            continue
        assert type(got[lane]) is type(expected), (args, got[lane], expected)
        assert same(got[lane], expected, ulps), (args, got[lane], expected)


# --------------------------------------------------------------------------- pandas


def test_a_dataframe_column_gives_a_series_with_its_index_and_name():
    vec = vectorize(income_tax)
    incomes = [0.0, 12570.0, 12570.5, 30000.0, 50270.0, 125140.0, 200000.0, -0.0, math.inf, math.nan]
    df = pd.DataFrame({"income": incomes}, index=[f"hh{i}" for i in range(len(incomes))])
    got = vec(df["income"], 12570.0)
    assert type(got) is pd.Series
    assert got.index.equals(df.index) and got.name == "income" and got.dtype == np.float64
    assert_lanes(got, income_tax, incomes, [12570.0] * len(incomes))


@pytest.mark.parametrize("dtype, edges", [("float64", FLOAT_EDGES), ("int64", INT_EDGES), ("bool", BOOL_EDGES)])
def test_series_of_every_numeric_dtype_match_cpython(dtype, edges):
    vec = vectorize(heating_degree_days)
    s = pd.Series(np.array(edges, dtype=dtype), index=pd.RangeIndex(10, 10 + len(edges)), name="t")
    got = vec(s, 15.5)
    assert got.index.equals(s.index) and got.name == "t"
    assert_lanes(got, heating_degree_days, s.tolist(), [15.5] * len(s))


def test_int_series_stay_ints():
    vec = vectorize(child_units)
    adults = pd.Series([0, 1, 2, 2, 3, -1], name="adults")
    children = pd.Series([0, 3, 1, 4, 7, 2], name="children")
    got = vec(adults, children)
    assert got.dtype == np.int64
    assert got.name is None  # pandas names a result only when the names agree
    assert_lanes(got, child_units, adults.tolist(), children.tolist())
    assert vec(adults, children.rename("adults")).name == "adults"


def test_series_mixed_with_numpy_arrays_lists_and_numbers():
    vec = vectorize(income_tax)
    s = pd.Series([10000.0, 40000.0, 150000.0], index=["x", "y", "z"])
    allowance = np.array([12570.0, 0.0, 12570.0])
    for other in (allowance, allowance.tolist(), 12570.0, 12570):
        got = vec(s, other)
        assert type(got) is pd.Series and got.index.equals(s.index)
        column = np.broadcast_to(np.asarray(other, dtype=float), (3,)).tolist()
        assert_lanes(got, income_tax, s.tolist(), column)


def test_a_tuple_result_is_a_tuple_of_series_that_share_no_memory_with_the_argument():
    vec = vectorize(net_and_tax)
    s = pd.Series([-5.0, 0.0, 100.0, 2500.0], index=list("abcd"), name="income")
    net, tax = vec(s, 0.25)
    for got, position in ((net, 0), (tax, 1)):
        assert type(got) is pd.Series and got.index.equals(s.index) and got.name == "income"
        assert_lanes(got, lambda i, r: net_and_tax(i, r)[position], s.tolist(), [0.25] * 4)
    itself = vectorize(income_and_double)(s)[0]  # the generated code returns the argument's array
    itself.iloc[0] = 99.0
    assert s.iloc[0] == -5.0


def test_series_with_different_indexes_are_refused_naming_both():
    vec = vectorize(child_units)
    a = pd.Series([1, 2, 3], index=[0, 1, 2])
    b = pd.Series([1, 2, 3], index=[1, 2, 3])
    with pytest.raises(ValueError, match=r"`adults` and `children` have different indexes.*adults.align\(children\)"):
        vec(a, b)
    with pytest.raises(ValueError, match="different indexes"):  # the same labels in another order
        vec(a, a[::-1])
    aligned_a, aligned_b = a.astype(float).align(b.astype(float))  # as the message advises: pandas' labels
    got = vectorize(heating_degree_days)(aligned_a, aligned_b)
    assert got.index.equals((a + b).index)
    assert_lanes(got, heating_degree_days, aligned_a.tolist(), aligned_b.tolist())


def test_dataframes_extension_dtypes_and_two_dimensional_results_are_refused():
    vec = vectorize(heating_degree_days)
    df = pd.DataFrame({"t": [1.0, 2.0]})
    with pytest.raises(TypeError, match=r"argument `t_mean` is a pandas DataFrame; pass its columns"):
        vec(df, 15.0)
    with pytest.raises(TypeError, match=r"argument `t_mean` is a pandas Series of dtype Int64.*na_value"):
        vec(pd.Series([1, None], dtype="Int64"), 15.0)
    with pytest.raises(ValueError, match=r"shape \(2, 2\), which a pandas Series of 2"):
        vec(df["t"], np.ones((2, 2)))
    with pytest.raises(TypeError, match="a pandas object and an xarray object"):
        vec(df["t"], xr.DataArray([1.0, 2.0]))


def test_the_element_loop_of_fallback_true_takes_series_too():
    @vectorize(fallback=True)
    def rounded_label(x):
        return float(f"{x:.1f}")  # an f-string with a format spec: compiled as an element loop

    s = pd.Series([1.25, -3.5, math.pi], index=[5, 6, 7], name="x")
    got = rounded_label(s)
    assert type(got) is pd.Series and got.index.equals(s.index) and got.name == "x"
    assert_lanes(got, rounded_label._vectorized_original, s.tolist())


# --------------------------------------------------------------------------- xarray


def _temperatures(chunks=None):
    t = np.array([[-20.0, -5.0, 0.0], [5.0, 11.0, -0.0], [math.nan, -40.0, 10.0], [2.5, 9.9, -15.0]])
    data = t if chunks is None else da.from_array(t, chunks=chunks)
    return xr.DataArray(
        data,
        dims=("time", "site"),
        coords={"time": pd.date_range("2026-01-01", periods=4), "site": ["a", "b", "c"], "elevation": ("site", [10, 200, 35])},
        attrs={"units": "degC", "long_name": "air temperature"},
        name="t",
    )


@pytest.mark.parametrize("chunks", [None, (2, 2)], ids=["numpy", "dask"])
def test_a_data_array_keeps_dims_coords_and_attrs(chunks):
    vec = vectorize(wind_chill)
    t = _temperatures(chunks)
    wind = xr.DataArray([3.0, 20.0, 45.5], dims="site", coords={"site": ["a", "b", "c"]}, name="v")
    got = vec(t, wind)
    expected = np.arctan2(t, wind)  # what a NumPy ufunc of two arguments gives on them
    assert type(got) is xr.DataArray
    assert got.dims == expected.dims and got.attrs == expected.attrs == t.attrs and got.name == expected.name
    assert set(got.coords) == set(expected.coords) == {"time", "site", "elevation"}
    for name in got.coords:
        assert got.coords[name].equals(expected.coords[name])
    if chunks is not None:
        assert isinstance(got.data, da.Array)  # still lazy
    t_lanes, v_lanes = (x.ravel().tolist() for x in np.broadcast_arrays(t.values, wind.values[None, :]))
    assert_lanes(got.values, wind_chill, t_lanes, v_lanes, ulps=4)


@pytest.mark.parametrize("chunks", [None, 2], ids=["numpy", "dask"])
def test_data_arrays_broadcast_by_dimension_name_and_align_as_xarray_does(chunks):
    vec = vectorize(heating_degree_days)
    t = xr.DataArray([1.0, 20.0, -3.0, 15.5], dims="day", coords={"day": [1, 2, 3, 4]})
    base = xr.DataArray([15.5, 18.0], dims="scheme", coords={"scheme": ["uk", "us"]})
    if chunks is not None:
        t = t.chunk({"day": chunks})
    got = vec(t, base)
    assert got.dims == ("day", "scheme")
    tt, bb = xr.broadcast(t, base)
    assert_lanes(got.values, heating_degree_days, tt.values.ravel().tolist(), bb.values.ravel().tolist())
    # Coordinates that differ: aligned by xarray's arithmetic_join ("inner" by default), as `t + other` is.
    other = xr.DataArray([15.0, 16.0, 17.0], dims="day", coords={"day": [3, 4, 5]})
    got = vec(t, other)
    assert got.day.values.tolist() == (t + other).day.values.tolist() == [3, 4]
    assert_lanes(got.values, heating_degree_days, [-3.0, 15.5], [15.0, 16.0])


def test_a_tuple_result_is_a_tuple_of_data_arrays():
    vec = vectorize(net_and_tax)
    income = xr.DataArray([-1.0, 0.0, 300.0], dims="person", coords={"person": [7, 8, 9]}, attrs={"units": "EUR"})
    for arg in (income, income.chunk({"person": 2})):
        net, tax = vec(arg, 0.3)
        for got, position in ((net, 0), (tax, 1)):
            assert type(got) is xr.DataArray and got.dims == ("person",) and got.attrs == {"units": "EUR"}
            assert got.person.values.tolist() == [7, 8, 9]
            assert_lanes(got.values, lambda i, r: net_and_tax(i, r)[position], [-1.0, 0.0, 300.0], [0.3] * 3)


def test_keep_attrs_false_drops_them_and_a_dataset_is_refused():
    vec = vectorize(heating_degree_days)
    t = _temperatures()
    with xr.set_options(keep_attrs=False):
        assert vec(t, 15.5).attrs == {}
    with pytest.raises(TypeError, match=r"argument `t_mean` is a Dataset; pass its variables"):
        vec(t.to_dataset(), 15.5)
