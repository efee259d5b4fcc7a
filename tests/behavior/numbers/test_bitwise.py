"""Bitwise operators `& | ^ << >> ~` on ints and bools (D15), against CPython as the oracle.

`&`, `|`, `^` of two bools are bools; every other int/bool mix is an int (`~True == -2`).
Results CPython computes beyond 64 bits wrap modulo 2**64 (docs/semantics.md items 6 and 13);
a negative shift count, CPython's ValueError, gives 0 (the shift item of docs/semantics.md).
"""

from __future__ import annotations

import numpy as np
import pytest

from array_vectorize import VectorizationError, vectorize
from oracle import check, grid, to_backend

INTS = np.array([0, 1, -1, 2, 5, -6, 7, 255, -256, 2**31, 2**62, -(2**62), 2**63 - 1, -(2**63), 12345, -98765], dtype=np.int64)
SMALL = np.array([0, 1, 2, 3, 7, 31, 62, 63], dtype=np.int64)
BOOLS = np.array([False, True])
UINTS = np.array([0, 1, 7, 2**63 - 1, 2**63, 2**64 - 1, 12345], dtype=np.uint64)


def band(a, b):
    return a & b


def bor(a, b):
    return a | b


def bxor(a, b):
    return a ^ b


def lshift(a, n):
    return a << n


def rshift(a, n):
    return a >> n


def invert(a):
    return ~a


def flags(mask):
    # Bit-flag decoding: a permit needs bit 0 and bit 2, and not bit 5.
    return (mask & 1 != 0) and (mask >> 2) & 1 == 1 and not mask & 0x20


def parity(x):
    x ^= x >> 32
    x ^= x >> 16
    x ^= x >> 8
    x ^= x >> 4
    x ^= x >> 2
    x ^= x >> 1
    return x & 1


@pytest.mark.parametrize("fn", [band, bor, bxor], ids=lambda f: f.__name__)
def test_and_or_xor_on_ints_and_bools(fn, backend):
    check(vectorize(fn), *grid(INTS, INTS), backend=backend)
    check(vectorize(fn), *grid(BOOLS, BOOLS), backend=backend)
    check(vectorize(fn), *grid(BOOLS, INTS), backend=backend)
    check(vectorize(fn), *grid(UINTS, INTS), backend=backend)
    check(vectorize(fn), *grid(UINTS, UINTS), backend=backend)


@pytest.mark.parametrize("fn", [lshift, rshift], ids=lambda f: f.__name__)
def test_shifts_within_64_bits(fn, backend):
    check(vectorize(fn), *grid(np.array([0, 1, -1, 5, -6, 1000, -1000], dtype=np.int64), SMALL), backend=backend)
    check(vectorize(fn), *grid(BOOLS, np.array([0, 1, 3], dtype=np.int64)), backend=backend)


def test_right_shift_of_anything_and_left_shift_past_64_bits(backend):
    check(vectorize(rshift), *grid(INTS, np.array([0, 1, 62, 63, 64, 65, 1000, 2**62], dtype=np.int64)), backend=backend)
    check(vectorize(rshift), *grid(UINTS, np.array([0, 1, 63, 64, 70], dtype=np.int64)), backend=backend)
    # CPython's exact a << n, modulo 2**64 (docs/semantics.md item 6): the oracle compares ints
    # modulo 2**64 in the result's dtype.
    check(vectorize(lshift), *grid(INTS, np.array([0, 1, 62, 63, 64, 100], dtype=np.int64)), backend=backend)


def test_invert(backend):
    check(vectorize(invert), INTS, backend=backend)
    check(vectorize(invert), BOOLS, backend=backend)
    check(vectorize(invert), UINTS, backend=backend)


def test_bit_flag_decoding_and_parity(backend):
    masks = np.arange(-70, 70, dtype=np.int64)
    check(vectorize(flags), masks, backend=backend)
    check(vectorize(parity), np.concatenate([masks, INTS]), backend=backend)


def test_bool_results_for_bool_operands():
    out = vectorize(band)(np.array([True, False]), np.array([True, True]))
    assert out.dtype == np.bool_ and out.tolist() == [True, False]
    assert vectorize(invert)(np.array([True, False])).tolist() == [-2, -1]


def test_a_negative_shift_count_gives_zero(backend):
    """Divergence (docs/semantics.md): CPython raises ValueError('negative shift count')."""
    with pytest.raises(ValueError, match="negative shift count"):
        lshift(5, -1)
    got = vectorize(lshift)(*(to_backend(v, backend) for v in (np.array([5, -5]), np.array([-1, -64]))))
    assert np.asarray(got).tolist() == [0, 0]
    got = vectorize(rshift)(*(to_backend(v, backend) for v in (np.array([5, -5]), np.array([-1, -2]))))
    assert np.asarray(got).tolist() == [0, 0]


def test_a_float_operand_raises_cpythons_type_error_at_call_time(backend):
    vec = vectorize(band)
    with pytest.raises(TypeError) as cpython:
        band(1.5, 1)
    with pytest.raises(TypeError) as info:
        vec(to_backend(np.array([1.5]), backend), to_backend(np.array([1]), backend))
    assert str(info.value) == str(cpython.value)
    with pytest.raises(TypeError, match="unary ~"):
        vectorize(invert)(to_backend(np.array([1.5]), backend))


def test_a_known_float_operand_is_rejected_at_compile_time():
    def masked(x):
        return (x * 0.5) & 3

    def inverted(x):
        return ~float(x)

    for fn in (masked, inverted):
        with pytest.raises(VectorizationError, match="TypeError"):
            vectorize(fn)


def test_constant_bit_arithmetic_folds_exactly():
    def shifted(x):
        return x + (1 << 40) - (0xFF & -2) + (True ^ True) + ~True

    check(vectorize(shifted), INTS[:8])
