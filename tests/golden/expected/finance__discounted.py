def discounted(value, years):
    arrays = _vec_float_args(value, years)
    if arrays is None:
        return _vec_exact_discounted(value, years)
    xp, value, years = arrays
    return value * xp.exp(-0.05 * years)


def _vec_exact_discounted(value, years):
    arrays = _vec_int_args(value, years)
    if arrays is not None:
        xp, value, years = arrays
        return xp.astype(value, xp.float64) * xp.exp(-0.05 * xp.astype(years, xp.float64))
    xp, value, years = _vec_exact_args(value, years)
    return _vec_binary(xp, "mul", value, xp.exp(_vec_binary(xp, "mul", -0.05, years)))
