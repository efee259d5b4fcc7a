"""Rejections (D4, D5, D10): every unsupported construct raises VectorizationError at decoration
time, all at once, each as `path:line:col: message` with the source line and a caret."""

from __future__ import annotations

import textwrap

import pytest

from array_vectorize import VectorizationError, vectorize
from sourcefile import from_source


def diagnostics_of(source: str, glob: dict | None = None, at_first_call: bool = False):
    """The VectorizationError of `source`'s function at decoration; `at_first_call`: at its first
    call, since it reads names bound nowhere yet, which decoration leaves to CPython's time of
    looking them up (issue 31, hook_py/array_vectorize/first_call.py)."""
    fn = from_source(textwrap.dedent(source), glob)
    with pytest.raises(VectorizationError) as info:
        vec = vectorize(fn)
        assert at_first_call, "decoration succeeded"
        assert "Not compiled yet" in vec.source
        vec(*[1.0] * fn.__code__.co_argcount)
    return info.value, fn.__code__.co_filename


REJECTIONS = [
    # (source, code, line, col, message fragment); line/col are 1-based in the file.
    ("def f(x, n):\n    for i in range(0, 9, n):\n        x = x + 1\n    return x\n", "dynamic-range", 2, 26, "step of range() must be known"),
    ("def f(x):\n    try:\n        y = 1 / x\n    finally:\n        return 0.0\n", "unsupported-statement", 5, 9, "inside `finally` are not supported"),
    ("def f(x):\n    return [x * i for i in range(3) if x > i][0]\n", "unsupported-expression", 2, 12, "whose `if` depends on the elements"),
    ("def f(x):\n    return x if x > 0 else 'neg'\n", "unsupported-expression", 2, 28, "strings are not supported"),
    ("def f(x):\n    return undefined_function(x)\n", "unknown-call", 2, 12, "cannot call `undefined_function`: name is not defined"),
    ("def f(x):\n    def g(t):\n        return g(t - 1.0) if t > 0.0 else t\n    return g(x)\n", "recursion", 3, 16, "calls itself deeper than"),
    ("def f(x):\n    global G\n    G = x\n    return x\n", "nonlocal-write", 2, 5, "`global` and `nonlocal`"),
    ("def f(x):\n    print(x)\n    return x\n", "side-effect", 2, 5, "side effects"),
    ("def f(x, *xs):\n    return 1.0\n", "unsupported-signature", 1, 11, "`*args`"),
    ("def f(x):\n    return x @ x\n", "unsupported-operator", 2, 12, "`@`"),
    ("def f(x):\n    return (x + 1.0) is (x + 2.0)\n", "unsupported-operator", 2, 12, "`is`"),
    ("def f(x):\n    return sorted(x)\n", "unknown-call", 2, 12, "cannot vectorize a call of `sorted`"),
    ("def f(x):\n    return math.factorial(x)\n", "unknown-call", 2, 12, "no Array API counterpart"),
    ("def f(x):\n    return math.sqrtt(x)\n", "unknown-call", 2, 12, "`math` has no function `sqrtt`; did you mean `math.sqrt`?"),
    ("def f(x):\n    return x * math.pii\n", "unsupported-expression", 2, 16, "`math` has no attribute `pii`; did you mean `math.pi`?"),
    ("def f(x):\n    def g(t):\n        return h(t)\n    return g(x)\n", "unknown-call", 3, 16, "cannot call `h`: name is not defined"),
    ("def f(x):\n    nonlocal_thing = {x}\n    return x\n", "unsupported-expression", 2, 22, "a set is supported only"),
    ("def f(x):\n    return x + 100000000000000000000000\n", "value-out-of-range", 2, 16, "64-bit"),
]


