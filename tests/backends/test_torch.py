"""PyTorch (issue 28 item 10): every language case of tests/behavior against CPython on torch
tensors, when torch is importable (``make test-torch`` installs it from PyPI and runs this file;
the behaviour suite also runs on torch then, through ``oracle.BACKENDS``). What torch does not
support is a clear error or a strict xfail naming the gap, each documented in docs/semantics.md
(the PyTorch paragraph)."""

from __future__ import annotations

import numpy as np
import pytest

from array_vectorize import vectorize
from behavior.language.test_constructs import CASES, _check_case

torch = pytest.importorskip("torch")

#: torch stores uint64 but lacks its comparisons and arithmetic: a uint64 argument with every
#: value below 2**63 is computed as int64; one at or above 2**63 is a TypeError saying so.
UINT64_BEYOND_INT64 = "torch has no uint64 arithmetic: values at or above 2**63 are refused (TypeError)"

#: Gaps of the runtime on torch, as strict xfails: remove an entry with its fix.
TORCH_GAPS = {
    "big_int_meets_float": "a Python int in [2**63, 2**64) becomes a uint64 0-d tensor, which torch cannot add",
    "int_true_division": "int / int goes through the uint64 division helper, which torch cannot add",
    "mixed_kinds": "the uint64 lattice of an int literal in [2**63, 2**64): torch cannot add uint64",
    "early_return_in_loop": "a merge of Python floats makes a float32 tensor (torch's default dtype)",
    "loop_return_inside_array_if": "a merge of Python floats makes a float32 tensor (torch's default dtype)",
    "floor_division_and_modulo": "torch's remainder gives 0.0 where CPython's float % gives -0.0",
    "from_math_import": "torch's float power is an ulp from libm's beyond the case's tolerance",
}
UINT64_CASES = {"int_uint_select", "uint_arithmetic", "uint_float_select", "uint_floor_division", "uint_int_mixed"}


def _marks(name):
    if name in TORCH_GAPS:
        return [pytest.mark.xfail(strict=True, reason=TORCH_GAPS[name])]
    if name in UINT64_CASES:
        return [pytest.mark.xfail(strict=True, raises=TypeError, reason=UINT64_BEYOND_INT64)]
    return []


@pytest.mark.parametrize("name", [pytest.param(n, marks=_marks(n)) for n in sorted(CASES)])
def test_language_case_matches_cpython_on_torch(name):
    _check_case(name, "torch")


def later_due(due, today):
    return due > today


def test_uint64_comparisons_on_torch():
    # The crash the issue reports: `a > b` on uint64 tensors raised NotImplementedError inside
    # torch ("gt_cpu" not implemented for 'UInt64').
    vec = vectorize(later_due)
    due = np.array([1, 5, 2**63 - 1, 0], dtype=np.uint64)
    today = np.array([3, 2, 2**63 - 2, 0], dtype=np.uint64)
    got = vec(torch.from_numpy(due.astype(np.int64)).to(torch.uint64), torch.from_numpy(today.astype(np.int64)).to(torch.uint64))
    assert got.tolist() == [later_due(int(a), int(b)) for a, b in zip(due, today)]
    with pytest.raises(TypeError, match="at or above 2\\*\\*63"):
        vec(torch.tensor([2**63 + 1], dtype=torch.uint64), torch.tensor([0], dtype=torch.uint64))
