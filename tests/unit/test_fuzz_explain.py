"""The fuzz check's explanations of raise sites (``fuzz/explain.py``): a documented divergence of
a message or of the site a lane raises at is accepted exactly as the generated code builds it,
and a planted wrong message is still a mismatch."""

from __future__ import annotations

import numpy as np

from array_vectorize.fuzz import check
from array_vectorize.fuzz.inputs import Column

#: Item 37 through a width spec (fuzz finding 530104 #224): `p0`, merged with `1.0` in the loop,
#: is held as float64 (item 8), so the helper's message pads `0.0` where CPython pads the int `0`.
WIDTH_SPEC = (
    "import math\nMSG3 = 'x={!r:>12} rejected'\n\ndef r0(a, n):\n    if 0:\n        return 0\n"
    "    raise ArithmeticError(MSG3.format(n))\n\ndef f(p0):\n    w3 = 0\n    while w3 < 1:\n"
    "        w3 += 1\n        if math.remainder(0, r0(0, p0)):\n            p0 = 1.0\n    return 0\n"
)


def _raising(message: str):
    def vec(p0):
        exc = ArithmeticError(message)
        exc.add_note("array-vectorize: raised for element 0 (flat index 0)")
        raise exc

    return vec


def test_item37_through_a_width_spec_is_the_held_value_formatted_through_that_spec(tmp_path):
    columns = [Column("i", [0, 3])]
    result = check.check_program(WIDTH_SPEC, columns, check.backends(["numpy", "strict"]), str(tmp_path))
    assert not result.failures and result.skipped.get("array-rules")
    _, prepared = check.prepare(WIDTH_SPEC, str(tmp_path))
    # What the generated code raises: the float64 element through `{!r:>12}`.
    prepared.vec = _raising("x=         0.0 rejected")
    assert not check.compare(prepared, columns, {"numpy": np}).failures
    # CPython's text with `0` replaced by `0.0` keeps the int's padding: not what the generated
    # code formats (the text replacement this check made before accepted it), and neither are
    # another width or another value.
    for wrong in ("x=           0.0 rejected", "x=        0.0 rejected", "x=         1.0 rejected", "x=         0.5 rejected"):
        prepared.vec = _raising(wrong)
        failures = check.compare(prepared, columns, {"numpy": np}).failures
        assert [f.kind for f in failures] == ["mismatch"], wrong


#: Fuzz finding 563004 #1012: the min of an int and floats is held as float64 (item 8), which
#: rounds `b = -(2**63 - 1)` to -2**63, so `b > min(1, 0.5, b)` holds and the lane raises the
#: first site's message where CPython raises the second's.
MIN_OF_INT_AND_FLOAT = (
    "def h0(a, b):\n    if b > min(1, 0.5, b):\n        raise ValueError(f'first b={b}')\n"
    "    if a < 0:\n        raise ValueError(f'second a={a}')\n    return a\n\n"
    "def f(p0, p1):\n    return h0(p0, p1)\n"
)


def test_another_raise_site_taken_by_item_8_is_explained_only_with_that_sites_message(tmp_path):
    columns = [Column("i", [-1, -1, 2]), Column("i", [-(2**63 - 1), 0, 0])]
    result = check.check_program(MIN_OF_INT_AND_FLOAT, columns, check.backends(["numpy", "strict"]), str(tmp_path))
    assert not result.failures and result.skipped.get("array-rules")
    _, prepared = check.prepare(MIN_OF_INT_AND_FLOAT, str(tmp_path))

    def raising(message):
        def vec(p0, p1):
            exc = ValueError(message)
            exc.add_note("array-vectorize: raised for element 0 (flat index 0)")
            raise exc

        return vec

    prepared.vec = raising("first b=-9223372036854775807")
    assert not check.compare(prepared, columns, {"numpy": np}).failures
    # The first site with another value of `b` is no site's exception on that lane.
    prepared.vec = raising("first b=-9223372036854775808")
    assert [f.kind for f in check.compare(prepared, columns, {"numpy": np}).failures] == ["mismatch"]
