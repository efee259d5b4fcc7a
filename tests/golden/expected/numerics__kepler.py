def kepler(mean_anomaly, ecc):
    arrays = _vec_float_args(mean_anomaly, ecc)
    if arrays is None:
        return _vec_exact_kepler(mean_anomaly, ecc)
    xp, mean_anomaly, ecc = arrays
    e = mean_anomaly
    for _ in range(6):
        e = e - (e - ecc * e - mean_anomaly) / (1.0 - ecc)
    return e


def _vec_exact_kepler(mean_anomaly, ecc):
    arrays = _vec_int_args(mean_anomaly, ecc)
    if arrays is not None:
        xp, mean_anomaly, ecc = arrays
        e = xp.astype(mean_anomaly, xp.float64)
        for _ in range(6):
            e = e - (e - xp.astype(ecc, xp.float64) * e - xp.astype(mean_anomaly, xp.float64)) / (1.0 - xp.astype(ecc, xp.float64))
        return e
    xp, mean_anomaly, ecc = _vec_exact_args(mean_anomaly, ecc)
    e = mean_anomaly
    for _ in range(6):
        e = _vec_binary(xp, "sub", e, _vec_binary(xp, "truediv", _vec_binary(xp, "sub", _vec_binary(xp, "sub", e, _vec_binary(xp, "mul", ecc, e)), mean_anomaly), _vec_binary(xp, "sub", 1.0, ecc)))
    return _vec_result(xp, e)
