def log_return(p0, p1):
    arrays = _vec_float_args(p0, p1)
    if arrays is None:
        return _vec_exact_log_return(p0, p1)
    xp, p0, p1 = arrays
    cond = xp.logical_and(p0 > 0.0, p1 > 0.0)
    return xp.where(cond, xp.log(xp.where(cond, p1 / xp.where(cond, p0, 1), 1.0)), 0.0)


def _vec_exact_log_return(p0, p1):
    arrays = _vec_int_args(p0, p1)
    if arrays is not None:
        xp, p0, p1 = arrays
        cond = xp.logical_and(p0 > 0, p1 > 0)
        return xp.where(cond, xp.log(xp.where(cond, _vec_binary(xp, "truediv", p1, xp.where(cond, p0, 1)), 1.0)), 0.0)
    xp, p0, p1 = _vec_exact_args(p0, p1)
    cond = xp.logical_and(_vec_binary(xp, "gt", p0, 0.0), _vec_binary(xp, "gt", p1, 0.0))
    return xp.where(cond, xp.log(xp.where(cond, _vec_binary(xp, "truediv", p1, _vec_select(xp, cond, p0, 1)), 1.0)), 0.0)
