def horner(x):
    arrays = _vec_float_args(x)
    if arrays is None:
        return _vec_exact_horner(x)
    xp, x = arrays
    acc = _vec_f64(xp, 0.0)
    for c in (0.5, -1.0, 2.0, 3.0):
        acc = acc * x + c
    return acc


def _vec_exact_horner(x):
    xp, x = _vec_exact_args(x)
    acc = xp.asarray(0.0, dtype=xp.float64)
    for c in (0.5, -1.0, 2.0, 3.0):
        acc = _vec_binary(xp, "mul", acc, x) + c
    return acc
