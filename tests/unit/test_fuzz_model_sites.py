"""The fuzz model's reading of raise sites (D11): each site's expression is Python source inside
the IR text, which ``fuzz/model.py`` reads with Python's own parser (``ast``), never by searching
the text. The exceptions it builds are compared with CPython's own, raised here."""

from __future__ import annotations

import math

from array_vectorize.fuzz import irtext, model

# A body whose raise code picks site 1 where `_b == 0`; the tests ask for every site on every lane
# (the model reads a site's operands from the run, whatever site the lane raised at).
SITES = r"""; ir-format: 1
fn f(x, _b) {
  %0: num = param 0
  %1: num = param 1
  %2: scalar float = const 0.0
  %3: bool = eq %1, %2
  %4: scalar int = const 1
  %5: scalar int = const 0
  %6: int = select %3, %4, %5
  raise if %6 != 0
    1 (_a = %0, _b = %1): _a // _b
    2 (_a = %0): int(_a)
    3 (_a0 = %0): __import__('math').log(_a0)
    4 (_b = %1): ValueError(_b)
    5 (): AssertionError
    6 (): ZeroDivisionError(0, 0)
    7 (x = %0): RangeError(f"x={x}")
    8 (_vec_a0 = %0): _vec_rerun(_vec_scalar_tidy_rate, _vec_a0)
  return %0
}
"""
X = [7.0, math.nan, math.inf, -1.0]
B = [0.0, 2.0, 2.0, 2.0]


def _raised(fn, *args):
    """CPython's exception of ``fn(*args)``, or None."""
    try:
        fn(*args)
    except Exception as exc:  # noqa: BLE001 - the oracle's exception
        return exc
    return None


def _same(got, want) -> bool:
    return type(got) is type(want) and (want is None or got.args == want.args)


def tidy_rate(x):
    """The scalar original a residue's site calls again (D19): a rate's square root."""
    return math.sqrt(x) / 2.0


def _model():
    m = model.Model(irtext.read(SITES))
    m.module = {"tidy_rate": tidy_rate}
    m.run([(X, "f"), (B, "f")], arrays=False)
    return m


def test_a_numeric_site_raises_what_cpython_raises_on_its_operands():
    m = _model()
    operations = {
        1: lambda x, b: x // b,
        2: lambda x, b: int(x),
        3: lambda x, b: math.log(x),
    }
    seen = set()
    for site, operation in operations.items():
        for lane, (x, b) in enumerate(zip(X, B)):
            want = _raised(operation, x, b)
            got = m.site_exception(site, lane)
            assert _same(got, want), (site, lane, got, want)
            assert m.site_class(site, lane) == (None if want is None else type(want).__name__)
            seen.add(type(want).__name__ if want is not None else None)
    # The lanes reach every outcome: no error, and each class the operations raise.
    assert seen == {None, "ZeroDivisionError", "ValueError", "OverflowError"}


def test_a_written_raise_names_its_class_whatever_its_variables_are_called():
    m = _model()
    for lane in range(len(X)):
        # `_b` is the program's own variable here, not an operand of a numeric site: the class
        # is the one written, and the message formats the program's value (not built).
        assert m.site_class(4, lane) == "ValueError"
        assert m.site_exception(4, lane) is None
        assert m.site_class(7, lane) == "RangeError"
        assert m.site_exception(7, lane) is None


def test_a_written_raise_of_builtins_and_constants_is_built():
    m = _model()
    assert _same(m.site_exception(5, 0), AssertionError())
    assert m.site_class(5, 0) == "AssertionError"
    assert _same(m.site_exception(6, 2), ZeroDivisionError(0, 0))


def test_a_residue_site_calls_the_scalar_original_again():
    m = _model()
    for lane, x in enumerate(X):
        want = _raised(tidy_rate, x)
        assert _same(m.site_exception(8, lane), want), lane
        assert m.site_class(8, lane) == (None if want is None else type(want).__name__)
    assert isinstance(_raised(tidy_rate, -1.0), ValueError)


def _with_site(expr: str) -> irtext.IrFunction:
    return irtext.read(SITES.replace("    8 (_vec_a0 = %0): _vec_rerun(_vec_scalar_tidy_rate, _vec_a0)", f"    8 (x = %0): {expr}"))


def test_a_transcendental_call_in_a_message_allows_item_9s_ulps():
    assert not model.approximate(irtext.read(SITES))
    assert model.approximate(_with_site('ValueError(f"{math.sqrt(x)}")'))
    # D17's functions are exact, or within their own bound: no ulps for them.
    assert not model.approximate(_with_site('ValueError(f"{math.fsum((x, 1.0))}")'))
    # A name that only contains `math.`, or a `math` attribute not called, is no such call.
    assert not model.approximate(_with_site('ValueError(f"{cmath.sqrt(x)} {math.pi}")'))
