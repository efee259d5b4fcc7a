"""The fuzzer's D11, D14, D16 and D17 parts (``fuzz/grammar_raise.py``, ``fuzz/grammar_calls.py``,
the oracle's raises and ``try`` bodies, ``nan_on_raise``, uniform arguments, NumPy calls, the
D17 ulp bounds): the generator emits each construct, programs that draw none of them are the
ones their seed gave before, and the checker reports a planted wrong answer of each kind.
"""

from __future__ import annotations

import ast
import math
import random
import re

import numpy as np
import pytest

from array_vectorize.fuzz import check, oracle
from array_vectorize.fuzz.generator import Generator
from array_vectorize.fuzz.inputs import Column, ModuleRef
from array_vectorize.fuzz.wellformed import problems

NEW_FEATURES = frozenset({
    "raise", "assert", "validator", "try", "nan_on_raise", "user_exception", "uniform_dict", "uniform_enum", "uniform_none",
    "uniform_str", "numpy_calls", "special_exact", "special_inexact",
})

#: What each feature writes into the program's text.
EMITS = {
    "raise": r"raise (ValueError|ArithmeticError|ZeroDivisionError|RangeError|NarrowError)\(",
    "assert": r"\n\s+assert ",
    "validator": r"def check\(.*\n(.|\n)*\n    check\(",
    "try": r"try:\n(.|\n)*except \(?(ZeroDivisionError|ValueError|ArithmeticError|OverflowError)",
    "uniform_dict": r'rates\["(low|high)"\]|rates: dict',
    "uniform_enum": r"class Mode\(enum\.Enum\)",
    "uniform_none": r"cap is (not )?None|cap: float \| None",
    "uniform_str": r'label (==|!=) "|label: str',
    # Any spelling of grammar_names.py: `np.`/`xnp.` through the module, or names imported.
    "numpy_calls": r"import numpy as (x?np)(.|\n)*\1\.\w+|from numpy import \w+",
    "special_exact": r"math\.(fmod|remainder|fsum|isclose)\(|round\((float|int)\(",
    "special_inexact": r"return (py)?math\.(erf|erfc|gamma|lgamma)\(-?p\d\)",  # pymath: math_alias
}


def _programs(n: int, **kw):
    for i in range(n):
        rng = random.Random(f"77:{i}")
        yield Generator(rng, **kw).program()


@pytest.mark.parametrize("feature", sorted(EMITS))
def test_the_generator_emits_each_feature(feature):
    hits = [p for p in _programs(300) if feature in p.features]
    assert hits, f"no program with {feature}"
    for p in hits:
        assert re.search(EMITS[feature], p.source), p.source
        assert problems(ast.parse(p.source)) is None, p.source


def test_nan_on_raise_programs_raise_somewhere():
    hits = [p for p in _programs(300) if p.nan_on_raise]
    assert hits
    assert all(re.search(r"raise |assert |try:|check\(", p.source) for p in hits)


def test_user_exception_classes_are_generated_by_default():
    # On by default (the checker compares classes by their MRO's names, oracle.same_class): a
    # class and its subclass, both raised somewhere; off with exclude.
    used = [p for p in _programs(300) if "user_exception" in p.features]
    assert used and all("class NarrowError(RangeError):" in p.source for p in used)
    assert any("raise RangeError(" in p.source for p in used) and any("raise NarrowError(" in p.source for p in used)
    assert not any("RangeError" in p.source for p in _programs(200, exclude=frozenset({"user_exception"})))


def test_programs_without_the_new_features_are_unchanged():
    # The new features draw from a stream of their own: a program that draws none of them is
    # the program the same seed gives with all of them excluded.
    same = 0
    for i in range(200):
        full = Generator(random.Random(f"5:{i}")).program()
        if full.features & NEW_FEATURES:
            continue
        bare = Generator(random.Random(f"5:{i}"), exclude=NEW_FEATURES).program()
        assert full.source == bare.source
        same += 1
    assert same > 50


def test_uniform_parameters_are_passed_as_one_object(tmp_path):
    program = next(p for p in _programs(300) if "uniform_enum" in p.features)
    position = program.params.index("mode")
    assert program.kinds[position] == "o" and all(isinstance(m, ModuleRef) for m in program.uniforms[position])


# ---------------------------------------------------------------------------- planted answers

RAISING = "def f(x):\n    if x > 3.5:\n        raise ValueError(f'x={x}')\n    return x * 2.0\n"
COLUMNS = [Column("f", [1.0, 4.0, 5.0, -2.0])]


def _raising(exc: BaseException, index: int):
    def vec(x):
        exc.add_note(f"array-vectorize: raised for element ({index},) (flat index {index})")
        raise exc

    return vec


