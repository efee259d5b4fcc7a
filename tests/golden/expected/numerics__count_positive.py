def count_positive(a, b, c):
    arrays = _vec_float_args(a, b, c)
    if arrays is None:
        return _vec_exact_count_positive(a, b, c)
    xp, a, b, c = arrays
    return xp.astype(a > 0.0, xp.int64) + xp.astype(b > 0.0, xp.int64) + xp.astype(c > 0.0, xp.int64)


def _vec_exact_count_positive(a, b, c):
    arrays = _vec_int_args(a, b, c)
    if arrays is not None:
        xp, a, b, c = arrays
        return xp.astype(a > 0, xp.int64) + xp.astype(b > 0, xp.int64) + xp.astype(c > 0, xp.int64)
    xp, a, b, c = _vec_exact_args(a, b, c)
    return xp.astype(_vec_binary(xp, "gt", a, 0.0), xp.int64) + xp.astype(_vec_binary(xp, "gt", b, 0.0), xp.int64) + xp.astype(_vec_binary(xp, "gt", c, 0.0), xp.int64)
