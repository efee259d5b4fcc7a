"""A uniform value (D14: a parameter dict, an Enum member) passed on to helpers compiled out of
line (D7: past the inlining budget each helper is a generated function of its own) stays a
Python object: it is passed to the helper's function as it is, never converted to an array or
used to broadcast, and its keys are read in Python. CPython is the oracle, on every backend."""

from __future__ import annotations

import importlib
import re
import sys

import numpy as np
import pytest

from oracle import check

DEPTH = 16


def _tower(line_test: str = "line.value == 1") -> str:
    """A reinsurance tower: each layer is two copies of the next; the last one cedes a share of
    the loss above the deductible read from the parameter dict, per line of business."""
    text = "from enum import Enum\n\nfrom array_vectorize import vectorize\n\n\n"
    text += "class Line(Enum):\n    PROPERTY = 1\n    MARINE = 2\n\n\n"
    for i in range(DEPTH):
        text += f"def layer{i}(loss, terms, line):\n    return layer{i + 1}(loss, terms, line) + layer{i + 1}(loss, terms, line)\n\n\n"
    text += (
        f"def layer{DEPTH}(loss, terms, line):\n"
        f"    share = terms['share'] if {line_test} else terms['share'] * 0.5\n"
        "    if loss > terms['deductible']:\n"
        "        return (loss - terms['deductible']) * share\n"
        "    return loss * 0.0\n\n\n"
    )
    text += "@vectorize\ndef ceded(loss, terms, line):\n    return layer0(loss, terms, line) / 65536.0\n"
    return text


@pytest.fixture(scope="module")
def tower(tmp_path_factory):
    root = tmp_path_factory.mktemp("tower")
    (root / "avtower_mod.py").write_text(_tower())
    sys.path.insert(0, str(root))
    try:
        yield importlib.import_module("avtower_mod")
    finally:
        sys.path.remove(str(root))
        sys.modules.pop("avtower_mod", None)


def test_the_helpers_are_called_out_of_line_with_the_dict_passed_as_is(tower):
    src = tower.ceded.source
    assert "def _vec_helper_layer" in src, src[:2000]
    assert "_vec_uniform(terms, 'terms')" in src
    # The helper's function receives the dict and the member and reads them; the results are
    # broadcast against the loss array only.
    assert re.search(r"def _vec_helper_layer\d+_\d+\(xp, loss, terms, line\):", src), src[:2000]
    broadcasts = [line for line in src.splitlines() if "_vec_broadcast(" in line]
    assert broadcasts and all(line.endswith(", loss)") for line in broadcasts), broadcasts


@pytest.mark.parametrize("line", ["PROPERTY", "MARINE"])
def test_a_dict_and_an_enum_passed_through_out_of_line_helpers_match_cpython(tower, line, backend):
    loss = np.array([0.0, -0.0, 5.0, 10.0, 10.5, 2.5e4, 1e300, -1.0, np.inf, np.nan])
    terms = {"deductible": 10.0, "share": 0.25}
    check(tower.ceded, loss, terms, getattr(tower.Line, line), backend=backend)


def test_a_helper_reading_an_enum_class_is_not_called_out_of_line(tmp_path, monkeypatch):
    # The Enum class is a global of the generated module (D14), which a helper's function does
    # not have: such a helper is inlined, and 2**16 copies exceed the budget: a clear error.
    from array_vectorize import VectorizationError

    (tmp_path / "avtower_enum.py").write_text(_tower("line == Line.PROPERTY"))
    monkeypatch.syspath_prepend(str(tmp_path))
    try:
        with pytest.raises(VectorizationError, match="too big to vectorize"):
            importlib.import_module("avtower_enum")
    finally:
        sys.modules.pop("avtower_enum", None)
