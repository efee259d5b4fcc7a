def huber(r):
    arrays = _vec_float_args(r)
    if arrays is None:
        return _vec_exact_huber(r)
    xp, r = arrays
    tmp = xp.abs(r)
    return xp.where(tmp <= 1.5, 0.5 * r * r, 1.5 * (tmp - 0.75))


def _vec_exact_huber(r):
    arrays = _vec_int_args(r)
    if arrays is not None:
        xp, r = arrays
        tmp = xp.abs(r)
        return xp.where(tmp <= 1, 0.5 * xp.astype(r, xp.float64) * xp.astype(r, xp.float64), 1.5 * (xp.astype(tmp, xp.float64) - 0.75))
    xp, r = _vec_exact_args(r)
    tmp = _vec_unary(xp, "abs", r)
    return xp.where(_vec_binary(xp, "le", tmp, 1.5), _vec_binary(xp, "mul", _vec_binary(xp, "mul", 0.5, r), r), 1.5 * _vec_binary(xp, "sub", tmp, 0.75))
