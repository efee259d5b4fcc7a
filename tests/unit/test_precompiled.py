"""The check of a static compile's assumptions against the live function (precompiled.py): what
decides between running cached code and compiling live (DESIGN.md section 4). Every binding
kind, with the values where ``==`` and "the same constant" part ways."""

from __future__ import annotations

import math
import sys

import numpy as np
import pytest

from array_vectorize import precompiled

NAN = float("nan")


#: (live value, frozen constant, whether they are the same constant).
SAME_CONST = [
    (2.0, 2.0, True),
    (2.5, 2.0, False),
    (np.float64(2.0), 2.0, False),  # a float subclass for a float
    (3, 2, False),
    ("a", "b", False),
    (0.0, 0.0, True),
    (-0.0, -0.0, True),
    (0.0, -0.0, False),  # equal under ==, not the same constant
    (-0.0, 0.0, False),
    (NAN, NAN, True),
    (float("nan"), NAN, True),  # another NaN object
    (NAN, 1.0, False),
    (1.0, NAN, False),
    (math.inf, math.inf, True),
    (-math.inf, math.inf, False),
    (1, 1.0, False),  # int for float
    (True, 1, False),  # bool for int
    (1, True, False),
    (2**70, 2**70, True),
    ("a", "a", True),
    (None, None, True),
    ((1.0, -0.0), (1.0, -0.0), True),
    ((1.0, 0.0), (1.0, -0.0), False),
    ((NAN, 2), (float("nan"), 2), True),
    ((1.0, (2, -0.0)), (1.0, (2, 0.0)), False),
    ((1.0,), (1.0, 2.0), False),
    ([1.0], (1.0,), False),
]


@pytest.mark.parametrize(("live", "frozen", "same"), SAME_CONST)
def test_same_const(live, frozen, same):
    assert precompiled._same_const(live, frozen) is same


@pytest.mark.parametrize(("live", "frozen", "same"), SAME_CONST)
def test_a_constant_assumption_holds_for_the_same_constant_only(live, frozen, same):
    # check_assumptions answers the common constants (an int, a str, a nonzero float) without
    # calling _same_const: the same answers, -0.0, NaN, subclasses and tables included.
    fn = _function({"K": live}, "return x + K")
    assert precompiled.check_assumptions(fn, [("K", ("const", frozen))]) is same


def _function(globals_: dict, body: str = "return x"):
    namespace = dict(globals_)
    exec(f"def f(x):\n    {body}\n", namespace)  # noqa: S102 - a test function with chosen globals
    return namespace["f"]


def helper(v):
    return v


@pytest.mark.parametrize(
    ("globals_", "assumptions", "holds"),
    [
        ({"K": 2.0}, [("K", ("const", 2.0))], True),
        ({"K": 3.0}, [("K", ("const", 2.0))], False),
        ({"K": -0.0}, [("K", ("const", 0.0))], False),
        ({}, [("K", ("const", 2.0))], False),  # gone
        ({}, [("abs", ("builtin", "abs"))], True),
        ({"abs": abs}, [("abs", ("builtin", "abs"))], True),
        ({"abs": lambda v: v}, [("abs", ("builtin", "abs"))], False),  # shadowed
        ({"abs": min}, [("abs", ("builtin", "abs"))], False),  # another builtin
        ({}, [("nonexistent_builtin", ("builtin", "nonexistent_builtin"))], False),
        ({"math": math}, [("math", ("math",))], True),
        ({"math": pytest}, [("math", ("math",))], False),
        ({"np": np}, [("np", ("numpy",))], True),
        ({"np": math}, [("np", ("numpy",))], False),  # D16: only NumPy itself
        ({}, [("np", ("numpy",))], False),
        ({"sqrt": math.sqrt}, [("sqrt", ("math_member", "sqrt"))], True),
        ({"sqrt": math.exp}, [("sqrt", ("math_member", "sqrt"))], False),
        ({"K": 2.0}, [("K", ("no-such-kind", 2.0))], False),  # unknown: never trusted
        ({"K": 2.0, "math": math}, [("K", ("const", 2.0)), ("math", ("math",))], True),
        ({"K": 2.0, "math": pytest}, [("K", ("const", 2.0)), ("math", ("math",))], False),
    ],
)
def test_assumptions_hold(globals_, assumptions, holds):
    assert precompiled.assumptions_hold(_function(globals_), assumptions) is holds