def _failures(prepared, columns):
    return [(f.kind, f.exc_type) for f in check.compare(prepared, columns, {"numpy": np}).failures]


def test_the_first_raising_element_is_the_expected_exception(tmp_path):
    _, prepared = check.prepare(RAISING, str(tmp_path))
    assert _failures(prepared, COLUMNS) == []  # the compiler raises ValueError('x=4.0') for element 1
    expected = check.compare(prepared, COLUMNS, {"numpy": np})
    assert not expected.failures


@pytest.mark.parametrize(
    "planted",
    [
        _raising(ArithmeticError("x=4.0"), 1),  # a wrong exception class
        _raising(ValueError("x=5.0"), 2),  # the second raising element, not the first
        _raising(ValueError("x=4.0"), 2),  # the right exception, noted for the wrong element
        _raising(ValueError("x=4"), 1),  # a wrong message
        lambda x: x * 2.0,  # no raise at all
    ],
    ids=["class", "first-lane", "note", "message", "no-raise"],
)
def test_a_wrong_raise_is_a_mismatch(planted, tmp_path):
    _, prepared = check.prepare(RAISING, str(tmp_path))
    prepared.vec = planted
    assert _failures(prepared, COLUMNS) in ([("mismatch", "raise")], [("mismatch", "no-raise")])


def test_a_raise_where_cpython_returns_is_a_mismatch(tmp_path):
    _, prepared = check.prepare(RAISING, str(tmp_path))
    prepared.vec = _raising(ValueError("x=1.0"), 0)
    assert _failures(prepared, [Column("f", [1.0, -2.0])]) == [("mismatch", "raise")]


def test_nan_on_raise_gives_nan_on_raising_elements_only(tmp_path):
    _, prepared = check.prepare(RAISING, str(tmp_path), nan_on_raise=True)
    assert prepared.nan_vec is not None and _failures(prepared, COLUMNS) == []
    prepared.nan_vec = lambda x: np.where(x > 3.5, 0.0, x * 2.0)  # a raising element not NaN
    assert ("mismatch", "value") in _failures(prepared, COLUMNS)
    prepared.nan_vec = lambda x: np.where(x > 0.5, np.nan, x * 2.0)  # a returning element NaN
    assert ("mismatch", "value") in _failures(prepared, COLUMNS)


TRY = (
    "import math\n\ndef f(x, y):\n    try:\n        r = x / y + math.log(x)\n    except ZeroDivisionError:\n"
    "        r = -1.0\n    else:\n        r = r * 2.0\n    return r + 1.0 / y\n"
)


def test_the_oracle_runs_try_bodies_as_cpython_and_the_rest_as_d3(tmp_path):
    path = tmp_path / "t.py"
    path.write_text(TRY)
    ev = oracle.Evaluator(TRY, str(path))
    assert ev.run([1.0, 0.0]).value == -1.0 + math.inf  # the handler; then 1.0 / 0.0 is inf (D3)
    raised = ev.run([-1.0, 2.0])  # math.log(-1.0) raises ValueError, which no clause takes
    assert isinstance(raised, oracle.Raised) and type(raised.error) is ValueError
    assert ev.run([math.e, 1.0]).value == pytest.approx((math.e + 1.0) * 2.0 + 1.0)


def test_a_wrong_value_after_try_is_a_mismatch(tmp_path):
    _, prepared = check.prepare(TRY, str(tmp_path))
    columns = [Column("f", [1.0, 2.0, 0.5]), Column("f", [0.0, 2.0, 4.0])]
    assert _failures(prepared, columns) == []
    right = prepared.vec
    prepared.vec = lambda x, y: right(x, y) + (y == 2.0)  # the `else` clause's lane off by one
    assert _failures(prepared, columns) == [("mismatch", "value")]
    prepared.vec = lambda x, y: np.where(y == 0.0, -1.0, right(x, y))  # the handler's lane without D3's inf
    assert _failures(prepared, columns) == [("mismatch", "ieee")]


UNIFORM = (
    "import enum\n\nclass Mode(enum.Enum):\n    FAST = 1\n    SLOW = 2\n\n"
    "def f(x, rates, mode, cap, label):\n    if mode is Mode.FAST:\n        x = x * rates['low']\n"
    "    if label == 'a':\n        x = x + 1.0\n    return x * (1.0 if cap is None else cap)\n"
)


def test_uniform_arguments_and_a_wrong_value(tmp_path):
    _, prepared = check.prepare(UNIFORM, str(tmp_path))
    columns = [
        Column("f", [1.0, -2.0, 3.0]), Column("o", [{"low": 0.5, "high": 2.0}], True),
        Column("o", [ModuleRef("Mode", "FAST")], True), Column("o", [None], True), Column("o", ["a"], True),
    ]
    assert _failures(prepared, columns) == []
    right = prepared.vec
    prepared.vec = lambda x, *u: right(x, *u) * (1.0 + (x > 2.0))
    assert _failures(prepared, columns) == [("mismatch", "value")]


