"""The generated function is plain, inspectable Python (reference: test_inspectability)."""

from __future__ import annotations

import ast
import inspect
import subprocess
import sys
import textwrap
import traceback

import numpy as np
import pytest

from array_vectorize import vectorize
from sourcefile import from_source


def documented(x, y=2.0, *, scale=1.0):
    """Scale the positive part.

    Longer description.
    """
    if x > 0.0:
        return x * scale + y
    return 0.0


def numpy_documented(x):
    """Clip at zero.

    Parameters
    ----------
    x : float
        Input.
    """
    return x if x > 0.0 else 0.0


def test_source_and_getsource():
    vec = vectorize(documented)
    assert vec.source.startswith("def documented(x, y, *, scale):")
    assert inspect.getsource(vec) in vec.source
    ast.parse(vec.source)  # re-parses
    # D9: no NumPy in generated code.
    assert "np." not in vec.source and "numpy" not in vec.source


def positional_only(a, /, b, *, c=1.0) -> float:
    return a + b * c


def test_positional_only_and_annotations_are_kept():
    vec = vectorize(positional_only)
    assert inspect.signature(vec) == inspect.signature(positional_only)
    assert vec.source.startswith("def positional_only(a, /, b, *, c):")
    with pytest.raises(TypeError):
        vec(a=1.0, b=2.0)
    assert float(vec(1.0, 2.0)) == 3.0


def test_metadata_and_signature():
    vec = vectorize(documented)
    assert vec.__name__ == "documented"
    assert vec.__qualname__ == "documented"
    assert vec.__module__ == documented.__module__
    assert inspect.signature(vec) == inspect.signature(documented)
    assert not hasattr(vec, "__wrapped__")
    assert vec._vectorized_original is documented


def test_defaults_and_keywords_work():
    vec = vectorize(documented)
    x = np.array([1.0, -1.0])
    np.testing.assert_array_equal(vec(x), [3.0, 0.0])
    np.testing.assert_array_equal(vec(x, 1.0, scale=2.0), [3.0, 0.0])
    np.testing.assert_array_equal(vec(x=x, y=0.0), [1.0, 0.0])


def test_google_docstring():
    doc = vectorize(documented).__doc__
    assert doc.startswith("(array-vectorized) Scale the positive part.")
    assert "Longer description." in doc
    assert "Notes:" in doc and "def documented(x, y=2.0, *, scale=1.0):" in doc


def test_numpy_docstring():
    doc = vectorize(numpy_documented).__doc__
    assert doc.startswith("(array-vectorized) Clip at zero.")
    assert "Notes\n-----" in doc
    assert "def numpy_documented(x):" in doc


def test_scalar_source_is_recoverable_from_the_docstring():
    doc = vectorize(documented).__doc__
    notes = doc.split("Vectorized from this scalar source::\n\n", 1)[1]
    assert textwrap.dedent(notes).strip() == textwrap.dedent(inspect.getsource(documented)).strip()


def test_traceback_shows_generated_lines():
    fn = from_source("def f(x, y):\n    return x + y\n")
    vec = vectorize(fn)
    with pytest.raises(Exception) as info:
        vec(np.zeros(3), np.zeros(4))  # shapes do not broadcast
    text = "".join(traceback.format_exception(info.value))
    assert "<array-vectorize f " in text
    assert "return x + y" in text


@pytest.mark.parametrize(
    "dtype, line",
    [
        # uint64 arguments take the exact body's helpers (the uint64 lattice).
        (np.uint64, 'return _vec_result(xp, _vec_binary(xp, "add", x, y))'),
        # int64 arguments take the int body (issue 30), whose `+` is the library's own.
        (np.int64, "return x + y"),
    ],
)
def test_traceback_through_the_exact_body_shows_its_lines(dtype, line):
    fn = from_source("def g(x, y):\n    return x + y\n")
    vec = vectorize(fn)
    with pytest.raises(Exception) as info:
        vec(np.zeros(3, dtype=dtype), np.zeros(4, dtype=dtype))  # shapes that do not broadcast
    frames = [f for f in traceback.extract_tb(info.value.__traceback__) if f.filename.startswith("<array-vectorize")]
    assert frames[-1].name == "_vec_exact_g"
    assert frames[-1].line == line


def test_the_core_returns_the_module_in_two_parts():
    """emit compiles the entry and the exact body apart from the texts the core returns for each,
    never by splitting the module's printed text."""
    from array_vectorize import _core

    text = "from array_vectorize import vectorize\n\n@vectorize\ndef h(x, *, k):\n    return x * k\n"
    (static,) = _core.compile_module(text, "m.py")
    live = _core.compile_function("def h(x, *, k):\n    return x * k\n", "m.py", 4, "h", {})
    for compiled in (static, live):
        assert compiled["source"] == compiled["fast_source"] + compiled["exact_source"]
        assert compiled["exact_entry"] == "_vec_exact_h"
        fast = ast.parse(compiled["fast_source"]).body
        exact = ast.parse(compiled["exact_source"]).body
        assert [f.name for f in fast] == ["h"] and [f.name for f in exact] == ["_vec_exact_h"]
    assert static["source"] == live["source"]


def test_generating_twice_gives_the_same_text():
    a = vectorize(documented, protect_domains=True).source
    b = vectorize(documented, protect_domains=True).source
    assert a == b


def test_show_command(tmp_path):
    module = tmp_path / "mod.py"
    module.write_text("import math\n\ndef f(x):\n    return math.sqrt(x) if x > 0.0 else 0.0\n")
    out = subprocess.run([sys.executable, "-m", "array_vectorize", "show", f"{module}:f"], capture_output=True, text=True, check=True)
    assert out.stdout.startswith("def f(x):")
    assert "xp.sqrt(x)" in out.stdout
    bad = tmp_path / "bad.py"
    bad.write_text("def g(x):\n    with open('rates.txt') as table:\n        x = x - 1\n    return x\n")
    res = subprocess.run([sys.executable, "-m", "array_vectorize", "show", f"{bad}:g"], capture_output=True, text=True)
    assert res.returncode == 1
    assert f"{bad}:2:5:" in res.stderr


def test_show_command_mistakes_are_one_line_errors(tmp_path):
    module = tmp_path / "tax.py"
    module.write_text("def income_tax(income):\n    return 0.2 * income if income > 12570.0 else 0.0\n")

    def show(target):
        res = subprocess.run([sys.executable, "-m", "array_vectorize", "show", target], capture_output=True, text=True)
        return res.returncode, res.stderr

    code, err = show(f"{module}:income_taxx")
    assert (code, err) == (2, f"{module}: no function income_taxx; did you mean 'income_tax'?\n")
    code, err = show(f"{tmp_path / 'nope.py'}:income_tax")
    assert (code, err) == (2, f"{tmp_path / 'nope.py'}: no such file or directory\n")


def test_debug_switch_dumps_the_ir_after_each_pass(tmp_path):
    module = tmp_path / "m.py"
    module.write_text("from array_vectorize import vectorize\n\n@vectorize\ndef f(x):\n    return x * 2.0 + 1.0\n")
    env = dict(__import__("os").environ, ARRAY_VECTORIZE_DEBUG="ir")
    out = subprocess.run([sys.executable, str(module)], capture_output=True, text=True, env=env, check=True)
    for stage in ("lower", "fold", "cse", "dce", "float kinds"):
        assert f"--- f after {stage} ---" in out.stderr
    assert "fn f(x) {" in out.stderr and "mul %0" in out.stderr
