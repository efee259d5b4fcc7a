"""What a user reads when a function cannot be compiled: the problems at their own code (a call
of another library's function is one problem at the call, with `fallback="calls"` named, D23), advice that
holds, and a traceback that ends at their `@vectorize` line with the class as the package names it."""

from __future__ import annotations

import pickle
import statistics
import subprocess
import sys
import textwrap

import numpy as np
import pytest

from array_vectorize import VectorizationError, vectorize
from oracle import FLOAT_EDGES, same
from sourcefile import from_source


def rejected(source: str, glob: dict | None = None) -> tuple[VectorizationError, str]:
    fn = from_source(textwrap.dedent(source), glob)
    with pytest.raises(VectorizationError) as info:
        vectorize(fn)
    return info.value, fn.__code__.co_filename


STATS_CALL = """\
    import statistics

    def mean_of_pair(x):
        return statistics.fmean([x, 2.0 * x])
"""


def test_another_library_s_function_is_one_problem_at_the_call_naming_fallback():
    error, path = rejected(STATS_CALL)
    assert all(d["path"] == path for d in error.diagnostics), [d["path"] for d in error.diagnostics]
    (call,) = [d for d in error.diagnostics if "statistics.fmean" in d["message"]]
    assert (call["line"], call["col"]) == (4, 12)
    assert f"a function of another library ({statistics.__file__}:" in call["message"]
    assert "nonlocal" in call["message"] and "more problem" in call["message"]
    assert 'with `@vectorize(fallback="calls")` what cannot be vectorized runs element by element' in call["message"]
    assert statistics.__file__ not in str(error).replace(call["message"], "")


@pytest.mark.parametrize("fallback", ["calls", True])
def test_the_advised_fallback_gives_cpython_s_values(fallback):
    fn = from_source(textwrap.dedent(STATS_CALL))
    vec = vectorize(fn, fallback=fallback)
    x = np.array(FLOAT_EDGES[:19] + [3.25, -7.5])
    got = vec(x).tolist()
    for xi, g in zip(x.tolist(), got):
        assert same(g, fn(xi)), (xi, g, fn(xi))


def test_a_helper_of_the_user_s_own_still_shows_its_problems_where_they_are():
    helper = from_source("def _scaled(v):\n    global LAST\n    LAST = v\n    return v * 2.0\n", name="_scaled")
    error, path = rejected("def twice(x):\n    return _scaled(x) + 1.0\n", {"_scaled": helper})
    assert [(d["path"], d["line"], d["code"]) for d in error.diagnostics] == [(helper.__code__.co_filename, 2, "nonlocal-write")]


@pytest.mark.parametrize(
    "source, fragments",
    [
        (
            # D18 compiles `append` in a constant loop; under a per-element `if` the length would
            # depend on the elements, and the advice stands.
            "def moving_sum(x):\n    vals = []\n    for k in range(3):\n        if x > k:\n            vals.append(x * k)\n    return vals[0]\n",
            ["cannot call `vals.append`: `vals` is a variable of the function", "`total = total + v` in the loop", "`sum(...)`"],
        ),
        (
            "def whole_hours(minutes):\n    hours = minutes / 60.0\n    return 1.0 if hours.is_integer() else 0.0\n",
            ["cannot call `hours.is_integer`: `hours` is a variable of the function, and the methods of values cannot be vectorized"],
        ),
    ],
)
def test_a_method_call_says_what_can_be_called_and_how_to_collect_values(source, fragments):
    error, _ = rejected(source)
    text = str(error)
    for fragment in fragments:
        assert fragment in text
    assert "only functions of the `math` module" not in text
    assert "NumPy, `bisect`, a module alias or a class used as a namespace" in text


def test_the_suggested_rewrite_compiles_and_matches_cpython():
    fn = from_source("def moving_sum(x):\n    return sum(x * k for k in range(3))\n")
    vec = vectorize(fn)
    x = np.array(FLOAT_EDGES)
    for xi, g in zip(x.tolist(), vec(x).tolist()):
        assert same(g, fn(xi)), (xi, g)


def test_the_class_is_named_as_the_package_exports_it_and_pickles():
    error, _ = rejected("def f(x):\n    print(x)\n    return x\n")
    assert type(error) is VectorizationError
    assert f"{type(error).__module__}.{type(error).__qualname__}" == "array_vectorize.VectorizationError"
    again = pickle.loads(pickle.dumps(error))
    assert type(again) is VectorizationError and str(again) == str(error)


@pytest.mark.parametrize("decorator", ["@vectorize", "@vectorize(protect_domains=True)"])
def test_the_traceback_ends_at_the_user_s_decorator(tmp_path, decorator):
    script = tmp_path / "model.py"
    script.write_text(
        f"from array_vectorize import vectorize\n\n\n{decorator}\ndef clipped(x):\n    print(x)\n    return min(x, 1.0)\n"
    )
    res = subprocess.run([sys.executable, str(script)], capture_output=True, text=True)
    assert res.returncode == 1
    lines = res.stderr.splitlines()
    frames = [line.strip() for line in lines if line.lstrip().startswith('File "')]
    assert frames[0] == f'File "{script}", line 4, in <module>'
    # The only frame of array_vectorize is the decorator the user called, which raises.
    assert len(frames) == 2 and "array_vectorize" in frames[1] and frames[1].endswith(("in vectorize", "in decorator"))
    assert "During handling" not in res.stderr and "_core" not in res.stderr
    assert any(line.startswith("array_vectorize.VectorizationError: cannot vectorize: 1 problem") for line in lines)
    assert f"{script}:6:5: print() has side effects" in res.stderr
