"""The fuzz check's explanations of raise sites (``fuzz/explain.py``): a documented divergence of
a message or of the site a lane raises at is accepted exactly as the generated code builds it,
and a planted wrong message is still a mismatch."""

from __future__ import annotations

import numpy as np

from array_vectorize.fuzz import check
from array_vectorize.fuzz.inputs import Column

#: Item 37 through a width spec (fuzz finding 530104 #224): `p0`, merged with `1.0` in the loop,
#: is held as float64 (item 8), so the helper's message pads `0.0` where CPython pads the int `0`.
#: `r0` returns on some lanes: one raising on every path raises at its call, as a `raise` there,
#: which reads `p0` before the merge (seed 670010 #57).
WIDTH_SPEC = (
    "import math\nMSG3 = 'x={!r:>12} rejected'\n\ndef r0(a, n):\n    if n > 2:\n        return 1\n"
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


#: Fuzz finding 690002 #357: `1 % math.atanh(K0 / 1.5)` amplifies an ulp of the array library's
#: atanh (item 9) a thousandfold, and item 7's message shows the product: the call's message is
#: explained when the model's array reading (the library's atanh) builds it exactly.
ATANH_IN_A_MESSAGE = "import math\nK0 = 0.001\n\ndef f(p0):\n    p0 *= 1 % math.atanh(K0 / 1.5)\n    return math.floor(p0)\n"
#: The same path without a transcendental function: every value in the message is exact.
EXACT_IN_A_MESSAGE = "K0 = 0.001\n\ndef f(p0):\n    p0 *= 1 % (K0 / 1.5)\n    return int(p0)\n"


def _floor_beyond(fn: str, value: float):
    def vec(p0):
        exc = OverflowError(f"{fn}({value!r}) is beyond int64, which an int array cannot hold (docs/semantics.md item 7)")
        exc.add_note("array-vectorize: raised for element 0 (flat index 0)")
        raise exc

    return vec


def _ulps_apart(a: float, b: float) -> int:
    return abs(int(np.float64(a).view(np.int64)) - int(np.float64(b).view(np.int64)))


def test_item7s_message_of_a_value_through_a_transcendental_function_allows_what_item9_allows(tmp_path, monkeypatch):
    import math

    from array_vectorize.fuzz import model

    columns = [Column("f", [-1e300, 2.0])]
    # What this machine's library gives, through the vectorized call.
    result = check.check_program(ATANH_IN_A_MESSAGE, columns, check.backends(["numpy", "strict"]), str(tmp_path))
    assert not result.failures, [f.detail for f in result.failures]
    # A library whose atanh rounds an ulp above the C library's (NumPy's does on some machines).
    monkeypatch.setitem(model._NP_MATH, "atanh", lambda x: np.nextafter(np.vectorize(math.atanh)(x), np.inf))
    k = 0.001 / 1.5
    cpythons = -1e300 * (1 % math.atanh(k))
    librarys = -1e300 * (1 % math.nextafter(math.atanh(k), math.inf))
    assert _ulps_apart(cpythons, librarys) > check.ULPS  # beyond item 9's ulps: only the model explains it
    _, prepared = check.prepare(ATANH_IN_A_MESSAGE, str(tmp_path))
    for explained in (cpythons, librarys):
        prepared.vec = _floor_beyond("math.floor", explained)
        assert not check.compare(prepared, columns, {"numpy": np}).failures, explained
    # Neither CPython's value nor the library's: a mismatch.
    for wrong in (math.nextafter(librarys, 0.0), -6.66518617244e296, cpythons / 2):
        prepared.vec = _floor_beyond("math.floor", wrong)
        assert [f.kind for f in check.compare(prepared, columns, {"numpy": np}).failures] == ["mismatch"], wrong


def test_item7s_message_of_an_exact_value_must_show_cpythons_value(tmp_path):
    import math

    columns = [Column("f", [-1e300, 2.0])]
    result = check.check_program(EXACT_IN_A_MESSAGE, columns, check.backends(["numpy", "strict"]), str(tmp_path))
    assert not result.failures, [f.detail for f in result.failures]
    _, prepared = check.prepare(EXACT_IN_A_MESSAGE, str(tmp_path))
    cpythons = -1e300 * (1 % (0.001 / 1.5))
    prepared.vec = _floor_beyond("int", cpythons)
    assert not check.compare(prepared, columns, {"numpy": np}).failures
    # One ulp off, or amplified as an ulp of a transcendental function would be: no function
    # on the way explains it.
    for wrong in (math.nextafter(cpythons, 0.0), -1e300 * (1 % math.nextafter(0.001 / 1.5, 1.0))):
        prepared.vec = _floor_beyond("int", wrong)
        assert [f.kind for f in check.compare(prepared, columns, {"numpy": np}).failures] == ["mismatch"], wrong


#: Fuzz finding 690009 #754: `int(max(0.001, CAP, share))` with the int CAP = 2**63 among floats.
#: CPython's max returns the int itself and `int()` keeps it: 2**63, beyond int64. Item 8 holds
#: the max as float64 and item 7 raises for it, so no lane could hold CPython's value: the lane
#: is set aside (``Raised.wide``/``Ok.wide``), as a wrapped int is. Below the threshold the cap is
#: 7, whose conversion fits int64: a raise there is still a mismatch. The rates are a uniform
#: dict (D14), which the fuzz model does not read: only the oracle's own marks decide.
CAP_BEYOND_INT64 = (
    "CAP = 9223372036854775808\n\ndef f(income, rates: dict):\n    share = income / rates['base']\n"
    "    return share - int(max(0.001, CAP if share > 0.0 else 7, share))\n"
)


def _item7_raise_for(lane: int):
    def vec(income, rates):
        exc = OverflowError("int(9.223372036854776e+18) is beyond int64, which an int array cannot hold (docs/semantics.md item 7)")
        exc.add_note(f"array-vectorize: raised for element {lane} (flat index {lane})")
        raise exc

    return vec


def test_a_raise_where_cpythons_int_is_beyond_int64_is_set_aside_and_only_there(tmp_path):
    columns = [Column("f", [-3.5, 2.0, -1.0]), Column("o", [{"base": 0.25}], scalar=True)]
    result = check.check_program(CAP_BEYOND_INT64, columns, check.backends(["numpy", "strict"]), str(tmp_path))
    assert not result.failures, [f.detail for f in result.failures]
    assert result.skipped.get("int-beyond-64-bits")
    _, prepared = check.prepare(CAP_BEYOND_INT64, str(tmp_path))
    # The call raising for element 1, whose CPython int is 2**63: set aside, not a mismatch.
    prepared.vec = _item7_raise_for(1)
    outcome = check.compare(prepared, columns, {"numpy": np})
    assert not outcome.failures and outcome.skipped.get("int-beyond-64-bits")
    # The same raise for element 0 or 2, whose int is 7 (it fits int64): a mismatch.
    for lane in (0, 2):
        prepared.vec = _item7_raise_for(lane)
        failures = check.compare(prepared, columns, {"numpy": np}).failures
        assert [f.kind for f in failures] == ["mismatch"], lane