@pytest.mark.parametrize("source,code,line,col,fragment", REJECTIONS, ids=[r[1] + f"-{i}" for i, r in enumerate(REJECTIONS)])
def test_rejection_is_positioned(source, code, line, col, fragment):
    import math

    err, path = diagnostics_of(source, {"math": math}, at_first_call="not defined" in fragment)
    matching = [d for d in err.diagnostics if d["code"] == code]
    assert matching, f"no {code} diagnostic in {err.diagnostics}"
    d = matching[0]
    assert (d["path"], d["line"], d["col"]) == (path, line, col)
    assert fragment in d["message"]
    # The rendered text: position, message, the source line, and a caret under the column.
    first, src_line, caret = d["text"].split("\n")
    assert first == f"{path}:{line}:{col}: {d['message']}"
    assert src_line.strip() == source.splitlines()[line - 1].strip()
    assert caret.index("^") - 4 == col - 1
    assert d["text"] in str(err)


def test_every_violation_is_reported_at_once():
    err, path = diagnostics_of(
        """\
        def f(x, n):
            if x > 0:
                print(x)
            global G
            for i in range(0, 9, n):
                pass
            return foo(x) + "s"
        """
    )
    codes = [d["code"] for d in err.diagnostics]
    assert codes == ["side-effect", "nonlocal-write", "dynamic-range", "unknown-call", "unsupported-expression"]
    lines = [d["line"] for d in err.diagnostics]
    assert lines == sorted(lines)
    assert str(err).startswith("cannot vectorize: 5 problems")


def test_errors_in_helpers_point_into_the_helper():
    helper = from_source("def helper(t):\n    global G\n    t = t - 1\n    return t\n")
    err, path = diagnostics_of("def f(x):\n    return helper(x)\n", {"helper": helper})
    (d,) = err.diagnostics
    assert d["code"] == "nonlocal-write"
    assert d["path"] == helper.__code__.co_filename
    assert (d["line"], d["col"]) == (2, 5)


def test_methods_and_nested_functions_keep_file_columns():
    fn = from_source(
        "class C:\n    @staticmethod\n    def m(x):\n        global G\n        x = x - 1\n        return x\n", name="C"
    ).m
    with pytest.raises(VectorizationError) as info:
        vectorize(fn)
    d = info.value.diagnostics[0]
    assert (d["line"], d["col"]) == (4, 9)


def test_deep_nesting_is_a_clear_error_not_a_crash():
    source = "def f(x):\n    return " + "(" * 150 + "x" + ")" * 150 + "\n"
    err, _ = diagnostics_of(source)
    assert err.diagnostics[0]["code"] == "too-complex"


def test_huge_expression_chain_is_handled():
    source = "def f(x):\n    return x" + " + x" * 500 + "\n"
    fn = from_source(source)
    vec = vectorize(fn)
    assert float(vec(1.0)) == 501.0


def test_oversized_statement_is_a_clear_error():
    source = "def f(x):\n    return x" + " + x" * 1500 + "\n"
    import array_vectorize._core as core

    with pytest.raises(VectorizationError) as info:
        core.compile_function(source, "big.py", 1, "f", {}, {})
    assert info.value.diagnostics[0]["code"] == "too-complex"
    assert "split it" in info.value.diagnostics[0]["message"]


def test_non_function_is_a_type_error():
    with pytest.raises(TypeError):
        vectorize(print)


def test_decision_codes_link_to_the_decisions_page():
    """D-codes in messages point at docs/decisions.md, where every cited code has an anchor."""
    import pathlib
    import re

    err, _ = diagnostics_of("def f(x):\n    if x > 1:\n        return x, 1.0\n    for i in range(0, 9, x):\n        x = x - 1\n    return x\n")
    messages = [d["message"] for d in err.diagnostics]
    assert any("(D13: docs/decisions.md#d13)" in m for m in messages), messages
    assert any("(D6: docs/decisions.md#d6)" in m for m in messages), messages
    page = (pathlib.Path(__file__).resolve().parents[3] / "docs" / "decisions.md").read_text()
    anchors = set(re.findall(r'<a id="(d\d+)"></a>', page))
    assert {f"d{n}" for n in range(1, 24)} <= anchors
    for message in messages:
        for anchor in re.findall(r"docs/decisions\.md#(d\d+)", message):
            assert anchor in anchors