def test_helper_functions_are_matched_by_name_line_and_file():
    line = helper.__code__.co_firstlineno
    fn = _function({"helper": helper})
    fn.__code__ = fn.__code__.replace(co_filename=helper.__code__.co_filename)
    assert precompiled.assumptions_hold(fn, [("helper", ("function", "helper", line))])
    assert not precompiled.assumptions_hold(fn, [("helper", ("function", "helper", line + 1))])
    assert not precompiled.assumptions_hold(fn, [("helper", ("function", "other", line))])
    # Defined in another file than the function that calls it: not the helper compiled with it.
    assert not precompiled.assumptions_hold(_function({"helper": helper}), [("helper", ("function", "helper", line))])
    # Not a function at all.
    assert not precompiled.assumptions_hold(fn, [("helper", ("function", "print", line))])


def test_a_name_bound_by_a_closure_is_checked_against_its_cell_never_the_global():
    """Issue 31: a function made by a factory is precompiled once per call of the factory, its
    closure values among the assumptions; the check reads the closure cell, whatever a global
    of that name holds."""
    K = 2.0

    def f(x):
        return x * K

    assert precompiled.assumptions_hold(f, [("K", ("const", 2.0))])
    assert not precompiled.assumptions_hold(f, [("K", ("const", 3.0))])
    assert not precompiled.assumptions_hold(f, [("K", ("const", 2))])  # an int is not the float
    glob = {"K": 3.0}
    g = type(f)(f.__code__, glob, "f", None, f.__closure__)
    assert not precompiled.assumptions_hold(g, [("K", ("const", 3.0))])
    assert not precompiled.assumptions_hold(f, [("K.real", ("const", 2.0))])


def test_a_closure_cell_not_filled_yet_waits_for_the_first_call():
    def make():
        def f(x):
            return x * later

        assert precompiled.check_assumptions(f, [("later", ("const", 2.0))]) == ["later"]
        later = 2.0
        return f

    assert precompiled.check_assumptions(make(), [("later", ("const", 2.0))]) is True


def test_names_not_bound_yet_are_told_apart_from_names_bound_otherwise():
    fn = _function({"SCALE": 2.0})
    held = precompiled.check_assumptions(fn, [("SCALE", ("const", 2.0)), ("helper", ("function", "helper", 3))])
    assert held == ["helper"]
    assert precompiled.assumptions_hold(fn, [("SCALE", ("const", 2.0))])
    # A binding that differs decides, whatever else is not bound yet.
    assert precompiled.check_assumptions(fn, [("helper", ("function", "helper", 3)), ("SCALE", ("const", 3.0))]) is False


def test_a_registered_record_comes_back_with_its_origin_and_unchanged():
    """The registry keeps where each record came from beside it (records.Found): the record the
    hook read or made is never changed, and serves one decoration."""

    def rate(x):
        return x * 0.5

    code = rate.__code__
    record = {"qualname": rate.__qualname__, "line": code.co_firstlineno, "status": "ok", "options": {}, "assumptions": []}
    rejected = {"qualname": "other", "line": 1, "status": "error"}
    before = (dict(record), dict(rejected))
    options = {"protect_domains": False, "fallback": False, "optimize": sys.flags.optimize > 0, "nan_on_raise": False}
    precompiled.register(code.co_filename, [record, rejected], "cache", rate.__globals__)
    try:
        found = precompiled.lookup(rate, options)
        assert found == ("cache", record) and found[1] is record
        assert (record, rejected) == before
        assert precompiled.lookup(rate, options) is None  # one use per module execution
    finally:
        precompiled.forget(code.co_filename)
