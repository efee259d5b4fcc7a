"""The fuzz model's reader of the IR text (``array_vectorize/fuzz/irtext.py``): the grammar of
src/ir/read.rs, version checked, on every construct and on the IR of a few hundred fuzz programs."""

from __future__ import annotations

import math

import pytest

from array_vectorize.fuzz import irtext

# The Rust reader's own every-construct case (src/ir/read/tests.rs), trimmed to what the
# model reads.
EVERY_CONSTRUCT = r"""; ir-format: 1
fn rate.<locals>.tier(income, band: uniform, cap: optional; TABLE, helper) {
  %0: num = param 0
  %1: scalar obj = uniform Arg(1)()
  %2: scalar obj = uniform Attr("name \"x\"\n")(%1)
  %3: scalar obj = uniform Lit(Str("low"))()
  %4: scalar bool = uniform Compare(IsNot)(%2, %3)
  %5: scalar obj = uniform Lit(None)()
  %6: scalar float = const -0.0
  %7: scalar float = const ((1, 2.5), [True], {1: nan, 2: -inf})
  %10: float = math.numpy.floor(%0)
  %11: float = math.floor(%0)
  %13: num = math.numpy.power(%0, %6)
  %15: num = call @0(%0, %10)
  %16: num = residue #4(%14, %0)
  %18: bool = scalar_raised %16
  %19: num = call_site #3(%14, %0)
  %8: num = call_site (lambda income, _vec_a0: ND.cdf(income, ")(\n", k=_vec_a0))(%14, %0, %6)
  %9: num = call_site (lambda : ND.mean())(%14)
  %17: scalar int = index %7[%6]
  %14: bool = lt %0, %6
  %20: scalar int = const 0
  for %21 in (1, 2.5) {
    %22: float = phi(%0, %23)
    %23: float = mul %22, %21
  }
  for %30 in range(0, -6, -2) {
  }
  while any(%24) {
    %24: bool = phi(%14, %25)
    %25: bool = and %24, %14
  }
  if %4 {
    %26: scalar int = const 1
  } else {
  }
  %27: scalar int = if_merge(%26, %20)
  raise if %27 != 0, nan_on_raise
    1 (income = %0, rate = %10): ValueError(f"bad {income} at {rate}\n\\")
      from: err
    2 (): AssertionError
  return (%22, %11)
}
"""


def test_every_construct_reads():
    f = irtext.read(EVERY_CONSTRUCT)
    assert f.name == "rate.<locals>.tier"
    assert f.params == ["income", "band", "cap", "TABLE", "helper"]
    lets = {let.dst: let for let in f.lets()}
    assert lets[1].args == ["Arg", 1]
    assert lets[2].args == ["Attr", 'name "x"\n', 1]
    assert lets[3].args == ["Lit", "low"] and lets[5].args == ["Lit", None]
    assert lets[4].args == ["Compare", "IsNot", 2, 3]
    assert math.isnan(lets[7].args[0][2][1]) and lets[7].args[0][2][2] == -math.inf
    # NumPy's rounding (D16) is known to the model by its short name; numpy.power keeps its own.
    assert lets[10].args == ["floor", 0] and lets[13].args == ["numpy.power", 0, 6]
    assert (lets[15].op, lets[15].args) == ("call", [0, 0, 10])
    # D19, D23: calls run element by element; a lambda's text runs to the `)(` of its operands.
    assert (lets[16].op, lets[16].args) == ("residue", [4, 14, 0])
    assert (lets[18].op, lets[18].args) == ("scalar_raised", [16])
    assert (lets[19].op, lets[19].args) == ("call_site", [3, 14, 0])
    assert lets[8].args == [irtext.Lambda(["income", "_vec_a0"], 'ND.cdf(income, ")(\n", k=_vec_a0)'), 14, 0, 6]
    assert lets[9].args == [irtext.Lambda([], "ND.mean()"), 14]
    assert (lets[17].op, lets[17].args) == ("index", [7, 6])
    loop, ranged, masked, branch = [n for n in f.body if not isinstance(n, irtext.Let)]
    assert (loop.index, loop.items, [p.dst for p in loop.phis]) == (21, (1, 2.5), [22])
    assert ranged.items == range(0, -6, -2)
    assert (masked.index, masked.active, masked.items) == (-1, 24, None)
    assert (branch.cond, [m.dst for m in branch.outs]) == (4, [27])
    assert (f.raise_code, f.nan_on_raise) == (27, True)
    assert f.sites[1].expr == 'ValueError(f"bad {income} at {rate}\n\\")'
    assert (f.sites[1].names, f.sites[1].refs, f.sites[1].cause) == (["income", "rate"], [0, 10], "err")
    assert (f.sites[2].refs, f.sites[2].cause) == ([], None)
    assert (f.tuple, f.ret) == (True, [22, 11])
    assert f.kinds[22] == "float" and f.kinds[1] == "obj"


def test_the_version_is_checked():
    with pytest.raises(irtext.IrTextError, match="ir-format 2; this reader reads 1"):
        irtext.read(EVERY_CONSTRUCT.replace("ir-format: 1", "ir-format: 2", 1))
    with pytest.raises(irtext.IrTextError, match="expected the header"):
        irtext.read(EVERY_CONSTRUCT.split("\n", 1)[1])


def test_fuzz_programs_read_and_model():
    from array_vectorize.fuzz import model
    from ir_text_corpus import fuzz_ir

    read = modelled = 0
    for _, text in fuzz_ir(seed=7001, count=120):
        f = irtext.read(text)
        read += 1
        # What is returned and what a raise site reports are values the text defines.
        assert set(f.ret) <= set(f.kinds), text
        assert all(set(site.refs) <= set(f.kinds) for site in f.sites.values()), text
        try:
            model.Model(f)
            modelled += 1
        except model.Unsupported:
            pass
    assert read >= 200, read
    assert modelled >= read // 2, (modelled, read)
