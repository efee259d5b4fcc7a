"""What README.md says about calls and the generated source, checked: its first example runs and
gives the results its comments show, a call with Python numbers only returns NumPy's 0-d values
(the documented choice), and `inspect.getsource` gives the entry function of `vec.source`."""

from __future__ import annotations

import inspect
import math
import re
from pathlib import Path

import array_api_strict
import numpy as np
import pytest

from array_vectorize import vectorize
from oracle import FLOAT_EDGES
from sourcefile import from_source

README = Path(__file__).resolve().parents[2] / "README.md"


def _first_python_block() -> str:
    return re.search(r"^```python\n(.*?)^```", README.read_text(), re.S | re.M).group(1)


def test_first_example_gives_what_its_comments_show():
    lines = _first_python_block().splitlines()
    split = (line.partition("   # ") for line in lines)
    shown = [(code.strip(), comment.strip()) for code, _, comment in split if comment.startswith("array(")]
    # The array call, the call with Python numbers only, whose 0-d result is documented, and a list.
    assert [code.split("(")[0] for code, _ in shown] == ["soft_threshold"] * 3
    assert any(re.fullmatch(r"soft_threshold\([\d.]+, [\d.]+\)", code) for code, _ in shown)
    assert any(code.startswith("soft_threshold([") for code, _ in shown)
    # Run from a file, as a reader's script would be (the decorator reads the function's source).
    program = "\n".join(line for line in lines if not line.startswith("print("))
    program += "\n\ndef _namespace():\n    return globals()\n"
    namespace = from_source(program, name="_namespace")()
    for code, comment in shown:
        expected = comment[: comment.index(")") + 1]
        got = repr(eval(code, namespace))  # noqa: S307
        assert got.replace(" ", "") == expected.replace(" ", ""), (code, got)


def premium(spot, strike):
    if spot > strike:
        return spot - strike
    return 0.0


def units(count, size):
    return count * size + 1


def flag(x, y):
    return x > y


@pytest.mark.parametrize(
    "fn, args, dtype",
    [
        (premium, (105.5, 100.0), np.float64),
        (premium, (-0.0, 0.0), np.float64),
        (units, (3, 7), np.int64),
        (units, (True, 2), np.int64),
        (flag, (1.0, 2), np.bool_),
    ],
)
def test_python_numbers_only_give_a_0d_numpy_array(fn, args, dtype):
    got = vectorize(fn)(*args)
    assert type(got) is np.ndarray and got.ndim == 0 and got.dtype == dtype
    expected = fn(*args)
    assert got.item() == expected and type(got.item()) is type(expected)
    if isinstance(expected, float):
        assert math.copysign(1.0, got.item()) == math.copysign(1.0, expected)
    # It works as the number it holds.
    assert float(got) == float(expected) and f"{got:.3f}" == f"{expected:.3f}"


def premium_and_tax(spot, strike):
    gain = spot - strike if spot > strike else 0.0
    return gain, gain * 0.2


def scaled(x):
    return x * 0.2


def test_python_numbers_give_numpy_s_0d_values_never_python_numbers():
    # What README.md's "Calls" says: `xp.where` makes a 0-d array, arithmetic a NumPy scalar, and
    # a tuple result a tuple of them.
    got = vectorize(scaled)(2.5)
    assert type(got) is np.float64 and got == 0.5 and got.shape == ()
    got = vectorize(premium_and_tax)(105.5, 100.0)
    assert type(got) is tuple and [type(g) for g in got] == [np.ndarray, np.float64]
    assert [g.shape for g in got] == [(), ()]
    assert tuple(g.item() for g in got) == premium_and_tax(105.5, 100.0)


def test_every_edge_value_gives_a_0d_array_equal_to_cpython():
    vec = vectorize(premium)
    for spot in FLOAT_EDGES:
        got = vec(spot, 1.0)
        assert got.shape == ()
        expected = premium(spot, 1.0)
        assert got.item() == expected or (math.isnan(got.item()) and math.isnan(expected))


def test_a_pinned_namespace_gives_its_own_0d_array():
    got = vectorize(premium, namespace=array_api_strict)(105.5, 100.0)
    assert got.shape == () and float(got) == 5.5
    assert type(got).__module__.startswith("array_api_strict")


def test_getsource_is_the_entry_function_of_the_generated_module():
    vec = vectorize(premium)
    entry = inspect.getsource(vec)
    assert vec.source.startswith(entry)
    assert entry.startswith("def premium(spot, strike):")
    rest = vec.source[len(entry) :]
    assert rest.lstrip("\n").startswith("def _vec_exact_premium(spot, strike):")
    assert "_vec_exact_premium(" in entry  # the entry calls the exact body for other kinds