def test_numpy_calls_follow_numpy_and_a_wrong_value_is_a_mismatch(tmp_path):
    src = "import numpy as np\n\ndef f(x):\n    return np.sqrt(x) + np.maximum(x, 0.5) + np.float64(np.pi)\n"
    _, prepared = check.prepare(src, str(tmp_path))
    columns = [Column("f", [-1.0, 0.25, 4.0, math.nan])]  # np.sqrt(-1.0) is nan, no raise (D16)
    assert _failures(prepared, columns) == []
    prepared.vec = lambda x: np.sqrt(np.abs(x)) + np.maximum(x, 0.5) + np.pi
    assert _failures(prepared, columns) == [("mismatch", "value")]


@pytest.mark.parametrize("name, bound", [("erf", 2), ("erfc", 4), ("gamma", 10)])
def test_inexact_special_functions_get_their_documented_bound_and_no_more(name, bound, tmp_path):
    src = f"import math\n\ndef f(x):\n    if x > 100.0:\n        return x * 0.5\n    return math.{name}(x)\n"
    _, prepared = check.prepare(src, str(tmp_path))
    xs = [0.3, 1.7, 2.9, 150.0]
    columns = [Column("f", xs)]
    assert _failures(prepared, columns) == []
    expected = np.array([getattr(math, name)(x) if x <= 100.0 else x * 0.5 for x in xs])
    within = expected.copy()
    within[:3] = [np.nextafter(v, math.inf) for v in within[:3]]
    for _ in range(bound - 1):
        within[:3] = [np.nextafter(v, math.inf) for v in within[:3]]
    prepared.vec = lambda x: within
    assert _failures(prepared, columns) == []  # `bound` ulps away: accepted
    beyond = within.copy()
    beyond[1] = np.nextafter(beyond[1], math.inf)
    prepared.vec = lambda x: beyond
    assert _failures(prepared, columns) == [("mismatch", "value")]
    off = expected.copy()
    off[3] = np.nextafter(off[3], math.inf)  # the other return's value: exact
    prepared.vec = lambda x: off
    assert _failures(prepared, columns) == [("mismatch", "value")]


def test_exact_special_functions_are_compared_exactly(tmp_path):
    src = "import math\n\ndef f(x, y):\n    return math.fmod(x, y) + math.fsum((x, y, 0.1)) + round(float(x), 2)\n"
    _, prepared = check.prepare(src, str(tmp_path))
    columns = [Column("f", [5.5, -7.25, 1e300]), Column("f", [2.0, 3.0, 7.0])]
    assert _failures(prepared, columns) == []
    right = prepared.vec
    prepared.vec = lambda x, y: np.nextafter(right(x, y), math.inf)  # every element 1 ulp off
    assert _failures(prepared, columns) == [("mismatch", "value")] * 3


#: Each way an element raises (D11), with a column where elements 1 and 2 raise, and the
#: exception CPython raises first.
RAISERS = {
    "assert": ("def f(x):\n    assert x < 3.5, f'x={x}'\n    return x\n", AssertionError("x=4.0")),
    "validator": (
        "def check(a):\n    if a > 3.5:\n        raise ArithmeticError('too big', a)\n\n"
        "def f(x):\n    check(x)\n    return x + 1.0\n",
        ArithmeticError("too big", 4.0),
    ),
    "try": (
        "import math\n\ndef f(x):\n    try:\n        r = math.log(3.5 - x)\n    except ZeroDivisionError:\n"
        "        r = 0.0\n    return r\n",
        ValueError("math domain error"),
    ),
}


@pytest.mark.parametrize("name", sorted(RAISERS))
def test_each_raising_construct_checks_class_and_first_element(name, tmp_path):
    source, first = RAISERS[name]
    _, prepared = check.prepare(source, str(tmp_path))
    assert _failures(prepared, COLUMNS) == []  # the compiler raises `first` for element 1
    prepared.vec = _raising(type(first)(*first.args), 1)
    assert _failures(prepared, COLUMNS) == []  # the planted right answer passes
    wrong_class = RuntimeError if type(first) is not RuntimeError else ValueError
    for planted in (_raising(wrong_class(*first.args), 1), _raising(type(first)(*first.args), 2), lambda x: x):
        prepared.vec = planted
        assert _failures(prepared, COLUMNS) in ([("mismatch", "raise")], [("mismatch", "no-raise")]), name
