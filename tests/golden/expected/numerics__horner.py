def horner(x):
    arrays = _vec_float_args(x)
    if arrays is None:
        return _vec_exact_horner(x)
    xp, x = arrays
    acc = _vec_f64(xp, 0.0)
    acc_own = None
    for c in (0.5, -1.0, 2.0, 3.0):
        if acc_own:
            acc *= x
            acc += c
        else:
            acc = acc * x + c
            if acc_own is None:
                acc_own = _vec_owned(xp, acc, x)
    return acc


def _vec_exact_horner(x):
    arrays = _vec_int_args(x)
    if arrays is not None:
        xp, x = arrays
        acc = xp.asarray(0.0, dtype=xp.float64)
        for c in (0.5, -1.0, 2.0, 3.0):
            acc = acc * xp.astype(x, xp.float64) + c
        return acc
    xp, x = _vec_exact_args(x)
    acc = xp.asarray(0.0, dtype=xp.float64)
    for c in (0.5, -1.0, 2.0, 3.0):
        acc = _vec_binary(xp, "mul", acc, x) + c
    return acc
